//! Owns the comparison of each kept figure with its recomputation from the rows it stands for
//! (`adcab check --deep`): the status counts with the campaigns, the daily rows with the hours,
//! the weekly rows (their sums, and their spend per day apart) and the running sums with the
//! daily rows, the local weeks of the kept zone shifts with the hours, the cabinets' hours with
//! their campaigns' stats rows, the conversions' daily, weekly and hourly rows and the
//! campaigns' weekly conversions with the conversions, the stats rows' running sums with the
//! rows, the cabinets' last rolled-up day with their daily rows, the conversion totals with the
//! events still stored, each campaign's conversion lines with its totals, and the copies each
//! campaign's row and its row of figures keep of each other (its status, whether it has budget
//! left).
//! Reads only; names what differs.

use rusqlite::Connection;

use super::StoreError;

/// How many differing rows a figure names (all are counted).
const NAMED: i64 = 10;

/// One kept figure compared with its recomputation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    /// The kept table (or columns of it), its key in `adcab check --deep`'s answer.
    pub name: &'static str,
    /// What it was compared with, in words.
    pub against: &'static str,
    /// Kept rows (or keys) compared.
    pub rows: i64,
    /// How many differ.
    pub differing: i64,
    /// The first [`NAMED`] of them.
    pub differences: Vec<Difference>,
}

/// A row whose kept figure is not its recomputation: its key and both figures, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub key: String,
    pub kept: String,
    pub recomputed: String,
}

impl Figure {
    pub fn equal(&self) -> bool {
        self.differing == 0
    }
}

/// Every kept figure, compared.
pub fn check(conn: &Connection) -> Result<Vec<Figure>, StoreError> {
    Ok(vec![
        compare(
            conn,
            "cabinet_status_counts",
            "the campaigns counted by cabinet and status",
            STATUS_COUNTS,
        )?,
        compare(
            conn,
            "cabinet_days",
            "the cabinet_hours rows summed by cabinet and UTC day",
            CABINET_DAYS,
        )?,
        compare(
            conn,
            "cabinet_weeks",
            "the cabinet_days rows summed by cabinet and UTC week",
            CABINET_WEEKS,
        )?,
        compare(
            conn,
            "cabinet_weeks_spend_per_day",
            "cabinet_weeks' spent_mon to spent_sun against the cabinet_days rows' spend by \
             cabinet, UTC week and weekday",
            CABINET_WEEK_DAYS,
        )?,
        compare(
            conn,
            "cabinet_runs",
            "the cabinet_days rows summed by cabinet through each UTC day",
            CABINET_RUNS,
        )?,
        compare(
            conn,
            "cabinet_zone_weeks",
            "the cabinet_hours rows counted by kept zone shift, cabinet and local week, and \
             their spend summed by local day",
            CABINET_ZONE_WEEKS,
        )?,
        compare(
            conn,
            "cabinet_hours",
            "each cabinet's campaigns' stats rows (hourly and rolled-up) summed by UTC day",
            CABINET_HOURS,
        )?,
        compare(
            conn,
            "cabinet_conversion_days",
            "the conversions summed by cabinet, UTC day, event and currency",
            CONVERSION_DAYS,
        )?,
        compare(
            conn,
            "cabinet_conversion_weeks",
            "the conversions summed by cabinet, UTC week, event and currency",
            CONVERSION_WEEKS,
        )?,
        compare(
            conn,
            "cabinet_conversion_hours",
            "the conversions summed by cabinet, UTC hour, event and currency",
            CONVERSION_HOURS,
        )?,
        compare(
            conn,
            "campaign_conversion_weeks",
            "the conversions attributed to one campaign in their own row summed by cabinet, \
             campaign, UTC week and currency",
            CAMPAIGN_CONVERSION_WEEKS,
        )?,
        compare(
            conn,
            "stat_runs",
            "each campaign's hourly and daily stats summed in time order through each row",
            STAT_RUNS,
        )?,
        compare(
            conn,
            "cabinet_rolled_days",
            "each cabinet's latest rolled-up stats day: a kept day before it is a difference, one \
             after it is not (removing daily rows leaves the kept day)",
            ROLLED_DAYS,
        )?,
        compare(
            conn,
            "conversion_totals",
            "the conversions still stored per campaign, event and currency: a kept count below \
             them is wrong (retention removes events and keeps their totals, and which campaigns \
             lost events is not recorded, so a count above them is not a difference)",
            CONVERSION_TOTALS,
        )?,
        compare(
            conn,
            "campaign_conversion_lines",
            "each campaign's conversion_totals rows, as the view campaign_conversion_lines writes \
             them",
            CONVERSION_LINES,
        )?,
        compare(
            conn,
            "campaign_counters",
            "each campaign's number (campaign_counters.campaign_id), its status \
             (campaign_counters.listed_status) and whether it has no budget left \
             (campaigns.no_budget), kept in the other of its two rows, against that row's own; \
             a campaign with no row of figures, or figures with no campaign, is a difference",
            CAMPAIGN_COUNTERS,
        )?,
    ])
}

