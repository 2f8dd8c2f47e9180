-- The campaigns list over many cabinets, sorted by a column of the copy. A sorted page merged
-- each cabinet's first keys, read through the cabinet's own index: over 100 cabinets some 100
-- statements a page. When the person reaches at least half of all cabinets and the filter
-- names only statuses, the page's keys are now read from one walk of an index across every
-- cabinet, in page order (the column, then ad_id, then the cabinet), the other cabinets'
-- entries skipped. Each index holds the status, so the walk reads no campaign row. The sorts
-- by a figure keep the merge: their indexes would be rewritten by every hour's sync.
CREATE INDEX campaigns_across_by_date ON campaigns(created_at, ad_id, account_id, status);
CREATE INDEX campaigns_across_by_ad_id ON campaigns(ad_id, account_id, status);
CREATE INDEX campaigns_across_by_title ON campaigns(title, ad_id, account_id, status);
CREATE INDEX campaigns_across_by_status ON campaigns(status, ad_id, account_id);
CREATE INDEX campaigns_across_by_cpm ON campaigns(cpm_micros, ad_id, account_id, status);
