-- Sync, stats and the webhook outbox.

-- Where the scheduler stands: the start of the next hour to sync, and of the next hour whose
-- digest is due. NULL until the first start, which begins at the hour then in progress.
CREATE TABLE scheduler_state (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    next_sync_hour    TEXT,
    next_digest_hour  TEXT
);
INSERT INTO scheduler_state (id) VALUES (1);

-- What each campaign gained in one hour of the service clock (`hour` is the hour's start).
-- Rows exist only for hours with a gain; money in micro-units.
CREATE TABLE hourly_stats (
    account_id    INTEGER NOT NULL,
    ad_id         INTEGER NOT NULL,
    hour          TEXT NOT NULL,
    views         INTEGER NOT NULL,
    opens         INTEGER NOT NULL,
    clicks        INTEGER NOT NULL,
    actions       INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    PRIMARY KEY (account_id, hour, ad_id)
) WITHOUT ROWID;
CREATE INDEX hourly_stats_ad ON hourly_stats(account_id, ad_id, hour);

-- Each campaign's lifetime counters as of its last hourly sync: the baseline of the next gain.
CREATE TABLE stat_marks (
    account_id    INTEGER NOT NULL,
    ad_id         INTEGER NOT NULL,
    views         INTEGER NOT NULL,
    opens         INTEGER NOT NULL,
    clicks        INTEGER NOT NULL,
    actions       INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    PRIMARY KEY (account_id, ad_id)
) WITHOUT ROWID;

-- Webhook events waiting to be sent, one row per receiving key. A row leaves the outbox once
-- its delivery (with its one retry) is logged in `webhook_deliveries`, so a restart loses none.
-- `payload` lacks `delivered_at`, which is stamped when it is sent.
CREATE TABLE webhook_outbox (
    id           INTEGER PRIMARY KEY,
    key_id       INTEGER NOT NULL REFERENCES api_keys(id),
    event        TEXT NOT NULL,
    delivery_id  TEXT NOT NULL UNIQUE,
    payload      TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX webhook_outbox_key ON webhook_outbox(key_id, id);
CREATE INDEX status_events_at ON status_events(account_id, at);
