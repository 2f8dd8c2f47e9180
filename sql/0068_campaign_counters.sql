-- Each campaign's figures the hourly sync rewrites (its counters, the budget left, the spend of
-- the last 24 hours, and the marks its next hour's gain is counted from) move out of the wide
-- `campaigns` row into a narrow row of their own, so that the hour rewrites some 70 bytes of
-- each campaign instead of its whole copy (title, text, targeting, links and some 45 columns)
-- and the sort indexes over its figures alone; a campaign's settings, status and switch stay
-- in `campaigns`, written when they change.
--
-- Every campaign has exactly one row here, made and removed with it by triggers, so that no
-- write path can leave a campaign without its figures. The row holds a copy of the campaign's
-- status (`listed_status`, kept by a trigger as the status moves), so that a list sorted by a
-- figure reads its keys, past the deleted campaigns, from the figure's index alone, as the
-- other sorts do from theirs (`0053_list_indexes_cover_status.sql`); and the campaign's row
-- holds whether it has no budget left (`no_budget`, written by each writer of the budget as it
-- reaches or leaves zero: a trigger on the budget would make every statement naming it keep a
-- statement journal, most of the hourly sync's), so that the home page's "out of budget" keeps its index on that row. The
-- campaigns list's totals read these rows, narrow enough that they no longer need an index of
-- their own. `adcab check --deep` compares both copies with what they copy.
CREATE TABLE campaign_counters (
    account_id         INTEGER NOT NULL,
    ad_id              INTEGER NOT NULL,
    listed_status      TEXT NOT NULL,
    budget_micros      INTEGER NOT NULL DEFAULT 0,
    spent_micros       INTEGER NOT NULL DEFAULT 0,
    views              INTEGER NOT NULL DEFAULT 0,
    opens              INTEGER NOT NULL DEFAULT 0,
    clicks             INTEGER NOT NULL DEFAULT 0,
    actions            INTEGER NOT NULL DEFAULT 0,
    day_spend_micros   INTEGER NOT NULL DEFAULT 0,
    mark_views         INTEGER NOT NULL DEFAULT 0,
    mark_opens         INTEGER NOT NULL DEFAULT 0,
    mark_clicks        INTEGER NOT NULL DEFAULT 0,
    mark_actions       INTEGER NOT NULL DEFAULT 0,
    mark_spent_micros  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, ad_id)
) WITHOUT ROWID;

INSERT INTO campaign_counters (account_id, ad_id, listed_status, budget_micros, spent_micros,
    views, opens, clicks, actions, day_spend_micros, mark_views, mark_opens, mark_clicks,
    mark_actions, mark_spent_micros)
SELECT account_id, ad_id, status, budget_micros, spent_micros, views, opens, clicks, actions,
    day_spend_micros, mark_views, mark_opens, mark_clicks, mark_actions, mark_spent_micros
FROM campaigns;

-- Whether the copy has no budget left (1 as a campaign is made: its row of figures starts at
-- zero).
ALTER TABLE campaigns ADD COLUMN no_budget INTEGER NOT NULL DEFAULT 1;
UPDATE campaigns SET no_budget = (budget_micros = 0);

DROP INDEX campaigns_by_views;
DROP INDEX campaigns_by_clicks;
DROP INDEX campaigns_by_spent;
DROP INDEX campaigns_by_budget;
DROP INDEX campaigns_totals;
DROP INDEX campaigns_short_of_budget;
DROP INDEX campaigns_out_of_budget;
ALTER TABLE campaigns DROP COLUMN budget_micros;
ALTER TABLE campaigns DROP COLUMN spent_micros;
ALTER TABLE campaigns DROP COLUMN views;
ALTER TABLE campaigns DROP COLUMN opens;
ALTER TABLE campaigns DROP COLUMN clicks;
ALTER TABLE campaigns DROP COLUMN actions;
ALTER TABLE campaigns DROP COLUMN day_spend_micros;
ALTER TABLE campaigns DROP COLUMN mark_views;
ALTER TABLE campaigns DROP COLUMN mark_opens;
ALTER TABLE campaigns DROP COLUMN mark_clicks;
ALTER TABLE campaigns DROP COLUMN mark_actions;
ALTER TABLE campaigns DROP COLUMN mark_spent_micros;

CREATE TRIGGER campaign_counters_insert AFTER INSERT ON campaigns BEGIN
    INSERT INTO campaign_counters (account_id, ad_id, listed_status)
    VALUES (new.account_id, new.ad_id, new.status);
END;

CREATE TRIGGER campaign_counters_delete AFTER DELETE ON campaigns BEGIN
    DELETE FROM campaign_counters WHERE account_id = old.account_id AND ad_id = old.ad_id;
END;


CREATE TRIGGER campaign_counters_status AFTER UPDATE OF status ON campaigns
WHEN old.status IS NOT new.status BEGIN
    UPDATE campaign_counters SET listed_status = new.status
    WHERE account_id = new.account_id AND ad_id = new.ad_id;
END;

-- The list's sorts by a figure, each led by the cabinet and holding the status, as
-- `0053_list_indexes_cover_status.sql` made them on `campaigns`.
CREATE INDEX campaign_counters_by_views ON campaign_counters(account_id, views, ad_id,
    listed_status);
CREATE INDEX campaign_counters_by_clicks ON campaign_counters(account_id, clicks, ad_id,
    listed_status);
CREATE INDEX campaign_counters_by_spent ON campaign_counters(account_id, spent_micros, ad_id,
    listed_status);
CREATE INDEX campaign_counters_by_budget ON campaign_counters(account_id, budget_micros, ad_id,
    listed_status);

-- The home page's "about to stop" (budget left, less than a day's spend of it), as `0031` kept
-- it on `campaigns`; the page keeps the running ones of the few campaigns it holds.
CREATE INDEX campaign_counters_short_of_budget ON campaign_counters(account_id, ad_id)
    WHERE budget_micros > 0 AND budget_micros < day_spend_micros;

-- The home page's "out of budget" (switched on, stopped with no budget left), as `0045` made it.
CREATE INDEX campaigns_out_of_budget ON campaigns(account_id, status_changed_at, ad_id)
    WHERE status = 'Stopped' AND active = 1 AND no_budget = 1;
