//! Owns the agency's name and logo that head its cabinets' client reports, set by the owner:
//! a name of at most [`MAX_NAME`] characters (empty removes it), and a logo that is a PNG or
//! JPEG (told by its bytes, not its name) of at most [`MAX_LOGO`] bytes.

use rusqlite::Connection;

use crate::domain::media::sniff;
use crate::domain::Why;
use crate::ops::{now_iso, refused, OpsError};
use crate::store::reports as rows;

/// The longest agency name, in characters.
pub const MAX_NAME: usize = 120;
/// The largest logo, in bytes.
pub const MAX_LOGO: usize = 256 * 1024;

/// Sets (or with an empty one removes) the name of `owner`'s agency.
pub fn set_name(conn: &Connection, owner: i64, name: &str) -> Result<(), OpsError> {
    let name = name.trim();
    if name.chars().count() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(refused(
            "agency_name",
            format!("an agency name is at most {MAX_NAME} characters on one line"),
            Why::TooLong { max: MAX_NAME },
        ));
    }
    let name = (!name.is_empty()).then_some(name);
    rows::set_name(conn, owner, name, &now_iso(conn)?)?;
    Ok(())
}

/// Why a logo was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogoRefusal {
    NotAnImage,
    TooLarge,
}

/// Keeps `bytes` as `owner`'s logo; `Ok(Err(..))` says why a file was refused.
pub fn set_logo(
    conn: &Connection,
    owner: i64,
    bytes: &[u8],
) -> Result<Result<(), LogoRefusal>, OpsError> {
    if bytes.len() > MAX_LOGO {
        return Ok(Err(LogoRefusal::TooLarge));
    }
    let kind = match sniff(bytes) {
        Some(kind @ ("image/png" | "image/jpeg")) => kind,
        Some(_) | None => return Ok(Err(LogoRefusal::NotAnImage)),
    };
    rows::set_logo(conn, owner, Some((kind, bytes)), &now_iso(conn)?)?;
    Ok(Ok(()))
}

/// Removes `owner`'s logo.
pub fn remove_logo(conn: &Connection, owner: i64) -> Result<(), OpsError> {
    rows::set_logo(conn, owner, None, &now_iso(conn)?)?;
    Ok(())
}
