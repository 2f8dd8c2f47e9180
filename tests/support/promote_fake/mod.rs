//! A fake of Telegram's promote (Ads) API for tests, following the wire contract in
//! shared/spec/promote-api.md; this file owns its public handle (`FakePromote`), options,
//! seeds, faults and the record of calls. Included with `#[path]` by several test targets.
#![allow(dead_code)]

mod accounts;
mod ads;
mod catalog;
mod control;
mod http;
mod methods;
mod money;
mod params;
mod reads;
mod state;
mod target;

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use self::state::{Cur, DeclineReason, Options, State};

/// The fake server, on `url` until dropped.
pub struct FakePromote {
    /// `http://127.0.0.1:PORT`, no trailing slash; methods are at `{url}/{methodName}` and the
    /// test controls at `{url}/_fake/...`.
    pub url: String,
    shared: http::Shared,
    server: crate::fake_server::FakeServer,
}

#[derive(Clone, Debug)]
pub struct FakeOptions {
    /// Per-token limit (token bucket in real time, burst of the same size). Past it the call
    /// answers `FLOOD_WAIT_<n>` on HTTP 200, n = whole seconds until a call is free (≥ 1).
    pub calls_per_second: Option<u32>,
    /// Minimum CPM per currency (below it: `CPM_TOO_LOW`).
    pub min_cpm: [(&'static str, &'static str); 3],
    /// deleteAd with money left refunds it instead of answering `AD_BUDGET_NOT_EMPTY`.
    pub delete_with_budget_refunds: bool,
}

impl Default for FakeOptions {
    fn default() -> Self {
        FakeOptions {
            calls_per_second: None,
            min_cpm: [("EUR", "0.1"), ("TON", "0.1"), ("XTR", "1")],
            delete_with_budget_refunds: false,
        }
    }
}

/// An account with its token.
#[derive(Clone, Debug)]
pub struct FakeAccount {
    pub account_id: String,
    pub token: String,
}

/// An ad that already exists on the platform (see `FakePromote::seed_ad`).
#[derive(Clone, Debug)]
pub struct SeedAd {
    pub title: String,
    pub text: String,
    pub promote_url: String,
    /// Decimal text in the account's currency.
    pub cpm: String,
    /// The initial budget, decimal text.
    pub budget: String,
    /// An `InputAdTarget`.
    pub target: serde_json::Value,
    /// "active" | "on_hold" | "in_review" | "declined" | "stopped" | "ready_for_review"
    pub status: String,
    /// Lifetime views already delivered, spent at `cpm` (capped by the budget).
    pub views: i64,
}

impl SeedAd {
    /// An active channel-post ad for `@channel` (cpm 1, budget 10, no views yet).
    pub fn channel(title: &str, channel: &str) -> SeedAd {
        let name = channel.trim_start_matches('@');
        SeedAd {
            title: title.to_string(),
            text: format!("{title}: join us"),
            promote_url: format!("https://t.me/{name}"),
            cpm: "1".into(),
            budget: "10".into(),
            target: serde_json::json!({"type": "channels", "channel_ids": [format!("@{name}")]}),
            status: "active".into(),
            views: 0,
        }
    }
}

impl Default for SeedAd {
    fn default() -> Self {
        SeedAd::channel("Seeded ad", "@seeded_channel")
    }
}

/// What the next matching calls answer instead of running normally.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// HTTP 429 with a `TOO_MANY_REQUESTS` envelope and, when given, `Retry-After`.
    Http429 { retry_after: Option<u64> },
    /// `{"ok":false,"error":"FLOOD_WAIT_<n>"}` on HTTP 200.
    FloodWait(u64),
    /// `{"ok":false,"error":<code>}` on HTTP 200.
    ApiError(String),
    /// HTTP 502 with an HTML page.
    Gateway,
    /// Waits this long (real time), then runs normally; an idempotency key stays reserved
    /// meanwhile, so a concurrent call with it gets `IDEMPOTENT_REQUEST_IN_PROGRESS`.
    Delay(Duration),
    /// Runs the method (storing an idempotent result), then closes the connection unanswered.
    Drop,
    /// Closes the connection unanswered without running the method.
    DropBefore,
    /// Runs the method (storing an idempotent result), then waits this long (real time)
    /// before answering: a client that dies meanwhile never learns the method ran.
    Hold(Duration),
}

