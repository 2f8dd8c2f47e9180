//! Owns the `campaigns` table: the service's copy of each ad, keyed by `(account_id, ad_id)`,
//! and the refresh of a copy from what the platform reports. The list query behind
//! `GET /v1/campaigns` lives in `list`.

mod list;
mod sync;
mod zones;

pub use list::{all, list, sums, DomainMode, ListFilter, Page, SortKey, Sums, OFFSET_DEPTH};
pub use sync::{local_revs, stale_running, sync_states, CounterWrites, Reported, SyncState};
pub use zones::{set_schedule_zone, set_zone_refused, zone_shifted, zones_followed};

use std::sync::OnceLock;

use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{params, params_from_iter, Connection, Row};
use serde_json::Value;

use super::conversions::Summary;
use super::StoreError;
use super::{decline_columns, optional, parsed, unreadable};
use crate::db::json_column;
use crate::domain::ad::{AdSnapshot, DeclineReason};
use crate::domain::campaign::{LinkKind, Status, TargetType};
use crate::domain::dates::Dates;
use crate::domain::link::PromoteLink;
use crate::domain::money::Money;
use crate::domain::rule::State;
use crate::domain::stats::Totals;

/// A stored campaign. Rows of a list page (`list`) leave out what the list does not show
/// (see `UNLISTED`): `targeting` is `Null`, `synced_at` empty, the other left-out ones `None`.
#[derive(Debug, Clone)]
pub struct CampaignRow {
    pub account_id: i64,
    pub ad_id: i64,
    pub title: String,
    pub text: String,
    pub status: Status,
    pub active: bool,
    pub promote_url: String,
    pub link_kind: LinkKind,
    pub tme_path: Option<String>,
    pub target_type: TargetType,
    pub targeting: Value,
    pub cpm: Money,
    pub budget: Money,
    pub spent: Money,
    pub daily_budget: Option<Money>,
    pub views: i64,
    pub opens: i64,
    pub clicks: i64,
    pub actions: i64,
    pub views_per_user: i64,
    pub schedule: Option<Value>,
    pub media_token: Option<String>,
    pub media_type: Option<String>,
    pub picture: bool,
    pub button: Option<String>,
    pub website_name: Option<String>,
    pub group_id: Option<i64>,
    pub auto_cpm_enabled: bool,
    pub created_at: i64,
    pub synced_at: String,
    pub status_changed_at: String,
    pub invite_link: Option<String>,
    /// Why the platform declined it, while it is `Declined`.
    pub decline_reason: Option<DeclineReason>,
    /// Where its ad shows; `None` for a copy stored before placements were kept.
    pub placement: Option<String>,
    /// When it starts and ends, as adcab keeps them (a pause does not clear them).
    pub dates: Dates,
    /// Its conversions' counts and revenue, as its row keeps them (migration 60).
    pub conversions: Summary,
    /// The IANA zone its schedule was given in (`Europe/Berlin`), whose offset it follows.
    pub schedule_zone: Option<String>,
}

/// The stored copies with their figures (`campaign_counters`, migration 68: the counters, the
/// budget left and the marks the hourly sync rewrites, kept out of the wide row), as one
/// table to read from: `FROM {WITH_COUNTERS}`.
pub(crate) const WITH_COUNTERS: &str = "campaigns JOIN campaign_counters USING (account_id, ad_id)";

/// Joins a campaign's figures to its copy by the copy's number (`campaign_id`, migration 72)
/// beside [`WITH_COUNTERS`]'s key: a read that finds the figures first (a list sorted by a
/// figure) then reaches each copy in one seek by its rowid, where the key takes two (its unique
/// index, then the rowid).
pub(crate) const BY_NUMBER: &str = "campaigns.id = campaign_counters.campaign_id";

/// The columns `from_row` reads, in its order (read by position: a list page reads hundreds).
const COLUMNS: &str = "account_id, ad_id, title, text, status, active, promote_url, link_kind,
    tme_path, target_type, targeting, cpm_micros, budget_micros, spent_micros,
    daily_budget_micros, views, opens, clicks, actions, views_per_user, schedule, media_token,
    media_type, picture, button, website_name, group_id, auto_cpm_enabled, created_at,
    synced_at, status_changed_at, invite_link, decline_reason, decline_description,
    placement, starts_at, ends_at, conversion_lines, schedule_zone";

