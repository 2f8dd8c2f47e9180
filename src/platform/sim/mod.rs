//! Owns the built-in platform simulator: accounts, balances, per-cabinet `ad_id` numbering,
//! the platform's content rules, minimum CPMs, username and keyword resolution, review and
//! its reasons for declining, and faults injected on demand. Its state lives in the `sim_*` tables, apart from the service's
//! copy, as a real platform's would; its time is the service clock.

pub mod accrual;
mod cities;
mod config;
mod decline;
mod faults;
mod funds;
mod review;
mod rows;
mod rules;

pub use config::SimConfig;
pub use faults::Fault;
use rows::{account_kind, add_balance, balance_of, load_snapshot, save};
pub use rules::resolve_username;
use rules::{apply_edit, check_draft, rejected, switch, CAPABILITIES};

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;

use super::{
    AdCounters, AdDraft, AdEdit, AdSnapshot, BudgetMoved, BudgetOp, Capabilities, CityEntry, Dates,
    OpenedRelated, PeerEntry, Platform, PlatformError, Switch, TransactionPage, TransferReport,
};
use crate::clock;
use crate::db::Db;
use crate::domain::campaign::TargetType;
use crate::domain::campaign::{LinkKind, Status};
use crate::domain::funds::{Direction, RelatedInfo};
use crate::domain::link::PromoteLink;
use crate::domain::money::{CabinetType, Money, MAX_UNITS};
use crate::store::StoreError;

/// How long a budget operation token is remembered.
const OP_TOKEN_HOURS: i64 = 24;

/// Account ids are large integers, as on the real platform.
pub(crate) const FIRST_ACCOUNT_ID: i64 = 5_000_000_001;

pub struct Simulator {
    db: Db,
    config: SimConfig,
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

    /// Changes one live ad in a transaction: `change` sees the ad and may write other sim
    /// tables, but must make every check before its first write (a refusal commits whatever
    /// it wrote). The ad is saved afterwards, with `status_changed_at` moved when the status
    /// changed and its decline reason gone when it is no longer `Declined`. An `ignore` fault skips `change` and returns the ad as it was.
    fn mutate<T: Send>(
        &self,
        account: i64,
        ad: i64,
        change: impl FnOnce(&Connection, &mut AdSnapshot) -> Result<T, PlatformError> + Send,
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
                if state.status != Status::Declined {
                    state.decline_reason = None;
                }
                let review_from =
                    (state.status == Status::InReview && before != Status::InReview).then_some(now);
                save(tx, &state, review_from.as_deref())?;
                Ok(Ok((state, Some(value))))
            })
            .map_err(PlatformError::store)?
    }

    fn kind_of(&self, account: i64) -> Result<CabinetType, PlatformError> {
        self.db
            .read_blocking(|c| account_kind(c, account))
            .map_err(PlatformError::store)?
            .ok_or(PlatformError::NotFound)
    }
}

impl Platform for Simulator {
    fn capabilities(&self) -> &Capabilities {
        &CAPABILITIES
    }

