//! Owns who sent an update to the bot: the person its Telegram id is linked to, in their
//! language, as the buttons and the commands both read it.

use crate::i18n::Lang;

/// Who sent an update: the person, in their language.
#[derive(Debug, Clone, Copy)]
pub struct Sender {
    pub user: i64,
    pub lang: Lang,
}
