//! Owns the connector to Telegram's official Ads API: the second implementation of
//! `Platform`. Each cabinet is reached with its sealed token (its own, or its main account's
//! with `account_id`); money and creates carry idempotency keys derived from adcab's own
//! operation tokens; the platform's refusals become the spec's errors with a sentence saying
//! what to do. The wire is in `wire`; why a call did not reach the platform in `transport`;
//! the shapes in `map` and `schedule`; reads in `reads`; what a token opens in `connect`;
//! error mapping in `errors`; agency money in `funds`; idempotency keys in `keys`; the hourly report in `report`; targets as the platform knows them in `resolve`; the platform's HTML for people (a
//! decline's explanation) as plain text in `html`; the connector's own tables in `state`; what
//! the platform can do in `capabilities`; its section of the configuration in `config`.

mod capabilities;
mod config;
mod connect;
mod errors;
mod funds;
mod html;
mod keys;
mod map;
mod reads;
mod report;
mod resolve;
mod schedule;
mod state;
mod target;
mod transport;
mod wire;

pub use capabilities::{CAPABILITIES, SPEC_KEYWORDS, SPEC_MEDIA, SPEC_MEDIA_TARGETS};
pub use config::TelegramConfig;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use self::errors::{refusal, rejected, unsendable};
use self::keys::operation_key;
use self::wire::{Call, Upload, Wire, WireError};
use super::{
    AdCounters, AdDraft, AdEdit, AdSnapshot, BudgetMoved, BudgetOp, Capabilities, CityEntry,
    OpenedRelated, PeerEntry, Platform, PlatformError, Reach, RemoteAccount, Switch,
    TransactionPage, TransferReport,
};
use crate::clock;
use crate::db::Db;
use crate::domain::campaign::TargetType;
use crate::domain::dates::Dates;
use crate::domain::funds::{Direction, RelatedInfo};
use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
use crate::domain::targeting::keyword_usable;
use crate::domain::time::Month;
use crate::primitives::random_hex;
use crate::secret::Secrets;
use crate::store::{cabinets, media};

/// Ads per `getAdsList` page, the platform's largest.
const PAGE: usize = 100;
/// Pages read at most for one account (100,000 ads), so a platform that keeps handing out
/// cursors cannot hold a sync forever.
const MAX_PAGES: usize = 1_000;
/// Ads per `getAdsById` call.
const BY_ID: usize = 100;
/// Cabinets the hourly sync reads at once (calls with one token still keep that token's pace).
const PARALLEL_SYNCS: usize = 8;

/// What a stored credential holds, sealed.
#[derive(Serialize, Deserialize)]
struct Credential {
    token: String,
    /// The token is the main account's: calls name this account with `account_id`.
    via_main: bool,
}

/// A cabinet as the connector calls it.
struct Account {
    id: i64,
    platform_id: String,
    token: String,
    via_main: bool,
    kind: CabinetType,
}

impl Account {
    /// `params` with `account_id` when the account is reached through its main account.
    fn scoped(&self, mut params: Map<String, Value>) -> Map<String, Value> {
        if self.via_main {
            params.insert("account_id".into(), json!(self.platform_id));
        }
        params
    }
}

pub struct Telegram {
    db: Db,
    wire: Wire,
    key_file: PathBuf,
    secrets: OnceLock<Secrets>,
    /// Each token's pace (`[telegram] calls_per_second`).
    calls_per_second: u32,
}

impl Telegram {
    pub fn new(db: Db, config: &TelegramConfig, key_file: PathBuf) -> Telegram {
        Telegram {
            db,
            wire: Wire::new(
                &config.api_url,
                Duration::from_millis(config.timeout_ms),
                config.calls_per_second,
            ),
            key_file,
            secrets: OnceLock::new(),
            calls_per_second: config.calls_per_second,
        }
    }

    /// The key tokens are sealed with, loaded (or created) the first time it is needed.
    fn secrets(&self) -> Result<&Secrets, PlatformError> {
        if let Some(s) = self.secrets.get() {
            return Ok(s);
        }
        let loaded = Secrets::load(&self.key_file, true)
            .map_err(|e| PlatformError::Refused(e.to_string()))?;
        Ok(self.secrets.get_or_init(|| loaded))
    }

