//! Owns the `campaigns` table: the service's copy of each ad, keyed by `(account_id, ad_id)`,
//! and the refresh of a copy from what the platform reports. The list query behind
//! `GET /v1/campaigns` lives in `list`.

mod list;

pub use list::{list, DomainMode, ListFilter, Page, SortKey, OFFSET_DEPTH};

use rusqlite::{params, Connection, Row};
use serde_json::Value;

use super::StoreError;
use super::{optional, parsed};
use crate::db::json_column;
use crate::domain::ad::{AdCounters, AdSnapshot};
use crate::domain::campaign::{LinkKind, Status, TargetType};
use crate::domain::link::PromoteLink;
use crate::domain::money::Money;
use crate::domain::stats::Totals;

/// A stored campaign. Rows of a list page (`list`) carry neither `targeting` (`Null`) nor
/// `schedule` (`None`).
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
}

/// The columns `from_row` reads, in its order (read by position: a list page reads hundreds).
const COLUMNS: &str = "account_id, ad_id, title, text, status, active, promote_url, link_kind,
    tme_path, target_type, targeting, cpm_micros, budget_micros, spent_micros,
    daily_budget_micros, views, opens, clicks, actions, views_per_user, schedule, media_token,
    media_type, picture, button, website_name, group_id, auto_cpm_enabled, created_at,
    synced_at, status_changed_at, invite_link";

/// What a list page reads: `COLUMNS` with `targeting` and `schedule` read as NULL. The list
/// shows neither, and parsing them was a fifth of a page's cost.
fn listed_columns() -> String {
    COLUMNS
        .replacen(" targeting,", " NULL,", 1)
        .replacen(" schedule,", " NULL,", 1)
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
    })
}

/// A stored or reported link, read; the service checked it when it entered, so a failure
/// here is a damaged value.
fn link_of(url: &str) -> Result<PromoteLink, StoreError> {
    PromoteLink::parse(url).map_err(|e| StoreError::Corrupt(format!("promote_url {url:?}: {e}")))
}

/// Stores a new copy of an ad the platform just created.
pub fn insert(
    conn: &Connection,
    snap: &AdSnapshot,
    group_id: Option<i64>,
    now: &str,
) -> Result<(), StoreError> {
    let link = link_of(&snap.spec.promote_url)?;
    conn.execute(
        "INSERT INTO campaigns (account_id, ad_id, title, text, status, active, promote_url, link_kind,
            tme_path, tme_username, promote_host, target_type, targeting, cpm_micros, budget_micros,
            spent_micros, daily_budget_micros, views, opens, clicks, actions, views_per_user, schedule,
            media_token, media_type, picture, button, website_name, group_id, created_at, synced_at,
            status_changed_at, invite_link)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
            ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)",
        params![
            snap.account_id,
            snap.ad_id,
            snap.spec.title,
            snap.spec.text,
            snap.status.as_str(),
            snap.active,
            snap.spec.promote_url,
            link.kind.as_str(),
            link.tme_path,
            link.username,
            link.host,
            snap.spec.target_type.as_str(),
            snap.spec.targeting.to_string(),
            snap.cpm.micros(),
            snap.budget.micros(),
            snap.spent.micros(),
            snap.daily_budget.map(Money::micros),
            snap.views,
            snap.opens,
            snap.clicks,
            snap.actions,
            snap.spec.views_per_user,
            snap.schedule.as_ref().map(Value::to_string),
            snap.spec.media_token,
            snap.spec.media_type,
            snap.spec.picture,
            snap.spec.button,
            snap.spec.website_name,
            group_id,
            snap.created_at,
            now,
            snap.status_changed_at,
            snap.invite_link,
        ],
    )?;
    Ok(())
}

/// The columns a report sets, each with its parameter in `refresh` (`status`, ?22, is set
/// apart: its change also moves `status_changed_at`).
const REPORTED: [(&str, u8); 25] = [
    ("title", 3),
    ("text", 4),
    ("active", 5),
    ("targeting", 6),
    ("cpm_micros", 7),
    ("budget_micros", 8),
    ("spent_micros", 9),
    ("daily_budget_micros", 10),
    ("views", 11),
    ("opens", 12),
    ("clicks", 13),
    ("actions", 14),
    ("views_per_user", 15),
    ("schedule", 16),
    ("media_type", 17),
    ("picture", 18),
    ("button", 19),
    ("website_name", 20),
    ("media_token", 24),
    ("promote_url", 25),
    ("link_kind", 26),
    ("tme_path", 27),
    ("tme_username", 28),
    ("promote_host", 29),
    ("invite_link", 30),
];

