//! Owns a rule's proposals (a rule that asks first, `approval`) for every face: making one
//! when the rule decided (one pending per rule and campaign, its messages queued for the bot),
//! listing the pending ones a person may decide, deciding one and letting the overdue expire.
//! An approval plans the change again on the campaign as it is at that moment and checks the
//! rule's guards then, before `rule::act::perform` makes it; a proposal is decided once, only
//! by a person with Manager or owner access, and each decision enters the rule's log and the
//! campaign's history with the person and the way they decided. Blocking.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use super::rule::act;
use super::Actor;
use crate::auth::AuthError;
use crate::clock;
use crate::domain::campaign::Source;
use crate::domain::money::Money;
use crate::domain::time;
use crate::services::Services;
use crate::store::proposals::{self, Decided, Named, NewProposal, ProposalRow};
use crate::store::rules::{self, LogEntry, RuleRow};
use crate::store::{cabinets, campaigns, users, StoreError};

/// The way a person decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Panel,
    Telegram,
    Api,
}

impl Via {
    pub fn name(self) -> &'static str {
        match self {
            Via::Panel => "panel",
            Via::Telegram => "telegram",
            Via::Api => "api",
        }
    }

    fn source(self) -> Source {
        match self {
            Via::Panel => Source::Panel,
            Via::Telegram => Source::Telegram,
            Via::Api => Source::Api,
        }
    }
}

/// A decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Approve,
    Reject,
}

/// Why a decision was not taken; `Display` is the sentence the person reads.
#[derive(Debug)]
pub enum ProposalError {
    /// No such proposal in a cabinet the person reaches.
    NotFound,
    /// The person reaches the cabinet but may not decide (view-only access, a lock...).
    NoAccess(AuthError),
    /// It was decided already, or expired: its state.
    Decided(String),
    Store(StoreError),
}

impl std::fmt::Display for ProposalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProposalError::NotFound => write!(f, "No such proposal."),
            ProposalError::NoAccess(e) => write!(f, "{}", e.sentence()),
            ProposalError::Decided(state) => write!(f, "This proposal is already {state}."),
            ProposalError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ProposalError {}

impl From<StoreError> for ProposalError {
    fn from(e: StoreError) -> Self {
        ProposalError::Store(e)
    }
}

/// What a decision did: the proposal as it now stands and the sentence that says so.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub proposal: ProposalRow,
    /// The change was made (an approval that went through).
    pub done: bool,
    pub sentence: String,
}

/// Stores a proposal of `rule` for campaign `ad` of cabinet `account` (a rule across cabinets
/// proposes in each) decided at `at`, expiring `expiry_minutes` later, with its messages queued
/// to the cabinet's and its managers' chats when `telegram`;
/// false when one of the same rule and campaign is pending (then nothing is stored).
#[allow(clippy::too_many_arguments)]
pub fn propose(
    tx: &rusqlite::Connection,
    rule: &RuleRow,
    account: i64,
    ad: i64,
    change: &Value,
    matched: &Value,
    at: DateTime<Utc>,
    expiry_minutes: u32,
    telegram: bool,
) -> Result<bool, StoreError> {
    expire_in(tx, clock::now(tx)?)?;
    let (created, expires) = (
        clock::iso(at),
        clock::iso(at + Duration::minutes(i64::from(expiry_minutes))),
    );
    let made = proposals::create(
        tx,
        &NewProposal {
            rule_id: rule.id,
            account_id: account,
            ad_id: ad,
            change,
            matched,
            created_at: &created,
            expires_at: &expires,
        },
    )?;
    let Some(id) = made else {
        return Ok(false);
    };
    if telegram {
        for chat in proposals::chats_of(tx, account)? {
            proposals::queue_message(tx, id, chat)?;
        }
    }
    Ok(true)
}

/// The pending proposals of the cabinets `user` may decide on (Manager or owner access).
pub fn pending_for(s: &Services, user: i64) -> Result<Vec<Named>, StoreError> {
    s.db.read_blocking(|c| {
        let accounts: Vec<i64> = cabinets::reachable_by(c, user)?
            .into_iter()
            .filter(|r| r.access.can_write())
            .map(|r| r.cabinet.id)
            .collect();
        proposals::named(c, None, &accounts, &clock::iso(clock::now(c)?))
    })
}

