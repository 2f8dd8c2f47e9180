-- The daily and weekly rows of every cabinet in the order of their day or week: an index on
-- each kept table by its key, holding every figure a span reads, so a page showing many
-- cabinets' spans (the home page's period, its chart and the period before) reads each range
-- of days once across them (`store::kept::Plan::read`), one seek into each index and its rows
-- in sequence, instead of a seek per cabinet into a year-deep table and its own statement.
-- One cabinet's reads keep using the tables' keys. The triggers that keep the rows keep the
-- indexes with them (SQLite does); no figure changes.
CREATE INDEX cabinet_days_by_day
    ON cabinet_days (day, account_id, views, opens, clicks, actions, spent_micros);
CREATE INDEX cabinet_weeks_by_week
    ON cabinet_weeks (week, account_id, views, opens, clicks, actions, spent_micros);
CREATE INDEX cabinet_conversion_days_by_day
    ON cabinet_conversion_days (day, account_id, event_type, currency, count, priced,
        amount_high, amount_low);
CREATE INDEX cabinet_conversion_weeks_by_week
    ON cabinet_conversion_weeks (week, account_id, event_type, currency, count, priced,
        amount_high, amount_low);
