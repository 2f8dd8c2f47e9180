-- A rule across cabinets of one owner: the cabinets it covers (a JSON list of ids, its home
-- cabinet, rules.account_id, first; NULL for a rule of one cabinet) and the most money it moves
-- over all of them in 24 hours (NULL: no cap of its own across them).
ALTER TABLE rules ADD COLUMN account_ids TEXT;
ALTER TABLE rules ADD COLUMN max_total_micros INTEGER;
