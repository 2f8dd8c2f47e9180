-- Who made each change in a campaign's history: the person the face acted for (`user_id`,
-- a `users` id) and the automation rule that made it (`rule_id`, a `rules` id). Both are
-- null where nobody is known: rows from before, changes the platform reported. No foreign
-- keys: a removed person or a deleted rule keeps its id here, and the page says so. The
-- rule of an older automation row is in its details (`rule`), copied over once.
ALTER TABLE campaign_history ADD COLUMN user_id INTEGER;
ALTER TABLE campaign_history ADD COLUMN rule_id INTEGER;
UPDATE campaign_history SET rule_id = json_extract(details, '$.rule')
    WHERE action = 'rule' AND json_valid(details)
      AND json_type(details, '$.rule') = 'integer';
