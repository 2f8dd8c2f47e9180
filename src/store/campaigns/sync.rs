//! Owns what the hourly sync reads and writes of the stored copies: each copy's sync state
//! (status, link, the marks a gain is counted from, its local revision), the report's counters
//! and state written into it, and the running copies due for a full re-read.

use std::collections::HashMap;
use std::sync::OnceLock;

use rusqlite::types::Value;
use rusqlite::{params, CachedStatement, Connection, ToSql};

use super::{decline_columns, WITH_COUNTERS};
use crate::domain::ad::AdCounters;
use crate::domain::campaign::Status;
use crate::domain::stats::Totals;
use crate::store::{parsed, StoreError};

/// What the hourly sync needs of a stored copy.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncState {
    /// The copy's local revision (see [`local_revs`]).
    pub local_rev: i64,
    pub status: Status,
    pub tme_path: Option<String>,
    /// The lifetime counters as of the last hourly sync: the baseline of the next hour's gain
    /// (zeros for a copy never synced).
    pub mark: Totals,
    /// The switch, budget (micro-units) and decline columns stored.
    switch: (bool, i64, [Value; 2]),
}

impl SyncState {
    /// Whether a report line leaves the copy's wide row as it is: its switch, its decline
    /// reason and whether it has budget left (`campaigns.no_budget`), so that
    /// [`CounterWrites::apply`] writes its narrow row alone unless its status moved too.
    pub fn same_wide_row(&self, line: &AdCounters) -> bool {
        let (active, budget, decline) = switch_of(line);
        (self.switch.0, self.switch.1 == 0, &self.switch.2) == (active, budget == 0, &decline)
    }

    /// Whether a report line leaves the stored switch, budget and decline reason as they are,
    /// so that [`Reported::CountersOnly`] writes all it moved unless its status moved too.
    pub fn same_switch(&self, line: &AdCounters) -> bool {
        self.switch == switch_of(line)
    }
}

/// A report line's switch, budget (micro-units) and decline columns, as [`SyncState`] holds
/// the stored ones.
fn switch_of(line: &AdCounters) -> (bool, i64, [Value; 2]) {
    (
        line.active,
        line.budget.micros(),
        decline_columns(line.status, line.decline_reason.as_ref()),
    )
}

