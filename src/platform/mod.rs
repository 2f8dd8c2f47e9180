//! Owns the boundary with the ad platform: the one `Platform` trait through which every
//! platform interaction goes, what a platform can do (`Capabilities`, which the checks of a
//! client's input read), and the values that cross it. Nothing outside this module may know
//! which implementation runs: one factory makes it (`build`) from the platform's sections of
//! the configuration (`config`, each platform owning its own); the built-in simulator lives in
//! `sim`, the connector to the Telegram Ads API in `telegram`; why a platform could not be
//! reached, and what its last call found, in `reach`.
//!
//! Calls are blocking (a remote connector blocks on HTTP; the simulator on SQLite), so callers
//! run them off the async runtime and bound them with a timeout.

mod build;
pub mod config;
mod reach;
pub mod sim;
pub mod telegram;

use std::time::Duration;

use chrono::{DateTime, Utc};

pub use self::build::{build, Built};
pub use self::config::{PlatformConfig, PlatformKind, Sections};
pub use self::reach::{Reach, Unreachable};
pub use crate::domain::ad::{AdCounters, AdDraft, AdEdit, AdSnapshot, AdSpec};
use crate::domain::campaign::TargetType;
pub use crate::domain::capabilities::Capabilities;
pub use crate::domain::dates::Dates;
use crate::domain::funds::{Direction, RelatedInfo, TransferState};
use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
pub use crate::domain::targeting::{CityEntry, PeerEntry};
use crate::domain::time::Month;
use crate::store::StoreError;

/// What switching an ad on or off did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// The status changed.
    Applied,
    /// The platform cannot act yet; the choice is stored in `active` and applies when it can.
    IntentOnly,
    /// The ad was already in the requested state.
    AlreadySet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetOp {
    Add(Money),
    Withdraw(Money),
    WithdrawAll,
}

/// The result of a budget move.
#[derive(Debug, Clone)]
pub struct BudgetMoved {
    pub ad: AdSnapshot,
    /// What actually moved (less than asked when the ad had spent meanwhile).
    pub moved: Money,
    /// The cabinet balance afterwards.
    pub balance: Money,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PlatformError {
    /// The platform could not be reached, or did not answer in time; the cause says which.
    Unreachable(Unreachable),
    /// The platform refused the request as a whole (not the content of it).
    Refused(String),
    /// The platform refused the change; `param` names the field it objects to.
    Rejected {
        reason: String,
        param: Option<&'static str>,
        min_cpm: Option<Money>,
    },
    /// The cabinet's balance cannot cover the money asked for.
    InsufficientBalance,
    NotFound,
    /// This platform has no such operation.
    Unsupported(&'static str),
    /// The platform refused the cabinet's credentials; the cabinet is marked session expired.
    AuthExpired,
    /// The platform asked for calls with this cabinet's credentials to wait this long.
    RateLimited(Duration),
    /// adcab's own disk is full (the simulator keeps its accounts in adcab's database, the
    /// connector its state): nothing was stored.
    StorageFull,
    /// adcab's own database failed during the call: not the platform's answer; the detail is
    /// for the log, not for a client to read.
    Internal(String),
}

impl std::fmt::Display for PlatformError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlatformError::Unreachable(cause) => std::fmt::Display::fmt(cause, f),
            PlatformError::Refused(why) => write!(f, "the platform refused the request: {why}"),
            PlatformError::Rejected { reason, .. } => f.write_str(reason),
            PlatformError::InsufficientBalance => f.write_str("the cabinet balance is too low"),
            PlatformError::NotFound => f.write_str("the platform has no such ad or account"),
            PlatformError::Unsupported(what) => write!(f, "the platform does not support {what}"),
            PlatformError::AuthExpired => {
                f.write_str("the platform refused the cabinet's token; reconnect the cabinet")
            }
            PlatformError::RateLimited(wait) => write!(
                f,
                "the platform asked to wait {} s before the next call",
                wait.as_secs().max(1)
            ),
            PlatformError::StorageFull => {
                f.write_str("the service cannot store changes right now (its disk is full)")
            }
            PlatformError::Internal(_) => f.write_str("the service failed; it was logged"),
        }
    }
}

/// A failure of adcab's own store inside a platform call (the simulator's accounts, the
/// connector's state): a store too busy to answer is a platform that did not answer in time;
/// anything else is the service's own failure (a full disk among them), never a refusal by
/// the platform.
impl PlatformError {
    pub fn store(e: StoreError) -> PlatformError {
        match e {
            StoreError::Busy => PlatformError::Unreachable(Unreachable::Timeout),
            StoreError::Full => PlatformError::StorageFull,
            other => PlatformError::Internal(other.to_string()),
        }
    }
}

