-- Opens kept per cabinet hour and day beside views, clicks, actions and spend, so a cabinet's
-- sums over a span (`GET /v1/stats/total`) read the kept rows whole, not every campaign's runs
-- at both of the span's bounds (`store::runs::cabinet_total`).
--
-- Each hour's opens are its campaigns' hourly rows summed; a rolled-up day's (whose hourly rows
-- are gone) go to the day's last cabinet hour, where corrections to a rolled-up day go
-- (`store::stats::shift_cabinet_day`): the hours then sum their campaigns' rows on every day, as
-- `adcab check --deep` compares them. The daily rows are summed from the hours, and their
-- triggers are made again to carry opens too.
DROP TRIGGER cabinet_hours_day_insert;
DROP TRIGGER cabinet_hours_day_delete;
DROP TRIGGER cabinet_hours_day_update;
DROP TRIGGER cabinet_hours_day_move;

ALTER TABLE cabinet_hours ADD COLUMN opens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cabinet_days ADD COLUMN opens INTEGER NOT NULL DEFAULT 0;

UPDATE cabinet_hours SET opens = h.opens
FROM (SELECT account_id, hour, SUM(opens) AS opens FROM hourly_stats
      GROUP BY account_id, hour) AS h
WHERE cabinet_hours.account_id = h.account_id AND cabinet_hours.hour = h.hour;

UPDATE cabinet_hours SET opens = cabinet_hours.opens + d.opens
FROM (SELECT account_id, day, SUM(opens) AS opens FROM daily_stats
      GROUP BY account_id, day) AS d
WHERE cabinet_hours.account_id = d.account_id
    AND cabinet_hours.hour = (SELECT MAX(hour) FROM cabinet_hours AS l
        WHERE l.account_id = d.account_id AND l.hour >= d.day || 'T00:00:00Z'
            AND l.hour < d.day || 'T24:00:00Z');

UPDATE cabinet_days SET opens = h.opens
FROM (SELECT account_id, substr(hour, 1, 10) AS day, SUM(opens) AS opens FROM cabinet_hours
      GROUP BY account_id, substr(hour, 1, 10)) AS h
WHERE cabinet_days.account_id = h.account_id AND cabinet_days.day = h.day;

CREATE TRIGGER cabinet_hours_day_insert AFTER INSERT ON cabinet_hours
BEGIN
    INSERT INTO cabinet_days (account_id, day, hours, views, opens, clicks, actions,
        spent_micros)
    VALUES (new.account_id, substr(new.hour, 1, 10), 1, new.views, new.opens, new.clicks,
        new.actions, new.spent_micros)
    ON CONFLICT (account_id, day) DO UPDATE SET hours = hours + 1,
        views = views + excluded.views, opens = opens + excluded.opens,
        clicks = clicks + excluded.clicks, actions = actions + excluded.actions,
        spent_micros = spent_micros + excluded.spent_micros;
END;

CREATE TRIGGER cabinet_hours_day_delete AFTER DELETE ON cabinet_hours
BEGIN
    UPDATE cabinet_days SET hours = hours - 1, views = views - old.views,
        opens = opens - old.opens, clicks = clicks - old.clicks,
        actions = actions - old.actions, spent_micros = spent_micros - old.spent_micros
    WHERE account_id = old.account_id AND day = substr(old.hour, 1, 10);
    DELETE FROM cabinet_days
    WHERE account_id = old.account_id AND day = substr(old.hour, 1, 10) AND hours <= 0;
END;

-- An hour's sums rewritten in place (the sync's upsert): the difference, one statement.
CREATE TRIGGER cabinet_hours_day_update AFTER UPDATE ON cabinet_hours
WHEN old.account_id = new.account_id AND substr(old.hour, 1, 10) = substr(new.hour, 1, 10)
BEGIN
    UPDATE cabinet_days SET views = views - old.views + new.views,
        opens = opens - old.opens + new.opens, clicks = clicks - old.clicks + new.clicks,
        actions = actions - old.actions + new.actions,
        spent_micros = spent_micros - old.spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND day = substr(new.hour, 1, 10);
END;

-- An hour moved to another cabinet or day: out of the old day, into the new one.
CREATE TRIGGER cabinet_hours_day_move AFTER UPDATE ON cabinet_hours
WHEN old.account_id <> new.account_id OR substr(old.hour, 1, 10) <> substr(new.hour, 1, 10)
BEGIN
    UPDATE cabinet_days SET hours = hours - 1, views = views - old.views,
        opens = opens - old.opens, clicks = clicks - old.clicks,
        actions = actions - old.actions, spent_micros = spent_micros - old.spent_micros
    WHERE account_id = old.account_id AND day = substr(old.hour, 1, 10);
    DELETE FROM cabinet_days
    WHERE account_id = old.account_id AND day = substr(old.hour, 1, 10) AND hours <= 0;
    INSERT INTO cabinet_days (account_id, day, hours, views, opens, clicks, actions,
        spent_micros)
    VALUES (new.account_id, substr(new.hour, 1, 10), 1, new.views, new.opens, new.clicks,
        new.actions, new.spent_micros)
    ON CONFLICT (account_id, day) DO UPDATE SET hours = hours + 1,
        views = views + excluded.views, opens = opens + excluded.opens,
        clicks = clicks + excluded.clicks, actions = actions + excluded.actions,
        spent_micros = spent_micros + excluded.spent_micros;
END;
