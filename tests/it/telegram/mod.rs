//! The Telegram Ads connector against the fake Telegram Ads API (`tests/support/promote_fake`,
//! served on port 0): the real server runs with `platform.kind = "telegram"`, its cabinets are
//! connected with a token the fake issued, and both clocks (the service's and the fake's)
//! move together. This file holds the harness.

mod connect;
mod faults;
mod funds;
mod lifecycle;
mod limits;
mod reconcile;
mod sync;
mod tasks;
mod unreachable;
mod writes;
mod zones;

use adcab::ops::{self, NewKey};
use adcab::platform::PlatformKind;
use adcab::{clock, Services};
use serde_json::Value;

use crate::helpers::{printed, spawn_app_with, TestApp};

#[path = "../../support/promote_fake/mod.rs"]
pub mod promote_fake;
pub use promote_fake::{FakeAccount, FakePromote, Fault, SeedAd};

/// A server on the connector, the fake behind it, and one connected euro account.
pub struct Tg {
    pub app: TestApp,
    pub fake: FakePromote,
    pub account: FakeAccount,
    pub user: i64,
    pub cabinet: i64,
    pub key: String,
}

/// The server configured for the fake: fast pacing (the fake has no limit unless a test
/// sets one) and short deadlines.
pub fn spawn_on(fake: &FakePromote) -> TestApp {
    let url = fake.url.clone();
    spawn_app_with(move |c| {
        c.platform.kind = PlatformKind::Telegram;
        c.telegram.api_url = url;
        c.telegram.calls_per_second = 1000;
        c.telegram.timeout_ms = 3000;
    })
}

/// The fake with one EUR account holding 1000 and `seed` ads already on it, connected as a
/// cabinet of an agency owner who has a Manage key.
pub fn connected(seed: Vec<SeedAd>) -> Tg {
    let fake = FakePromote::start();
    let account = fake.add_account("EUR", "Agency EUR", "1000", false);
    for ad in seed {
        fake.seed_ad(&account.account_id, ad);
    }
    let app = spawn_on(&fake);
    let user = app.user("agency");
    let connected =
        printed(ops::cabinet_connect(&app.services, user, &account.token, false).unwrap());
    let cabinet = connected["cabinets"][0]["id"].as_i64().unwrap();
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    Tg {
        app,
        fake,
        account,
        user,
        cabinet,
        key,
    }
}

impl Tg {
    /// Moves the fake's clock and the service clock together, then lets the scheduler catch up.
    pub fn advance(&self, seconds: i64) {
        self.fake.advance(seconds);
        advance_service(&self.app.services, seconds);
        self.app.settle();
    }

    pub fn id(&self) -> &str {
        &self.account.account_id
    }

    /// Runs a queued task to its end; the task object.
    pub fn finish_task(&self, queued: &Value) -> Value {
        self.app.finish_task(queued, &self.key)
    }

    /// Creates a channel campaign through the API and runs its task; its ad_id.
    pub fn create(&self, extra: Value) -> i64 {
        self.app.create_through_api(&self.key, self.cabinet, extra)
    }

    /// `PATCH /v1/campaigns/{ad}` with `body`, whatever the answer.
    pub fn patch(&self, ad: i64, body: &Value) -> crate::helpers::Resp {
        self.app.send(
            "PATCH",
            &format!("/campaigns/{ad}"),
            &self.key,
            Some(body),
            &[],
        )
    }

    /// The ad_id of the cabinet's newest campaign.
    pub fn first_ad(&self) -> i64 {
        self.app.get_ok(
            &format!("/campaigns?account_id={}", self.cabinet),
            &self.key,
        )["data"][0]["ad_id"]
            .as_i64()
            .unwrap()
    }

    /// The stored campaign as `GET /v1/campaigns/{ad}` answers it.
    pub fn campaign(&self, ad: i64) -> Value {
        self.app.get_ok(
            &format!("/campaigns/{ad}?account_id={}", self.cabinet),
            &self.key,
        )["data"]
            .clone()
    }
}

/// Moves the service clock; in telegram mode only tests do this (the `sim` commands refuse).
pub fn advance_service(services: &Services, seconds: i64) {
    services
        .db
        .write_blocking(|tx| clock::advance(tx, seconds))
        .unwrap()
        .unwrap();
}
