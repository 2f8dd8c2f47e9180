//! The method table (which methods exist, take an idempotency key, act on an `account_id`
//! scope, or need a main account: §6, §8.1, §9), the checks before a call runs (auth, rate
//! limit, main account, scope) and the dispatch of a call to its handler.

use std::time::Instant;

use serde_json::Value;

use super::params::{Params, Upload};
use super::state::{err, ApiResult, Bucket, State};
use super::{accounts, ads, catalog, reads};

#[derive(Clone, Copy)]
pub struct Kind {
    /// Takes an idempotency key (§6).
    pub k: bool,
    /// `account_id` selects a related account to act on (§8.1).
    pub scoped: bool,
    /// MAIN_ACCOUNT_REQUIRED from an ordinary account.
    pub main_only: bool,
}

const fn kind3(k: bool, scoped: bool, main_only: bool) -> Kind {
    Kind {
        k,
        scoped,
        main_only,
    }
}

const PLAIN: Kind = kind3(false, false, false);
const MAIN: Kind = kind3(false, false, true);
const MAIN_K: Kind = kind3(true, false, true);
const SCOPED: Kind = kind3(false, true, false);
const SCOPED_K: Kind = kind3(true, true, false);

const METHODS: &[(&str, Kind)] = &[
    ("getCurrentAccount", PLAIN),
    ("getAccountsById", MAIN),
    ("getRelatedAccountsList", MAIN),
    ("createAccount", MAIN_K),
    ("getAccountInfo", SCOPED),
    ("editAccountInfo", SCOPED),
    ("increaseAccountBudget", MAIN_K),
    ("decreaseAccountBudget", MAIN_K),
    ("getTransactionStatus", MAIN),
    ("getAccountTransactionsList", SCOPED),
    ("getAccountStats", SCOPED),
    ("getAccountReport", SCOPED),
    ("createAd", SCOPED_K),
    ("editAd", SCOPED),
    ("editAdStatus", SCOPED),
    ("increaseAdBudget", SCOPED_K),
    ("decreaseAdBudget", SCOPED_K),
    ("submitAdForReview", SCOPED),
    ("deleteAd", SCOPED),
    ("getAdsById", SCOPED),
    ("getAdsList", SCOPED),
    ("getAdTransactionsList", SCOPED),
    ("getAdStats", SCOPED),
    ("uploadAdPhoto", SCOPED),
    ("uploadAdVideo", SCOPED),
    ("uploadWebsitePhoto", SCOPED),
    ("getTargetLanguagesList", PLAIN),
    ("getTargetTopicsList", PLAIN),
    ("getTargetCountriesList", PLAIN),
    ("getTargetLocationsList", PLAIN),
    ("getTargetLocationsById", PLAIN),
    ("getTargetChannel", PLAIN),
    ("getTargetBot", PLAIN),
    ("createAudience", SCOPED_K),
    ("editAudience", SCOPED),
    ("deleteAudience", SCOPED),
    ("getAudiencesById", SCOPED),
    ("getAudiencesList", SCOPED),
    ("createPixel", SCOPED_K),
    ("getPixel", SCOPED),
    ("createPixelEvent", SCOPED_K),
    ("editPixelEvent", SCOPED),
    ("deletePixelEvent", SCOPED),
    ("getPixelEventsById", SCOPED),
    ("getPixelEventsList", SCOPED),
];

pub fn kind(method: &str) -> Option<Kind> {
    METHODS.iter().find(|(m, _)| *m == method).map(|(_, k)| *k)
}

/// Who a call runs for: the token's own account and the account it acts on.
pub struct Ctx {
    pub me: String,
    pub acting: String,
}

/// The checks before a call may run, in order: token, rate limit, main account, scope.
pub fn admit(st: &mut State, method: &str, token: Option<&str>, p: &Params) -> Result<Ctx, String> {
    let token = token.ok_or("ACCESS_TOKEN_REQUIRED")?;
    let me = st
        .tokens
        .get(token)
        .cloned()
        .ok_or("ACCESS_TOKEN_INVALID")?;
    if let Err(wait) = st.rate_limit(token) {
        return Err(format!("FLOOD_WAIT_{wait}"));
    }
    let kind = kind(method).expect("known method");
    let main = st.acct(&me).main;
    if kind.main_only && !main {
        return err("MAIN_ACCOUNT_REQUIRED");
    }
    let mut acting = me.clone();
    if kind.scoped {
        if let Some(id) = p
            .str("account_id", "ACCOUNT_ID_INVALID")?
            .filter(|s| !s.is_empty())
        {
            let related = st
                .accounts
                .get(&id)
                .is_some_and(|a| a.parent.as_deref() == Some(me.as_str()));
            if id != me && !(main && related) {
                return err("ACCOUNT_ID_INVALID");
            }
            acting = id;
        }
    }
    Ok(Ctx { me, acting })
}

