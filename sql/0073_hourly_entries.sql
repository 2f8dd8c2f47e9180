-- The hourly rows' running sums (schema 48) are no longer kept by triggers on `hourly_stats`
-- but by the view `hourly_entries`, which every writer that does not give a row its run writes
-- through (a re-sync's second line of an hour, reconciliation's corrections, a late hour, a
-- test's fixture): its INSTEAD OF triggers write the row and work out its run and the later
-- rows', as the triggers of schemas 59 and 62 did. The hourly sync writes its rows with their
-- runs (schemas 58 and 62: `runs::for_hour`) into `hourly_stats` itself, and with the triggers
-- there every such row still ran their programs to find their WHEN false (SQLite evaluates a
-- row trigger's WHEN inside its program, so each row paid a program's frame): about a quarter of
-- what the hour's rows cost. So a row goes into `hourly_stats` directly only with its run; any
-- other goes through `hourly_entries`. `adcab check --deep` compares every run with the sums it
-- stands for. The daily rows' triggers stay: the one writer of daily rows is retention's roll.
DROP TRIGGER hourly_stats_run_own;
DROP TRIGGER hourly_stats_run_later;
DROP TRIGGER hourly_stats_run_update;

CREATE VIEW hourly_entries AS
SELECT account_id, ad_id, hour, views, opens, clicks, actions, spent_micros FROM hourly_stats;

-- A new row: its run is the campaign's run before it (its latest hour before it, or its latest
-- rolled-up day ending by it) with its figures added; every later row of the campaign, hourly
-- or daily, gains its figures.
CREATE TRIGGER hourly_entries_insert INSTEAD OF INSERT ON hourly_entries
BEGIN
    INSERT INTO hourly_stats (account_id, ad_id, hour, views, opens, clicks, actions,
        spent_micros)
    VALUES (new.account_id, new.ad_id, new.hour, new.views, new.opens, new.clicks,
        new.actions, new.spent_micros);
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

-- A row's figures changed: the difference, to its own run and every later row's. A row keeps
-- its key.
CREATE TRIGGER hourly_entries_update INSTEAD OF UPDATE ON hourly_entries
BEGIN
    SELECT RAISE(ABORT, 'an hourly row keeps its campaign and hour')
    WHERE new.account_id IS NOT old.account_id OR new.ad_id IS NOT old.ad_id
        OR new.hour IS NOT old.hour;
    UPDATE hourly_stats SET views = new.views, opens = new.opens, clicks = new.clicks,
        actions = new.actions, spent_micros = new.spent_micros
    WHERE account_id = old.account_id AND ad_id = old.ad_id AND hour = old.hour;
    UPDATE hourly_stats SET run_views = run_views + new.views - old.views,
        run_opens = run_opens + new.opens - old.opens,
        run_clicks = run_clicks + new.clicks - old.clicks,
        run_actions = run_actions + new.actions - old.actions,
        run_spent_micros = run_spent_micros + new.spent_micros - old.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id AND hour >= new.hour;
    UPDATE daily_stats SET run_views = run_views + new.views - old.views,
        run_opens = run_opens + new.opens - old.opens,
        run_clicks = run_clicks + new.clicks - old.clicks,
        run_actions = run_actions + new.actions - old.actions,
        run_spent_micros = run_spent_micros + new.spent_micros - old.spent_micros
    WHERE account_id = new.account_id AND ad_id = new.ad_id
        AND day || 'T24:00:00Z' > new.hour;
END;
