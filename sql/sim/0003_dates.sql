-- The simulator's ads hold a start and an end date as the platform's do (Unix seconds): an ad
-- waits `On Hold` before its start and stops at its end; a pause clears both.
ALTER TABLE sim_ads ADD COLUMN starts_at INTEGER;
ALTER TABLE sim_ads ADD COLUMN ends_at INTEGER;
