-- Each campaign's lifetime counters as of its last hourly sync (the baseline of the next
-- hour's gain) move from `stat_marks` into the campaign's own row, where the hourly sync
-- writes them in the same statement as the counters: one write per campaign and hour
-- instead of two. A campaign never synced keeps zeros, as a missing mark read before.
ALTER TABLE campaigns ADD COLUMN mark_views INTEGER NOT NULL DEFAULT 0;
ALTER TABLE campaigns ADD COLUMN mark_opens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE campaigns ADD COLUMN mark_clicks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE campaigns ADD COLUMN mark_actions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE campaigns ADD COLUMN mark_spent_micros INTEGER NOT NULL DEFAULT 0;

UPDATE campaigns
SET (mark_views, mark_opens, mark_clicks, mark_actions, mark_spent_micros) =
    (SELECT m.views, m.opens, m.clicks, m.actions, m.spent_micros FROM stat_marks m
     WHERE m.account_id = campaigns.account_id AND m.ad_id = campaigns.ad_id)
WHERE EXISTS (SELECT 1 FROM stat_marks m
              WHERE m.account_id = campaigns.account_id AND m.ad_id = campaigns.ad_id);

DROP TABLE stat_marks;
