-- `cabinet_hours` began (migration 11) with the hours then stored hour by hour; the days
-- retention had rolled up before it got no cabinet hours, so a cabinet's days summed from its
-- hours missed them. Each such day (its campaigns' daily rows, and no cabinet hour on it: a day
-- is rolled up whole) gets one cabinet hour, at noon, summing its campaigns' rows: the
-- cabinet's hours then sum its campaigns' rows on every day (`adcab check --deep`), and the
-- daily rows kept from them follow by their triggers. A day placed at noon counts in the local
-- day holding its noon, as a rolled-up day always has.
INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
SELECT d.account_id, d.day || 'T12:00:00Z', SUM(d.views), SUM(d.clicks), SUM(d.actions),
    SUM(d.spent_micros)
FROM daily_stats d
WHERE NOT EXISTS (SELECT 1 FROM cabinet_hours h WHERE h.account_id = d.account_id
    AND h.hour >= d.day || 'T00:00:00Z' AND h.hour < d.day || 'T24:00:00Z')
GROUP BY d.account_id, d.day;
