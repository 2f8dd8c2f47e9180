-- Auto CPM: a campaign's bid managed toward a goal. Whether it is on is the campaign's
-- `auto_cpm_enabled`; the settings stay when it is switched off.
CREATE TABLE auto_cpm (
    account_id      INTEGER NOT NULL,
    ad_id           INTEGER NOT NULL,
    goal            TEXT NOT NULL CHECK (goal IN ('cpa', 'pace')),
    -- What a `cpa` goal counts as an action: the platform's actions or the client's postbacks.
    cpa_from        TEXT NOT NULL DEFAULT 'actions' CHECK (cpa_from IN ('actions', 'postbacks')),
    target_micros   INTEGER NOT NULL,
    min_cpm_micros  INTEGER NOT NULL,
    max_cpm_micros  INTEGER NOT NULL,
    -- When the bid last moved, or Auto CPM was switched on (service clock): what it did since
    -- then is what the next decision reads.
    moved_at        TEXT NOT NULL,
    PRIMARY KEY (account_id, ad_id)
) WITHOUT ROWID;

-- Every decision after the cooldown: what it read, what it chose and why.
CREATE TABLE auto_cpm_log (
    id           INTEGER PRIMARY KEY,
    account_id   INTEGER NOT NULL,
    ad_id        INTEGER NOT NULL,
    at           TEXT NOT NULL,
    reason       TEXT NOT NULL,
    hours        INTEGER NOT NULL,
    views        INTEGER NOT NULL,
    actions      INTEGER NOT NULL,
    spent_micros INTEGER NOT NULL,
    observed     TEXT,
    from_micros  INTEGER NOT NULL,
    to_micros    INTEGER
);
CREATE INDEX auto_cpm_log_ad ON auto_cpm_log(account_id, ad_id, at);
