//! Owns Auto CPM's decision: given a campaign's goal (a target CPA, or a target spend a day),
//! its bid bounds and what it did since the bid last moved, whether to move the bid and where
//! to. The step is multiplicative and bounded, a dead band around the goal holds the bid, the
//! result is rounded to the currency and kept within `[min_cpm, max_cpm]`. Pure.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::money::{CabinetType, Money};
use super::stats::Totals;

/// Hours a bid is left alone after it moved, so what it did can be measured.
pub const COOLDOWN_HOURS: i64 = 6;
/// Bid edits a day at most: an edit may send the ad back to review on the real platform.
pub const MAX_EDITS_PER_DAY: usize = 4;
/// On a platform whose bid edits are reviewed, hours of `Active` delivery after an edit's
/// review before the next edit (in place of [`COOLDOWN_HOURS`]).
pub const REVIEW_GAP_HOURS: i64 = 24;
/// The longest span of figures a decision reads.
pub const WINDOW_HOURS: i64 = 24;
/// Platform actions needed before a CPA is trusted.
pub const MIN_ACTIONS: i64 = 5;
/// Without that many actions, spend of this many targets is enough to know the CPA is too high.
pub const SPEND_TARGETS: i64 = 3;
/// No move while the figure is within this share of the goal.
pub const DEAD_BAND: Decimal = Decimal::from_parts(10, 0, 0, false, 2);
/// One step moves the bid by at most these factors.
pub const STEP_DOWN: Decimal = Decimal::from_parts(80, 0, 0, false, 2);
pub const STEP_UP: Decimal = Decimal::from_parts(125, 0, 0, false, 2);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// Cost per platform action at `target`.
    Cpa,
    /// Spend of `target` a day.
    Pace,
}

impl Goal {
    pub fn as_str(self) -> &'static str {
        match self {
            Goal::Cpa => "cpa",
            Goal::Pace => "pace",
        }
    }

    pub fn parse(s: &str) -> Option<Goal> {
        [Goal::Cpa, Goal::Pace]
            .into_iter()
            .find(|g| g.as_str() == s)
    }
}

/// What a `cpa` goal counts as one acquisition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpaFrom {
    /// The platform's actions (joins, bot starts).
    Actions,
    /// The client's own conversions sent back by postback (every event type).
    Postbacks,
}

impl CpaFrom {
    pub fn as_str(self) -> &'static str {
        match self {
            CpaFrom::Actions => "actions",
            CpaFrom::Postbacks => "postbacks",
        }
    }

    pub fn parse(s: &str) -> Option<CpaFrom> {
        [CpaFrom::Actions, CpaFrom::Postbacks]
            .into_iter()
            .find(|c| c.as_str() == s)
    }
}

/// A campaign's Auto CPM settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub enabled: bool,
    pub goal: Goal,
    pub cpa_from: CpaFrom,
    pub target: Money,
    pub min_cpm: Money,
    pub max_cpm: Money,
}

impl Settings {
    pub fn to_json(&self, kind: CabinetType) -> Value {
        json!({
            "enabled": self.enabled,
            "goal": self.goal.as_str(),
            "cpa_from": self.cpa_from.as_str(),
            "target": kind.render(self.target),
            "min_cpm": kind.render(self.min_cpm),
            "max_cpm": kind.render(self.max_cpm),
        })
    }
}

/// What Auto CPM decided for one campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The new bid, when it moves.
    pub cpm: Option<Money>,
    /// Why, in a few words.
    pub reason: &'static str,
    /// What it read: the figure against the goal.
    pub observed: Option<Decimal>,
}

