-- A cabinet's copies' revision: counted up by every write that adds one of its campaigns'
-- copies, removes one, or stores a change of adcab's own to one (every such change counts the
-- copy's `local_rev` up), by a copy moving to or from the cabinet, and by every report the
-- hourly sync stores (`cabinets::set_synced_through`). The hourly sync reads what it needs of
-- a cabinet's copies on a reader, after this revision: their sync state
-- (`campaigns::sync_states`: status, switch, budget, decline reason, link and marks) before
-- storing a report, and the stored columns its full re-reads compare with the platform's
-- snapshots. Its write transaction reads only the revision: the same, no write came between
-- and what was read is the copies' state; else it reads them again inside the transaction.
-- No other write changes those columns without counting `local_rev` up.
--
-- Kept by triggers on `campaigns`, as the status counts are (schema 45), so no write path can
-- forget it. The sync's own rewrite of a copy's figures and state leaves `local_rev` alone; the
-- report's hour, stored with them, counts the revision up. A rebuild of `campaigns` drops these
-- triggers: such a migration must make them again.
ALTER TABLE cabinets ADD COLUMN copies_rev INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER campaigns_copies_rev_insert AFTER INSERT ON campaigns
BEGIN
    UPDATE cabinets SET copies_rev = copies_rev + 1 WHERE id = new.account_id;
END;

CREATE TRIGGER campaigns_copies_rev_delete AFTER DELETE ON campaigns
BEGIN
    UPDATE cabinets SET copies_rev = copies_rev + 1 WHERE id = old.account_id;
END;

CREATE TRIGGER campaigns_copies_rev_update AFTER UPDATE OF local_rev, account_id ON campaigns
BEGIN
    UPDATE cabinets SET copies_rev = copies_rev + 1 WHERE id IN (old.account_id, new.account_id);
END;
