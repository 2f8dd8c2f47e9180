-- The hourly rows of every cabinet in the order of their hour, as schema 63 orders the daily
-- and weekly ones: in a time zone whose midnights are not UTC's, each of a period's bounds cuts
-- hours from a UTC day, and the home page read those hours with a statement and a seek per
-- cabinet and bound (32 bounds for 30 days and the 30 before them). Each bound's hours are now
-- read once across the cabinets (`store::kept::Cabinets::read`), stats and conversions alike;
-- the conversions of a bound's own hour, in a zone whose offset is not whole hours, are still
-- read per cabinet from `conversions`.
-- Kept by SQLite with the rows; no figure changes.
CREATE INDEX cabinet_hours_by_hour
    ON cabinet_hours (hour, account_id, views, opens, clicks, actions, spent_micros);
CREATE INDEX cabinet_conversion_hours_by_hour
    ON cabinet_conversion_hours (hour, account_id, event_type, currency, count, priced,
        amount_high, amount_low);
