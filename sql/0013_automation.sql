-- Automation: rules that act on a cabinet's campaigns after every hourly sync, and what each
-- evaluation did.

-- A rule of one cabinet. `scope`, `conditions` and `action` are the JSON the API shows
-- (validated when written); rules run in `id` order.
CREATE TABLE rules (
    id                INTEGER PRIMARY KEY,
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
CREATE INDEX rules_account ON rules(account_id, id);

-- Each evaluation of a rule on a campaign that acted, would have acted (dry run), failed on
-- the platform, or was skipped by a guard. `at` is the end of the synced hour (service
-- clock); `matched` the values of the rule's metrics; `action` what was (or would have been)
-- done; `moved_micros` the money an `add_budget` moved, for the daily caps.
CREATE TABLE rule_log (
    id            INTEGER PRIMARY KEY,
    rule_id       INTEGER NOT NULL,
    account_id    INTEGER NOT NULL,
    ad_id         INTEGER NOT NULL,
    at            TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome IN ('acted', 'dry_run', 'skipped', 'failed')),
    reason        TEXT,
    matched       TEXT NOT NULL,
    action        TEXT NOT NULL,
    moved_micros  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX rule_log_rule ON rule_log(rule_id, id);
CREATE INDEX rule_log_guard ON rule_log(rule_id, ad_id, at);
CREATE INDEX rule_log_cabinet ON rule_log(account_id, at);

-- The most money automation may move into a cabinet's campaigns in 24 hours, across all its
-- rules (micro-units of the cabinet currency); NULL: only each rule's own cap.
ALTER TABLE cabinets ADD COLUMN automation_daily_cap_micros INTEGER;
