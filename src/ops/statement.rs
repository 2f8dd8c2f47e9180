//! Owns a cabinet's monthly statement, built once for every face: for one calendar month in
//! UTC (the platform's account report is by UTC month), the opening balance, every move of the
//! free balance inside the month, the spend per campaign with the agency's fee as its own line,
//! the closing balance, and where the platform keeps a monthly account report, the month
//! reconciled with it. Read only; whoever reaches the cabinet may read it (a [`Reader`]).
//!
//! The reading: "balance" is the platform's free balance (`remaining_budget`, what
//! `Platform::balance` reads). The platform's ledger (`Platform::transactions`, newest first)
//! lists every move of it: transfers with the main account, outside top-ups, money into and
//! back from ads' budgets. So the balance is read now, the ledger paged back until an item is
//! older than the month's start (at most [`MAX_PAGES`] pages of [`PAGE`]; a longer walk is
//! refused), and closing = balance now − the items at or after the month's end, opening =
//! closing − the items inside the month. The current month is "so far": it closes now. A
//! platform without a ledger still gives the spend, the fee and adcab's own transfers, the
//! balances unknown. Spend is adcab's stored hours (`store::reconcile::of_ads`); a platform
//! failure while reconciling is shown as "could not be reconciled" (logged), never raw.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Utc};

use super::reconcile::{cabinet_reconcile, Difference};
use super::reports::{Fee, Reader};
use super::{bad, OpsError};
use crate::clock;
use crate::domain::funds::Direction;
use crate::domain::money::{CabinetType, Money};
use crate::domain::time::{Month, NotAMonth};
use crate::platform::{PlatformError, Transaction, TransactionPeer};
use crate::services::Services;
use crate::store::{cabinets, reconcile, reports as report_rows, transfers, StoreError};

/// Ledger items asked for per page.
pub const PAGE: usize = 100;
/// Pages of the ledger a statement reads at most; a month further back is refused.
pub const MAX_PAGES: usize = 100;

/// What a line of the ledger is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LineKind {
    /// Money from the main account (or, on a main account, back from a client's).
    TransferIn,
    /// Money to the main account (or, on a main account, to a client's).
    TransferOut,
    /// Money from outside the platform.
    TopUp,
    /// Money into a campaign's budget.
    ToCampaign,
    /// Money back from a campaign's budget.
    FromCampaign,
    /// Anything else the platform booked (money back to outside, a peer adcab does not know).
    Other,
}

impl LineKind {
    pub const ALL: [LineKind; 6] = [
        LineKind::TransferIn,
        LineKind::TransferOut,
        LineKind::TopUp,
        LineKind::ToCampaign,
        LineKind::FromCampaign,
        LineKind::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::TransferIn => "transfer_in",
            LineKind::TransferOut => "transfer_out",
            LineKind::TopUp => "top_up",
            LineKind::ToCampaign => "to_campaign",
            LineKind::FromCampaign => "from_campaign",
            LineKind::Other => "other",
        }
    }

    /// The kind of a ledger item by its peer and sign.
    fn of(peer: &TransactionPeer, amount: Money) -> LineKind {
        let into = amount.micros() > 0;
        match peer {
            TransactionPeer::MainAccount | TransactionPeer::Related { .. } if into => {
                LineKind::TransferIn
            }
            TransactionPeer::MainAccount | TransactionPeer::Related { .. } => LineKind::TransferOut,
            TransactionPeer::External(_) if into => LineKind::TopUp,
            TransactionPeer::Ad { .. } if into => LineKind::FromCampaign,
            TransactionPeer::Ad { .. } => LineKind::ToCampaign,
            TransactionPeer::External(_) | TransactionPeer::Other(_) => LineKind::Other,
        }
    }
}

/// The other side of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    /// The cabinet's main account.
    MainAccount,
    /// Another account, by its title.
    Account(String),
    /// A campaign of the cabinet, with its title (adcab's when the platform gave none).
    Campaign { ad_id: i64, title: String },
    /// Outside the platform, with the platform's comment.
    Outside(Option<String>),
    /// A peer adcab does not know, by the platform's name for it.
    Unknown(String),
}

