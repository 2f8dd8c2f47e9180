//! Writes the committed sample client report, `client-report.pdf` and `client-report.xlsx`,
//! from the first-run demo workspace on a fixed service clock: the demo's agency named, its
//! euro cabinet's campaigns approved with a 10 % fee, then a week of the simulator's delivery
//! synced hour by hour as `serve` would, the agency topping up each campaign's budget every
//! morning and the shop's tracker sending a few sales and leads each day; then the report of
//! that week, written by the same functions the panel's
//! `/reports/{account_id}?format=pdf|xlsx` calls. Shared by `examples/sample_report.rs`
//! (which writes `docs/samples/`) and the test that checks the committed files are current.

use std::path::{Path, PathBuf};

use adcab::app::demo;
use adcab::config::Config;
use adcab::domain::conversion::RawEvent;
use adcab::domain::money::Money;
use adcab::i18n::Lang;
use adcab::jobs::scheduler::{self, Step};
use adcab::ops::campaigns::{budget, edit};
use adcab::ops::ingest::{Ingest, Sender};
use adcab::ops::reports::{self, Reader, Span};
use adcab::ops::Actor;
use adcab::platform::BudgetOp;
use adcab::store::cabinets::{self, Cabinet};
use adcab::store::StoreError;
use adcab::{ops, Services};
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::json;

/// Where the service clock stands when the workspace is created: a Monday morning, two seconds
/// into the minute, so the seconds the run takes (the clock keeps running with real time) stay
/// inside it and the simulator's minute-by-minute delivery comes out the same every run.
const START: &str = "2026-11-02T08:00:02Z";
/// The days the sample reports: the week from that Monday.
const FROM: &str = "2026-11-02";
const TO: &str = "2026-11-08";
/// The agency's name at the head of the report, and its fee on the cabinet.
const AGENCY: &str = "Northwind Media";
const FEE_PERCENT: &str = "10";
/// Each morning's top-up of every campaign's budget, in whole euros (at least the cabinet's
/// minimum, so a spent-out campaign may take it).
const TOP_UPS: [i64; 7] = [20, 24, 30, 22, 28, 20, 26];
/// Each day's conversions from the shop's tracker (its link's `subid=demo`): sales of these
/// amounts in EUR, then this many leads.
const SALES: [&[&str]; 7] = [
    &["19.90", "34.50"],
    &["24.00"],
    &["19.90", "49.00", "12.40"],
    &[],
    &["34.50", "19.90"],
    &["64.00"],
    &["24.00", "19.90"],
];
const LEADS: [usize; 7] = [3, 1, 4, 2, 5, 2, 3];

/// The two files written.
pub struct Written {
    pub pdf: PathBuf,
    /// The same report in Russian.
    pub pdf_ru: PathBuf,
    pub xlsx: PathBuf,
}

/// Writes both samples into `folder` (created if missing).
pub fn write(folder: &Path) -> Written {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut config = Config::default();
    config.storage.path = dir.path().join("sample.db");
    config.demo.bootstrap = true;
    let services = Services::open(config, adcab::db::Open::Create).expect("open");
    let start: DateTime<Utc> = START.parse().expect("a time");
    services
        .db
        .write_blocking(|tx| {
            let offset = (start - Utc::now()).num_seconds();
            adcab::store::clock::set_offset(tx, offset)
        })
        .expect("the clock set");
    demo::bootstrap_if_empty(&services)
        .expect("the demo workspace")
        .expect("an empty database takes the demo");
    let owner = ops::user_find(&services, demo::DEMO_EMAIL)
        .expect("the demo's owner")
        .expect("the demo's owner is there")
        .id;
    let reach = services
        .db
        .read_blocking(|c| cabinets::reachable_by(c, owner))
        .expect("the owner's cabinets");
    let cabinet = reach
        .iter()
        .map(|r| &r.cabinet)
        .find(|c| c.name == "Demo EUR")
        .expect("the demo's euro cabinet")
        .clone();
    let account = cabinet.id;
    let ads = prepare(&services, owner, account);
    deliver(&services, owner, &cabinet, &ads);

    let span = Span::new(day(FROM), day(TO)).expect("a span");
    let reader = Reader::of(&reach, account).expect("the owner reads it");
    let report = services
        .db
        .read_blocking(|c| reports::build(c, &reader, span, None))
        .expect("the report");
    std::fs::create_dir_all(folder).expect("the folder");
    let written = Written {
        pdf: folder.join("client-report.pdf"),
        pdf_ru: folder.join("client-report-ru.pdf"),
        xlsx: folder.join("client-report.xlsx"),
    };
    let pdf = reports::pdf::render(&report, Lang::En, None).expect("the PDF");
    std::fs::write(&written.pdf, pdf).expect("the PDF written");
    let pdf_ru = reports::pdf::render(&report, Lang::Ru, None).expect("the Russian PDF");
    std::fs::write(&written.pdf_ru, pdf_ru).expect("the Russian PDF written");
    let xlsx = adcab::panel::report_table(&report)
        .xlsx()
        .expect("the workbook");
    std::fs::write(&written.xlsx, xlsx).expect("the workbook written");
    written
}

