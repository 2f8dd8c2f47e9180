//! The writes answered at once: PATCH, pause, resume, budget and DELETE, with the transition
//! table, the platform's refusals, money moved exactly, history and status-change records.
//! This file holds the reads the areas share.

mod access;
mod budget;
mod patch;
mod status;

use crate::helpers::TestApp;
use adcab::store::StoreError;
use serde_json::Value;

fn campaign(app: &TestApp, account: i64, ad: i64, key: &str) -> Value {
    app.get_ok(&format!("/campaigns/{ad}?account_id={account}"), key)["data"].clone()
}

fn balance(app: &TestApp, key: &str) -> String {
    app.get_ok("/account/info", key)["data"][0]["balance"]
        .as_str()
        .unwrap()
        .to_string()
}

fn status_events(app: &TestApp) -> Vec<(i64, String, String, String)> {
    app.services
        .db
        .read_blocking(|c| {
            let mut s = c.prepare(
                "SELECT ad_id, old_status, new_status, source FROM status_events ORDER BY id",
            )?;
            let rows = s
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, StoreError>(rows)
        })
        .unwrap()
}
