//! Owns the bot's chat commands: `/status` (today's spend per cabinet and what needs
//! attention), `/pause <campaign>` (its id or exact title) and `/pauseall` (which only asks;
//! the button it sends pauses), each for the cabinets the chat reaches: the cabinet linked to
//! it, or in a person's own chat every cabinet they manage; only a person with Manager or
//! owner access is answered. A pause is the panel's switch (`ops::campaigns::edit::switch`)
//! with the person as its actor through Telegram. Blocking.

use chrono::Duration;
use serde_json::Value;

use super::api;
use super::sender::Sender;
use crate::clock;
use crate::domain::campaign::Source;
use crate::i18n::Lang;
use crate::ops::campaigns::edit;
use crate::ops::reports::midnight;
use crate::ops::{Actor, OpsError};
use crate::services::Services;
use crate::store::cabinets::{self, Reachable};
use crate::store::{attention, bot, proposals, stats, StoreError};

/// How long a `/pauseall` waits for its confirmation.
const CONFIRM_MINUTES: i64 = 10;

/// A reply: its text and, for `/pauseall`, the confirmation button.
pub struct Reply {
    pub text: String,
    pub markup: Option<Value>,
}

impl From<String> for Reply {
    fn from(text: String) -> Reply {
        Reply { text, markup: None }
    }
}

/// Runs the command `text` sent by `who` in `chat`.
pub fn run(
    s: &Services,
    who: Sender,
    from: i64,
    chat: i64,
    text: &str,
) -> Result<Reply, StoreError> {
    let lang = who.lang;
    let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    // `/pause@adcab_bot` in a group names the bot.
    let word = word.split('@').next().unwrap_or(word);
    if !matches!(word, "/status" | "/pause" | "/pauseall") {
        return Ok(lang.t("bot-help").into());
    }
    let cabinets = match scope(s, who, from, chat)? {
        Ok(c) => c,
        Err(refusal) => return Ok(refusal.into()),
    };
    match word {
        "/status" => status(s, lang, &cabinets).map(Reply::from),
        "/pause" => pause(s, who, &cabinets, rest.trim()).map(Reply::from),
        _ => ask_pause_all(s, who, chat, &cabinets),
    }
}

/// The cabinets a command in `chat` acts on, where `who` has Manager or owner access: those
/// linked to the chat, or in their own chat (`chat` is their id) all they manage; else the
/// refusal.
fn scope(
    s: &Services,
    who: Sender,
    from: i64,
    chat: i64,
) -> Result<Result<Vec<Reachable>, String>, StoreError> {
    let (reach, linked) = s.db.read_blocking(|c| {
        Ok::<_, StoreError>((
            cabinets::reachable_by(c, who.user)?,
            bot::cabinets_of_chat(c, chat)?,
        ))
    })?;
    let writable = |r: &Reachable| r.access.can_write() && r.cabinet.is_active;
    let mine: Vec<Reachable> = if !linked.is_empty() {
        reach
            .into_iter()
            .filter(|r| linked.contains(&r.cabinet.id) && writable(r))
            .collect()
    } else if chat == from {
        reach.into_iter().filter(writable).collect()
    } else {
        return Ok(Err(who.lang.t("bot-not-linked-chat")));
    };
    if mine.is_empty() {
        return Ok(Err(who.lang.t("bot-no-access")));
    }
    Ok(Ok(mine))
}

/// Today's spend (UTC, on the service clock) per cabinet, and what needs attention.
fn status(s: &Services, lang: Lang, cabinets: &[Reachable]) -> Result<String, StoreError> {
    s.db.read_blocking(|c| {
        let now = clock::now(c)?;
        let today = midnight(chrono_tz::UTC, now.date_naive());
        let (from, to) = (clock::iso(today), clock::iso(now));
        let mut lines = vec![lang.t("bot-status-head")];
        let ids: Vec<i64> = cabinets.iter().map(|r| r.cabinet.id).collect();
        let waiting = proposals::named(c, None, &ids, &to)?;
        for r in cabinets {
            let cab = &r.cabinet;
            let kind = cab.cabinet_type;
            let spent = stats::of_cabinet(c, cab.id, &from, &to)?.spent;
            let declined = attention::declined(c, cab.id, 0)?.total;
            let out = attention::out_of_budget(c, cab.id, 0)?.total;
            let soon = attention::about_to_stop(c, cab.id, 0)?.total;
            let asks = waiting
                .iter()
                .filter(|n| n.row.account_id == cab.id)
                .count();
            lines.push(lang.ta(
                "bot-status-cabinet",
                &[
                    ("cabinet", cab.name.as_str().into()),
                    ("spent", kind.render(spent).into()),
                    ("currency", kind.currency().into()),
                ],
            ));
            if declined + out + soon + asks as i64 == 0 {
                lines.push(lang.t("bot-status-fine"));
            } else {
                lines.push(lang.ta(
                    "bot-status-attention",
                    &[
                        ("declined", declined.into()),
                        ("out", out.into()),
                        ("soon", soon.into()),
                        ("proposals", (asks as i64).into()),
                    ],
                ));
            }
        }
        Ok(lines.join("\n"))
    })
}