/// One call received by an API method (test controls are not recorded).
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub method: String,
    /// The bearer token, "" when none was sent.
    pub token: String,
    pub idempotency_key: Option<String>,
    /// Answered from the idempotency store.
    pub replayed: bool,
}

fn must<T>(r: Result<T, String>) -> T {
    r.unwrap_or_else(|e| panic!("fake promote: {e}"))
}

impl FakePromote {
    pub fn start() -> FakePromote {
        FakePromote::start_with(FakeOptions::default())
    }

    pub fn start_with(opts: FakeOptions) -> FakePromote {
        let min_cpm = opts
            .min_cpm
            .iter()
            .map(|(c, m)| {
                (
                    Cur::parse(c).unwrap_or_else(|| panic!("fake promote: currency {c}")),
                    state::dec_arg(m),
                )
            })
            .collect();
        let options = Options {
            calls_per_second: opts.calls_per_second,
            min_cpm,
            delete_refunds: opts.delete_with_budget_refunds,
            transfer_delay: 0,
        };
        let now = chrono::Utc::now().timestamp();
        let shared = Arc::new(Mutex::new(State::new(now, options)));
        let server = crate::fake_server::FakeServer::start({
            let shared = shared.clone();
            move |req| http::handle(shared.clone(), req)
        });
        FakePromote {
            url: server.url.clone(),
            shared,
            server,
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> Result<T, String>) -> T {
        must(f(&mut self.shared.lock()))
    }

    /// A new ordinary (or, with `main`, main/agency) account with one token; `balance` is its
    /// free remaining_budget, booked as an external top-up.
    pub fn add_account(
        &self,
        currency: &str,
        title: &str,
        balance: &str,
        main: bool,
    ) -> FakeAccount {
        let (account_id, token) =
            self.with(|st| control::add_account(st, currency, title, balance, main));
        FakeAccount { account_id, token }
    }

    /// A related account of `main`, managed by the main's token via `account_id`; no token.
    pub fn add_related(&self, main: &str, currency: &str, title: &str, balance: &str) -> String {
        self.with(|st| control::add_related(st, main, currency, title, balance))
    }

    /// An ad created as by createAd (same checks; `budget` moves from the account, which is
    /// topped up first if short; not counted in `money_moves`), then put in `seed.status`
    /// and given `seed.views` of history at the current time.
    pub fn seed_ad(&self, account: &str, seed: SeedAd) -> i64 {
        self.with(|st| control::seed(st, account, &seed))
    }

    /// Moderation passes an `in_review` ad (approving an approved ad does nothing).
    pub fn approve(&self, account: &str, ad_id: i64) {
        self.with(|st| control::approve(st, account, ad_id))
    }

    /// Moderation declines an ad in review (or an approved one) with `reason`; its
    /// `description_html` is the reason as one paragraph.
    pub fn decline(&self, account: &str, ad_id: i64, reason: &str) {
        let reason = DeclineReason::new(reason, None);
        self.with(|st| control::decline(st, account, ad_id, reason))
    }

    /// Moderation declines an ad in review (or an approved one) with the short `text` and the
    /// full explanation `description_html`, as `decline_reason` carries them.
    pub fn decline_explained(&self, account: &str, ad_id: i64, text: &str, description_html: &str) {
        let reason = DeclineReason::new(text, Some(description_html));
        self.with(|st| control::decline(st, account, ad_id, reason))
    }

    /// Serves `views` impressions to an active ad at the fake's current time: spends
    /// views*cpm/1000 (capped by the remaining budget and a daily cap; an ad whose budget
    /// hits 0 becomes `stopped`), adds clicks = views/10, opens = 0, actions = views/50, all
    /// in the 5-minute stats bucket of now. An ad that is not active, or outside its schedule,
    /// gets nothing.
    pub fn deliver(&self, account: &str, ad_id: i64, views: i64) {
        self.with(|st| control::deliver(st, account, ad_id, views));
    }

    /// Money from outside the platform into `account` at the fake's now (an invoice paid in
    /// the UI), booked as an `external` transaction with `comment`.
    pub fn top_up(&self, account: &str, amount: &str, comment: &str) {
        self.with(|st| {
            control::account(st, account)?;
            let amount = state::dec_arg(amount);
            st.top_up(account, amount, comment);
            Ok(())
        })
    }

    /// Moves the virtual clock forward (unix seconds).
    pub fn advance(&self, seconds: i64) {
        let mut st = self.shared.lock();
        let now = st.now + seconds;
        control::set_now(&mut st, now);
    }

    pub fn now(&self) -> i64 {
        self.shared.lock().now
    }

    pub fn set_now(&self, unix: i64) {
        control::set_now(&mut self.shared.lock(), unix);
    }

    pub fn revoke_token(&self, token: &str) {
        self.shared.lock().tokens.remove(token);
    }

    /// Another valid token for that account.
    pub fn new_token(&self, account: &str) -> String {
        self.with(|st| {
            control::account(st, account)?;
            Ok(st.new_token(account))
        })
    }

    /// The next `count` calls (of any method, or only `method`) answer with `fault`.
    pub fn fail_next(&self, fault: Fault, method: Option<&str>, count: u32) {
        let rule = state::FaultRule {
            fault,
            method: method.map(str::to_string),
            left: count,
        };
        if count > 0 {
            self.shared.lock().faults.push(rule);
        }
    }

    /// From now on, transfers between a main and a related account stay `in_progress` for
    /// `seconds` of the fake's clock (0: they settle at once). The money moves when one settles;
    /// if the source no longer has it then, the transfer fails with `NOT_ENOUGH_BUDGET`.
    pub fn delay_transfers(&self, seconds: i64) {
        self.shared.lock().opts.transfer_delay = seconds.max(0);
    }

    /// Drops every fault still waiting (`fail_next` with a count that has not run out): the
    /// platform answers again after an outage.
    pub fn clear_faults(&self) {
        self.shared.lock().faults.clear();
    }

    /// Every API call received so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.shared
            .lock()
            .calls
            .iter()
            .map(|(_, c)| c.clone())
            .collect()
    }

