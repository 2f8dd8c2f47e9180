//! Owns what client reports read and keep (migration 37): a cabinet's stats per campaign and
//! UTC day over a span (the hourly rows, and the daily rows retention rolled them into), or
//! per hour for days that are not UTC's, the conversions received over a span per campaign and
//! currency (through the campaigns' weekly rows, migration 57) and per event and currency (per
//! day or minute), an agency owner's name and logo, and the share links of reports (only their
//! tokens' hashes). Knows nothing of who may read them.

use chrono::{DateTime, NaiveTime, Utc, Weekday};
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::conversions::join;
use super::kept::parse;
use super::{ids_json, optional, parsed, unreadable, StoreError};
use crate::domain::stats::Totals;
use crate::domain::time::iso;
use crate::i18n::Lang;

/// One campaign's figures on one UTC day (`YYYY-MM-DD`), or in one hour (its ISO start) as
/// [`hours`] reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayRow {
    pub ad_id: i64,
    pub day: String,
    pub totals: Totals,
}

/// Each campaign's figures per UTC day over the days `[from, to)` (`YYYY-MM-DD`): its hourly
/// rows summed by the day they start in, and the daily rows retention left (the two never hold
/// the same hour). Days without figures are absent.
pub fn days(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<Vec<DayRow>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, substr(hour, 1, 10) AS day, SUM(views), SUM(opens), SUM(clicks),
            SUM(actions), SUM(spent_micros)
         FROM hourly_stats WHERE account_id = ?1 AND hour >= ?2 AND hour < ?3
         GROUP BY ad_id, day
         UNION ALL
         SELECT ad_id, day, views, opens, clicks, actions, spent_micros FROM daily_stats
         WHERE account_id = ?1 AND day >= ?4 AND day < ?5",
    )?;
    let rows = stmt.query_map(
        params![
            account,
            format!("{from}T00:00:00Z"),
            format!("{to}T00:00:00Z"),
            from,
            to
        ],
        |r| {
            Ok(DayRow {
                ad_id: r.get(0)?,
                day: r.get(1)?,
                totals: super::stats::totals_at(r, 2)?,
            })
        },
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Each campaign's stored hours in `[from, to)` (ISO times) as kept, `day` holding the hour's
/// start, and the daily rows retention left of the UTC days whose noon falls in that range
/// (`day` holding the day): what a report in a zone whose midnights are not UTC's reads.
pub fn hours(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<Vec<DayRow>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, hour, views, opens, clicks, actions, spent_micros
         FROM hourly_stats WHERE account_id = ?1 AND hour >= ?2 AND hour < ?3
         UNION ALL
         SELECT ad_id, day, views, opens, clicks, actions, spent_micros FROM daily_stats
         WHERE account_id = ?1 AND day >= substr(?2, 1, 10) AND day <= substr(?3, 1, 10)
            AND day || 'T12:00:00Z' >= ?2 AND day || 'T12:00:00Z' < ?3",
    )?;
    let rows = stmt.query_map(params![account, from, to], |r| {
        Ok(DayRow {
            ad_id: r.get(0)?,
            day: r.get(1)?,
            totals: super::stats::totals_at(r, 2)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The start of the cabinet's oldest stored hourly row (ISO), `None` when it has none: every
/// campaign's hours from then on are stored hour by hour (retention rolls every campaign's
/// older hours alike).
pub fn oldest_hour(conn: &Connection, account: i64) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT MIN(hour) FROM hourly_stats WHERE account_id = ?1")?
        .query_row([account], |r| r.get(0))?)
}

/// Conversions of one kind: how many, and their revenue in micro-units of `currency` (none
/// when they sent no amount).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub event_type: String,
    pub currency: Option<String>,
    pub count: i64,
    pub amount_micros: i128,
}

/// One campaign's conversions in one currency (none when they sent no amount): how many, and
/// their revenue in micro-units of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paid {
    pub currency: Option<String>,
    pub count: i64,
    pub amount_micros: i128,
}

/// The conversions received in `[from, to)` (ISO times) attributed to each of the campaigns
/// `ads` (in id order), per campaign (ascending) and currency (ascending, none first). Those
/// attributed to one campaign in their own row are read from its weekly rows (schema 57) over
/// the UTC weeks [`WeekPlan`] picks and one by one around them, those of a week's part outside
/// the span taken back off; those attributed to several (`conversion_campaigns`) one by one.
pub fn conversions_per_campaign(
    conn: &Connection,
    account: i64,
    ads: &[i64],
    from: &str,
    to: &str,
) -> Result<Vec<(i64, Paid)>, StoreError> {
    let mut sums = PaidSums::new(ads);
    // Rows are read by time alone (the conversions' index by time holds their campaign,
    // migration 52; the weekly rows' key starts with the week) and summed here, where a GROUP
    // BY would sort them first, and an `IN` over the campaigns would probe a table per row.
    let mut own = conn.prepare_cached(
        "SELECT ad_id, currency, amount_micros FROM conversions
         WHERE account_id = ?1 AND received_at >= ?2 AND received_at < ?3
            AND ad_id IS NOT NULL",
    )?;
    let mut one_by_one = |(from, to): (&str, &str), sign: i64| -> Result<(), StoreError> {
        let mut rows = own.query(params![account, from, to])?;
        while let Some(r) = rows.next()? {
            let amount: Option<i64> = r.get(2)?;
            sums.add(r, sign, i128::from(sign) * i128::from(amount.unwrap_or(0)))?;
        }
        Ok(())
    };
    let last: Option<String> = conn
        .prepare_cached("SELECT MAX(received_at) FROM conversions WHERE account_id = ?1")?
        .query_row([account], |r| r.get(0))?;
    let plan = match (parse(from), parse(to)) {
        (Some(from), Some(to)) => WeekPlan::new(from, to, last.as_deref().and_then(parse)),
        _ => None,
    };
    let Some(plan) = plan else {
        one_by_one((from, to), 1)?;
        return shared_conversions(conn, account, (from, to), sums);
    };
    for (a, b) in &plan.add {
        one_by_one((&iso(*a), &iso(*b)), 1)?;
    }
    for (a, b) in &plan.take {
        one_by_one((&iso(*a), &iso(*b)), -1)?;
    }
    if let Some((first, end)) = plan.weeks {
        let mut weeks = conn.prepare_cached(
            "SELECT ad_id, NULLIF(currency, ''), count, amount_high, amount_low
             FROM campaign_conversion_weeks
             WHERE account_id = ?1 AND week >= ?2 AND week < ?3",
        )?;
        let (first, end) = (first.date_naive().to_string(), end.date_naive().to_string());
        let mut rows = weeks.query(params![account, first, end])?;
        while let Some(r) = rows.next()? {
            sums.add(r, r.get(2)?, join(r.get(3)?, r.get(4)?))?;
        }
    }
    shared_conversions(conn, account, (from, to), sums)
}

/// `sums` with the conversions of `[from, to)` attributed to several campaigns added, one by
/// one: the lines of [`conversions_per_campaign`].
fn shared_conversions(
    conn: &Connection,
    account: i64,
    (from, to): (&str, &str),
    mut sums: PaidSums,
) -> Result<Vec<(i64, Paid)>, StoreError> {
    let mut shared = conn.prepare_cached(
        "SELECT cc.ad_id, c.currency, c.amount_micros
         FROM conversion_campaigns cc JOIN conversions c ON c.id = cc.conversion_id
         WHERE cc.account_id = ?1 AND cc.ad_id IN (SELECT value FROM json_each(?2))
            AND c.received_at >= ?3 AND c.received_at < ?4",
    )?;
    let mut rows = shared.query(params![account, ids_json(sums.ads), from, to])?;
    while let Some(r) = rows.next()? {
        sums.add_event(r)?;
    }
    sums.into_rows()
}

/// How [`conversions_per_campaign`] reads a span's own conversions: the weekly rows of the
/// UTC weeks `[weeks.0, weeks.1)` (Monday midnights), plus the conversions of each `add` span
/// one by one, minus those of each `take` span. A span's cut week at either end is either read
/// around (its part inside the span added) or read whole with the part outside taken off,
/// whichever reads less: a conversion counts as much as any other, a week's rows as one day
/// of conversions (a campaign converting daily has a row per week where it has seven events),
/// and no time after the cabinet's last conversion holds any.
#[derive(Debug, Clone, PartialEq, Eq)]
struct WeekPlan {
    weeks: Option<(DateTime<Utc>, DateTime<Utc>)>,
    add: Vec<(DateTime<Utc>, DateTime<Utc>)>,
    take: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

impl WeekPlan {
    /// The cheapest plan for `[from, to)` given the cabinet's `last` conversion (none: it has
    /// none); `None` when the span is empty.
    fn new(
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        last: Option<DateTime<Utc>>,
    ) -> Option<WeekPlan> {
        if from >= to {
            return None;
        }
        let week = chrono::Duration::days(7);
        let monday = |at: DateTime<Utc>| {
            let day = at.date_naive().week(Weekday::Mon).first_day();
            day.and_time(NaiveTime::MIN).and_utc()
        };
        let lo = monday(from);
        let hi = match monday(to) {
            m if m == to => to,
            m => m + week,
        };
        // Each end's ways: where the weeks start (end), and the span added or taken there.
        type Way = (DateTime<Utc>, Option<(DateTime<Utc>, DateTime<Utc>)>, bool);
        let starts: Vec<Way> = if from == lo {
            vec![(lo, None, false)]
        } else {
            vec![
                (lo + week, Some((from, lo + week)), false),
                (lo, Some((lo, from)), true),
            ]
        };
        let ends: Vec<Way> = if to == hi {
            vec![(hi, None, false)]
        } else {
            vec![
                (hi - week, Some((hi - week, to)), false),
                (hi, Some((to, hi)), true),
            ]
        };
        let held = |(a, b): (DateTime<Utc>, DateTime<Utc>)| match last {
            Some(last) => {
                (b.min(last + chrono::Duration::seconds(1)) - a).max(chrono::Duration::zero())
            }
            None => chrono::Duration::zero(),
        };
        let mut best = (
            held((from, to)),
            WeekPlan {
                weeks: None,
                add: vec![(from, to)],
                take: Vec::new(),
            },
        );
        for (first, at_start, take_start) in &starts {
            for (end, at_end, take_end) in &ends {
                let taking = *take_start || *take_end;
                if first > end || (first == end && taking) {
                    continue;
                }
                let mut plan = WeekPlan {
                    weeks: (first < end).then_some((*first, *end)),
                    add: Vec::new(),
                    take: Vec::new(),
                };
                let mut cost = chrono::Duration::days((*end - *first).num_days() / 7);
                for (span, take) in [(at_start, take_start), (at_end, take_end)] {
                    if let Some(span) = span {
                        cost += held(*span);
                        if *take { &mut plan.take } else { &mut plan.add }.push(*span);
                    }
                }
                if cost < best.0 {
                    best = (cost, plan);
                }
            }
        }
        Some(best.1)
    }
}

/// Conversions summed per campaign and currency, the campaign looked up in `ads` (in id order)
/// and its lines kept at its place there, its few currencies compared in place (a key of owned
/// texts would allocate for each event, a map by campaign search it again).
struct PaidSums<'a> {
    ads: &'a [i64],
    sums: Vec<Vec<Paid>>,
}

impl<'a> PaidSums<'a> {
    fn new(ads: &'a [i64]) -> PaidSums<'a> {
        PaidSums {
            ads,
            sums: vec![Vec::new(); ads.len()],
        }
    }

    /// Adds `count` conversions worth `amount` (both negative: takes them off) to the campaign
    /// and currency of row `r`'s first two columns, when the campaign is one of `ads`.
    fn add(&mut self, r: &Row, count: i64, amount: i128) -> Result<(), StoreError> {
        let ad: i64 = r.get(0)?;
        let Ok(place) = self.ads.binary_search(&ad) else {
            return Ok(());
        };
        let currency = r
            .get_ref(1)?
            .as_str_or_null()
            .map_err(rusqlite::Error::from)?;
        let lines = &mut self.sums[place];
        let at = match lines.iter().position(|p| p.currency.as_deref() == currency) {
            Some(at) => at,
            None => {
                lines.push(Paid {
                    currency: currency.map(str::to_string),
                    count: 0,
                    amount_micros: 0,
                });
                lines.len() - 1
            }
        };
        lines[at].count = lines[at].count.saturating_add(count);
        lines[at].amount_micros = lines[at].amount_micros.saturating_add(amount);
        Ok(())
    }

    /// Adds one conversion read as its campaign, currency and amount (none counts as 0).
    fn add_event(&mut self, r: &Row) -> Result<(), StoreError> {
        let amount: Option<i64> = r.get(2)?;
        self.add(r, 1, i128::from(amount.unwrap_or(0)))
    }

    /// The lines per campaign and currency, those whose conversions were all taken back off
    /// again (count 0) left out; a line left with a count of 0 and an amount, or with fewer
    /// than none, is a weekly row that is not its conversions' sum (`adcab check --deep`).
    fn into_rows(self) -> Result<Vec<(i64, Paid)>, StoreError> {
        let mut rows = Vec::new();
        for (&ad, mut lines) in self.ads.iter().zip(self.sums) {
            if let Some(p) = lines
                .iter()
                .find(|p| p.count < 0 || (p.count == 0 && p.amount_micros != 0))
            {
                return Err(StoreError::Corrupt(format!(
                    "campaign {ad}'s conversions in {:?} come to {} worth {}: \
                     campaign_conversion_weeks differs from its conversions",
                    p.currency, p.count, p.amount_micros
                )));
            }
            lines.retain(|p| p.count != 0);
            lines.sort_unstable_by(|a, b| a.currency.cmp(&b.currency));
            rows.extend(lines.into_iter().map(|p| (ad, p)));
        }
        Ok(rows)
    }
}

/// The conversions received in `[from, to)` attributed to any of the campaigns `ads`, each
/// counted once however many of them it names, per UTC day (`YYYY-MM-DD`), event and currency.
pub fn conversions_per_day(
    conn: &Connection,
    account: i64,
    ads: &[i64],
    from: &str,
    to: &str,
) -> Result<Vec<(String, Converted)>, StoreError> {
    conversions_per(conn, account, ads, (from, to), 10)
}

/// As [`conversions_per_day`], per UTC minute (`YYYY-MM-DDTHH:MM`): what a report in a zone
/// whose midnights are not UTC's sorts into its days.
pub fn conversions_per_minute(
    conn: &Connection,
    account: i64,
    ads: &[i64],
    from: &str,
    to: &str,
) -> Result<Vec<(String, Converted)>, StoreError> {
    conversions_per(conn, account, ads, (from, to), 16)
}

/// The conversions of `[from, to)` per the first `width` characters of their time.
fn conversions_per(
    conn: &Connection,
    account: i64,
    ads: &[i64],
    (from, to): (&str, &str),
    width: i64,
) -> Result<Vec<(String, Converted)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT substr(c.received_at, 1, ?5) AS day, c.event_type, c.currency, COUNT(*),
            COALESCE(SUM(c.amount_micros), 0)
         FROM conversions c
         WHERE c.account_id = ?1 AND c.received_at >= ?3 AND c.received_at < ?4
            AND (c.ad_id IN (SELECT value FROM json_each(?2))
                OR (c.ad_id IS NULL AND EXISTS (SELECT 1 FROM conversion_campaigns cc
                    WHERE cc.conversion_id = c.id
                        AND cc.ad_id IN (SELECT value FROM json_each(?2)))))
         GROUP BY day, c.event_type, c.currency",
    )?;
    let rows = stmt.query_map(params![account, ids_json(ads), from, to, width], |r| {
        Ok((r.get(0)?, converted_at(r, 1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn converted_at(r: &Row, first: usize) -> rusqlite::Result<Converted> {
    let amount: i64 = r.get(first + 3)?;
    Ok(Converted {
        event_type: r.get(first)?,
        currency: r.get(first + 1)?,
        count: r.get(first + 2)?,
        amount_micros: i128::from(amount),
    })
}

/// A cabinet's campaigns as a report names them: id, title, group.
pub fn campaigns(
    conn: &Connection,
    account: i64,
) -> Result<Vec<(i64, String, Option<i64>)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, title, group_id FROM campaigns WHERE account_id = ?1 ORDER BY ad_id",
    )?;
    let rows = stmt.query_map([account], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// An agency owner's name and whether a logo is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    pub name: Option<String>,
    pub logo_type: Option<String>,
}

pub fn profile(conn: &Connection, owner: i64) -> Result<Profile, StoreError> {
    Ok(conn
        .query_row(
            "SELECT name, logo_type FROM agency_profiles WHERE owner_id = ?1",
            [owner],
            |r| {
                Ok(Profile {
                    name: r.get(0)?,
                    logo_type: r.get(1)?,
                })
            },
        )
        .optional()?
        .unwrap_or_default())
}

/// The owner's logo: its media type and bytes.
pub fn logo(conn: &Connection, owner: i64) -> Result<Option<(String, Vec<u8>)>, StoreError> {
    let found = optional(conn.query_row(
        "SELECT logo_type, logo FROM agency_profiles
         WHERE owner_id = ?1 AND logo IS NOT NULL AND logo_type IS NOT NULL",
        [owner],
        |r| Ok((r.get(0)?, r.get(1)?)),
    ))?;
    Ok(found)
}

pub fn set_name(
    conn: &Connection,
    owner: i64,
    name: Option<&str>,
    now: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO agency_profiles (owner_id, name, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (owner_id) DO UPDATE SET name = excluded.name,
            updated_at = excluded.updated_at",
        params![owner, name, now],
    )?;
    Ok(())
}

/// Keeps the owner's logo (`None` removes it).
pub fn set_logo(
    conn: &Connection,
    owner: i64,
    logo: Option<(&str, &[u8])>,
    now: &str,
) -> Result<(), StoreError> {
    let (kind, bytes) = logo.unzip();
    conn.execute(
        "INSERT INTO agency_profiles (owner_id, logo_type, logo, updated_at)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (owner_id) DO UPDATE SET logo_type = excluded.logo_type,
            logo = excluded.logo, updated_at = excluded.updated_at",
        params![owner, kind, bytes, now],
    )?;
    Ok(())
}

/// What span of days a share link shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkSpan {
    /// The days it was made for.
    Fixed,
    /// The last 7 days, ending on the day it is opened.
    Last7,
    /// The last 30 days, ending on the day it is opened.
    Last30,
}

impl LinkSpan {
    pub fn parse(text: &str) -> Option<LinkSpan> {
        match text {
            "fixed" => Some(LinkSpan::Fixed),
            "last7" => Some(LinkSpan::Last7),
            "last30" => Some(LinkSpan::Last30),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LinkSpan::Fixed => "fixed",
            LinkSpan::Last7 => "last7",
            LinkSpan::Last30 => "last30",
        }
    }
}

/// A share link as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub id: i64,
    pub account_id: i64,
    pub group_id: Option<i64>,
    pub span: LinkSpan,
    pub from_day: Option<String>,
    pub to_day: Option<String>,
    /// The language its page speaks; `None` the reader's browser's.
    pub language: Option<Lang>,
    pub created_by: i64,
    pub created_at: String,
    pub expires_at: String,
}

const LINK_COLUMNS: &str = "id, account_id, group_id, span, from_day, to_day, created_by,
    created_at, expires_at, language";

fn link_row(r: &Row) -> rusqlite::Result<Link> {
    Ok(Link {
        id: r.get(0)?,
        account_id: r.get(1)?,
        group_id: r.get(2)?,
        span: parsed(r, 3, "report_links.span", LinkSpan::parse)?,
        from_day: r.get(4)?,
        to_day: r.get(5)?,
        created_by: r.get(6)?,
        created_at: r.get(7)?,
        expires_at: r.get(8)?,
        language: r
            .get::<_, Option<String>>(9)?
            .map(|code| {
                Lang::parse(&code).ok_or_else(|| unreadable("report_links.language", &code))
            })
            .transpose()?,
    })
}

/// Keeps a new link under its token's hash; returns its id.
pub fn insert_link(conn: &Connection, token_hash: &str, link: &Link) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO report_links (token_hash, account_id, group_id, span, from_day, to_day,
            created_by, created_at, expires_at, language)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            token_hash,
            link.account_id,
            link.group_id,
            link.span.as_str(),
            link.from_day,
            link.to_day,
            link.created_by,
            link.created_at,
            link.expires_at,
            link.language.map(Lang::code)
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// The live link (not revoked, not expired at `now`) whose token hashes to `token_hash`.
pub fn live_link(
    conn: &Connection,
    token_hash: &str,
    now: &str,
) -> Result<Option<Link>, StoreError> {
    optional(conn.query_row(
        &format!(
            "SELECT {LINK_COLUMNS} FROM report_links
             WHERE token_hash = ?1 AND revoked_at IS NULL AND expires_at > ?2"
        ),
        params![token_hash, now],
        link_row,
    ))
}

/// A cabinet's live links at `now`, newest first (at most 100).
pub fn live_links(conn: &Connection, account: i64, now: &str) -> Result<Vec<Link>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {LINK_COLUMNS} FROM report_links
         WHERE account_id = ?1 AND revoked_at IS NULL AND expires_at > ?2
         ORDER BY id DESC LIMIT 100"
    ))?;
    let rows = stmt.query_map(params![account, now], link_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Revokes a cabinet's link; whether there was a live one to revoke.
pub fn revoke_link(
    conn: &Connection,
    account: i64,
    id: i64,
    now: &str,
) -> Result<bool, StoreError> {
    let n = conn.execute(
        "UPDATE report_links SET revoked_at = ?3
         WHERE id = ?2 AND account_id = ?1 AND revoked_at IS NULL",
        params![account, id, now],
    )?;
    Ok(n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Money;
    use crate::store::test_db;

    /// The conversions of cabinet 7's `ads` received in `[from, to)` summed one by one, per
    /// campaign and currency: what [`conversions_per_campaign`] reads.
    fn paid_one_by_one(conn: &Connection, ads: &[i64], from: &str, to: &str) -> Vec<(i64, Paid)> {
        let mut stmt = conn
            .prepare(
                "SELECT ad, currency, COUNT(*), SUM(COALESCE(amount_micros, 0))
                 FROM (SELECT ad_id AS ad, currency, amount_micros, received_at
                       FROM conversions WHERE ad_id IS NOT NULL AND account_id = 7
                       UNION ALL
                       SELECT cc.ad_id, currency, amount_micros, received_at
                       FROM conversion_campaigns cc JOIN conversions c ON c.id = cc.conversion_id
                       WHERE cc.account_id = 7)
                 WHERE ad IN (SELECT value FROM json_each(?3))
                    AND received_at >= ?1 AND received_at < ?2
                 GROUP BY ad, currency ORDER BY ad, currency",
            )
            .unwrap();
        stmt.query_map(params![from, to, ids_json(ads)], |r| {
            let sum: i64 = r.get(3)?;
            Ok((
                r.get(0)?,
                Paid {
                    currency: r.get(1)?,
                    count: r.get(2)?,
                    amount_micros: i128::from(sum),
                },
            ))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
    }

    #[test]
    fn conversions_per_campaign_sum_the_listed_campaigns_events_of_the_span() {
        let conn = test_db();
        let mut insert = conn
            .prepare(
                "INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
                    account_id, ad_id, received_at, updated_at)
                 VALUES (1, ?1, ?2, ?3, ?4, 7, ?5, ?6, 'x')",
            )
            .unwrap();
        // Every 5 hours from Friday 2026-11-20 for 24 days: campaigns 1, 2, 3 in turn and
        // every fourth event without a campaign of its own (attributed below to 2 and 3).
        let start = chrono::NaiveDate::from_ymd_opt(2026, 11, 20)
            .unwrap()
            .and_time(NaiveTime::MIN)
            .and_utc();
        for i in 0..115_i64 {
            let at = iso(start + chrono::Duration::hours(i * 5));
            let ad = (i % 4 != 3).then_some(i % 3 + 1);
            // Some of campaign 3's with a negative amount (a refund), some in a currency
            // without an amount.
            let (event, amount, currency) = match i % 3 {
                0 => ("lead", None, None),
                1 => ("purchase", Some(1_000_000 * i), Some("USD")),
                _ if i % 5 == 0 => ("purchase", None, Some("EUR")),
                _ if i % 7 == 0 => ("purchase", Some(-1_234_567_891 * i), Some("EUR")),
                _ => ("purchase", Some(7), Some("EUR")),
            };
            insert
                .execute(params![format!("t{i}"), event, amount, currency, ad, at])
                .unwrap();
        }
        conn.execute_batch(
            "INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
             SELECT id, 7, ad FROM conversions, (SELECT 2 AS ad UNION ALL SELECT 3)
             WHERE ad_id IS NULL",
        )
        .unwrap();
        // Another cabinet's conversions, with the same campaign ids, at the same times and
        // after them, count nowhere in cabinet 7's.
        conn.execute_batch(
            "INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
                account_id, ad_id, received_at, updated_at)
             SELECT holder_id, 'other ' || txid, event_type, amount_micros * 3, currency, 8,
                COALESCE(ad_id, 1), received_at, updated_at FROM conversions;
             INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
                account_id, ad_id, received_at, updated_at)
             VALUES (1, 'later', 'purchase', 5, 'USD', 8, 1, '2026-12-30T00:00:00Z', 'x');",
        )
        .unwrap();
        // Campaign 4 converts on two Mondays' first hour alone: a span from such a Tuesday
        // that reads the week whole takes it off again, and it has no line there.
        for (txid, at) in [
            ("m1", "2026-11-23T01:00:00Z"),
            ("m2", "2026-11-30T01:00:00Z"),
        ] {
            insert
                .execute(params![txid, "purchase", 5_i64, "GBP", 4_i64, at])
                .unwrap();
        }
        // Spans within a week, across one week's end, over two whole weeks with cut days at
        // both ends, and from one Monday midnight to another.
        let spans = [
            ("2026-11-21T00:00:00Z", "2026-11-24T12:00:00Z"),
            ("2026-11-26T07:00:00Z", "2026-12-03T06:59:59Z"),
            ("2026-11-22T21:00:00Z", "2026-12-09T21:00:00Z"),
            ("2026-11-23T00:00:00Z", "2026-12-07T00:00:00Z"),
        ];
        // And every span between the fixture's times 13 hours apart, and between its
        // midnights, read both ways: each end's cut week read around and read whole with the
        // rest taken off, and no week at all.
        let step = |hours: i64| {
            let times: Vec<_> = (0..)
                .map(|i| start - chrono::Duration::days(2) + chrono::Duration::hours(i * hours))
                .take_while(|t| *t < start + chrono::Duration::days(27))
                .collect();
            let mut pairs = Vec::new();
            for (i, a) in times.iter().enumerate() {
                pairs.extend(times[i + 1..].iter().map(|b| (iso(*a), iso(*b))));
            }
            pairs
        };
        let swept: Vec<(String, String)> = [step(13), step(24)].concat();
        let last: String = conn
            .query_row("SELECT MAX(received_at) FROM conversions", [], |r| r.get(0))
            .unwrap();
        let last = parse(&last);
        let plans: Vec<WeekPlan> = swept
            .iter()
            .filter_map(|(a, b)| WeekPlan::new(parse(a)?, parse(b)?, last))
            .collect();
        assert_eq!(plans.len(), swept.len());
        for (what, seen) in [
            ("no week", plans.iter().any(|p| p.weeks.is_none())),
            (
                "a start taken off",
                plans
                    .iter()
                    .any(|p| p.take.iter().any(|t| p.weeks.is_some_and(|w| t.0 == w.0))),
            ),
            (
                "an end taken off",
                plans
                    .iter()
                    .any(|p| p.take.iter().any(|t| p.weeks.is_some_and(|w| t.1 == w.1))),
            ),
            (
                "both ends added",
                plans.iter().any(|p| p.weeks.is_some() && p.add.len() == 2),
            ),
            (
                "an end added, the other taken off",
                plans.iter().any(|p| p.add.len() == 1 && p.take.len() == 1),
            ),
        ] {
            assert!(seen, "the sweep reads a span with {what}");
        }
        let check = |when: &str| {
            for (from, to) in spans {
                let found = conversions_per_campaign(&conn, 7, &[1, 3], from, to).unwrap();
                assert_eq!(
                    found,
                    paid_one_by_one(&conn, &[1, 3], from, to),
                    "{when}: {from}..{to}"
                );
                assert!(
                    found.iter().any(|(ad, _)| *ad == 1) && found.iter().any(|(ad, _)| *ad == 3)
                );
                assert!(found.iter().all(|(ad, _)| *ad != 2), "{found:?}");
            }
            for (from, to) in &swept {
                assert_eq!(
                    conversions_per_campaign(&conn, 7, &[1, 2, 3, 4], from, to).unwrap(),
                    paid_one_by_one(&conn, &[1, 2, 3, 4], from, to),
                    "{when}: {from}..{to}"
                );
            }
        };
        check("as stored");
        let (from, to) = spans[2];
        let refunded = conversions_per_campaign(&conn, 7, &[3], from, to).unwrap();
        assert!(
            refunded.iter().any(|(_, p)| p.amount_micros < 0),
            "the refunds outweigh campaign 3's purchases there: {refunded:?}"
        );
        // The weekly rows follow a conversion moved to another campaign and week, one whose
        // amount changed, one attributed anew to several campaigns, and one removed.
        conn.execute_batch(
            "UPDATE conversions SET ad_id = 3, received_at = '2026-12-01T10:00:00Z'
                 WHERE txid = 't0';
             UPDATE conversions SET amount_micros = 99000000 WHERE txid = 't40';
             UPDATE conversions SET ad_id = NULL WHERE txid = 't42';
             INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
                 SELECT id, 7, 1 FROM conversions WHERE txid = 't42';
             DELETE FROM conversions WHERE txid = 't50';",
        )
        .unwrap();
        check("changed");
        let attributed: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM conversion_campaigns cc JOIN conversions c
                     ON c.id = cc.conversion_id
                 WHERE cc.ad_id = 3 AND received_at >= ?1 AND received_at < ?2",
                [spans[0].0, spans[0].1],
                |r| r.get(0),
            )
            .unwrap();
        assert!(
            attributed > 0,
            "the fixture attributes events of the span to campaign 3"
        );
    }

    #[test]
    fn a_week_plan_reads_each_cut_week_around_or_whole_whichever_reads_less() {
        let at = |text: &str| parse(text).unwrap();
        let plan = |from: &str, to: &str, last: Option<&str>| {
            WeekPlan::new(at(from), at(to), last.map(at)).unwrap()
        };
        let spans = |list: &[(&str, &str)]| -> Vec<_> {
            list.iter().map(|(a, b)| (at(a), at(b))).collect()
        };
        // Tuesday to Thursday four weeks on, the last conversion the Wednesday before: the
        // Monday taken off the first week, and the last week read whole, nothing after the
        // last conversion to take off (a report of 30 days ending today).
        assert_eq!(
            plan(
                "2026-11-24T00:00:00Z",
                "2026-12-24T00:00:00Z",
                Some("2026-12-23T12:00:00Z")
            ),
            WeekPlan {
                weeks: Some((at("2026-11-23T00:00:00Z"), at("2026-12-28T00:00:00Z"))),
                add: Vec::new(),
                take: spans(&[
                    ("2026-11-23T00:00:00Z", "2026-11-24T00:00:00Z"),
                    ("2026-12-24T00:00:00Z", "2026-12-28T00:00:00Z"),
                ]),
            }
        );
        // No conversion at all: nothing but one read of the span.
        let span = ("2026-11-24T00:00:00Z", "2026-12-24T00:00:00Z");
        assert_eq!(
            plan(span.0, span.1, None),
            WeekPlan {
                weeks: None,
                add: spans(&[span]),
                take: Vec::new(),
            }
        );
        // Saturday to Wednesday, conversions after it: the two days at each end read around
        // the whole weeks.
        assert_eq!(
            plan(
                "2026-11-28T00:00:00Z",
                "2026-12-16T00:00:00Z",
                Some("2026-12-31T00:00:00Z")
            ),
            WeekPlan {
                weeks: Some((at("2026-11-30T00:00:00Z"), at("2026-12-14T00:00:00Z"))),
                add: spans(&[
                    ("2026-11-28T00:00:00Z", "2026-11-30T00:00:00Z"),
                    ("2026-12-14T00:00:00Z", "2026-12-16T00:00:00Z"),
                ]),
                take: Vec::new(),
            }
        );
        // Within one week, 4.75 days of it: the week whole, its 2.25 others taken off.
        assert_eq!(
            plan(
                "2026-11-24T06:00:00Z",
                "2026-11-29T00:00:00Z",
                Some("2026-12-31T00:00:00Z")
            ),
            WeekPlan {
                weeks: Some((at("2026-11-23T00:00:00Z"), at("2026-11-30T00:00:00Z"))),
                add: Vec::new(),
                take: spans(&[
                    ("2026-11-23T00:00:00Z", "2026-11-24T06:00:00Z"),
                    ("2026-11-29T00:00:00Z", "2026-11-30T00:00:00Z"),
                ]),
            }
        );
        assert_eq!(
            WeekPlan::new(at(span.0), at(span.0), None),
            None,
            "an empty span"
        );
    }

    #[test]
    fn days_join_the_hours_and_the_rolled_up_days() {
        let conn = test_db();
        conn.execute_batch(
            "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-27T10:00:00Z', 10, 0, 1, 0, 1000000);
             INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-27T11:00:00Z', 5, 0, 0, 1, 500000);
             INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-29T00:00:00Z', 7, 0, 0, 0, 1);
             INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions, spent_micros) VALUES (7, 2, '2026-11-26', 100, 0, 3, 0, 9000000);
             INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions, spent_micros) VALUES (7, 2, '2026-11-25', 100, 0, 3, 0, 9000000);",
        )
        .unwrap();
        let mut rows = days(&conn, 7, "2026-11-26", "2026-11-29").unwrap();
        rows.sort_by(|a, b| a.day.cmp(&b.day));
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!((rows[0].ad_id, rows[0].totals.views), (2, 100));
        assert_eq!((rows[1].ad_id, rows[1].totals.views), (1, 15));
        assert_eq!(rows[1].totals.spent, Money::from_micros(1_500_000));
    }

    #[test]
    fn a_link_is_found_by_its_hash_only_while_live() {
        let conn = test_db();
        let link = Link {
            id: 0,
            account_id: 7,
            group_id: None,
            span: LinkSpan::Last7,
            from_day: None,
            to_day: None,
            language: Some(Lang::Ru),
            created_by: 1,
            created_at: "2026-11-01T00:00:00Z".into(),
            expires_at: "2026-12-01T00:00:00Z".into(),
        };
        let id = insert_link(&conn, "h", &link).unwrap();
        let found = live_link(&conn, "h", "2026-11-30T00:00:00Z").unwrap();
        assert_eq!(found.map(|l| l.language), Some(Some(Lang::Ru)));
        assert!(live_link(&conn, "h", "2026-12-01T00:00:00Z")
            .unwrap()
            .is_none());
        assert!(revoke_link(&conn, 7, id, "2026-11-02T00:00:00Z").unwrap());
        assert!(live_link(&conn, "h", "2026-11-03T00:00:00Z")
            .unwrap()
            .is_none());
        assert!(!revoke_link(&conn, 7, id, "2026-11-02T00:00:00Z").unwrap());
    }
}