    /// Three: the hour's writes of every cabinet share the database's one writer, and while
    /// it stores one cabinet's, two others' reads (the report worked out, ads re-read, the
    /// copies' state) run on readers, so that a cabinet is ready when it is free.
    fn parallel_reads(&self) -> usize {
        3
    }

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
                if balance.micros() > 0 {
                    funds::book(tx, next, balance.micros(), "external", None)?;
                }
                Ok(next)
            })
            .map_err(PlatformError::store)
    }

    fn open_related(
        &self,
        main: i64,
        info: &RelatedInfo,
        key: &str,
    ) -> Result<OpenedRelated, PlatformError> {
        self.sim_open_related(main, info, key)
    }

    fn transfer(
        &self,
        related: i64,
        direction: Direction,
        amount: Money,
        key: &str,
    ) -> Result<TransferReport, PlatformError> {
        self.sim_transfer(related, direction, amount, key)
    }

    fn transfer_status(&self, related: i64, id: &str) -> Result<TransferReport, PlatformError> {
        self.sim_transfer_status(related, id)
    }

    fn transactions(
        &self,
        account: i64,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<TransactionPage, PlatformError> {
        self.sim_transactions(account, cursor, limit)
    }

    fn set_balance(&self, account: i64, balance: Money) -> Result<(), PlatformError> {
        self.take_fault(account)?;
        let changed = self
            .db
            .write_blocking(|tx| {
                let before: Option<i64> = tx
                    .query_row(
                        "SELECT balance_micros FROM sim_accounts WHERE id = ?1",
                        [account],
                        |r| r.get(0),
                    )
                    .optional()?;
                let Some(before) = before else {
                    return Ok(false);
                };
                tx.execute(
                    "UPDATE sim_accounts SET balance_micros = ?2 WHERE id = ?1",
                    params![account, balance.micros()],
                )?;
                // An operator's adjustment is money from (or back to) outside the platform.
                let delta = balance.micros() - before;
                if delta != 0 {
                    funds::book(tx, account, delta, "external", None)?;
                }
                Ok(true)
            })
            .map_err(PlatformError::store)?;
        if !changed {
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
            .map_err(PlatformError::store)?;
        micros
            .map(Money::from_micros)
            .ok_or(PlatformError::NotFound)
    }

    fn cities(
        &self,
        _account: Option<i64>,
        country: &str,
        query: &str,
    ) -> Result<Vec<CityEntry>, PlatformError> {
        Ok(cities::look_up(country, query))
    }

    fn look_up_peer(
        &self,
        _account: i64,
        _target: TargetType,
        query: &str,
    ) -> Result<Option<PeerEntry>, PlatformError> {
        // The simulator knows every well-formed name (as its ads resolve them), titled by its
        // words ("daily_news" is "Daily News"); it has no pictures.
        Ok(resolve_username(query).map(|name| PeerEntry {
            title: Some(rules::title_of(&name)),
            username: format!("@{name}"),
            photo_url: None,
        }))
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
            if draft.budget.micros() > 0 {
                funds::book(tx, account, -draft.budget.micros(), "ad", Some(ad_id))?;
            }
            // Like the platform's, dates are taken only by an ad made switched on.
            let dates = if draft.active { draft.dates } else { Dates::default() };
            let channel = PromoteLink::parse(&spec.promote_url)
                .is_ok_and(|link| link.kind == LinkKind::Channel);
            let invite_link = channel.then(|| {
                format!("https://t.me/+{}", &uuid::Uuid::new_v4().simple().to_string()[..16])
            });
            tx.execute(
                "INSERT INTO sim_ads (account_id, ad_id, spec, status, active, cpm_micros, budget_micros,
                    daily_budget_micros, schedule, review_requested_at, created_at, status_changed_at, client_ref,
                    accrued_until, invite_link, starts_at, ends_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?10, ?12, ?10, ?13, ?14, ?15)",
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
                    dates.starts_at,
                    dates.ends_at,
                ],
            )?;
            Ok(Ok(ad_id))
        });
        let ad_id = outcome.map_err(PlatformError::store)??;
        self.get_ad_unchecked(account, ad_id)
    }

    fn get_ad(&self, account: i64, ad_id: i64) -> Result<AdSnapshot, PlatformError> {
        self.take_fault(account)?;
        self.get_ad_unchecked(account, ad_id)
    }

    fn list_ads(&self, account: i64) -> Result<Vec<AdSnapshot>, PlatformError> {
        self.take_fault(account)?;
        self.kind_of(account)?;
        let ids: Vec<i64> = self
            .db
            .read_blocking(|c| {
                Ok(c.prepare_cached(
                    "SELECT ad_id FROM sim_ads WHERE account_id = ?1 AND status <> 'Deleted'
                     ORDER BY ad_id",
                )?
                .query_map([account], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?)
            })
            .map_err(PlatformError::store)?;
        self.load_ads(account, &ids)
    }

    fn get_ads(&self, account: i64, ads: &[i64]) -> Result<Vec<AdSnapshot>, PlatformError> {
        self.take_fault(account)?;
        self.load_ads(account, ads)
    }

    /// Worked out on a reader, from one scan of the account's ads: every moving ad brought up
    /// to `at` in memory ([`Simulator::brought`]); then the ads a report stores
    /// ([`review::Advanced::report_stores`]) are written, each unless its row changed since it
    /// was read.
    fn report(&self, account: i64, at: DateTime<Utc>) -> Result<Vec<AdCounters>, PlatformError> {
        self.take_fault(account)?;
        let read = self
            .db
            .read_blocking(|c| {
                if account_kind(c, account)?.is_none() {
                    return Ok(Err(PlatformError::NotFound));
                }
                let until = at.min(clock::now(c)?);
                let brought = self.brought(c, account, until)?;
                let run = review::store_run(brought.len());
                let mut due = Vec::new();
                let lines = brought
                    .into_iter()
                    .map(|(line, advanced)| {
                        due.extend(advanced.filter(|advanced| advanced.report_stores(run)));
                        line
                    })
                    .collect();
                Ok::<_, StoreError>(Ok((lines, due)))
            })
            .map_err(PlatformError::store)?;
        let (lines, due) = read?;
        self.store_all(account, &due)
            .map_err(PlatformError::store)?;
        Ok(lines)
    }

    fn edit_ad(
        &self,
        account: i64,
        ad_id: i64,
        edit: &AdEdit,
    ) -> Result<AdSnapshot, PlatformError> {
        let kind = self.kind_of(account)?;
        let (ad, _) = self.mutate(account, ad_id, |tx, ad| {
            let now = clock::now(tx).map_err(PlatformError::store)?.timestamp();
            apply_edit(kind, ad, edit, now)
        })?;
        Ok(ad)
    }

    fn switch_ad(
        &self,
        account: i64,
        ad_id: i64,
        active: bool,
        dates: Dates,
    ) -> Result<(AdSnapshot, Switch), PlatformError> {
        let (ad, outcome) = self.mutate(account, ad_id, |tx, ad| {
            let now = clock::now(tx).map_err(PlatformError::store)?.timestamp();
            Ok(switch(ad, active, dates, now))
        })?;
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
            let now = clock::now(conn).map_err(PlatformError::store)?;
            let window_start = clock::iso(now - chrono::Duration::hours(OP_TOKEN_HOURS));
            let recorded: Option<i64> = conn
                .query_row(
                    "SELECT moved_micros FROM sim_ops WHERE token = ?1 AND created_at > ?2",
                    params![token, window_start],
                    |r| r.get(0),
                )
                .optional()
                .map_err(|e| PlatformError::store(e.into()))?;
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
            if to_balance != 0 {
                funds::book(conn, account, to_balance, "ad", Some(ad.ad_id))
                    .map_err(PlatformError::store)?;
            }
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
            .map_err(|e| PlatformError::store(e.into()))?;
            Ok(moved)
        })?;
        let balance = self
            .db
            .read_blocking(|c| Ok(balance_of(c, account)))
            .map_err(PlatformError::store)??;
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
    ) -> Result<Option<String>, PlatformError> {
        self.take_fault(account)?;
        self.kind_of(account)?;
        let size = std::fs::metadata(file)
            .map_err(|e| PlatformError::Refused(format!("cannot read the upload: {e}")))?
            .len();
        if size == 0 {
            return Err(rejected("The file is empty.", "file"));
        }
        Ok(None)
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
            .map_err(PlatformError::store)?;
        if let Some(removed) = recorded {
            return Ok(removed);
        }
        let (_, removed) = self.mutate(account, ad_id, |conn, ad| {
            add_balance(conn, account, ad.budget.micros())?;
            if ad.budget.micros() > 0 {
                funds::book(conn, account, ad.budget.micros(), "ad", Some(ad_id))
                    .map_err(PlatformError::store)?;
            }
            ad.budget = Money::ZERO;
            ad.status = Status::Deleted;
            let removed = ad.views == 0;
            let record = |sql: &str, args: &[&dyn rusqlite::ToSql]| {
                conn.execute(sql, args)
                    .map(|_| ())
                    .map_err(|e| PlatformError::store(e.into()))
            };
            if removed {
                record(
                    "DELETE FROM sim_ads WHERE account_id = ?1 AND ad_id = ?2",
                    params![account, ad_id],
                )?;
            }
            let now = clock::now(conn).map_err(PlatformError::store)?;
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

    /// Reads the ads as they stand now, on a reader: each brought up to now in memory
    /// ([`Simulator::caught_up`]); only those whose status moved on the way, or whose stored
    /// state was four hours old or more, are stored.
    fn load_ads(&self, account: i64, ads: &[i64]) -> Result<Vec<AdSnapshot>, PlatformError> {
        let (found, due) = self
            .db
            .read_blocking(|c| {
                let now = clock::now(c)?;
                let (mut found, mut due) = (Vec::with_capacity(ads.len()), Vec::new());
                for ad in ads {
                    if let Some(mut snapshot) = load_snapshot(c, account, *ad)? {
                        due.extend(self.caught_up(c, &mut snapshot, now)?);
                        found.push(snapshot);
                    }
                }
                Ok::<_, StoreError>((found, due))
            })
            .map_err(PlatformError::store)?;
        self.store_all(account, &due)
            .map_err(PlatformError::store)?;
        Ok(found)
    }
}
