//! Owns the built-in platform simulator: accounts, balances, per-cabinet `ad_id` numbering,
//! the platform's content rules, minimum CPMs, username and keyword resolution, review, and
//! faults injected on demand. Its state lives in the `sim_*` tables, apart from the service's
//! copy, as a real platform's would; its time is the service clock.

pub mod accrual;

use accrual::{Delivery, Rates};
use chrono::{DateTime, Utc};

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::{json, Value};

use super::{
    AdCounters, AdDraft, AdEdit, AdSnapshot, AdSpec, BudgetMoved, BudgetOp, Platform,
    PlatformError, Switch,
};
use crate::clock;
use crate::config::SimConfig;
use crate::db::{json_column, Db};
use crate::domain::campaign::{LinkKind, Status, TargetType};
use crate::domain::link::PromoteLink;
use crate::domain::money::{CabinetType, Money, MAX_MICROS, MAX_UNITS};
use crate::domain::schedule::Schedule;
use crate::store::{parsed, unreadable, StoreError};

/// How long a budget operation token is remembered.
const OP_TOKEN_HOURS: i64 = 24;

/// Account ids are large integers, as on the real platform.
const FIRST_ACCOUNT_ID: i64 = 5_000_000_001;

pub struct Simulator {
    db: Db,
    config: SimConfig,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    Timeout,
    Refuse,
    /// The platform acknowledges the next change but does nothing.
    Ignore,
    /// The next call panics, as a bug in a platform connector would.
    Panic,
}

impl Fault {
    pub fn parse(s: &str) -> Option<Fault> {
        match s {
            "timeout" => Some(Fault::Timeout),
            "refuse" => Some(Fault::Refuse),
            "ignore" => Some(Fault::Ignore),
            "panic" => Some(Fault::Panic),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Fault::Timeout => "timeout",
            Fault::Refuse => "refuse",
            Fault::Ignore => "ignore",
            Fault::Panic => "panic",
        }
    }
}

/// Why an operator's simulator command (`sim fail`, `sim review`) could not be done.
#[derive(Debug)]
pub enum SimError {
    NoAccount(i64),
    NoAd { account: i64, ad: i64 },
    NotInReview { ad: i64, status: Status },
    Store(StoreError),
}

impl From<StoreError> for SimError {
    fn from(e: StoreError) -> Self {
        SimError::Store(e)
    }
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::NoAccount(account) => write!(f, "no simulated account {account}"),
            SimError::NoAd { account, ad } => write!(f, "no ad {ad} in account {account}"),
            SimError::NotInReview { ad, status } => {
                write!(f, "ad {ad} is {}, not In Review", status.as_str())
            }
            SimError::Store(e) => e.fmt(f),
        }
    }
}

impl Simulator {
    pub fn new(db: Db, config: SimConfig) -> Simulator {
        Simulator { db, config }
    }

    /// Makes the account's next `count` platform calls time out or be refused.
    pub fn inject_fault(&self, account: i64, fault: Fault, count: u32) -> Result<(), SimError> {
        self.db.write_blocking(|tx| {
            account_kind(tx, account)?.ok_or(SimError::NoAccount(account))?;
            tx.execute(
                "INSERT INTO sim_faults (account_id, kind, remaining) VALUES (?1, ?2, ?3)
                 ON CONFLICT (account_id) DO UPDATE SET kind = excluded.kind, remaining = excluded.remaining",
                params![account, fault.as_str(), count.max(1)],
            )
            .map_err(StoreError::from)?;
            Ok(())
        })
    }

    /// Decides a pending review now: approved ads run (or wait for budget or the switch),
    /// declined ones stop until edited.
    pub fn review(
        &self,
        account: i64,
        ad: i64,
        approve: bool,
        reason: Option<&str>,
    ) -> Result<Status, SimError> {
        self.db.write_blocking(|tx| {
            self.catch_up(tx, account, ad, clock::now(tx)?)?;
            let now = clock::iso(clock::now(tx)?);
            let state = load_snapshot(tx, account, ad)?.ok_or(SimError::NoAd { account, ad })?;
            if state.status != Status::InReview {
                return Err(SimError::NotInReview {
                    ad,
                    status: state.status,
                });
            }
            let status = if approve {
                approved_status(state.budget.micros(), state.active)
            } else {
                Status::Declined
            };
            tx.execute(
                "UPDATE sim_ads SET status = ?3, status_changed_at = ?4, review_requested_at = NULL,
                    decline_reason = ?5 WHERE account_id = ?1 AND ad_id = ?2",
                params![account, ad, status.as_str(), now, reason.filter(|_| !approve)],
            )
            .map_err(StoreError::from)?;
            Ok(status)
        })
    }

    /// The ad text's verdict under auto review: declined when it contains a decline word.
    pub fn auto_review_approves(&self, text: &str) -> bool {
        let text = text.to_lowercase();
        !self
            .config
            .decline_words
            .iter()
            .any(|w| !w.is_empty() && text.contains(&w.to_lowercase()))
    }

