//! Cabinet types are the code's to check, not the table's: a database of the schema before
//! migration 18, with a cabinet of each type and rows of every table that refers to cabinets,
//! is migrated when it is opened: every row and reference kept, the indexes back, and a type
//! this adcab does not know taken by the table but refused when the row is read.

use adcab::db::{Db, Open};
use adcab::domain::money::CabinetType;
use adcab::store::cabinets;
use rusqlite::Connection;

/// The migration under test: the last one before it makes the previous schema.
const VERSION: i64 = 18;

const EVERY_COLUMN: &str = "SELECT json_group_array(json_array(id, owner_id, name,
    cabinet_type, is_active, balance_micros, balance_updated_at, min_budget, ad_button,
    crypto_filters, auth_expired, locked, created_at, platform_id, credential,
    automation_daily_cap_micros, telegram_chat)) FROM (SELECT * FROM cabinets ORDER BY id)";

/// Rows of each table that refers to cabinets, in one text.
const REFERRING: &str = "SELECT (SELECT COUNT(*) FROM groups) || ' ' ||
    (SELECT COUNT(*) FROM campaigns) || ' ' || (SELECT COUNT(*) FROM cabinet_shares) || ' ' ||
    (SELECT COUNT(*) FROM api_key_cabinets) || ' ' || (SELECT COUNT(*) FROM tasks) || ' ' ||
    (SELECT COUNT(*) FROM media)";

fn text(conn: &Connection, sql: &str) -> String {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn the_cabinets_table_loses_its_type_check_and_keeps_every_row_and_reference() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("adcab.db");
    let old = super::schema_before(&path, VERSION);
    old.execute_batch(
        "PRAGMA foreign_keys = ON;
         INSERT INTO users (id, email, plan, created_at) VALUES
            (1, 'owner@example.com', 'agency', 't'), (2, 'member@example.com', 'pro', 't');
         INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_micros,
            balance_updated_at, min_budget, ad_button, created_at, platform_id, credential,
            automation_daily_cap_micros, telegram_chat) VALUES
            (7, 1, 'Euro', 'euro', 1500000, 't1', 5, 1, 't', 'p7', 'sealed', 9000000, 42),
            (8, 1, 'Ton', 'ton', 0, 't2', 5, 0, 't', NULL, NULL, NULL, NULL),
            (9, 1, 'Stars', 'stars', 50000000000, 't3', 500, 0, 't', 'p9', 'sealed', NULL, NULL);
         INSERT INTO groups (account_id, name, color) VALUES (7, 'g', '#4A90D9');
         INSERT INTO campaigns (account_id, ad_id, title, text, status, active, promote_url,
            link_kind, target_type, targeting, cpm_micros, budget_micros, views_per_user,
            created_at, synced_at, status_changed_at)
         VALUES (7, 1, 'x', 't', 'Active', 1, 'https://t.me/a', 'channel', 'channels', '{}',
            1, 1, 1, 1, 't', 't'),
            (9, 1, 'y', 't', 'Paused', 0, 'https://t.me/a', 'channel', 'channels', '{}',
            1, 1, 1, 1, 't', 't');
         INSERT INTO team_members (agency_id, member_id) VALUES (1, 2);
         INSERT INTO cabinet_shares (agency_id, member_id, cabinet_id, access)
            VALUES (1, 2, 8, 'viewer');
         INSERT INTO api_keys (id, user_id, key_hash, scope_all, webhook_secret, created_at)
            VALUES (1, 1, 'h', 0, 's', 't');
         INSERT INTO api_key_cabinets (key_id, cabinet_id) VALUES (1, 7), (1, 9);
         INSERT INTO tasks (owner_id, account_id, type, lane, status, payload, total, created_at)
            VALUES (1, 9, 'pause', 'other', 'completed', '{}', 1, 't');
         INSERT INTO media (token, account_id, media_type, size, created_at)
            VALUES ('med_1', 8, 'image/png', 10, 't');",
    )
    .unwrap();
    let unknown = "INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_updated_at,
        min_budget, created_at) VALUES (10, 1, 'Dollars', 'usd', 't', 1, 't')";
    assert!(
        old.execute(unknown, []).is_err(),
        "before: the table refuses a type"
    );
    let (rows, referring) = (text(&old, EVERY_COLUMN), text(&old, REFERRING));
    assert_eq!(referring, "1 2 1 2 1 1");
    drop(old);

    let db = Db::open(&path, Open::Existing).expect("the previous schema migrates");
    drop(db);

    let conn = Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
    let newest: i64 = conn
        .query_row("SELECT MAX(version) FROM schema_migrations", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(newest >= VERSION);
    assert_eq!(text(&conn, EVERY_COLUMN), rows, "every column of every row");
    assert_eq!(text(&conn, REFERRING), referring, "every referring row");
    let broken: i64 = conn
        .query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(broken, 0, "every reference to a cabinet holds");
    let table = text(
        &conn,
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'cabinets'",
    );
    assert!(!table.contains("CHECK"), "{table}");
    let indexes = text(
        &conn,
        "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
         WHERE type = 'index' AND tbl_name = 'cabinets' AND sql IS NOT NULL ORDER BY name)",
    );
    assert_eq!(indexes, "cabinets_owner cabinets_platform_id");
    assert!(
        conn.execute("UPDATE cabinets SET platform_id = 'p7' WHERE id = 9", [])
            .is_err(),
        "a platform account is still one cabinet"
    );
    assert!(
        conn.execute("DELETE FROM cabinets WHERE id = 7", [])
            .is_err(),
        "references are still enforced"
    );

    conn.execute(unknown, [])
        .expect("after: the table takes any type");
    let read = |id: i64| cabinets::get(&conn, id).map(|c| c.map(|c| c.cabinet_type));
    assert_eq!(read(7).unwrap(), Some(CabinetType::Euro));
    assert_eq!(read(9).unwrap(), Some(CabinetType::Stars));
    let refused = read(10).unwrap_err().to_string();
    assert!(
        refused.contains("cabinets.cabinet_type") && refused.contains("usd"),
        "the type's parse refuses it: {refused}"
    );
}
