-- The simulator's review gives a declined ad a longer explanation beside its short reason
-- (`decline_reason`), as the real platform's `decline_reason.description_html` does.
ALTER TABLE sim_ads ADD COLUMN decline_description TEXT;
