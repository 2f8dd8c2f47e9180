-- A cabinet's copies' revision: counted up by every write that adds one of its campaigns'
-- copies, removes one, or stores a change of adcab's own to one (every such change counts the
-- copy's `local_rev` up), and by a copy moving to or from the cabinet. The hourly sync reads a
-- cabinet's copies' sync state (`campaigns::sync_states`) on a reader, after this revision,
-- and in its write transaction reads only the revision: the same, no write came between and
-- the state read is the copies' state; else it reads the state again inside the transaction.
-- That state is the copies' status, switch, budget, decline reason, link and marks; apart from
-- the writes counted here only the cabinet's own sync writes them, one report after another.
--
-- Kept by triggers on `campaigns`, as the status counts are (schema 45), so no write path can
-- forget it. The sync's own rewrite of a copy's figures and state leaves `local_rev` and so
-- this revision alone. A rebuild of `campaigns` drops these triggers: such a migration must
-- make them again.
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