/// One move of the free balance inside the month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub at: DateTime<Utc>,
    pub kind: LineKind,
    /// Signed: negative left the balance.
    pub amount: Money,
    pub peer: Peer,
}

/// Where the lines came from, and so whether the balances are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The platform's ledger: every move, the balances known.
    Ledger { opening: Money, closing: Money },
    /// The platform keeps no ledger: only adcab's own transfers, the balances unknown.
    TransfersOnly,
}

/// One campaign's spend in the month, as adcab stored it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignSpend {
    pub ad_id: i64,
    pub title: String,
    pub spent: Money,
}

/// One difference between adcab's stored month and the platform's account report.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub title: String,
    pub difference: Difference,
}

/// The month against the platform's monthly account report.
#[derive(Debug, Clone)]
pub enum Reconciliation {
    /// Compared: the differences (none when the month agrees).
    Compared(Vec<Mismatch>),
    /// The platform keeps no monthly account report (the simulator: its figures are adcab's).
    NoReport,
    /// The platform failed while asked; the cause is in the log.
    Failed,
}

/// A cabinet's statement of one month.
#[derive(Debug, Clone)]
pub struct Statement {
    pub account_id: i64,
    pub cabinet_name: String,
    pub kind: CabinetType,
    pub month: Month,
    /// The month's first instant, and its end: the next month's first instant, or now for the
    /// month under way.
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub so_far: bool,
    pub source: Source,
    /// Oldest first.
    pub lines: Vec<Line>,
    /// The lines' sum per kind, every kind in [`LineKind::ALL`]'s order.
    pub totals: Vec<(LineKind, Money)>,
    /// Most spent first.
    pub campaigns: Vec<CampaignSpend>,
    pub spend: Money,
    /// Set when the cabinet has a fee in the agency's terms.
    pub fee: Option<Fee>,
    pub reconciliation: Reconciliation,
}

impl Statement {
    /// The opening and closing balances, when the platform's ledger gave them.
    pub fn balances(&self) -> Option<(Money, Money)> {
        match self.source {
            Source::Ledger { opening, closing } => Some((opening, closing)),
            Source::TransfersOnly => None,
        }
    }
}

/// The month `text` names (`YYYY-MM`), or without one the last whole month before `now`.
pub fn month_of(text: Option<&str>, now: DateTime<Utc>) -> Result<Month, OpsError> {
    match text {
        Some(text) => text
            .parse()
            .map_err(|e: NotAMonth| bad("month", e.to_string())),
        None => Ok(last_whole_month(now)),
    }
}

/// The month before the one `now` is in.
pub fn last_whole_month(now: DateTime<Utc>) -> Month {
    let (year, month) = match now.month() {
        1 => (now.year() - 1, 12),
        m => (now.year(), m - 1),
    };
    Month { year, month }
}

fn overflow() -> OpsError {
    OpsError::Internal("a statement's sum passed the money range".into())
}

// Ledger sums are signed (money out is negative), so they are checked on the micro-units
// rather than through `Money`'s own, which keeps to 0..=MAX.
fn add(a: Money, b: Money) -> Result<Money, OpsError> {
    a.micros()
        .checked_add(b.micros())
        .map(Money::from_micros)
        .ok_or_else(overflow)
}

fn sub(a: Money, b: Money) -> Result<Money, OpsError> {
    a.micros()
        .checked_sub(b.micros())
        .map(Money::from_micros)
        .ok_or_else(overflow)
}

