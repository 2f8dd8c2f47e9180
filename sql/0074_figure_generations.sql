-- The campaigns list's sorts by a figure (views, clicks, spend, budget left) no longer read an
-- index each: the hourly sync moves every running campaign's entry in all four, most of what the
-- hour costs beyond its plain baseline. A cabinet's order by each figure is kept in memory
-- instead (`store::campaigns::list::figures`), built from its narrow rows when a sorted page asks
-- for it and used while the cabinet's generation here stays what it was built at. The one writer
-- notes, as SQLite's pre-update hook reports each change to `campaign_counters` (by any
-- statement or trigger), the cabinets whose rows changed, and adds one to each one's generation
-- before the transaction commits (`db::figures`); a reader reads the generation in the same
-- snapshot as the rows. A cabinet's row is never removed, so a generation never comes back.
DROP INDEX campaign_counters_by_views;
DROP INDEX campaign_counters_by_clicks;
DROP INDEX campaign_counters_by_spent;
DROP INDEX campaign_counters_by_budget;

CREATE TABLE figure_generations (
    account_id INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL
);
