//! Owns scheduled client reports: when each cabinet's report is due (weekly: the previous
//! Monday to Sunday, from Monday on; monthly: the previous calendar month, from the 1st on;
//! days in the owner's time zone, UTC when none is kept), recording it once per period with
//! the signed `report` webhook event and its figures, and sending its PDF (in the owner's
//! language) to the cabinet's Telegram chat with `sendDocument`: a failed send is tried again
//! at a later tick, a sent one never again, across restarts. The report is the client report
//! of `ops::reports` over the period's days in that zone: the event's figures are its figures
//! and the PDF is its PDF, as the panel's `?format=pdf` gives it for the same days.

use std::time::Duration;

use chrono::{DateTime, Datelike, Days, NaiveDate, Utc};
use chrono_tz::Tz;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::clock;
use crate::db::{self, Panicked};
use crate::domain::agency::ReportSchedule;
use crate::domain::stats::number;
use crate::i18n::{Arg, Lang};
use crate::jobs::notify;
use crate::ops::reports::{self as client, midnight, Figures, Reader, Report, Span};
use crate::ops::OpsError;
use crate::pdf::PdfError;
use crate::primitives::unix_now;
use crate::services::Services;
use crate::store::alerts::Outcome as BotOutcome;
use crate::store::report_sends::{self, New, Outcome, Send};
use crate::store::reports as report_rows;
use crate::store::StoreError;
use crate::webhooks::events;

/// How often the job looks for due reports.
const IDLE: Duration = Duration::from_secs(1);
/// Sends taken per tick.
const BATCH: usize = 10;
/// How long a send is held by the tick that took it (service-clock seconds): one cut short by
/// a crash is taken again after this.
const LEASE: i64 = 600;
/// Attempts of a report that could not be composed before it is given up.
const ATTEMPTS: i64 = 5;

/// A report's period: its schedule and first and last day in `zone`.
#[derive(Debug, Clone, PartialEq)]
pub struct Period {
    pub schedule: ReportSchedule,
    pub first: NaiveDate,
    pub last: NaiveDate,
    pub zone: Tz,
}

impl Period {
    /// The last whole period before `today`: the previous Monday to Sunday, or the previous
    /// calendar month.
    pub fn last_before(schedule: ReportSchedule, zone: Tz, today: NaiveDate) -> Period {
        let (first, last) = match schedule {
            ReportSchedule::Weekly => {
                let since_monday = u64::from(today.weekday().num_days_from_monday());
                let monday = today - Days::new(since_monday);
                (monday - Days::new(7), monday - Days::new(1))
            }
            ReportSchedule::Monthly => {
                let this_month = today.with_day(1).unwrap_or(today);
                let last = this_month - Days::new(1);
                (last.with_day(1).unwrap_or(last), last)
            }
        };
        Period {
            schedule,
            first,
            last,
            zone,
        }
    }

    /// The period due at `now` for a cabinet whose owner keeps `zone`.
    pub fn due_at(schedule: ReportSchedule, zone: Tz, now: DateTime<Utc>) -> Period {
        Period::last_before(schedule, zone, now.with_timezone(&zone).date_naive())
    }

    /// The period's days in its zone, as the client report reads them.
    pub fn days(&self) -> Result<Span, ReportError> {
        Ok(Span::new(self.first, self.last)
            .map_err(ReportError::Report)?
            .in_zone(self.zone))
    }

    /// Where the period starts and ends in UTC: `[start, end)` as stats are kept.
    pub fn span(&self) -> (String, String) {
        let next = self.last + Days::new(1);
        (
            clock::iso(midnight(self.zone, self.first)),
            clock::iso(midnight(self.zone, next)),
        )
    }

    /// The PDF's file name: `report-2026-11-16.pdf` for a week, `report-2026-11.pdf` for a
    /// month.
    pub fn filename(&self) -> String {
        match self.schedule {
            ReportSchedule::Weekly => format!("report-{}.pdf", self.first.format("%Y-%m-%d")),
            ReportSchedule::Monthly => format!("report-{}.pdf", self.first.format("%Y-%m")),
        }
    }
}

