//! Owns money between an agency and its clients: opening a client (related) cabinet under the
//! agency's main account, moving money main → cabinet (`in`) and back (`out`) exactly once per
//! key, settling a transfer the platform left in progress (the `jobs::funds` step), and reading
//! an account's transactions. Each checks first (an Agency-plan owner; only the owner moves
//! money out; the monthly top-up cap counting completed and pending transfers of the calendar
//! month; enough money in the source), then asks the platform, stores the transfer, enters the
//! cabinet's history and sends the `cabinet_funds` event once the transfer settles.

use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::{json, Value};

use super::{now_iso, Actor, OpsError};
use crate::clock;
use crate::domain::access::Plan;
use crate::domain::campaign::Source;
use crate::domain::funds::{render_transfer, Direction, FundsMove, RelatedInfo, TransferState};
use crate::domain::money::{CabinetType, Money};
use crate::domain::time::Month;
use crate::platform::{PlatformError, TransactionPage, TransferReport};
use crate::services::Services;
use crate::store::cabinets::{self, AgencyRole, Cabinet};
use crate::store::history::{self, Author};
use crate::store::transfers::{self, NewTransfer, TransferRow};
use crate::store::{users, StoreError};
use crate::webhooks::events;

/// How long a move waits for a transfer in progress to settle before answering it pending.
const POLL_FOR: Duration = Duration::from_secs(2);
const POLL_EVERY: Duration = Duration::from_millis(500);
/// How long (service clock) until a pending transfer is checked again.
const CHECK_AGAIN_SECONDS: i64 = 30;
/// Pending transfers one settling step checks at most.
const SETTLE_BATCH: i64 = 20;

/// Why a move of money, or the opening of a client cabinet, was refused before the platform
/// was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FundsRefusal {
    /// The cabinet's owner is not on the Agency plan.
    NotAgency,
    /// The cabinet named as the main account is not one.
    NotMain,
    /// The cabinet is not a client cabinet of a main account.
    NotClientCabinet,
    /// Only the cabinet's owner moves money out of it.
    OwnerOnly,
    /// The move would pass the cabinet's monthly top-up cap; `left` may still go in this month.
    MonthlyCap {
        cap: Money,
        left: Money,
        kind: CabinetType,
    },
    /// The account the money would leave does not have it.
    NotEnoughMoney,
}

impl FundsRefusal {
    /// The sentence for a person.
    pub fn sentence(self) -> String {
        match self {
            FundsRefusal::NotAgency => "Client cabinets and their money are part of the Agency plan.".into(),
            FundsRefusal::NotMain => "That cabinet is not the agency's main account.".into(),
            FundsRefusal::NotClientCabinet => {
                "This cabinet is not a client cabinet of a main account.".into()
            }
            FundsRefusal::OwnerOnly => {
                "Only the cabinet's owner may move money out of it.".into()
            }
            FundsRefusal::MonthlyCap { cap, left, kind } => format!(
                "This would pass the cabinet's monthly top-up cap of {} {cur}; {} {cur} may still go in this month.",
                kind.render(cap),
                render_transfer(kind, left),
                cur = kind.currency()
            ),
            FundsRefusal::NotEnoughMoney => {
                "The account the money would come from does not have that much.".into()
            }
        }
    }
}

impl From<FundsRefusal> for OpsError {
    fn from(r: FundsRefusal) -> Self {
        OpsError::Funds(r)
    }
}

/// A transfer and both balances after it.
#[derive(Debug, Clone)]
pub struct Moved {
    pub transfer: TransferRow,
    pub kind: CabinetType,
    pub main_balance: Money,
    pub balance: Money,
}

/// Who opens a client cabinet: the operator, or a person (who must own the main account).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opener {
    pub source: Source,
    pub user: Option<i64>,
}

fn owner_is_agency(conn: &Connection, owner: i64) -> Result<bool, OpsError> {
    Ok(users::get(conn, owner)?.is_some_and(|u| u.plan == Plan::Agency))
}

