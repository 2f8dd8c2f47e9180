//! Owns the share links of client reports: making one (an unguessable token shown once; only
//! its SHA-256 is kept), listing and revoking a cabinet's live ones, and opening one: a link
//! unknown, revoked, expired, or whose maker no longer reaches the cabinet opens nothing,
//! all alike. A link shows the days it was made for, or the last 7 or 30 days rolling, and
//! never any other span; its days are those of its maker's time zone.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use rusqlite::Connection;

use super::{Reader, Span};
use crate::domain::time::iso;
use crate::i18n::Lang;
use crate::ops::{bad, OpsError};
use crate::primitives::{random_hex, sha256_hex};
use crate::store::cabinets as cabinet_rows;
use crate::store::reports::{self as rows, Link, LinkSpan};
use crate::store::users;

pub use crate::store::reports::{Link as SharedLink, LinkSpan as SharedSpan};

/// How long a new link lasts: the choices offered, in days, and the default.
pub const EXPIRY_DAYS: [u32; 4] = [7, 30, 90, 365];
pub const DEFAULT_EXPIRY_DAYS: u32 = 30;

/// A link to make: what span it shows, of which group, for how many days.
#[derive(Debug, Clone)]
pub struct NewLink {
    pub span: LinkSpan,
    /// The days of a fixed link (read with [`Span`]'s rules).
    pub fixed: Option<Span>,
    pub group: Option<i64>,
    pub expires_days: u32,
    /// The language the link's page speaks; `None` the reader's browser's.
    pub language: Option<Lang>,
}

impl NewLink {
    /// Reads the form's `span` (`fixed|last7|last30`, default `last7`), `from`/`to` for a fixed
    /// one, `group_id`, `expires_days` (one of [`EXPIRY_DAYS`], default 30) and `language`
    /// (`en`, `ru`, or empty for the reader's browser's).
    pub fn read(sent: &Sent<'_>, today: NaiveDate) -> Result<NewLink, OpsError> {
        let Sent {
            span,
            from,
            to,
            group,
            expires,
            language,
        } = *sent;
        let span = match span.map(str::trim).filter(|s| !s.is_empty()) {
            None => LinkSpan::Last7,
            Some(s) => LinkSpan::parse(s)
                .ok_or_else(|| bad("span", format!("'{s}' is not fixed, last7 or last30")))?,
        };
        let fixed = match span {
            LinkSpan::Fixed => Some(Span::parse(from, to, today)?),
            LinkSpan::Last7 | LinkSpan::Last30 => None,
        };
        let group = match group.map(str::trim).filter(|g| !g.is_empty()) {
            None => None,
            Some(g) => Some(
                g.parse::<i64>()
                    .map_err(|_| bad("group_id", format!("'{g}' is not a group id")))?,
            ),
        };
        let expires_days = match expires.map(str::trim).filter(|e| !e.is_empty()) {
            None => DEFAULT_EXPIRY_DAYS,
            Some(e) => e
                .parse::<u32>()
                .ok()
                .filter(|d| EXPIRY_DAYS.contains(d))
                .ok_or_else(|| {
                    bad(
                        "expires_days",
                        format!("'{e}' is not one of 7, 30, 90, 365"),
                    )
                })?,
        };
        let language = match language.map(str::trim).filter(|l| !l.is_empty()) {
            None => None,
            Some(code) => Some(
                Lang::parse(code)
                    .ok_or_else(|| bad("language", format!("'{code}' is not en or ru")))?,
            ),
        };
        Ok(NewLink {
            span,
            fixed,
            group,
            expires_days,
            language,
        })
    }
}

/// A share form's fields as sent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sent<'a> {
    pub span: Option<&'a str>,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    pub group: Option<&'a str>,
    pub expires: Option<&'a str>,
    pub language: Option<&'a str>,
}

/// A link just made: its id and the token, shown once.
#[derive(Debug, Clone)]
pub struct Created {
    pub id: i64,
    pub token: String,
}

/// Makes a share link of the reader's cabinet for `user`; the group, if any, must be the
/// cabinet's. Run in one write.
pub fn create(
    conn: &Connection,
    reader: &Reader,
    user: i64,
    new: &NewLink,
    now: DateTime<Utc>,
) -> Result<Created, OpsError> {
    let account = reader.cabinet().id;
    if let Some(g) = new.group {
        match crate::store::groups::get(conn, g)? {
            Some(found) if found.account_id == account => {}
            Some(_) | None => {
                return Err(bad("group_id", format!("no group {g} in this cabinet")));
            }
        }
    }
    let token = random_hex(32);
    let link = Link {
        id: 0,
        account_id: account,
        group_id: new.group,
        span: new.span,
        from_day: new.fixed.map(|s| s.from().to_string()),
        to_day: new.fixed.map(|s| s.to().to_string()),
        language: new.language,
        created_by: user,
        created_at: iso(now),
        expires_at: iso(now + Duration::days(i64::from(new.expires_days))),
    };
    let id = rows::insert_link(conn, &sha256_hex(&token), &link)?;
    Ok(Created { id, token })
}

/// The reader's cabinet's live links, newest first.
pub fn list(conn: &Connection, reader: &Reader, now: DateTime<Utc>) -> Result<Vec<Link>, OpsError> {
    Ok(rows::live_links(conn, reader.cabinet().id, &iso(now))?)
}

/// Revokes one of the reader's cabinet's links; `NotFound` when it has no live link `id`.
pub fn revoke(
    conn: &Connection,
    reader: &Reader,
    id: i64,
    now: DateTime<Utc>,
) -> Result<(), OpsError> {
    if rows::revoke_link(conn, reader.cabinet().id, id, &iso(now))? {
        Ok(())
    } else {
        Err(OpsError::NotFound)
    }
}

/// A live link opened: who may read what, over which days.
#[derive(Debug, Clone)]
pub struct Opened {
    pub reader: Reader,
    pub span: Span,
    pub group: Option<i64>,
    pub link: Link,
}

/// The live link `token` names at `now`, with the span it shows today, its days in the zone
/// of the link's maker (UTC when they keep none); `None` for a token
/// unknown, revoked or expired, or when the link's maker no longer reaches the cabinet.
pub fn open(
    conn: &Connection,
    token: &str,
    now: DateTime<Utc>,
) -> Result<Option<Opened>, OpsError> {
    let Some(link) = rows::live_link(conn, &sha256_hex(token), &iso(now))? else {
        return Ok(None);
    };
    let reach = cabinet_rows::reachable_by(conn, link.created_by)?;
    let Some(reader) = Reader::of(&reach, link.account_id) else {
        return Ok(None);
    };
    let zone = users::get(conn, link.created_by)?
        .and_then(|maker| maker.time_zone)
        .unwrap_or(Tz::UTC);
    let today = now.with_timezone(&zone).date_naive();
    let span = match link.span {
        LinkSpan::Last7 => Span::last(7, today),
        LinkSpan::Last30 => Span::last(30, today),
        LinkSpan::Fixed => {
            let day = |d: &Option<String>| {
                d.as_deref()
                    .and_then(|t| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok())
            };
            match (day(&link.from_day), day(&link.to_day)) {
                (Some(from), Some(to)) => Span::new(from, to)?,
                _ => return Ok(None),
            }
        }
    }
    .in_zone(zone);
    Ok(Some(Opened {
        reader,
        span,
        group: link.group_id,
        link,
    }))
}
