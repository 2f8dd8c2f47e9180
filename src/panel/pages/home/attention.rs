//! Owns the home page's "needs attention" list over the cabinets a person reaches: campaigns
//! declined (with the platform's reason), in review for more than a day, stopped for lack of
//! budget or about to stop at the pace of their last 24 hours of stats, cabinets whose balance
//! will not last a day at the same pace or whose platform session expired, the person's keys
//! whose webhooks fail, and what automation did or proposes; each item links to where it is
//! fixed and, where the person may change the cabinet, carries the campaign action's form.
//! What changed after the person's last look is marked new.

use chrono::{DateTime, Duration, Utc};
use maud::{html, Markup};

use super::super::super::format::Fmt;
use super::super::super::session::Session;
use super::super::super::Visit;
use crate::domain::money::{CabinetType, Money};
use crate::domain::time::{hour_start, iso};
use crate::store::attention::{self, Automated, FailingKey, Flagged, Found, Kind};
use crate::store::cabinets::Reachable;
use crate::store::kept;
use crate::store::{stats, StoreError};

/// Items of one kind shown; the rest are counted, with a link to the list.
const SHOWN: i64 = 5;
/// How long a campaign may stay in review before it needs attention.
const REVIEW_HOURS: i64 = 24;
/// How far back automation's actions are listed.
const AUTOMATION_DAYS: i64 = 7;

/// A cabinet whose balance will not last a day at the spend of its last 24 hours of stats.
#[derive(Debug, Clone)]
pub struct LowBalance {
    pub account: i64,
    pub balance: Money,
    pub spent: Money,
}

/// Everything that needs the person's attention.
#[derive(Debug, Clone, Default)]
pub struct Attention {
    pub declined: Found,
    pub in_review: Found,
    pub out_of_budget: Found,
    pub about_to_stop: Found,
    pub low_balance: Vec<LowBalance>,
    pub expired: Vec<i64>,
    pub failing: Vec<FailingKey>,
    pub automated: Vec<Automated>,
}

impl Attention {
    fn is_empty(&self) -> bool {
        self.declined.total == 0
            && self.in_review.total == 0
            && self.out_of_budget.total == 0
            && self.about_to_stop.total == 0
            && self.low_balance.is_empty()
            && self.expired.is_empty()
            && self.failing.is_empty()
            && self.automated.is_empty()
    }
}

/// Reads what needs attention in the active cabinets of `reach` and the keys of `user`, at
/// `now`.
pub fn gather(
    conn: &rusqlite::Connection,
    reach: &[Reachable],
    user: i64,
    now: DateTime<Utc>,
) -> Result<Attention, StoreError> {
    let mut found = Attention::default();
    let keep = usize::try_from(SHOWN).unwrap_or(5);
    let review_since = iso(now - Duration::hours(REVIEW_HOURS));
    let automation_since = iso(now - Duration::days(AUTOMATION_DAYS));
    let active: Vec<&Reachable> = reach.iter().filter(|r| r.cabinet.is_active).collect();
    let ids: Vec<i64> = active.iter().map(|r| r.cabinet.id).collect();
    let scope = kept::Cabinets::new(conn, &ids)?;
    found.declined = attention::newest_of(conn, &scope, Kind::Declined, SHOWN)?;
    found.in_review =
        attention::newest_of(conn, &scope, Kind::InReviewSince(&review_since), SHOWN)?;
    found.out_of_budget = attention::newest_of(conn, &scope, Kind::OutOfBudget, SHOWN)?;
    // The same pace as the campaigns' kept figure: the 24 hours of stats ending with the last
    // hour the sync stored (up to now for a cabinet never synced).
    let spent = stats::last_day_spent(conn, &ids, hour_start(now) + Duration::hours(1))?;
    for (r, spent) in active.into_iter().zip(spent) {
        let id = r.cabinet.id;
        found
            .about_to_stop
            .merge_soonest(attention::about_to_stop(conn, id, SHOWN)?, keep);
        if spent > Money::ZERO && r.cabinet.balance <= spent {
            found.low_balance.push(LowBalance {
                account: id,
                balance: r.cabinet.balance,
                spent,
            });
        }
        if r.cabinet.auth_expired {
            found.expired.push(id);
        }
        found.automated.extend(attention::automated(
            conn,
            id,
            &automation_since,
            SHOWN * 2,
        )?);
    }
    found.automated.sort_by(|a, b| b.at.cmp(&a.at));
    found.automated.truncate(keep * 2);
    found.failing = attention::failing_keys(conn, user)?;
    Ok(found)
}

