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
