-- An event attributed to one campaign (the common case) keeps that campaign in its own row,
-- so storing it writes no `conversion_campaigns` rows; those are kept only for an event
-- attributed to several campaigns (its `ad_id` NULL). A row stored before this migration has
-- no `ad_id` and its attributions where they were, which every reader still finds.
ALTER TABLE conversions ADD COLUMN ad_id INTEGER;
CREATE INDEX conversions_ad ON conversions(account_id, ad_id, id) WHERE ad_id IS NOT NULL;
