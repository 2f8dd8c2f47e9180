-- What each cabinet's campaigns gained per UTC day (`day` is `YYYY-MM-DD`): the sum of the
-- cabinet's `cabinet_hours` rows starting that day, and how many there are (`hours`), so a span
-- of days reads a row per day and at most the hours its ends cut from a UTC day, instead of 24
-- rows a day (`store::kept_days`). Kept as long as the cabinet, like its hours.
--
-- Kept by triggers on `cabinet_hours`, not by the hourly sync's call: the sync writes an hour's
-- row by an upsert that a late re-sync repeats with other sums, and a trigger keeps the day equal
-- to its hours whatever writes, rewrites or removes them (the sync, a re-sync, retention, a
-- restore's repair, a test's fixture). An update moves the difference (or the whole row to
-- another day, should its hour change); a day whose last hour is removed is removed, so the
-- table equals the hours summed by day exactly (`adcab check --deep` compares them). An
-- `INSERT OR REPLACE` into `cabinet_hours` would bypass the delete trigger (SQLite fires it on a
-- replace only with recursive triggers on): write hours with an upsert.
CREATE TABLE cabinet_days (
    account_id    INTEGER NOT NULL,
    day           TEXT NOT NULL,
    hours         INTEGER NOT NULL,
    views         INTEGER NOT NULL,
    clicks        INTEGER NOT NULL,
    actions       INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    PRIMARY KEY (account_id, day)
) WITHOUT ROWID;

INSERT INTO cabinet_days (account_id, day, hours, views, clicks, actions, spent_micros)
SELECT account_id, substr(hour, 1, 10), COUNT(*), SUM(views), SUM(clicks), SUM(actions),
    SUM(spent_micros)
FROM cabinet_hours GROUP BY account_id, substr(hour, 1, 10);

CREATE TRIGGER cabinet_hours_day_insert AFTER INSERT ON cabinet_hours
BEGIN
    INSERT INTO cabinet_days (account_id, day, hours, views, clicks, actions, spent_micros)
    VALUES (new.account_id, substr(new.hour, 1, 10), 1, new.views, new.clicks, new.actions,
        new.spent_micros)
    ON CONFLICT (account_id, day) DO UPDATE SET hours = hours + 1,
        views = views + excluded.views, clicks = clicks + excluded.clicks,
        actions = actions + excluded.actions, spent_micros = spent_micros + excluded.spent_micros;
END;

CREATE TRIGGER cabinet_hours_day_delete AFTER DELETE ON cabinet_hours
BEGIN
    UPDATE cabinet_days SET hours = hours - 1, views = views - old.views,
        clicks = clicks - old.clicks, actions = actions - old.actions,
        spent_micros = spent_micros - old.spent_micros
    WHERE account_id = old.account_id AND day = substr(old.hour, 1, 10);
    DELETE FROM cabinet_days
    WHERE account_id = old.account_id AND day = substr(old.hour, 1, 10) AND hours <= 0;
END;

-- An hour's sums rewritten in place (the sync's upsert): the difference, one statement.
CREATE TRIGGER cabinet_hours_day_update AFTER UPDATE ON cabinet_hours
WHEN old.account_id = new.account_id AND substr(old.hour, 1, 10) = substr(new.hour, 1, 10)
BEGIN
    UPDATE cabinet_days SET views = views - old.views + new.views,
        clicks = clicks - old.clicks + new.clicks, actions = actions - old.actions + new.actions,
        spent_micros = spent_micros - old.spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND day = substr(new.hour, 1, 10);
END;

-- An hour moved to another cabinet or day: out of the old day, into the new one.
CREATE TRIGGER cabinet_hours_day_move AFTER UPDATE ON cabinet_hours
WHEN old.account_id <> new.account_id OR substr(old.hour, 1, 10) <> substr(new.hour, 1, 10)
BEGIN
    UPDATE cabinet_days SET hours = hours - 1, views = views - old.views,
        clicks = clicks - old.clicks, actions = actions - old.actions,
        spent_micros = spent_micros - old.spent_micros
    WHERE account_id = old.account_id AND day = substr(old.hour, 1, 10);
    DELETE FROM cabinet_days
    WHERE account_id = old.account_id AND day = substr(old.hour, 1, 10) AND hours <= 0;
    INSERT INTO cabinet_days (account_id, day, hours, views, clicks, actions, spent_micros)
    VALUES (new.account_id, substr(new.hour, 1, 10), 1, new.views, new.clicks, new.actions,
        new.spent_micros)
    ON CONFLICT (account_id, day) DO UPDATE SET hours = hours + 1,
        views = views + excluded.views, clicks = clicks + excluded.clicks,
        actions = actions + excluded.actions, spent_micros = spent_micros + excluded.spent_micros;
END;
