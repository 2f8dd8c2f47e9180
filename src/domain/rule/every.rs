//! Owns how often a rule is checked: every hour after the sync (`1h`), or every 5 minutes on
//! the platform's 5-minute figures (`5m`), which are kept 25 hours, so a fast rule's conditions
//! reach back at most 24 hours (a window, or a comparison's window and offset).

use super::{Against, Group};

/// How often a rule is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Every {
    /// After each hourly sync.
    #[default]
    Hour,
    /// At each 5-minute mark (UTC, multiples of 300 seconds).
    FiveMinutes,
}

/// How far back a fast rule's conditions may read.
pub const FAST_REACH_HOURS: u32 = 24;

/// The sentence a `5m` rule over a longer reach is refused with.
pub const FAST_REFUSAL: &str = "every is 1h or 5m; 5m needs every condition's window, and a comparison's window plus offset, to be at most 24 hours (the 5-minute figures are kept 25 hours).";

impl Every {
    /// Its word on the wire and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Every::Hour => "1h",
            Every::FiveMinutes => "5m",
        }
    }

    pub fn parse(word: &str) -> Option<Every> {
        match word {
            "1h" => Some(Every::Hour),
            "5m" => Some(Every::FiveMinutes),
            _ => None,
        }
    }

    /// Whether a rule with `conditions` may be checked this often: hourly always, every 5
    /// minutes only when no condition reaches back more than [`FAST_REACH_HOURS`].
    pub fn allows(self, conditions: &Group) -> bool {
        match self {
            Every::Hour => true,
            Every::FiveMinutes => conditions.conditions().iter().all(|c| {
                let reach = match &c.against {
                    Against::Value(_) => c.window_hours,
                    Against::Compare(cmp) => c.window_hours.max(cmp.reach()),
                };
                reach <= FAST_REACH_HOURS
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::cond;
    use super::super::{CompareTo, Metric, Op};
    use super::*;

    #[test]
    fn five_minutes_allows_a_reach_of_at_most_a_day_and_an_hour_allows_any() {
        let mut c = cond(Metric::Spent, Op::Ge, "5");
        let group = |c: &super::super::Condition| Group::flat(true, vec![c.clone()]);
        assert!(Every::FiveMinutes.allows(&group(&c)), "24 h");
        c.window_hours = 48;
        assert!(!Every::FiveMinutes.allows(&group(&c)), "48 h");
        assert!(Every::Hour.allows(&group(&c)));
        c.window_hours = 12;
        c.against = Against::Compare(CompareTo {
            metric: Metric::Spent,
            window_hours: 12,
            offset_hours: 12,
            factor: rust_decimal::Decimal::ONE,
        });
        assert!(Every::FiveMinutes.allows(&group(&c)), "12 h, 12 h back");
        c.against = Against::Compare(CompareTo {
            metric: Metric::Spent,
            window_hours: 12,
            offset_hours: 13,
            factor: rust_decimal::Decimal::ONE,
        });
        assert!(!Every::FiveMinutes.allows(&group(&c)), "reaches 25 h");
        assert_eq!(Every::parse("5m"), Some(Every::FiveMinutes));
        assert_eq!(Every::parse("15m"), None);
        assert_eq!(Every::Hour.as_str(), "1h");
    }
}
