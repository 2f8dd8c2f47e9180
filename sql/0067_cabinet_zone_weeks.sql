-- Each cabinet's spend per local day of the time zones people chose, kept in a row per week,
-- so that the home page's chart of spend per day in a zone whose midnights are not UTC's reads
-- a row per cabinet and week (`store::kept::spent_of`), as it does in UTC's days
-- (`0065_cabinet_week_days_spent.sql`), instead of the UTC weeks' rows and, at each of the
-- chart's local midnights, the cabinet's hours between it and the nearest UTC midnight: over 30
-- days in Moscow five or six rows of each cabinet and no hour, instead of as many UTC weeks' rows
-- and 93 hours.
--
-- A zone's days are kept by their shift: the minutes after a UTC midnight at which they start
-- (Moscow's, UTC+3, at 21:00 the day before: 1260; New York's at 05:00 or 04:00: 300 and 240,
-- one for each half of the year). `zone_shifts` lists the shifts kept: those of the zones people
-- chose, followed by the service as a person saves a zone and as it starts
-- (`store::zone_days::follow`), which fills each new shift's weeks from the hours then and
-- removes a shift no person's zone has any more, with its weeks. A local day is named by the UTC date it starts on (east of UTC the local date before)
-- and holds the cabinet's hours starting in it (`cabinet_hours`: an hour starts in the day
-- `date(hour, -shift minutes)`, as a span holds the hours starting in it); a week is the
-- Monday to Sunday of those names (`week` its Monday), and its row holds how many hours its
-- days hold (`hours`) and each day's spend (`spent_mon` to `spent_sun`, micro-units). A
-- rolled-up day's hour, at its noon, counts in the local day holding its noon, as it does
-- everywhere else.
--
-- Kept by triggers on `cabinet_hours`, as its daily rows are, for every shift at once: whatever
-- writes, changes, moves or removes an hour, its day in each shift's week follows, and a week
-- left with no hour is removed, so the table equals the hours summed by shift, cabinet, week
-- and day exactly (`adcab check --deep` compares them). An hour whose text is not a time (none
-- the service writes) has no day and is left out, so it cannot stop a write. The index by week
-- holds the days' spend, so the chart of many cabinets reads its range of weeks once across
-- them.
CREATE TABLE zone_shifts (
    shift INTEGER PRIMARY KEY CHECK (shift > 0 AND shift < 1440)
);

CREATE TABLE cabinet_zone_weeks (
    shift       INTEGER NOT NULL,
    account_id  INTEGER NOT NULL,
    week        TEXT NOT NULL,
    hours       INTEGER NOT NULL,
    spent_mon   INTEGER NOT NULL,
    spent_tue   INTEGER NOT NULL,
    spent_wed   INTEGER NOT NULL,
    spent_thu   INTEGER NOT NULL,
    spent_fri   INTEGER NOT NULL,
    spent_sat   INTEGER NOT NULL,
    spent_sun   INTEGER NOT NULL,
    PRIMARY KEY (shift, account_id, week)
) WITHOUT ROWID;

CREATE INDEX cabinet_zone_weeks_by_week
    ON cabinet_zone_weeks (shift, week, account_id, spent_mon, spent_tue, spent_wed, spent_thu,
        spent_fri, spent_sat, spent_sun);

CREATE TRIGGER cabinet_hours_zone_week_insert AFTER INSERT ON cabinet_hours
BEGIN
    INSERT INTO cabinet_zone_weeks (shift, account_id, week, hours, spent_mon, spent_tue,
        spent_wed, spent_thu, spent_fri, spent_sat, spent_sun)
    SELECT shift, new.account_id, date(day, '-6 days', 'weekday 1'), 1,
        CASE strftime('%u', day) WHEN '1' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '2' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '3' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '4' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '5' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '6' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '7' THEN new.spent_micros ELSE 0 END
    FROM (SELECT shift, date(new.hour, -shift || ' minutes') AS day FROM zone_shifts)
    WHERE day IS NOT NULL
    ON CONFLICT (shift, account_id, week) DO UPDATE SET hours = hours + 1,
        spent_mon = spent_mon + excluded.spent_mon, spent_tue = spent_tue + excluded.spent_tue,
        spent_wed = spent_wed + excluded.spent_wed, spent_thu = spent_thu + excluded.spent_thu,
        spent_fri = spent_fri + excluded.spent_fri, spent_sat = spent_sat + excluded.spent_sat,
        spent_sun = spent_sun + excluded.spent_sun;
END;

-- An hour out of its week in every shift (its spend off its day; the week removed when it
-- holds no hour), as a removal and a move do.
CREATE TRIGGER cabinet_hours_zone_week_delete AFTER DELETE ON cabinet_hours
BEGIN
    UPDATE cabinet_zone_weeks SET hours = hours - 1,
        spent_mon = spent_mon - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '1' THEN old.spent_micros ELSE 0 END,
        spent_tue = spent_tue - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '2' THEN old.spent_micros ELSE 0 END,
        spent_wed = spent_wed - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '3' THEN old.spent_micros ELSE 0 END,
        spent_thu = spent_thu - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '4' THEN old.spent_micros ELSE 0 END,
        spent_fri = spent_fri - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '5' THEN old.spent_micros ELSE 0 END,
        spent_sat = spent_sat - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '6' THEN old.spent_micros ELSE 0 END,
        spent_sun = spent_sun - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '7' THEN old.spent_micros ELSE 0 END
    WHERE (shift, account_id, week) IN (SELECT shift, old.account_id,
        date(old.hour, -shift || ' minutes', '-6 days', 'weekday 1') FROM zone_shifts);
    DELETE FROM cabinet_zone_weeks
    WHERE (shift, account_id, week) IN (SELECT shift, old.account_id,
        date(old.hour, -shift || ' minutes', '-6 days', 'weekday 1') FROM zone_shifts)
        AND hours <= 0;