/// Brings a stored copy up to date with the platform's report; `synced_at` becomes `now`, and
/// `status_changed_at` moves only when the status really changed. A copy that already says
/// what the report says only has its `synced_at` moved, so the indexes over its columns are
/// left alone (most full re-reads find nothing new).
pub fn refresh(conn: &Connection, snap: &AdSnapshot, now: &str) -> Result<(), StoreError> {
    let link = link_of(&snap.spec.promote_url)?;
    let set: Vec<String> = REPORTED
        .iter()
        .map(|(column, n)| format!("{column} = ?{n}"))
        .collect();
    let differs: Vec<String> = REPORTED
        .iter()
        .map(|(column, n)| format!("{column} IS NOT ?{n}"))
        .collect();
    let changed = conn
        .prepare_cached(&format!(
            "UPDATE campaigns SET {}, synced_at = ?21,
            status_changed_at = CASE WHEN status <> ?22 THEN ?23 ELSE status_changed_at END,
            status = ?22
         WHERE account_id = ?1 AND ad_id = ?2 AND (status IS NOT ?22 OR {})",
            set.join(", "),
            differs.join(" OR ")
        ))?
        .execute(params![
            snap.account_id,
            snap.ad_id,
            snap.spec.title,
            snap.spec.text,
            snap.active,
            snap.spec.targeting.to_string(),
            snap.cpm.micros(),
            snap.budget.micros(),
            snap.spent.micros(),
            snap.daily_budget.map(Money::micros),
            snap.views,
            snap.opens,
            snap.clicks,
            snap.actions,
            snap.spec.views_per_user,
            snap.schedule.as_ref().map(Value::to_string),
            snap.spec.media_type,
            snap.spec.picture,
            snap.spec.button,
            snap.spec.website_name,
            now,
            snap.status.as_str(),
            snap.status_changed_at,
            snap.spec.media_token,
            snap.spec.promote_url,
            link.kind.as_str(),
            link.tme_path,
            link.username,
            link.host,
            snap.invite_link,
        ])?;
    if changed == 0 {
        conn.prepare_cached(
            "UPDATE campaigns SET synced_at = ?3 WHERE account_id = ?1 AND ad_id = ?2",
        )?
        .execute(params![snap.account_id, snap.ad_id, now])?;
    }
    Ok(())
}

pub fn get(conn: &Connection, account: i64, ad: i64) -> Result<Option<CampaignRow>, StoreError> {
    optional(
        conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM campaigns WHERE account_id = ?1 AND ad_id = ?2"
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

/// Brings a copy's status, switch, money and counters in line with the platform's report. The
/// ad's settings are not part of it, so `synced_at` stays; `status_changed_at` moves only with
/// the status.
pub fn apply_counters(conn: &Connection, account: i64, c: &AdCounters) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE campaigns SET active = ?3, budget_micros = ?4, spent_micros = ?5, views = ?6,
            opens = ?7, clicks = ?8, actions = ?9,
            status_changed_at = CASE WHEN status <> ?10 THEN ?11 ELSE status_changed_at END,
            status = ?10
         WHERE account_id = ?1 AND ad_id = ?2
           AND (active, budget_micros, spent_micros, views, opens, clicks, actions, status)
               IS NOT (?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        account,
        c.ad_id,
        c.active,
        c.budget.micros(),
        c.spent.micros(),
        c.views,
        c.opens,
        c.clicks,
        c.actions,
        c.status.as_str(),
        c.status_changed_at,
    ])?;
    Ok(())
}

/// Running campaigns (`Active`, `In Review`, `On Hold`) of a cabinet whose settings were last
/// read from the platform before `cutoff`: the stalest first, at most a third of the running
/// ones (rounded up).
pub fn stale_running(
    conn: &Connection,
    account: i64,
    cutoff: &str,
) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id FROM campaigns WHERE account_id = ?1
           AND status IN ('Active', 'In Review', 'On Hold') AND synced_at < ?2
         ORDER BY synced_at, ad_id
         LIMIT (SELECT (COUNT(*) + 2) / 3 FROM campaigns WHERE account_id = ?1
                  AND status IN ('Active', 'In Review', 'On Hold'))",
    )?;
    let rows = stmt.query_map(params![account, cutoff], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Lifetime figures of every campaign of a cabinet that ever delivered, deleted ones included.
pub fn lifetime(conn: &Connection, account: i64) -> Result<Vec<(i64, Totals)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, views, opens, clicks, actions, spent_micros FROM campaigns
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
        "UPDATE campaigns SET status = 'Deleted', budget_micros = 0, status_changed_at = ?3
         WHERE account_id = ?1 AND ad_id = ?2",
        params![account, ad, now],
    )?;
    Ok(())
}

/// Removes the copy of an ad the platform removed outright (it never ran).
pub fn remove(conn: &Connection, account: i64, ad: i64) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        params![account, ad],
    )?;
    Ok(())
}
