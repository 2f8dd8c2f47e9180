-- Which cabinet types exist is the code's to say, not the table's: `cabinet_type` loses its
-- CHECK (euro, ton, stars), so a platform with cabinet types of its own needs no rebuild of
-- this table. The type's parse in the code refuses a value this adcab does not know when a
-- row is read.
--
-- The table is rebuilt once; its rows keep their ids and every column its value. Other
-- tables refer to cabinets(id) (shares, key scopes, groups, campaigns, tasks, media): their
-- foreign key checks wait until this migration's transaction ends, when every row is back.
PRAGMA defer_foreign_keys = ON;

CREATE TABLE cabinets_before_18 AS SELECT * FROM cabinets;
DROP TABLE cabinets;
CREATE TABLE cabinets (
    id                           INTEGER PRIMARY KEY,
    owner_id                     INTEGER NOT NULL REFERENCES users(id),
    name                         TEXT NOT NULL,
    cabinet_type                 TEXT NOT NULL,
    is_active                    INTEGER NOT NULL DEFAULT 1,
    balance_micros               INTEGER NOT NULL DEFAULT 0,
    balance_updated_at           TEXT NOT NULL,
    min_budget                   INTEGER NOT NULL,
    ad_button                    INTEGER NOT NULL DEFAULT 0,
    crypto_filters               INTEGER NOT NULL DEFAULT 0,
    auth_expired                 INTEGER NOT NULL DEFAULT 0,
    locked                       INTEGER NOT NULL DEFAULT 0,
    created_at                   TEXT NOT NULL,
    platform_id                  TEXT,
    credential                   TEXT,
    automation_daily_cap_micros  INTEGER,
    telegram_chat                INTEGER
);
INSERT INTO cabinets (id, owner_id, name, cabinet_type, is_active, balance_micros,
        balance_updated_at, min_budget, ad_button, crypto_filters, auth_expired, locked,
        created_at, platform_id, credential, automation_daily_cap_micros, telegram_chat)
    SELECT id, owner_id, name, cabinet_type, is_active, balance_micros, balance_updated_at,
        min_budget, ad_button, crypto_filters, auth_expired, locked, created_at, platform_id,
        credential, automation_daily_cap_micros, telegram_chat
    FROM cabinets_before_18;
DROP TABLE cabinets_before_18;
CREATE INDEX cabinets_owner ON cabinets(owner_id);
CREATE UNIQUE INDEX cabinets_platform_id ON cabinets(platform_id) WHERE platform_id IS NOT NULL;
