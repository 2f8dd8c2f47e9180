-- Each stored row of a campaign's stats also holds the campaign's running sums through it
-- (`run_*`): its figures added to those of every row of the same campaign before it, hourly
-- and daily alike, in time order (an hour by its start; a day after the hours that start in
-- it). A span's sums are then the difference of two rows' runs, the last row before its end
-- and the last row before its start, whatever the span's length (`store::runs`): reading 30
-- days costs what reading one does.
--
-- Kept by triggers, so no writer can forget them (a re-sync's upsert of an hour,
-- reconciliation's corrections, a test's fixture): a row written or changed moves its own run
-- and adds the difference to every later row of its campaign. The hourly sync, which writes
-- every campaign's latest hour, marks its rows and works their runs out in one statement per
-- cabinet and hour (below). Removing a row moves nothing: the one remover is retention, which
-- rolls a campaign's hours into their day, and a day written while hours of it are still stored
-- is that roll (it writes the day's runs itself: the run of its last hour, or the day's run as
-- it was). So rows are rewritten with an upsert or an update, never `INSERT OR REPLACE` (its
-- removal of the old row would move nothing). `adcab check --deep` compares every run with the
-- sums it stands for.
ALTER TABLE hourly_stats ADD COLUMN run_views INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hourly_stats ADD COLUMN run_opens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hourly_stats ADD COLUMN run_clicks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hourly_stats ADD COLUMN run_actions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hourly_stats ADD COLUMN run_spent_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE daily_stats ADD COLUMN run_views INTEGER NOT NULL DEFAULT 0;
ALTER TABLE daily_stats ADD COLUMN run_opens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE daily_stats ADD COLUMN run_clicks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE daily_stats ADD COLUMN run_actions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE daily_stats ADD COLUMN run_spent_micros INTEGER NOT NULL DEFAULT 0;

-- The runs of the rows already stored, in one pass of each campaign's rows in time order.
CREATE TEMP TABLE stat_runs_made AS
SELECT account_id, ad_id, k,
    SUM(views) OVER w AS views, SUM(opens) OVER w AS opens, SUM(clicks) OVER w AS clicks,
    SUM(actions) OVER w AS actions, SUM(spent_micros) OVER w AS spent_micros
FROM (SELECT account_id, ad_id, hour AS k, views, opens, clicks, actions, spent_micros
      FROM hourly_stats
      UNION ALL
      SELECT account_id, ad_id, day || 'T24:00:00Z', views, opens, clicks, actions,
        spent_micros
      FROM daily_stats)
WINDOW w AS (PARTITION BY account_id, ad_id ORDER BY k ROWS UNBOUNDED PRECEDING);

UPDATE hourly_stats SET run_views = r.views, run_opens = r.opens, run_clicks = r.clicks,
    run_actions = r.actions, run_spent_micros = r.spent_micros
FROM stat_runs_made r
WHERE r.account_id = hourly_stats.account_id AND r.ad_id = hourly_stats.ad_id
    AND r.k = hourly_stats.hour;

UPDATE daily_stats SET run_views = r.views, run_opens = r.opens, run_clicks = r.clicks,
    run_actions = r.actions, run_spent_micros = r.spent_micros
FROM stat_runs_made r
WHERE r.account_id = daily_stats.account_id AND r.ad_id = daily_stats.ad_id
    AND r.k = daily_stats.day || 'T24:00:00Z';

DROP TABLE stat_runs_made;

-- An hour written with a run of -1 is one whose writer works out the runs of its whole hour at
-- once before its transaction ends (the hourly sync: `stats::run_hour`, one statement for a
-- cabinet's hour instead of a trigger's work per row). Any other hour written: its run is the
-- last earlier row's run and its own figures.
CREATE TRIGGER hourly_stats_run_own AFTER INSERT ON hourly_stats
WHEN new.run_views >= 0
BEGIN
    UPDATE hourly_stats
    SET (run_views, run_opens, run_clicks, run_actions, run_spent_micros) =
        (SELECT new.views + views, new.opens + opens, new.clicks + clicks,
            new.actions + actions, new.spent_micros + spent_micros
         FROM (SELECT '' AS k, 0 AS views, 0 AS opens, 0 AS clicks, 0 AS actions,
                0 AS spent_micros
               UNION ALL
               SELECT * FROM (SELECT hour, run_views, run_opens, run_clicks, run_actions,
                        run_spent_micros
                    FROM hourly_stats INDEXED BY hourly_stats_ad
                    WHERE account_id = new.account_id AND ad_id = new.ad_id
                        AND hour < new.hour
                    ORDER BY hour DESC LIMIT 1)
               UNION ALL
               SELECT * FROM (SELECT day || 'T24:00:00Z', run_views, run_opens, run_clicks,
                        run_actions, run_spent_micros
                    FROM daily_stats
                    WHERE account_id = new.account_id AND ad_id = new.ad_id
                        AND day < substr(new.hour, 1, 10)
                    ORDER BY day DESC LIMIT 1)
               ORDER BY k DESC LIMIT 1))
    WHERE account_id = new.account_id AND hour = new.hour AND ad_id = new.ad_id;
END;

-- An hour written before later rows of its campaign (a late or corrected hour): they gain its
-- figures. (The sync's hour is its campaigns' latest: this finds nothing to do.)
CREATE TRIGGER hourly_stats_run_later AFTER INSERT ON hourly_stats
WHEN EXISTS (SELECT 1 FROM hourly_stats
        WHERE account_id = new.account_id AND ad_id = new.ad_id AND hour > new.hour)
    OR EXISTS (SELECT 1 FROM daily_stats
        WHERE account_id = new.account_id AND ad_id = new.ad_id
            AND day >= substr(new.hour, 1, 10))
