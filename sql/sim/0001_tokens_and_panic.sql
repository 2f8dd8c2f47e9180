-- The simulator's own migrations begin here (its first tables came with the service's first five).
-- Deletes by operation token, as budget moves already are: a repeat of the same delete (a bulk
-- delete resumed after a crash) returns the recorded result instead of "no such ad".
CREATE TABLE sim_deletes (
    token       TEXT PRIMARY KEY,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    removed     INTEGER NOT NULL,
    created_at  TEXT NOT NULL
);

-- The simulator learns a `panic` fault (a platform bug on demand), so tests can prove that a
-- panic during a request is answered 500 and leaves nothing half-done. Faults are transient,
-- so the table is simply rebuilt.
DROP TABLE sim_faults;
CREATE TABLE sim_faults (
    account_id  INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('timeout', 'refuse', 'ignore', 'panic')),
    remaining   INTEGER NOT NULL CHECK (remaining > 0)
);