/// What the list needs of a cabinet: its name, currency and whether the person may act in it.
struct Cabinets<'s> {
    session: &'s Session,
}

impl Cabinets<'_> {
    fn name(&self, account: i64) -> &str {
        self.reach(account).map_or("", |r| r.cabinet.name.as_str())
    }

    fn kind(&self, account: i64) -> CabinetType {
        self.reach(account)
            .map_or(CabinetType::Euro, |r| r.cabinet.cabinet_type)
    }

    fn writable(&self, account: i64) -> bool {
        self.session.person.writable(account).is_ok()
    }

    fn reach(&self, account: i64) -> Option<&Reachable> {
        self.session
            .person
            .reach
            .iter()
            .find(|r| r.cabinet.id == account)
    }
}

/// The list; `seen` is when the person last looked before this visit (unix seconds).
pub fn render(visit: &Visit, session: &Session, found: &Attention, seen: Option<i64>) -> Markup {
    let fmt = visit.fmt();
    let cabinets = Cabinets { session };
    let seen = seen.and_then(|s| DateTime::from_timestamp(s, 0)).map(iso);
    let is_new = |at: &str| !at.is_empty() && seen.as_deref().is_none_or(|s| at > s);
    let kinds: [(&Found, &str, &str); 4] = [
        (&found.declined, "home-declined", "status=Declined"),
        (&found.in_review, "home-in-review", "status=In%20Review"),
        (&found.out_of_budget, "home-out-of-budget", "status=Stopped"),
        (
            &found.about_to_stop,
            "home-about-to-stop",
            "status=Active&sortBy=budget&sortOrder=asc",
        ),
    ];
    html! {
        section.attention aria-labelledby="home-attention" {
            h2 #home-attention { (visit.t("home-attention")) }
            @if found.is_empty() {
                p.empty { (visit.t("home-attention-none")) }
            }
            @for (kind, key, status) in kinds {
                @if kind.total > 0 {
                    h3 data-kind=(key) { (visit.t(key)) " " span.count { "(" (fmt.count(kind.total)) ")" } }
                    ul.attention data-kind=(key) {
                        @for f in &kind.items {
                            (campaign(visit, fmt, &cabinets, key, f, is_new(&f.at)))
                        }
                    }
                    @if kind.total > SHOWN {
                        p.more {
                            (visit.ta("home-more", &[("count", (kind.total - SHOWN).into())])) " · "
                            a href={ "/campaigns?" (status) } { (visit.t("home-show-all")) }
                        }
                    }
                }
            }
            @if !found.low_balance.is_empty() {
                h3 data-kind="home-low-balance" { (visit.t("home-low-balance")) }
                ul.attention data-kind="home-low-balance" {
                    @for low in &found.low_balance {
                        @let kind = cabinets.kind(low.account);
                        li data-account=(low.account) {
                            a href={ "/campaigns?account_id=" (low.account) } { (cabinets.name(low.account)) }
                            span.muted { " · " (low.account) }
                            p.detail { (visit.ta("home-low-balance-detail", &[
                                ("balance", fmt.money(kind, low.balance).into()),
                                ("spent", fmt.money(kind, low.spent).into()),
                            ])) }
                            a.fix href="/cabinets" { (visit.t("home-open")) }
                        }
                    }
                }
            }
            @if !found.expired.is_empty() {
                h3 data-kind="home-session-expired" { (visit.t("home-session-expired")) }
                ul.attention data-kind="home-session-expired" {
                    @for id in &found.expired {
                        li data-account=(id) {
                            a href="/cabinets" { (cabinets.name(*id)) }
                            span.muted { " · " (id) }
                            p.detail { (visit.t("home-session-expired-detail")) }
                        }
                    }
                }
            }
            @if !found.failing.is_empty() {
                h3 data-kind="home-webhook-failing" { (visit.t("home-webhook-failing")) }
                ul.attention data-kind="home-webhook-failing" {
                    @for key in &found.failing {
                        li data-key=(key.key) {
                            @if is_new(&key.at) { span.badge.new { (visit.t("home-new")) } " " }
                            a href={ "/keys/" (key.key) } { "#" (key.key) }
                            p.detail { (visit.ta("home-webhook-failing-detail", &[("url", key.url.clone().into())])) }
                            @if !key.at.is_empty() { p.muted { (fmt.time(&key.at)) } }
                        }
                    }
                }
            }
            @if !found.automated.is_empty() {
                h3 data-kind="home-automation" { (visit.t("home-automation")) }
                ul.attention data-kind="home-automation" {
                    @for a in &found.automated {
                        (automated(visit, fmt, &cabinets, a, is_new(&a.at)))
                    }
                }
            }
        }
    }
}