BEGIN
    UPDATE hourly_stats SET run_views = run_views + new.views,
        run_opens = run_opens + new.opens, run_clicks = run_clicks + new.clicks,
        run_actions = run_actions + new.actions,
        run_spent_micros = run_spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id AND hour > new.hour;
    UPDATE daily_stats SET run_views = run_views + new.views,
        run_opens = run_opens + new.opens, run_clicks = run_clicks + new.clicks,
        run_actions = run_actions + new.actions,
        run_spent_micros = run_spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id
        AND day >= substr(new.hour, 1, 10);
END;

-- An hour's figures changed (a re-sync's upsert, a correction): the difference, to its own
-- run and every later row's. A row still marked for `run_hour` keeps its mark: that works its
-- run out from its figures as they are then.
CREATE TRIGGER hourly_stats_run_update
AFTER UPDATE OF views, opens, clicks, actions, spent_micros ON hourly_stats
BEGIN
    UPDATE hourly_stats SET run_views = run_views + new.views - old.views,
        run_opens = run_opens + new.opens - old.opens,
        run_clicks = run_clicks + new.clicks - old.clicks,
        run_actions = run_actions + new.actions - old.actions,
        run_spent_micros = run_spent_micros + new.spent_micros - old.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id AND hour >= new.hour
        AND (hour > new.hour OR run_views <> -1);
    UPDATE daily_stats SET run_views = run_views + new.views - old.views,
        run_opens = run_opens + new.opens - old.opens,
        run_clicks = run_clicks + new.clicks - old.clicks,
        run_actions = run_actions + new.actions - old.actions,
        run_spent_micros = run_spent_micros + new.spent_micros - old.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id
        AND day >= substr(new.hour, 1, 10);
END;

-- A day written with none of its hours stored (not retention's roll): as an hour written.
CREATE TRIGGER daily_stats_run_insert AFTER INSERT ON daily_stats
WHEN NOT EXISTS (SELECT 1 FROM hourly_stats
    WHERE account_id = new.account_id AND ad_id = new.ad_id
        AND hour >= new.day || 'T00:00:00Z' AND hour < new.day || 'T24:00:00Z')
BEGIN
    UPDATE daily_stats
    SET (run_views, run_opens, run_clicks, run_actions, run_spent_micros) =
        (SELECT new.views + views, new.opens + opens, new.clicks + clicks,
            new.actions + actions, new.spent_micros + spent_micros
         FROM (SELECT '' AS k, 0 AS views, 0 AS opens, 0 AS clicks, 0 AS actions,
                0 AS spent_micros
               UNION ALL
               SELECT * FROM (SELECT hour, run_views, run_opens, run_clicks, run_actions,
                        run_spent_micros
                    FROM hourly_stats INDEXED BY hourly_stats_ad
                    WHERE account_id = new.account_id AND ad_id = new.ad_id
                        AND hour < new.day || 'T00:00:00Z'
                    ORDER BY hour DESC LIMIT 1)
               UNION ALL
               SELECT * FROM (SELECT day || 'T24:00:00Z', run_views, run_opens, run_clicks,
                        run_actions, run_spent_micros
                    FROM daily_stats
                    WHERE account_id = new.account_id AND ad_id = new.ad_id AND day < new.day
                    ORDER BY day DESC LIMIT 1)
               ORDER BY k DESC LIMIT 1))
    WHERE account_id = new.account_id AND ad_id = new.ad_id AND day = new.day;
    UPDATE hourly_stats SET run_views = run_views + new.views,
        run_opens = run_opens + new.opens, run_clicks = run_clicks + new.clicks,
        run_actions = run_actions + new.actions,
        run_spent_micros = run_spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id
        AND hour >= new.day || 'T24:00:00Z';
    UPDATE daily_stats SET run_views = run_views + new.views,
        run_opens = run_opens + new.opens, run_clicks = run_clicks + new.clicks,
        run_actions = run_actions + new.actions,
        run_spent_micros = run_spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id AND day > new.day;
END;

-- A day's figures changed with none of its hours stored (a correction, not the roll).
CREATE TRIGGER daily_stats_run_update
AFTER UPDATE OF views, opens, clicks, actions, spent_micros ON daily_stats
WHEN NOT EXISTS (SELECT 1 FROM hourly_stats
    WHERE account_id = new.account_id AND ad_id = new.ad_id
        AND hour >= new.day || 'T00:00:00Z' AND hour < new.day || 'T24:00:00Z')
BEGIN
    UPDATE daily_stats SET run_views = run_views + new.views - old.views,
        run_opens = run_opens + new.opens - old.opens,
        run_clicks = run_clicks + new.clicks - old.clicks,
        run_actions = run_actions + new.actions - old.actions,
        run_spent_micros = run_spent_micros + new.spent_micros - old.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id AND day >= new.day;
    UPDATE hourly_stats SET run_views = run_views + new.views - old.views,
        run_opens = run_opens + new.opens - old.opens,
        run_clicks = run_clicks + new.clicks - old.clicks,
        run_actions = run_actions + new.actions - old.actions,
        run_spent_micros = run_spent_micros + new.spent_micros - old.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id
        AND hour >= new.day || 'T24:00:00Z';
END;
