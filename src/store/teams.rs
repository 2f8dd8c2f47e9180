//! Owns `team_members` and `cabinet_shares`: who is in an agency's team and which cabinets the
//! agency shares with each member, as manager or viewer.

use rusqlite::{params, Connection};

use super::StoreError;
use crate::domain::access::Access;

pub fn add_member(conn: &Connection, agency: i64, member: i64) -> Result<(), StoreError> {
    conn.execute(
        "INSERT OR IGNORE INTO team_members (agency_id, member_id) VALUES (?1, ?2)",
        params![agency, member],
    )?;
    Ok(())
}

/// Removes the member from the team; their shares go with it (ON DELETE CASCADE).
pub fn remove_member(conn: &Connection, agency: i64, member: i64) -> Result<usize, StoreError> {
    Ok(conn.execute(
        "DELETE FROM team_members WHERE agency_id = ?1 AND member_id = ?2",
        params![agency, member],
    )?)
}

pub fn share(
    conn: &Connection,
    agency: i64,
    member: i64,
    cabinet: i64,
    access: Access,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO cabinet_shares (agency_id, member_id, cabinet_id, access) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (member_id, cabinet_id) DO UPDATE SET agency_id = excluded.agency_id, access = excluded.access",
        params![agency, member, cabinet, access.as_str()],
    )?;
    Ok(())
}

pub fn unshare(
    conn: &Connection,
    agency: i64,
    member: i64,
    cabinet: i64,
) -> Result<usize, StoreError> {
    Ok(conn.execute(
        "DELETE FROM cabinet_shares WHERE agency_id = ?1 AND member_id = ?2 AND cabinet_id = ?3",
        params![agency, member, cabinet],
    )?)
}

/// Members of the agency's team.
pub fn members(conn: &Connection, agency: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT member_id FROM team_members WHERE agency_id = ?1 ORDER BY member_id",
    )?;
    let rows = stmt.query_map([agency], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every cabinet the agency shares: `(member, cabinet, access)`, by member then cabinet.
pub fn shares_of(conn: &Connection, agency: i64) -> Result<Vec<(i64, i64, Access)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT member_id, cabinet_id, access FROM cabinet_shares WHERE agency_id = ?1
         ORDER BY member_id, cabinet_id",
    )?;
    let rows = stmt.query_map([agency], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            super::parsed(r, 2, "cabinet_shares.access", Access::parse)?,
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The agencies whose plan covers this member: they are in the team of an owner on the Agency
/// plan. Returns each covering agency owner's subscription state.
pub fn covering_agencies(conn: &Connection, member: i64) -> Result<Vec<bool>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT u.subscription = 'active' FROM team_members t JOIN users u ON u.id = t.agency_id
         WHERE t.member_id = ?1 AND u.plan = 'agency'",
    )?;
    let rows = stmt.query_map([member], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
