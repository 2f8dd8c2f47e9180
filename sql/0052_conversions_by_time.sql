-- The conversions' index by time (migration 47) also holds each event's campaign and type, so
-- a report's conversions per campaign over a span, and the ones a span's ends cut from a day,
-- are read from the index alone instead of looking each event up in the table. One campaign's
-- conversions over a span (its page's chart) get their own index by campaign and time, rather
-- than reading every conversion of its cabinet in the span.
DROP INDEX conversions_received;
CREATE INDEX conversions_received
    ON conversions(account_id, received_at, ad_id, event_type, currency, amount_micros);
CREATE INDEX conversions_ad_received ON conversions(account_id, ad_id, received_at)
    WHERE ad_id IS NOT NULL;