/// Proposal `id` with its names, whatever its state, when `user` reaches its cabinet.
pub fn get_for(s: &Services, user: i64, id: i64) -> Result<Option<Named>, StoreError> {
    s.db.read_blocking(|c| {
        let reach = cabinets::reachable_by(c, user)?;
        let found = proposals::named(c, Some(id), &[], "")?.into_iter().next();
        Ok(found.filter(|n| reach.iter().any(|r| r.cabinet.id == n.row.account_id)))
    })
}

/// Marks every pending proposal whose time ran out at the service clock's now expired, with
/// its rule log entry; their messages are edited to say so. Returns how many.
pub fn expire_due(s: &Services) -> Result<usize, StoreError> {
    let any = s.db.read_blocking(|c| {
        let now = clock::iso(clock::now(c)?);
        Ok::<_, StoreError>(!proposals::due_to_expire(c, &now)?.is_empty())
    })?;
    if !any {
        return Ok(0);
    }
    s.db.write_blocking(|tx| expire_in(tx, clock::now(tx)?))
}

fn expire_in(tx: &rusqlite::Connection, now: DateTime<Utc>) -> Result<usize, StoreError> {
    let at = clock::iso(now);
    let due = proposals::due_to_expire(tx, &at)?;
    for p in &due {
        let decided = Decided {
            state: "expired",
            by: None,
            via: None,
            at: &at,
            outcome: "expired: nobody decided in time; nothing was done",
        };
        if proposals::decide(tx, p.id, &decided)? {
            rules::record(tx, &log(p, "expired", None, &at))?;
            proposals::messages_to_edit(tx, p.id)?;
        }
    }
    Ok(due.len())
}

fn log(p: &ProposalRow, outcome: &'static str, reason: Option<String>, at: &str) -> LogEntry {
    LogEntry {
        rule_id: p.rule_id,
        account_id: p.account_id,
        ad_id: p.ad_id,
        at: at.to_string(),
        outcome,
        reason,
        matched: p.matched.clone(),
        action: p.change.clone(),
        moved: Money::ZERO,
    }
}

/// `user` decides proposal `id` through `via`. A rejection marks it; an approval takes it
/// (so a second decision is refused), plans the change again on the campaign's state now,
/// checks the rule's guards now and makes it through `act::perform` as the person; when
/// nothing would change, a guard holds or the platform refuses, the proposal is `failed` with
/// the reason. An expired one is marked so and refused.
pub fn decide(
    s: &Services,
    user: i64,
    via: Via,
    id: i64,
    choice: Choice,
) -> Result<Outcome, ProposalError> {
    let found = s.db.read_blocking(|c| {
        let Some(p) = proposals::get(c, id)? else {
            return Ok(None);
        };
        let reach = cabinets::reachable_by(c, user)?
            .into_iter()
            .find(|r| r.cabinet.id == p.account_id);
        let who = users::get(c, user)?.map_or_else(|| format!("#{user}"), |u| u.email);
        Ok::<_, StoreError>(reach.map(|r| (p, r, who)))
    })?;
    let (p, reach, who) = found.ok_or(ProposalError::NotFound)?;
    let actor = Actor::writer(via.source(), user, &reach).map_err(ProposalError::NoAccess)?;
    if p.state != "pending" {
        return Err(ProposalError::Decided(p.state));
    }
    let by = format!("{} by {who} via {}", decision_word(choice), via.name());
    let (claimed, now) = s.db.write_blocking(|tx| {
        let now = clock::now(tx)?;
        expire_in(tx, now)?;
        let at = clock::iso(now);
        let decided = Decided {
            state: decision_word(choice),
            by: Some(user),
            via: Some(via.name()),
            at: &at,
            outcome: &by,
        };
        if !proposals::decide(tx, id, &decided)? {
            return Ok((false, now));
        }
        proposals::messages_to_edit(tx, id)?;
        if choice == Choice::Reject {
            rules::record(tx, &log(&p, "rejected", Some(by.clone()), &at))?;
            history(tx, &actor, &p, "rejected", &by)?;
        }
        Ok::<_, StoreError>((true, now))
    })?;
    if !claimed {
        let now = s.db.read_blocking(|c| proposals::get(c, id))?;
        return Err(ProposalError::Decided(
            now.map_or("decided".into(), |p| p.state),
        ));
    }
    if choice == Choice::Reject {
        let proposal = s.db.read_blocking(|c| proposals::get(c, id))?.unwrap_or(p);
        return Ok(Outcome {
            proposal,
            done: false,
            sentence: format!("Rejected by {who}; nothing was done."),
        });
    }
    let (done, said) = approve(s, &actor, &p, now, &by)?;
    let proposal = s.db.write_blocking(|tx| {
        let outcome = format!("{by}; {said}");
        proposals::settle(tx, id, if done { "approved" } else { "failed" }, &outcome)?;
        history(tx, &actor, &p, "approved", &said)?;
        proposals::get(tx, id)
    })?;
    Ok(Outcome {
        proposal: proposal.unwrap_or(p),
        done,
        sentence: said,
    })
}

