-- The list's sort indexes also hold each campaign's status, so a sorted page over several
-- cabinets reads its keys (the sorted column, ad_id and rowid, past the deleted campaigns)
-- from the index alone, and looks up only the page's own rows in the table. The status
-- index holds it already; the sort by ad_id, which read the primary key, gets its own.
DROP INDEX campaigns_by_date;
DROP INDEX campaigns_by_title;
DROP INDEX campaigns_by_views;
DROP INDEX campaigns_by_clicks;
DROP INDEX campaigns_by_spent;
DROP INDEX campaigns_by_budget;
DROP INDEX campaigns_by_cpm;
CREATE INDEX campaigns_by_date ON campaigns(account_id, created_at, ad_id, status);
CREATE INDEX campaigns_by_title ON campaigns(account_id, title, ad_id, status);
CREATE INDEX campaigns_by_views ON campaigns(account_id, views, ad_id, status);
CREATE INDEX campaigns_by_clicks ON campaigns(account_id, clicks, ad_id, status);
CREATE INDEX campaigns_by_spent ON campaigns(account_id, spent_micros, ad_id, status);
CREATE INDEX campaigns_by_budget ON campaigns(account_id, budget_micros, ad_id, status);
CREATE INDEX campaigns_by_cpm ON campaigns(account_id, cpm_micros, ad_id, status);
CREATE INDEX campaigns_by_ad_id ON campaigns(account_id, ad_id, status);