    /// Starts every platform call: waits the configured latency, then consumes one injected
    /// fault of the account, if any is pending: a timeout or refusal is returned as the error;
    /// `Some(Ignore)` tells a change to do nothing.
    fn take_fault(&self, account: i64) -> Result<Option<Fault>, PlatformError> {
        if self.config.latency_ms > 0 {
            std::thread::sleep(std::time::Duration::from_millis(self.config.latency_ms));
        }
        let fault = self
            .db
            .write_blocking(|tx| {
                let pending: Option<(String, i64)> = tx
                    .query_row(
                        "SELECT kind, remaining FROM sim_faults WHERE account_id = ?1",
                        [account],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                let Some((kind, remaining)) = pending else {
                    return Ok(None);
                };
                if remaining > 1 {
                    tx.execute(
                        "UPDATE sim_faults SET remaining = remaining - 1 WHERE account_id = ?1",
                        [account],
                    )?;
                } else {
                    tx.execute("DELETE FROM sim_faults WHERE account_id = ?1", [account])?;
                }
                Ok(Fault::parse(&kind))
            })
            .map_err(internal)?;
        match fault {
            Some(Fault::Timeout) => Err(PlatformError::Timeout),
            Some(Fault::Refuse) => Err(PlatformError::Refused("simulated refusal".into())),
            Some(Fault::Panic) => panic!("simulated platform panic (account {account})"),
            other => Ok(other),
        }
    }

    /// Changes one live ad in a transaction: `change` sees the ad and may write other sim
    /// tables, but must make every check before its first write (a refusal commits whatever
    /// it wrote). The ad is saved afterwards, with `status_changed_at` moved when the status
    /// changed. An `ignore` fault skips `change` and returns the ad as it was.
    fn mutate<T>(
        &self,
        account: i64,
        ad: i64,
        change: impl FnOnce(&Connection, &mut AdSnapshot) -> Result<T, PlatformError>,
    ) -> Result<(AdSnapshot, Option<T>), PlatformError> {
        let fault = self.take_fault(account)?;
        self.db
            .write_blocking(|tx| {
                self.catch_up(tx, account, ad, clock::now(tx)?)?;
                let Some(mut state) = load_snapshot(tx, account, ad)? else {
                    return Ok(Err(PlatformError::NotFound));
                };
                if state.status == Status::Deleted {
                    return Ok(Err(PlatformError::NotFound));
                }
                if fault == Some(Fault::Ignore) {
                    return Ok(Ok((state, None)));
                }
                let before = state.status;
                let value = match change(tx, &mut state) {
                    Ok(v) => v,
                    Err(e) => return Ok(Err(e)),
                };
                let now = clock::iso(clock::now(tx)?);
                if state.status != before {
                    state.status_changed_at = now.clone();
                }
                let review_from =
                    (state.status == Status::InReview && before != Status::InReview).then_some(now);
                save(tx, &state, review_from.as_deref())?;
                Ok(Ok((state, Some(value))))
            })
            .map_err(internal)?
    }

    /// Brings one ad up to `until`: a review due by then is decided at its due time (declined
    /// when the text holds a decline word), then delivery accrues up to `until`. An ad already
    /// brought further is left as it is.
    fn catch_up(
        &self,
        conn: &Connection,
        account: i64,
        ad: i64,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut stmt = conn.prepare_cached(
            "SELECT status, active, cpm_micros, budget_micros, spent_micros, daily_budget_micros,
                schedule, views, opens, clicks, actions, created_at, status_changed_at,
                accrued_until, review_requested_at, day_index, day_spent_micros
             FROM sim_ads WHERE account_id = ?1 AND ad_id = ?2",
        )?;
        let row = stmt
            .query_row([account, ad], |r| {
                let schedule: Option<Value> = json_column(r.get(6)?)?;
                let schedule = schedule
                    .map(|v| {
                        Schedule::parse(&v, "schedule", None)
                            .map_err(|_| unreadable("sim_ads.schedule", &v.to_string()))
                    })
                    .transpose()?;
                let delivery = Delivery {
                    status: parsed(r, 0, "sim_ads.status", Status::parse)?,
                    cpm_micros: r.get(2)?,
                    budget_micros: r.get(3)?,
                    spent_micros: r.get(4)?,
                    daily_budget_micros: r.get(5)?,
                    schedule,
                    views: r.get(7)?,
                    opens: r.get(8)?,
                    clicks: r.get(9)?,
                    actions: r.get(10)?,
                    day: r.get(15)?,
                    day_spent_micros: r.get(16)?,
                };
                let active: bool = r.get(1)?;
                let created: i64 = r.get(11)?;
                let changed_at: String = r.get(12)?;
                let accrued: Option<String> = r.get(13)?;
                let review: Option<String> = r.get(14)?;
                Ok((delivery, active, created, changed_at, accrued, review))
            })
            .optional()?;
        let Some((mut delivery, active, created, mut changed_at, accrued, review)) = row else {
            return Ok(());
        };
        let created = DateTime::<Utc>::from_timestamp(created, 0).unwrap_or(until);
        let mut from = accrued
            .as_deref()
            .and_then(clock::parse_iso)
            .unwrap_or(created);
        let mut review_requested = review.as_deref().and_then(clock::parse_iso);
        let wait = chrono::Duration::seconds(self.config.auto_review_seconds as i64);
        if let Some(due) = review_requested.map(|at| at + wait) {
            if delivery.status == Status::InReview
                && self.config.auto_review_seconds > 0
                && due <= until
            {
                let text: String = conn.query_row(
                    "SELECT json_extract(spec, '$.text') FROM sim_ads
                     WHERE account_id = ?1 AND ad_id = ?2",
                    [account, ad],
                    |r| r.get(0),
                )?;
                delivery.status = if self.auto_review_approves(&text) {
                    approved_status(delivery.budget_micros, active)
                } else {
                    Status::Declined
                };
                changed_at = clock::iso(due);
                review_requested = None;
                from = from.max(due);
            }
        }
        if let Some(stopped) = accrual::accrue(
            &mut delivery,
            &Rates::of(self.config.seed, account, ad),
            from,
            until,
        ) {
            changed_at = clock::iso(stopped);
        }
        let minute = DateTime::<Utc>::from_timestamp(until.timestamp().div_euclid(60) * 60, 0)
            .unwrap_or(until);
        conn.prepare_cached(
            "UPDATE sim_ads SET status = ?3, status_changed_at = ?4, review_requested_at = ?5, views = ?6,
                opens = ?7, clicks = ?8, actions = ?9, budget_micros = ?10, spent_micros = ?11,
                day_index = ?12, day_spent_micros = ?13, accrued_until = ?14
             WHERE account_id = ?1 AND ad_id = ?2",
        )?
        .execute(params![
            account,
            ad,
            delivery.status.as_str(),
            changed_at,
            review_requested.map(clock::iso),
            delivery.views,
            delivery.opens,
            delivery.clicks,
            delivery.actions,
            delivery.budget_micros,
            delivery.spent_micros,
            delivery.day,
            delivery.day_spent_micros,
            clock::iso(minute.max(from)),
        ])?;
        Ok(())
    }

    fn kind_of(&self, account: i64) -> Result<CabinetType, PlatformError> {
        self.db
            .read_blocking(|c| account_kind(c, account))
            .map_err(internal)?
            .ok_or(PlatformError::NotFound)
    }
}

fn load_snapshot(
    conn: &Connection,
    account: i64,
    ad: i64,
) -> Result<Option<AdSnapshot>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT * FROM sim_ads WHERE account_id = ?1 AND ad_id = ?2",
            [account, ad],
            snapshot_from_row,
        )
        .optional()?)
}