/// Why a tick or a report failed.
#[derive(Debug)]
pub enum ReportError {
    Store(StoreError),
    /// The client report could not be built.
    Report(OpsError),
    Pdf(PdfError),
    Panicked(Panicked),
    UnknownCabinet(i64),
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::Store(e) => write!(f, "{e}"),
            ReportError::Report(e) => write!(f, "the client report: {e:?}"),
            ReportError::Pdf(e) => write!(f, "{e}"),
            ReportError::Panicked(e) => write!(f, "{e}"),
            ReportError::UnknownCabinet(id) => write!(f, "cabinet {id} is not known"),
        }
    }
}

impl std::error::Error for ReportError {}

impl From<StoreError> for ReportError {
    fn from(e: StoreError) -> Self {
        ReportError::Store(e)
    }
}

impl From<Panicked> for ReportError {
    fn from(e: Panicked) -> Self {
        ReportError::Panicked(e)
    }
}

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Ticked {
    /// Periods newly recorded (each with its `report` event).
    pub recorded: usize,
    /// Sends attempted (sent or not).
    pub attempted: usize,
}

/// Records and sends due reports until `stop` turns true.
pub async fn run(services: Services, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        if let Err(e) = tick(&services).await {
            tracing::error!(error = %e, "scheduled reports");
        }
        tokio::select! {
            _ = tokio::time::sleep(IDLE) => {}
            _ = stop.changed() => {}
        }
    }
}

/// One look: records each cabinet's newly due period (with its `report` event), then sends
/// the reports whose time has come.
pub async fn tick(s: &Services) -> Result<Ticked, ReportError> {
    let has_bot = !s.config.notify.bot_token.is_empty();
    let (now, missing) =
        s.db.read(move |c| {
            let now = clock::now(c)?;
            let mut missing = Vec::new();
            for cab in report_sends::scheduled(c)? {
                let zone = cab.time_zone.unwrap_or(Tz::UTC);
                let period = Period::due_at(cab.schedule, zone, now);
                let first = period.first.to_string();
                if !report_sends::exists(c, cab.account_id, cab.schedule, &first)? {
                    missing.push((cab, period));
                }
            }
            Ok::<_, StoreError>((now, missing))
        })
        .await?;
    let mut ticked = Ticked::default();
    for (cab, period) in missing {
        let recorded =
            s.db.write(move |tx| {
                let (first, last) = (period.first.to_string(), period.last.to_string());
                let new = New {
                    account_id: cab.account_id,
                    schedule: cab.schedule,
                    first_day: &first,
                    last_day: &last,
                    language: cab.language.unwrap_or(Lang::En),
                    time_zone: period.zone,
                    chat_id: cab.telegram_chat.filter(|_| has_bot),
                    next_at: now.timestamp(),
                };
                if !report_sends::insert_new(tx, &new, &clock::iso(now))? {
                    return Ok(false);
                }
                let report = content(tx, cab.account_id, &period)?;
                events::queue_report(tx, cab.account_id, &event(&report, &period))?;
                Ok::<_, ReportError>(true)
            })
            .await?;
        if recorded {
            tracing::info!(account = cab.account_id, "scheduled report recorded");
            ticked.recorded += 1;
        }
    }
    let now_unix = now.timestamp();
    let due =
        s.db.read(move |c| report_sends::due(c, now_unix, BATCH))
            .await?;
    for send in due {
        let taken = send.clone();
        let took =
            s.db.write(move |tx| report_sends::take(tx, &taken, now_unix + LEASE))
                .await?;
        if !took {
            continue;
        }
        let services = s.clone();
        db::blocking(move || deliver(&services, &send, now)).await??;
        ticked.attempted += 1;
    }
    Ok(ticked)
}

