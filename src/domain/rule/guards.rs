//! Owns the guards that may hold a rule's action back: its cooldown on a campaign, its runs a
//! day, the money it and the cabinet's rules move in a day, kept up to date as an evaluation
//! runs so that it sees its own earlier actions.

use chrono::{DateTime, Duration, Utc};

use super::{Planned, RuleSpec, DAY};
use crate::domain::money::{Money, MAX_MICROS};

/// One earlier run of a rule on a campaign (acted, or would have in a dry run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub rule_id: i64,
    pub ad_id: i64,
    pub at: DateTime<Utc>,
}

/// Money a rule moved (or set out to move) into a campaign, or would have in a dry run. The
/// rule may since have been deleted: its moves still count against the cabinet's cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub rule_id: i64,
    pub at: DateTime<Utc>,
    pub moved: Money,
    /// A dry run's would-be money: it counts for its own rule's guards only.
    pub dry: bool,
}

/// Why a guard held an action back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    Cooldown,
    MaxRunsPerDay,
    RuleMoneyCap,
    CabinetMoneyCap,
    /// A rule across cabinets: its `max_total_per_day` over all of them.
    RuleTotalCap,
}

impl Skip {
    pub fn reason(self) -> &'static str {
        match self {
            Skip::Cooldown => "cooldown",
            Skip::MaxRunsPerDay => "max_runs_per_day",
            Skip::RuleMoneyCap => "max_per_day",
            Skip::CabinetMoneyCap => "cabinet_daily_cap",
            Skip::RuleTotalCap => "max_total_per_day",
        }
    }
}

/// The runs of a cabinet's rules and the money they moved in the last day (at least) before an
/// evaluation, kept up to date as the evaluation runs, so its guards see its own earlier
/// actions.
#[derive(Debug, Clone, Default)]
pub struct Guards {
    runs: Vec<Run>,
    moves: Vec<Move>,
    /// The cabinet's cap on money moved by automation in a day; `None`: none beyond the rules'.
    cabinet_cap: Option<Money>,
    /// The money rules across cabinets moved (or would have, in a dry run) in their other
    /// cabinets, for their cap over all of them.
    elsewhere: Vec<Move>,
}

impl Guards {
    pub fn new(runs: Vec<Run>, moves: Vec<Move>, cabinet_cap: Option<Money>) -> Guards {
        Guards {
            runs,
            moves,
            cabinet_cap,
            elsewhere: Vec::new(),
        }
    }

    /// With the money rules across cabinets moved in their other cabinets.
    pub fn with_elsewhere(mut self, elsewhere: Vec<Move>) -> Guards {
        self.elsewhere = elsewhere;
        self
    }

    /// Whether rule `id` already ran on campaign `ad` at `at`: that hour's evaluation of the
    /// campaign was made (by a run a crash cut short) and is not made again.
    pub fn ran(&self, id: i64, ad: i64, at: DateTime<Utc>) -> bool {
        self.runs
            .iter()
            .any(|r| r.rule_id == id && r.ad_id == ad && r.at == at)
    }

    /// Whether rule `id` (as `spec`) may run `planned` on campaign `ad` at `at`.
    pub fn check(
        &self,
        id: i64,
        spec: &RuleSpec,
        ad: i64,
        at: DateTime<Utc>,
        planned: &Planned,
    ) -> Result<(), Skip> {
        let day_ago = at - DAY;
        let cooldown = Duration::hours(i64::from(spec.cooldown_hours));
        let mine = || {
            self.runs
                .iter()
                .filter(move |r| r.rule_id == id && r.ad_id == ad)
        };
        if spec.cooldown_hours > 0 && mine().any(|r| r.at > at - cooldown) {
            return Err(Skip::Cooldown);
        }
        let today = mine().filter(|r| r.at > day_ago).count();
        if today >= spec.max_runs_per_day as usize {
            return Err(Skip::MaxRunsPerDay);
        }
        let moving = planned.moves();
        if moving.micros() == 0 {
            return Ok(());
        }
        // The rule's own moves, or the cabinet's real ones (and this rule's own, which a dry
        // run counts as it would have been).
        let moved = |rule: Option<i64>| {
            self.moves
                .iter()
                .filter(|r| r.at > day_ago)
                .filter(|r| match rule {
                    Some(only) => r.rule_id == only,
                    None => !r.dry || r.rule_id == id,
                })
                .fold(moving.micros(), |sum, r| {
                    sum.saturating_add(r.moved.micros())
                })
                .min(MAX_MICROS + 1)
        };
        if let Some(max_per_day) = spec.action.max_per_day() {
            if moved(Some(id)) > max_per_day.micros() {
                return Err(Skip::RuleMoneyCap);
            }
        }
        if let Some(total) = spec.max_total_per_day {
            let there = self
                .elsewhere
                .iter()
                .filter(|m| m.rule_id == id && m.at > day_ago)
                .fold(0i64, |sum, m| sum.saturating_add(m.moved.micros()));
            if moved(Some(id)).saturating_add(there) > total.micros() {
                return Err(Skip::RuleTotalCap);
            }
        }
        if let Some(cap) = self.cabinet_cap {
            if moved(None) > cap.micros() {
                return Err(Skip::CabinetMoneyCap);
            }
        }
        Ok(())
    }

