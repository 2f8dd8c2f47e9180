-- Operations: retention keeps history small without losing totals, and a failed webhook can be
-- sent again.

-- What each campaign gained in one UTC day of the service clock, for hours older than
-- `[retention] hourly_stats_days`: hourly rows roll up here (campaign by campaign) and are removed.
CREATE TABLE daily_stats (
    account_id    INTEGER NOT NULL,
    ad_id         INTEGER NOT NULL,
    day           TEXT NOT NULL,
    views         INTEGER NOT NULL,
    opens         INTEGER NOT NULL,
    clicks        INTEGER NOT NULL,
    actions       INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    PRIMARY KEY (account_id, ad_id, day)
) WITHOUT ROWID;

-- What pruned conversions added to each campaign, so its conversion counts and revenue stay
-- whole after the events themselves are gone. Revenue is summed in two parts, as the live
-- summary sums it (billions of micro-units, and the rest). `currency` is '' when none was sent.
CREATE TABLE conversion_totals (
    account_id   INTEGER NOT NULL,
    ad_id        INTEGER NOT NULL,
    event_type   TEXT NOT NULL,
    currency     TEXT NOT NULL,
    count        INTEGER NOT NULL,
    amount_high  INTEGER,
    amount_low   INTEGER,
    PRIMARY KEY (account_id, ad_id, event_type, currency)
) WITHOUT ROWID;

-- The body of each delivery as sent, so an operator can send a failed one again.
ALTER TABLE webhook_deliveries ADD COLUMN payload TEXT;
CREATE INDEX webhook_deliveries_delivery ON webhook_deliveries(delivery_id);