    fn account(&self, id: i64) -> Result<Account, PlatformError> {
        let link = self
            .db
            .read_blocking(|c| cabinets::connection(c, id))
            .map_err(PlatformError::store)?
            .ok_or(PlatformError::NotFound)?;
        let kind = link.kind;
        let (Some(platform_id), Some(sealed)) = (link.platform_id, link.credential) else {
            return Err(PlatformError::Refused(format!(
                "cabinet {id} is not connected to the Telegram Ads API; connect it with `adcab admin cabinet connect`"
            )));
        };
        let credential: Credential = self
            .secrets()?
            .open(&sealed)
            .and_then(|plain| serde_json::from_str(&plain).ok())
            .ok_or_else(|| {
                PlatformError::Refused(format!(
                    "cabinet {id}'s token cannot be opened with this secret key; reconnect the cabinet"
                ))
            })?;
        Ok(Account {
            id,
            platform_id,
            token: credential.token,
            via_main: credential.via_main,
            kind,
        })
    }

    /// One call for a cabinet. A refused token marks the cabinet's session expired; an
    /// answer the platform replays for a key (a retry of an operation that already ran) is
    /// logged.
    fn call(&self, account: &Account, call: &Call) -> Result<Value, PlatformError> {
        match self.wire.call(&account.token, call) {
            Ok((value, replayed)) => {
                if replayed {
                    tracing::info!(
                        account = account.id,
                        method = call.method,
                        "the platform answered a repeated operation from its record"
                    );
                }
                Ok(value)
            }
            Err(e) => Err(self.failed(account, e)?),
        }
    }

    /// The platform's error for a failed call; a refused token first marks the cabinet's
    /// session expired.
    fn failed(&self, account: &Account, e: WireError) -> Result<PlatformError, PlatformError> {
        if let WireError::Auth(code) = &e {
            tracing::warn!(
                account = account.id,
                code,
                "the platform refused the cabinet's token; marking its session expired"
            );
            self.db
                .write_blocking(|tx| cabinets::set_auth_expired(tx, account.id, true))
                .map_err(PlatformError::store)?;
        }
        Ok(refusal(e))
    }

    fn now_iso(&self) -> Result<String, PlatformError> {
        let now = self
            .db
            .read_blocking(clock::now)
            .map_err(PlatformError::store)?;
        Ok(clock::iso(now))
    }

    /// The platform's media id for one of the cabinet's upload tokens.
    fn media_param(
        &self,
        account: &Account,
        token: Option<&str>,
    ) -> Result<Option<(&'static str, String)>, PlatformError> {
        let Some(token) = token else {
            return Ok(None);
        };
        let found = self
            .db
            .read_blocking(|c| media::platform_ref(c, account.id, token))
            .map_err(PlatformError::store)?;
        match found {
            Some((id, media_type)) => Ok(Some((map::media_field(&media_type), id))),
            None => Err(PlatformError::Rejected {
                reason: "This media was not uploaded to the platform for this cabinet; upload it again with POST /v1/media.".into(),
                param: Some("media"),
                min_cpm: None,
            }),
        }
    }

    /// Submits an unsubmitted ad that has budget, so that it reads `In Review`.
    fn submit_if_ready(&self, account: &Account, ad: Value) -> Result<Value, PlatformError> {
        let ready = ad["status"].as_str() == Some("ready_for_review")
            && map::money(&ad["remaining_budget"]).is_some_and(|m| m.micros() > 0);
        if !ready {
            return Ok(ad);
        }
        let params = account.scoped(map(json!({ "ad_id": ad["ad_id"], "return_target": true })));
        self.call(account, &Call::once("submitAdForReview", params))
    }
}

impl Platform for Telegram {
    fn capabilities(&self) -> &Capabilities {
        &CAPABILITIES
    }

    fn connect(&self, token: &str, related: bool) -> Result<Vec<RemoteAccount>, PlatformError> {
        self.accounts_of(token, related)
    }

    fn parallel_reads(&self) -> usize {
        PARALLEL_SYNCS
    }

