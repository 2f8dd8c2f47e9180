-- The Telegram Ads connector's own state, apart from the service's copy.
-- Each ad's lifetime counters as last read from the platform, and when: an ad whose counters
-- have not moved since before an hour closed had no delivery after it, so the sync asks the
-- platform for its 5-minute series only when they moved.
CREATE TABLE tg_seen (
    account_id    INTEGER NOT NULL,
    ad_id         INTEGER NOT NULL,
    views         INTEGER NOT NULL,
    opens         INTEGER NOT NULL,
    clicks        INTEGER NOT NULL,
    actions       INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    seen_at       INTEGER NOT NULL,
    PRIMARY KEY (account_id, ad_id)
);

-- Deletes by operation token: a repeat of the same delete (a bulk item resumed after a crash)
-- returns the recorded result instead of "no such ad".
CREATE TABLE tg_deletes (
    token       TEXT PRIMARY KEY,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    removed     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL
);
