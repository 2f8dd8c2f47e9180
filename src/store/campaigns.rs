//! Owns the `campaigns` table: the service's copy of each ad, keyed by `(account_id, ad_id)`,
//! the list query behind `GET /v1/campaigns` (filters, cursor and offset pages), and the
//! refresh of a copy from what the platform reports.

use rusqlite::types::Value as Sql;
use rusqlite::{params, params_from_iter, Connection, Row};
use serde_json::Value;

use super::StoreError;
use super::{optional, parsed};
use crate::db::json_column;
use crate::domain::ad::{AdCounters, AdSnapshot};
use crate::domain::campaign::{LinkKind, Status, TargetType};
use crate::domain::link::PromoteLink;
use crate::domain::money::Money;
use crate::domain::stats::Totals;

/// Offset pagination reaches at most this many campaigns of each cabinet.
pub const OFFSET_DEPTH: i64 = 500;

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

fn from_row(r: &Row) -> rusqlite::Result<CampaignRow> {
    let media_token: Option<String> = r.get("media_token")?;
    Ok(CampaignRow {
        account_id: r.get("account_id")?,
        ad_id: r.get("ad_id")?,
        title: r.get("title")?,
        text: r.get("text")?,
        status: parsed(r, "status", "campaigns.status", Status::parse)?,
        active: r.get("active")?,
        promote_url: r.get("promote_url")?,
        link_kind: parsed(r, "link_kind", "campaigns.link_kind", LinkKind::parse)?,
        tme_path: r.get("tme_path")?,
        target_type: parsed(r, "target_type", "campaigns.target_type", TargetType::parse)?,
        targeting: json_column(r.get("targeting")?)?.unwrap_or(Value::Null),
        cpm: Money::from_micros(r.get("cpm_micros")?),
        budget: Money::from_micros(r.get("budget_micros")?),
        spent: Money::from_micros(r.get("spent_micros")?),
        daily_budget: r
            .get::<_, Option<i64>>("daily_budget_micros")?
            .map(Money::from_micros),
        views: r.get("views")?,
        opens: r.get("opens")?,
        clicks: r.get("clicks")?,
        actions: r.get("actions")?,
        views_per_user: r.get("views_per_user")?,
        schedule: json_column(r.get("schedule")?)?,
        media_token,
        media_type: r.get("media_type")?,
        picture: r.get("picture")?,
        button: r.get("button")?,
        website_name: r.get("website_name")?,
        group_id: r.get("group_id")?,
        auto_cpm_enabled: r.get("auto_cpm_enabled")?,
        created_at: r.get("created_at")?,
        synced_at: r.get("synced_at")?,
        status_changed_at: r.get("status_changed_at")?,
        invite_link: r.get("invite_link")?,
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

/// Brings a stored copy up to date with the platform's report; `synced_at` becomes `now`, and
/// `status_changed_at` moves only when the status really changed.
pub fn refresh(conn: &Connection, snap: &AdSnapshot, now: &str) -> Result<(), StoreError> {
    let link = link_of(&snap.spec.promote_url)?;
    conn.execute(
        "UPDATE campaigns SET promote_url = ?25, link_kind = ?26, tme_path = ?27, tme_username = ?28,
            promote_host = ?29, invite_link = ?30,
            title = ?3, text = ?4, active = ?5, targeting = ?6, cpm_micros = ?7,
            budget_micros = ?8, spent_micros = ?9, daily_budget_micros = ?10, views = ?11, opens = ?12,
            clicks = ?13, actions = ?14, views_per_user = ?15, schedule = ?16, media_type = ?17, media_token = ?24,
            picture = ?18, button = ?19, website_name = ?20, synced_at = ?21,
            status_changed_at = CASE WHEN status <> ?22 THEN ?23 ELSE status_changed_at END,
            status = ?22
         WHERE account_id = ?1 AND ad_id = ?2",
        params![
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
        ],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, account: i64, ad: i64) -> Result<Option<CampaignRow>, StoreError> {
    optional(conn.query_row(
        "SELECT * FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        [account, ad],
        from_row,
    ))
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
         WHERE account_id = ?1 AND ad_id = ?2",
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DomainMode {
    Exact,
    Suffix,
}

/// Filters of the list query; they combine with AND.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub accounts: Vec<i64>,
    /// `None`: every status but `Deleted`.
    pub statuses: Option<Vec<Status>>,
    pub title: Option<String>,
    pub username: Option<String>,
    pub domain: Option<(String, DomainMode)>,
    pub kind: Option<LinkKind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Date,
    AdId,
    Title,
    Status,
    Views,
    Clicks,
    Spent,
    Budget,
    Cpm,
}

impl SortKey {
    pub const NAMES: &'static str = "date, ad_id, title, status, views, clicks, spent, budget, cpm";

    pub fn parse(s: &str) -> Option<SortKey> {
        Some(match s {
            "date" | "created_at" => SortKey::Date,
            "ad_id" => SortKey::AdId,
            "title" => SortKey::Title,
            "status" => SortKey::Status,
            "views" => SortKey::Views,
            "clicks" => SortKey::Clicks,
            "spent" => SortKey::Spent,
            "budget" => SortKey::Budget,
            "cpm" => SortKey::Cpm,
            _ => return None,
        })
    }

    fn column(self) -> &'static str {
        match self {
            SortKey::Date => "created_at",
            SortKey::AdId => "ad_id",
            SortKey::Title => "title",
            SortKey::Status => "status",
            SortKey::Views => "views",
            SortKey::Clicks => "clicks",
            SortKey::Spent => "spent_micros",
            SortKey::Budget => "budget_micros",
            SortKey::Cpm => "cpm_micros",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// Keyset pages in `(account_id ASC, ad_id DESC)` order, after the given position.
    Cursor {
        after: Option<(i64, i64)>,
        limit: i64,
    },
    /// Sorted pages; each cabinet contributes at most its first `OFFSET_DEPTH` campaigns.
    Offset {
        offset: i64,
        limit: i64,
        sort: SortKey,
        descending: bool,
    },
}

/// One page of the list, plus whether more rows follow it.
pub fn list(
    conn: &Connection,
    filter: &ListFilter,
    page: &Page,
) -> Result<(Vec<CampaignRow>, bool), StoreError> {
    let mut clauses = vec!["account_id IN (SELECT value FROM json_each(?))".to_string()];
    let mut args: Vec<Sql> = vec![Sql::Text(super::ids_json(&filter.accounts))];
    match &filter.statuses {
        None => clauses.push("status <> 'Deleted'".into()),
        Some(statuses) => {
            let names: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
            clauses.push("status IN (SELECT value FROM json_each(?))".into());
            args.push(Sql::Text(serde_json::json!(names).to_string()));
        }
    }
    if let Some(title) = &filter.title {
        clauses.push("instr(lower(title), lower(?)) > 0".into());
        args.push(Sql::Text(title.clone()));
    }
    if let Some(username) = &filter.username {
        clauses.push("tme_username = ?".into());
        args.push(Sql::Text(username.to_ascii_lowercase()));
    }
    if let Some((domain, mode)) = &filter.domain {
        match mode {
            DomainMode::Exact => clauses.push("promote_host = ?".into()),
            DomainMode::Suffix => {
                clauses.push(
                    "(promote_host = ? OR substr(promote_host, -length(?) - 1) = '.' || ?)".into(),
                );
                args.extend([Sql::Text(domain.clone()), Sql::Text(domain.clone())]);
            }
        }
        args.push(Sql::Text(domain.clone()));
    }
    if let Some(kind) = filter.kind {
        clauses.push("link_kind = ?".into());
        args.push(Sql::Text(kind.as_str().into()));
    }
    let sql = match page {
        Page::Cursor { after, limit } => {
            if let Some((account, ad)) = after {
                clauses.push("(account_id > ? OR (account_id = ? AND ad_id < ?))".into());
                args.extend([
                    Sql::Integer(*account),
                    Sql::Integer(*account),
                    Sql::Integer(*ad),
                ]);
            }
            args.push(Sql::Integer(limit + 1));
            format!(
                "SELECT * FROM campaigns WHERE {} ORDER BY account_id ASC, ad_id DESC LIMIT ?",
                clauses.join(" AND ")
            )
        }
        Page::Offset {
            offset,
            limit,
            sort,
            descending,
        } => {
            let dir = if *descending { "DESC" } else { "ASC" };
            let order = format!("{} {dir}, account_id ASC, ad_id DESC", sort.column());
            args.push(Sql::Integer(OFFSET_DEPTH));
            args.push(Sql::Integer(limit + 1));
            args.push(Sql::Integer(*offset));
            format!(
                "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY account_id ORDER BY {order}) AS depth
                   FROM campaigns WHERE {}) WHERE depth <= ? ORDER BY {order} LIMIT ? OFFSET ?",
                clauses.join(" AND ")
            )
        }
    };
    let limit = match page {
        Page::Cursor { limit, .. } | Page::Offset { limit, .. } => *limit as usize,
    };
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt
        .query_map(params_from_iter(args), from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let more = rows.len() > limit;
    rows.truncate(limit);
    Ok((rows, more))
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