    pub fn call_count(&self, method: &str) -> usize {
        self.shared
            .lock()
            .calls
            .iter()
            .filter(|(_, c)| c.method == method)
            .count()
    }

    pub fn reset_calls(&self) {
        self.shared.lock().calls.clear();
    }

    /// The ad as getAdsById with return_target would return it; None when deleted, unknown
    /// or another account's.
    pub fn ad(&self, account: &str, ad_id: i64) -> Option<serde_json::Value> {
        control::ad(&mut self.shared.lock(), account, ad_id)
    }

    /// Free balance (remaining_budget) of an account, as decimal text.
    pub fn balance(&self, account: &str) -> String {
        self.with(|st| {
            Ok(control::account(st, account)?
                .remaining
                .normalize()
                .to_string())
        })
    }

    /// How many times money moved for this account through the API: createAd with a budget,
    /// increase/decreaseAdBudget, transfers (counted on both accounts), refunding deletes.
    pub fn money_moves(&self, account: &str) -> usize {
        self.with(|st| Ok(control::account(st, account)?.money_moves))
    }

    /// remaining + ads_budget + spent of an account, as decimal text: it changes only through
    /// transfers and external top-ups.
    pub fn total_money(&self, account: &str) -> String {
        self.with(|st| control::total_money(st, account))
    }
}
