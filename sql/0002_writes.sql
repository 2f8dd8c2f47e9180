-- Campaign writes: the simulator learns idempotent creates and budget moves and an `ignore`
-- fault; the service gains status-change records, idempotency keys, tasks and media.

-- Faults are transient, so the table is simply rebuilt with the new kind.
DROP TABLE sim_faults;
CREATE TABLE sim_faults (
    account_id  INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('timeout', 'refuse', 'ignore')),
    remaining   INTEGER NOT NULL CHECK (remaining > 0)
);

-- A create carrying a client reference is done once: a repeat returns the same ad.
ALTER TABLE sim_ads ADD COLUMN client_ref TEXT;
CREATE UNIQUE INDEX sim_ads_client_ref ON sim_ads(account_id, client_ref) WHERE client_ref IS NOT NULL;

-- Budget moves by operation token: a repeat within 24 hours returns the recorded result and
-- moves nothing.
CREATE TABLE sim_ops (
    token         TEXT PRIMARY KEY,
    account_id    INTEGER NOT NULL,
    moved_micros  INTEGER NOT NULL,
    created_at    TEXT NOT NULL
);

-- Status changes of the service's copies, for the webhook sender.
CREATE TABLE status_events (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    tme_path    TEXT,
    old_status  TEXT NOT NULL,
    new_status  TEXT NOT NULL,
    source      TEXT NOT NULL,
    at          TEXT NOT NULL,
    sent        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX status_events_unsent ON status_events(sent, account_id, id);

-- Idempotency-Key records, per key holder.
CREATE TABLE idempotency_keys (
    holder_id    INTEGER NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('running', 'done')),
    status       INTEGER,
    response     TEXT,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (holder_id, key)
);

-- Background tasks. `lane` is `create` or `other`: a cabinet runs one of each at a time.
CREATE TABLE tasks (
    id             INTEGER PRIMARY KEY,
    owner_id       INTEGER NOT NULL REFERENCES users(id),
    account_id     INTEGER NOT NULL REFERENCES cabinets(id),
    type           TEXT NOT NULL,
    lane           TEXT NOT NULL CHECK (lane IN ('create', 'other')),
    status         TEXT NOT NULL CHECK (status IN ('pending', 'running', 'paused', 'completed', 'failed', 'cancelled')),
    payload        TEXT NOT NULL,
    total          INTEGER NOT NULL,
    progress       INTEGER NOT NULL DEFAULT 0,
    succeeded      INTEGER,
    failed         INTEGER,
    ad_ids         TEXT NOT NULL DEFAULT '[]',
    errors         TEXT NOT NULL DEFAULT '[]',
    paused_reason  TEXT,
    error          TEXT,
    timeouts       INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    started_at     TEXT,
    completed_at   TEXT
);
CREATE INDEX tasks_queue ON tasks(status, account_id, lane, id);

-- One row per processed item of a task: what it produced, so a resumed task skips it.
CREATE TABLE task_items (
    task_id  INTEGER NOT NULL REFERENCES tasks(id),
    idx      INTEGER NOT NULL,
    ad_id    INTEGER,
    error    TEXT,
    PRIMARY KEY (task_id, idx)
);

-- Uploaded media: the file lives in the media folder beside the database.
CREATE TABLE media (
    token       TEXT PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES cabinets(id),
    media_type  TEXT NOT NULL,
    size        INTEGER NOT NULL,
    created_at  TEXT NOT NULL
);
