//! A fake of the Telegram Bot API for tests: `sendMessage` (its `reply_markup` recorded) and
//! `sendDocument`, and the bot's side of updates: `getUpdates` (long polling, offsets as the
//! Bot API confirms them), `setWebhook`/`deleteWebhook` (injected updates then POSTed to the
//! webhook with its secret token header), `answerCallbackQuery`, `editMessageText` and
//! `editMessageReplyMarkup`. This file owns its public handle (`FakeBot`), the chats it knows,
//! injected faults, injected updates and the record of what the bot did.
//! Included with `#[path]` by test targets; the server itself is in `http.rs`, the update
//! methods in `updates.rs`.
#![allow(dead_code)]

mod http;
mod updates;

#[allow(unused_imports)]
pub use updates::{Answered, Edit, Webhook};

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// The fake server, on `url` until dropped.
pub struct FakeBot {
    /// `http://127.0.0.1:PORT`, no trailing slash; methods are at `{url}/bot{token}/{method}`.
    pub url: String,
    shared: http::Shared,
    server: crate::fake_server::FakeServer,
}

/// What the next `sendMessage` or `sendDocument` calls (with a valid token) answer instead of running normally.
#[derive(Clone, Debug, PartialEq)]
pub enum BotFault {
    /// HTTP 429 `Too Many Requests: retry after N` with `parameters.retry_after`.
    Flood { retry_after: u32 },
    /// HTTP 500 `{"ok":false,"error_code":500,"description":"Internal Server Error"}`.
    ServerError,
    /// HTTP 502 with nginx's HTML page (not JSON), as when Telegram's front end fails.
    BadGateway,
    /// Reads the request and never answers (until the fake is dropped); nothing is sent.
    Hang,
    /// Waits this long, then handles the call normally (recorded when it is answered).
    Delay(Duration),
}

/// One message the fake accepted.
#[derive(Clone, Debug, PartialEq)]
pub struct SentMessage {
    pub chat_id: i64,
    /// Its id in its chat, as edits name it.
    pub message_id: i64,
    pub text: String,
    /// The `reply_markup` sent (an inline keyboard), as JSON.
    pub reply_markup: Option<serde_json::Value>,
    pub parse_mode: Option<String>,
    pub disable_notification: bool,
    pub at: Instant,
}

/// One document the fake accepted, its file as uploaded.
#[derive(Clone, Debug, PartialEq)]
pub struct SentDocument {
    pub chat_id: i64,
    pub filename: String,
    pub content_type: Option<String>,
    pub caption: String,
    pub bytes: Vec<u8>,
    pub at: Instant,
}

#[derive(Default)]
struct Chat {
    blocked: bool,
    last_message_id: i64,
}

pub struct State {
    tokens: HashSet<String>,
    chats: HashMap<i64, Chat>,
    faults: VecDeque<BotFault>,
    messages: Vec<SentMessage>,
    documents: Vec<SentDocument>,
    calls: usize,
    updates: updates::Updates,
}

impl FakeBot {
    /// A fake that accepts one token (like `123456:ABC-xyz`); it knows no chats yet.
    pub fn start(token: &str) -> FakeBot {
        let state = State {
            tokens: HashSet::from([token.to_string()]),
            chats: HashMap::new(),
            faults: VecDeque::new(),
            messages: Vec::new(),
            documents: Vec::new(),
            calls: 0,
            updates: updates::Updates::default(),
        };
        let shared = Arc::new(Mutex::new(state));
        let server = crate::fake_server::FakeServer::start({
            let shared = shared.clone();
            move |req| http::handle(shared.clone(), req)
        });
        FakeBot {
            url: server.url.clone(),
            shared,
            server,
        }
    }

    /// A chat the bot can write to; other chats answer 400 `chat not found`. A positive id is
    /// a private chat, below -1000000000000 a supergroup, another negative id a group.
    pub fn add_chat(&self, chat_id: i64) {
        self.shared.lock().chats.entry(chat_id).or_default();
    }

    /// The chat blocked the bot (or kicked it): 403 from now on. Registers it if unknown.
    pub fn block(&self, chat_id: i64) {
        self.shared.lock().chats.entry(chat_id).or_default().blocked = true;
    }

    /// The next `n` sendMessage or sendDocument calls with a valid token answer with `fault`,
    /// then the fake recovers. Queued after faults already pending.
    pub fn fail_next(&self, n: usize, fault: BotFault) {
        let mut st = self.shared.lock();
        st.faults.extend(std::iter::repeat_n(fault, n));
    }

    /// Every accepted message, in order.
    pub fn messages(&self) -> Vec<SentMessage> {
        self.shared.lock().messages.clone()
    }

    pub fn messages_to(&self, chat_id: i64) -> Vec<SentMessage> {
        let st = self.shared.lock();
        let to_chat = st.messages.iter().filter(|m| m.chat_id == chat_id);
        to_chat.cloned().collect()
    }

    /// Every document accepted, in order.
    pub fn documents(&self) -> Vec<SentDocument> {
        self.shared.lock().documents.clone()
    }

    /// Every request received, accepted or not (bad token, unknown method, faults included),
    /// but the update side's (`getUpdates`, the webhook's, answers and edits: see `polls`,
    /// `answered`, `edits`), which a bot makes all the time.
    pub fn calls(&self) -> usize {
        self.shared.lock().calls
    }

    /// Polls until at least `n` messages were accepted and returns them all; panics on timeout.
    pub async fn wait_for_messages(&self, n: usize, timeout: Duration) -> Vec<SentMessage> {
        let deadline = Instant::now() + timeout;
        loop {
            let got = self.messages();
            if got.len() >= n {
                return got;
            }
            if Instant::now() >= deadline {
                panic!(
                    "fake bot: waited {timeout:?} for {n} message(s), got {} ({} call(s) received): {got:#?}",
                    got.len(),
                    self.calls()
                );
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}
