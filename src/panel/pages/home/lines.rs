//! Owns the home page's lines of figures: a cabinet's figures in a period and the one before,
//! and a line per currency summing its cabinets, as the totals, their download and the
//! reporting currency's block read them.

use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
use crate::store::converted::Converted;

/// One cabinet's figures in a period.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub totals: Totals,
    pub converted: Converted,
}

impl Figures {
    fn add(&mut self, other: &Figures) {
        self.totals.add(&other.totals);
        self.converted.count = self.converted.count.saturating_add(other.converted.count);
        for (currency, amount) in &other.converted.revenue {
            match self
                .converted
                .revenue
                .iter_mut()
                .find(|(c, _)| c == currency)
            {
                Some((_, sum)) => *sum = sum.saturating_add(*amount),
                None => self.converted.revenue.push((currency.clone(), *amount)),
            }
        }
        self.converted.revenue.sort();
    }
}

/// One line of the totals: a cabinet (or a currency's sum when `id` is `None`).
#[derive(Debug, Clone)]
pub struct Line {
    pub id: Option<i64>,
    pub name: String,
    pub kind: CabinetType,
    pub now: Figures,
    pub before: Figures,
    /// Spend per day of the period.
    pub days: Vec<Money>,
}

/// One line per currency summing its cabinets, in the order currencies first appear.
pub fn per_currency(lines: &[Line]) -> Vec<Line> {
    let mut sums: Vec<Line> = Vec::new();
    for line in lines {
        let sum = match sums.iter_mut().find(|s| s.kind == line.kind) {
            Some(sum) => sum,
            None => {
                sums.push(Line {
                    id: None,
                    name: String::new(),
                    kind: line.kind,
                    now: Figures::default(),
                    before: Figures::default(),
                    days: vec![Money::default(); line.days.len()],
                });
                let last = sums.len() - 1;
                &mut sums[last]
            }
        };
        sum.now.add(&line.now);
        sum.before.add(&line.before);
        for (d, day) in sum.days.iter_mut().zip(&line.days) {
            *d = Money::from_micros(d.micros().saturating_add(day.micros()));
        }
    }
    sums
}
