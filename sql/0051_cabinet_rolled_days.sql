-- The last day each cabinet has a rolled-up stats row for (`daily_stats`), kept by a trigger
-- as rows are written. A span's reads through the runs (`store::runs`) take a campaign's row of
-- the hour just before a bound as its mark at that bound, read with the cabinet's other rows
-- of that hour in one range instead of probing the campaign's hourly and daily rows, when the
-- hour's day comes after every rolled-up day (no daily row can then be the later mark). An
-- upper bound: a daily row removed leaves it as it was.
CREATE TABLE cabinet_rolled_days (
    account_id  INTEGER PRIMARY KEY,
    last_day    TEXT NOT NULL
);

INSERT INTO cabinet_rolled_days (account_id, last_day)
SELECT account_id, MAX(day) FROM daily_stats GROUP BY account_id;

CREATE TRIGGER daily_stats_last_day AFTER INSERT ON daily_stats
BEGIN
    INSERT INTO cabinet_rolled_days (account_id, last_day) VALUES (new.account_id, new.day)
    ON CONFLICT (account_id) DO UPDATE SET last_day = excluded.last_day
        WHERE excluded.last_day > last_day;
END;