/// The columns of `COLUMNS` a list page does not show, and what it reads in their place:
/// parsing and copying them was half of a page's cost. A listed row carries the reduced
/// object's fields (and the panel list's), its conversions among them, nothing more.
const UNLISTED: [(&str, &str); 8] = [
    (" targeting,", " NULL,"),
    (" schedule,", " NULL,"),
    (" media_token,", " NULL,"),
    (" media_type,", " NULL,"),
    (" button,", " NULL,"),
    (" website_name,", " NULL,"),
    (" synced_at,", " '',"),
    (" invite_link,", " NULL,"),
];

/// What a list page reads: `COLUMNS` with the [`UNLISTED`] ones replaced.
fn listed_columns() -> &'static str {
    static SQL: OnceLock<String> = OnceLock::new();
    SQL.get_or_init(|| {
        UNLISTED
            .iter()
            .fold(COLUMNS.to_string(), |columns, (column, instead)| {
                columns.replacen(column, instead, 1)
            })
    })
}

fn from_row(r: &Row) -> rusqlite::Result<CampaignRow> {
    Ok(CampaignRow {
        account_id: r.get(0)?,
        ad_id: r.get(1)?,
        title: r.get(2)?,
        text: r.get(3)?,
        status: parsed(r, 4, "campaigns.status", Status::parse)?,
        active: r.get(5)?,
        promote_url: r.get(6)?,
        link_kind: parsed(r, 7, "campaigns.link_kind", LinkKind::parse)?,
        tme_path: r.get(8)?,
        target_type: parsed(r, 9, "campaigns.target_type", TargetType::parse)?,
        targeting: json_column(r.get(10)?)?.unwrap_or(Value::Null),
        cpm: Money::from_micros(r.get(11)?),
        budget: Money::from_micros(r.get(12)?),
        spent: Money::from_micros(r.get(13)?),
        daily_budget: r.get::<_, Option<i64>>(14)?.map(Money::from_micros),
        views: r.get(15)?,
        opens: r.get(16)?,
        clicks: r.get(17)?,
        actions: r.get(18)?,
        views_per_user: r.get(19)?,
        schedule: json_column(r.get(20)?)?,
        media_token: r.get(21)?,
        media_type: r.get(22)?,
        picture: r.get(23)?,
        button: r.get(24)?,
        website_name: r.get(25)?,
        group_id: r.get(26)?,
        auto_cpm_enabled: r.get(27)?,
        created_at: r.get(28)?,
        synced_at: r.get(29)?,
        status_changed_at: r.get(30)?,
        invite_link: r.get(31)?,
        decline_reason: super::decline_reason(r, 32, 33)?,
        placement: r.get(34)?,
        dates: Dates {
            starts_at: r.get(35)?,
            ends_at: r.get(36)?,
        },
        conversions: conversions_at(r, 37)?,
        schedule_zone: r.get(38)?,
    })
}

/// The campaign's conversions from its lines in column `index` (`conversion_lines`, migration
/// 60), read in place; none without lines.
fn conversions_at(r: &Row, index: usize) -> rusqlite::Result<Summary> {
    let lines = r.get_ref(index)?.as_str_or_null().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, e.into())
    })?;
    lines.map_or(Ok(Summary::default()), |lines| {
        Summary::of_lines(lines).ok_or_else(|| unreadable("campaigns.conversion_lines", lines))
    })
}

/// A stored or reported link, read; the service checked it when it entered, so a failure
/// here is a damaged value.
fn link_of(url: &str) -> Result<PromoteLink, StoreError> {
    PromoteLink::parse(url).map_err(|e| StoreError::Corrupt(format!("promote_url {url:?}: {e}")))
}

/// The columns a platform report sets, in the order of [`reported`]'s values. `status` is set
/// apart: its change also moves `status_changed_at`.
const REPORTED: [&str; 28] = [
    "title",
    "text",
    "active",
    "targeting",
    "cpm_micros",
    "budget_micros",
    "spent_micros",
    "daily_budget_micros",
    "views",
    "opens",
    "clicks",
    "actions",
    "views_per_user",
    "schedule",
    "media_type",
    "picture",
    "button",
    "website_name",
    "media_token",
    "promote_url",
    "link_kind",
    "tme_path",
    "tme_username",
    "promote_host",
    "invite_link",
    "decline_reason",
    "decline_description",
    "placement",
];