/// Decides on the bid `cpm` from `figures` over the last `hours` (since the bid last moved,
/// at most [`WINDOW_HOURS`]); for a `cpa` goal, `figures.actions` holds what it counts
/// ([`CpaFrom`]).
pub fn decide(
    s: &Settings,
    cpm: Money,
    figures: &Totals,
    hours: i64,
    kind: CabinetType,
) -> Decision {
    let hold = |reason, observed| Decision {
        cpm: None,
        reason,
        observed,
    };
    let target = s.target.to_decimal();
    let spent = figures.spent.to_decimal();
    // ratio > 1: the figure is under the goal, the bid may rise.
    let (observed, ratio) = match s.goal {
        Goal::Cpa => {
            let enough =
                figures.actions >= MIN_ACTIONS || spent >= target * Decimal::from(SPEND_TARGETS);
            if !enough {
                return hold("not enough data", None);
            }
            let cpa = spent / Decimal::from(figures.actions.max(1));
            if cpa.is_zero() {
                return hold("nothing spent", Some(cpa));
            }
            (cpa, target / cpa)
        }
        Goal::Pace => {
            if hours <= 0 || figures.views == 0 {
                return hold("not enough data", None);
            }
            let per_day = spent * Decimal::from(24) / Decimal::from(hours);
            if per_day.is_zero() {
                return hold("nothing spent", Some(per_day));
            }
            (per_day, target / per_day)
        }
    };
    let observed = Some(observed.round_dp(6));
    if (ratio - Decimal::ONE).abs() <= DEAD_BAND {
        return hold("within the dead band", observed);
    }
    // CPA follows the bid about linearly; pace grows faster than the bid (more views, each
    // dearer), so its step is the square root of the gap.
    let factor = match s.goal {
        Goal::Cpa => ratio,
        Goal::Pace => ratio
            .to_f64()
            .map(f64::sqrt)
            .and_then(Decimal::from_f64_retain)
            .unwrap_or(Decimal::ONE),
    }
    .clamp(STEP_DOWN, STEP_UP);
    let moved = (cpm.to_decimal() * factor)
        .round_dp_with_strategy(kind.scale(), RoundingStrategy::MidpointNearestEven);
    let next = Money::from_decimal(moved)
        .unwrap_or(s.max_cpm)
        .clamp(s.min_cpm, s.max_cpm);
    if next == cpm {
        let at_bound = if ratio > Decimal::ONE {
            "at max_cpm"
        } else {
            "at min_cpm"
        };
        return hold(at_bound, observed);
    }
    Decision {
        cpm: Some(next),
        reason: if next > cpm { "raised" } else { "lowered" },
        observed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Money {
        Money::parse(s, 6).unwrap()
    }

    fn settings(goal: Goal, target: &str) -> Settings {
        Settings {
            enabled: true,
            goal,
            cpa_from: CpaFrom::Actions,
            target: m(target),
            min_cpm: m("1"),
            max_cpm: m("4"),
        }
    }

    fn totals(views: i64, actions: i64, spent: &str) -> Totals {
        Totals {
            views,
            opens: 0,
            clicks: actions,
            actions,
            spent: m(spent),
        }
    }

    #[test]
    fn a_cpa_far_off_moves_the_bid_by_one_bounded_step() {
        let s = settings(Goal::Cpa, "1.50");
        let d = decide(&s, m("3"), &totals(1000, 5, "15"), 6, CabinetType::Euro);
        assert_eq!(
            d.cpm,
            Some(m("2.40")),
            "CPA 3.00 is twice the target: down 20%"
        );
        assert_eq!(d.observed, Some("3".parse().unwrap()));
        let d = decide(&s, m("1.20"), &totals(1000, 10, "5"), 6, CabinetType::Euro);
        assert_eq!(d.cpm, Some(m("1.50")), "CPA 0.50: up 25%");
    }

    #[test]
    fn a_cpa_near_the_target_holds_the_bid() {
        let s = settings(Goal::Cpa, "1.50");
        let d = decide(&s, m("2"), &totals(1000, 10, "16"), 6, CabinetType::Euro);
        assert_eq!((d.cpm, d.reason), (None, "within the dead band"));
        let d = decide(&s, m("2"), &totals(1000, 10, "13.2"), 6, CabinetType::Euro);
        assert_eq!(
            d.cpm,
            Some(m("2.27")),
            "CPA 1.32 is 12% under: up by the gap"
        );
    }

    #[test]
    fn without_enough_data_nothing_moves() {
        let s = settings(Goal::Cpa, "1.50");
        let d = decide(&s, m("2"), &totals(500, 4, "2"), 6, CabinetType::Euro);
        assert_eq!((d.cpm, d.reason), (None, "not enough data"));
        let d = decide(&s, m("2"), &totals(500, 0, "4.5"), 6, CabinetType::Euro);
        assert_eq!(
            d.cpm,
            Some(m("1.60")),
            "no action after three targets spent: down"
        );
        let pace = settings(Goal::Pace, "24");
        let d = decide(&pace, m("2"), &totals(0, 0, "0"), 6, CabinetType::Euro);
        assert_eq!((d.cpm, d.reason), (None, "not enough data"));
    }

    #[test]
    fn the_bid_stays_within_its_bounds_and_rounds_to_the_currency() {
        let s = settings(Goal::Cpa, "1.50");
        let d = decide(&s, m("4"), &totals(1000, 100, "10"), 6, CabinetType::Euro);
        assert_eq!((d.cpm, d.reason), (None, "at max_cpm"));
        let d = decide(&s, m("1.10"), &totals(1000, 1, "30"), 6, CabinetType::Euro);
        assert_eq!(d.cpm, Some(m("1")), "floor");
        let stars = Settings {
            min_cpm: m("1"),
            max_cpm: m("100"),
            ..settings(Goal::Cpa, "10")
        };
        let d = decide(
            &stars,
            m("7"),
            &totals(1000, 10, "50"),
            6,
            CabinetType::Stars,
        );
        assert_eq!(d.cpm, Some(m("9")), "8.75 STARS rounds to whole stars");
    }

    #[test]
    fn pace_raises_an_underspending_bid_by_the_square_root_of_the_gap() {
        let s = settings(Goal::Pace, "24");
        let d = decide(&s, m("2"), &totals(600, 0, "3"), 6, CabinetType::Euro);
        assert_eq!(
            d.observed,
            Some("12".parse().unwrap()),
            "3 in 6 hours is 12 a day"
        );
        assert_eq!(d.cpm, Some(m("2.5")), "sqrt(2) = 1.41, bounded to 1.25");
        let d = decide(&s, m("2"), &totals(600, 0, "7.5"), 6, CabinetType::Euro);
        assert_eq!(d.cpm, Some(m("1.79")), "30 a day: down by sqrt(0.8)");
    }
}