/// Writes back every field a change can touch.
fn save(conn: &Connection, ad: &AdSnapshot, review_from: Option<&str>) -> Result<(), StoreError> {
    let spec = serde_json::to_string(&ad.spec).map_err(|e| StoreError::Failed(e.to_string()))?;
    conn.execute(
        "UPDATE sim_ads SET spec = ?3, status = ?4, active = ?5, cpm_micros = ?6, budget_micros = ?7,
            daily_budget_micros = ?8, schedule = ?9, status_changed_at = ?10,
            review_requested_at = COALESCE(?11, review_requested_at)
         WHERE account_id = ?1 AND ad_id = ?2",
        params![
            ad.account_id,
            ad.ad_id,
            spec,
            ad.status.as_str(),
            ad.active,
            ad.cpm.micros(),
            ad.budget.micros(),
            ad.daily_budget.map(Money::micros),
            ad.schedule.as_ref().map(Value::to_string),
            ad.status_changed_at,
            review_from,
        ],
    )?;
    Ok(())
}

fn balance_of(conn: &Connection, account: i64) -> Result<Money, PlatformError> {
    conn.query_row(
        "SELECT balance_micros FROM sim_accounts WHERE id = ?1",
        [account],
        |r| r.get(0),
    )
    .map(Money::from_micros)
    .map_err(|e| internal(e.into()))
}

/// Moves the account's balance by `delta` micro-units, refusing to take it below zero or past
/// [`MAX_MICROS`] (checked here, so SQLite never turns an overflow into a float).
fn add_balance(conn: &Connection, account: i64, delta: i64) -> Result<(), PlatformError> {
    let balance = balance_of(conn, account)?;
    let next = balance
        .micros()
        .checked_add(delta)
        .filter(|b| (0..=MAX_MICROS).contains(b))
        .ok_or_else(|| {
            rejected(
                format!("The cabinet balance would leave the range 0 to {MAX_UNITS}."),
                "amount",
            )
        })?;
    conn.execute(
        "UPDATE sim_accounts SET balance_micros = ?2 WHERE id = ?1",
        params![account, next],
    )
    .map(|_| ())
    .map_err(|e| internal(e.into()))
}