fn decision_word(choice: Choice) -> &'static str {
    match choice {
        Choice::Approve => "approved",
        Choice::Reject => "rejected",
    }
}

/// The decision in the campaign's history, by the person through the way they decided.
fn history(
    tx: &rusqlite::Connection,
    actor: &Actor,
    p: &ProposalRow,
    decision: &str,
    outcome: &str,
) -> Result<(), StoreError> {
    let name = rules::get(tx, p.rule_id)?.map(|r| r.spec.name);
    let details = json!({
        "proposal": p.id, "rule": p.rule_id, "name": name, "decision": decision,
        "change": p.change, "outcome": outcome,
    });
    crate::ops::write_back::record_history(
        tx,
        p.account_id,
        p.ad_id,
        actor.author(),
        "proposal",
        &details,
    )
}

/// Makes an approved proposal's change if it still makes sense and the guards allow it now:
/// (made, the sentence of what became of it). Its rule log entry names the person.
fn approve(
    s: &Services,
    actor: &Actor,
    p: &ProposalRow,
    now: DateTime<Utc>,
    by: &str,
) -> Result<(bool, String), StoreError> {
    let account = p.account_id;
    let kind = actor.cabinet().cabinet_type;
    let loaded = s.db.read_blocking(|c| {
        let rule = rules::get(c, p.rule_id)?;
        let state = campaigns::rule_states(c, account)?
            .into_iter()
            .find(|st| st.ad_id == p.ad_id);
        let guards = rules::guards(c, account, now)?;
        Ok::<_, StoreError>((rule, state, guards))
    })?;
    let at = clock::iso(now);
    let failed = |why: String| -> Result<(bool, String), StoreError> {
        let reason = format!("{by}; {why}");
        s.db.write_blocking(|tx| rules::record(tx, &log(p, "skipped", Some(reason.clone()), &at)))?;
        Ok((false, format!("not done: {why}")))
    };
    let (Some(rule), Some(state)) = (loaded.0, loaded.1) else {
        return failed("the rule or the campaign is gone".into());
    };
    if !actor.cabinet().is_active {
        return failed("the cabinet is deactivated".into());
    }
    let Some(planned) = rule.spec.action.plan(&state, kind) else {
        return failed("nothing would change any more".into());
    };
    if let Err(skip) = loaded.2.check(rule.id, &rule.spec, p.ad_id, now, &planned) {
        return failed(format!("the rule's guard holds ({})", skip.reason()));
    }
    let change = planned.to_json(&state, kind);
    let logged_by_act = planned.moves().micros() > 0;
    match act::perform(s, actor, &rule, &state, &planned, &p.matched, now) {
        Ok(()) => {
            if !logged_by_act {
                let entry = LogEntry {
                    action: change,
                    ..log(p, "acted", Some(by.to_string()), &at)
                };
                s.db.write_blocking(|tx| rules::record(tx, &entry))?;
            }
            Ok((true, "done".into()))
        }
        Err(e) => {
            let why = e.to_string();
            if !logged_by_act {
                let entry = LogEntry {
                    action: change,
                    ..log(p, "failed", Some(format!("{by}; {why}")), &at)
                };
                s.db.write_blocking(|tx| rules::record(tx, &entry))?;
            }
            Ok((false, format!("not done: {why}")))
        }
    }
}

/// A proposal as the API shows it.
pub fn describe(n: &Named) -> Value {
    let p = &n.row;
    json!({
        "id": p.id,
        "account_id": p.account_id,
        "rule_id": p.rule_id,
        "rule_name": n.rule_name,
        "ad_id": p.ad_id,
        "title": n.title,
        "change": p.change,
        "matched": p.matched,
        "created_at": p.created_at,
        "expires_at": p.expires_at,
        "state": p.state,
        "decided_by": p.decided_by,
        "decided_via": p.decided_via,
        "decided_at": p.decided_at,
        "outcome": p.outcome,
    })
}

/// When a proposal expires, as a time.
pub fn expires(p: &ProposalRow) -> Option<DateTime<Utc>> {
    time::parse_iso(&p.expires_at)
}
