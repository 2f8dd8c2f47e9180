-- The end of the last hour whose report the hourly sync stored for the cabinet. After hours
-- the platform could not be reached, the next sync stores each missed hour's report in turn
-- from here, so each hour keeps its own delivery. NULL until the first sync.
ALTER TABLE cabinets ADD COLUMN synced_through TEXT;
