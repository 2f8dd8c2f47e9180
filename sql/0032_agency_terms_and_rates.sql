-- An agency's terms per client cabinet: the most money that may be moved into it in one
-- calendar month (UTC), the agency's fee on its spend (a decimal percent, e.g. '12.5'), and
-- how often its client report is sent ('weekly' or 'monthly'). NULL means none.
ALTER TABLE cabinets ADD COLUMN monthly_topup_cap_micros INTEGER;
ALTER TABLE cabinets ADD COLUMN fee_percent TEXT;
-- The schedule's values are the code's to check (as the cabinet types since migration 18).
ALTER TABLE cabinets ADD COLUMN report_schedule TEXT;

-- Exchange rates per day: one unit of `base` costs `rate` units of `quote` on `day`
-- (YYYY-MM-DD), as a decimal text. `source` says where it came from ('ecb', 'url', 'fixed',
-- 'manual'); a rate set by hand replaces a fetched one of the same day.
CREATE TABLE rates (
    base        TEXT NOT NULL,
    quote       TEXT NOT NULL,
    day         TEXT NOT NULL,
    rate        TEXT NOT NULL,
    source      TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (base, quote, day)
) WITHOUT ROWID;