/// Switching on or off, as the platform decides it.
fn switch(ad: &mut AdSnapshot, active: bool) -> Switch {
    match (active, ad.status) {
        (false, Status::Active) => {
            ad.active = false;
            ad.status = Status::OnHold;
            Switch::Applied
        }
        (false, Status::OnHold) | (true, Status::Active) => {
            ad.active = active;
            Switch::AlreadySet
        }
        (true, Status::OnHold) => {
            ad.active = true;
            if ad.budget.micros() > 0 {
                ad.status = Status::Active;
                Switch::Applied
            } else {
                ad.status = Status::Stopped;
                Switch::IntentOnly
            }
        }
        (_, _) => {
            ad.active = active;
            Switch::IntentOnly
        }
    }
}

/// Applies an edit after checking it against the platform's rules.
fn apply_edit(kind: CabinetType, ad: &mut AdSnapshot, edit: &AdEdit) -> Result<(), PlatformError> {
    let mut spec = ad.spec.clone();
    if let Some(title) = &edit.title {
        spec.title = title.clone();
    }
    if let Some(text) = &edit.text {
        spec.text = text.clone();
    }
    if let Some(url) = &edit.promote_url {
        spec.promote_url = url.clone();
    }
    if let Some(vpu) = edit.views_per_user {
        spec.views_per_user = vpu;
    }
    if let Some((token, media_type)) = &edit.media {
        spec.media_token = Some(token.clone());
        spec.media_type = Some(media_type.clone());
    }
    if let Some(picture) = edit.picture {
        spec.picture = picture;
    }
    if let Some(button) = &edit.button {
        spec.button = button.clone();
    }
    if let Some(name) = &edit.website_name {
        spec.website_name = name.clone();
    }
    check_content(&spec)?;
    if let Some(cpm) = edit.cpm {
        check_cpm(kind, spec.target_type, cpm)?;
        ad.cpm = cpm;
    }
    if let Some(Some(_)) = &edit.schedule {
        if ad.budget.micros() == 0 && ad.status != Status::OnHold {
            return Err(rejected(
                "The campaign has no budget, so a schedule cannot be set.",
                "schedule",
            ));
        }
    }
    if let Some(schedule) = &edit.schedule {
        ad.schedule = schedule.clone();
    }
    if let Some(daily) = edit.daily_budget {
        ad.daily_budget = daily;
    }
    ad.spec = spec;
    if edit.triggers_review() {
        ad.status = Status::InReview;
    }
    Ok(())
}

/// Where an approved ad goes: it runs when it has budget and `active`, waits `On Hold` when
/// switched off, and is `Stopped` without budget.
fn approved_status(budget_micros: i64, active: bool) -> Status {
    if budget_micros == 0 {
        Status::Stopped
    } else if active {
        Status::Active
    } else {
        Status::OnHold
    }
}

/// A failure of the simulator's own store, as the platform's: a store too busy to answer is
/// a platform that did not answer in time; anything else a refusal.
fn internal(e: StoreError) -> PlatformError {
    match e {
        StoreError::Busy => PlatformError::Timeout,
        other => PlatformError::Refused(other.to_string()),
    }
}

/// The account's cabinet type; `None` when the simulator has no such account.
fn account_kind(conn: &Connection, account: i64) -> Result<Option<CabinetType>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT cabinet_type FROM sim_accounts WHERE id = ?1",
            [account],
            |r| parsed(r, 0, "sim_accounts.cabinet_type", CabinetType::parse),
        )
        .optional()?)
}

fn snapshot_from_row(r: &Row) -> rusqlite::Result<AdSnapshot> {
    let spec: AdSpec = json_column(r.get("spec")?)?.ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(0, "spec".into(), rusqlite::types::Type::Null)
    })?;
    Ok(AdSnapshot {
        account_id: r.get("account_id")?,
        ad_id: r.get("ad_id")?,
        spec,
        status: parsed(r, "status", "sim_ads.status", Status::parse)?,
        active: r.get("active")?,
        cpm: Money::from_micros(r.get("cpm_micros")?),
        budget: Money::from_micros(r.get("budget_micros")?),
        spent: Money::from_micros(r.get("spent_micros")?),
        daily_budget: r
            .get::<_, Option<i64>>("daily_budget_micros")?
            .map(Money::from_micros),
        schedule: json_column(r.get("schedule")?)?,
        views: r.get("views")?,
        opens: r.get("opens")?,
        clicks: r.get("clicks")?,
        actions: r.get("actions")?,
        created_at: r.get("created_at")?,
        status_changed_at: r.get("status_changed_at")?,
        invite_link: r.get("invite_link")?,
    })
}

/// The platform's minimum bid for a currency and target type.
pub fn min_cpm(kind: CabinetType, target: TargetType) -> Money {
    Money::from_micros(match (kind, target) {
        (CabinetType::Euro, TargetType::Users) => 700_000,
        (CabinetType::Euro, _) => 1_000_000,
        (CabinetType::Ton, _) => 100_000,
        (CabinetType::Stars, _) => 1_000_000,
    })
}