/// An account a token opens on a real platform, ready to become a cabinet.
#[derive(Debug, Clone)]
pub struct RemoteAccount {
    /// The platform's own id of the account (opaque).
    pub platform_id: String,
    pub name: String,
    pub kind: CabinetType,
    pub balance: Money,
    /// What the connector calls the account with, sealed: store it as it is.
    pub credential: String,
    /// Ads the account has on the platform now.
    pub ads: i64,
    /// A related account of the token's own (main) account.
    pub related: bool,
}

/// A client (related) account opened under a main account.
#[derive(Debug, Clone)]
pub struct OpenedRelated {
    /// The cabinet id the account has: the simulator numbers accounts as cabinets; a real
    /// platform's account takes the next free cabinet id (`None`).
    pub account: Option<i64>,
    /// Where it lives on a real platform: its id and the sealed credential (the main
    /// account's token, acting on it by `account_id`).
    pub link: Option<(String, String)>,
    pub kind: CabinetType,
    pub name: String,
}

/// A transfer between a main account and a related one, as the platform reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferReport {
    /// The platform's id of the transfer.
    pub id: String,
    pub state: TransferState,
    /// The main account's free balance as of this report.
    pub main_balance: Money,
    /// The related account's free balance as of this report.
    pub balance: Money,
    /// Why it failed, in the platform's words (`NOT_ENOUGH_BUDGET`).
    pub error: Option<String>,
}

/// Who or what is on the other side of an account's transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransactionPeer {
    /// Money from outside the platform (a top-up), with its comment.
    External(Option<String>),
    /// The account's main account.
    MainAccount,
    /// One of a main account's related accounts (its platform id and title).
    Related { account: String, title: String },
    /// One of the account's ads.
    Ad { ad_id: i64, title: String },
    /// A kind of peer adcab does not know yet, by the platform's name for it.
    Other(String),
}

/// One of an account's transactions: negative amounts left the account.
#[derive(Debug, Clone, PartialEq)]
pub struct Transaction {
    pub at: DateTime<Utc>,
    pub amount: Money,
    pub peer: TransactionPeer,
}

/// A page of an account's transactions, newest first, with the cursor of the next page.
#[derive(Debug, Clone, PartialEq)]
pub struct TransactionPage {
    pub total: i64,
    pub items: Vec<Transaction>,
    pub next: Option<String>,
}

