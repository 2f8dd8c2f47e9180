-- The hourly sync writes each row of its hour with the row's run (`stats::record_gain`): each
-- campaign's run before the hour is read once for the cabinet (`runs::before`: the rows of its
-- latest hour in one range, the other campaigns probed), and the row's own figures added. Before,
-- it wrote its rows with a run of -1 and worked the hour's runs out in one more statement, which
-- probed every campaign's earlier rows and rewrote every row it had just written.
--
-- So a row's own run is worked out by its trigger only when it is written without one: a run of
-- 0, the column's default, as every other writer leaves it (a correction, a fixture). A row
-- written with a run of 0 that is its true run (no figures before it or in it) is worked out
-- again to the same value. A run of -1 is no longer written. `adcab check --deep` compares
-- every run with the sums it stands for.
DROP TRIGGER hourly_stats_run_own;

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
                        AND day < substr(new.hour, 1, 10)
                    ORDER BY day DESC LIMIT 1)
               ORDER BY k DESC LIMIT 1))
    WHERE account_id = new.account_id AND hour = new.hour AND ad_id = new.ad_id;
END;