fn day(text: &str) -> NaiveDate {
    text.parse().expect("a day")
}

/// Names the agency, sets the cabinet's fee and approves its campaigns; their ids.
fn prepare(services: &Services, owner: i64, account: i64) -> Vec<i64> {
    services
        .db
        .write_blocking(move |tx| ops::reports::agency::set_name(tx, owner, AGENCY))
        .expect("the agency named");
    ops::cabinet_set(
        services,
        account,
        &ops::CabinetChange {
            fee_percent: Some(FEE_PERCENT.into()),
            ..Default::default()
        },
    )
    .expect("the fee set");
    let ads: Vec<i64> = services
        .db
        .read_blocking(move |c| {
            let mut stmt =
                c.prepare("SELECT ad_id FROM campaigns WHERE account_id = ?1 ORDER BY ad_id")?;
            let ads = stmt.query_map([account], |r| r.get(0))?;
            Ok::<_, StoreError>(ads.collect::<rusqlite::Result<_>>()?)
        })
        .expect("the campaigns");
    for ad in &ads {
        ops::sim_review(services, account, *ad, true, None).expect("approved");
    }
    ads
}

/// A week on the service clock, an hour at a time, doing everything the scheduler finds due
/// after each (the hour's sync, digests, status changes) as `serve` would: each morning the
/// agency tops up every campaign of `cabinet`, and at noon the day's conversions arrive.
fn deliver(services: &Services, owner: i64, cabinet: &Cabinet, ads: &[i64]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime
        .block_on(scheduler::init(services))
        .expect("the scheduler placed");
    let ingest = Ingest::new(services.db.clone(), services.metrics.clone());
    let actor = Actor::operator(cabinet.clone());
    for (day, top_up) in TOP_UPS.iter().enumerate() {
        for ad in ads {
            let row = edit::live(services, cabinet.id, *ad).expect("the campaign");
            let add = BudgetOp::Add(Money::from_micros(top_up * 1_000_000));
            budget::move_budget(services, &actor, &row, add, &format!("sample:{day}:{ad}"))
                .expect("the top-up");
        }
        for hour in 0..24 {
            if hour == 4 {
                let events = conversions(day);
                let sender = Sender {
                    holder: owner,
                    accounts: vec![cabinet.id],
                };
                let recorded = runtime
                    .block_on(ingest.record(sender, events))
                    .expect("the conversions");
                assert!(recorded.iter().all(Result::is_ok), "{recorded:?}");
            }
            ops::sim_advance(services, 3600).expect("an hour on");
            while scheduler::step(services).expect("a step") != Step::Idle {}
        }
    }
}

/// The conversions of `day` (from 0) as the tracker sends them.
fn conversions(day: usize) -> Vec<adcab::domain::conversion::Event> {
    let sales = SALES[day].iter().enumerate().map(|(n, payout)| {
        json!({ "clickid": "demo", "goal": "sale", "order_id": format!("d{day}-s{n}"),
                "payout": payout, "cur": "EUR" })
    });
    let leads = (0..LEADS[day])
        .map(|n| json!({ "clickid": "demo", "goal": "lead", "order_id": format!("d{day}-l{n}") }));
    sales
        .chain(leads)
        .map(|body| {
            RawEvent::from_json(body)
                .and_then(|raw| raw.parse())
                .expect("an event")
        })
        .collect()
}
