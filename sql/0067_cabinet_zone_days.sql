-- Each cabinet's spend per local day of the time zones people chose, so that the home page's
-- chart of spend per day in a zone whose midnights are not UTC's reads a row per cabinet and
-- day (`store::kept::spent_of`) instead of its weekly rows and, at each of the chart's local
-- midnights, the cabinet's hours between it and the nearest UTC midnight: over 30 days in
-- Moscow 31 rows of each cabinet instead of five or six and 93 hours.
--
-- A zone's days are kept by their shift: the minutes after a UTC midnight at which they start
-- (Moscow's, UTC+3, at 21:00 the day before: 1260; New York's at 05:00 or 04:00: 300 and 240,
-- one for each half of the year). `zone_shifts` lists the shifts kept; the service adds those of
-- each zone a person picks, and of every person's zone as it starts
-- (`store::zone_days::keep`), filling each new one's days from the hours then, and removes
-- none. A kept day is keyed by the UTC date it starts on (`day`; east of UTC the local date
-- before), and holds the cabinet's hours starting in it (`cabinet_hours`, whose hour starts in
-- the day `date(hour, -shift minutes)`, as a span holds the hours starting in it): how many, and
-- their spend. A rolled-up day's hour, at its noon, counts in the local day holding its noon,
-- as it does everywhere else.
--
-- Kept by triggers on `cabinet_hours`, as its daily rows are, for every shift at once: whatever
-- writes, changes, moves or removes an hour, each of its local days follows, and a day left
-- with no hour is removed, so the table equals the hours summed by shift, cabinet and local day
-- exactly (`adcab check --deep` compares them). The index by day holds the spend, so the chart
-- of many cabinets reads its range of days once across them.
CREATE TABLE zone_shifts (
    shift INTEGER PRIMARY KEY CHECK (shift > 0 AND shift < 1440)
);

CREATE TABLE cabinet_zone_days (
    shift         INTEGER NOT NULL,
    account_id    INTEGER NOT NULL,
    day           TEXT NOT NULL,
    hours         INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    PRIMARY KEY (shift, account_id, day)
) WITHOUT ROWID;

CREATE INDEX cabinet_zone_days_by_day
    ON cabinet_zone_days (shift, day, account_id, spent_micros);

CREATE TRIGGER cabinet_hours_zone_day_insert AFTER INSERT ON cabinet_hours
BEGIN
    INSERT INTO cabinet_zone_days (shift, account_id, day, hours, spent_micros)
    SELECT shift, new.account_id, date(new.hour, -shift || ' minutes'), 1, new.spent_micros
    FROM zone_shifts WHERE true
    ON CONFLICT (shift, account_id, day) DO UPDATE SET hours = hours + 1,
        spent_micros = spent_micros + excluded.spent_micros;
END;

CREATE TRIGGER cabinet_hours_zone_day_delete AFTER DELETE ON cabinet_hours
BEGIN
    UPDATE cabinet_zone_days SET hours = hours - 1,
        spent_micros = spent_micros - old.spent_micros
    WHERE (shift, account_id, day) IN (SELECT shift, old.account_id,
        date(old.hour, -shift || ' minutes') FROM zone_shifts);
    DELETE FROM cabinet_zone_days
    WHERE (shift, account_id, day) IN (SELECT shift, old.account_id,
        date(old.hour, -shift || ' minutes') FROM zone_shifts) AND hours <= 0;
END;

-- An hour's spend rewritten in place (the sync's upsert): the difference, one statement.
CREATE TRIGGER cabinet_hours_zone_day_update AFTER UPDATE OF spent_micros ON cabinet_hours
WHEN old.account_id = new.account_id AND old.hour = new.hour
    AND old.spent_micros <> new.spent_micros
BEGIN
    UPDATE cabinet_zone_days SET spent_micros = spent_micros - old.spent_micros
        + new.spent_micros
    WHERE (shift, account_id, day) IN (SELECT shift, new.account_id,
        date(new.hour, -shift || ' minutes') FROM zone_shifts);
END;

-- An hour moved to another cabinet or time: out of its old days, into its new ones.
CREATE TRIGGER cabinet_hours_zone_day_move AFTER UPDATE OF account_id, hour ON cabinet_hours
WHEN old.account_id <> new.account_id OR old.hour <> new.hour
BEGIN
    UPDATE cabinet_zone_days SET hours = hours - 1,
        spent_micros = spent_micros - old.spent_micros
    WHERE (shift, account_id, day) IN (SELECT shift, old.account_id,
        date(old.hour, -shift || ' minutes') FROM zone_shifts);
    DELETE FROM cabinet_zone_days
    WHERE (shift, account_id, day) IN (SELECT shift, old.account_id,
        date(old.hour, -shift || ' minutes') FROM zone_shifts) AND hours <= 0;
    INSERT INTO cabinet_zone_days (shift, account_id, day, hours, spent_micros)
    SELECT shift, new.account_id, date(new.hour, -shift || ' minutes'), 1, new.spent_micros
    FROM zone_shifts WHERE true
    ON CONFLICT (shift, account_id, day) DO UPDATE SET hours = hours + 1,
        spent_micros = spent_micros + excluded.spent_micros;
END;
