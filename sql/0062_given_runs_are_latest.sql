-- A row the hourly sync writes with its run (schema 58) no longer looks for later rows of its
-- campaign. Before, every such row's insert probed its campaign's hourly rows after it and its
-- latest daily row, two seeks per campaign and hour that found nothing: the sync writes the
-- hour just ended. Now the sync looks once per cabinet and hour (`runs::for_hour`): when any row
-- of the cabinet comes after the hour (an hourly row, or a rolled-up day on or after its day, by
-- `cabinet_rolled_days`, an upper bound), it writes its rows without runs, as every other writer
-- does, and the insert triggers (59's own-run one and this one) work out their runs and move
-- the later rows'. So a row written with a run (`run_views` other than 0) has no later row of
-- its campaign when it is written, and only rows written without one are looked after. A row
-- whose given run is 0 (no views yet) is looked after all the same.
-- `adcab check --deep` compares every run with the sums it stands for.
DROP TRIGGER hourly_stats_run_later;

CREATE TRIGGER hourly_stats_run_later AFTER INSERT ON hourly_stats
WHEN new.run_views = 0 AND (
    EXISTS (SELECT 1 FROM hourly_stats
        WHERE account_id = new.account_id AND ad_id = new.ad_id AND hour > new.hour)
    OR (SELECT day FROM daily_stats
        WHERE account_id = new.account_id AND ad_id = new.ad_id
        ORDER BY day DESC LIMIT 1) || 'T24:00:00Z' > new.hour)
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
