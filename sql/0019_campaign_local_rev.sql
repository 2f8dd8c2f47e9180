-- A stored copy's local revision: every change adcab stores from a platform's answer to one of
-- its own calls (an edit, a switch, a money move, a delete) counts it up. The hourly sync reads
-- the revisions before it asks for the platform's report and writes the report's status,
-- switch and budget only over copies whose revision is still the same: a change stored while
-- the report was on its way is newer than the report, and stays.
ALTER TABLE campaigns ADD COLUMN local_rev INTEGER NOT NULL DEFAULT 0;
