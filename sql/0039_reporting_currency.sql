-- The owner's reporting currency (#30): the currency the totals across the owner's cabinets
-- are shown in, chosen on /settings beside the agency's name and logo. NULL is the operator's
-- `[rates] reporting_currency`.
ALTER TABLE agency_profiles ADD COLUMN reporting_currency TEXT;
