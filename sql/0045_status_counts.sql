-- Each cabinet's campaigns counted by status, kept as the campaigns change, so /cabinets reads a
-- handful of rows per cabinet instead of counting every campaign's index entry on each request.
-- Deleted campaigns are counted too (a status like any other); readers leave them out.
--
-- Kept by triggers on `campaigns`, not by the store functions that write it: a status is
-- written by creates, reviews, the hourly sync, pauses, deletes, write-backs, the simulator's
-- copies and tests' fixtures (six INSERT statements and more UPDATEs today), and a trigger is
-- the one place no write path, present or future, can forget. The UPDATE trigger fires only
-- when the status (or the cabinet) really changed, so the sync's rewrite of a campaign's
-- figures costs nothing here. A row whose count falls to zero is removed, so the table equals
-- `SELECT account_id, status, COUNT(*) FROM campaigns GROUP BY 1, 2` exactly (`adcab check
-- --deep` compares them). A rebuild of `campaigns` (new table, copy, drop, rename) drops these
-- triggers: such a migration must make them again.
CREATE TABLE cabinet_status_counts (
    account_id  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    count       INTEGER NOT NULL,
    PRIMARY KEY (account_id, status)
) WITHOUT ROWID;

INSERT INTO cabinet_status_counts (account_id, status, count)
SELECT account_id, status, COUNT(*) FROM campaigns GROUP BY account_id, status;

CREATE TRIGGER campaigns_count_insert AFTER INSERT ON campaigns
BEGIN
    INSERT INTO cabinet_status_counts (account_id, status, count)
    VALUES (new.account_id, new.status, 1)
    ON CONFLICT (account_id, status) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER campaigns_count_delete AFTER DELETE ON campaigns
BEGIN
    UPDATE cabinet_status_counts SET count = count - 1
    WHERE account_id = old.account_id AND status = old.status;
    DELETE FROM cabinet_status_counts
    WHERE account_id = old.account_id AND status = old.status AND count <= 0;
END;

CREATE TRIGGER campaigns_count_update AFTER UPDATE OF status, account_id ON campaigns
WHEN old.status IS NOT new.status OR old.account_id IS NOT new.account_id
BEGIN
    UPDATE cabinet_status_counts SET count = count - 1
    WHERE account_id = old.account_id AND status = old.status;
    DELETE FROM cabinet_status_counts
    WHERE account_id = old.account_id AND status = old.status AND count <= 0;
    INSERT INTO cabinet_status_counts (account_id, status, count)
    VALUES (new.account_id, new.status, 1)
    ON CONFLICT (account_id, status) DO UPDATE SET count = count + 1;
END;

-- The home page's campaigns waiting in review since before a time and those switched on but
-- stopped with no budget left, each counted and its newest few read from a partial index of
-- just those campaigns in the order the page shows them, instead of reading every campaign of
-- the status from the table (a quarter of a cabinet's campaigns may be in review). The sync's
-- rewrite of a campaign's figures touches them only when a budget reaches zero.
CREATE INDEX campaigns_in_review ON campaigns(account_id, status_changed_at, ad_id)
    WHERE status = 'In Review';
CREATE INDEX campaigns_out_of_budget ON campaigns(account_id, status_changed_at, ad_id)
    WHERE status = 'Stopped' AND active = 1 AND budget_micros = 0;