/// The reader's cabinet's statement of `month`. Blocking: it asks the platform.
pub fn statement(s: &Services, reader: &Reader, month: Month) -> Result<Statement, OpsError> {
    let cabinet = reader.cabinet().clone();
    let account = cabinet.id;
    let now = s.db.read_blocking(clock::now)?;
    if month.start() > now {
        return Err(bad("month", format!("{month} has not begun")));
    }
    let so_far = month.end() > now;
    let (from, to) = (month.start(), month.end().min(now));

    let (titles, stored, terms) = s.db.read_blocking(|c| {
        let (a, b) = (clock::iso(month.start()), clock::iso(month.end()));
        Ok::<_, StoreError>((
            report_rows::campaigns(c, account)?
                .into_iter()
                .map(|(ad, title, _)| (ad, title))
                .collect::<BTreeMap<i64, String>>(),
            reconcile::of_ads(c, account, &a, &b)?,
            cabinets::terms(c, account)?,
        ))
    })?;
    let title_of = |ad: i64| titles.get(&ad).cloned().unwrap_or_default();

    let (source, lines) = match walk(s, account, month)? {
        Some(w) => {
            let lines = w
                .inside
                .into_iter()
                .rev()
                .map(|t| line(t, &title_of))
                .collect();
            (w.source, lines)
        }
        None => (
            Source::TransfersOnly,
            own_transfers(s, account, month.start(), month.end())?,
        ),
    };
    let mut totals = Vec::with_capacity(LineKind::ALL.len());
    for kind in LineKind::ALL {
        let mut sum = Money::ZERO;
        for l in lines.iter().filter(|l| l.kind == kind) {
            sum = add(sum, l.amount)?;
        }
        totals.push((kind, sum));
    }

    let mut campaigns = Vec::with_capacity(stored.len());
    let mut spend = Money::ZERO;
    for (ad, t) in &stored {
        spend = add(spend, t.spent)?;
        campaigns.push(CampaignSpend {
            ad_id: *ad,
            title: title_of(*ad),
            spent: t.spent,
        });
    }
    campaigns.sort_by(|a, b| b.spent.cmp(&a.spent).then(a.ad_id.cmp(&b.ad_id)));
    let kind = cabinet.cabinet_type;
    let fee = terms
        .and_then(|t| t.fee)
        .map(|fee| Fee::on(spend.to_decimal(), fee, kind.scale()));

    let reconciliation = match cabinet_reconcile(s, account, month, false) {
        Ok(r) => Reconciliation::Compared(
            r.differences
                .into_iter()
                .map(|d| Mismatch {
                    title: title_of(d.ad_id),
                    difference: d,
                })
                .collect(),
        ),
        Err(OpsError::Platform(PlatformError::Unsupported(_))) => Reconciliation::NoReport,
        Err(OpsError::Platform(e)) => {
            tracing::warn!(account, %month, error = ?e, "a statement's month could not be reconciled");
            Reconciliation::Failed
        }
        Err(e) => return Err(e),
    };

    Ok(Statement {
        account_id: account,
        cabinet_name: cabinet.name,
        kind,
        month,
        from,
        to,
        so_far,
        source,
        lines,
        totals,
        campaigns,
        spend,
        fee,
        reconciliation,
    })
}

/// What the walk back through the ledger found: the month's items (newest first) and the
/// balances.
struct Walk {
    inside: Vec<Transaction>,
    source: Source,
}

