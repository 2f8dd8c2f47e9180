//! Owns the first-run demo workspace: on an empty database with the simulator (and
//! `demo.bootstrap` on), one agency-plan owner, a cabinet of each type with some balance, a few
//! campaigns, the euro cabinet as the agency's main account with three funded client cabinets,
//! and a key with Manage campaigns and Receive postbacks, created through the panel.

use serde_json::json;

use crate::domain::access::Plan;
use crate::domain::campaign::TargetType;
use crate::domain::funds::{Direction, FundsMove, RelatedInfo};
use crate::domain::money::{CabinetType, Money};
use crate::ops::funds::{self, Opener};
use crate::ops::write_back;
use crate::ops::Actor;
use crate::ops::{self, NewCabinet, NewKey, OpsError};
use crate::platform::{AdDraft, AdSpec};
use crate::primitives::random_hex;
use crate::services::Services;
use crate::store::history::Source;
use crate::store::users;

pub const DEMO_EMAIL: &str = "demo@adcab.local";

/// What the first start prints once.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The panel login: the owner's email and a random password.
    pub email: &'static str,
    pub password: String,
    pub key: String,
    /// The key's webhook secret, to verify the webhooks it receives.
    pub webhook_secret: String,
    pub cabinets: Vec<i64>,
}

/// The agency's money: `main` becomes its main account, with three client cabinets opened
/// under it, each given some of its money.
fn clients(s: &Services, main: i64) -> Result<Vec<i64>, OpsError> {
    ops::cabinet_set(
        s,
        main,
        &ops::CabinetChange {
            main_account: Some(true),
            ..Default::default()
        },
    )?;
    let by = Opener {
        source: Source::Operator,
        user: None,
    };
    let mut opened = Vec::new();
    for (title, person, city, amount) in [
        ("Client: Nordic Coffee", "Anna Berg", "Oslo", 80_000_000),
        ("Client: Lumen Apps", "Marc Duval", "Lyon", 60_000_000),
        ("Client: Riga Books", "Ilze Ozola", "Riga", 40_000_000),
    ] {
        let info = RelatedInfo {
            title: title.into(),
            full_name: person.into(),
            email: "client@example.com".into(),
            phone_number: "+371 2000 0000".into(),
            country: "EU".into(),
            city: city.into(),
            legal_name: None,
        };
        let cabinet = funds::open_related(s, by, main, &info, &format!("demo:{title}"))?;
        let id = cabinet.id;
        let mv = FundsMove {
            amount: Money::from_micros(amount),
            direction: Direction::In,
        };
        funds::move_funds(s, &Actor::operator(cabinet), mv, &format!("demo:{id}"))?;
        opened.push(id);
    }
    Ok(opened)
}

/// Creates the demo workspace when the database is empty, the simulator runs and the config
/// asks for it; otherwise does nothing.
pub fn bootstrap_if_empty(s: &Services) -> Result<Option<Workspace>, OpsError> {
    if !s.config.demo.bootstrap || s.sim.is_none() || s.db.read_blocking(users::count)? > 0 {
        return Ok(None);
    }
    let owner = ops::user_add(s, DEMO_EMAIL, Plan::Agency)?.id;
    let password = random_hex(8);
    ops::user_set(s, owner, None, None, Some(&password))?;
    // Name, type, balance, campaigns, and each campaign's budget in micro-units (at least the
    // cabinet type's default `min_budget`).
    let specs = [
        ("Demo EUR", CabinetType::Euro, "1000.00", 2, 20_000_000),
        ("Demo TON", CabinetType::Ton, "500.00", 1, 20_000_000),
        ("Demo Stars", CabinetType::Stars, "50000", 1, 1_000_000_000),
    ];
    let mut cabinets = Vec::new();
    for (name, kind, balance, ads, budget) in specs {
        let cabinet = ops::cabinet_add(
            s,
            &NewCabinet {
                owner,
                name: name.into(),
                kind,
                balance: Some(balance.into()),
                min_budget: None,
                ad_button: kind == CabinetType::Euro,
                crypto_filters: kind == CabinetType::Ton,
            },
        )?
        .id;
        let group = ops::group_add(s, cabinet, "Launch", None)?.id;
        for n in 0..ads {
            create_campaign(s, cabinet, group, n, Money::from_micros(budget))?;
        }
        cabinets.push(cabinet);
    }
    cabinets.extend(clients(s, cabinets[0])?);
    let created = ops::key_create(
        s,
        &NewKey {
            user: owner,
            manage: true,
            postbacks: true,
            ..NewKey::default()
        },
    )?;
    Ok(Some(Workspace {
        email: DEMO_EMAIL,
        password,
        key: created.key,
        webhook_secret: created.webhook_secret,
        cabinets,
    }))
}

fn create_campaign(
    s: &Services,
    cabinet: i64,
    group: i64,
    n: usize,
    budget: Money,
) -> Result<(), OpsError> {
    let (title, url, target_type, targeting) = if n == 0 {
        (
            "Demo: channel launch",
            "https://t.me/adcab_demo_news",
            TargetType::Channels,
            json!({ "channels": ["@tech_daily", "@startup_digest"] }),
        )
    } else {
        (
            "Demo: shop website",
            "https://shop.example.com/?subid=demo",
            TargetType::Users,
            json!({ "countries": ["DE", "FR"], "languages": ["en"] }),
        )
    };
    let spec = AdSpec {
        views_per_user: 2,
        ..AdSpec::plain(
            title,
            "A demo ad created by adcab's first run. Edit or delete it freely.",
            url,
            target_type,
            targeting,
        )
    };
    let draft = AdDraft::running(spec, Money::from_micros(2_000_000), budget);
    write_back::create_stored(s, cabinet, &draft, Some(group), Source::Panel.into())??;
    Ok(())
}
