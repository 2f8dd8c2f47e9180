-- The campaigns list over many cabinets, sorted by a figure ascending. Its first pages are the
-- campaigns with nothing yet (no views, clicks, spend or budget), which the merge found with a
-- statement per cabinet. Each partial index holds only the campaigns whose figure is zero (or
-- less), in page order across every cabinet (the figure, then ad_id, then the cabinet), with the
-- status; the list walks it as it walks the copy's indexes (schema 70) and gives way to the
-- merge when the page reaches past its entries. The hour's sync rewrites the figures of running
-- campaigns, which these indexes do not hold: a campaign enters or leaves one only when its
-- figure leaves zero.
CREATE INDEX campaign_counters_across_no_views ON campaign_counters(views, ad_id, account_id,
    listed_status) WHERE views <= 0;
CREATE INDEX campaign_counters_across_no_clicks ON campaign_counters(clicks, ad_id, account_id,
    listed_status) WHERE clicks <= 0;
CREATE INDEX campaign_counters_across_no_spend ON campaign_counters(spent_micros, ad_id,
    account_id, listed_status) WHERE spent_micros <= 0;
CREATE INDEX campaign_counters_across_no_budget ON campaign_counters(budget_micros, ad_id,
    account_id, listed_status) WHERE budget_micros <= 0;
