-- What each cabinet's conversions came to per UTC day (`day` is `YYYY-MM-DD` of `received_at`),
-- event and currency (`''` when they named none): how many, how many named an amount (`priced`), and
-- the sum of those amounts in two parts that cannot overflow, `amount_high` * 10^9 +
-- `amount_low` (as `conversion_totals` keeps them). A span of days reads a row per day and
-- event and currency, and the conversions its ends cut from a UTC day, instead of every
-- conversion (`store::kept::conversions`: the home page's conversions and revenue, a whole
-- cabinet's report per day and event).
--
-- Kept by triggers on `conversions`, as `cabinet_days` is on `cabinet_hours`: whatever writes,
-- changes or removes a conversion (ingest, a correction, retention, a test's fixture), its day
-- follows; a day, event and currency left with no conversion is removed, so the table equals the
-- conversions summed by day exactly (`adcab check --deep` compares them). Retention's removal
-- of old conversions removes them from their days too, as it does from the stored events.
CREATE TABLE cabinet_conversion_days (
    account_id   INTEGER NOT NULL,
    day          TEXT NOT NULL,
    event_type   TEXT NOT NULL,
    currency     TEXT NOT NULL,
    count        INTEGER NOT NULL,
    priced       INTEGER NOT NULL,
    amount_high  INTEGER NOT NULL,
    amount_low   INTEGER NOT NULL,
    PRIMARY KEY (account_id, day, event_type, currency)
) WITHOUT ROWID;

INSERT INTO cabinet_conversion_days (account_id, day, event_type, currency, count, priced,
    amount_high, amount_low)
SELECT account_id, substr(received_at, 1, 10), event_type, COALESCE(currency, ''), COUNT(*),
    COUNT(amount_micros), COALESCE(SUM(amount_micros / 1000000000), 0),
    COALESCE(SUM(amount_micros % 1000000000), 0)
FROM conversions
GROUP BY account_id, substr(received_at, 1, 10), event_type, COALESCE(currency, '');

CREATE TRIGGER conversions_day_insert AFTER INSERT ON conversions
BEGIN
    INSERT INTO cabinet_conversion_days (account_id, day, event_type, currency, count, priced,
        amount_high, amount_low)
    VALUES (new.account_id, substr(new.received_at, 1, 10), new.event_type,
        COALESCE(new.currency, ''), 1,
        new.amount_micros IS NOT NULL, COALESCE(new.amount_micros / 1000000000, 0),
        COALESCE(new.amount_micros % 1000000000, 0))
    ON CONFLICT (account_id, day, event_type, currency) DO UPDATE SET count = count + 1,
        priced = priced + excluded.priced, amount_high = amount_high + excluded.amount_high,
        amount_low = amount_low + excluded.amount_low;
END;

CREATE TRIGGER conversions_day_delete AFTER DELETE ON conversions
BEGIN
    UPDATE cabinet_conversion_days SET count = count - 1,
        priced = priced - (old.amount_micros IS NOT NULL),
        amount_high = amount_high - COALESCE(old.amount_micros / 1000000000, 0),
        amount_low = amount_low - COALESCE(old.amount_micros % 1000000000, 0)
    WHERE account_id = old.account_id AND day = substr(old.received_at, 1, 10)
        AND event_type = old.event_type AND currency = COALESCE(old.currency, '');
    DELETE FROM cabinet_conversion_days
    WHERE account_id = old.account_id AND day = substr(old.received_at, 1, 10)
        AND event_type = old.event_type AND currency = COALESCE(old.currency, '')
        AND count <= 0;
END;

-- A conversion whose cabinet, time, event, currency or amount changed: out of its old row,
-- into its new one.
CREATE TRIGGER conversions_day_update
AFTER UPDATE OF account_id, received_at, event_type, currency, amount_micros ON conversions
BEGIN
    UPDATE cabinet_conversion_days SET count = count - 1,
        priced = priced - (old.amount_micros IS NOT NULL),
        amount_high = amount_high - COALESCE(old.amount_micros / 1000000000, 0),
        amount_low = amount_low - COALESCE(old.amount_micros % 1000000000, 0)
    WHERE account_id = old.account_id AND day = substr(old.received_at, 1, 10)
        AND event_type = old.event_type AND currency = COALESCE(old.currency, '');
    DELETE FROM cabinet_conversion_days
    WHERE account_id = old.account_id AND day = substr(old.received_at, 1, 10)
        AND event_type = old.event_type AND currency = COALESCE(old.currency, '')
        AND count <= 0;
    INSERT INTO cabinet_conversion_days (account_id, day, event_type, currency, count, priced,
        amount_high, amount_low)
    VALUES (new.account_id, substr(new.received_at, 1, 10), new.event_type,
        COALESCE(new.currency, ''), 1,
        new.amount_micros IS NOT NULL, COALESCE(new.amount_micros / 1000000000, 0),
        COALESCE(new.amount_micros % 1000000000, 0))
    ON CONFLICT (account_id, day, event_type, currency) DO UPDATE SET count = count + 1,
        priced = priced + excluded.priced, amount_high = amount_high + excluded.amount_high,
        amount_low = amount_low + excluded.amount_low;
END;