/// A snapshot's values of the [`REPORTED`] columns, in order.
fn reported(snap: &AdSnapshot) -> Result<[Sql; REPORTED.len()], StoreError> {
    let link = link_of(&snap.spec.promote_url)?;
    let spec = &snap.spec;
    let [decline_reason, decline_description] =
        decline_columns(snap.status, snap.decline_reason.as_ref());
    Ok([
        spec.title.clone().into(),
        spec.text.clone().into(),
        snap.active.into(),
        spec.targeting.to_string().into(),
        snap.cpm.micros().into(),
        snap.budget.micros().into(),
        snap.spent.micros().into(),
        snap.daily_budget.map(Money::micros).into(),
        snap.views.into(),
        snap.opens.into(),
        snap.clicks.into(),
        snap.actions.into(),
        spec.views_per_user.into(),
        snap.schedule.as_ref().map(Value::to_string).into(),
        spec.media_type.clone().into(),
        spec.picture.into(),
        spec.button.clone().into(),
        spec.website_name.clone().into(),
        spec.media_token.clone().into(),
        spec.promote_url.clone().into(),
        link.kind.as_str().to_string().into(),
        link.tme_path.into(),
        link.username.into(),
        link.host.into(),
        snap.invite_link.clone().into(),
        decline_reason,
        decline_description,
        spec.placement.clone().into(),
    ])
}

/// Stores a new copy of an ad the platform just created.
pub fn insert(
    conn: &Connection,
    snap: &AdSnapshot,
    group_id: Option<i64>,
    now: &str,
) -> Result<(), StoreError> {
    static SQL: OnceLock<String> = OnceLock::new();
    let sql = SQL.get_or_init(|| {
        let settings: Vec<&str> = REPORTED
            .into_iter()
            .filter(|column| !DELIVERY_COLUMNS.contains(column))
            .collect();
        let places: Vec<String> = (1..=settings.len() + 11).map(|n| format!("?{n}")).collect();
        format!(
            "INSERT INTO campaigns (account_id, ad_id, {}, status, synced_at, status_changed_at,
                created_at, group_id, target_type, starts_at, ends_at, no_budget)
             VALUES ({})",
            settings.join(", "),
            places.join(", ")
        )
    });
    let settings = REPORTED
        .iter()
        .zip(reported(snap)?)
        .filter(|(column, _)| !DELIVERY_COLUMNS.contains(column))
        .map(|(_, value)| value);
    let values = [snap.account_id.into(), snap.ad_id.into()]
        .into_iter()
        .chain(settings)
        .chain([
            snap.status.as_str().to_string().into(),
            now.to_string().into(),
            snap.status_changed_at.clone().into(),
            snap.created_at.into(),
            group_id.into(),
            snap.spec.target_type.as_str().to_string().into(),
            snap.dates.starts_at.into(),
            snap.dates.ends_at.into(),
            (snap.budget.micros() == 0).into(),
        ]);
    conn.prepare_cached(sql)?
        .execute(params_from_iter(values))?;
    // The insert made the copy's row of figures (zeros); the report's go into it.
    conn.prepare_cached(
        "UPDATE campaign_counters SET budget_micros = ?3, spent_micros = ?4, views = ?5,
            opens = ?6, clicks = ?7, actions = ?8
         WHERE account_id = ?1 AND ad_id = ?2",
    )?
    .execute(params![
        snap.account_id,
        snap.ad_id,
        snap.budget.micros(),
        snap.spent.micros(),
        snap.views,
        snap.opens,
        snap.clicks,
        snap.actions
    ])?;
    Ok(())
}

/// What [`refresh`] found in the stored copy before it wrote the report over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refreshed {
    /// Whether any reported value (or the status) differed.
    pub changed: bool,
    /// The status the copy had.
    pub old_status: Status,
    /// The `t.me` path the copy had, which names it in a status change.
    pub old_tme_path: Option<String>,
    /// Whether the promoted link or the invite link changed.
    pub link_changed: bool,
}

/// Whether [`refresh`] writes a snapshot's lifetime counters (spend, views, opens, clicks,
/// actions) and the budget left, or leaves the stored ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counters {
    Write,
    /// The copy keeps the counters and the budget left of the hourly report they were last
    /// synced from, which its stats and marks hold too: all of them move with delivery, so a
    /// re-read minutes after the hour finds them moved, and the next report brings them.
    Keep,
}

/// The [`REPORTED`] columns that move with delivery: the lifetime counters, and the budget left
/// (the spend comes off it). They are `campaign_counters`' (migration 68), the others
/// `campaigns`'.
const DELIVERY_COLUMNS: [&str; 6] = [
    "spent_micros",
    "views",
    "opens",
    "clicks",
    "actions",
    "budget_micros",
];

