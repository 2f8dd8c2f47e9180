//! Owns one update from Telegram, however it came (long polling or the webhook): a button
//! pressed (a proposal's Approve / Reject, a `/pauseall` confirmation) or a command in a chat.
//! The sender is the person whose own chat is their Telegram id; someone else, or a person
//! without Manager or owner access, is told so and nothing runs. Blocking.

use serde_json::Value;

use super::sender::Sender;
use super::{api, commands, outbox};
use crate::i18n::Lang;
use crate::ops::proposals::{self, Choice, ProposalError, Via};
use crate::services::Services;
use crate::store::{bot, StoreError};

/// Handles one update; an update of another kind is ignored.
pub fn handle(s: &Services, update: &Value) -> Result<(), StoreError> {
    if let Some(q) = update.get("callback_query") {
        return callback(s, q);
    }
    let Some(m) = update.get("message") else {
        return Ok(());
    };
    let (Some(chat), Some(from), Some(text)) = (
        m["chat"]["id"].as_i64(),
        m["from"]["id"].as_i64(),
        m["text"].as_str(),
    ) else {
        return Ok(());
    };
    if !text.starts_with('/') {
        return Ok(());
    }
    let reply = match sender(s, from, chat)? {
        Err(lang) => lang.t("bot-not-linked-person").into(),
        Ok(who) => commands::run(s, who, from, chat, text)?,
    };
    if let Err(e) = api::send(&s.config.notify, chat, &reply.text, reply.markup) {
        tracing::warn!(chat, error = %e, "a bot reply not sent");
    }
    Ok(())
}

/// The person Telegram user `from` is; else the language to refuse in (`chat`'s).
fn sender(s: &Services, from: i64, chat: i64) -> Result<Result<Sender, Lang>, StoreError> {
    s.db.read_blocking(|c| match bot::person_of(c, from)? {
        Some((user, lang)) => Ok(Ok(Sender {
            user,
            lang: lang.unwrap_or(Lang::En),
        })),
        None => Ok(Err(bot::chat_lang(c, chat)?.unwrap_or(Lang::En))),
    })
}

/// A button pressed: its data names a proposal and the choice (`p:ID:a`, `p:ID:r`) or a
/// `/pauseall` confirmation (`pa:ID`). The person sees a short answer either way.
fn callback(s: &Services, q: &Value) -> Result<(), StoreError> {
    let id = q["id"].as_str().unwrap_or("");
    let from = q["from"]["id"].as_i64().unwrap_or(0);
    let chat = q["message"]["chat"]["id"].as_i64().unwrap_or(0);
    let message = q["message"]["message_id"].as_i64().unwrap_or(0);
    let data = q["data"].as_str().unwrap_or("");
    let said = match sender(s, from, chat)? {
        Err(lang) => lang.t("bot-not-linked-person"),
        Ok(who) => match data.split(':').collect::<Vec<_>>().as_slice() {
            ["p", proposal, choice] => {
                let choice = match *choice {
                    "a" => Some(Choice::Approve),
                    "r" => Some(Choice::Reject),
                    _ => None,
                };
                match (proposal.parse::<i64>(), choice) {
                    (Ok(p), Some(choice)) => decide(s, who, p, choice)?,
                    _ => who.lang.t("bot-unknown-button"),
                }
            }
            ["pa", confirm] => match confirm.parse::<i64>() {
                Ok(c) => commands::confirm_pause_all(s, who, from, chat, message, c)?,
                Err(_) => who.lang.t("bot-unknown-button"),
            },
            _ => who.lang.t("bot-unknown-button"),
        },
    };
    if let Err(e) = api::answer(&s.config.notify, id, &said) {
        tracing::warn!(error = %e, "a button's answer not sent");
    }
    Ok(())
}

/// Decides a proposal as the person, via Telegram; its messages are edited at once.
fn decide(s: &Services, who: Sender, id: i64, choice: Choice) -> Result<String, StoreError> {
    let lang = who.lang;
    let said = match proposals::decide(s, who.user, Via::Telegram, id, choice) {
        Ok(done) => match (choice, done.done) {
            (Choice::Reject, _) => lang.t("bot-answer-rejected"),
            (Choice::Approve, true) => lang.t("bot-answer-approved"),
            (Choice::Approve, false) => lang.ta(
                "bot-answer-not-done",
                &[("why", done.sentence.trim_start_matches("not done: ").into())],
            ),
        },
        Err(ProposalError::NotFound | ProposalError::NoAccess(_)) => lang.t("bot-no-access"),
        Err(ProposalError::Decided(state)) => lang.ta(
            "bot-answer-already",
            &[("state", lang.t(&format!("proposal-state-{state}")).into())],
        ),
        Err(ProposalError::Store(e)) => return Err(e),
    };
    outbox::round(s)?;
    Ok(said)
}