    /// `getAdsList` in pages of [`PAGE`], and one `getAdStats` read of each ad whose counters
    /// may have moved (the ads switched on).
    fn fast_check_cost(&self, ads: usize, active: usize) -> Option<(u64, u32)> {
        let pages = ads.div_ceil(PAGE).max(1);
        let calls = u64::try_from(pages.saturating_add(active)).unwrap_or(u64::MAX);
        Some((calls, self.calls_per_second))
    }

    fn reach(&self) -> Reach {
        self.wire.reach()
    }

    fn list_ads(&self, account: i64) -> Result<Vec<AdSnapshot>, PlatformError> {
        let account = self.account(account)?;
        self.all_ads(&account, true)?
            .iter()
            .map(|ad| self.to_snapshot(&account, ad))
            .collect()
    }

    fn open_account(&self, _kind: CabinetType, _balance: Money) -> Result<i64, PlatformError> {
        Err(PlatformError::Unsupported(
            "adding cabinets by hand; connect an account with `adcab admin cabinet connect`",
        ))
    }

    fn open_related(
        &self,
        main: i64,
        info: &RelatedInfo,
        key: &str,
    ) -> Result<OpenedRelated, PlatformError> {
        self.open_related_of(main, info, key)
    }

    fn transfer(
        &self,
        related: i64,
        direction: Direction,
        amount: Money,
        key: &str,
    ) -> Result<TransferReport, PlatformError> {
        self.transfer_of(related, direction, amount, key)
    }

    fn transfer_status(&self, related: i64, id: &str) -> Result<TransferReport, PlatformError> {
        self.transfer_status_of(related, id)
    }