/// Pages the platform's ledger back past the month's start; `None` when the platform keeps no
/// ledger. The first page is read before the balance, so a transfer the platform settles on
/// reading its ledger is in both.
fn walk(s: &Services, account: i64, month: Month) -> Result<Option<Walk>, OpsError> {
    let (start, end) = (month.start(), month.end());
    let mut after = Money::ZERO;
    let mut inside = Vec::new();
    let mut cursor: Option<String> = None;
    let mut balance = None;
    for _ in 0..MAX_PAGES {
        let page = match s.platform.transactions(account, cursor.as_deref(), PAGE) {
            Ok(page) => page,
            Err(PlatformError::Unsupported(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let now = match balance {
            Some(b) => b,
            None => *balance.insert(s.platform.balance(account)?),
        };
        let mut past_start = false;
        for item in page.items {
            if item.at >= end {
                after = add(after, item.amount)?;
            } else if item.at >= start {
                inside.push(item);
            } else {
                past_start = true;
                break;
            }
        }
        match page.next {
            Some(next) if !past_start => cursor = Some(next),
            Some(_) | None => {
                let closing = sub(now, after)?;
                let mut moved = Money::ZERO;
                for t in &inside {
                    moved = add(moved, t.amount)?;
                }
                let opening = sub(closing, moved)?;
                return Ok(Some(Walk {
                    inside,
                    source: Source::Ledger { opening, closing },
                }));
            }
        }
    }
    Err(bad(
        "month",
        format!(
            "the platform's ledger is longer than {} items back to {month}; a statement this far back cannot be read",
            PAGE * MAX_PAGES
        ),
    ))
}

fn line(t: Transaction, title_of: &impl Fn(i64) -> String) -> Line {
    let kind = LineKind::of(&t.peer, t.amount);
    let peer = match t.peer {
        TransactionPeer::MainAccount => Peer::MainAccount,
        TransactionPeer::Related { title, .. } => Peer::Account(title),
        TransactionPeer::Ad { ad_id, title } => Peer::Campaign {
            ad_id,
            title: if title.is_empty() {
                title_of(ad_id)
            } else {
                title
            },
        },
        TransactionPeer::External(comment) => Peer::Outside(comment),
        TransactionPeer::Other(name) => Peer::Unknown(name),
    };
    Line {
        at: t.at,
        kind,
        amount: t.amount,
        peer,
    }
}

/// adcab's own completed transfers touching the cabinet in `[from, to)`, as lines.
fn own_transfers(
    s: &Services,
    account: i64,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<Line>, OpsError> {
    let (a, b) = (clock::iso(from), clock::iso(to));
    let rows = s.db.read_blocking(|c| {
        let rows = transfers::settled_between(c, account, &a, &b)?;
        let mut named = Vec::with_capacity(rows.len());
        for row in rows {
            let other = match row.account_id == account {
                true => None,
                false => cabinets::get(c, row.account_id)?.map(|c| c.name),
            };
            named.push((row, other));
        }
        Ok::<_, StoreError>(named)
    })?;
    let mut lines = Vec::with_capacity(rows.len());
    for (row, other) in rows {
        // As the client cabinet, `in` brings money; as the main account, `in` takes it.
        let into = (row.direction == Direction::In) == (row.account_id == account);
        let amount = match into {
            true => row.amount,
            false => sub(Money::ZERO, row.amount)?,
        };
        let at = row
            .settled_at
            .as_deref()
            .and_then(clock::parse_iso)
            .or_else(|| clock::parse_iso(&row.requested_at))
            .ok_or_else(|| StoreError::Corrupt(format!("transfer {} time", row.id)))?;
        lines.push(Line {
            at,
            kind: if into {
                LineKind::TransferIn
            } else {
                LineKind::TransferOut
            },
            amount,
            peer: match other {
                Some(name) => Peer::Account(name),
                None => Peer::MainAccount,
            },
        });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_month_is_the_last_whole_one() {
        let at = |t: &str| clock::parse_iso(t).unwrap();
        let m = month_of(None, at("2026-01-15T10:00:00Z")).unwrap();
        assert_eq!(m.to_string(), "2025-12");
        let m = month_of(None, at("2026-11-01T00:00:00Z")).unwrap();
        assert_eq!(m.to_string(), "2026-10");
        let e = month_of(Some("2026-13"), at("2026-11-01T00:00:00Z")).unwrap_err();
        assert_eq!(e.param(), Some("month"));
    }

    #[test]
    fn a_ledger_items_kind_follows_its_peer_and_sign() {
        let m = Money::from_micros;
        let ad = TransactionPeer::Ad {
            ad_id: 1,
            title: String::new(),
        };
        assert_eq!(LineKind::of(&ad, m(-5)), LineKind::ToCampaign);
        assert_eq!(LineKind::of(&ad, m(5)), LineKind::FromCampaign);
        assert_eq!(
            LineKind::of(&TransactionPeer::MainAccount, m(5)),
            LineKind::TransferIn
        );
        assert_eq!(
            LineKind::of(&TransactionPeer::MainAccount, m(-5)),
            LineKind::TransferOut
        );
        assert_eq!(
            LineKind::of(&TransactionPeer::External(None), m(5)),
            LineKind::TopUp
        );
        assert_eq!(
            LineKind::of(&TransactionPeer::External(None), m(-5)),
            LineKind::Other
        );
        assert_eq!(
            LineKind::of(&TransactionPeer::Other("x".into()), m(5)),
            LineKind::Other
        );
    }
}