/// Each statement yields `key, kept, recomputed, differs` per compared row.
fn compare(
    conn: &Connection,
    name: &'static str,
    against: &'static str,
    sql: &str,
) -> Result<Figure, StoreError> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([])?;
    let mut figure = Figure {
        name,
        against,
        rows: 0,
        differing: 0,
        differences: Vec::new(),
    };
    while let Some(r) = rows.next()? {
        figure.rows += 1;
        if r.get::<_, bool>(3)? {
            figure.differing += 1;
            if figure.differing <= NAMED {
                figure.differences.push(Difference {
                    key: r.get(0)?,
                    kept: r.get(1)?,
                    recomputed: r.get(2)?,
                });
            }
        }
    }
    Ok(figure)
}

const STATUS_COUNTS: &str = "
    SELECT 'cabinet ' || account_id || ', ' || status, CAST(SUM(kept) AS TEXT),
        CAST(SUM(counted) AS TEXT), SUM(kept) <> SUM(counted)
    FROM (SELECT account_id, status, count AS kept, 0 AS counted FROM cabinet_status_counts
          UNION ALL
          SELECT account_id, status, 0, COUNT(*) FROM campaigns GROUP BY account_id, status)
    GROUP BY account_id, status ORDER BY account_id, status";

/// A table of a cabinet's stats kept per `$key` (named in a difference as `$named`), with how
/// many `$count` rows of `$rows` it sums, against those rows summed by `$of` (an expression
/// of their key).
macro_rules! stats_by {
    ($table:literal, $key:literal, $named:literal, $count:literal, $rows:literal, $of:literal) => {
        concat!(
            "
    SELECT 'cabinet ' || account_id || ",
            $named,
            ",
        SUM(k_n) || ' ",
            $count,
            ": ' || SUM(k_views) || ' views, ' || SUM(k_opens) || ' opens, '
            || SUM(k_clicks) || ' clicks, ' || SUM(k_actions) || ' actions, ' || SUM(k_spent)
            || ' spent micros',
        SUM(r_n) || ' ",
            $count,
            ": ' || SUM(r_views) || ' views, ' || SUM(r_opens) || ' opens, '
            || SUM(r_clicks) || ' clicks, ' || SUM(r_actions) || ' actions, ' || SUM(r_spent)
            || ' spent micros',
        SUM(k_n) <> SUM(r_n) OR SUM(k_views) <> SUM(r_views)
            OR SUM(k_opens) <> SUM(r_opens) OR SUM(k_clicks) <> SUM(r_clicks)
            OR SUM(k_actions) <> SUM(r_actions) OR SUM(k_spent) <> SUM(r_spent)
    FROM (SELECT account_id, ",
            $key,
            ", ",
            $count,
            " AS k_n, views AS k_views, opens AS k_opens,
            clicks AS k_clicks, actions AS k_actions, spent_micros AS k_spent, 0 AS r_n,
            0 AS r_views, 0 AS r_opens, 0 AS r_clicks, 0 AS r_actions, 0 AS r_spent
          FROM ",
            $table,
            "
          UNION ALL
          SELECT account_id, ",
            $of,
            ", 0, 0, 0, 0, 0, 0, COUNT(*), SUM(views),
            SUM(opens), SUM(clicks), SUM(actions), SUM(spent_micros)
          FROM ",
            $rows,
            " GROUP BY account_id, ",
            $of,
            ")
    GROUP BY account_id, ",
            $key,
            " ORDER BY account_id, ",
            $key
        )
    };
}

const CABINET_DAYS: &str = stats_by!(
    "cabinet_days",
    "day",
    "', ' || day",
    "hours",
    "cabinet_hours",
    "substr(hour, 1, 10)"
);

const CABINET_WEEKS: &str = stats_by!(
    "cabinet_weeks",
    "week",
    "', week of ' || week",
    "days",
    "cabinet_days",
    "date(day, '-6 days', 'weekday 1')"
);

/// The spend of rows summed by the weekday of their `day`, Monday to Sunday: seven columns, as
/// the weekly rows keep them (the UTC weeks' and the zones' local weeks' checks).
macro_rules! spent_by_weekday {
    () => {
        "SUM(CASE strftime('%u', day) WHEN '1' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '2' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '3' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '4' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '5' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '6' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '7' THEN spent_micros ELSE 0 END)"
    };
}

/// The weekly rows' spend per day of their week (schema 65) against the daily rows' spend, by
/// cabinet, UTC week and weekday.
const CABINET_WEEK_DAYS: &str = concat!(
    "
    SELECT 'cabinet ' || account_id || ', week of ' || week,
        SUM(k_mon) || ', ' || SUM(k_tue) || ', ' || SUM(k_wed) || ', ' || SUM(k_thu) || ', '
            || SUM(k_fri) || ', ' || SUM(k_sat) || ', ' || SUM(k_sun)
            || ' spent micros, Monday to Sunday',
        SUM(r_mon) || ', ' || SUM(r_tue) || ', ' || SUM(r_wed) || ', ' || SUM(r_thu) || ', '
            || SUM(r_fri) || ', ' || SUM(r_sat) || ', ' || SUM(r_sun)
            || ' spent micros, Monday to Sunday',
        SUM(k_mon) <> SUM(r_mon) OR SUM(k_tue) <> SUM(r_tue) OR SUM(k_wed) <> SUM(r_wed)
            OR SUM(k_thu) <> SUM(r_thu) OR SUM(k_fri) <> SUM(r_fri) OR SUM(k_sat) <> SUM(r_sat)
            OR SUM(k_sun) <> SUM(r_sun)
    FROM (SELECT account_id, week, spent_mon AS k_mon, spent_tue AS k_tue,
            spent_wed AS k_wed, spent_thu AS k_thu, spent_fri AS k_fri, spent_sat AS k_sat,
            spent_sun AS k_sun,
            0 AS r_mon, 0 AS r_tue, 0 AS r_wed, 0 AS r_thu, 0 AS r_fri, 0 AS r_sat, 0 AS r_sun
          FROM cabinet_weeks
          UNION ALL
          SELECT account_id, date(day, '-6 days', 'weekday 1'), 0, 0, 0, 0, 0, 0, 0,
            ",
    spent_by_weekday!(),
    "
          FROM cabinet_days GROUP BY account_id, date(day, '-6 days', 'weekday 1'))
    GROUP BY account_id, week ORDER BY account_id, week"
);

/// The cabinets' running sums (schema 66) against their daily rows summed through each day.
const CABINET_RUNS: &str = "
    SELECT 'cabinet ' || account_id || ', through ' || day,
        SUM(k_views) || ' views, ' || SUM(k_opens) || ' opens, ' || SUM(k_clicks) || ' clicks, '
            || SUM(k_actions) || ' actions, ' || SUM(k_spent) || ' spent micros',
        SUM(r_views) || ' views, ' || SUM(r_opens) || ' opens, ' || SUM(r_clicks) || ' clicks, '
            || SUM(r_actions) || ' actions, ' || SUM(r_spent) || ' spent micros',
        SUM(k_views) <> SUM(r_views) OR SUM(k_opens) <> SUM(r_opens)
            OR SUM(k_clicks) <> SUM(r_clicks) OR SUM(k_actions) <> SUM(r_actions)
            OR SUM(k_spent) <> SUM(r_spent) OR SUM(k_n) <> 1 OR SUM(r_n) <> 1
    FROM (SELECT account_id, day, 1 AS k_n, views AS k_views, opens AS k_opens,
            clicks AS k_clicks, actions AS k_actions, spent_micros AS k_spent, 0 AS r_n,
            0 AS r_views, 0 AS r_opens, 0 AS r_clicks, 0 AS r_actions, 0 AS r_spent
          FROM cabinet_runs
          UNION ALL
          SELECT account_id, day, 0, 0, 0, 0, 0, 0, 1, SUM(views) OVER through,
            SUM(opens) OVER through, SUM(clicks) OVER through, SUM(actions) OVER through,
            SUM(spent_micros) OVER through
          FROM cabinet_days
          WINDOW through AS (PARTITION BY account_id ORDER BY day ROWS UNBOUNDED PRECEDING))
    GROUP BY account_id, day ORDER BY account_id, day";

/// The cabinets' local weeks of each kept shift (schema 67) against their hours counted by the
/// week of the local day each starts in, and their spend summed by that day.
const CABINET_ZONE_WEEKS: &str = concat!(
    "
    SELECT 'shift ' || shift || ', cabinet ' || account_id || ', week of ' || week,
        SUM(k_n) || ' hours, spent micros ' || SUM(k_1) || ' ' || SUM(k_2) || ' ' || SUM(k_3)
            || ' ' || SUM(k_4) || ' ' || SUM(k_5) || ' ' || SUM(k_6) || ' ' || SUM(k_7),
        SUM(r_n) || ' hours, spent micros ' || SUM(r_1) || ' ' || SUM(r_2) || ' ' || SUM(r_3)
            || ' ' || SUM(r_4) || ' ' || SUM(r_5) || ' ' || SUM(r_6) || ' ' || SUM(r_7),
        SUM(k_n) <> SUM(r_n) OR SUM(k_1) <> SUM(r_1) OR SUM(k_2) <> SUM(r_2)
            OR SUM(k_3) <> SUM(r_3) OR SUM(k_4) <> SUM(r_4) OR SUM(k_5) <> SUM(r_5)
            OR SUM(k_6) <> SUM(r_6) OR SUM(k_7) <> SUM(r_7)
    FROM (SELECT shift, account_id, week, hours AS k_n, spent_mon AS k_1, spent_tue AS k_2,
            spent_wed AS k_3, spent_thu AS k_4, spent_fri AS k_5, spent_sat AS k_6,
            spent_sun AS k_7, 0 AS r_n, 0 AS r_1, 0 AS r_2, 0 AS r_3, 0 AS r_4, 0 AS r_5,
            0 AS r_6, 0 AS r_7
          FROM cabinet_zone_weeks
          UNION ALL
          SELECT shift, account_id, date(day, '-6 days', 'weekday 1'), 0, 0, 0, 0, 0, 0, 0, 0,
            COUNT(*), ",
    spent_by_weekday!(),
    "
          FROM (SELECT s.shift, h.account_id, h.spent_micros,
                    date(h.hour, -s.shift || ' minutes') AS day
                FROM zone_shifts s, cabinet_hours h)
          WHERE day IS NOT NULL
          GROUP BY shift, account_id, date(day, '-6 days', 'weekday 1'))
    GROUP BY shift, account_id, week ORDER BY shift, account_id, week"
);

const CABINET_HOURS: &str = "
    SELECT 'cabinet ' || account_id || ', ' || day,
        SUM(k_views) || ' views, ' || SUM(k_opens) || ' opens, ' || SUM(k_clicks) || ' clicks, '
            || SUM(k_actions) || ' actions, ' || SUM(k_spent) || ' spent micros',
        SUM(c_views) || ' views, ' || SUM(c_opens) || ' opens, ' || SUM(c_clicks) || ' clicks, '
            || SUM(c_actions) || ' actions, ' || SUM(c_spent) || ' spent micros',
        SUM(k_views) <> SUM(c_views) OR SUM(k_opens) <> SUM(c_opens)
            OR SUM(k_clicks) <> SUM(c_clicks) OR SUM(k_actions) <> SUM(c_actions)
            OR SUM(k_spent) <> SUM(c_spent)
    FROM (SELECT account_id, day, views AS k_views, opens AS k_opens, clicks AS k_clicks,
            actions AS k_actions, spent_micros AS k_spent, 0 AS c_views, 0 AS c_opens,
            0 AS c_clicks, 0 AS c_actions, 0 AS c_spent
          FROM cabinet_days
          UNION ALL
          SELECT account_id, substr(hour, 1, 10), 0, 0, 0, 0, 0, SUM(views), SUM(opens),
            SUM(clicks), SUM(actions), SUM(spent_micros)
          FROM hourly_stats GROUP BY account_id, substr(hour, 1, 10)
          UNION ALL
          SELECT account_id, day, 0, 0, 0, 0, 0, SUM(views), SUM(opens), SUM(clicks),
            SUM(actions), SUM(spent_micros)
          FROM daily_stats GROUP BY account_id, day)
    GROUP BY account_id, day ORDER BY account_id, day";

/// A table of conversions kept per cabinet, `$key` (a column holding `$of`, an expression of
/// `received_at`), event and currency, against the conversions summed the same way.
macro_rules! conversions_by {
    ($table:literal, $key:literal, $of:literal) => {
        concat!(
            "
    SELECT 'cabinet ' || account_id || ', ' || ",
            $key,
            " || ', ' || event_type
            || CASE currency WHEN '' THEN '' ELSE ', ' || currency END,
        SUM(k_count) || ' conversions, ' || SUM(k_priced) || ' with amounts: '
            || SUM(k_high) || ' x 10^9 + ' || SUM(k_low) || ' micros',
        SUM(c_count) || ' conversions, ' || SUM(c_priced) || ' with amounts: '
            || SUM(c_high) || ' x 10^9 + ' || SUM(c_low) || ' micros',
        SUM(k_count) <> SUM(c_count) OR SUM(k_priced) <> SUM(c_priced)
            OR SUM(k_high) <> SUM(c_high) OR SUM(k_low) <> SUM(c_low)
    FROM (SELECT account_id, ",
            $key,
            ", event_type, currency, count AS k_count, priced AS k_priced,
            amount_high AS k_high, amount_low AS k_low, 0 AS c_count, 0 AS c_priced,
            0 AS c_high, 0 AS c_low
          FROM ",
            $table,
            "
          UNION ALL
          SELECT account_id, ",
            $of,
            ", event_type, COALESCE(currency, ''), 0, 0, 0, 0,
            COUNT(*), COUNT(amount_micros), COALESCE(SUM(amount_micros / 1000000000), 0),
            COALESCE(SUM(amount_micros % 1000000000), 0)
          FROM conversions
          GROUP BY account_id, ",
            $of,
            ", event_type, COALESCE(currency, ''))
    GROUP BY account_id, ",
            $key,
            ", event_type, currency ORDER BY account_id, ",
            $key,
            ", event_type, currency"
        )
    };
}

const CONVERSION_DAYS: &str = conversions_by!(
    "cabinet_conversion_days",
    "day",
    "substr(received_at, 1, 10)"
);

const CONVERSION_WEEKS: &str = conversions_by!(
    "cabinet_conversion_weeks",
    "week",
    "date(substr(received_at, 1, 10), '-6 days', 'weekday 1')"
);

const CONVERSION_HOURS: &str = conversions_by!(
    "cabinet_conversion_hours",
    "hour",
    "substr(received_at, 1, 13) || ':00:00Z'"
);

const CAMPAIGN_CONVERSION_WEEKS: &str = "
    SELECT 'cabinet ' || account_id || ', campaign ' || ad_id || ', ' || week
            || CASE currency WHEN '' THEN '' ELSE ', ' || currency END,
        SUM(k_count) || ' conversions: ' || SUM(k_high) || ' x 10^9 + ' || SUM(k_low)
            || ' micros',
        SUM(c_count) || ' conversions: ' || SUM(c_high) || ' x 10^9 + ' || SUM(c_low)
            || ' micros',
        SUM(k_count) <> SUM(c_count) OR SUM(k_high) <> SUM(c_high) OR SUM(k_low) <> SUM(c_low)
    FROM (SELECT account_id, ad_id, week, currency, count AS k_count, amount_high AS k_high,
            amount_low AS k_low, 0 AS c_count, 0 AS c_high, 0 AS c_low
          FROM campaign_conversion_weeks
          UNION ALL
          SELECT account_id, ad_id, date(substr(received_at, 1, 10), '-6 days', 'weekday 1'),
            COALESCE(currency, ''), 0, 0, 0, COUNT(*),
            COALESCE(SUM(amount_micros / 1000000000), 0),
            COALESCE(SUM(amount_micros % 1000000000), 0)
          FROM conversions WHERE ad_id IS NOT NULL
          GROUP BY 1, 2, 3, 4)
    GROUP BY account_id, ad_id, week, currency ORDER BY account_id, ad_id, week, currency";

const STAT_RUNS: &str = "
    SELECT 'cabinet ' || account_id || ', campaign ' || ad_id || ', '
            || replace(k, 'T24:00:00Z', ''),
        k_views || ' views, ' || k_opens || ' opens, ' || k_clicks || ' clicks, '
            || k_actions || ' actions, ' || k_spent || ' spent micros',
        r_views || ' views, ' || r_opens || ' opens, ' || r_clicks || ' clicks, '
            || r_actions || ' actions, ' || r_spent || ' spent micros',
        k_views <> r_views OR k_opens <> r_opens OR k_clicks <> r_clicks
            OR k_actions <> r_actions OR k_spent <> r_spent
    FROM (SELECT account_id, ad_id, k, k_views, k_opens, k_clicks, k_actions, k_spent,
            SUM(views) OVER w AS r_views, SUM(opens) OVER w AS r_opens,
            SUM(clicks) OVER w AS r_clicks, SUM(actions) OVER w AS r_actions,
            SUM(spent_micros) OVER w AS r_spent
          FROM (SELECT account_id, ad_id, hour AS k, views, opens, clicks, actions,
                    spent_micros, run_views AS k_views, run_opens AS k_opens,
                    run_clicks AS k_clicks, run_actions AS k_actions,
                    run_spent_micros AS k_spent
                FROM hourly_stats
                UNION ALL
                SELECT account_id, ad_id, day || 'T24:00:00Z', views, opens, clicks, actions,
                    spent_micros, run_views, run_opens, run_clicks, run_actions,
                    run_spent_micros
                FROM daily_stats)
          WINDOW w AS (PARTITION BY account_id, ad_id ORDER BY k ROWS UNBOUNDED PRECEDING))
    ORDER BY account_id, ad_id, k";

const ROLLED_DAYS: &str = "
    SELECT 'cabinet ' || d.account_id, COALESCE(k.last_day, 'none'), d.last_day,
        k.last_day IS NULL OR k.last_day < d.last_day
    FROM (SELECT account_id, MAX(day) AS last_day FROM daily_stats GROUP BY account_id) d
    LEFT JOIN cabinet_rolled_days k ON k.account_id = d.account_id
    ORDER BY d.account_id";

const CONVERSION_TOTALS: &str = "
    SELECT 'cabinet ' || account_id || ', campaign ' || ad_id || ', ' || event_type
            || CASE currency WHEN '' THEN '' ELSE ', ' || currency END,
        CAST(SUM(kept) AS TEXT), CAST(SUM(stored) AS TEXT), SUM(kept) < SUM(stored)
    FROM (SELECT account_id, ad_id, event_type, currency, count AS kept, 0 AS stored
          FROM conversion_totals
          UNION ALL
          SELECT account_id, ad_id, event_type, COALESCE(currency, ''), 0, 1
          FROM conversions WHERE ad_id IS NOT NULL
          UNION ALL
          SELECT a.account_id, a.ad_id, c.event_type, COALESCE(c.currency, ''), 0, 1
          FROM conversion_campaigns a JOIN conversions c ON c.id = a.conversion_id)
    GROUP BY account_id, ad_id, event_type, currency ORDER BY account_id, ad_id";

/// Every campaign's lines (`campaigns.conversion_lines`, migration 60) against the view: the
/// view is grouped once and joined, never read per campaign.
const CONVERSION_LINES: &str = "
    SELECT 'cabinet ' || c.account_id || ', campaign ' || c.ad_id,
        COALESCE(c.conversion_lines, 'none'), COALESCE(v.lines, 'none'),
        c.conversion_lines IS NOT v.lines
    FROM campaigns c LEFT JOIN campaign_conversion_lines v
        ON v.account_id = c.account_id AND v.ad_id = c.ad_id
    ORDER BY c.account_id, c.ad_id";

/// Each campaign's two rows (migration 68; the number, 72) joined whole, once: what each keeps
/// of the other.
const CAMPAIGN_COUNTERS: &str = "
    SELECT 'cabinet ' || account_id || ', campaign ' || ad_id, kept, recomputed,
        kept <> recomputed
    FROM (SELECT COALESCE(c.account_id, k.account_id) AS account_id,
            COALESCE(c.ad_id, k.ad_id) AS ad_id,
            COALESCE('number ' || k.campaign_id || ', status ' || k.listed_status,
                    'no row of figures') || ', '
                || COALESCE('no budget ' || c.no_budget, 'no campaign') AS kept,
            COALESCE('number ' || c.id || ', status ' || c.status, 'no campaign') || ', '
                || COALESCE('no budget ' || (k.budget_micros = 0), 'no row of figures')
                AS recomputed
          FROM campaigns c FULL JOIN campaign_counters k
            ON k.account_id = c.account_id AND k.ad_id = c.ad_id)
    ORDER BY account_id, ad_id";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_db;

    #[test]
    fn each_campaigns_two_rows_keep_each_others_number_status_and_budget_through_their_writes() {
        let conn = test_db();
        for ad in 1..=3 {
            crate::store::test_campaign(&conn, 7, ad);
        }
        conn.execute(
            "UPDATE campaigns SET status = 'Stopped' WHERE ad_id = 1",
            [],
        )
        .unwrap();
        crate::store::campaigns::mark_deleted(&conn, 7, 2, "2026-01-02T00:00:00Z").unwrap();
        let kept: Vec<(String, bool)> = conn
            .prepare(
                "SELECT listed_status, no_budget FROM campaigns
                 JOIN campaign_counters USING (account_id, ad_id) ORDER BY ad_id",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let row = |status: &str, none: bool| (status.to_string(), none);
        assert_eq!(
            kept,
            vec![
                row("Stopped", false),
                row("Deleted", true),
                row("active", false)
            ]
        );
        let found = figure(&check(&conn).unwrap(), "campaign_counters").clone();
        assert_eq!((found.rows, found.differing), (3, 0));

        // Written past the triggers: a copy that no longer matches, a missing row, and a row
        // of figures holding another campaign's number.
        conn.execute_batch(
            "UPDATE campaigns SET no_budget = 1 WHERE ad_id = 3;
             DELETE FROM campaign_counters WHERE ad_id = 1;
             UPDATE campaign_counters SET campaign_id = campaign_id + 1 WHERE ad_id = 2;",
        )
        .unwrap();
        let number = |ad: i64| -> i64 {
            conn.query_row("SELECT id FROM campaigns WHERE ad_id = ?1", [ad], |r| {
                r.get(0)
            })
            .unwrap()
        };
        let found = figure(&check(&conn).unwrap(), "campaign_counters").clone();
        assert_eq!((found.rows, found.differing), (3, 3));
        assert_eq!(
            found.differences[0],
            Difference {
                key: "cabinet 7, campaign 1".into(),
                kept: "no row of figures, no budget 0".into(),
                recomputed: format!("number {}, status Stopped, no row of figures", number(1)),
            }
        );
        let (two, three) = (number(2), number(3));
        assert_eq!(
            found.differences[1].kept,
            format!("number {}, status Deleted, no budget 1", two + 1)
        );
        assert_eq!(
            found.differences[1].recomputed,
            format!("number {two}, status Deleted, no budget 1")
        );
        assert_eq!(
            found.differences[2].kept,
            format!("number {three}, status active, no budget 1")
        );
        assert_eq!(
            found.differences[2].recomputed,
            format!("number {three}, status active, no budget 0")
        );
    }

    fn figure<'a>(figures: &'a [Figure], name: &str) -> &'a Figure {
        figures.iter().find(|f| f.name == name).expect("the figure")
    }

    #[test]
    fn a_cabinets_hours_sum_its_campaigns_rows_after_the_repair_and_a_rolled_days_correction() {
        let conn = test_db();
        // Days rolled up before the cabinet's hours existed: none of theirs.
        conn.execute_batch(
            "INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions,
                spent_micros) VALUES (7, 1, '2026-01-05', 100, 0, 3, 1, 5000),
                (7, 2, '2026-01-05', 50, 0, 1, 0, 700), (7, 1, '2026-01-06', 10, 0, 0, 0, 9);
             INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions,
                spent_micros) VALUES (7, 1, '2026-02-01T10:00:00Z', 4, 0, 1, 0, 40);
             INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
                 VALUES (7, '2026-02-01T10:00:00Z', 4, 1, 0, 40);",
        )
        .unwrap();
        let hours = figure(&check(&conn).unwrap(), "cabinet_hours").clone();
        assert_eq!((hours.rows, hours.differing), (3, 2));
        assert_eq!(hours.differences[0].key, "cabinet 7, 2026-01-05");

        conn.execute_batch(include_str!(
            "../../sql/0050_cabinet_hours_of_rolled_days.sql"
        ))
        .unwrap();
        assert!(figure(&check(&conn).unwrap(), "cabinet_hours").equal());
        let noon: i64 = conn
            .query_row(
                "SELECT views FROM cabinet_hours WHERE hour = '2026-01-05T12:00:00Z'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(noon, 150);

        // A month's correction that lands in a rolled-up day moves the cabinet's hours too.
        let delta = super::super::reconcile::Delta {
            views: -30,
            clicks: 2,
            spent_micros: 1000,
        };
        let corrected = super::super::reconcile::correct(
            &conn,
            (7, 2),
            ("2026-01-01T00:00:00Z", "2026-01-31T00:00:00Z"),
            "2026-01-30T23:00:00Z",
            delta,
        )
        .unwrap();
        assert_eq!(corrected.days.len(), 1);
        for (day, moved) in &corrected.days {
            super::super::stats::shift_cabinet_day(&conn, 7, day, moved).unwrap();
        }
        let figures = check(&conn).unwrap();
        assert!(figure(&figures, "cabinet_hours").equal());
        assert!(figure(&figures, "cabinet_days").equal());
        assert!(figure(&figures, "stat_runs").equal());
    }

    #[test]
    fn kept_days_follow_their_hours_and_a_changed_row_is_named() {
        let conn = test_db();
        conn.execute_batch(
            "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
                spent_micros) VALUES (7, '2026-11-26T22:00:00Z', 1, 1, 0, 0, 1000000),
                (7, '2026-11-26T23:00:00Z', 2, 2, 1, 0, 2000000),
                (7, '2026-11-27T00:00:00Z', 4, 3, 0, 1, 4000000);
             UPDATE cabinet_hours SET views = 9, opens = 7, spent_micros = 5
                WHERE hour = '2026-11-26T23:00:00Z';
             UPDATE cabinet_hours SET hour = '2026-11-28T01:00:00Z' WHERE hour = '2026-11-27T00:00:00Z';
             DELETE FROM cabinet_hours WHERE hour = '2026-11-26T22:00:00Z';",
        )
        .unwrap();
        let days: Vec<(String, i64, i64, i64, i64)> = conn
            .prepare("SELECT day, hours, views, opens, spent_micros FROM cabinet_days ORDER BY day")
            .unwrap()
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            days,
            vec![
                ("2026-11-26".to_string(), 1, 9, 7, 5),
                ("2026-11-28".to_string(), 1, 4, 3, 4_000_000)
            ]
        );
        assert!(figure(&check(&conn).unwrap(), "cabinet_days").equal());

        conn.execute(
            "UPDATE cabinet_days SET views = views + 1 WHERE day = '2026-11-28'",
            [],
        )
        .unwrap();
        let days = figure(&check(&conn).unwrap(), "cabinet_days").clone();
        assert_eq!((days.rows, days.differing), (2, 1));
        assert_eq!(days.differences[0].key, "cabinet 7, 2026-11-28");
    }
}
