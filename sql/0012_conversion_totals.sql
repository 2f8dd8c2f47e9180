-- Each campaign's conversion counts and revenue are kept as running totals, written as events
-- are stored (and corrected when an event is sent again with other values), so a list page
-- reads one row per campaign and event type instead of summing every stored conversion.
-- `conversion_totals` held what retention had removed; from here on it holds every conversion
-- ever attributed, and retention removes events without touching it. The events still kept
-- are added here once.
INSERT INTO conversion_totals (account_id, ad_id, event_type, currency, count, amount_high, amount_low)
SELECT a.account_id, a.ad_id, c.event_type, COALESCE(c.currency, ''), COUNT(*),
    SUM(c.amount_micros / 1000000000), SUM(c.amount_micros % 1000000000)
FROM conversion_campaigns a JOIN conversions c ON c.id = a.conversion_id
GROUP BY a.account_id, a.ad_id, c.event_type, COALESCE(c.currency, '')
ON CONFLICT (account_id, ad_id, event_type, currency) DO UPDATE SET
    count = count + excluded.count,
    amount_high = CASE WHEN excluded.amount_high IS NULL THEN amount_high
        ELSE COALESCE(amount_high, 0) + excluded.amount_high END,
    amount_low = CASE WHEN excluded.amount_low IS NULL THEN amount_low
        ELSE COALESCE(amount_low, 0) + excluded.amount_low END;
