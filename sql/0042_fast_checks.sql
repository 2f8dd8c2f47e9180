-- Rules checked every 5 minutes (`every` = '5m') on each ad's lifetime counters at 5-minute
-- marks (UTC, multiples of 300 seconds), kept 25 hours; where the fast checks stand.
ALTER TABLE rules ADD COLUMN every TEXT NOT NULL DEFAULT '1h';

CREATE TABLE fast_marks (
    account_id INTEGER NOT NULL,
    ad_id INTEGER NOT NULL,
    -- Unix seconds, a multiple of 300.
    mark INTEGER NOT NULL,
    views INTEGER NOT NULL,
    opens INTEGER NOT NULL,
    clicks INTEGER NOT NULL,
    actions INTEGER NOT NULL,
    spent_micros INTEGER NOT NULL,
    budget_micros INTEGER NOT NULL,
    PRIMARY KEY (account_id, mark, ad_id)
) WITHOUT ROWID;

-- The last 5-minute mark the fast checks ran at (Unix seconds); null before the first.
ALTER TABLE scheduler_state ADD COLUMN fast_mark INTEGER;