/// Opens a client cabinet under the main account `main` with `info`; `token` (adcab's own id
/// of the request) makes a repeat open nothing again and answer the same cabinet.
pub fn open_related(
    s: &Services,
    by: Opener,
    main: i64,
    info: &RelatedInfo,
    token: &str,
) -> Result<Cabinet, OpsError> {
    let main_cabinet = s.db.read_blocking(|c| -> Result<Cabinet, OpsError> {
        let cabinet = cabinets::get(c, main)?.ok_or(OpsError::Funds(FundsRefusal::NotMain))?;
        if by.user.is_some_and(|u| u != cabinet.owner_id) {
            return Err(FundsRefusal::NotMain.into());
        }
        if cabinets::agency_role(c, main)? != Some(AgencyRole::Main) {
            return Err(FundsRefusal::NotMain.into());
        }
        if !owner_is_agency(c, cabinet.owner_id)? {
            return Err(FundsRefusal::NotAgency.into());
        }
        Ok(cabinet)
    })?;
    let opened = s.platform.open_related(main, info, token)?;
    let min_budget = super::cabinets::default_min_budget(s, opened.kind)?;
    let author = match by.user {
        Some(u) => Author::person(by.source, u),
        None => Author::from(by.source),
    };
    let id = s.db.write_blocking(|tx| -> Result<i64, OpsError> {
        let known = match &opened.link {
            Some((platform_id, _)) => cabinets::by_platform_id(tx, platform_id)?,
            None => opened
                .account
                .filter(|id| cabinets::get(tx, *id).ok().flatten().is_some()),
        };
        if let Some(id) = known {
            return Ok(id);
        }
        let now = now_iso(tx)?;
        let id = match opened.account {
            Some(id) => id,
            None => cabinets::next_id(tx)?,
        };
        let cabinet = Cabinet {
            id,
            owner_id: main_cabinet.owner_id,
            name: opened.name.clone(),
            cabinet_type: opened.kind,
            is_active: true,
            balance: Money::ZERO,
            balance_updated_at: now.clone(),
            min_budget,
            ad_button: main_cabinet.ad_button,
            crypto_filters: main_cabinet.crypto_filters,
            auth_expired: false,
            locked: false,
        };
        cabinets::insert(tx, &cabinet, &now)?;
        if let Some((platform_id, credential)) = &opened.link {
            cabinets::set_connection(tx, id, platform_id, credential)?;
        }
        cabinets::set_main_account(tx, id, main)?;
        let details = json!({ "main_account_id": main, "title": opened.name });
        history::record(tx, id, 0, &now, author, "cabinet_opened", &details)?;
        Ok(id)
    })?;
    s.db.read_blocking(|c| cabinets::get(c, id))?
        .ok_or(OpsError::NotFound)
}

