-- The running-sums triggers of `hourly_stats` compare a daily row's day with an hour without
-- calling a function. SQLite gives any statement that may abort and writes several rows (a row
-- with triggers does) a statement journal: every page the statement first touches is copied
-- into memory, to undo that statement alone. Any function call compiled into the statement,
-- these triggers' `substr(new.hour, 1, 10)` among them, counts as "may abort", so every row
-- the hourly sync wrote (`stats::record_gain`, which also leaves its other constraints to
-- `OR IGNORE`) had its pages copied: about a twentieth of the database writer's time in the
-- connector's hour.
--
-- For an hour `H` written as the service writes them (`YYYY-MM-DDTHH:MM:SSZ`, HH from 00 to
-- 23) and a day `D` (`YYYY-MM-DD`), `D || 'T24:00:00Z'` sorts after `H` exactly when `D` is
-- `H`'s day or later: a later day differs within the date, `H`'s own day first at the hour,
-- where 24 sorts after every hour of a day. So `day >= substr(new.hour, 1, 10)` becomes
-- `day || 'T24:00:00Z' > new.hour`, and `day < substr(new.hour, 1, 10)` its opposite. The
-- figures are the same; `adcab check --deep` compares every run with the rows it sums. Where
-- the trigger reads one earlier daily row, `day < new.hour` (implied) keeps its search a range
-- of the key. The updates of the daily rows on or after an hour's day now read all of the
-- campaign's daily rows to find them: they run only when an hour is written before later rows
-- or changed (a late hour, a correction, a report listing a campaign twice), not when the
-- sync writes a new row of its hour.
DROP TRIGGER hourly_stats_run_own;
DROP TRIGGER hourly_stats_run_later;
DROP TRIGGER hourly_stats_run_update;

CREATE TRIGGER hourly_stats_run_own AFTER INSERT ON hourly_stats
WHEN new.run_views = 0
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
                        AND day < new.hour AND day || 'T24:00:00Z' < new.hour
                    ORDER BY day DESC LIMIT 1)
               ORDER BY k DESC LIMIT 1))
    WHERE account_id = new.account_id AND hour = new.hour AND ad_id = new.ad_id;
END;

-- An hour written before later rows of its campaign (a late or corrected hour): they gain its
-- figures. (The sync's hour is its campaigns' latest: this finds nothing to do.) The campaign's
-- latest daily row is on the hour's day or later exactly when any is.
CREATE TRIGGER hourly_stats_run_later AFTER INSERT ON hourly_stats
WHEN EXISTS (SELECT 1 FROM hourly_stats
        WHERE account_id = new.account_id AND ad_id = new.ad_id AND hour > new.hour)
    OR (SELECT day FROM daily_stats
        WHERE account_id = new.account_id AND ad_id = new.ad_id
        ORDER BY day DESC LIMIT 1) || 'T24:00:00Z' > new.hour
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
        AND day || 'T24:00:00Z' > new.hour;
END;

-- An hour's figures changed (a re-sync's second line, a correction): the difference, to its
-- own run and every later row's.
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
        AND day || 'T24:00:00Z' > new.hour;
END;
