-- Each cabinet's spend per UTC day kept in its week's row too (`spent_mon` to `spent_sun`,
-- micro-units, the days of the week from its Monday), so the home page's chart of spend per
-- day reads a row per cabinet and week instead of one per cabinet and day
-- (`store::kept::spent_of`): over 30 days five or six rows of each cabinet instead of 30.
-- Kept by the same triggers on the daily rows as the week's sums, each of which writes the
-- day's spend to its weekday's column too; `adcab check --deep` compares the columns with the
-- daily rows. The index by week holds them, so the chart of many cabinets reads each range
-- once across them (as `0063_kept_rows_by_day.sql` made it for the sums).
ALTER TABLE cabinet_weeks ADD COLUMN spent_mon INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cabinet_weeks ADD COLUMN spent_tue INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cabinet_weeks ADD COLUMN spent_wed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cabinet_weeks ADD COLUMN spent_thu INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cabinet_weeks ADD COLUMN spent_fri INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cabinet_weeks ADD COLUMN spent_sat INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cabinet_weeks ADD COLUMN spent_sun INTEGER NOT NULL DEFAULT 0;

UPDATE cabinet_weeks SET
    spent_mon = COALESCE((SELECT SUM(spent_micros) FROM cabinet_days d
        WHERE d.account_id = cabinet_weeks.account_id
            AND d.day = date(cabinet_weeks.week, '+0 days')), 0),
    spent_tue = COALESCE((SELECT SUM(spent_micros) FROM cabinet_days d
        WHERE d.account_id = cabinet_weeks.account_id
            AND d.day = date(cabinet_weeks.week, '+1 days')), 0),
    spent_wed = COALESCE((SELECT SUM(spent_micros) FROM cabinet_days d
        WHERE d.account_id = cabinet_weeks.account_id
            AND d.day = date(cabinet_weeks.week, '+2 days')), 0),
    spent_thu = COALESCE((SELECT SUM(spent_micros) FROM cabinet_days d
        WHERE d.account_id = cabinet_weeks.account_id
            AND d.day = date(cabinet_weeks.week, '+3 days')), 0),
    spent_fri = COALESCE((SELECT SUM(spent_micros) FROM cabinet_days d
        WHERE d.account_id = cabinet_weeks.account_id
            AND d.day = date(cabinet_weeks.week, '+4 days')), 0),
    spent_sat = COALESCE((SELECT SUM(spent_micros) FROM cabinet_days d
        WHERE d.account_id = cabinet_weeks.account_id
            AND d.day = date(cabinet_weeks.week, '+5 days')), 0),
    spent_sun = COALESCE((SELECT SUM(spent_micros) FROM cabinet_days d
        WHERE d.account_id = cabinet_weeks.account_id
            AND d.day = date(cabinet_weeks.week, '+6 days')), 0);

DROP TRIGGER cabinet_days_week_insert;
DROP TRIGGER cabinet_days_week_delete;
DROP TRIGGER cabinet_days_week_update;
DROP TRIGGER cabinet_days_week_move;

CREATE TRIGGER cabinet_days_week_insert AFTER INSERT ON cabinet_days
BEGIN
    INSERT INTO cabinet_weeks (account_id, week, days, views, opens, clicks, actions,
        spent_micros, spent_mon, spent_tue, spent_wed, spent_thu, spent_fri, spent_sat, spent_sun)
    VALUES (new.account_id, date(new.day, '-6 days', 'weekday 1'), 1, new.views, new.opens,
        new.clicks, new.actions, new.spent_micros,
        CASE strftime('%u', new.day) WHEN '1' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '2' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '3' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '4' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '5' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '6' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '7' THEN new.spent_micros ELSE 0 END)
    ON CONFLICT (account_id, week) DO UPDATE SET days = days + 1,
        views = views + excluded.views, opens = opens + excluded.opens,
        clicks = clicks + excluded.clicks, actions = actions + excluded.actions,
        spent_micros = spent_micros + excluded.spent_micros,
        spent_mon = spent_mon + excluded.spent_mon,
        spent_tue = spent_tue + excluded.spent_tue,
        spent_wed = spent_wed + excluded.spent_wed,
        spent_thu = spent_thu + excluded.spent_thu,
        spent_fri = spent_fri + excluded.spent_fri,
        spent_sat = spent_sat + excluded.spent_sat,
        spent_sun = spent_sun + excluded.spent_sun;
END;

CREATE TRIGGER cabinet_days_week_delete AFTER DELETE ON cabinet_days
BEGIN
    UPDATE cabinet_weeks SET days = days - 1, views = views - old.views,
        opens = opens - old.opens, clicks = clicks - old.clicks,
        actions = actions - old.actions, spent_micros = spent_micros - old.spent_micros,
        spent_mon = spent_mon - CASE strftime('%u', old.day) WHEN '1' THEN old.spent_micros ELSE 0 END,
        spent_tue = spent_tue - CASE strftime('%u', old.day) WHEN '2' THEN old.spent_micros ELSE 0 END,
        spent_wed = spent_wed - CASE strftime('%u', old.day) WHEN '3' THEN old.spent_micros ELSE 0 END,
        spent_thu = spent_thu - CASE strftime('%u', old.day) WHEN '4' THEN old.spent_micros ELSE 0 END,
        spent_fri = spent_fri - CASE strftime('%u', old.day) WHEN '5' THEN old.spent_micros ELSE 0 END,
        spent_sat = spent_sat - CASE strftime('%u', old.day) WHEN '6' THEN old.spent_micros ELSE 0 END,
        spent_sun = spent_sun - CASE strftime('%u', old.day) WHEN '7' THEN old.spent_micros ELSE 0 END
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1');
    DELETE FROM cabinet_weeks
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1')
        AND days <= 0;
