-- Automation's money guards hold across a crash and a rule's deletion; an hour's alerts per
-- cabinet are capped; a campaign removed outright leaves no refs behind.

-- The money automation moved, or set out to move, into a campaign: kept apart from the rules,
-- so a deleted rule's moves still count against its cabinet's daily cap. A move is recorded
-- with its idempotency token before the platform is asked (`planned`), then `done`, or
-- `failed` (it counts for nothing). A move a crash or a timeout left `planned` counts, and is
-- asked again with the same token on the next run, so the money moves at most once.
-- `log_id` is its entry in `rule_log` (NULL once retention removed that).
CREATE TABLE automation_moves (
    id            INTEGER PRIMARY KEY,
    token         TEXT NOT NULL UNIQUE,
    account_id    INTEGER NOT NULL,
    rule_id       INTEGER NOT NULL,
    ad_id         INTEGER NOT NULL,
    at            TEXT NOT NULL,
    moved_micros  INTEGER NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('planned', 'done', 'failed')),
    log_id        INTEGER
);
CREATE INDEX automation_moves_cabinet ON automation_moves(account_id, at);
CREATE INDEX automation_moves_planned ON automation_moves(account_id) WHERE state = 'planned';

-- The moves logged so far, as the ledger's first entries.
INSERT INTO automation_moves (token, account_id, rule_id, ad_id, at, moved_micros, state, log_id)
    SELECT 'rule:' || rule_id || ':' || ad_id || ':' || at, account_id, rule_id, ad_id, at,
           moved_micros, 'done', id
    FROM rule_log WHERE outcome = 'acted' AND moved_micros > 0
    ON CONFLICT (token) DO NOTHING;

-- Rule ids are never given again (AUTOINCREMENT), so a new rule never inherits a deleted
-- one's log or moves. The table is rebuilt to take the keyword; its rows keep their ids.
CREATE TABLE rules_before_17 AS SELECT * FROM rules;
DROP TABLE rules;
CREATE TABLE rules (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id        INTEGER NOT NULL,
    name              TEXT NOT NULL,
    scope             TEXT NOT NULL,
    match_all         INTEGER NOT NULL,
    conditions        TEXT NOT NULL,
    action            TEXT NOT NULL,
    cooldown_hours    INTEGER NOT NULL,
    max_runs_per_day  INTEGER NOT NULL,
    enabled           INTEGER NOT NULL,
    dry_run           INTEGER NOT NULL,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);
INSERT INTO rules SELECT * FROM rules_before_17;
DROP TABLE rules_before_17;
CREATE INDEX rules_account ON rules(account_id, id);
-- Past every id a rule ever had, the deleted ones that left a log or a move included.
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'rules', MAX(id) FROM (
        SELECT COALESCE(MAX(id), 0) AS id FROM rules
        UNION ALL SELECT COALESCE(MAX(rule_id), 0) FROM rule_log
        UNION ALL SELECT COALESCE(MAX(rule_id), 0) FROM automation_moves)
    WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'rules');
UPDATE sqlite_sequence SET seq = MAX(seq, (
        SELECT MAX(id) FROM (
            SELECT COALESCE(MAX(id), 0) AS id FROM rules
            UNION ALL SELECT COALESCE(MAX(rule_id), 0) FROM rule_log
            UNION ALL SELECT COALESCE(MAX(rule_id), 0) FROM automation_moves)))
    WHERE name = 'rules';

-- The alerts a cabinet got in an hour are capped; those held back are counted here, per
-- cabinet and hour (`at`, the end of the synced hour), and told as one note.
CREATE TABLE alert_holds (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL,
    at          TEXT NOT NULL,
    held        INTEGER NOT NULL,
    noted       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (account_id, at)
);
CREATE INDEX alerts_cabinet_hour ON alerts(account_id, at);

-- The refs of campaigns the platform removed outright (deleted before they ever ran): no
-- postback may name them.
DELETE FROM campaign_refs WHERE NOT EXISTS (
    SELECT 1 FROM campaigns c
    WHERE c.account_id = campaign_refs.account_id AND c.ad_id = campaign_refs.ad_id);
