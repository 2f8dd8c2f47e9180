-- A key's principal (its holder, the holder's plan, the key's scope and the cabinets it reaches
-- with their access) is no longer read again on every request: it is kept in memory
-- (`auth::Principals`) and used while the access generation here, read in the same snapshot as
-- the request's other reads, is the one it was read at. Every write to a table a principal is
-- read from adds one to the generation in the same transaction, by the triggers below, whoever
-- writes (the service, a command-line process, a fix made by hand in sqlite3): a revoked key, a
-- lost share or an expired subscription refuses the next request, as when every request read
-- them. Of `cabinets`, only the columns a principal reads move it (`store::cabinets::COLUMNS`;
-- a test updates each of them), not those the hour writes (`copies_rev`, `synced_through`).
-- Of `users`, those of `store::users::User` but `attention_seen_at`, which the home page writes
-- on every look and no face that authenticates a key reads: moving the generation with it
-- dropped every kept principal on each look, and made a look whose time had not changed (the
-- benchmarks' stopped clock) write a page where it had written none.
-- The generation only grows, so a principal read at one is never taken for a later one.
CREATE TABLE access_generation (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    generation  INTEGER NOT NULL
);
INSERT INTO access_generation (id, generation) VALUES (1, 1);

CREATE TRIGGER users_access_insert AFTER INSERT ON users
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER users_access_update AFTER UPDATE OF id, email, plan, subscription, language,
    time_zone ON users
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER users_access_delete AFTER DELETE ON users
BEGIN UPDATE access_generation SET generation = generation + 1; END;

CREATE TRIGGER team_members_access_insert AFTER INSERT ON team_members
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER team_members_access_update AFTER UPDATE ON team_members
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER team_members_access_delete AFTER DELETE ON team_members
BEGIN UPDATE access_generation SET generation = generation + 1; END;

CREATE TRIGGER cabinet_shares_access_insert AFTER INSERT ON cabinet_shares
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER cabinet_shares_access_update AFTER UPDATE ON cabinet_shares
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER cabinet_shares_access_delete AFTER DELETE ON cabinet_shares
BEGIN UPDATE access_generation SET generation = generation + 1; END;

CREATE TRIGGER api_keys_access_insert AFTER INSERT ON api_keys
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER api_keys_access_update AFTER UPDATE ON api_keys
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER api_keys_access_delete AFTER DELETE ON api_keys
BEGIN UPDATE access_generation SET generation = generation + 1; END;

CREATE TRIGGER api_key_cabinets_access_insert AFTER INSERT ON api_key_cabinets
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER api_key_cabinets_access_update AFTER UPDATE ON api_key_cabinets
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER api_key_cabinets_access_delete AFTER DELETE ON api_key_cabinets
BEGIN UPDATE access_generation SET generation = generation + 1; END;

CREATE TRIGGER cabinets_access_insert AFTER INSERT ON cabinets
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER cabinets_access_update AFTER UPDATE OF id, owner_id, name, cabinet_type,
    is_active, balance_micros, balance_updated_at, min_budget, ad_button, crypto_filters,
    auth_expired, locked ON cabinets
BEGIN UPDATE access_generation SET generation = generation + 1; END;
CREATE TRIGGER cabinets_access_delete AFTER DELETE ON cabinets
BEGIN UPDATE access_generation SET generation = generation + 1; END;
