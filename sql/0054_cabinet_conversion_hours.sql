-- What each cabinet's conversions came to per UTC hour (`hour` is the hour's start,
-- `YYYY-MM-DDTHH:00:00Z`, of `received_at`), per event type and currency, as
-- `cabinet_conversion_days` keeps them per day. A span whose bound is not a UTC midnight read
-- every conversion between the bound and its nearest midnight (up to 12 hours of a cabinet's
-- events: half a million rows for the home page's 30 days over 100 cabinets of 1,000 campaigns
-- converting daily); it now reads those hours' rows and only the conversions of the bound's own
-- hour (`store::converted::per_span`).
--
-- Kept by triggers on `conversions`, as the daily rows are: whatever writes, changes or removes a
-- conversion, its hour follows; an hour, event and currency left with no conversion is removed,
-- so the table equals the conversions summed by hour exactly (`adcab check --deep` compares
-- them), and retention's removal of old conversions removes them from their hours too.
CREATE TABLE cabinet_conversion_hours (
    account_id   INTEGER NOT NULL,
    hour         TEXT NOT NULL,
    event_type   TEXT NOT NULL,
    currency     TEXT NOT NULL,
    count        INTEGER NOT NULL,
    priced       INTEGER NOT NULL,
    amount_high  INTEGER NOT NULL,
    amount_low   INTEGER NOT NULL,
    PRIMARY KEY (account_id, hour, event_type, currency)
) WITHOUT ROWID;

INSERT INTO cabinet_conversion_hours (account_id, hour, event_type, currency, count, priced,
    amount_high, amount_low)
SELECT account_id, substr(received_at, 1, 13) || ':00:00Z', event_type,
    COALESCE(currency, ''), COUNT(*), COUNT(amount_micros),
    COALESCE(SUM(amount_micros / 1000000000), 0), COALESCE(SUM(amount_micros % 1000000000), 0)
FROM conversions
GROUP BY account_id, substr(received_at, 1, 13), event_type, COALESCE(currency, '');

CREATE TRIGGER conversions_hour_insert AFTER INSERT ON conversions
BEGIN
    INSERT INTO cabinet_conversion_hours (account_id, hour, event_type, currency, count, priced,
        amount_high, amount_low)
    VALUES (new.account_id, substr(new.received_at, 1, 13) || ':00:00Z', new.event_type,
        COALESCE(new.currency, ''), 1,
        new.amount_micros IS NOT NULL, COALESCE(new.amount_micros / 1000000000, 0),
        COALESCE(new.amount_micros % 1000000000, 0))
    ON CONFLICT (account_id, hour, event_type, currency) DO UPDATE SET count = count + 1,
        priced = priced + excluded.priced, amount_high = amount_high + excluded.amount_high,
        amount_low = amount_low + excluded.amount_low;
END;

CREATE TRIGGER conversions_hour_delete AFTER DELETE ON conversions
BEGIN
    UPDATE cabinet_conversion_hours SET count = count - 1,
        priced = priced - (old.amount_micros IS NOT NULL),
        amount_high = amount_high - COALESCE(old.amount_micros / 1000000000, 0),
        amount_low = amount_low - COALESCE(old.amount_micros % 1000000000, 0)
    WHERE account_id = old.account_id AND hour = substr(old.received_at, 1, 13) || ':00:00Z'
        AND event_type = old.event_type AND currency = COALESCE(old.currency, '');
    DELETE FROM cabinet_conversion_hours
    WHERE account_id = old.account_id AND hour = substr(old.received_at, 1, 13) || ':00:00Z'
        AND event_type = old.event_type AND currency = COALESCE(old.currency, '')
        AND count <= 0;
END;

-- A conversion whose cabinet, time, event, currency or amount changed: out of its old row,
-- into its new one.
CREATE TRIGGER conversions_hour_update
AFTER UPDATE OF account_id, received_at, event_type, currency, amount_micros ON conversions
BEGIN
    UPDATE cabinet_conversion_hours SET count = count - 1,
        priced = priced - (old.amount_micros IS NOT NULL),
        amount_high = amount_high - COALESCE(old.amount_micros / 1000000000, 0),
        amount_low = amount_low - COALESCE(old.amount_micros % 1000000000, 0)
    WHERE account_id = old.account_id AND hour = substr(old.received_at, 1, 13) || ':00:00Z'
        AND event_type = old.event_type AND currency = COALESCE(old.currency, '');
    DELETE FROM cabinet_conversion_hours
    WHERE account_id = old.account_id AND hour = substr(old.received_at, 1, 13) || ':00:00Z'
        AND event_type = old.event_type AND currency = COALESCE(old.currency, '')
        AND count <= 0;
    INSERT INTO cabinet_conversion_hours (account_id, hour, event_type, currency, count, priced,
        amount_high, amount_low)
    VALUES (new.account_id, substr(new.received_at, 1, 13) || ':00:00Z', new.event_type,
        COALESCE(new.currency, ''), 1,
        new.amount_micros IS NOT NULL, COALESCE(new.amount_micros / 1000000000, 0),
        COALESCE(new.amount_micros % 1000000000, 0))
    ON CONFLICT (account_id, hour, event_type, currency) DO UPDATE SET count = count + 1,
        priced = priced + excluded.priced, amount_high = amount_high + excluded.amount_high,
        amount_low = amount_low + excluded.amount_low;
END;
