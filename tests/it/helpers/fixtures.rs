//! Owns the fixtures, built through the panel as the CLI would: users, cabinets, keys and
//! campaigns.

use super::TestApp;
use adcab::domain::access::Plan;
use adcab::domain::campaign::TargetType;
use adcab::domain::money::CabinetType;
use adcab::domain::money::Money;
use adcab::ops::{self, write_back, NewCabinet, NewKey};
use adcab::platform::{AdDraft, AdSpec};
use adcab::store::history::Source;
use serde_json::{json, Value};

/// An operation's answer as the JSON object its command prints.
pub fn printed<T: serde::Serialize>(answer: T) -> Value {
    serde_json::to_value(answer).expect("panel answers serialize")
}

/// The sentence an operation's error is to the operator, as `adcab admin` prints it.
pub fn said(e: ops::OpsError) -> String {
    adcab::cli::Failure::from(e).to_string()
}

/// A campaign body with every required field for `account` (a channels ad), `extra` laid over
/// it; `null` in `extra` leaves a field out.
pub fn campaign_body(account: i64, extra: Value) -> Value {
    let mut body = json!({
        "account_id": account, "title": "Scenario", "text": "Fresh news every morning",
        "promote_url": "https://t.me/alpha_chan", "cpm": "2.50", "budget": "20",
        "target_type": "channels", "channels": ["@tech_daily"]
    });
    let fields = body.as_object_mut().expect("an object");
    for (k, v) in extra.as_object().into_iter().flatten() {
        match v {
            Value::Null => fields.remove(k),
            v => fields.insert(k.clone(), v.clone()),
        };
    }
    body
}

impl TestApp {
    /// Runs the queued task (a 202 answer) to its end; the task as `GET /v1/tasks/{id}` shows
    /// it then.
    pub fn finish_task(&self, queued: &Value, key: &str) -> Value {
        self.run_tasks();
        let id = queued["data"]["id"].as_i64().expect("a task id");
        self.get_ok(&format!("/tasks/{id}"), key)["data"].clone()
    }

    /// Creates one campaign ([`campaign_body`] with `extra`) through `POST /v1/campaigns` and
    /// runs its task to completion; its ad_id.
    pub fn create_through_api(&self, key: &str, account: i64, extra: Value) -> i64 {
        let body = campaign_body(account, extra);
        let queued = self.write_ok("POST", "/campaigns", key, Some(&body), 202);
        let done = self.finish_task(&queued, key);
        assert_eq!(done["status"], "completed", "{done}");
        done["ad_ids"][0]
            .as_i64()
            .unwrap_or_else(|| panic!("the task made no ad: {done}"))
    }