    fn transactions(
        &self,
        account: i64,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<TransactionPage, PlatformError> {
        self.transactions_of(account, cursor, limit)
    }

    fn set_balance(&self, _account: i64, _balance: Money) -> Result<(), PlatformError> {
        Err(PlatformError::Unsupported(
            "setting a balance; top the account up on the platform",
        ))
    }

    fn balance(&self, account: i64) -> Result<Money, PlatformError> {
        let account = self.account(account)?;
        self.balance_of(&account)
    }

    fn cities(
        &self,
        account: Option<i64>,
        country: &str,
        query: &str,
    ) -> Result<Vec<CityEntry>, PlatformError> {
        let account = account.ok_or(PlatformError::Unsupported(
            "looking up cities without a cabinet; the key reaches none",
        ))?;
        let account = self.account(account)?;
        self.look_up_cities(&account, country, query)
    }

    fn look_up_peer(
        &self,
        account: i64,
        target: TargetType,
        query: &str,
    ) -> Result<Option<PeerEntry>, PlatformError> {
        let account = self.account(account)?;
        self.look_up_peer_of(&account, target, query)
    }

    fn create_ad(&self, account: i64, draft: &AdDraft) -> Result<AdSnapshot, PlatformError> {
        let account = self.account(account)?;
        let spec = &draft.spec;
        let resolved = self.resolve(&account, spec.target_type, &spec.targeting)?;
        let peers = &resolved.peers;
        let asked = |field: &str| {
            spec.targeting[field]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default()
        };
        match spec.target_type {
            TargetType::Channels | TargetType::Bots if peers.is_empty() => {
                let field = spec.target_type.as_str();
                return Err(rejected(
                    format!("No targets found: {}", asked(field)),
                    field,
                ));
            }
            _ => {}
        }
        let mut draft = draft.clone();
        if spec.target_type == TargetType::Search {
            let keywords: Vec<&str> = spec.targeting["search_keywords"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|k| keyword_usable(k))
                .collect();
            if keywords.is_empty() {
                return Err(rejected("No valid search queries found", "search_keywords"));
            }
            draft.spec.targeting["search_keywords"] = json!(keywords);
        }
        let media = self.media_param(&account, draft.spec.media_token.as_deref())?;
        let mut params = map::create_params(
            account.kind,
            &draft,
            &resolved,
            media.as_ref().map(|(f, id)| (*f, id.as_str())),
        )
        .map_err(unsendable)?;
        params.insert("return_target".into(), json!(true));
        let key = match &draft.client_ref {
            Some(r) => operation_key("create", account.id, r),
            None => random_hex(16),
        };
        let ad = self.call(
            &account,
            &Call::keyed("createAd", account.scoped(params), key),
        )?;
        self.to_snapshot(&account, &ad)
    }

    fn get_ad(&self, account: i64, ad_id: i64) -> Result<AdSnapshot, PlatformError> {
        let account = self.account(account)?;
        let ad = self.ad_by_id(&account, ad_id)?;
        self.to_snapshot(&account, &ad)
    }

    fn get_ads(&self, account: i64, ads: &[i64]) -> Result<Vec<AdSnapshot>, PlatformError> {
        let account = self.account(account)?;
        self.ads_by_id(&account, ads)?
            .iter()
            .map(|ad| self.to_snapshot(&account, ad))
            .collect()
    }

    fn report(&self, account: i64, at: DateTime<Utc>) -> Result<Vec<AdCounters>, PlatformError> {
        let account = self.account(account)?;
        let mut reports = report::reports(self, &account, &[at])?;
        Ok(reports.pop().unwrap_or_default())
    }

    fn reports(
        &self,
        account: i64,
        ends: &[DateTime<Utc>],
    ) -> Result<Vec<Vec<AdCounters>>, PlatformError> {
        let account = self.account(account)?;
        report::reports(self, &account, ends)
    }

    fn month_report(
        &self,
        account: i64,
        month: Month,
    ) -> Result<Vec<(i64, Totals)>, PlatformError> {
        let account = self.account(account)?;
        report::month_report(self, &account, month)
    }

    fn edit_ad(
        &self,
        account: i64,
        ad_id: i64,
        edit: &AdEdit,
    ) -> Result<AdSnapshot, PlatformError> {
        let account = self.account(account)?;
        let media = match &edit.media {
            Some((token, _)) => self.media_param(&account, Some(token))?,
            None => None,
        };
        let mut params = map::edit_params(
            account.kind,
            edit,
            media.as_ref().map(|(f, id)| (*f, id.as_str())),
        )
        .map_err(unsendable)?;
        if params.is_empty() && edit.dates.is_none() {
            return self.get_ad(account.id, ad_id);
        }
        if edit
            .dates
            .is_some_and(|d| d.starts_at.is_none() || d.ends_at.is_none())
        {
            // The API has no way to remove one date; `is_paused` clears both (§9.2), and is
            // sent only to a running campaign (adcab holds a paused one's dates itself).
            let clear = account.scoped(map(json!({ "ad_id": ad_id, "is_paused": false })));
            let cleared = self.call(&account, &Call::read("editAd", clear))?;
            if params.is_empty() {
                return self.to_snapshot(&account, &cleared);
            }
        }
        params.insert("ad_id".into(), json!(ad_id));
        params.insert("return_target".into(), json!(true));
        let ad = self.call(&account, &Call::read("editAd", account.scoped(params)))?;
        let ad = self.submit_if_ready(&account, ad)?;
        self.to_snapshot(&account, &ad)
    }

    fn switch_ad(
        &self,
        account: i64,
        ad_id: i64,
        active: bool,
        dates: Dates,
    ) -> Result<(AdSnapshot, Switch), PlatformError> {
        let account = self.account(account)?;
        let before = self.ad_by_id(&account, ad_id)?;
        let paused = before["is_paused"].as_bool().unwrap_or(false);
        if paused != active {
            return Ok((self.to_snapshot(&account, &before)?, Switch::AlreadySet));
        }
        let mut params = map(json!({
            "ad_id": ad_id, "is_paused": !active, "return_target": true
        }));
        if active {
            // The pause cleared the platform's dates; adcab sends its own again.
            map::put_dates(&mut params, dates);
        }
        let params = account.scoped(params);
        let after = self.call(&account, &Call::read("editAd", params))?;
        let outcome = if after["status"] != before["status"] {
            Switch::Applied
        } else {
            Switch::IntentOnly
        };
        Ok((self.to_snapshot(&account, &after)?, outcome))
    }

    fn move_budget(
        &self,
        account: i64,
        ad_id: i64,
        op: BudgetOp,
        token: &str,
    ) -> Result<BudgetMoved, PlatformError> {
        let account = self.account(account)?;
        let before = self.ad_by_id(&account, ad_id)?;
        let remaining = map::money(&before["remaining_budget"]).unwrap_or(Money::ZERO);
        let (method, amount) = match op {
            BudgetOp::Add(amount) => ("increaseAdBudget", amount),
            BudgetOp::Withdraw(amount) => ("decreaseAdBudget", amount.min(remaining)),
            BudgetOp::WithdrawAll => ("decreaseAdBudget", remaining),
        };
        let ad = if amount.micros() == 0 {
            before
        } else {
            let params = account.scoped(map(json!({
                "ad_id": ad_id,
                "amount": map::number(amount, account.kind.scale()),
                "return_target": true,
            })));
            let key = operation_key("budget", account.id, token);
            let ad = self.call(&account, &Call::keyed(method, params, key))?;
            self.submit_if_ready(&account, ad)?
        };
        Ok(BudgetMoved {
            ad: self.to_snapshot(&account, &ad)?,
            moved: amount,
            balance: self.balance_of(&account)?,
        })
    }

    fn delete_ad(&self, account: i64, ad_id: i64, token: &str) -> Result<bool, PlatformError> {
        let account = self.account(account)?;
        let recorded = self
            .db
            .read_blocking(|c| state::recorded_delete(c, token, account.id, ad_id))
            .map_err(PlatformError::store)?;
        let ad = match self.ad_by_id(&account, ad_id) {
            Ok(ad) => ad,
            Err(PlatformError::NotFound) => return recorded.ok_or(PlatformError::NotFound),
            Err(e) => return Err(e),
        };
        if ad["status"].as_str() == Some("active") {
            let params = account.scoped(map(json!({ "ad_id": ad_id, "is_paused": true })));
            self.call(&account, &Call::read("editAd", params))?;
        }
        let remaining = map::money(&ad["remaining_budget"]).unwrap_or(Money::ZERO);
        if remaining.micros() > 0 {
            let params = account.scoped(map(json!({
                "ad_id": ad_id,
                "amount": map::number(remaining, 6),
            })));
            let key = operation_key("delete", account.id, token);
            self.call(&account, &Call::keyed("decreaseAdBudget", params, key))?;
        }
        // Recorded before the call: if its answer is lost, a repeat with this token that no
        // longer finds the ad knows the delete went through.
        let removed = ad["views"].as_i64().unwrap_or(0) == 0;
        let now = self
            .db
            .read_blocking(clock::now)
            .map_err(PlatformError::store)?;
        self.db
            .write_blocking(|tx| {
                state::record_delete(tx, token, account.id, ad_id, removed, now.timestamp())
            })
            .map_err(PlatformError::store)?;
        let params = account.scoped(map(json!({ "ad_id": ad_id })));
        self.call(&account, &Call::once("deleteAd", params))?;
        Ok(removed)
    }

    fn upload_media(
        &self,
        account: i64,
        media_type: &str,
        file: &std::path::Path,
    ) -> Result<Option<String>, PlatformError> {
        let account = self.account(account)?;
        let (method, name, field) = match media_type {
            "image/jpeg" => ("uploadAdPhoto", "photo.jpg", "photo_id"),
            "image/png" => ("uploadAdPhoto", "photo.png", "photo_id"),
            "video/mp4" => ("uploadAdVideo", "video.mp4", "video_id"),
            _ => {
                return Err(rejected(
                    "The platform takes JPEG or PNG pictures and MP4 videos; convert the file and upload it again.",
                    "file",
                ))
            }
        };
        let bytes = std::fs::read(file)
            .map_err(|e| PlatformError::Refused(format!("cannot read the upload: {e}")))?;
        let upload = Upload {
            method,
            account_id: account.via_main.then_some(account.platform_id.as_str()),
            file_name: name,
            content_type: media_type,
            bytes,
        };
        let result = match self.wire.upload(&account.token, &upload) {
            Ok(result) => result,
            Err(e) => return Err(self.failed(&account, e)?),
        };
        result[field]
            .as_str()
            .map(|id| Some(id.to_string()))
            .ok_or_else(|| PlatformError::Refused("the upload was answered without an id".into()))
    }
}

fn map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn truncate(text: &str) -> String {
    text.chars().take(200).collect()
}
