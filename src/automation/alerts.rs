//! Owns raising alerts: a rule's notice and the built-in ones checked after each hourly sync
//! (a campaign declined, a running campaign's budget low, a cabinet's balance short of a day's
//! spend, a platform session expired, a key's webhook deliveries failing). Each goes to the
//! keys' webhooks as an `alert` event (when it is about a cabinet) and to the Telegram chats
//! that read it. A standing condition is told once, and again only after it cleared.

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;

use crate::clock;
use crate::primitives::unix_now;
use crate::store::alerts::{self, NewAlert};
use crate::store::{cabinets, campaigns, StoreError};
use crate::webhooks::events::{self, Receivers};
use crate::Services;

/// Records an alert, queues its `alert` webhooks to `receivers` and, with a bot configured,
/// its Telegram sends. Runs in the caller's write transaction.
pub fn raise(
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

/// Checks the built-in alerts after the sync of the hour that ends at `at`.
pub fn check_hour(s: &Services, at: DateTime<Utc>) -> Result<(), StoreError> {
    let telegram = !s.config.notify.bot_token.is_empty();
    let percent = s.config.notify.budget_below_percent;
    s.db.write_blocking(|tx| {
        let receivers = Receivers::load(tx)?;
        let at_iso = clock::iso(at);
        let hour_ago = clock::iso(at - Duration::hours(1));
        for (account, ad) in alerts::declined_between(tx, &hour_ago, &at_iso)? {
            let text = format!(
                "{} was declined by the platform's review.",
                campaign(tx, account, ad)?
            );
            let alert = NewAlert {
                kind: DECLINED,
                account_id: Some(account),
                ad_id: Some(ad),
                user_id: None,
                text: &text,
                at: &at_iso,
            };
            raise(tx, &receivers, telegram, &alert)?;
        }
        let told = Told {
            receivers: &receivers,
            telegram,
            at: &at_iso,
        };
        let standing =
            |tx: &Connection, kind: &str, now: Vec<(i64, i64)>| standing(tx, &told, kind, now);
        standing(tx, BUDGET_LOW, alerts::low_budgets(tx, percent)?)?;
        let day_ago = clock::iso(at - Duration::hours(24));
        standing(tx, BALANCE_LOW, alerts::low_balances(tx, &day_ago)?)?;
        standing(tx, SESSION_EXPIRED, alerts::expired_sessions(tx)?)?;
        standing(tx, WEBHOOK_FAILING, alerts::failing_keys(tx)?)
    })
}

/// Where and when alerts of one check go.
struct Told<'a> {
    receivers: &'a Receivers,
    telegram: bool,
    at: &'a str,
}

/// Tells each condition in `now` not yet told, and clears the marks of those that ended.
fn standing(
    tx: &Connection,
    told: &Told,
    kind: &str,
    now: Vec<(i64, i64)>,
) -> Result<(), StoreError> {
    let at = told.at;
    for (a, b) in alerts::marks_of(tx, kind)? {
        if !now.contains(&(a, b)) {
            alerts::unmark(tx, kind, a, b)?;
        }
    }
    for (a, b) in now {
        if alerts::marked(tx, kind, a, b)? {
            continue;
        }
        alerts::mark(tx, kind, a, b, at)?;
        let (account, ad, user, text) = match kind {
            BUDGET_LOW => (
                Some(a),
                Some(b),
                None,
                format!("{} is running low on budget.", campaign(tx, a, b)?),
            ),
            BALANCE_LOW => (
                Some(a),
                None,
                None,
                format!(
                    "{}'s balance does not cover another day of spending.",
                    cabinet(tx, a)?
                ),
            ),
            SESSION_EXPIRED => (
                Some(a),
                None,
                None,
                format!(
                    "{}'s platform session expired: changes fail until it is reconnected.",
                    cabinet(tx, a)?
                ),
            ),
            _ => (
                None,
                None,
                Some(b),
                format!("The webhook deliveries of API key {a} keep failing (the last three)."),
            ),
        };
        let alert = NewAlert {
            kind,
            account_id: account,
            ad_id: ad,
            user_id: user,
            text: &text,
            at,
        };
        raise(tx, told.receivers, told.telegram, &alert)?;
    }
    Ok(())
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
