//! Owns a rule's preview: what it would have done over the last seven days of synced hours,
//! replayed hour by hour on the stored figures from the campaigns' state now, with its guards,
//! changing nothing; and the previews kept until their rule changes or the hour turns, since
//! one costs about two seconds of CPU per thousand campaigns and any read key may ask.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use parking_lot::Mutex;
use rusqlite::Connection;
use serde_json::{json, Value};

use super::evaluate::{self, Outcome, Series};
use crate::clock;
use crate::domain::money::CabinetType;
use crate::domain::rule::{Guards, MAX_WINDOW_HOURS};
use crate::primitives::unix_now;
use crate::ratelimit::{Budget, Holder, RateInfo, RateLimiter};
use crate::services::Services;
use crate::store::rules::{self, RuleRow};
use crate::store::{campaigns, StoreError};

/// Evaluations a preview lists at most; its counts cover them all.
pub const MAX_LISTED: usize = 1000;
/// Previews kept at most; past it the kept ones go.
const KEPT: usize = 1024;

/// The previews made this hour, by rule: a preview replays closed hours only, so it stays
/// what it was until the rule changes or another hour closes.
#[derive(Default)]
pub struct Previews {
    kept: Mutex<HashMap<i64, Kept>>,
}

struct Kept {
    rule: RuleRow,
    hour: DateTime<Utc>,
    value: Arc<Value>,
}

impl Previews {
    /// The preview of `rule` made in the hour of `now`, if it was made for the rule as it is.
    pub fn get(&self, rule: &RuleRow, now: DateTime<Utc>) -> Option<Arc<Value>> {
        let kept = self.kept.lock();
        let found = kept.get(&rule.id)?;
        (found.rule == *rule && found.hour == clock::hour_start(now)).then(|| found.value.clone())
    }

    /// Keeps the preview of `rule` made at `now`.
    pub fn keep(&self, rule: &RuleRow, now: DateTime<Utc>, value: Arc<Value>) {
        let hour = clock::hour_start(now);
        let mut kept = self.kept.lock();
        if kept.len() >= KEPT && !kept.contains_key(&rule.id) {
            kept.retain(|_, k| k.hour == hour);
            if kept.len() >= KEPT {
                kept.clear();
            }
        }
        kept.insert(
            rule.id,
            Kept {
                rule: rule.clone(),
                hour,
                value,
            },
        );
    }
}

/// Why a preview was not given.
#[derive(Debug)]
pub enum Refused {
    /// A new preview was needed and `who`'s write budget is spent.
    Limited(RateInfo),
    Store(StoreError),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        Refused::Store(e)
    }
}

/// The preview of `rule` now for `who`: the one kept for the rule as it is this hour, or a new
/// one, which counts against `who`'s write budget (reads are cheap; a preview is not).
pub async fn kept_or_new(
    s: &Services,
    previews: &Previews,
    limiter: &RateLimiter,
    who: Holder,
    rule: RuleRow,
    kind: CabinetType,
) -> Result<Arc<Value>, Refused> {
    let now = s.db.read(clock::now).await?;
    if let Some(kept) = previews.get(&rule, now) {
        return Ok(kept);
    }
    let wall = unix_now();
    let info = limiter.check(who, Budget::Write, wall);
    if !info.allowed {
        return Err(Refused::Limited(info));
    }
    let made =
        s.db.read({
            let rule = rule.clone();
            let reviews = s.platform.capabilities().bid_edit_reviews;
            move |c| preview(c, &rule, kind, reviews, now)
        })
        .await?;
    let made = Arc::new(made);
    previews.keep(&rule, now, made.clone());
    Ok(made)
}

/// Replays `rule` after each of the last 168 closed hours before `now`; on a platform that
/// `reviews` bid edits, a rule that changes bids is warned that each change sends the campaign
/// back to review (`review_warning`, and the `warning` of each evaluation that would act).
pub fn preview(
    conn: &Connection,
    rule: &RuleRow,
    kind: CabinetType,
    reviews: bool,
    now: DateTime<Utc>,
) -> Result<Value, StoreError> {
    let last = clock::hour_start(now);
    let span = Duration::hours(i64::from(MAX_WINDOW_HOURS));
    let first = last - span + Duration::hours(1);
    let series = Series::for_rules(
        conn,
        rule.account_id,
        kind,
        [&rule.spec].into_iter(),
        first,
        last,
    )?;
    let mut states = campaigns::rule_states(conn, rule.account_id)?;
    let mut guards = Guards::new(
        Vec::new(),
        Vec::new(),
        rules::cabinet_cap(conn, rule.account_id)?,
    );
    let mut live = rule.clone();
    live.spec.dry_run = false;
    live.spec.approval = false;
    let (mut listed, mut would_act, mut skipped) = (Vec::new(), 0, 0);
    let mut at = first;
    while at <= last {
        let mut act = |_: &_, _: &_, _: &_| Ok::<_, std::convert::Infallible>(());
        for d in evaluate::pass(&live, kind, &mut states, &series, at, &mut guards, &mut act) {
            match d.outcome {
                Outcome::Skipped(_) => skipped += 1,
                Outcome::Acted | Outcome::DryRun | Outcome::Failed(_) | Outcome::Proposed => {
                    would_act += 1
                }
            }
            if listed.len() < MAX_LISTED {
                let outcome = if matches!(d.outcome, Outcome::Skipped(_)) {
                    "skipped"
                } else {
                    "would_act"
                };
                listed.push(json!({
                    "at": clock::iso(at),
                    "ad_id": d.ad_id,
                    "matched": d.matched,
                    "action": d.action,
                    "outcome": outcome,
                    "warning": super::warning(rule, outcome, reviews),
                    "reason": d.outcome.reason(),
                }));
            }
        }
        at += Duration::hours(1);
    }
    Ok(json!({
        "rule_id": rule.id,
        "from": clock::iso(first),
        "to": clock::iso(last),
        "would_act": would_act,
        "skipped": skipped,
        "evaluations": listed,
        "truncated": would_act + skipped > MAX_LISTED,
        "review_warning": (reviews && rule.spec.action.edits_bid()).then_some(super::SENT_TO_REVIEW),
    }))
}
