-- Each campaign's conversion totals, kept in its own row: a list page reads them with the row
-- instead of probing `conversion_totals` once per campaign (a quarter of a 500-row page's
-- reading). `conversion_lines` holds the campaign's `conversion_totals` rows, one
-- `event_type,currency,count,amount_high,amount_low` line each (empty text for a missing
-- currency or amount), joined by `;` in the order of the totals' key, which every read here
-- scans (no `ORDER BY` inside `group_concat`: SQLite before 3.44, Debian 12's `sqlite3` among
-- them, could not read the schema); NULL when it has none. Event types and
-- currencies are checked codes, so neither separator occurs in them.
--
-- The view `campaign_conversion_lines` writes those lines for every campaign. Triggers keep
-- the column: any write of `conversion_totals` writes the lines of the campaign it touched
-- (both campaigns when an update moves a row), read from the view for that one campaign
-- (SQLite takes the trigger's key into the view's grouping, so only the campaign's own rows
-- are read), and a campaign stored after its conversions takes theirs. `adcab check --deep`
-- compares every campaign's lines with the view, as text: a second index on
-- `conversion_totals` could let SQLite read its rows in another order there, and the check
-- would then name campaigns whose lines hold the same totals in another order.
ALTER TABLE campaigns ADD COLUMN conversion_lines TEXT;

CREATE VIEW campaign_conversion_lines AS
SELECT account_id, ad_id,
    group_concat(event_type || ',' || currency || ',' || count || ','
            || COALESCE(amount_high, '') || ',' || COALESCE(amount_low, ''), ';') AS lines
FROM conversion_totals GROUP BY account_id, ad_id;

-- In one pass over the totals: a correlated read of the view would group every row for each
-- campaign.
UPDATE campaigns SET conversion_lines = v.lines FROM campaign_conversion_lines v
WHERE v.account_id = campaigns.account_id AND v.ad_id = campaigns.ad_id;

CREATE TRIGGER conversion_totals_lines_insert AFTER INSERT ON conversion_totals
BEGIN
    UPDATE campaigns SET conversion_lines = (SELECT lines FROM campaign_conversion_lines v
        WHERE v.account_id = new.account_id AND v.ad_id = new.ad_id)
    WHERE account_id = new.account_id AND ad_id = new.ad_id;
END;

CREATE TRIGGER conversion_totals_lines_update AFTER UPDATE ON conversion_totals
BEGIN
    UPDATE campaigns SET conversion_lines = (SELECT lines FROM campaign_conversion_lines v
        WHERE v.account_id = old.account_id AND v.ad_id = old.ad_id)
    WHERE account_id = old.account_id AND ad_id = old.ad_id
        AND (old.account_id, old.ad_id) IS NOT (new.account_id, new.ad_id);
    UPDATE campaigns SET conversion_lines = (SELECT lines FROM campaign_conversion_lines v
        WHERE v.account_id = new.account_id AND v.ad_id = new.ad_id)
    WHERE account_id = new.account_id AND ad_id = new.ad_id;
END;

CREATE TRIGGER conversion_totals_lines_delete AFTER DELETE ON conversion_totals
BEGIN
    UPDATE campaigns SET conversion_lines = (SELECT lines FROM campaign_conversion_lines v
        WHERE v.account_id = old.account_id AND v.ad_id = old.ad_id)
    WHERE account_id = old.account_id AND ad_id = old.ad_id;
END;

CREATE TRIGGER campaigns_conversion_lines AFTER INSERT ON campaigns
WHEN EXISTS (SELECT 1 FROM conversion_totals
    WHERE account_id = new.account_id AND ad_id = new.ad_id)
BEGIN
    UPDATE campaigns SET conversion_lines = (SELECT lines FROM campaign_conversion_lines v
        WHERE v.account_id = new.account_id AND v.ad_id = new.ad_id)
    WHERE account_id = new.account_id AND ad_id = new.ad_id;
END;
