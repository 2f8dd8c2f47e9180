-- Deletes by operation token, as budget moves already are: a repeat of the same delete (a bulk
-- delete resumed after a crash) returns the recorded result instead of "no such ad".
CREATE TABLE sim_deletes (
    token       TEXT PRIMARY KEY,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    removed     INTEGER NOT NULL,
    created_at  TEXT NOT NULL
);