END;

-- An hour's spend rewritten in place (the sync's upsert): the difference on its day, one
-- statement.
CREATE TRIGGER cabinet_hours_zone_week_update AFTER UPDATE OF spent_micros ON cabinet_hours
WHEN old.account_id = new.account_id AND old.hour = new.hour
    AND old.spent_micros <> new.spent_micros
BEGIN
    UPDATE cabinet_zone_weeks SET
        spent_mon = spent_mon + CASE strftime('%u', date(new.hour, -shift || ' minutes'))
            WHEN '1' THEN new.spent_micros - old.spent_micros ELSE 0 END,
        spent_tue = spent_tue + CASE strftime('%u', date(new.hour, -shift || ' minutes'))
            WHEN '2' THEN new.spent_micros - old.spent_micros ELSE 0 END,
        spent_wed = spent_wed + CASE strftime('%u', date(new.hour, -shift || ' minutes'))
            WHEN '3' THEN new.spent_micros - old.spent_micros ELSE 0 END,
        spent_thu = spent_thu + CASE strftime('%u', date(new.hour, -shift || ' minutes'))
            WHEN '4' THEN new.spent_micros - old.spent_micros ELSE 0 END,
        spent_fri = spent_fri + CASE strftime('%u', date(new.hour, -shift || ' minutes'))
            WHEN '5' THEN new.spent_micros - old.spent_micros ELSE 0 END,
        spent_sat = spent_sat + CASE strftime('%u', date(new.hour, -shift || ' minutes'))
            WHEN '6' THEN new.spent_micros - old.spent_micros ELSE 0 END,
        spent_sun = spent_sun + CASE strftime('%u', date(new.hour, -shift || ' minutes'))
            WHEN '7' THEN new.spent_micros - old.spent_micros ELSE 0 END
    WHERE (shift, account_id, week) IN (SELECT shift, new.account_id,
        date(new.hour, -shift || ' minutes', '-6 days', 'weekday 1') FROM zone_shifts);
END;

-- An hour moved to another cabinet or time: out of its old weeks, into its new ones.
CREATE TRIGGER cabinet_hours_zone_week_move AFTER UPDATE OF account_id, hour ON cabinet_hours
WHEN old.account_id <> new.account_id OR old.hour <> new.hour
BEGIN
    UPDATE cabinet_zone_weeks SET hours = hours - 1,
        spent_mon = spent_mon - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '1' THEN old.spent_micros ELSE 0 END,
        spent_tue = spent_tue - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '2' THEN old.spent_micros ELSE 0 END,
        spent_wed = spent_wed - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '3' THEN old.spent_micros ELSE 0 END,
        spent_thu = spent_thu - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '4' THEN old.spent_micros ELSE 0 END,
        spent_fri = spent_fri - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '5' THEN old.spent_micros ELSE 0 END,
        spent_sat = spent_sat - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '6' THEN old.spent_micros ELSE 0 END,
        spent_sun = spent_sun - CASE strftime('%u', date(old.hour, -shift || ' minutes'))
            WHEN '7' THEN old.spent_micros ELSE 0 END
    WHERE (shift, account_id, week) IN (SELECT shift, old.account_id,
        date(old.hour, -shift || ' minutes', '-6 days', 'weekday 1') FROM zone_shifts);
    DELETE FROM cabinet_zone_weeks
    WHERE (shift, account_id, week) IN (SELECT shift, old.account_id,
        date(old.hour, -shift || ' minutes', '-6 days', 'weekday 1') FROM zone_shifts)
        AND hours <= 0;
    INSERT INTO cabinet_zone_weeks (shift, account_id, week, hours, spent_mon, spent_tue,
        spent_wed, spent_thu, spent_fri, spent_sat, spent_sun)
    SELECT shift, new.account_id, date(day, '-6 days', 'weekday 1'), 1,
        CASE strftime('%u', day) WHEN '1' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '2' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '3' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '4' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '5' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '6' THEN new.spent_micros ELSE 0 END,
        CASE strftime('%u', day) WHEN '7' THEN new.spent_micros ELSE 0 END
    FROM (SELECT shift, date(new.hour, -shift || ' minutes') AS day FROM zone_shifts)
    WHERE day IS NOT NULL
    ON CONFLICT (shift, account_id, week) DO UPDATE SET hours = hours + 1,
        spent_mon = spent_mon + excluded.spent_mon, spent_tue = spent_tue + excluded.spent_tue,
        spent_wed = spent_wed + excluded.spent_wed, spent_thu = spent_thu + excluded.spent_thu,
        spent_fri = spent_fri + excluded.spent_fri, spent_sat = spent_sat + excluded.spent_sat,
        spent_sun = spent_sun + excluded.spent_sun;
END;
