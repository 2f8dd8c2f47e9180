//! Owns the `service_clock` row: the offset of the service clock from system time.

use rusqlite::Connection;

use super::StoreError;

pub fn offset_seconds(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT offset_seconds FROM service_clock WHERE id = 1")?
        .query_row([], |r| r.get(0))?)
}

pub fn set_offset(conn: &Connection, seconds: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE service_clock SET offset_seconds = ?1 WHERE id = 1",
        [seconds],
    )?;
    Ok(())
}
