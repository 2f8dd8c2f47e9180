//! Owns the campaign list's query as the API and the panel read it alike: the filters
//! (statuses, title, bot username, promote domain, link type), the size of a page, and its
//! sort and offset, or a cursor this service issued.

use crate::domain::campaign::{LinkKind, Status};
use crate::domain::link::normalize_domain;
use crate::domain::query::Query;
use crate::domain::ParseError;
use crate::primitives::{hex, unhex};
use crate::store::campaigns::{self as repo, DomainMode, ListFilter, Page, SortKey};

const DEFAULT_LIMIT: i64 = 100;
const MAX_LIMIT: i64 = 500;

/// What a list request asks for: the filter, the page and its size.
pub struct ListRequest {
    pub filter: ListFilter,
    pub page: Page,
    pub limit: i64,
}

/// Reads a list request's filters, sort and page from `q` over the cabinets `accounts` (the
/// API's and the panel's campaign lists take the same parameters).
pub fn list_request(q: &Query, accounts: Vec<i64>) -> Result<ListRequest, ParseError> {
    let filter = ListFilter {
        accounts,
        statuses: statuses(q)?,
        title: q.text("title").map(str::to_string),
        username: q
            .text("bot_username")
            .map(|u| u.trim_start_matches('@').to_ascii_lowercase()),
        domain: domain(q)?,
        kind: q
            .text("type")
            .map(|t| {
                LinkKind::parse(t)
                    .ok_or_else(|| ParseError::new("type", "type must be bot, channel or site."))
            })
            .transpose()?,
    };
    let limit = q.int("limit", 1, MAX_LIMIT)?.unwrap_or(DEFAULT_LIMIT);
    let cursor_mode = q.get("cursor").is_some()
        || filter.username.is_some()
        || filter.domain.is_some()
        || filter.kind.is_some();
    let page = if cursor_mode {
        if q.text("offset").is_some() {
            return Err(ParseError::new(
                "offset",
                "offset cannot be combined with cursor pagination (cursor, bot_username, promote_domain, type).",
            ));
        }
        let after = q.text("cursor").map(decode_cursor).transpose()?;
        Page::Cursor { after, limit }
    } else {
        Page::Offset {
            offset: q.int("offset", 0, repo::OFFSET_DEPTH)?.unwrap_or(0),
            limit,
            sort: q
                .text("sortBy")
                .map(|s| {
                    SortKey::parse(s).ok_or_else(|| {
                        ParseError::new(
                            "sortBy",
                            format!("sortBy must be one of {}.", SortKey::NAMES),
                        )
                    })
                })
                .transpose()?
                .unwrap_or(SortKey::Date),
            descending: match q.text("sortOrder").map(str::to_ascii_lowercase).as_deref() {
                None | Some("desc") => true,
                Some("asc") => false,
                Some(_) => {
                    return Err(ParseError::new(
                        "sortOrder",
                        "sortOrder must be asc or desc.",
                    ))
                }
            },
        }
    };
    Ok(ListRequest {
        filter,
        page,
        limit,
    })
}

fn statuses(q: &Query) -> Result<Option<Vec<Status>>, ParseError> {
    q.text("status")
        .map(|list| {
            list.split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|s| {
                    Status::parse(s).ok_or_else(|| {
                        ParseError::new("status", format!("Unknown status '{}'.", s.trim()))
                    })
                })
                .collect()
        })
        .transpose()
}

fn domain(q: &Query) -> Result<Option<(String, DomainMode)>, ParseError> {
    let mode = match q.text("promote_domain_mode") {
        None | Some("exact") => DomainMode::Exact,
        Some("suffix") => DomainMode::Suffix,
        Some(_) => {
            return Err(ParseError::new(
                "promote_domain_mode",
                "promote_domain_mode must be exact or suffix.",
            ))
        }
    };
    q.text("promote_domain")
        .map(|d| {
            let host = normalize_domain(d);
            if host.is_empty() {
                return Err(ParseError::new(
                    "promote_domain",
                    "promote_domain names no host.",
                ));
            }
            Ok((host, mode))
        })
        .transpose()
}

pub fn encode_cursor(account: i64, ad: i64) -> String {
    hex(format!("v1:{account}:{ad}").as_bytes())
}

fn decode_cursor(cursor: &str) -> Result<(i64, i64), ParseError> {
    let bad = || ParseError::new("cursor", "The cursor is not one this service issued.");
    let bytes = unhex(cursor).ok_or_else(bad)?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let mut parts = text.split(':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("v1"), Some(a), Some(b), None) => {
            Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_bad_ones_are_refused() {
        let c = encode_cursor(5_000_000_001, 42);
        assert_eq!(decode_cursor(&c).unwrap(), (5_000_000_001, 42));
        assert!(decode_cursor("zz").is_err());
        assert!(decode_cursor(&hex(b"v2:1:2")).is_err());
        assert!(decode_cursor("abc").is_err());
    }
}
