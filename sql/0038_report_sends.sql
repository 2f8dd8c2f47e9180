-- Each scheduled client report: one row per cabinet, schedule and period (its first and last
-- day, YYYY-MM-DD, in the owner's time zone `time_zone`, an IANA name; 'UTC' when none), written when the period's report is first due
-- and kept with the outcome of sending its PDF to the cabinet's Telegram chat, so that a
-- period is sent once, across restarts and retries. `state`: 'pending' (to send at
-- `next_at`, service-clock unix seconds), 'sent', 'failed' (given up: `detail` says why) or
-- 'no_chat' (the cabinet had no chat or the service no bot: the webhook event only).
CREATE TABLE report_sends (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES cabinets(id) ON DELETE CASCADE,
    schedule    TEXT NOT NULL CHECK (schedule IN ('weekly', 'monthly')),
    first_day   TEXT NOT NULL,
    last_day    TEXT NOT NULL,
    language    TEXT NOT NULL,
    time_zone   TEXT NOT NULL,
    chat_id     INTEGER,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed', 'no_chat')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     INTEGER,
    detail      TEXT,
    created_at  TEXT NOT NULL,
    sent_at     TEXT,
    UNIQUE (account_id, schedule, first_day)
);
CREATE INDEX report_sends_pending ON report_sends (next_at) WHERE state = 'pending';
