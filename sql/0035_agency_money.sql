-- Money between an agency and its clients (#30). A cabinet may be an agency's main account
-- (`is_main`), from which client (related) cabinets are opened and funded, or a related
-- account of one (`main_account_id`).
ALTER TABLE cabinets ADD COLUMN is_main INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cabinets ADD COLUMN main_account_id INTEGER;

-- Every move of money between a main account and one of its related cabinets: `direction`
-- 'in' (main -> cabinet) or 'out' (back), `amount_micros` always positive, its status on the
-- platform, the platform's transfer id, the idempotency key it was sent with (derived from
-- adcab's own ids, so a retry never moves money twice), who asked, and when it was asked for
-- and settled. A transfer still `in_progress` is checked again at `next_check_at`.
CREATE TABLE transfers (
    id               INTEGER PRIMARY KEY,
    account_id       INTEGER NOT NULL REFERENCES cabinets(id),
    main_account_id  INTEGER NOT NULL REFERENCES cabinets(id),
    direction        TEXT NOT NULL CHECK (direction IN ('in', 'out')),
    amount_micros    INTEGER NOT NULL CHECK (amount_micros > 0),
    status           TEXT NOT NULL CHECK (status IN ('in_progress', 'completed', 'failed')),
    platform_id      TEXT,
    idempotency_key  TEXT NOT NULL UNIQUE,
    source           TEXT NOT NULL,
    user_id          INTEGER,
    requested_at     TEXT NOT NULL,
    settled_at       TEXT,
    next_check_at    TEXT,
    error            TEXT
);
CREATE INDEX transfers_account ON transfers(account_id, id);
CREATE INDEX transfers_pending ON transfers(next_check_at) WHERE status = 'in_progress';

-- The simulator's side (kept in this migration, the number this change was given): an account
-- opened under a main one, the key it was opened with, and the transfers and transactions a
-- real platform keeps. A transfer of `settles_at` completes when the service clock reaches it.
ALTER TABLE sim_accounts ADD COLUMN main_id INTEGER;
ALTER TABLE sim_accounts ADD COLUMN open_key TEXT;
ALTER TABLE sim_accounts ADD COLUMN title TEXT;
CREATE UNIQUE INDEX sim_accounts_open_key ON sim_accounts(main_id, open_key);
CREATE TABLE sim_transfers (
    id             INTEGER PRIMARY KEY,
    key            TEXT NOT NULL UNIQUE,
    main_id        INTEGER NOT NULL,
    related_id     INTEGER NOT NULL,
    amount_micros  INTEGER NOT NULL,
    status         TEXT NOT NULL,
    settles_at     TEXT NOT NULL
);
CREATE TABLE sim_transactions (
    id             INTEGER PRIMARY KEY,
    account_id     INTEGER NOT NULL,
    at             TEXT NOT NULL,
    amount_micros  INTEGER NOT NULL,
    peer_type      TEXT NOT NULL,
    peer_account   INTEGER
);
CREATE INDEX sim_transactions_account ON sim_transactions(account_id, id);
