-- Which sources a campaign's history names is the code's to say, not the table's: `source`
-- loses its CHECK (api, panel, automation), so the operator's own corrections (a month
-- reconciled with the platform's report, source `operator`) can be recorded, and a new face
-- needs no rebuild of this table. The table is rebuilt once; its rows keep their ids.
CREATE TABLE campaign_history_before_24 AS SELECT * FROM campaign_history;
DROP TABLE campaign_history;
CREATE TABLE campaign_history (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    at          TEXT NOT NULL,
    source      TEXT NOT NULL,
    action      TEXT NOT NULL,
    details     TEXT NOT NULL DEFAULT '{}'
);
INSERT INTO campaign_history (id, account_id, ad_id, at, source, action, details)
    SELECT id, account_id, ad_id, at, source, action, details FROM campaign_history_before_24;
DROP TABLE campaign_history_before_24;
CREATE INDEX campaign_history_ad ON campaign_history(account_id, ad_id, id);
