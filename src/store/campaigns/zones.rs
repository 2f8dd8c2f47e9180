//! Owns the campaigns' schedule zones (`schedule_zone`, `schedule_zone_refused`): the IANA
//! zone a schedule was given in, and the offset it could not be moved to; read by the job
//! that moves schedules with their zone's clocks, through the partial index on the zone.

use rusqlite::{params, Connection};

use crate::store::StoreError;

/// Sets the zone a campaign's schedule follows (`None`: an offset, `viewer` or no schedule);
/// a refused move recorded for the old one is cleared.
pub fn set_schedule_zone(
    conn: &Connection,
    account: i64,
    ad: i64,
    zone: Option<&str>,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE campaigns SET schedule_zone = ?3, schedule_zone_refused = NULL
         WHERE account_id = ?1 AND ad_id = ?2",
    )?
    .execute(params![account, ad, zone])?;
    Ok(())
}

/// Records the offset (`+HH:MM`) a campaign's schedule could not be moved to, or clears it.
pub fn set_zone_refused(
    conn: &Connection,
    account: i64,
    ad: i64,
    offset: Option<&str>,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE campaigns SET schedule_zone_refused = ?3 WHERE account_id = ?1 AND ad_id = ?2",
    )?
    .execute(params![account, ad, offset])?;
    Ok(())
}

/// The zones live campaigns' schedules follow, each once.
pub fn zones_followed(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT schedule_zone FROM campaigns WHERE schedule_zone IS NOT NULL",
    )?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The live campaigns (account, ad) with budget left whose schedule follows `zone` but holds
/// another offset than `offset` (`+HH:MM`), leaving out those already refused that very
/// offset (a platform takes no schedule on a campaign without budget: one topped up is moved
/// at the next pass).
pub fn zone_shifted(
    conn: &Connection,
    zone: &str,
    offset: &str,
) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT account_id, ad_id FROM campaigns
         WHERE schedule_zone = ?1 AND status != 'Deleted' AND schedule IS NOT NULL
           AND no_budget = 0
           AND json_extract(schedule, '$.timezone') IS NOT ?2
           AND schedule_zone_refused IS NOT ?2
         ORDER BY account_id, ad_id",
    )?;
    let rows = stmt.query_map(params![zone, offset], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
