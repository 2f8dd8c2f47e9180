-- Delivery over time: each simulated ad remembers up to when it has accrued views and spend,
-- and what it spent on its current day (for the daily cap).
ALTER TABLE sim_ads ADD COLUMN accrued_until TEXT;
ALTER TABLE sim_ads ADD COLUMN day_index INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sim_ads ADD COLUMN day_spent_micros INTEGER NOT NULL DEFAULT 0;