/// Moves money between the actor's cabinet (a client cabinet) and its main account; `token`
/// (adcab's own id of the request) is the transfer's key: a repeat moves nothing again and
/// answers the first transfer as it stands now.
pub fn move_funds(
    s: &Services,
    actor: &Actor,
    mv: FundsMove,
    token: &str,
) -> Result<Moved, OpsError> {
    let cabinet = actor.cabinet().clone();
    let kind = cabinet.cabinet_type;
    let key = format!("funds:{}:{token}", cabinet.id);
    let (main, earlier) = s.db.read_blocking(|c| -> Result<_, OpsError> {
        let Some(AgencyRole::Related { main }) = cabinets::agency_role(c, cabinet.id)? else {
            return Err(FundsRefusal::NotClientCabinet.into());
        };
        if !owner_is_agency(c, cabinet.owner_id)? {
            return Err(FundsRefusal::NotAgency.into());
        }
        Ok((main, transfers::by_key(c, &key)?))
    })?;
    if let Some(row) = earlier {
        return answer(s, row, kind);
    }
    let owner_acts = actor.source() == Source::Operator || actor.user() == cabinet.owner_id;
    if mv.direction == Direction::Out && !owner_acts {
        return Err(FundsRefusal::OwnerOnly.into());
    }
    if mv.direction == Direction::In {
        check_cap(s, cabinet.id, kind, mv.amount)?;
    }
    let source = match mv.direction {
        Direction::In => main,
        Direction::Out => cabinet.id,
    };
    if s.platform.balance(source)? < mv.amount {
        return Err(FundsRefusal::NotEnoughMoney.into());
    }
    let author = actor.author();
    let id = s.db.write_blocking(|tx| -> Result<i64, OpsError> {
        let at = clock::now(tx)?;
        let now = clock::iso(at);
        let check_at = clock::iso(at + chrono::Duration::seconds(CHECK_AGAIN_SECONDS));
        let new = NewTransfer {
            account_id: cabinet.id,
            main_account_id: main,
            direction: mv.direction,
            amount: mv.amount,
            idempotency_key: &key,
            source: author.source.as_str(),
            user_id: author.user,
        };
        Ok(transfers::insert(tx, &new, &now, &check_at)?)
    })?;
    let report = match s
        .platform
        .transfer(cabinet.id, mv.direction, mv.amount, &key)
    {
        Ok(r) => poll(s, cabinet.id, r),
        Err(e @ (PlatformError::Unreachable(_) | PlatformError::RateLimited(_))) => {
            // The platform may have taken it: the settling step sends it again with the same
            // key, which replays rather than moves twice.
            tracing::warn!(transfer = id, error = %e, "a transfer's answer was lost; it is checked again later");
            return Err(e.into());
        }
        Err(e) => {
            let refusal = match e {
                PlatformError::InsufficientBalance => OpsError::Funds(FundsRefusal::NotEnoughMoney),
                other => OpsError::Platform(other),
            };
            s.db.write_blocking(|tx| -> Result<(), OpsError> {
                let now = now_iso(tx)?;
                let why = match &refusal {
                    OpsError::Funds(_) => "NOT_ENOUGH_BUDGET".to_string(),
                    other => format!("{other:?}"),
                };
                transfers::set_status(tx, id, TransferState::Failed, None, Some(&why), &now, None)?;
                Ok(())
            })?;
            return Err(refusal);
        }
    };
    let row = record(s, id, &report, kind)?;
    Ok(Moved {
        transfer: row,
        kind,
        main_balance: report.main_balance,
        balance: report.balance,
    })
}

/// The monthly top-up cap: money moved in this calendar month (completed or pending) plus
/// `amount` must not pass it.
fn check_cap(s: &Services, account: i64, kind: CabinetType, amount: Money) -> Result<(), OpsError> {
    s.db.read_blocking(|c| -> Result<(), OpsError> {
        let Some(cap) = cabinets::terms(c, account)?.and_then(|t| t.monthly_topup_cap) else {
            return Ok(());
        };
        let now = clock::now(c)?;
        let month: Month = now
            .format("%Y-%m")
            .to_string()
            .parse()
            .map_err(|e: crate::domain::time::NotAMonth| OpsError::Internal(e.to_string()))?;
        let moved = transfers::moved_in_between(
            c,
            account,
            &clock::iso(month.start()),
            &clock::iso(month.end()),
        )?;
        let after = moved
            .checked_add(amount)
            .ok_or_else(|| OpsError::Internal("a monthly total past the money range".into()))?;
        if after > cap {
            let left = cap.checked_sub(moved).filter(|l| l.micros() > 0);
            return Err(FundsRefusal::MonthlyCap {
                cap,
                left: left.unwrap_or(Money::ZERO),
                kind,
            }
            .into());
        }
        Ok(())
    })
}

/// Asks again for a transfer still in progress, for a short while.
fn poll(s: &Services, related: i64, mut report: TransferReport) -> TransferReport {
    let until = Instant::now() + POLL_FOR;
    while report.state == TransferState::InProgress && Instant::now() < until {
        std::thread::sleep(POLL_EVERY);
        match s.platform.transfer_status(related, &report.id) {
            Ok(r) => report = r,
            Err(e) => {
                tracing::info!(error = %e, "a transfer's status could not be read; it is checked again later");
                break;
            }
        }
    }
    report
}