/// One attempt of a taken send: composes the report, sends its PDF, records the outcome.
/// Blocking.
fn deliver(s: &Services, send: &Send, now: DateTime<Utc>) -> Result<(), ReportError> {
    let outcome = match attempt(s, send, now) {
        Ok(o) => o,
        Err(e) => {
            tracing::error!(error = %e, send = send.id, "scheduled report not composed");
            if send.attempts + 1 >= ATTEMPTS {
                Outcome::Failed("the report could not be composed".into())
            } else {
                Outcome::Retry {
                    next_at: now.timestamp() + 60,
                    why: "the report could not be composed".into(),
                }
            }
        }
    };
    match &outcome {
        Outcome::Sent => tracing::info!(send = send.id, "scheduled report sent"),
        Outcome::Retry { why, .. } => tracing::warn!(send = send.id, why, "report send retried"),
        Outcome::Failed(why) => tracing::warn!(send = send.id, why, "report send given up"),
    }
    let (id, at) = (send.id, clock::iso(now));
    Ok(s.db.write_blocking(|tx| report_sends::record(tx, id, &outcome, &at))?)
}

/// Builds the report, renders its PDF and sends it; what the Bot API's answer means for the
/// send.
fn attempt(s: &Services, send: &Send, now: DateTime<Utc>) -> Result<Outcome, ReportError> {
    let config = &s.config.notify;
    let Some(chat) = send.chat_id else {
        return Ok(Outcome::Failed("the report has no chat".into()));
    };
    if config.bot_token.is_empty() {
        return Ok(Outcome::Failed("no bot token is configured".into()));
    }
    let first = parse_day(&send.first_day)?;
    let last = parse_day(&send.last_day)?;
    let period = Period {
        schedule: send.schedule,
        first,
        last,
        zone: send.time_zone,
    };
    let account = send.account_id;
    let read = period.clone();
    let (report, logo) = s.db.read_blocking(move |c| {
        let report = content(c, account, &read)?;
        let logo = match report.agency.has_logo {
            true => report_rows::logo(c, report.agency.owner_id)?,
            false => None,
        };
        Ok::<_, ReportError>((report, logo))
    })?;
    let lang = send.language;
    let pdf = client::pdf::render(&report, lang, logo.map(|(_, bytes)| bytes))
        .map_err(ReportError::Pdf)?;
    let caption = caption(&report, lang);
    let doc = notify::Document {
        chat_id: chat,
        filename: &period.filename(),
        content_type: "application/pdf",
        caption: &caption,
        bytes: &pdf,
    };
    Ok(match notify::send_document(config, &doc, send.attempts) {
        BotOutcome::Sent => Outcome::Sent,
        // The Bot API's pause is real time; the send's time is the service clock's.
        BotOutcome::Retry { next_at, why } => Outcome::Retry {
            next_at: now.timestamp() + (next_at - unix_now() as i64).max(1),
            why,
        },
        BotOutcome::Undeliverable(why) => {
            let account = send.account_id;
            s.db.write_blocking(|tx| report_sends::forget_chat(tx, account, chat))?;
            Outcome::Failed(why)
        }
        BotOutcome::Failed(why) => Outcome::Failed(why),
    })
}

/// The client report of the cabinet over `period`, read for its owner.
pub fn content(conn: &Connection, account: i64, period: &Period) -> Result<Report, ReportError> {
    let reader = Reader::scheduled(conn, account)
        .map_err(ReportError::Report)?
        .ok_or(ReportError::UnknownCabinet(account))?;
    client::build(conn, &reader, period.days()?, None).map_err(ReportError::Report)
}

