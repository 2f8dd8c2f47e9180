//! Owns what the fuzz aims at (the fixtures: keys, cabinets, campaigns, a group, a task, a
//! tracker) and its dice (a seeded xorshift, the same requests on every run).

use crate::helpers::{printed, Camp, TestApp};
use adcab::ops::{self, NewKey};
use serde_json::json;

/// xorshift64*: tiny and deterministic, enough to pick cases.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    /// The next 64 random bits.
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub(super) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items`, each as likely.
    pub(super) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// What the fuzz aims at: the fixtures' keys, cabinets, campaigns, group, task and tracker.
pub(super) struct World {
    pub(super) manage: String,
    pub(super) read_only: String,
    /// The euro cabinet, then the stars one.
    pub(super) accounts: [i64; 2],
    /// Campaigns the fuzz reads and changes but never deletes on purpose.
    pub(super) ads: Vec<i64>,
    /// Campaigns the fuzz may delete.
    pub(super) doomed: Vec<i64>,
    pub(super) group: i64,
    pub(super) task: i64,
    pub(super) tracker: String,
    /// A campaign-list cursor the service would issue.
    pub(super) cursor: String,
}

/// An agency owner with a euro and a stars cabinet, two keys, campaigns (funded, unfunded,
/// bot and website ones with refs, one in a group), a create task and a tracker token.
pub(super) fn world(app: &TestApp) -> World {
    let user = app.user("agency");
    let euro = app.cabinet(user, "euro", "100000");
    let stars = app.cabinet(user, "stars", "1000000");
    let manage = app.key_with(NewKey {
        user,
        manage: true,
        postbacks: true,
        ..NewKey::default()
    });
    let read_only = app.key(user);
    let group = printed(ops::group_add(&app.services, euro, "Fuzz", Some("#ff8800")).unwrap())
        ["id"]
        .as_i64()
        .unwrap();
    let ads = vec![
        app.funded(euro, 50_000_000),
        app.funded(stars, 2_000_000_000),
        app.campaign(
            euro,
            Camp::channel("Bot", "https://t.me/shop_bot?start=promo42"),
        ),
        app.campaign(
            euro,
            Camp::site("Shop", "https://shop.example.com/?subid=s-77"),
        ),
        app.campaign(
            stars,
            Camp {
                budget_micros: 0,
                ..Camp::channel("Empty", "https://t.me/alpha_chan")
            },
        ),
        app.campaign(
            euro,
            Camp {
                group: Some(group),
                ..Camp::channel("Grouped", "https://t.me/beta_chan")
            },
        ),
    ];
    let doomed = vec![app.funded(euro, 7_000_000), app.funded(stars, 600_000_000)];
    let created = app.send(
        "POST",
        "/campaigns",
        &manage,
        Some(&json!({
            "account_id": euro, "title": "Seed", "text": "Read us daily",
            "promote_url": "https://t.me/alpha_chan", "cpm": 2, "budget": 10,
            "target_type": "channels", "channels": ["@tech_daily"]
        })),
        &[("Idempotency-Key", "fuzz-seed-create-0001")],
    );
    assert_eq!(created.status, 202, "{}", created.body);
    let tracker = printed(ops::tracker_rotate(&app.services, user).unwrap())["token"]
        .as_str()
        .unwrap()
        .to_string();
    World {
        manage,
        read_only,
        accounts: [euro, stars],
        cursor: hex(&format!("v1:{euro}:{}", ads[0])),
        ads,
        doomed,
        group,
        task: created.body["data"]["id"].as_i64().unwrap(),
        tracker,
    }
}

/// The lowercase hex of `text`'s bytes, as the service spells its list cursors.
pub(super) fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}