/// Brings a stored copy up to date with the platform's report; `synced_at` becomes `now`, and
/// `status_changed_at` moves only when the status really changed; the counters and the budget
/// left only with [`Counters::Write`]. Only the columns whose stored value differs from the
/// report are written, so the indexes over the others are left alone (a full re-read mostly
/// finds new counters and budget and nothing else). The local revision counts up, except for
/// a refresh with [`Counters::Keep`] (the hourly sync's full re-read, after its own report)
/// that finds the copy as stored. `None` when there is no such copy.
pub fn refresh(
    conn: &Connection,
    snap: &AdSnapshot,
    now: &str,
    counters: Counters,
) -> Result<Option<Refreshed>, StoreError> {
    plan_refresh(conn, snap, counters)?
        .map(|plan| plan.write(conn, now))
        .transpose()
}

/// What [`refresh`] writes of a copy: worked out by reading it (on any connection; the hourly
/// sync's full re-reads read on a reader), written by [`RefreshPlan::write`].
pub struct RefreshPlan {
    found: Refreshed,
    /// The copy's account and ad.
    campaign: [i64; 2],
    /// The assignments of the wide row (`campaigns`); `synced_at` is always among them.
    set: Assignments,
    /// The assignments of the copy's figures (`campaign_counters`).
    figures: Assignments,
}

/// One UPDATE's assignments of a campaign's row: ?1 and ?2 name the campaign, and each
/// assignment's value is bound to the number it was given, from ?3 on.
#[derive(Default)]
struct Assignments {
    columns: Vec<String>,
    values: Vec<Sql>,
}

impl Assignments {
    /// Sets `column` to `value`.
    fn to(&mut self, column: &str, value: Sql) {
        self.values.push(value);
        self.columns
            .push(format!("{column} = ?{}", self.values.len() + 2));
    }

    /// Sets `column` by an expression of the row alone.
    fn by(&mut self, assignment: &str) {
        self.columns.push(assignment.to_string());
    }

    fn write(&self, conn: &Connection, table: &str, campaign: [i64; 2]) -> Result<(), StoreError> {
        if self.columns.is_empty() {
            return Ok(());
        }
        let mut stmt = conn.prepare_cached(&format!(
            "UPDATE {table} SET {} WHERE account_id = ?1 AND ad_id = ?2",
            self.columns.join(", ")
        ))?;
        stmt.raw_bind_parameter(1, campaign[0])?;
        stmt.raw_bind_parameter(2, campaign[1])?;
        for (i, value) in self.values.iter().enumerate() {
            stmt.raw_bind_parameter(i + 3, value)?;
        }
        stmt.raw_execute()?;
        Ok(())
    }
}

impl RefreshPlan {
    /// Writes the plan with `synced_at` at `now`; what the refresh found.
    pub fn write(mut self, conn: &Connection, now: &str) -> Result<Refreshed, StoreError> {
        self.set.to("synced_at", Sql::Text(now.to_string()));
        self.set.write(conn, "campaigns", self.campaign)?;
        self.figures
            .write(conn, "campaign_counters", self.campaign)?;
        Ok(self.found)
    }
}

