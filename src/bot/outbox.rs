//! Owns the proposals' messages: each queued one sent to its chat with the Approve / Reject
//! keyboard (its message id kept), and each sent one of a decided proposal edited to say who
//! decided what (its keyboard removed). A chat that refuses is given up after a few
//! attempts; no answer is tried again on the next round. Blocking.

use super::api;
use crate::i18n::Lang;
use crate::ops::proposal_text as texts;
use crate::services::Services;
use crate::store::proposals::{self, Message};
use crate::store::{bot, cabinets, users, StoreError};

/// Attempts of one message before it is given up.
const ATTEMPTS: i64 = 5;
/// Messages taken per round.
const BATCH: usize = 20;

/// Sends the queued messages and edits those of decided proposals; how many it handled.
pub fn round(s: &Services) -> Result<usize, StoreError> {
    let config = &s.config.notify;
    let to_send =
        s.db.read_blocking(|c| proposals::messages_in(c, "pending", BATCH))?;
    for m in &to_send {
        let (text, lang) = match compose(s, m)? {
            Some(t) => t,
            None => {
                s.db.write_blocking(|tx| proposals::set_message(tx, m, "done", None))?;
                continue;
            }
        };
        let buttons = [
            (lang.t("bot-approve"), format!("p:{}:a", m.proposal_id)),
            (lang.t("bot-reject"), format!("p:{}:r", m.proposal_id)),
        ];
        let sent = api::send(config, m.chat_id, &text, Some(api::keyboard(&buttons)));
        let (state, id) = match sent {
            Ok(id) => ("sent", Some(id)),
            Err(api::BotError::Refused { status, .. }) if status < 500 && status != 429 => {
                ("failed", None)
            }
            Err(_) if m.attempts + 1 >= ATTEMPTS => ("failed", None),
            Err(_) => ("pending", None),
        };
        if let Err(e) = &sent {
            tracing::warn!(chat = m.chat_id, proposal = m.proposal_id, error = %e, "a proposal's message not sent");
        }
        s.db.write_blocking(|tx| proposals::set_message(tx, m, state, id))?;
    }
    let to_edit =
        s.db.read_blocking(|c| proposals::messages_in(c, "edit", BATCH))?;
    for m in &to_edit {
        let text = s.db.read_blocking(|c| {
            let Some(p) = proposals::get(c, m.proposal_id)? else {
                return Ok(None);
            };
            let who = match p.decided_by {
                Some(id) => users::get(c, id)?.map(|u| u.email),
                None => None,
            };
            let lang = bot::chat_lang(c, m.chat_id)?.unwrap_or(Lang::En);
            Ok::<_, StoreError>(Some(texts::decided(lang, &p, who.as_deref())))
        })?;
        let state = match (text, m.message_id) {
            (Some(text), Some(message)) => match api::edit(config, m.chat_id, message, &text) {
                Ok(()) => "done",
                Err(api::BotError::Refused { .. }) => "done",
                Err(_) if m.attempts + 1 >= ATTEMPTS => "done",
                Err(_) => "edit",
            },
            _ => "done",
        };
        s.db.write_blocking(|tx| proposals::set_message(tx, m, state, None))?;
    }
    Ok(to_send.len() + to_edit.len())
}

/// A queued message's text and language; `None` when its proposal is no longer pending.
fn compose(s: &Services, m: &Message) -> Result<Option<(String, Lang)>, StoreError> {
    s.db.read_blocking(|c| {
        let Some(n) = proposals::named(c, Some(m.proposal_id), &[], "")?
            .into_iter()
            .next()
        else {
            return Ok(None);
        };
        if n.row.state != "pending" {
            return Ok(None);
        }
        let Some(cabinet) = cabinets::get(c, n.row.account_id)? else {
            return Ok(None);
        };
        let lang = bot::chat_lang(c, m.chat_id)?.unwrap_or(Lang::En);
        let text = texts::proposal(lang, &n, &cabinet.name, cabinet.cabinet_type);
        Ok(Some((text, lang)))
    })
}