/// `/pause <campaign>`: the one live campaign of the scope with that id or exact title.
fn pause(
    s: &Services,
    who: Sender,
    cabinets: &[Reachable],
    name: &str,
) -> Result<String, StoreError> {
    let lang = who.lang;
    if name.is_empty() {
        return Ok(lang.t("bot-pause-which"));
    }
    let ids: Vec<i64> = cabinets.iter().map(|r| r.cabinet.id).collect();
    let found =
        s.db.read_blocking(|c| bot::campaigns_named(c, &ids, name))?;
    let (account, ad, title) = match found.as_slice() {
        [] => return Ok(lang.ta("bot-pause-none", &[("name", name.into())])),
        [one] => one.clone(),
        _ => return Ok(lang.ta("bot-pause-many", &[("name", name.into())])),
    };
    let Some(reach) = cabinets.iter().find(|r| r.cabinet.id == account) else {
        return Ok(lang.t("bot-no-access"));
    };
    Ok(switch_off(s, lang, who, reach, ad, &title).1)
}

/// Pauses one campaign as `who` through Telegram: whether it did, and the sentence that says
/// how it went.
fn switch_off(
    s: &Services,
    lang: Lang,
    who: Sender,
    reach: &Reachable,
    ad: i64,
    title: &str,
) -> (bool, String) {
    let args = |why: String| {
        [
            ("title", title.into()),
            ("id", ad.to_string().into()),
            ("why", why.into()),
        ]
    };
    let actor = match Actor::writer(Source::Telegram, who.user, reach) {
        Ok(a) => a,
        Err(_) => return (false, lang.t("bot-no-access")),
    };
    match edit::switch(s, &actor, ad, false) {
        Ok(_) => (true, lang.ta("bot-paused", &args(String::new()))),
        Err(e) => (false, lang.ta("bot-pause-failed", &args(refusal(e)))),
    }
}

/// Why a pause failed, for the person: never an internal detail.
fn refusal(e: OpsError) -> String {
    match e {
        OpsError::Platform(p) => p.to_string(),
        OpsError::Refused(r) => r.sentence().to_string(),
        OpsError::NotFound | OpsError::RuleNotFound | OpsError::UnknownAdIds(_) => {
            "no such live campaign".into()
        }
        OpsError::Store(_)
        | OpsError::Internal(_)
        | OpsError::NotYours(_)
        | OpsError::Invalid(_)
        | OpsError::Media(_)
        | OpsError::BudgetUnchanged
        | OpsError::QueueFull { .. }
        | OpsError::Funds(_) => {
            tracing::error!(error = ?e, "a pause through the bot failed");
            "an internal error".into()
        }
    }
}

/// `/pauseall`: counts the running campaigns and asks for a confirmation with a button.
fn ask_pause_all(
    s: &Services,
    who: Sender,
    chat: i64,
    cabinets: &[Reachable],
) -> Result<Reply, StoreError> {
    let lang = who.lang;
    let count: usize = s.db.read_blocking(|c| {
        let mut n = 0;
        for r in cabinets {
            n += bot::running(c, r.cabinet.id)?.len();
        }
        Ok::<_, StoreError>(n)
    })?;
    if count == 0 {
        return Ok(lang.t("bot-pauseall-none").into());
    }
    let id = s.db.write_blocking(|tx| {
        let now = clock::iso(clock::now(tx)?);
        bot::ask_confirm(tx, chat, who.user, &now)
    })?;
    let n = (count as i64).into();
    let button = lang.ta("bot-pauseall-button", &[("count", (count as i64).into())]);
    Ok(Reply {
        text: lang.ta("bot-pauseall-ask", &[("count", n)]),
        markup: Some(api::keyboard(&[(button, format!("pa:{id}"))])),
    })
}

/// The `/pauseall` confirmation `id` pressed by `who` in `chat` under `message`: pauses the
/// running campaigns of the scope once; an old or used confirmation does nothing.
pub fn confirm_pause_all(
    s: &Services,
    who: Sender,
    from: i64,
    chat: i64,
    message: i64,
    id: i64,
) -> Result<String, StoreError> {
    let lang = who.lang;
    let taken = s.db.write_blocking(|tx| {
        let since = clock::iso(clock::now(tx)? - Duration::minutes(CONFIRM_MINUTES));
        bot::take_confirm(tx, id, chat, who.user, &since)
    })?;
    if !taken {
        return Ok(lang.t("bot-pauseall-expired"));
    }
    let cabinets = match scope(s, who, from, chat)? {
        Ok(c) => c,
        Err(refusal) => return Ok(refusal),
    };
    let (mut done, mut count) = (0_i64, 0_i64);
    for reach in &cabinets {
        let running = s.db.read_blocking(|c| bot::running(c, reach.cabinet.id))?;
        for (_, ad, title) in running {
            count += 1;
            if switch_off(s, lang, who, reach, ad, &title).0 {
                done += 1;
            }
        }
    }
    let text = lang.ta(
        "bot-pauseall-done",
        &[("done", done.into()), ("count", count.into())],
    );
    if let Err(e) = api::edit(&s.config.notify, chat, message, &text) {
        tracing::warn!(chat, error = %e, "the /pauseall confirmation not edited");
    }
    Ok(text)
}
