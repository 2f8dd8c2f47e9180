//! Owns `campaign_refs`: the values postbacks name campaigns by (a link's ref, a channel
//! campaign's invite link), for attribution; and `refs_indexed_under`, the rule they were
//! computed under.

use rusqlite::{params, Connection};

use super::StoreError;
use crate::domain::conversion::Target;

fn parts(target: &Target) -> (&'static str, &str) {
    match target {
        Target::Ref(v) => ("ref", v),
        Target::Invite(v) => ("invite", v),
    }
}

/// Makes `targets` the values naming this campaign.
pub fn replace(
    conn: &Connection,
    account: i64,
    ad: i64,
    targets: &[Target],
) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM campaign_refs WHERE account_id = ?1 AND ad_id = ?2")?
        .execute([account, ad])?;
    let mut insert = conn.prepare_cached(
        "INSERT OR IGNORE INTO campaign_refs (kind, value, account_id, ad_id) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for target in targets {
        let (kind, value) = parts(target);
        insert.execute(params![kind, value, account, ad])?;
    }
    Ok(())
}

/// The rule the stored refs were computed under, if they were ever all computed.
pub fn indexed_under(conn: &Connection) -> Result<Option<String>, StoreError> {
    super::optional(conn.query_row(
        "SELECT rule FROM refs_indexed_under WHERE id = 1",
        [],
        |r| r.get(0),
    ))
}

/// Records that every stored ref was computed under `rule`.
pub fn set_indexed_under(conn: &Connection, rule: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO refs_indexed_under (id, rule) VALUES (1, ?1)
         ON CONFLICT (id) DO UPDATE SET rule = excluded.rule",
        [rule],
    )?;
    Ok(())
}

/// Every campaign the value names, in every cabinet: `(account_id, ad_id)` in order. Only
/// campaigns adcab still has: one the platform removed outright (deleted before it ever ran)
/// is no campaign, so its refs name nothing.
pub fn find(conn: &Connection, target: &Target) -> Result<Vec<(i64, i64)>, StoreError> {
    let (kind, value) = parts(target);
    let mut stmt = conn.prepare_cached(
        "SELECT r.account_id, r.ad_id FROM campaign_refs r
         JOIN campaigns c ON c.account_id = r.account_id AND c.ad_id = r.ad_id
         WHERE r.kind = ?1 AND r.value = ?2
         ORDER BY r.account_id, r.ad_id",
    )?;
    let rows = stmt.query_map(params![kind, value], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
