-- Ask first (#31): a rule with `approval` proposes its change instead of making it. A proposal
-- waits for a person with Manager or owner access to approve it (the change is then planned
-- again and checked by the guards at that moment) or reject it, until `expires_at`; only one
-- is pending per rule and campaign. Its Telegram messages are kept so that a decision edits
-- them; the bot's own state (the update offset of long polling) and the confirmations
-- `/pauseall` waits for are the bot's.
ALTER TABLE rules ADD COLUMN approval INTEGER NOT NULL DEFAULT 0;
CREATE TABLE proposals (
    id          INTEGER PRIMARY KEY,
    rule_id     INTEGER NOT NULL,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    change      TEXT NOT NULL,
    matched     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'pending',
    decided_by  INTEGER,
    decided_via TEXT,
    decided_at  TEXT,
    outcome     TEXT
);
CREATE UNIQUE INDEX proposals_pending ON proposals(rule_id, account_id, ad_id) WHERE state = 'pending';
CREATE INDEX proposals_account ON proposals(account_id, state, id);
CREATE TABLE proposal_messages (
    proposal_id INTEGER NOT NULL,
    chat_id     INTEGER NOT NULL,
    message_id  INTEGER,
    state       TEXT NOT NULL DEFAULT 'pending',
    attempts    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (proposal_id, chat_id)
) WITHOUT ROWID;
CREATE INDEX proposal_messages_state ON proposal_messages(state);
CREATE TABLE bot_state (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE bot_confirms (
    id         INTEGER PRIMARY KEY,
    chat_id    INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    used       INTEGER NOT NULL DEFAULT 0
);
-- A rule's log records a proposal made and a decision on one: `outcome` takes `proposed`,
-- `rejected` and `expired` besides the four it took. The table is rebuilt to change its
-- CHECK; its rows keep their ids (automation_moves.log_id names them).
CREATE TABLE rule_log_before_43 AS SELECT * FROM rule_log;
DROP TABLE rule_log;
CREATE TABLE rule_log (
    id            INTEGER PRIMARY KEY,
    rule_id       INTEGER NOT NULL,
    account_id    INTEGER NOT NULL,
    ad_id         INTEGER NOT NULL,
    at            TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome IN ('acted', 'dry_run', 'skipped', 'failed',
                                                   'proposed', 'rejected', 'expired')),
    reason        TEXT,
    matched       TEXT NOT NULL,
    action        TEXT NOT NULL,
    moved_micros  INTEGER NOT NULL DEFAULT 0
);
INSERT INTO rule_log (id, rule_id, account_id, ad_id, at, outcome, reason, matched, action,
        moved_micros)
    SELECT id, rule_id, account_id, ad_id, at, outcome, reason, matched, action, moved_micros
    FROM rule_log_before_43;
DROP TABLE rule_log_before_43;
CREATE INDEX rule_log_rule ON rule_log(rule_id, id);
CREATE INDEX rule_log_guard ON rule_log(rule_id, ad_id, at);
CREATE INDEX rule_log_cabinet ON rule_log(account_id, at);
