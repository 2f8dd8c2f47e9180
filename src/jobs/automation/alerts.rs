//! Owns raising alerts: a rule's notice and the built-in ones checked after each hourly sync
//! (a campaign declined, a running campaign's budget low, a cabinet's balance short of a day's
//! spend, a platform session expired, a key's webhook deliveries failing). Each goes to the
//! keys' webhooks as an `alert` event (when it is about a cabinet) and to the Telegram chats
//! that read it. A standing condition is told once, and again only after it cleared; the
//! campaigns of one cabinet declined or running low in the same hour come as one alert. An
//! optional daily digest tells each person their day.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Timelike, Utc};
use rusqlite::Connection;

use crate::clock;
use crate::config::NotifyConfig;
use crate::primitives::unix_now;
use crate::services::Services;
use crate::store::alerts::{self, Declined, NewAlert};
use crate::store::{cabinets, campaigns, StoreError};
use crate::webhooks::events::{self, Receivers};

/// Records an alert, queues its `alert` webhooks to `receivers` and, with a bot configured,
/// its Telegram sends. Runs in the caller's write transaction. An alert about a cabinet that
/// already had `[notify] alerts_per_cabinet_hour` alerts of the same hour is held back and
/// counted instead, and the count told in one note after the hour's automation
/// ([`note_held`]): a storm of conditions never becomes a storm of messages.
pub fn raise(
    conn: &Connection,
    notify: &NotifyConfig,
    receivers: &Receivers,
    telegram: bool,
    alert: &NewAlert,
) -> Result<(), StoreError> {
    if let Some(account) = alert.account_id {
        if alerts::count_at(conn, account, alert.at)? >= i64::from(notify.alerts_per_cabinet_hour) {
            return alerts::hold(conn, account, alert.at);
        }
    }
    send(conn, receivers, telegram, alert)
}

/// Records and queues an alert, past any cap.
fn send(
    conn: &Connection,
    receivers: &Receivers,
    telegram: bool,
    alert: &NewAlert,
) -> Result<(), StoreError> {
    alerts::raise(conn, alert, telegram, unix_now() as i64)?;
    if let Some(account) = alert.account_id {
        let (ad, kind, text, at) = (alert.ad_id, alert.kind, alert.text, alert.at);
        events::queue_alert(conn, receivers, account, ad, kind, text, at)?;
    }
    Ok(())
}

/// The kinds of built-in alert.
const DECLINED: &str = "campaign_declined";
const BUDGET_LOW: &str = "budget_low";
const BALANCE_LOW: &str = "balance_low";
const SESSION_EXPIRED: &str = "session_expired";
const WEBHOOK_FAILING: &str = "webhook_failing";
const HELD_BACK: &str = "alerts_held";

/// Campaigns one alert names at most; the rest are counted.
const LISTED: usize = 10;

/// Checks the built-in alerts after the sync of the hour that ends at `at`. Campaign alerts
/// of one cabinet and kind come as one alert (a person reads one message, not hundreds).
pub fn check_hour(s: &Services, at: DateTime<Utc>) -> Result<(), StoreError> {
    let telegram = !s.config.notify.bot_token.is_empty();
    let percent = s.config.notify.budget_below_percent;
    s.db.write_blocking(|tx| {
        let receivers = Receivers::load(tx)?;
        let at_iso = clock::iso(at);
        let hour_ago = clock::iso(at - Duration::hours(1));
        let day_ago = clock::iso(at - Duration::hours(24));
        let tell = |tx: &Connection, kind: &'static str, about: About, text: String| {
            let (account_id, ad_id, user_id) = match about {
                About::Cabinet(a, ad) => (Some(a), ad, None),
                About::Person(u) => (None, None, Some(u)),
            };
            let alert = NewAlert {
                kind,
                account_id,
                ad_id,
                user_id,
                text: &text,
                at: &at_iso,
            };
            raise(tx, &s.config.notify, &receivers, telegram, &alert)
        };
        let declined = alerts::declined_between(tx, &hour_ago, &at_iso)?;
        for ads in declined.chunk_by(|a, b| a.account_id == b.account_id) {
            if let Some(first) = ads.first() {
                let (about, text) = declined_text(tx, first.account_id, ads)?;
                tell(tx, DECLINED, about, text)?;
            }
        }
        let low = fresh(tx, BUDGET_LOW, alerts::low_budgets(tx, percent)?, &at_iso)?;
        for (account, ads) in by_cabinet(low) {
            let (about, text) =
                campaigns(tx, account, &ads, ("is", "are", "running low on budget"))?;
            tell(tx, BUDGET_LOW, about, text)?;
        }
        for (account, _) in fresh(
            tx,
            BALANCE_LOW,
            alerts::low_balances(tx, &day_ago)?,
            &at_iso,
        )? {
            let text = format!(
                "{}'s balance does not cover another day of spending.",
                cabinet(tx, account)?
            );
            tell(tx, BALANCE_LOW, About::Cabinet(account, None), text)?;
        }
        for (account, _) in fresh(tx, SESSION_EXPIRED, alerts::expired_sessions(tx)?, &at_iso)? {
            let text = format!(
                "{}'s platform session expired: changes fail until it is reconnected.",
                cabinet(tx, account)?
            );
            tell(tx, SESSION_EXPIRED, About::Cabinet(account, None), text)?;
        }
        for (key, user) in fresh(tx, WEBHOOK_FAILING, alerts::failing_keys(tx)?, &at_iso)? {
            let text =
                format!("The webhook deliveries of API key {key} keep failing (the last three).");
            tell(tx, WEBHOOK_FAILING, About::Person(user), text)?;
        }
        Ok(())
    })
}