/// Stores where a transfer stands, both balances, and, once it settled, its history entry and
/// `cabinet_funds` event.
fn record(
    s: &Services,
    id: i64,
    report: &TransferReport,
    kind: CabinetType,
) -> Result<TransferRow, OpsError> {
    Ok(s.db
        .write_blocking(|tx| -> Result<TransferRow, StoreError> {
            let now = clock::now(tx)?;
            let iso = clock::iso(now);
            let next = (report.state == TransferState::InProgress)
                .then(|| clock::iso(now + chrono::Duration::seconds(CHECK_AGAIN_SECONDS)));
            let before =
                transfers::get(tx, id)?.ok_or(StoreError::Corrupt(format!("transfer {id}")))?;
            if before.status != TransferState::InProgress {
                // Settled already (by the settling step meanwhile): recorded once.
                return Ok(before);
            }
            transfers::set_status(
                tx,
                id,
                report.state,
                Some(&report.id),
                report.error.as_deref(),
                &iso,
                next.as_deref(),
            )?;
            let row =
                transfers::get(tx, id)?.ok_or(StoreError::Corrupt(format!("transfer {id}")))?;
            cabinets::set_balance(tx, row.account_id, report.balance, &iso)?;
            cabinets::set_balance(tx, row.main_account_id, report.main_balance, &iso)?;
            let author = match row.user_id {
                Some(u) => Author::person(Source::parse(&row.source).unwrap_or(Source::Api), u),
                None => Author::from(Source::parse(&row.source).unwrap_or(Source::Operator)),
            };
            let details = payload(&row, kind, report);
            let action = match report.state {
                TransferState::InProgress => "funds_pending",
                TransferState::Completed => "funds_moved",
                TransferState::Failed => "funds_failed",
            };
            history::record(tx, row.account_id, 0, &iso, author, action, &details)?;
            if report.state != TransferState::InProgress {
                events::queue_funds(tx, row.account_id, &details)?;
            }
            Ok(row)
        })?)
}

/// A transfer as the `cabinet_funds` event and the history carry it.
pub fn payload(row: &TransferRow, kind: CabinetType, report: &TransferReport) -> Value {
    json!({
        "event": "cabinet_funds",
        "account_id": row.account_id,
        "main_account_id": row.main_account_id,
        "transfer_id": row.id,
        "direction": row.direction.as_str(),
        "amount": render_transfer(kind, row.amount),
        "currency": kind.currency(),
        "status": report.state.as_str(),
        "error": report.error,
        "main_balance": render_transfer(kind, report.main_balance),
        "balance": render_transfer(kind, report.balance),
        "requested_at": row.requested_at,
    })
}

/// A transfer found by its key: as it stands now (the balances as last read).
fn answer(s: &Services, row: TransferRow, kind: CabinetType) -> Result<Moved, OpsError> {
    let (balance, main_balance) = s.db.read_blocking(|c| -> Result<_, StoreError> {
        let b = |id| cabinets::get(c, id).map(|c| c.map_or(Money::ZERO, |c| c.balance));
        Ok((b(row.account_id)?, b(row.main_account_id)?))
    })?;
    Ok(Moved {
        transfer: row,
        kind,
        main_balance,
        balance,
    })
}

