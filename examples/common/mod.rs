//! What the benchmarks share: the real server started in this process, by the same code the
//! integration tests start it with.

#[path = "../../tests/support/server.rs"]
mod server;
pub use server::Server;

/// `count` euro cabinets of `owner`, each with a balance of 1,000,000; their ids in order.
pub fn euro_cabinets(services: &adcab::Services, owner: i64, count: usize) -> Vec<i64> {
    (0..count)
        .map(|i| {
            adcab::ops::cabinet_add(
                services,
                &adcab::ops::NewCabinet {
                    owner,
                    name: format!("Cabinet {i}"),
                    kind: adcab::domain::money::CabinetType::Euro,
                    balance: Some("1000000".into()),
                    min_budget: None,
                    ad_button: false,
                    crypto_filters: false,
                },
            )
            .expect("a cabinet")
            .id
        })
        .collect()
}

/// `SELECT` of each campaign's copy (in the table `copies`, `campaigns` or a renamed one) and
/// its figures as one plain row, as `campaigns` held them before migration 68: every column of
/// both tables but the figures' repeated key and the numbers that join them since migration 72,
/// named one by one, so that a table made from it (`CREATE TABLE … AS`) is laid out as before
/// those columns came (dropped afterwards, they leave its pages a tenth emptier). (Not every
/// bench copies it.)
#[allow(dead_code)]
pub fn plain_campaigns_select(conn: &rusqlite::Connection, copies: &str) -> String {
    let columns: String = conn
        .query_row(
            "SELECT group_concat(name, ', ') FROM (
                 SELECT name FROM pragma_table_info(?1) WHERE name <> 'id'
                 UNION ALL
                 SELECT name FROM pragma_table_info('campaign_counters')
                 WHERE name NOT IN ('account_id', 'ad_id', 'campaign_id'))",
            [copies],
            |r| r.get(0),
        )
        .expect("the campaigns' columns");
    format!("SELECT {columns} FROM {copies} JOIN campaign_counters USING (account_id, ad_id)")
}

/// The index by views of a copy made by [`copy_by_views`].
#[allow(dead_code)]
pub const BY_VIEWS: &str = "campaign_counters_bench_by_views";

/// A copy of the database `conn` reads (`VACUUM INTO` `copy`) with an index by views
/// ([`BY_VIEWS`]), for the lists' plain baselines: the service keeps each cabinet's order by a
/// figure in memory (schema 74), where plain SQLite reads an index made for the sort. (Not
/// every bench reads a list by views.)
#[allow(dead_code)]
pub fn copy_by_views(conn: &rusqlite::Connection, copy: &std::path::Path) -> rusqlite::Connection {
    conn.execute("VACUUM INTO ?1", [copy.to_str().expect("a UTF-8 path")])
        .expect("copy");
    let copied = adcab::db::open_connection(copy).expect("open the copy");
    copied
        .execute_batch(&format!(
            "CREATE INDEX {BY_VIEWS} ON campaign_counters(account_id, views, ad_id, listed_status)"
        ))
        .expect("index");
    copied
}

/// Waits until the upkeep of a server started at `started` has run its first retention pass
/// (a tick after start, then hourly; nothing to remove on a settled install), so that a pass
/// the benchmark measures never shares its work with that one. (Not every bench runs passes.)
#[allow(dead_code)]
pub fn after_upkeep_first_pass(started: std::time::Instant) {
    /// Time given that pass to end.
    const MARGIN: std::time::Duration = std::time::Duration::from_secs(10);
    let over = started + adcab::jobs::upkeep::TICK + MARGIN;
    if let Some(wait) = over.checked_duration_since(std::time::Instant::now()) {
        println!(
            "waiting {:.0} s for the server's own first retention pass",
            wait.as_secs_f64()
        );
        std::thread::sleep(wait);
    }
}

/// SplitMix64, for varied but repeatable figures. (Not every bench draws figures.)
#[allow(dead_code)]
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// One campaign's gain in one hour drawn from the hash `h`: views, opens, clicks, actions,
/// spent (micro-euros at a CPM of 1 to 5 EUR).
#[allow(dead_code)]
pub fn gain_of(h: u64) -> [i64; 5] {
    let views = 40 + (h % 400) as i64;
    let cpm = 1_000_000 + ((h >> 16) % 4_000_000) as i64;
    [
        views,
        views / 25 + ((h >> 40) % 3) as i64,
        views / 60 + ((h >> 44) % 2) as i64,
        ((h >> 48) % 3) as i64,
        views * cpm / 1000,
    ]
}