/// The `report` event's figures: the report's, money as numbers in the cabinet's currency
/// (like `hourly_digest`), CTR and CPM at two decimals (0 without views).
pub fn event(report: &Report, period: &Period) -> Value {
    let two = |d: Option<Decimal>| number(d.unwrap_or_default().round_dp(2));
    let maybe = |d: Option<Decimal>| d.map_or(Value::Null, number);
    let line = |f: &Figures| {
        json!({
            "spent": number(f.spent),
            "views": f.views,
            "clicks": f.clicks,
            "actions": f.actions,
            "ctr": two(f.ctr),
            "cpm": two(f.cpm),
            "conversions": f.conversions,
            "revenue": maybe(f.revenue),
            "roas": maybe(f.roas),
        })
    };
    let (start, end) = period.span();
    json!({
        "schedule": period.schedule.as_str(),
        "period": {
            "first_day": period.first.to_string(),
            "last_day": period.last.to_string(),
            "time_zone": period.zone.name(),
            "start": start,
            "end": end,
        },
        "currency": report.currency,
        "totals": line(&report.totals),
        "days": report.daily.iter().map(|d| json!({
            "day": d.day.to_string(),
            "spent": number(d.figures.spent),
            "views": d.figures.views,
            "clicks": d.figures.clicks,
            "actions": d.figures.actions,
            "conversions": d.figures.conversions,
        })).collect::<Vec<_>>(),
        "campaigns": report.campaigns.iter().map(|c| {
            let mut v = line(&c.figures);
            v["ad_id"] = json!(c.ad_id);
            v["title"] = json!(c.title);
            v
        }).collect::<Vec<_>>(),
        "fee": report.fee.as_ref().map(|fee| json!({
            "percent": number(fee.percent),
            "platform_spend": number(fee.platform_spend),
            "fee": number(fee.fee),
            "client_spend": number(fee.client_spend),
        })),
    })
}

/// A day as each language writes it: `2026-11-16`, `16.11.2026`.
fn day(lang: Lang, d: NaiveDate) -> String {
    match lang {
        Lang::En => d.format("%Y-%m-%d").to_string(),
        Lang::Ru => d.format("%d.%m.%Y").to_string(),
    }
}

/// The PDF's caption in the chat.
pub fn caption(report: &Report, lang: Lang) -> String {
    lang.ta(
        "scheduled-caption",
        &[
            ("cabinet", Arg::from(report.cabinet_name.as_str())),
            ("first", day(lang, report.from).into()),
            ("last", day(lang, report.to).into()),
        ],
    )
}

fn parse_day(text: &str) -> Result<NaiveDate, ReportError> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| StoreError::Corrupt(format!("report_sends day {text:?}")).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_week_is_the_previous_monday_to_sunday_and_a_month_the_previous_month() {
        let week = |today| Period::last_before(ReportSchedule::Weekly, Tz::UTC, d(today));
        // 2026-11-23 is a Monday.
        for today in ["2026-11-23", "2026-11-25", "2026-11-29"] {
            let p = week(today);
            assert_eq!(
                (p.first, p.last),
                (d("2026-11-16"), d("2026-11-22")),
                "{today}"
            );
        }
        assert_eq!(week("2026-11-22").first, d("2026-11-09"));
        let month = |today| Period::last_before(ReportSchedule::Monthly, Tz::UTC, d(today));
        let p = month("2026-12-01");
        assert_eq!((p.first, p.last), (d("2026-11-01"), d("2026-11-30")));
        let p = month("2026-03-31");
        assert_eq!((p.first, p.last), (d("2026-02-01"), d("2026-02-28")));
        let p = month("2027-01-15");
        assert_eq!((p.first, p.last), (d("2026-12-01"), d("2026-12-31")));
        assert_eq!(p.days().unwrap().days(), 31);
        assert_eq!(p.filename(), "report-2026-12.pdf");
        assert_eq!(week("2026-11-23").filename(), "report-2026-11-16.pdf");
    }

    #[test]
    fn the_owners_zone_moves_the_days_and_their_hours() {
        let moscow: Tz = "Europe/Moscow".parse().unwrap();
        // Sunday 22:30 UTC is already Monday in Moscow (UTC+3).
        let now = clock::parse_iso("2026-11-22T22:30:00Z").unwrap();
        assert_eq!(
            Period::due_at(ReportSchedule::Weekly, Tz::UTC, now).first,
            d("2026-11-09")
        );
        let p = Period::due_at(ReportSchedule::Weekly, moscow, now);
        assert_eq!(p.first, d("2026-11-16"));
        assert_eq!(
            p.span(),
            (
                "2026-11-15T21:00:00Z".to_string(),
                "2026-11-22T21:00:00Z".to_string()
            )
        );
    }
}
