-- One index per sort of GET /v1/campaigns, each led by the cabinet: a sorted page merges
-- every cabinet's campaigns read in order, at most `offset + limit + 1` of each. Sorting by
-- ad_id uses the primary key.
CREATE INDEX campaigns_by_date ON campaigns(account_id, created_at, ad_id);
CREATE INDEX campaigns_by_title ON campaigns(account_id, title, ad_id);
CREATE INDEX campaigns_by_status ON campaigns(account_id, status, ad_id);
CREATE INDEX campaigns_by_views ON campaigns(account_id, views, ad_id);
CREATE INDEX campaigns_by_clicks ON campaigns(account_id, clicks, ad_id);
CREATE INDEX campaigns_by_spent ON campaigns(account_id, spent_micros, ad_id);
CREATE INDEX campaigns_by_budget ON campaigns(account_id, budget_micros, ad_id);
CREATE INDEX campaigns_by_cpm ON campaigns(account_id, cpm_micros, ad_id);