    /// One value a query reads from the database: a count, a stored field.
    pub fn scalar<T: rusqlite::types::FromSql + Send + 'static>(
        &self,
        sql: &str,
        params: &[i64],
    ) -> T {
        let (sql, params) = (sql.to_string(), params.to_vec());
        self.services
            .db
            .read_blocking(move |c| {
                Ok::<_, adcab::store::StoreError>(c.query_row(
                    &sql,
                    rusqlite::params_from_iter(params),
                    |r| r.get(0),
                )?)
            })
            .expect("the query answers one row")
    }

    /// A key of `user` sending webhooks to `url`: (key id, key, webhook secret).
    pub fn hook_key(&self, user: i64, url: &str) -> (i64, String, String) {
        let created = ops::key_create(
            &self.services,
            &NewKey {
                user,
                manage: true,
                webhook_url: Some(url.to_string()),
                ..NewKey::default()
            },
        )
        .unwrap();
        (created.id, created.key, created.webhook_secret)
    }

    /// An owner with one euro cabinet (balance 1000) and a manage key: (user, cabinet, key).
    pub fn manager(&self) -> (i64, i64, String) {
        self.owner_whose_key(false)
    }

    /// [`TestApp::manager`] whose key also sends postbacks.
    pub fn manager_with_postbacks(&self) -> (i64, i64, String) {
        self.owner_whose_key(true)
    }

    fn owner_whose_key(&self, postbacks: bool) -> (i64, i64, String) {
        let user = self.user("pro");
        let cabinet = self.cabinet(user, "euro", "1000");
        let key = self.key_with(NewKey {
            user,
            manage: true,
            postbacks,
            ..NewKey::default()
        });
        (user, cabinet, key)
    }

    /// A campaign approved by review: `Active` with its budget.
    pub fn active_campaign(&self, account: i64) -> i64 {
        self.approved(account, Camp::channel("Running", "https://t.me/alpha_chan"))
    }

    /// Creates the campaign and approves it in review.
    pub fn approved(&self, account: i64, c: Camp) -> i64 {
        let ad = self.campaign(account, c);
        ops::sim_review(&self.services, account, ad, true, None).unwrap();
        ad
    }

    /// A channel campaign with `budget_micros` on it, left in review: it delivers nothing, so
    /// its budget moves only with the test's writes however long the test runs.
    pub fn held(&self, account: i64, budget_micros: i64) -> i64 {
        self.campaign(
            account,
            Camp {
                budget_micros,
                ..Camp::channel("Held", "https://t.me/alpha_chan")
            },
        )
    }

    /// An approved channel campaign with `budget_micros` on it.
    pub fn funded(&self, account: i64, budget_micros: i64) -> i64 {
        self.approved(
            account,
            Camp {
                budget_micros,
                ..Camp::channel("Funded", "https://t.me/alpha_chan")
            },
        )
    }

    pub fn user(&self, plan: &str) -> i64 {
        let email = format!("{}@example.com", uuid::Uuid::new_v4().simple());
        printed(ops::user_add(&self.services, &email, Plan::parse(plan).unwrap()).unwrap())["id"]
            .as_i64()
            .unwrap()
    }

    pub fn cabinet(&self, owner: i64, kind: &str, balance: &str) -> i64 {
        printed(
            ops::cabinet_add(
                &self.services,
                &NewCabinet {
                    owner,
                    name: format!("{kind} cabinet"),
                    kind: CabinetType::parse(kind).unwrap(),
                    balance: Some(balance.into()),
                    min_budget: None,
                    ad_button: false,
                    crypto_filters: false,
                },
            )
            .unwrap(),
        )["id"]
            .as_i64()
            .unwrap()
    }

    pub fn key(&self, user: i64) -> String {
        self.key_with(NewKey {
            user,
            ..NewKey::default()
        })
    }

    pub fn key_with(&self, k: NewKey) -> String {
        printed(ops::key_create(&self.services, &k).unwrap())["key"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// An owner on `plan` with one euro cabinet and a read key: (user, cabinet, key).
    pub fn owner_with_cabinet(&self, plan: &str) -> (i64, i64, String) {
        let user = self.user(plan);
        let cabinet = self.cabinet(user, "euro", "1000");
        let key = self.key(user);
        (user, cabinet, key)
    }

    /// Creates a campaign on the platform and stores its copy; returns its ad_id.
    pub fn campaign(&self, account: i64, c: Camp) -> i64 {
        let spec = AdSpec::plain(c.title, "Ad text", c.url, c.target_type, c.targeting);
        let draft = AdDraft::running(
            spec,
            Money::from_micros(c.cpm_micros),
            Money::from_micros(c.budget_micros),
        );
        write_back::create_stored(
            &self.services,
            account,
            &draft,
            c.group,
            Source::Panel.into(),
        )
        .expect("stored")
        .expect("created on the platform")
        .ad_id
    }
}

/// A campaign fixture; `Camp::channel("t")` and friends fill the rest.
pub struct Camp {
    pub title: &'static str,
    pub url: &'static str,
    pub target_type: TargetType,
    pub targeting: Value,
    pub cpm_micros: i64,
    pub budget_micros: i64,
    pub group: Option<i64>,
}

impl Camp {
    pub fn channel(title: &'static str, url: &'static str) -> Camp {
        Camp {
            title,
            url,
            target_type: TargetType::Channels,
            targeting: json!({ "channels": ["@tech_daily"] }),
            cpm_micros: 2_000_000,
            budget_micros: 10_000_000,
            group: None,
        }
    }

    pub fn site(title: &'static str, url: &'static str) -> Camp {
        Camp {
            target_type: TargetType::Users,
            targeting: json!({ "countries": ["DE"] }),
            ..Camp::channel(title, url)
        }
    }
}