/// Reads a stored copy and works out what [`refresh`] writes of it; `None` when there is no
/// such copy.
pub fn plan_refresh(
    conn: &Connection,
    snap: &AdSnapshot,
    counters: Counters,
) -> Result<Option<RefreshPlan>, StoreError> {
    static READ: OnceLock<String> = OnceLock::new();
    let read = READ.get_or_init(|| {
        format!(
            "SELECT {}, status FROM {WITH_COUNTERS} WHERE account_id = ?1 AND ad_id = ?2",
            REPORTED.join(", ")
        )
    });
    let reported = reported(snap)?;
    // Each stored value is compared where the row holds it, and only the copy's link is taken
    // out of it: a full re-read mostly finds the copy as stored.
    let stored = conn
        .prepare_cached(read)?
        .query_row([snap.account_id, snap.ad_id], |r| {
            let mut differs = [false; REPORTED.len()];
            let mut old_tme_path = None;
            for (i, (column, new)) in REPORTED.iter().zip(&reported).enumerate() {
                if counters == Counters::Keep && DELIVERY_COLUMNS.contains(column) {
                    continue;
                }
                if *column == "tme_path" {
                    old_tme_path = r.get(i)?;
                }
                differs[i] = r.get_ref(i)? != ValueRef::from(new);
            }
            let old_status = parsed(r, REPORTED.len(), "campaigns.status", Status::parse)?;
            Ok((differs, old_tme_path, old_status))
        });
    let Some((differs, old_tme_path, old_status)) = optional(stored)? else {
        return Ok(None);
    };
    let moved = old_status != snap.status;
    let (mut set, mut figures) = (Assignments::default(), Assignments::default());
    let mut found = Refreshed {
        changed: moved,
        old_status,
        old_tme_path,
        link_changed: false,
    };
    for ((column, new), _) in REPORTED
        .iter()
        .zip(reported)
        .zip(differs)
        .filter(|(_, differs)| *differs)
    {
        found.changed = true;
        found.link_changed |= matches!(*column, "promote_url" | "invite_link");
        // Whether the copy has budget left is kept in its wide row (migration 68).
        if let (&"budget_micros", Sql::Integer(budget)) = (column, &new) {
            set.to("no_budget", Sql::Integer(i64::from(*budget == 0)));
        }
        if DELIVERY_COLUMNS.contains(column) {
            figures.to(column, new);
        } else {
            set.to(column, new);
        }
    }
    if moved {
        set.to("status", Sql::Text(snap.status.as_str().to_string()));
        set.to("status_changed_at", snap.status_changed_at.clone().into());
    }
    // The local revision counts every refresh, so an hourly sync whose report was read before
    // it keeps its hands off the copy (and the balance: the refresh may come with a money move
    // or a "Sync now" that stored a newer one). The sync's own full re-read comes after its
    // report is stored; one that finds the copy as stored leaves it (and the cabinet's copies'
    // revision) alone.
    if found.changed || counters == Counters::Write {
        set.by("local_rev = local_rev + 1");
    }
    Ok(Some(RefreshPlan {
        found,
        campaign: [snap.account_id, snap.ad_id],
        set,
        figures,
    }))
}

pub fn get(conn: &Connection, account: i64, ad: i64) -> Result<Option<CampaignRow>, StoreError> {
    optional(
        conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM {WITH_COUNTERS} WHERE account_id = ?1 AND ad_id = ?2"
        ))?
        .query_row([account, ad], from_row),
    )
}

/// The status and `tme_path` of a stored copy.
pub fn status_of(
    conn: &Connection,
    account: i64,
    ad: i64,
) -> Result<Option<(Status, Option<String>)>, StoreError> {
    let found = conn
        .prepare_cached(
            "SELECT status, tme_path FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        )?
        .query_row([account, ad], |r| {
            Ok((parsed(r, 0, "campaigns.status", Status::parse)?, r.get(1)?))
        });
    optional(found)
}

/// What names a campaign in a line of a digest: its path, title and status, bid and budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub tme_path: Option<String>,
    pub title: String,
    pub status: Status,
    pub cpm: Money,
    pub budget: Money,
}

/// The columns [`named_at`] reads, of `campaigns` as `c` and `campaign_counters` as `k`.
pub(crate) const NAMED_COLUMNS: &str =
    "c.tme_path, c.title, c.status, c.cpm_micros, k.budget_micros";

/// A [`Named`] read from [`NAMED_COLUMNS`] starting at column `first`.
pub(crate) fn named_at(r: &Row, first: usize) -> rusqlite::Result<Named> {
    Ok(Named {
        tme_path: r.get(first)?,
        title: r.get(first + 1)?,
        status: parsed(r, first + 2, "campaigns.status", Status::parse)?,
        cpm: Money::from_micros(r.get(first + 3)?),
        budget: Money::from_micros(r.get(first + 4)?),
    })
}

/// A stored copy's [`Named`] columns alone.
pub fn named(conn: &Connection, account: i64, ad: i64) -> Result<Option<Named>, StoreError> {
    let found = conn
        .prepare_cached(&format!(
            "SELECT {NAMED_COLUMNS} FROM campaigns c JOIN campaign_counters k
                 USING (account_id, ad_id) WHERE account_id = ?1 AND ad_id = ?2"
        ))?
        .query_row([account, ad], |r| named_at(r, 0));
    optional(found)
}