END;

-- A day's sums rewritten in place (an hour of it written): the difference, one statement.
CREATE TRIGGER cabinet_days_week_update AFTER UPDATE ON cabinet_days
WHEN old.account_id = new.account_id
    AND date(old.day, '-6 days', 'weekday 1') = date(new.day, '-6 days', 'weekday 1')
BEGIN
    UPDATE cabinet_weeks SET views = views - old.views + new.views,
        opens = opens - old.opens + new.opens, clicks = clicks - old.clicks + new.clicks,
        actions = actions - old.actions + new.actions,
        spent_micros = spent_micros - old.spent_micros + new.spent_micros,
        spent_mon = spent_mon - CASE strftime('%u', old.day) WHEN '1' THEN old.spent_micros ELSE 0 END
            + CASE strftime('%u', new.day) WHEN '1' THEN new.spent_micros ELSE 0 END,
        spent_tue = spent_tue - CASE strftime('%u', old.day) WHEN '2' THEN old.spent_micros ELSE 0 END
            + CASE strftime('%u', new.day) WHEN '2' THEN new.spent_micros ELSE 0 END,
        spent_wed = spent_wed - CASE strftime('%u', old.day) WHEN '3' THEN old.spent_micros ELSE 0 END
            + CASE strftime('%u', new.day) WHEN '3' THEN new.spent_micros ELSE 0 END,
        spent_thu = spent_thu - CASE strftime('%u', old.day) WHEN '4' THEN old.spent_micros ELSE 0 END
            + CASE strftime('%u', new.day) WHEN '4' THEN new.spent_micros ELSE 0 END,
        spent_fri = spent_fri - CASE strftime('%u', old.day) WHEN '5' THEN old.spent_micros ELSE 0 END
            + CASE strftime('%u', new.day) WHEN '5' THEN new.spent_micros ELSE 0 END,
        spent_sat = spent_sat - CASE strftime('%u', old.day) WHEN '6' THEN old.spent_micros ELSE 0 END
            + CASE strftime('%u', new.day) WHEN '6' THEN new.spent_micros ELSE 0 END,
        spent_sun = spent_sun - CASE strftime('%u', old.day) WHEN '7' THEN old.spent_micros ELSE 0 END
            + CASE strftime('%u', new.day) WHEN '7' THEN new.spent_micros ELSE 0 END
    WHERE account_id = new.account_id AND week = date(new.day, '-6 days', 'weekday 1');
END;

-- A day moved to another cabinet or week: out of the old week, into the new one.
CREATE TRIGGER cabinet_days_week_move AFTER UPDATE ON cabinet_days
WHEN old.account_id <> new.account_id
    OR date(old.day, '-6 days', 'weekday 1') <> date(new.day, '-6 days', 'weekday 1')
BEGIN
    UPDATE cabinet_weeks SET days = days - 1, views = views - old.views,
        opens = opens - old.opens, clicks = clicks - old.clicks,
        actions = actions - old.actions, spent_micros = spent_micros - old.spent_micros,
        spent_mon = spent_mon - CASE strftime('%u', old.day) WHEN '1' THEN old.spent_micros ELSE 0 END,
        spent_tue = spent_tue - CASE strftime('%u', old.day) WHEN '2' THEN old.spent_micros ELSE 0 END,
        spent_wed = spent_wed - CASE strftime('%u', old.day) WHEN '3' THEN old.spent_micros ELSE 0 END,
        spent_thu = spent_thu - CASE strftime('%u', old.day) WHEN '4' THEN old.spent_micros ELSE 0 END,
        spent_fri = spent_fri - CASE strftime('%u', old.day) WHEN '5' THEN old.spent_micros ELSE 0 END,
        spent_sat = spent_sat - CASE strftime('%u', old.day) WHEN '6' THEN old.spent_micros ELSE 0 END,
        spent_sun = spent_sun - CASE strftime('%u', old.day) WHEN '7' THEN old.spent_micros ELSE 0 END
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1');
    DELETE FROM cabinet_weeks
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1')
        AND days <= 0;
    INSERT INTO cabinet_weeks (account_id, week, days, views, opens, clicks, actions,
        spent_micros, spent_mon, spent_tue, spent_wed, spent_thu, spent_fri, spent_sat, spent_sun)
    VALUES (new.account_id, date(new.day, '-6 days', 'weekday 1'), 1, new.views, new.opens,
        new.clicks, new.actions, new.spent_micros,
        CASE strftime('%u', new.day) WHEN '1' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '2' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '3' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '4' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '5' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '6' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', new.day) WHEN '7' THEN new.spent_micros ELSE 0 END)
    ON CONFLICT (account_id, week) DO UPDATE SET days = days + 1,
        views = views + excluded.views, opens = opens + excluded.opens,
        clicks = clicks + excluded.clicks, actions = actions + excluded.actions,
        spent_micros = spent_micros + excluded.spent_micros,
        spent_mon = spent_mon + excluded.spent_mon,
        spent_tue = spent_tue + excluded.spent_tue,
        spent_wed = spent_wed + excluded.spent_wed,
        spent_thu = spent_thu + excluded.spent_thu,
        spent_fri = spent_fri + excluded.spent_fri,
        spent_sat = spent_sat + excluded.spent_sat,
        spent_sun = spent_sun + excluded.spent_sun;
END;

DROP INDEX cabinet_weeks_by_week;
CREATE INDEX cabinet_weeks_by_week
    ON cabinet_weeks (week, account_id, views, opens, clicks, actions, spent_micros,
        spent_mon, spent_tue, spent_wed, spent_thu, spent_fri, spent_sat, spent_sun);
