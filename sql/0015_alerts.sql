-- Alerts: what automation tells people (a rule's notify action, and built-in alerts), sent to
-- Telegram chats through the Bot API and to the keys' webhooks as `alert` events.

-- The Telegram chat a person, or a cabinet, receives alerts in; NULL: none. A chat that
-- blocked the bot is switched off (set back to NULL) when a send learns it.
ALTER TABLE users ADD COLUMN telegram_chat INTEGER;
ALTER TABLE cabinets ADD COLUMN telegram_chat INTEGER;

-- One alert. `account_id` is NULL for one about a person's keys (webhooks failing), which
-- goes to `user_id` only.
CREATE TABLE alerts (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    account_id  INTEGER,
    ad_id       INTEGER,
    user_id     INTEGER,
    text        TEXT NOT NULL,
    at          TEXT NOT NULL
);

-- One alert to one chat. `state`: `pending` (to send; `next_at` is wall time, unix seconds),
-- `sent`, `undeliverable` (the chat refused it: blocked, unknown) or `failed` (gave up after
-- the attempts).
CREATE TABLE alert_sends (
    id          INTEGER PRIMARY KEY,
    alert_id    INTEGER NOT NULL,
    chat_id     INTEGER NOT NULL,
    owner       TEXT NOT NULL CHECK (owner IN ('user', 'cabinet')),
    owner_id    INTEGER NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'undeliverable', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     INTEGER NOT NULL,
    detail      TEXT
);
CREATE INDEX alert_sends_pending ON alert_sends(state, next_at);

-- Conditions already alerted, so each is told once until it clears: (kind, account, ad).
CREATE TABLE alert_marks (
    kind        TEXT NOT NULL,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    at          TEXT NOT NULL,
    PRIMARY KEY (kind, account_id, ad_id)
) WITHOUT ROWID;

-- The declined-campaign alert reads the hour's declines without scanning every status event.
CREATE INDEX status_events_declined ON status_events(at) WHERE new_status = 'Declined';