/// Checks the transfers left in progress whose time has come: one the platform never answered
/// is sent again with its key (a replay, never a second move); others are read. Returns how
/// many settled.
pub fn settle_pending(s: &Services) -> Result<usize, StoreError> {
    let due = s.db.read_blocking(|c| {
        let now = clock::iso(clock::now(c)?);
        transfers::due(c, &now, SETTLE_BATCH)
    })?;
    let mut settled = 0;
    for row in due {
        let kind =
            s.db.read_blocking(|c| cabinets::get(c, row.account_id))?
                .map_or(CabinetType::Euro, |c| c.cabinet_type);
        let asked = match &row.platform_id {
            Some(pid) => s.platform.transfer_status(row.account_id, pid),
            None => s.platform.transfer(
                row.account_id,
                row.direction,
                row.amount,
                &row.idempotency_key,
            ),
        };
        let report = match asked {
            Ok(r) => r,
            Err(e) => {
                tracing::info!(transfer = row.id, error = %e, "a pending transfer could not be checked");
                s.db.write_blocking(|tx| {
                    let now = clock::now(tx)?;
                    let next = clock::iso(now + chrono::Duration::seconds(CHECK_AGAIN_SECONDS));
                    tx.execute(
                        "UPDATE transfers SET next_check_at = ?2 WHERE id = ?1",
                        rusqlite::params![row.id, next],
                    )?;
                    Ok::<_, StoreError>(())
                })?;
                continue;
            }
        };
        match record(s, row.id, &report, kind) {
            Ok(_) if report.state != TransferState::InProgress => settled += 1,
            Ok(_) => {}
            Err(OpsError::Store(e)) => return Err(e),
            Err(e) => {
                tracing::error!(transfer = row.id, error = ?e, "a pending transfer was not stored")
            }
        }
    }
    Ok(settled)
}

/// Whether a transfer in progress is due for a check at the service clock's now.
pub fn pending_due(conn: &Connection) -> Result<bool, StoreError> {
    let now = clock::iso(clock::now(conn)?);
    Ok(!transfers::due(conn, &now, 1)?.is_empty())
}

/// A page of the cabinet's transactions on the platform.
pub fn transactions(
    s: &Services,
    account: i64,
    cursor: Option<&str>,
    limit: usize,
) -> Result<TransactionPage, OpsError> {
    match s.platform.transactions(account, cursor, limit) {
        Ok(page) => Ok(page),
        Err(PlatformError::Rejected {
            param: Some("cursor"),
            reason,
            ..
        }) => Err(super::bad("cursor", reason)),
        Err(e) => Err(e.into()),
    }
}

/// The cabinet's transfers, newest first.
pub fn transfer_list(s: &Services, account: i64, limit: i64) -> Result<Vec<TransferRow>, OpsError> {
    Ok(s.db.read_blocking(|c| transfers::of_cabinet(c, account, limit))?)
}

/// Options of `admin cabinet create-related`.
#[derive(Debug, Clone, clap::Args)]
pub struct NewRelated {
    /// The agency's main account (a cabinet id).
    #[arg(long)]
    pub main: i64,
    #[arg(long)]
    pub title: String,
    #[arg(long)]
    pub full_name: String,
    #[arg(long)]
    pub email: String,
    #[arg(long)]
    pub phone: String,
    #[arg(long)]
    pub country: String,
    #[arg(long)]
    pub city: String,
    #[arg(long)]
    pub legal_name: Option<String>,
}

/// `admin cabinet create-related`: the new cabinet's id and its main account.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CreatedRelated {
    pub id: i64,
    pub main_account_id: i64,
    pub name: String,
}

/// The operator opens a client cabinet (a repeat of the same command opens the same one).
pub fn create_related(s: &Services, n: &NewRelated) -> Result<CreatedRelated, OpsError> {
    let body = json!({
        "title": n.title, "full_name": n.full_name, "email": n.email,
        "phone_number": n.phone, "country": n.country, "city": n.city,
        "legal_name": n.legal_name,
    });
    let info = RelatedInfo::read(&body)?;
    let token = format!(
        "operator:{}",
        crate::primitives::sha256_hex(&format!("{}:{body}", n.main))
    );
    let by = Opener {
        source: Source::Operator,
        user: None,
    };
    let cabinet = open_related(s, by, n.main, &info, &token)?;
    Ok(CreatedRelated {
        id: cabinet.id,
        main_account_id: n.main,
        name: cabinet.name,
    })
}
