-- The home page's "needs attention" over many cabinets. Its declined campaigns, those in review
-- since before a time and those switched on but stopped with no budget left were each counted
-- and their newest few read cabinet by cabinet: over 100 cabinets some 600 statements a page,
-- half of its time. When the person reaches at least half of all cabinets, each kind is now
-- read across every cabinet from one index of just those campaigns, newest change first, the
-- other cabinets' entries skipped. Declined campaigns are shown newest declined first, as the
-- other kinds are, each cabinet's through an index of its own in that order (they were read
-- in the order of their ids). The indexes are partial: only a status change writes them.
CREATE INDEX campaigns_declined ON campaigns(account_id, status_changed_at, ad_id)
    WHERE status = 'Declined';
CREATE INDEX campaigns_declined_across ON campaigns(status_changed_at, ad_id, account_id)
    WHERE status = 'Declined';
CREATE INDEX campaigns_in_review_across ON campaigns(status_changed_at, ad_id, account_id)
    WHERE status = 'In Review';
CREATE INDEX campaigns_out_of_budget_across ON campaigns(status_changed_at, ad_id, account_id)
    WHERE status = 'Stopped' AND active = 1 AND no_budget = 1;