/// After the hour ending at `at`: one note per cabinet whose alerts of the hour were held
/// back by the cap, saying how many.
pub fn note_held(s: &Services, at: DateTime<Utc>) -> Result<(), StoreError> {
    let telegram = !s.config.notify.bot_token.is_empty();
    let cap = s.config.notify.alerts_per_cabinet_hour;
    let at_iso = clock::iso(at);
    s.db.write_blocking(|tx| {
        let held = alerts::held_at(tx, &at_iso)?;
        if held.is_empty() {
            return Ok(());
        }
        let receivers = Receivers::load(tx)?;
        for (account, count) in held {
            let text = format!(
                "{}: {count} more alert{} of this hour {} held back (at most {cap} are sent an hour); \
                 the rules' logs and the panel show every condition.",
                cabinet(tx, account)?,
                if count == 1 { "" } else { "s" },
                if count == 1 { "was" } else { "were" },
            );
            let note = NewAlert {
                kind: HELD_BACK,
                account_id: Some(account),
                ad_id: None,
                user_id: None,
                text: &text,
                at: &at_iso,
            };
            send(tx, &receivers, telegram, &note)?;
            alerts::noted(tx, account, &at_iso)?;
        }
        Ok(())
    })
}

/// A rule's notice about the campaigns it noticed in one run.
pub struct Notice {
    /// The campaign, when it is one.
    pub ad_id: Option<i64>,
    pub text: String,
}

/// One notice for a rule's run over `ads` (at least one) of a cabinet: the rule's text, its
/// name, and the campaign, or the first [`LISTED`] campaigns and how many more.
pub fn rule_notice(
    tx: &Connection,
    account: i64,
    rule: &str,
    text: &str,
    ads: &[i64],
) -> Result<Notice, StoreError> {
    if let [ad] = ads {
        return Ok(Notice {
            ad_id: Some(*ad),
            text: format!("{text} (rule “{rule}”, campaign {ad})"),
        });
    }
    Ok(Notice {
        ad_id: None,
        text: format!(
            "{text} (rule “{rule}”, {} campaigns of {}: {})",
            ads.len(),
            cabinet(tx, account)?,
            listed(tx, account, ads)?
        ),
    })
}

/// Cabinets a digest lists at most (the most spent first); the rest are counted.
const DIGEST_CABINETS: usize = 30;

/// After the sync of the hour ending at `[notify] daily_digest_hour` (UTC), tells each person
/// with a chat their last 24 hours: spend, views and actions per cabinet they open, and the
/// alerts about it. Telegram only (it is no cabinet's event).
pub fn daily_digest(s: &Services, at: DateTime<Utc>) -> Result<(), StoreError> {
    let notify = &s.config.notify;
    let due = notify.daily_digest_hour >= 0 && at.hour() as i32 == notify.daily_digest_hour;
    if !due || notify.bot_token.is_empty() {
        return Ok(());
    }
    s.db.write_blocking(|tx| {
        let (from, to) = (clock::iso(at - Duration::hours(24)), clock::iso(at));
        for person in alerts::people_with_chats(tx)? {
            let mut days = alerts::days_of(tx, person, &from, &to)?;
            if days.is_empty() {
                continue;
            }
            days.sort_by_key(|d| std::cmp::Reverse(d.totals.spent));
            let mut lines: Vec<String> = days
                .iter()
                .take(DIGEST_CABINETS)
                .map(|d| {
                    let spent = d.cabinet_type.render(d.totals.spent);
                    let told = match d.alerts {
                        0 => String::new(),
                        n => format!(", {n} alert{}", if n == 1 { "" } else { "s" }),
                    };
                    let currency = d.cabinet_type.currency();
                    format!(
                        "{}: {spent} {currency} spent, {} views, {} actions{told}",
                        d.name, d.totals.views, d.totals.actions
                    )
                })
                .collect();
            if days.len() > DIGEST_CABINETS {
                lines.push(format!(
                    "and {} more cabinets",
                    days.len() - DIGEST_CABINETS
                ));
            }
            let text = format!("Your last 24 hours, to {to}:\n{}", lines.join("\n"));
            let digest = NewAlert {
                kind: "daily_digest",
                account_id: None,
                ad_id: None,
                user_id: Some(person),
                text: &text,
                at: &to,
            };
            alerts::raise(tx, &digest, true, unix_now() as i64)?;
        }
        Ok(())
    })
}

/// Who an alert is about: a cabinet (and one of its campaigns), or a person.
enum About {
    Cabinet(i64, Option<i64>),
    Person(i64),
}

