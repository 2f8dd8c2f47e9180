//! The fake's data model behind its one lock: accounts, tokens, ads, media, the virtual clock,
//! the ad lifecycle and the 10-minute bookkeeping (§13, §9.2), stats buckets, and the records
//! kept for idempotency, faults, calls and rate limits. Money helpers are in `money`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use rust_decimal::Decimal;
use serde_json::Value;

pub use super::money::{dec_arg, money, parse_decimal, round, Cur};
use super::target::Target;
use super::{Call, Fault};

/// Every method answers a JSON result or an error code (sent as the envelope on HTTP 200).
pub type ApiResult = Result<Value, String>;

pub fn err<T>(code: &str) -> Result<T, String> {
    Err(code.to_string())
}

/// The stats bucket width of `deliver` (§11's smallest interval).
pub const BUCKET: i64 = 300;
/// The 10-minute rule of `decreaseAdBudget` and `deleteAd`.
pub const QUIET_SECONDS: i64 = 600;
/// Idempotency keys live this long (fake clock), from first use.
pub const KEY_LIFETIME: i64 = 24 * 3600;

pub struct Info {
    pub full_name: String,
    pub email: String,
    pub phone_number: String,
    pub country: String,
    pub city: String,
    pub legal_name: Option<String>,
}

pub enum AcctPeer {
    External(String),
    MainAccount,
    Related(String),
    Ad(i64),
}

pub struct AcctTx {
    pub seq: u64,
    pub date: i64,
    pub amount: Decimal,
    pub peer: AcctPeer,
}

pub struct Account {
    pub id: String,
    pub title: String,
    pub cur: Cur,
    pub main: bool,
    pub parent: Option<String>,
    pub remaining: Decimal,
    pub info: Info,
    pub txs: Vec<AcctTx>,
    pub channels: HashSet<i64>,
    pub bots: HashSet<i64>,
    pub money_moves: usize,
}

#[derive(Clone, PartialEq, Debug)]
pub enum Review {
    Ready,
    /// In moderation (`in_review`).
    Pending,
    Approved,
    /// Declined by moderation, with the reason the API gives (`decline_reason`, §10.2, §13).
    Declined(DeclineReason),
}

/// A decline's `decline_reason`: the short `text` and the full explanation in HTML.
#[derive(Clone, PartialEq, Debug)]
pub struct DeclineReason {
    pub text: String,
    pub description_html: String,
}

impl DeclineReason {
    /// A reason whose explanation, where none is given, is the text as one HTML paragraph.
    pub fn new(text: &str, description_html: Option<&str>) -> DeclineReason {
        DeclineReason {
            text: text.to_string(),
            description_html: match description_html {
                Some(html) => html.to_string(),
                None => format!("<p>{}</p>", escape_html(text)),
            },
        }
    }
}

/// Text safe inside HTML.
fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    ReadyForReview,
    InReview,
    Active,
    Declined,
    OnHold,
    Stopped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::ReadyForReview => "ready_for_review",
            Status::InReview => "in_review",
            Status::Active => "active",
            Status::Declined => "declined",
            Status::OnHold => "on_hold",
            Status::Stopped => "stopped",
        }
    }
}

#[derive(Clone, Default)]
pub struct Row {
    pub views: i64,
    pub clicks: i64,
    pub opens: i64,
    pub actions: i64,
    pub spent: Decimal,
}

impl Row {
    pub fn add(&mut self, o: &Row) {
        self.views += o.views;
        self.clicks += o.clicks;
        self.opens += o.opens;
        self.actions += o.actions;
        self.spent += o.spent;
    }
}

#[derive(Clone)]
pub enum AdPeer {
    Account,
    Views(i64),
}

#[derive(Clone)]
pub struct AdTx {
    pub seq: u64,
    pub date: i64,
    pub amount: Decimal,
    pub peer: AdPeer,
}

