-- The web panel: people log in with a password and hold sessions.

-- Argon2id in its PHC string form (algorithm, parameters, salt and hash); NULL: no login.
ALTER TABLE users ADD COLUMN password_hash TEXT;

-- One logged-in browser. The cookie carries a random token; only its SHA-256 is stored. Times
-- are wall time in unix seconds (a session is about a person at a browser, not business time):
-- a session ends `idle` after it was last seen, or `max` after it began, whichever is first.
CREATE TABLE sessions (
    token_hash  TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    csrf        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    seen_at     INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX sessions_by_user ON sessions (user_id);

-- What each cabinet's campaigns gained in each hour (the sum of its `hourly_stats` rows, written
-- by the hourly sync), so the panel's cabinet totals read a few hundred rows, not every
-- campaign's. Kept as long as the cabinet: one row per cabinet and hour.
CREATE TABLE cabinet_hours (
    account_id    INTEGER NOT NULL,
    hour          TEXT NOT NULL,
    views         INTEGER NOT NULL,
    clicks        INTEGER NOT NULL,
    actions       INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    PRIMARY KEY (account_id, hour)
) WITHOUT ROWID;

INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
SELECT account_id, hour, SUM(views), SUM(clicks), SUM(actions), SUM(spent_micros)
FROM hourly_stats GROUP BY account_id, hour;

-- The panel's task list reads a person's most recent tasks.
CREATE INDEX tasks_by_owner ON tasks (owner_id, id);

-- Who queued a task: its changes enter the campaigns' history with this source (`api` for the
-- API, `panel` for the web panel, `automation` for rules).
ALTER TABLE tasks ADD COLUMN source TEXT NOT NULL DEFAULT 'api';
