-- What each campaign's conversions came to per UTC week (Monday to Sunday; `week` is the
-- Monday's `YYYY-MM-DD` of `received_at`) and currency (`''` when they named none): how many,
-- and the sum of their amounts in the two parts of `conversion_totals` (`amount_high` * 10^9 +
-- `amount_low`). A report's conversions per campaign over a span read each UTC week that lies
-- whole in it from these rows and only the conversions around those weeks one by one
-- (`store::reports::conversions_per_campaign`): a year in, 30 days of a cabinet whose
-- campaigns convert daily read about four rows per campaign instead of thirty events.
--
-- Only a conversion attributed to one campaign in its own row (`ad_id`, as ingest stores
-- them) is kept here; one of several campaigns (`conversion_campaigns`) is rare and read one by
-- one. Kept by triggers on `conversions`, as the cabinets' conversion days are: whatever writes,
-- changes or removes such a conversion (ingest, a correction, retention), its week follows,
-- and a week and currency left with no conversion is removed, so the table equals those
-- conversions summed by campaign, week and currency exactly (`adcab check --deep` compares
-- them).
CREATE TABLE campaign_conversion_weeks (
    account_id   INTEGER NOT NULL,
    ad_id        INTEGER NOT NULL,
    week         TEXT NOT NULL,
    currency     TEXT NOT NULL,
    count        INTEGER NOT NULL,
    amount_high  INTEGER NOT NULL,
    amount_low   INTEGER NOT NULL,
    PRIMARY KEY (account_id, week, ad_id, currency)
) WITHOUT ROWID;

INSERT INTO campaign_conversion_weeks (account_id, ad_id, week, currency, count, amount_high,
    amount_low)
SELECT account_id, ad_id, date(substr(received_at, 1, 10), '-6 days', 'weekday 1'),
    COALESCE(currency, ''), COUNT(*), COALESCE(SUM(amount_micros / 1000000000), 0),
    COALESCE(SUM(amount_micros % 1000000000), 0)
FROM conversions WHERE ad_id IS NOT NULL
GROUP BY account_id, ad_id, date(substr(received_at, 1, 10), '-6 days', 'weekday 1'),
    COALESCE(currency, '');

CREATE TRIGGER conversions_ad_week_insert AFTER INSERT ON conversions
WHEN new.ad_id IS NOT NULL
BEGIN
    INSERT INTO campaign_conversion_weeks (account_id, ad_id, week, currency, count,
        amount_high, amount_low)
    VALUES (new.account_id, new.ad_id,
        date(substr(new.received_at, 1, 10), '-6 days', 'weekday 1'),
        COALESCE(new.currency, ''), 1, COALESCE(new.amount_micros / 1000000000, 0),
        COALESCE(new.amount_micros % 1000000000, 0))
    ON CONFLICT (account_id, week, ad_id, currency) DO UPDATE SET count = count + 1,
        amount_high = amount_high + excluded.amount_high,
        amount_low = amount_low + excluded.amount_low;
END;

CREATE TRIGGER conversions_ad_week_delete AFTER DELETE ON conversions
WHEN old.ad_id IS NOT NULL
BEGIN
    UPDATE campaign_conversion_weeks SET count = count - 1,
        amount_high = amount_high - COALESCE(old.amount_micros / 1000000000, 0),
        amount_low = amount_low - COALESCE(old.amount_micros % 1000000000, 0)
    WHERE account_id = old.account_id
        AND week = date(substr(old.received_at, 1, 10), '-6 days', 'weekday 1')
        AND ad_id = old.ad_id AND currency = COALESCE(old.currency, '');
    DELETE FROM campaign_conversion_weeks
    WHERE account_id = old.account_id
        AND week = date(substr(old.received_at, 1, 10), '-6 days', 'weekday 1')
        AND ad_id = old.ad_id AND currency = COALESCE(old.currency, '') AND count <= 0;
END;

-- A conversion whose cabinet, campaign, time, currency or amount changed (a postback sent
-- again, attributed anew): out of its old week's row when it had one campaign, into its new
-- one when it has one.
CREATE TRIGGER conversions_ad_week_update
AFTER UPDATE OF account_id, ad_id, received_at, currency, amount_micros ON conversions
WHEN old.ad_id IS NOT NULL OR new.ad_id IS NOT NULL
BEGIN
    UPDATE campaign_conversion_weeks SET count = count - 1,
        amount_high = amount_high - COALESCE(old.amount_micros / 1000000000, 0),
        amount_low = amount_low - COALESCE(old.amount_micros % 1000000000, 0)
    WHERE account_id = old.account_id
        AND week = date(substr(old.received_at, 1, 10), '-6 days', 'weekday 1')
        AND ad_id = old.ad_id AND currency = COALESCE(old.currency, '');
    DELETE FROM campaign_conversion_weeks
    WHERE account_id = old.account_id
        AND week = date(substr(old.received_at, 1, 10), '-6 days', 'weekday 1')
        AND ad_id = old.ad_id AND currency = COALESCE(old.currency, '') AND count <= 0;
    INSERT INTO campaign_conversion_weeks (account_id, ad_id, week, currency, count,
        amount_high, amount_low)
    SELECT new.account_id, new.ad_id,
        date(substr(new.received_at, 1, 10), '-6 days', 'weekday 1'),
        COALESCE(new.currency, ''), 1, COALESCE(new.amount_micros / 1000000000, 0),
        COALESCE(new.amount_micros % 1000000000, 0)
    WHERE new.ad_id IS NOT NULL
    ON CONFLICT (account_id, week, ad_id, currency) DO UPDATE SET count = count + 1,
        amount_high = amount_high + excluded.amount_high,
        amount_low = amount_low + excluded.amount_low;
END;