fn with_ad(st: &State, ctx: &Ctx, p: &Params, id: Result<i64, String>) -> ApiResult {
    let with_target = p
        .bool("return_target", "RETURN_TARGET_INVALID")?
        .unwrap_or(false);
    let ad = st.own_ad(&ctx.acting, id?)?;
    Ok(reads::ad_json(st, ad, with_target))
}

/// Runs an admitted call against the state at the fake's current time.
pub fn run(
    st: &mut State,
    method: &str,
    ctx: &Ctx,
    p: &Params,
    file: Option<&Upload>,
) -> ApiResult {
    let (me, acting) = (ctx.me.as_str(), ctx.acting.as_str());
    st.settle_account(me);
    st.settle_account(acting);
    accounts::settle_transfers(st);
    if let Some(r) = catalog::call(st, me, method, p) {
        return r;
    }
    match method {
        "getCurrentAccount" => Ok(st.account_json(me)),
        "getAccountsById" => accounts::accounts_by_id(st, me, p),
        "getRelatedAccountsList" => accounts::related_list(st, me, p),
        "createAccount" => accounts::create_account(st, me, p),
        "getAccountInfo" => Ok(accounts::info_json(st, acting)),
        "editAccountInfo" => accounts::edit_info(st, acting, p),
        "increaseAccountBudget" => accounts::transfer(st, me, p, true),
        "decreaseAccountBudget" => accounts::transfer(st, me, p, false),
        "getTransactionStatus" => accounts::transaction_status(st, me, p),
        "getAccountTransactionsList" => reads::account_transactions(st, acting, p),
        "getAccountStats" => reads::account_stats(st, acting, p),
        "getAccountReport" => reads::account_report(st, acting, p),
        "createAd" => {
            let id = ads::create(st, me, acting, p, false);
            with_ad(st, ctx, p, id)
        }
        "editAd" => {
            let id = ads::edit(st, acting, p);
            with_ad(st, ctx, p, id)
        }
        "editAdStatus" => {
            let id = ads::edit_status(st, acting, p);
            with_ad(st, ctx, p, id)
        }
        "increaseAdBudget" => {
            let id = ads::increase_budget(st, acting, p);
            with_ad(st, ctx, p, id)
        }
        "decreaseAdBudget" => {
            let id = ads::decrease_budget(st, acting, p);
            with_ad(st, ctx, p, id)
        }
        "submitAdForReview" => {
            let id = ads::submit(st, acting, p);
            with_ad(st, ctx, p, id)
        }
        "deleteAd" => ads::delete(st, acting, p).map(|()| Value::Bool(true)),
        "getAdsById" => reads::ads_by_id(st, acting, p),
        "getAdsList" => reads::ads_list(st, acting, p),
        "getAdTransactionsList" => reads::ad_transactions(st, acting, p),
        "getAdStats" => reads::ad_stats(st, acting, p),
        "uploadAdPhoto" | "uploadAdVideo" | "uploadWebsitePhoto" => {
            accounts::upload(st, acting, method, file)
        }
        m if m.contains("Audience") => err("RETARGETING_DISABLED"),
        m if m.contains("Pixel") => err("ACCESS_DENIED"),
        _ => err("METHOD_NOT_FOUND"),
    }
}

impl State {
    /// Takes one call from the token's bucket, or the whole seconds until one is free.
    pub fn rate_limit(&mut self, token: &str) -> Result<(), u64> {
        let Some(rate) = self.opts.calls_per_second.filter(|r| *r > 0) else {
            return Ok(());
        };
        let rate = f64::from(rate);
        let now = Instant::now();
        let b = self.buckets.entry(token.into()).or_insert(Bucket {
            tokens: rate,
            last: now,
        });
        b.tokens = (b.tokens + now.duration_since(b.last).as_secs_f64() * rate).min(rate);
        b.last = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err((((1.0 - b.tokens) / rate).ceil() as u64).max(1))
        }
    }
}
