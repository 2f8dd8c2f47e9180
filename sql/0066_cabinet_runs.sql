-- Each cabinet's running sums through each UTC day it has a daily row for (`cabinet_runs`): its
-- `cabinet_days` rows summed up to and including that day. The sums of any span of whole UTC
-- days are then two rows per cabinet, the run at its last day less the run at the day before
-- its first, however long the span: the home page's 7 and 30 days and the period before them
-- read three rows per cabinet (`store::kept::days_of`) instead of a row per week and one per
-- day at the edges of whole weeks. A cabinet without a daily row on a day has the run of its
-- latest day before it.
--
-- Kept by triggers on `cabinet_days`: a day's row written, changed, removed or moved moves its
-- own run and the runs of every later day of its cabinet. The hourly sync changes the row of
-- the day it syncs, its cabinet's latest, so each of its hours moves one run; a correction of
-- an earlier day (a reconciliation, a late re-sync) moves the runs of every day after it, one
-- row per day. `adcab check --deep` compares every run with the daily rows summed through its
-- day.
CREATE TABLE cabinet_runs (
    account_id    INTEGER NOT NULL,
    day           TEXT NOT NULL,
    views         INTEGER NOT NULL,
    opens         INTEGER NOT NULL,
    clicks        INTEGER NOT NULL,
    actions       INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    PRIMARY KEY (account_id, day)
) WITHOUT ROWID;

INSERT INTO cabinet_runs (account_id, day, views, opens, clicks, actions, spent_micros)
SELECT account_id, day, SUM(views) OVER through, SUM(opens) OVER through,
    SUM(clicks) OVER through, SUM(actions) OVER through, SUM(spent_micros) OVER through
FROM cabinet_days
WINDOW through AS (PARTITION BY account_id ORDER BY day ROWS UNBOUNDED PRECEDING);

-- Every cabinet's runs of a day in one range, as schema 63 orders the daily rows.
CREATE INDEX cabinet_runs_by_day
    ON cabinet_runs (day, account_id, views, opens, clicks, actions, spent_micros);

-- A day's row written: the later days' runs gain it; its own run is the run before it, plus it.
CREATE TRIGGER cabinet_days_run_insert AFTER INSERT ON cabinet_days
BEGIN
    UPDATE cabinet_runs SET views = views + new.views, opens = opens + new.opens,
        clicks = clicks + new.clicks, actions = actions + new.actions,
        spent_micros = spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND day > new.day;
    INSERT INTO cabinet_runs (account_id, day, views, opens, clicks, actions, spent_micros)
    SELECT new.account_id, new.day, new.views + views, new.opens + opens,
        new.clicks + clicks, new.actions + actions, new.spent_micros + spent_micros
    FROM (SELECT 1 AS k, * FROM (SELECT views, opens, clicks, actions, spent_micros
                FROM cabinet_runs
                WHERE account_id = new.account_id AND day < new.day
                ORDER BY day DESC LIMIT 1)
          UNION ALL
          SELECT 0, 0, 0, 0, 0, 0
          ORDER BY k DESC LIMIT 1);
END;

-- A day's row removed: its run goes, and the later days' runs lose it.
CREATE TRIGGER cabinet_days_run_delete AFTER DELETE ON cabinet_days
BEGIN
    DELETE FROM cabinet_runs WHERE account_id = old.account_id AND day = old.day;
    UPDATE cabinet_runs SET views = views - old.views, opens = opens - old.opens,
        clicks = clicks - old.clicks, actions = actions - old.actions,
        spent_micros = spent_micros - old.spent_micros
    WHERE account_id = old.account_id AND day > old.day;
END;

-- A day's figures changed in place (each hour the sync writes): the difference, to its run and
-- every later one.
CREATE TRIGGER cabinet_days_run_update
AFTER UPDATE OF views, opens, clicks, actions, spent_micros ON cabinet_days
WHEN old.account_id = new.account_id AND old.day = new.day
BEGIN
    UPDATE cabinet_runs SET views = views - old.views + new.views,
        opens = opens - old.opens + new.opens, clicks = clicks - old.clicks + new.clicks,
        actions = actions - old.actions + new.actions,
        spent_micros = spent_micros - old.spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND day >= new.day;
END;

-- A day's row moved to another cabinet or day: out of the old runs, into the new ones.
CREATE TRIGGER cabinet_days_run_move AFTER UPDATE OF account_id, day ON cabinet_days
WHEN old.account_id <> new.account_id OR old.day <> new.day
BEGIN
    DELETE FROM cabinet_runs WHERE account_id = old.account_id AND day = old.day;
    UPDATE cabinet_runs SET views = views - old.views, opens = opens - old.opens,
        clicks = clicks - old.clicks, actions = actions - old.actions,
        spent_micros = spent_micros - old.spent_micros
    WHERE account_id = old.account_id AND day > old.day;
    UPDATE cabinet_runs SET views = views + new.views, opens = opens + new.opens,
        clicks = clicks + new.clicks, actions = actions + new.actions,
        spent_micros = spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND day > new.day;
    INSERT INTO cabinet_runs (account_id, day, views, opens, clicks, actions, spent_micros)
    SELECT new.account_id, new.day, new.views + views, new.opens + opens,
        new.clicks + clicks, new.actions + actions, new.spent_micros + spent_micros
    FROM (SELECT 1 AS k, * FROM (SELECT views, opens, clicks, actions, spent_micros
                FROM cabinet_runs
                WHERE account_id = new.account_id AND day < new.day
                ORDER BY day DESC LIMIT 1)
          UNION ALL
          SELECT 0, 0, 0, 0, 0, 0
          ORDER BY k DESC LIMIT 1);
END;