/// Lifetime figures of every campaign of a cabinet that ever delivered, deleted ones included.
pub fn lifetime(conn: &Connection, account: i64) -> Result<Vec<(i64, Totals)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, views, opens, clicks, actions, spent_micros FROM campaign_counters
         WHERE account_id = ?1 AND (views > 0 OR spent_micros > 0) ORDER BY ad_id",
    )?;
    let rows = stmt.query_map([account], |r| {
        Ok((
            r.get(0)?,
            Totals {
                views: r.get(1)?,
                opens: r.get(2)?,
                clicks: r.get(3)?,
                actions: r.get(4)?,
                spent: Money::from_micros(r.get(5)?),
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A stored campaign's links.
pub struct Links {
    pub account_id: i64,
    pub ad_id: i64,
    pub promote_url: String,
    pub invite_link: Option<String>,
}

/// Every stored campaign's link and invite link.
pub fn links(conn: &Connection) -> Result<Vec<Links>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT account_id, ad_id, promote_url, invite_link FROM campaigns ORDER BY account_id, ad_id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Links {
            account_id: r.get(0)?,
            ad_id: r.get(1)?,
            promote_url: r.get(2)?,
            invite_link: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Which of the given cabinets hold a campaign with this `ad_id`.
pub fn cabinets_with_ad(
    conn: &Connection,
    ad: i64,
    accounts: &[i64],
) -> Result<Vec<i64>, StoreError> {
    let ids = super::ids_json(accounts);
    let mut stmt = conn.prepare(
        "SELECT account_id FROM campaigns WHERE ad_id = ?1
           AND account_id IN (SELECT value FROM json_each(?2)) ORDER BY account_id",
    )?;
    let rows = stmt.query_map(params![ad, ids], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Marks the copy of an ad the platform keeps as `Deleted`, with nothing left on it.
pub fn mark_deleted(conn: &Connection, account: i64, ad: i64, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE campaigns SET status = 'Deleted', status_changed_at = ?3, no_budget = 1,
            local_rev = local_rev + 1
         WHERE account_id = ?1 AND ad_id = ?2",
        params![account, ad, now],
    )?;
    conn.execute(
        "UPDATE campaign_counters SET budget_micros = 0 WHERE account_id = ?1 AND ad_id = ?2",
        params![account, ad],
    )?;
    Ok(())
}

/// The ad_ids of a cabinet's copies that are not `Deleted`.
pub fn live_ids(conn: &Connection, account: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id FROM campaigns WHERE account_id = ?1 AND status <> 'Deleted'",
    )?;
    let ids = stmt
        .query_map([account], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

/// The state of a cabinet's live copies as automation reads it, by `ad_id`.
pub fn rule_states(conn: &Connection, account: i64) -> Result<Vec<State>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT ad_id, group_id, status, active, cpm_micros, budget_micros, daily_budget_micros
         FROM {WITH_COUNTERS} WHERE account_id = ?1 AND status <> 'Deleted' ORDER BY ad_id"
    ))?;
    let rows = stmt.query_map([account], |r| {
        Ok(State {
            ad_id: r.get(0)?,
            group_id: r.get(1)?,
            status: parsed(r, 2, "campaigns.status", Status::parse)?,
            active: r.get(3)?,
            cpm: Money::from_micros(r.get(4)?),
            budget: Money::from_micros(r.get(5)?),
            daily_budget: r.get::<_, Option<i64>>(6)?.map(Money::from_micros),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Removes the copy of an ad the platform removed outright (it never ran), and the refs that
/// named it: a postback naming one is for no campaign.
pub fn remove(conn: &Connection, account: i64, ad: i64) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        params![account, ad],
    )?;
    conn.execute(
        "DELETE FROM campaign_refs WHERE account_id = ?1 AND ad_id = ?2",
        params![account, ad],
    )?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests;

/// Sets the dates adcab keeps for a campaign (the platform's own are not read back over them).
pub fn set_dates(conn: &Connection, account: i64, ad: i64, dates: Dates) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE campaigns SET starts_at = ?3, ends_at = ?4 WHERE account_id = ?1 AND ad_id = ?2",
    )?
    .execute(params![account, ad, dates.starts_at, dates.ends_at])?;
    Ok(())
}

/// The titles of a cabinet's campaigns `ads` (deleted ones too), for pages that name them.
pub fn titles(
    conn: &Connection,
    account: i64,
    ads: &[i64],
) -> Result<std::collections::HashMap<i64, String>, StoreError> {
    let list = serde_json::to_string(ads).map_err(|e| StoreError::Failed(e.to_string()))?;
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, title FROM campaigns
         WHERE account_id = ?1 AND ad_id IN (SELECT value FROM json_each(?2))",
    )?;
    let rows = stmt.query_map(params![account, list], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
