-- Each campaign's spend over the last 24 hours of its stats (the hour a report was stored and
-- the 23 before it), kept by the hourly sync where it writes the hour's stats, so the home
-- page finds the campaigns whose budget left will not last a day at that pace through the
-- partial index below alone, instead of summing the hours of every campaign at each visit.
ALTER TABLE campaigns ADD COLUMN day_spend_micros INTEGER NOT NULL DEFAULT 0;

-- Switched on, budget left, less than a day's spend of it: the home page's "about to stop".
-- Its query repeats this WHERE so SQLite may read the index.
CREATE INDEX campaigns_short_of_budget ON campaigns(account_id, ad_id)
    WHERE active = 1 AND budget_micros > 0 AND budget_micros < day_spend_micros;

-- The language the invitation page speaks to a person who has none set yet: the one the
-- inviter chose on the Team page's form ('en' or 'ru'); NULL for reset links and for
-- invitations made before this column.
ALTER TABLE invitations ADD COLUMN language TEXT;