/// Everything the service asks of the ad platform.
pub trait Platform: Send + Sync {
    /// What the platform can do: its cabinet types, targets, buttons, media, limits and time
    /// zones. Every check of a client's input reads these, not constants.
    fn capabilities(&self) -> &Capabilities;
    /// The accounts a platform token opens: its own, and with `related` every account it
    /// manages. Only a real platform has tokens.
    fn connect(&self, _token: &str, _related: bool) -> Result<Vec<RemoteAccount>, PlatformError> {
        Err(PlatformError::Unsupported(
            "connecting accounts by token (set platform.kind = \"telegram\")",
        ))
    }
    /// The cities of `country` (ISO code) whose name holds `query`, as the platform numbers
    /// them, looked up with `account`'s credentials where the platform needs them.
    fn cities(
        &self,
        account: Option<i64>,
        country: &str,
        query: &str,
    ) -> Result<Vec<CityEntry>, PlatformError>;
    /// The public channel (`target` channels) or bot (`target` bots) `query` names (`@name`,
    /// `name` or a short link), looked up with `account`'s credentials; `None` when the
    /// platform knows none by that name.
    fn look_up_peer(
        &self,
        account: i64,
        target: TargetType,
        query: &str,
    ) -> Result<Option<PeerEntry>, PlatformError>;
    /// Cabinets the hourly sync may read at once: a remote platform's calls mostly wait on
    /// the network (each token keeps its own pace); a platform in the database overlaps one
    /// cabinet's reads with another's writes.
    fn parallel_reads(&self) -> usize {
        1
    }
    /// What the last call found of the way to the platform (the readiness probe reports it).
    /// A platform inside adcab has no way to it that can fail.
    fn reach(&self) -> Reach {
        Reach::Local
    }
    /// Every ad of the account, deleted ones left out.
    fn list_ads(&self, account: i64) -> Result<Vec<AdSnapshot>, PlatformError>;
    /// Opens (or, for a real platform, connects) an ad account; returns its account id.
    fn open_account(&self, kind: CabinetType, balance: Money) -> Result<i64, PlatformError>;
    /// Sets an account's balance (an operator adjustment; real platforms refuse it).
    fn set_balance(&self, account: i64, balance: Money) -> Result<(), PlatformError>;
    /// The account's balance: money not yet given to campaigns.
    fn balance(&self, account: i64) -> Result<Money, PlatformError>;
    fn create_ad(&self, account: i64, draft: &AdDraft) -> Result<AdSnapshot, PlatformError>;
    fn get_ad(&self, account: i64, ad_id: i64) -> Result<AdSnapshot, PlatformError>;
    /// Reads several ads of one account in one call; ads the platform does not have are left
    /// out.
    fn get_ads(&self, account: i64, ads: &[i64]) -> Result<Vec<AdSnapshot>, PlatformError>;
    /// The status and lifetime counters of every ad of the account as they stood at `at`
    /// (never later than now; a platform that cannot look back reports the present).
    fn report(&self, account: i64, at: DateTime<Utc>) -> Result<Vec<AdCounters>, PlatformError>;
    /// [`Platform::report`] at each of `ends` (hour ends, oldest first): what the hourly sync
    /// stores for the hours it could not reach the platform, so that each keeps its own
    /// delivery. The default asks for one report at each; the connector reads each ad's
    /// five-minute series once, in pages.
    fn reports(
        &self,
        account: i64,
        ends: &[DateTime<Utc>],
    ) -> Result<Vec<Vec<AdCounters>>, PlatformError> {
        ends.iter().map(|at| self.report(account, *at)).collect()
    }
    /// What one 5-minute check of an account with `ads` ads (`active` of them switched on)
    /// costs: the calls it makes and the calls per second its token may make. `None` where a
    /// check makes no calls (the simulator works in the database).
    fn fast_check_cost(&self, _ads: usize, _active: usize) -> Option<(u64, u32)> {
        None
    }
    /// Each ad's delivery in `month` (UTC) as the platform's account report gives it (ads
    /// deleted since included). A platform that keeps no such report (the simulator, whose
    /// figures are adcab's own) has none.
    fn month_report(
        &self,
        _account: i64,
        _month: Month,
    ) -> Result<Vec<(i64, Totals)>, PlatformError> {
        Err(PlatformError::Unsupported("a monthly account report"))
    }
    /// Opens a client (related) account under the main account `main`, with `info`. `key`
    /// makes a repeat harmless: the same key opens nothing again and reports the first account.
    fn open_related(
        &self,
        _main: i64,
        _info: &RelatedInfo,
        _key: &str,
    ) -> Result<OpenedRelated, PlatformError> {
        Err(PlatformError::Unsupported("client accounts"))
    }
    /// Moves `amount` between the related account `related` and its main account (`In`: into
    /// the related one). `key` makes a repeat harmless: the same key moves nothing again and
    /// reports the first transfer. The transfer may still be in progress.
    fn transfer(
        &self,
        _related: i64,
        _direction: Direction,
        _amount: Money,
        _key: &str,
    ) -> Result<TransferReport, PlatformError> {
        Err(PlatformError::Unsupported("moving money between accounts"))
    }
    /// Where the transfer `id` of the related account `related` stands now.
    fn transfer_status(&self, _related: i64, _id: &str) -> Result<TransferReport, PlatformError> {
        Err(PlatformError::Unsupported("moving money between accounts"))
    }
    /// A page of the account's transactions (top-ups, transfers, refunds), newest first:
    /// from the start, or from the platform's `cursor`; at most `limit`.
    fn transactions(
        &self,
        _account: i64,
        _cursor: Option<&str>,
        _limit: usize,
    ) -> Result<TransactionPage, PlatformError> {
        Err(PlatformError::Unsupported("an account's transactions"))
    }
    /// Changes an ad's settings; review fields send it back to review.
    fn edit_ad(&self, account: i64, ad_id: i64, edit: &AdEdit)
        -> Result<AdSnapshot, PlatformError>;
    /// Switches an ad on or off. Switching off clears the ad's dates on the platform;
    /// switching on sends `dates` (as adcab keeps them, a start already passed left out) again.
    fn switch_ad(
        &self,
        account: i64,
        ad_id: i64,
        active: bool,
        dates: Dates,
    ) -> Result<(AdSnapshot, Switch), PlatformError>;
    /// Moves money between the ad and its own cabinet. `token` makes a repeat harmless: the
    /// same token moves nothing again and reports the first result.
    fn move_budget(
        &self,
        account: i64,
        ad_id: i64,
        op: BudgetOp,
        token: &str,
    ) -> Result<BudgetMoved, PlatformError>;
    /// Deletes an ad; its budget returns to the cabinet. Returns true when the ad never ran
    /// and is removed outright, false when it stays as `Deleted`. `token` makes a repeat
    /// harmless: the same token (a bulk item resumed after a crash) reports the first result
    /// instead of "no such ad".
    fn delete_ad(&self, account: i64, ad_id: i64, token: &str) -> Result<bool, PlatformError>;
    /// Hands an uploaded file (typed by its bytes, kept at `file`) to the account's ad form;
    /// returns the platform's reference to it, when it keeps one.
    fn upload_media(
        &self,
        account: i64,
        media_type: &str,
        file: &std::path::Path,
    ) -> Result<Option<String>, PlatformError>;
}