/// The conditions of `kind` in `now` not told yet, marked as told now; the marks of those that
/// ended are cleared, so they are told again if they return.
fn fresh(
    tx: &Connection,
    kind: &str,
    now: Vec<(i64, i64)>,
    at: &str,
) -> Result<Vec<(i64, i64)>, StoreError> {
    for (a, b) in alerts::marks_of(tx, kind)? {
        if !now.contains(&(a, b)) {
            alerts::unmark(tx, kind, a, b)?;
        }
    }
    let mut new = Vec::new();
    for (a, b) in now {
        if !alerts::marked(tx, kind, a, b)? {
            alerts::mark(tx, kind, a, b, at)?;
            new.push((a, b));
        }
    }
    Ok(new)
}

/// `(account, ad)` pairs as each cabinet's campaigns, in order.
fn by_cabinet(pairs: Vec<(i64, i64)>) -> BTreeMap<i64, Vec<i64>> {
    let mut out: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for (account, ad) in pairs {
        out.entry(account).or_default().push(ad);
    }
    out
}

/// One alert about `ads` of a cabinet that are (or were) `what`, with its verb for one
/// campaign and for several: the campaign itself when it is one, else the cabinet, naming the
/// first [`LISTED`].
fn campaigns(
    tx: &Connection,
    account: i64,
    ads: &[i64],
    (one, several, what): (&str, &str, &str),
) -> Result<(About, String), StoreError> {
    if let [ad] = ads {
        let text = format!("{} {one} {what}.", campaign(tx, account, *ad)?);
        return Ok((About::Cabinet(account, Some(*ad)), text));
    }
    let text = format!(
        "{} campaigns of {} {several} {what}: {}.",
        ads.len(),
        cabinet(tx, account)?,
        listed(tx, account, ads)?
    );
    Ok((About::Cabinet(account, None), text))
}

/// One alert about campaigns of a cabinet (at least one) the platform's review declined,
/// with the platform's reason: the reason in full after the campaign when it is one, each
/// campaign's short reason after it when they are several.
fn declined_text(
    tx: &Connection,
    account: i64,
    ads: &[Declined],
) -> Result<(About, String), StoreError> {
    const WHAT: &str = "declined by the platform's review";
    if let [one] = ads {
        let campaign = campaign(tx, account, one.ad_id)?;
        let text = match &one.reason {
            Some(r) => sentence(format!("{campaign} was {WHAT}: {}", r.shown())),
            None => format!("{campaign} was {WHAT}."),
        };
        return Ok((About::Cabinet(account, Some(one.ad_id)), text));
    }
    let mut named = Vec::new();
    for d in ads.iter().take(LISTED) {
        let name = named_campaign(tx, account, d.ad_id)?;
        named.push(match &d.reason {
            Some(r) => format!("{name} ({})", r.text()),
            None => name,
        });
    }
    let text = format!(
        "{} campaigns of {} were {WHAT}: {}{}.",
        ads.len(),
        cabinet(tx, account)?,
        named.join(", "),
        more(ads.len())
    );
    Ok((About::Cabinet(account, None), text))
}

/// `text` ending as a sentence: a full stop added unless it ends in one already (or in `?`,
/// `!` or `…`).
fn sentence(text: String) -> String {
    if text.ends_with(['.', '!', '?', '…']) {
        text
    } else {
        format!("{text}.")
    }
}

/// The first [`LISTED`] of a cabinet's `ads` with their titles, and how many more.
fn listed(tx: &Connection, account: i64, ads: &[i64]) -> Result<String, StoreError> {
    let mut named = Vec::new();
    for ad in ads.iter().take(LISTED) {
        named.push(named_campaign(tx, account, *ad)?);
    }
    Ok(format!("{}{}", named.join(", "), more(ads.len())))
}

/// " and N more" for a list of `count` of which [`LISTED`] are named, or nothing.
fn more(count: usize) -> String {
    match count.saturating_sub(LISTED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    }
}

/// "12 “Title”" in a list of campaigns, or the id alone when the copy is gone.
fn named_campaign(tx: &Connection, account: i64, ad: i64) -> Result<String, StoreError> {
    Ok(match campaigns::get(tx, account, ad)?.map(|r| r.title) {
        Some(t) => format!("{ad} “{t}”"),
        None => ad.to_string(),
    })
}

/// "Cabinet “Name”" for a sentence.
fn cabinet(conn: &Connection, account: i64) -> Result<String, StoreError> {
    Ok(match cabinets::get(conn, account)? {
        Some(c) => format!("Cabinet “{}”", c.name),
        None => format!("Cabinet {account}"),
    })
}

/// "Campaign 12 “Title” (Cabinet “Name”)" for a sentence.
fn campaign(conn: &Connection, account: i64, ad: i64) -> Result<String, StoreError> {
    let title = campaigns::get(conn, account, ad)?.map(|r| r.title);
    let cabinet = cabinet(conn, account)?;
    Ok(match title {
        Some(t) => format!("Campaign {ad} “{t}” ({cabinet})"),
        None => format!("Campaign {ad} ({cabinet})"),
    })
}