#[derive(Clone)]
pub struct Ad {
    pub id: i64,
    pub account: String,
    pub cur: Cur,
    pub title: String,
    pub text: Option<String>,
    pub promote_url: String,
    pub cpm: Decimal,
    pub placement: String,
    pub target: Target,
    pub photo: Option<String>,
    pub video: Option<String>,
    pub impression_frequency: i64,
    pub website_name: Option<String>,
    pub website_photo: Option<String>,
    pub button: Option<String>,
    pub conversion_event_id: Option<String>,
    pub additional_info: Option<String>,
    pub show_userpic: bool,
    pub remaining: Decimal,
    pub spent: Decimal,
    pub daily_limit: Option<Decimal>,
    pub is_paused: bool,
    pub activate_date: Option<i64>,
    pub deactivate_date: Option<i64>,
    pub schedule: Option<Value>,
    pub review: Review,
    pub created_date: i64,
    pub deleted_at: Option<i64>,
    pub views: i64,
    pub clicks: i64,
    pub opens: i64,
    pub actions: i64,
    pub stats: BTreeMap<i64, Row>,
    pub txs: Vec<AdTx>,
    /// Status as of `settled_at`.
    pub status: Status,
    pub settled_at: i64,
    /// When the ad last stopped being active; `created_date` if it never ran.
    pub inactive_since: i64,
}

impl Ad {
    /// §13's status at `now`, with the derived order for approved ads.
    pub fn derived(&self, now: i64) -> Status {
        match &self.review {
            Review::Ready => Status::ReadyForReview,
            Review::Pending => Status::InReview,
            Review::Declined(_) => Status::Declined,
            Review::Approved => {
                if self.deactivate_date.is_some_and(|d| d <= now) {
                    Status::Stopped
                } else if self.is_paused || self.activate_date.is_some_and(|a| a > now) {
                    Status::OnHold
                } else if self.remaining.is_zero() {
                    Status::Stopped
                } else {
                    Status::Active
                }
            }
        }
    }

    /// Brings `status` to `now`, recording when activity ended (a passed `deactivate_date`
    /// ended it at that date, even inside one jump of the clock).
    pub fn settle(&mut self, now: i64) {
        let new = self.derived(now);
        let ended_by_date = match (self.review == Review::Approved, self.deactivate_date) {
            (true, Some(d)) if d <= now => Some(d),
            _ => None,
        };
        if self.status == Status::Active && new != Status::Active {
            self.inactive_since = match ended_by_date {
                Some(d) => d.clamp(self.settled_at.min(now), now),
                None => now,
            };
        } else if let (Status::OnHold, Some(d), Some(a)) =
            (self.status, ended_by_date, self.activate_date)
        {
            // Waiting for activate_date, then both dates passed in one jump: it ran in between.
            if !self.is_paused && !self.remaining.is_zero() && a < d && d > self.settled_at {
                self.inactive_since = self.inactive_since.max(d);
            }
        }
        self.status = new;
        self.settled_at = now;
    }

    /// True while the 10-minute rule forbids withdrawing or deleting.
    pub fn recently_active(&self, now: i64) -> bool {
        self.status == Status::Active || now - self.inactive_since < QUIET_SECONDS
    }

    pub fn record(&mut self, now: i64, row: &Row) {
        self.stats
            .entry(now - now.rem_euclid(BUCKET))
            .or_default()
            .add(row);
    }

    /// Sum of the stats buckets in `[from, to)`.
    pub fn sum(&self, from: i64, to: i64) -> Row {
        let mut out = Row::default();
        for r in self.stats.range(from..to).map(|(_, r)| r) {
            out.add(r);
        }
        out
    }