/// The [`SyncState`] of every stored copy of a cabinet, by `ad_id`: one read where the hourly
/// sync would otherwise ask once per campaign.
pub fn sync_states(conn: &Connection, account: i64) -> Result<HashMap<i64, SyncState>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT ad_id, status, tme_path, local_rev, mark_views, mark_opens, mark_clicks,
            mark_actions, mark_spent_micros, active, budget_micros, decline_reason,
            decline_description
         FROM {WITH_COUNTERS} WHERE account_id = ?1"
    ))?;
    let rows = stmt.query_map([account], |r| {
        let state = SyncState {
            status: parsed(r, 1, "campaigns.status", Status::parse)?,
            tme_path: r.get(2)?,
            local_rev: r.get(3)?,
            mark: crate::store::stats::totals_at(r, 4)?,
            switch: (r.get(9)?, r.get(10)?, [r.get(11)?, r.get(12)?]),
        };
        Ok((r.get(0)?, state))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The local revision of every stored copy of a cabinet, by `ad_id`: read before the hourly
/// sync asks for the platform's report, so the sync can tell which copies changed while the
/// report was on its way (see [`Reported::CountersOnly`]).
pub fn local_revs(conn: &Connection, account: i64) -> Result<HashMap<i64, i64>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT ad_id, local_rev FROM campaigns WHERE account_id = ?1")?;
    let rows = stmt.query_map([account], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How much of a report line [`CounterWrites::apply`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    /// The switch, the budget, the decline reason and the counters; the status too when it
    /// moved.
    State {
        status_moved: bool,
        /// The copy's wide row moves: see [`SyncState::same_wide_row`].
        wide_moved: bool,
    },
    /// The counters only: the copy changed after the report was read (a switch or a money move
    /// adcab made meanwhile), so its switch, budget and status are newer than the report's; or
    /// the report leaves them as stored ([`SyncState::same_switch`]), the hourly sync's common
    /// case, and the indexes over the budget are left alone.
    CountersOnly,
}

/// The statements of a report's line (see [`Reported`]): its figures into the copy's narrow row
/// (`campaign_counters`, the budget left too when ?9 is given), and its switch and decline
/// reason into the wide one (`campaigns`), with the status as well.
fn counter_sql() -> &'static [String; 4] {
    const FIGURES: &str = "spent_micros = ?3, views = ?4, opens = ?5, clicks = ?6,
        actions = ?7, mark_views = ?4, mark_opens = ?5, mark_clicks = ?6, mark_actions = ?7,
        mark_spent_micros = ?3, day_spend_micros = COALESCE(?8, day_spend_micros)";
    const MOVED: &str = "(spent_micros, views, opens, clicks, actions, mark_views, mark_opens,
        mark_clicks, mark_actions, mark_spent_micros, day_spend_micros)
        IS NOT (?3, ?4, ?5, ?6, ?7, ?4, ?5, ?6, ?7, ?3, COALESCE(?8, day_spend_micros))";
    const SWITCH: &str =
        "active = ?3, decline_reason = ?4, decline_description = ?5, no_budget = ?6";
    const WHERE: &str = "WHERE account_id = ?1 AND ad_id = ?2";
    static SQL: OnceLock<[String; 4]> = OnceLock::new();
    SQL.get_or_init(|| {
        [
            format!("UPDATE campaign_counters SET {FIGURES} {WHERE} AND {MOVED}"),
            format!(
                "UPDATE campaign_counters SET {FIGURES}, budget_micros = ?9 {WHERE}
                   AND ({MOVED} OR budget_micros IS NOT ?9)"
            ),
            format!(
                "UPDATE campaigns SET {SWITCH} {WHERE}
                   AND (active, decline_reason, decline_description, no_budget)
                       IS NOT (?3, ?4, ?5, ?6)"
            ),
            format!("UPDATE campaigns SET {SWITCH}, status = ?7, status_changed_at = ?8 {WHERE}"),
        ]
    })
}

/// Writes report lines into the stored copies, each of the three statements prepared the first
/// time a report's line needs it and kept for its other lines (a statement taken from the
/// connection's cache again for each line cost a hash of its text).
pub struct CounterWrites<'c> {
    conn: &'c Connection,
    prepared: [Option<CachedStatement<'c>>; 4],
}

impl<'c> CounterWrites<'c> {
    pub fn new(conn: &'c Connection) -> CounterWrites<'c> {
        CounterWrites {
            conn,
            prepared: [None, None, None, None],
        }
    }

    /// Brings a copy's counters in line with the platform's report and moves its mark to the
    /// reported counters, and its spend of the last 24 hours to `day_spend` (micro-units; see
    /// [`crate::store::stats::day_spends`]) when given, so its narrow row of figures is written
    /// once an hour; with [`Reported::State`] also its budget, switch and decline reason, and
    /// its status and `status_changed_at` when the status moved. The ad's settings are not
    /// part of it, so `synced_at` stays. The wide row is written only when its switch, decline
    /// reason, status or whether it has budget left (`no_budget`) moved, so the indexes over
    /// them are left alone otherwise; a row the report leaves as it is is not written at all.
    pub fn apply(
        &mut self,
        account: i64,
        c: &AdCounters,
        reported: Reported,
        day_spend: Option<i64>,
    ) -> Result<(), StoreError> {
        let (spent, status) = (c.spent.micros(), c.status.as_str());
        let budget = c.budget.micros();
        let figures: [&dyn ToSql; 9] = [
            &account, &c.ad_id, &spent, &c.views, &c.opens, &c.clicks, &c.actions, &day_spend,
            &budget,
        ];
        let Reported::State {
            status_moved,
            wide_moved,
        } = reported
        else {
            return self.execute(0, &figures[..8]);
        };
        self.execute(1, &figures)?;
        if !status_moved && !wide_moved {
            return Ok(());
        }
        let [reason, description] = decline_columns(c.status, c.decline_reason.as_ref());
        let no_budget = budget == 0;
        let mut switch: Vec<&dyn ToSql> = vec![
            &account,
            &c.ad_id,
            &c.active,
            &reason,
            &description,
            &no_budget,
        ];
        if status_moved {
            switch.extend([&status as &dyn ToSql, &c.status_changed_at]);
            self.execute(3, &switch)
        } else {
            self.execute(2, &switch)
        }
    }

    /// Runs statement `at` of [`counter_sql`], prepared the first time.
    fn execute(&mut self, at: usize, values: &[&dyn ToSql]) -> Result<(), StoreError> {
        crate::store::kept_statement(&mut self.prepared[at], self.conn, &counter_sql()[at])?
            .execute(values)?;
        Ok(())
    }
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