    /// Records a run made now, and the money it moved (or would have, `dry`).
    pub fn record(&mut self, run: Run, moved: Money, dry: bool) {
        if moved.micros() > 0 {
            self.moves.push(Move {
                rule_id: run.rule_id,
                at: run.at,
                moved,
                dry,
            });
        }
        self.runs.push(run);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::spec;
    use super::super::Action;
    use super::*;

    #[test]
    fn guards_hold_cooldown_runs_and_money_per_day() {
        let at = |h: i64| DateTime::<Utc>::UNIX_EPOCH + Duration::hours(1000 + h);
        let m = |s: &str| Money::parse(s, 2).unwrap();
        let add = Action::AddBudget {
            amount: m("5"),
            max_per_day: m("10"),
        };
        let rule = spec(vec![], true, add);
        let planned = Planned::AddBudget(m("5"));
        let mut g = Guards::new(Vec::new(), Vec::new(), Some(m("12")));
        assert_eq!(g.check(1, &rule, 7, at(0), &planned), Ok(()));
        g.record(
            Run {
                rule_id: 1,
                ad_id: 7,
                at: at(0),
            },
            m("5"),
            false,
        );
        assert_eq!(g.check(1, &rule, 7, at(5), &planned), Err(Skip::Cooldown));
        assert_eq!(
            g.check(1, &rule, 8, at(5), &planned),
            Ok(()),
            "per campaign"
        );
        g.record(
            Run {
                rule_id: 1,
                ad_id: 8,
                at: at(5),
            },
            m("5"),
            false,
        );
        assert_eq!(
            g.check(1, &rule, 9, at(6), &planned),
            Err(Skip::RuleMoneyCap),
            "10 moved by the rule today"
        );
        assert_eq!(
            g.check(2, &rule, 9, at(6), &planned),
            Err(Skip::CabinetMoneyCap),
            "another rule: 15 would pass the cabinet's 12"
        );
        assert_eq!(
            g.check(1, &rule, 9, at(25), &planned),
            Ok(()),
            "a day later"
        );
        g.record(
            Run {
                rule_id: 1,
                ad_id: 7,
                at: at(7),
            },
            m("0"),
            false,
        );
        assert_eq!(
            g.check(1, &rule, 7, at(14), &Planned::Switch(false)),
            Err(Skip::MaxRunsPerDay),
            "two runs on ad 7 in the last day"
        );
        let mut dry = Guards::new(Vec::new(), Vec::new(), Some(m("6")));
        dry.record(
            Run {
                rule_id: 5,
                ad_id: 1,
                at: at(0),
            },
            m("3"),
            true,
        );
        assert_eq!(
            dry.check(1, &rule, 9, at(1), &planned),
            Ok(()),
            "a dry run's would-be money leaves the cabinet's cap to real rules"
        );
        assert_eq!(
            dry.check(5, &rule, 9, at(1), &planned),
            Err(Skip::CabinetMoneyCap),
            "but counts for its own rule"
        );
        assert!(dry.ran(5, 1, at(0)) && !dry.ran(5, 1, at(1)) && !dry.ran(4, 1, at(0)));
        let deleted = Guards::new(
            Vec::new(),
            vec![Move {
                rule_id: 99,
                at: at(0),
                moved: m("10"),
                dry: false,
            }],
            Some(m("12")),
        );
        assert_eq!(
            deleted.check(1, &rule, 9, at(3), &planned),
            Err(Skip::CabinetMoneyCap),
            "a deleted rule's move still counts against the cabinet"
        );
    }
}