    pub fn daily_spent(&self, now: i64) -> Decimal {
        let day = now - now.rem_euclid(86400);
        self.sum(day, day + 86400).spent
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MediaKind {
    AdPhoto,
    AdVideo,
    WebsitePhoto,
}

pub struct Media {
    pub account: String,
    pub kind: MediaKind,
    pub url: String,
}

pub struct Transfer {
    pub main: String,
    pub related: String,
    /// As seen by the related account: negative when money left it.
    pub amount: Decimal,
    /// "in_progress", "completed" or "failed".
    pub status: &'static str,
    /// When an in-progress transfer settles (fake clock, unix seconds).
    pub settles_at: i64,
    /// Why it failed (`NOT_ENOUGH_BUDGET`).
    pub error: Option<&'static str>,
}

pub struct IdemEntry {
    pub method: String,
    pub canon: String,
    pub first_used: i64,
    /// The stored success body; None while the first request still runs.
    pub body: Option<String>,
}

pub struct FaultRule {
    pub fault: Fault,
    pub method: Option<String>,
    pub left: u32,
}

/// A per-token bucket in real time (rate limits are about the client's real pace).
pub struct Bucket {
    pub tokens: f64,
    pub last: Instant,
}

pub struct Options {
    pub calls_per_second: Option<u32>,
    pub min_cpm: Vec<(Cur, Decimal)>,
    pub delete_refunds: bool,
    /// Transfers between a main and a related account stay `in_progress` this long (fake
    /// clock seconds); 0 settles them at once.
    pub transfer_delay: i64,
}

pub struct State {
    pub now: i64,
    pub opts: Options,
    pub accounts: BTreeMap<String, Account>,
    /// Account ids in creation order.
    pub order: Vec<String>,
    pub tokens: HashMap<String, String>,
    pub ads: BTreeMap<i64, Ad>,
    /// Each account's ad ids in creation order (ads never change accounts), so a call costs
    /// in proportion to its own account, not to every ad of the platform.
    pub by_account: HashMap<String, Vec<i64>>,
    pub next_ad: i64,
    pub seq: u64,
    pub transfers: HashMap<String, Transfer>,
    pub media: HashMap<String, Media>,
    /// Every username resolved so far: id -> (is_bot, username).
    pub peers: HashMap<i64, (bool, String)>,
    pub idem: HashMap<(String, String), IdemEntry>,
    pub calls: Vec<(u64, Call)>,
    pub faults: Vec<FaultRule>,
    pub buckets: HashMap<String, Bucket>,
}

impl State {
    pub fn new(now: i64, opts: Options) -> State {
        State {
            now,
            opts,
            accounts: BTreeMap::new(),
            order: Vec::new(),
            tokens: HashMap::new(),
            ads: BTreeMap::new(),
            by_account: HashMap::new(),
            next_ad: 1001,
            seq: 0,
            transfers: HashMap::new(),
            media: HashMap::new(),
            peers: HashMap::new(),
            idem: HashMap::new(),
            calls: Vec::new(),
            faults: Vec::new(),
            buckets: HashMap::new(),
        }
    }

    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// An opaque id: a prefix, a sequence number and random hex.
    pub fn new_id(&mut self, prefix: &str) -> String {
        let n = self.next_seq();
        let hex = uuid::Uuid::new_v4().simple().to_string();
        format!("{prefix}{n}{}", &hex[..10])
    }

    pub fn settle_all(&mut self) {
        let now = self.now;
        for ad in self.ads.values_mut() {
            ad.settle(now);
        }
    }

    /// Brings one account's ads to the current time.
    pub fn settle_account(&mut self, account: &str) {
        let now = self.now;
        for id in self.by_account.get(account).into_iter().flatten() {
            if let Some(ad) = self.ads.get_mut(id) {
                ad.settle(now);
            }
        }
    }

    /// An account's ads (deleted ones included), oldest first.
    pub fn ads_of<'a>(&'a self, account: &str) -> impl DoubleEndedIterator<Item = &'a Ad> + 'a {
        self.by_account
            .get(account)
            .into_iter()
            .flatten()
            .filter_map(|id| self.ads.get(id))
    }

    /// Adds a new ad under its account.
    pub fn insert_ad(&mut self, ad: Ad) {
        self.by_account
            .entry(ad.account.clone())
            .or_default()
            .push(ad.id);
        self.ads.insert(ad.id, ad);
    }

    pub fn acct(&self, id: &str) -> &Account {
        &self.accounts[id]
    }

    pub fn acct_mut(&mut self, id: &str) -> &mut Account {
        self.accounts.get_mut(id).expect("known account")
    }

    pub fn add_account(
        &mut self,
        cur: Cur,
        title: &str,
        main: bool,
        parent: Option<&str>,
    ) -> String {
        let id = self.new_id("acct");
        let info = Info {
            full_name: format!("{title} Owner"),
            email: "owner@example.com".into(),
            phone_number: "+10000000000".into(),
            country: "US".into(),
            city: "New York".into(),
            legal_name: None,
        };
        let acct = Account {
            id: id.clone(),
            title: title.into(),
            cur,
            main,
            parent: parent.map(str::to_string),
            remaining: Decimal::ZERO,
            info,
            txs: Vec::new(),
            channels: HashSet::new(),
            bots: HashSet::new(),
            money_moves: 0,
        };
        self.accounts.insert(id.clone(), acct);
        self.order.push(id.clone());
        id
    }

    /// Money from outside the platform (an invoice paid in the UI).
    pub fn top_up(&mut self, account: &str, amount: Decimal, comment: &str) {
        if amount.is_zero() {
            return;
        }
        let (seq, date) = (self.next_seq(), self.now);
        let a = self.acct_mut(account);
        a.remaining += amount;
        let peer = AcctPeer::External(comment.into());
        a.txs.push(AcctTx {
            seq,
            date,
            amount,
            peer,
        });
    }

    pub fn new_token(&mut self, account: &str) -> String {
        let n = self.next_seq();
        let token = format!("{n}:{}", uuid::Uuid::new_v4().simple());
        self.tokens.insert(token.clone(), account.into());
        token
    }

    /// Money between an account's free budget and one of its ads (positive: into the ad).
    pub fn move_to_ad(&mut self, ad_id: i64, amount: Decimal, counted: bool) {
        let (seq, date) = (self.next_seq(), self.now);
        let ad = self.ads.get_mut(&ad_id).expect("known ad");
        ad.remaining += amount;
        ad.txs.push(AdTx {
            seq,
            date,
            amount,
            peer: AdPeer::Account,
        });
        let account = ad.account.clone();
        let a = self.acct_mut(&account);
        a.remaining -= amount;
        a.txs.push(AcctTx {
            seq,
            date,
            amount: -amount,
            peer: AcctPeer::Ad(ad_id),
        });
        if counted {
            a.money_moves += 1;
        }
    }

    /// Serves up to `views` impressions to an active ad at `now` (with `force`, to any ad, for
    /// seeding its history); returns the views served.
    pub fn deliver(&mut self, ad_id: i64, views: i64, force: bool) -> i64 {
        let now = self.now;
        let seq = self.next_seq();
        let Some(ad) = self.ads.get_mut(&ad_id) else {
            return 0;
        };
        ad.settle(now);
        let runs = ad.status == Status::Active && super::target::in_schedule(ad, now);
        if views <= 0 || !(runs || force) {
            return 0;
        }
        let dp = ad.cur.transfer_dp();
        let mut cap = ad.remaining;
        if let Some(limit) = ad.daily_limit {
            cap = cap.min((limit - ad.daily_spent(now)).max(Decimal::ZERO));
        }
        let per_view = ad.cpm / Decimal::from(1000);
        let mut served = views;
        let mut cost = round(per_view * Decimal::from(views), dp);
        if cost >= cap {
            cost = cap;
            // The views that money pays for, the last one perhaps partly.
            let affordable = (cap / per_view).ceil();
            served = affordable
                .to_string()
                .parse::<i64>()
                .unwrap_or(views)
                .min(views);
        }
        if served <= 0 {
            return 0;
        }
        let row = Row {
            views: served,
            clicks: served / 10,
            opens: 0,
            actions: served / 50,
            spent: cost,
        };
        ad.record(now, &row);
        ad.views += row.views;
        ad.clicks += row.clicks;
        ad.actions += row.actions;
        ad.spent += cost;
        ad.remaining -= cost;
        let tx = AdTx {
            seq,
            date: now,
            amount: -cost,
            peer: AdPeer::Views(served),
        };
        ad.txs.push(tx);
        ad.settle(now);
        served
    }

    /// The `Account` object (§10.1).
    pub fn account_json(&self, id: &str) -> Value {
        let a = self.acct(id);
        let (mut ads_budget, mut spent) = (Decimal::ZERO, Decimal::ZERO);
        for ad in self.ads_of(id) {
            spent += ad.spent;
            if ad.deleted_at.is_none() {
                ads_budget += ad.remaining;
            }
        }
        serde_json::json!({
            "account_id": a.id,
            "title": a.title,
            "currency": a.cur.code(),
            "spent_budget": money(spent),
            "remaining_budget": money(a.remaining),
            "ads_budget": money(ads_budget),
        })
    }

    /// The account's ad (not deleted) or AD_ID_INVALID.
    pub fn own_ad(&self, account: &str, ad_id: i64) -> Result<&Ad, String> {
        match self.ads.get(&ad_id) {
            Some(ad) if ad.account == account && ad.deleted_at.is_none() => Ok(ad),
            _ => err("AD_ID_INVALID"),
        }
    }

    pub fn min_cpm(&self, cur: Cur) -> Decimal {
        let found = self.opts.min_cpm.iter().find(|(c, _)| *c == cur);
        found.map(|(_, d)| *d).unwrap_or(Decimal::ZERO)
    }
}
