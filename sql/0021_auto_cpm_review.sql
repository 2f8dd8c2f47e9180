-- How long a bid edit of Auto CPM kept its campaign in the platform's review: the minutes
-- from the edit to the campaign's return to `Active`, filled in once it returned (NULL until
-- then, and for decisions that made no edit or on a platform whose bid edits need no review).
ALTER TABLE auto_cpm_log ADD COLUMN review_minutes INTEGER;