/// A platform username resolves when it is 5-32 of `a-z`, `0-9`, `_`, starts with a letter,
/// and does not start with `missing`. Accepts `@name`, `name` and short links.
pub fn resolve_username(input: &str) -> Option<String> {
    let trimmed = input.trim();
    let name = trimmed
        .strip_prefix('@')
        .or_else(|| trimmed.rsplit_once("t.me/").map(|(_, n)| n))
        .unwrap_or(trimmed);
    let name = name
        .split(['/', '?'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let valid = (5..=32).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.starts_with("missing");
    valid.then_some(name)
}

/// A keyword resolves unless it is blank or punctuation only.
pub fn keyword_resolves(keyword: &str) -> bool {
    keyword.chars().any(char::is_alphanumeric)
}

fn rejected(reason: impl Into<String>, param: &'static str) -> PlatformError {
    PlatformError::Rejected {
        reason: reason.into(),
        param: Some(param),
        min_cpm: None,
    }
}

/// The platform's content rules: lengths of title, text, link and website name.
fn check_content(spec: &AdSpec) -> Result<(), PlatformError> {
    if spec.title.is_empty() || spec.title.len() > 128 {
        return Err(rejected("Title must be 1-128 bytes.", "title"));
    }
    let text_len = spec.text.chars().count();
    if text_len == 0 || text_len > 160 {
        return Err(rejected("Text must be 1-160 characters.", "text"));
    }
    if spec.promote_url.chars().count() > 256 {
        return Err(rejected(
            "The link must be at most 256 characters.",
            "promote_url",
        ));
    }
    if spec
        .website_name
        .as_ref()
        .is_some_and(|n| n.chars().count() > 40)
    {
        return Err(rejected(
            "The website name must be at most 40 characters.",
            "website_name",
        ));
    }
    Ok(())
}

/// The bid must reach the minimum of the currency and target type.
fn check_cpm(kind: CabinetType, target: TargetType, cpm: Money) -> Result<(), PlatformError> {
    let min = min_cpm(kind, target);
    if cpm < min {
        return Err(PlatformError::Rejected {
            reason: format!(
                "The bid is below the minimum of {} {}.",
                kind.render(min),
                kind.currency()
            ),
            param: Some("cpm"),
            min_cpm: Some(min),
        });
    }
    Ok(())
}

/// Applies the platform's rules to a new ad; returns its spec with targets resolved.
fn check_draft(kind: CabinetType, draft: &AdDraft) -> Result<AdSpec, PlatformError> {
    let spec = &draft.spec;
    check_content(spec)?;
    check_cpm(kind, spec.target_type, draft.cpm)?;
    let mut resolved = spec.clone();
    let list = |field: &str| -> Vec<String> {
        spec.targeting[field]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    match spec.target_type {
        TargetType::Channels | TargetType::Bots => {
            let field = spec.target_type.as_str();
            let asked = list(field);
            let found: Vec<String> = asked.iter().filter_map(|n| resolve_username(n)).collect();
            if found.is_empty() {
                return Err(rejected(
                    format!("No targets found: {}", asked.join(", ")),
                    field,
                ));
            }
            resolved.targeting[field] = json!(found);
        }
        TargetType::Search => {
            let found: Vec<String> = list("search_keywords")
                .into_iter()
                .filter(|k| keyword_resolves(k))
                .collect();
            if found.is_empty() {
                return Err(rejected("No valid search queries found", "search_keywords"));
            }
            resolved.targeting["search_keywords"] = json!(found);
        }
        TargetType::Users => {}
    }
    Ok(resolved)
}

impl Platform for Simulator {
    fn open_account(&self, kind: CabinetType, balance: Money) -> Result<i64, PlatformError> {
        self.db
            .write_blocking(|tx| {
                let next: i64 = tx.query_row(
                    "SELECT COALESCE(MAX(id) + 1, ?1) FROM sim_accounts",
                    [FIRST_ACCOUNT_ID],
                    |r| r.get(0),
                )?;
                tx.execute(
                    "INSERT INTO sim_accounts (id, cabinet_type, balance_micros) VALUES (?1, ?2, ?3)",
                    params![next, kind.as_str(), balance.micros()],
                )?;
                Ok(next)
            })
            .map_err(internal)
    }

    fn set_balance(&self, account: i64, balance: Money) -> Result<(), PlatformError> {
        self.take_fault(account)?;
        let changed = self
            .db
            .write_blocking(|tx| {
                Ok(tx.execute(
                    "UPDATE sim_accounts SET balance_micros = ?2 WHERE id = ?1",
                    params![account, balance.micros()],
                )?)
            })
            .map_err(internal)?;
        if changed == 0 {
            return Err(PlatformError::NotFound);
        }
        Ok(())
    }

    fn balance(&self, account: i64) -> Result<Money, PlatformError> {
        self.take_fault(account)?;
        let micros: Option<i64> = self
            .db
            .read_blocking(|c| {
                Ok(c.query_row(
                    "SELECT balance_micros FROM sim_accounts WHERE id = ?1",
                    [account],
                    |r| r.get(0),
                )
                .optional()?)
            })
            .map_err(internal)?;
        micros
            .map(Money::from_micros)
            .ok_or(PlatformError::NotFound)
    }

    fn create_ad(&self, account: i64, draft: &AdDraft) -> Result<AdSnapshot, PlatformError> {
        self.take_fault(account)?;
        let outcome = self.db.write_blocking(|tx| {
            if let Some(client_ref) = &draft.client_ref {
                let existing: Option<i64> = tx
                    .query_row(
                        "SELECT ad_id FROM sim_ads WHERE account_id = ?1 AND client_ref = ?2",
                        params![account, client_ref],
                        |r| r.get(0),
                    )
                    .optional()?;
                if let Some(ad_id) = existing {
                    return Ok(Ok(ad_id));
                }
            }
            let Some(kind) = account_kind(tx, account)? else {
                return Ok(Err(PlatformError::NotFound));
            };
            let spec = match check_draft(kind, draft) {
                Ok(spec) => spec,
                Err(e) => return Ok(Err(e)),
            };
            let (balance, ad_id): (i64, i64) = tx.query_row(
                "SELECT balance_micros, next_ad_id FROM sim_accounts WHERE id = ?1",
                [account],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            if balance < draft.budget.micros() {
                return Ok(Err(PlatformError::InsufficientBalance));
            }
            let now = clock::now(tx)?;
            let spec_text = serde_json::to_string(&spec).map_err(|e| StoreError::Failed(e.to_string()))?;
            tx.execute(
                "UPDATE sim_accounts SET balance_micros = balance_micros - ?2, next_ad_id = next_ad_id + 1
                 WHERE id = ?1",
                params![account, draft.budget.micros()],
            )?;
            let channel = PromoteLink::parse(&spec.promote_url)
                .is_ok_and(|link| link.kind == LinkKind::Channel);
            let invite_link = channel.then(|| {
                format!("https://t.me/+{}", &uuid::Uuid::new_v4().simple().to_string()[..16])
            });
            tx.execute(
                "INSERT INTO sim_ads (account_id, ad_id, spec, status, active, cpm_micros, budget_micros,
                    daily_budget_micros, schedule, review_requested_at, created_at, status_changed_at, client_ref,
                    accrued_until, invite_link)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?10, ?12, ?10, ?13)",
                params![
                    account,
                    ad_id,
                    spec_text,
                    Status::InReview.as_str(),
                    draft.active,
                    draft.cpm.micros(),
                    draft.budget.micros(),
                    draft.daily_budget.map(Money::micros),
                    draft.schedule.as_ref().map(Value::to_string),
                    clock::iso(now),
                    now.timestamp(),
                    draft.client_ref,
                    invite_link,
                ],
            )?;
            Ok(Ok(ad_id))
        });
        let ad_id = outcome.map_err(internal)??;
        self.get_ad_unchecked(account, ad_id)
    }

    fn get_ad(&self, account: i64, ad_id: i64) -> Result<AdSnapshot, PlatformError> {
        self.take_fault(account)?;
        self.get_ad_unchecked(account, ad_id)
    }

    fn get_ads(&self, account: i64, ads: &[i64]) -> Result<Vec<AdSnapshot>, PlatformError> {
        self.take_fault(account)?;
        self.load_ads(account, ads)
    }

    fn report(&self, account: i64, at: DateTime<Utc>) -> Result<Vec<AdCounters>, PlatformError> {
        self.take_fault(account)?;
        self.db
            .write_blocking(|tx| {
                if account_kind(tx, account)?.is_none() {
                    return Ok(Err(PlatformError::NotFound));
                }
                let until = at.min(clock::now(tx)?);
                let moving: Vec<i64> = tx
                    .prepare_cached(
                        "SELECT ad_id FROM sim_ads WHERE account_id = ?1
                         AND status IN ('Active', 'In Review')",
                    )?
                    .query_map([account], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
                for ad in moving {
                    self.catch_up(tx, account, ad, until)?;
                }
                let mut stmt = tx.prepare_cached(
                    "SELECT ad_id, status, active, budget_micros, spent_micros, views, opens,
                        clicks, actions, status_changed_at
                     FROM sim_ads WHERE account_id = ?1 ORDER BY ad_id",
                )?;
                let rows = stmt.query_map([account], |r| {
                    Ok(AdCounters {
                        ad_id: r.get(0)?,
                        status: parsed(r, 1, "sim_ads.status", Status::parse)?,
                        active: r.get(2)?,
                        budget: Money::from_micros(r.get(3)?),
                        spent: Money::from_micros(r.get(4)?),
                        views: r.get(5)?,
                        opens: r.get(6)?,
                        clicks: r.get(7)?,
                        actions: r.get(8)?,
                        status_changed_at: r.get(9)?,
                    })
                })?;
                Ok::<_, StoreError>(Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?))
            })
            .map_err(internal)?
    }

    fn edit_ad(
        &self,
        account: i64,
        ad_id: i64,
        edit: &AdEdit,
    ) -> Result<AdSnapshot, PlatformError> {
        let kind = self.kind_of(account)?;
        let (ad, _) = self.mutate(account, ad_id, |_, ad| apply_edit(kind, ad, edit))?;
        Ok(ad)
    }

    fn switch_ad(
        &self,
        account: i64,
        ad_id: i64,
        active: bool,
    ) -> Result<(AdSnapshot, Switch), PlatformError> {
        let (ad, outcome) = self.mutate(account, ad_id, |_, ad| Ok(switch(ad, active)))?;
        Ok((ad, outcome.unwrap_or(Switch::IntentOnly)))
    }

    fn move_budget(
        &self,
        account: i64,
        ad_id: i64,
        op: BudgetOp,
        token: &str,
    ) -> Result<BudgetMoved, PlatformError> {
        let (ad, moved) = self.mutate(account, ad_id, |conn, ad| {
            let now = clock::now(conn).map_err(internal)?;
            let window_start = clock::iso(now - chrono::Duration::hours(OP_TOKEN_HOURS));
            let recorded: Option<i64> = conn
                .query_row(
                    "SELECT moved_micros FROM sim_ops WHERE token = ?1 AND created_at > ?2",
                    params![token, window_start],
                    |r| r.get(0),
                )
                .optional()
                .map_err(|e| internal(e.into()))?;
            if let Some(moved) = recorded {
                return Ok(Money::from_micros(moved));
            }
            let moved = match op {
                BudgetOp::Add(amount) => {
                    if balance_of(conn, account)? < amount {
                        return Err(PlatformError::InsufficientBalance);
                    }
                    amount
                }
                BudgetOp::Withdraw(amount) => amount.min(ad.budget),
                BudgetOp::WithdrawAll => ad.budget,
            };
            let (budget, to_balance) = match op {
                BudgetOp::Add(_) => (ad.budget.checked_add(moved), -moved.micros()),
                BudgetOp::Withdraw(_) | BudgetOp::WithdrawAll => {
                    (ad.budget.checked_sub(moved), moved.micros())
                }
            };
            ad.budget = budget.ok_or_else(|| {
                rejected(
                    format!("The campaign's budget would exceed {MAX_UNITS}."),
                    "amount",
                )
            })?;
            add_balance(conn, account, to_balance)?;
            if ad.status == Status::Stopped && ad.active && ad.budget.micros() > 0 {
                ad.status = Status::Active;
            }
            if ad.status == Status::Active && ad.budget.micros() == 0 {
                ad.status = Status::Stopped;
            }
            conn.execute(
                "INSERT OR REPLACE INTO sim_ops (token, account_id, moved_micros, created_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![token, account, moved.micros(), clock::iso(now)],
            )
            .map_err(|e| internal(e.into()))?;
            Ok(moved)
        })?;
        let balance = self
            .db
            .read_blocking(|c| Ok(balance_of(c, account)))
            .map_err(internal)??;
        Ok(BudgetMoved {
            ad,
            moved: moved.unwrap_or(Money::ZERO),
            balance,
        })
    }

    fn upload_media(
        &self,
        account: i64,
        _media_type: &str,
        file: &std::path::Path,
    ) -> Result<(), PlatformError> {
        self.take_fault(account)?;
        self.kind_of(account)?;
        let size = std::fs::metadata(file)
            .map_err(|e| PlatformError::Refused(format!("cannot read the upload: {e}")))?
            .len();
        if size == 0 {
            return Err(rejected("The file is empty.", "file"));
        }
        Ok(())
    }

    fn delete_ad(&self, account: i64, ad_id: i64, token: &str) -> Result<bool, PlatformError> {
        let recorded: Option<bool> = self
            .db
            .read_blocking(|c| {
                Ok(c.query_row(
                    "SELECT removed FROM sim_deletes WHERE token = ?1 AND account_id = ?2 AND ad_id = ?3",
                    params![token, account, ad_id],
                    |r| r.get(0),
                )
                .optional()?)
            })
            .map_err(internal)?;
        if let Some(removed) = recorded {
            return Ok(removed);
        }
        let (_, removed) = self.mutate(account, ad_id, |conn, ad| {
            add_balance(conn, account, ad.budget.micros())?;
            ad.budget = Money::ZERO;
            ad.status = Status::Deleted;
            let removed = ad.views == 0;
            let record = |sql: &str, args: &[&dyn rusqlite::ToSql]| {
                conn.execute(sql, args)
                    .map(|_| ())
                    .map_err(|e| internal(e.into()))
            };
            if removed {
                record(
                    "DELETE FROM sim_ads WHERE account_id = ?1 AND ad_id = ?2",
                    params![account, ad_id],
                )?;
            }
            let now = clock::now(conn).map_err(internal)?;
            record(
                "INSERT INTO sim_deletes (token, account_id, ad_id, removed, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![token, account, ad_id, removed, clock::iso(now)],
            )?;
            Ok(removed)
        })?;
        Ok(removed.unwrap_or(false))
    }
}

impl Simulator {
    fn get_ad_unchecked(&self, account: i64, ad_id: i64) -> Result<AdSnapshot, PlatformError> {
        self.load_ads(account, &[ad_id])?
            .pop()
            .ok_or(PlatformError::NotFound)
    }

    /// Brings the ads up to now and reads them, in one transaction.
    fn load_ads(&self, account: i64, ads: &[i64]) -> Result<Vec<AdSnapshot>, PlatformError> {
        self.db
            .write_blocking(|tx| {
                let now = clock::now(tx)?;
                let mut found = Vec::with_capacity(ads.len());
                for ad in ads {
                    self.catch_up(tx, account, *ad, now)?;
                    found.extend(load_snapshot(tx, account, *ad)?);
                }
                Ok(found)
            })
            .map_err(internal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_resolve_by_the_platform_rules() {
        assert_eq!(
            resolve_username("@Crypto_News").as_deref(),
            Some("crypto_news")
        );
        assert_eq!(
            resolve_username("https://t.me/dailyfeed").as_deref(),
            Some("dailyfeed")
        );
        assert_eq!(resolve_username("abcd"), None, "too short");
        assert_eq!(resolve_username("1abcde"), None, "starts with a digit");
        assert_eq!(resolve_username("missing_channel"), None);
        assert_eq!(resolve_username(&"a".repeat(33)), None);
        assert_eq!(resolve_username("bad-name"), None);
    }

    #[test]
    fn keywords_resolve_unless_blank_or_punctuation() {
        assert!(keyword_resolves("running shoes"));
        assert!(!keyword_resolves("   "));
        assert!(!keyword_resolves("?!..."));
    }

    fn draft(target_type: TargetType, targeting: Value, cpm_micros: i64) -> AdDraft {
        let spec = AdSpec::plain(
            "Title",
            "Text",
            "https://example.com",
            target_type,
            targeting,
        );
        AdDraft::running(spec, Money::from_micros(cpm_micros), Money::ZERO)
    }

    fn refusal(
        result: Result<AdSpec, PlatformError>,
    ) -> (String, Option<&'static str>, Option<Money>) {
        match result {
            Err(PlatformError::Rejected {
                reason,
                param,
                min_cpm,
            }) => (reason, param, min_cpm),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn content_rules_refuse_with_the_field_named() {
        let users = || draft(TargetType::Users, json!({ "countries": ["DE"] }), 1_000_000);
        let mut d = users();
        d.spec.title = "t".repeat(129);
        assert_eq!(refusal(check_draft(CabinetType::Euro, &d)).1, Some("title"));
        let mut d = users();
        d.spec.text = "é".repeat(161);
        assert_eq!(refusal(check_draft(CabinetType::Euro, &d)).1, Some("text"));
        d.spec.text = "é".repeat(160);
        assert!(
            check_draft(CabinetType::Euro, &d).is_ok(),
            "160 characters, not bytes"
        );
        let mut d = users();
        d.spec.promote_url = format!("https://example.com/{}", "a".repeat(240));
        assert_eq!(
            refusal(check_draft(CabinetType::Euro, &d)).1,
            Some("promote_url")
        );
        let mut d = users();
        d.spec.website_name = Some("w".repeat(41));
        assert_eq!(
            refusal(check_draft(CabinetType::Euro, &d)).1,
            Some("website_name")
        );
    }

    #[test]
    fn a_low_bid_is_refused_with_the_minimum() {
        let d = draft(
            TargetType::Channels,
            json!({ "channels": ["@tech_daily"] }),
            990_000,
        );
        let (reason, param, min) = refusal(check_draft(CabinetType::Euro, &d));
        assert_eq!(param, Some("cpm"));
        assert_eq!(min, Some(Money::from_micros(1_000_000)));
        assert!(reason.contains("1.00 EUR"), "{reason}");
        let users = draft(TargetType::Users, json!({ "countries": ["DE"] }), 700_000);
        assert!(check_draft(CabinetType::Euro, &users).is_ok());
    }

    #[test]
    fn targets_resolve_or_the_ad_fails_with_the_spec_texts() {
        let d = draft(
            TargetType::Bots,
            json!({ "bots": ["@missing_bot", "x"] }),
            1_000_000,
        );
        let (reason, param, _) = refusal(check_draft(CabinetType::Euro, &d));
        assert!(reason.starts_with("No targets found:"), "{reason}");
        assert_eq!(param, Some("bots"));
        let d = draft(
            TargetType::Search,
            json!({ "search_keywords": ["  ", "?!"] }),
            1_000_000,
        );
        assert!(refusal(check_draft(CabinetType::Euro, &d))
            .0
            .starts_with("No valid search queries found"));
        let d = draft(
            TargetType::Search,
            json!({ "search_keywords": ["shoes", "..."] }),
            1_000_000,
        );
        assert_eq!(
            check_draft(CabinetType::Euro, &d).unwrap().targeting["search_keywords"],
            json!(["shoes"])
        );
    }

    #[test]
    fn minimum_bids_follow_currency_and_target() {
        assert_eq!(
            min_cpm(CabinetType::Euro, TargetType::Channels).micros(),
            1_000_000
        );
        assert_eq!(
            min_cpm(CabinetType::Euro, TargetType::Users).micros(),
            700_000
        );
        assert_eq!(
            min_cpm(CabinetType::Ton, TargetType::Bots).micros(),
            100_000
        );
        assert_eq!(
            min_cpm(CabinetType::Stars, TargetType::Search).micros(),
            1_000_000
        );
    }
}
