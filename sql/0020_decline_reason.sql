-- Why the platform's review declined a campaign: its short reason and, where the platform gives
-- one, the longer explanation (plain text). Set while the campaign is `Declined`, cleared when it
-- leaves that status (an edit sends it back to review).
ALTER TABLE campaigns ADD COLUMN decline_reason TEXT;
ALTER TABLE campaigns ADD COLUMN decline_description TEXT;

-- The reason as it stood when a campaign turned `Declined`, for the `status_change` webhook and
-- the declined alert (the campaign's own copy may have moved on by the time they are sent).
ALTER TABLE status_events ADD COLUMN decline_reason TEXT;
ALTER TABLE status_events ADD COLUMN decline_description TEXT;
