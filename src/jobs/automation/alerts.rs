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
use crate::i18n::{Arg, Lang, Texts};
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
        // The `alert` event speaks the API's language, English.
        let (ad, kind, text, at) = (alert.ad_id, alert.kind, alert.text, alert.at);
        events::queue_alert(conn, receivers, account, ad, kind, text.get(Lang::En), at)?;
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
        let tell = |tx: &Connection, kind: &'static str, about: About, text: Texts| {
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
            let (about, text) = budget_low_text(tx, account, &ads)?;
            tell(tx, BUDGET_LOW, about, text)?;
        }
        for (account, _) in fresh(
            tx,
            BALANCE_LOW,
            alerts::low_balances(tx, &day_ago)?,
            &at_iso,
        )? {
            let names = Names::read(tx, account, &[])?;
            let text = Texts::build(|lang| {
                lang.ta(
                    "alert-balance-low",
                    &[("cabinet", names.cabinet(lang).into())],
                )
            });
            tell(tx, BALANCE_LOW, About::Cabinet(account, None), text)?;
        }
        for (account, _) in fresh(tx, SESSION_EXPIRED, alerts::expired_sessions(tx)?, &at_iso)? {
            let names = Names::read(tx, account, &[])?;
            let text = Texts::build(|lang| {
                lang.ta(
                    "alert-session-expired",
                    &[("cabinet", names.cabinet(lang).into())],
                )
            });
            tell(tx, SESSION_EXPIRED, About::Cabinet(account, None), text)?;
        }
        for (key, user) in fresh(tx, WEBHOOK_FAILING, alerts::failing_keys(tx)?, &at_iso)? {
            let text = Texts::build(|lang| {
                lang.ta("alert-webhook-failing", &[("key", key.to_string().into())])
            });
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
            let names = Names::read(tx, account, &[])?;
            let text = Texts::build(|lang| {
                lang.ta(
                    "alert-held",
                    &[
                        ("cabinet", names.cabinet(lang).into()),
                        ("count", count.into()),
                        ("cap", i64::from(cap).into()),
                    ],
                )
            });
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
    pub text: Texts,
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
        let said = Texts::build(|lang| {
            lang.ta(
                "alert-rule-one",
                &[
                    ("text", text.into()),
                    ("rule", rule.into()),
                    ("ad", ad.to_string().into()),
                ],
            )
        });
        return Ok(Notice {
            ad_id: Some(*ad),
            text: said,
        });
    }
    let names = Names::read(tx, account, ads)?;
    let said = Texts::build(|lang| {
        lang.ta(
            "alert-rule-many",
            &[
                ("text", text.into()),
                ("rule", rule.into()),
                ("count", ads.len().into()),
                ("cabinet", names.cabinet(lang).into()),
                ("list", names.listed(lang, ads).into()),
            ],
        )
    });
    Ok(Notice {
        ad_id: None,
        text: said,
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
            let text = Texts::build(|lang| digest_text(lang, &days, &to));
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

/// A person's day: a line per cabinet (the most spent first, at most [`DIGEST_CABINETS`]).
fn digest_text(lang: Lang, days: &[alerts::CabinetDay], to: &str) -> String {
    let mut lines = vec![lang.ta("alert-digest", &[("to", to.into())])];
    for d in days.iter().take(DIGEST_CABINETS) {
        let args = [
            ("name", Arg::from(d.name.as_str())),
            ("spent", d.cabinet_type.render(d.totals.spent).into()),
            ("currency", d.cabinet_type.currency().into()),
            ("views", d.totals.views.to_string().into()),
            ("actions", d.totals.actions.to_string().into()),
            ("count", d.alerts.into()),
        ];
        let key = match d.alerts {
            0 => "alert-digest-line",
            _ => "alert-digest-line-alerts",
        };
        lines.push(lang.ta(key, &args));
    }
    if days.len() > DIGEST_CABINETS {
        let more = days.len() - DIGEST_CABINETS;
        lines.push(lang.ta("alert-digest-more", &[("count", more.into())]));
    }
    lines.join("\n")
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

/// One alert about `ads` of a cabinet running low on budget: the campaign itself when it is
/// one, else the cabinet, naming the first [`LISTED`].
fn budget_low_text(
    tx: &Connection,
    account: i64,
    ads: &[i64],
) -> Result<(About, Texts), StoreError> {
    let names = Names::read(tx, account, ads)?;
    if let [ad] = ads {
        let text = Texts::build(|lang| {
            lang.ta(
                "alert-budget-low-one",
                &[("campaign", names.campaign(lang, *ad).into())],
            )
        });
        return Ok((About::Cabinet(account, Some(*ad)), text));
    }
    let text = Texts::build(|lang| {
        lang.ta(
            "alert-budget-low-many",
            &[
                ("count", ads.len().into()),
                ("cabinet", names.cabinet(lang).into()),
                ("list", names.listed(lang, ads).into()),
            ],
        )
    });
    Ok((About::Cabinet(account, None), text))
}

/// One alert about campaigns of a cabinet (at least one) the platform's review declined,
/// with the platform's reason: the reason in full after the campaign when it is one, each
/// campaign's short reason after it when they are several.
fn declined_text(
    tx: &Connection,
    account: i64,
    ads: &[Declined],
) -> Result<(About, Texts), StoreError> {
    let ids: Vec<i64> = ads.iter().map(|d| d.ad_id).collect();
    let names = Names::read(tx, account, &ids)?;
    if let [one] = ads {
        let text = Texts::build(|lang| {
            let campaign = names.campaign(lang, one.ad_id);
            match &one.reason {
                Some(r) => sentence(lang.ta(
                    "alert-declined-one-reason",
                    &[("campaign", campaign.into()), ("reason", r.shown().into())],
                )),
                None => lang.ta("alert-declined-one", &[("campaign", campaign.into())]),
            }
        });
        return Ok((About::Cabinet(account, Some(one.ad_id)), text));
    }
    let text = Texts::build(|lang| {
        let named: Vec<String> = ads
            .iter()
            .take(LISTED)
            .map(|d| {
                let name = names.named(lang, d.ad_id);
                match &d.reason {
                    Some(r) => format!("{name} ({})", r.text()),
                    None => name,
                }
            })
            .collect();
        lang.ta(
            "alert-declined-many",
            &[
                ("count", ads.len().into()),
                ("cabinet", names.cabinet(lang).into()),
                ("list", more(lang, named.join(", "), ads.len()).into()),
            ],
        )
    });
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

/// `list` (the first [`LISTED`] of `count`) with "and N more" when some were left out.
fn more(lang: Lang, list: String, count: usize) -> String {
    match count.saturating_sub(LISTED) {
        0 => list,
        n => lang.ta(
            "alert-and-more",
            &[("list", list.into()), ("count", n.into())],
        ),
    }
}

/// The names an alert about a cabinet (and some of its campaigns) writes, read once and
/// written in each language: the cabinet's name and the titles of the first [`LISTED`]
/// campaigns (a campaign whose copy is gone has none).
struct Names {
    account: i64,
    cabinet: Option<String>,
    titles: BTreeMap<i64, String>,
}

impl Names {
    fn read(conn: &Connection, account: i64, ads: &[i64]) -> Result<Names, StoreError> {
        let mut titles = BTreeMap::new();
        for ad in ads.iter().take(LISTED) {
            if let Some(row) = campaigns::get(conn, account, *ad)? {
                titles.insert(*ad, row.title);
            }
        }
        Ok(Names {
            account,
            cabinet: cabinets::get(conn, account)?.map(|c| c.name),
            titles,
        })
    }

    /// "Cabinet “Name”" for a sentence.
    fn cabinet(&self, lang: Lang) -> String {
        match &self.cabinet {
            Some(name) => lang.ta("alert-cabinet", &[("name", name.as_str().into())]),
            None => lang.ta(
                "alert-cabinet-id",
                &[("id", self.account.to_string().into())],
            ),
        }
    }

    /// "Campaign 12 “Title” (Cabinet “Name”)" for a sentence.
    fn campaign(&self, lang: Lang, ad: i64) -> String {
        let (ad_text, cabinet) = (ad.to_string(), self.cabinet(lang));
        match self.titles.get(&ad) {
            Some(t) => lang.ta(
                "alert-campaign",
                &[
                    ("ad", ad_text.into()),
                    ("title", t.as_str().into()),
                    ("cabinet", cabinet.into()),
                ],
            ),
            None => lang.ta(
                "alert-campaign-id",
                &[("ad", ad_text.into()), ("cabinet", cabinet.into())],
            ),
        }
    }

    /// "12 “Title”" in a list of campaigns, or the id alone when the copy is gone.
    fn named(&self, lang: Lang, ad: i64) -> String {
        match self.titles.get(&ad) {
            Some(t) => lang.ta(
                "alert-named",
                &[("ad", ad.to_string().into()), ("title", t.as_str().into())],
            ),
            None => ad.to_string(),
        }
    }

    /// The first [`LISTED`] of `ads` with their titles, and how many more.
    fn listed(&self, lang: Lang, ads: &[i64]) -> String {
        let named: Vec<String> = ads
            .iter()
            .take(LISTED)
            .map(|ad| self.named(lang, *ad))
            .collect();
        more(lang, named.join(", "), ads.len())
    }
}