fn campaign(
    visit: &Visit,
    fmt: Fmt,
    cabinets: &Cabinets,
    key: &str,
    f: &Flagged,
    new: bool,
) -> Markup {
    let kind = cabinets.kind(f.account);
    let page = format!("/campaigns/{}/{}", f.account, f.ad);
    let writable = cabinets.writable(f.account);
    html! {
        li data-ad=(f.ad) data-account=(f.account) {
            @if new { span.badge.new { (visit.t("home-new")) } " " }
            a href=(page) { (f.title) }
            span.muted { " · " (cabinets.name(f.account)) }
            @match key {
                "home-declined" => {
                    p.detail.reason {
                        @match &f.reason {
                            Some(reason) => (visit.ta("home-declined-reason", &[("reason", reason.clone().into())])),
                            None => (visit.t("home-declined-no-reason")),
                        }
                    }
                    @if writable {
                        (action(visit, cabinets.session, &format!("{page}/recreate"), html! {}, "home-recreate"))
                    }
                }
                "home-in-review" => {
                    p.detail.muted { (visit.t("home-in-review-since")) " " (fmt.time(&f.at)) }
                }
                _ => {
                    @if let Some(hours) = f.hours_left() {
                        p.detail.pace { (visit.ta("home-about-to-stop-detail", &[
                            ("budget", fmt.money(kind, f.budget).into()),
                            ("spent", fmt.money(kind, f.spent).into()),
                            ("hours", hours.into()),
                        ])) }
                    }
                    @if writable {
                        (action(visit, cabinets.session, &format!("{page}/budget"), html! {
                            input type="hidden" name="direction" value="add";
                            label {
                                span.sr { (visit.t("home-amount")) }
                                input type="text" name="amount" inputmode="decimal" required
                                    placeholder=(visit.t("home-amount")) size="8";
                                " " (kind.currency())
                            }
                        }, "home-add-budget"))
                    }
                }
            }
        }
    }
}

/// A form posting to one campaign's action, returning to the home page.
fn action(visit: &Visit, session: &Session, url: &str, fields: Markup, label: &str) -> Markup {
    html! {
        form.inline.action method="post" action=(url) {
            input type="hidden" name="csrf" value=(session.csrf);
            input type="hidden" name="back" value="/";
            (fields)
            button type="submit" { (visit.t(label)) }
        }
    }
}

fn automated(visit: &Visit, fmt: Fmt, cabinets: &Cabinets, a: &Automated, new: bool) -> Markup {
    let kind = cabinets.kind(a.account);
    let rule = a
        .rule
        .clone()
        .unwrap_or_else(|| visit.t("home-automation-deleted-rule"));
    let what = match (&a.bid, a.outcome.as_str()) {
        (Some((from, to)), _) => visit.ta(
            "home-auto-cpm",
            &[
                ("from", fmt.money(kind, *from).into()),
                ("to", fmt.money(kind, *to).into()),
            ],
        ),
        (None, "dry_run") => visit.ta("home-automation-proposed", &[("rule", rule.into())]),
        (None, "failed") => visit.ta("home-automation-failed", &[("rule", rule.into())]),
        (None, _) => visit.ta("home-automation-acted", &[("rule", rule.into())]),
    };
    html! {
        li data-ad=(a.ad) data-account=(a.account) data-outcome=(a.outcome) {
            @if new { span.badge.new { (visit.t("home-new")) } " " }
            (what) ": "
            a href={ "/campaigns/" (a.account) "/" (a.ad) } {
                (a.title.as_deref().unwrap_or("")) @if a.title.is_none() { "#" (a.ad) }
            }
            span.muted { " · " (fmt.time(&a.at)) }
            @if let Some(id) = a.rule_id {
                " · " a href={ "/rules/" (id) "/log" } { (visit.t("home-rule-log")) }
            }
        }
    }
}
