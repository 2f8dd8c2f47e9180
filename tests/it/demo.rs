//! First run: the demo workspace, through the library and through `adcab serve` itself.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::helpers::{printed, spawn_app_with, TestApp};
use adcab::app::demo;
use rust_decimal::Decimal;

#[test]
fn the_demo_workspace_is_created_once_and_its_key_works() {
    let app: TestApp = spawn_app_with(|c| c.demo.bootstrap = true);
    let ws = demo::bootstrap_if_empty(&app.services)
        .unwrap()
        .expect("created on an empty database");
    assert!(
        demo::bootstrap_if_empty(&app.services).unwrap().is_none(),
        "only once"
    );
    let cabinets = app.get_ok("/account/info", &ws.key)["data"]
        .as_array()
        .unwrap()
        .clone();
    let mut types: Vec<&str> = cabinets
        .iter()
        .map(|c| c["cabinet_type"].as_str().unwrap())
        .collect();
    types.sort();
    assert_eq!(
        types,
        ["euro", "euro", "euro", "euro", "stars", "ton"],
        "a cabinet of each type, and three client cabinets under the euro one"
    );
    let main = ws.cabinets[0];
    for client in &ws.cabinets[3..] {
        let moved = app.get_ok(&format!("/cabinets/{client}/transactions"), &ws.key);
        assert_eq!(moved["data"][0]["peer"]["type"], "main_account");
    }
    let main_info = cabinets.iter().find(|c| c["id"] == main).unwrap();
    assert_eq!(
        main_info["balance"], "780.00",
        "1000 less its campaigns' 40, and 80, 60 and 40 to the clients"
    );
    assert!(cabinets
        .iter()
        .all(|c| c["balance"].as_str().unwrap() != "0.00" && c["access_level"] == "owner"));
    let campaigns = app.get_ok("/campaigns", &ws.key)["data"]
        .as_array()
        .unwrap()
        .clone();
    assert!(campaigns.len() >= 3);
    for c in &campaigns {
        let cabinet = cabinets
            .iter()
            .find(|x| x["id"] == c["account_id"])
            .unwrap();
        let budget: Decimal = c["budget"].as_str().unwrap().parse().unwrap();
        let min = Decimal::from(cabinet["min_budget"].as_i64().unwrap());
        assert!(budget >= min, "demo budgets respect min_budget: {c}");
    }
    let first = ws.cabinets[0];
    let history = printed(adcab::ops::history(&app.services, first, 1).unwrap());
    assert_eq!(history["events"][0]["source"], "panel");
    assert_eq!(history["events"][0]["action"], "create");
    let reviewed = printed(adcab::ops::sim_review(&app.services, first, 1, true, None).unwrap());
    assert_eq!(reviewed["status"], "Active");
    let c = app.get_ok(&format!("/campaigns/1?account_id={first}"), &ws.key);
    assert_eq!(
        c["data"]["status"], "Active",
        "the panel's change is in the copy at once"
    );
}

#[test]
fn serve_prints_the_key_and_a_curl_line_then_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("adcab.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:0\"\n[storage]\npath = \"{}\"\n",
            dir.path().join("serve.db").display()
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .args(["--config", config.to_str().unwrap(), "serve"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut key = None;
    let mut secret = None;
    let mut url = None;
    for line in lines.by_ref().take(10) {
        let line = line.unwrap();
        if let Some(k) = line.strip_prefix("API key (shown once, keep it): ") {
            key = Some(k.trim().to_string());
        }
        if let Some(s) = line.strip_prefix("Webhook secret (shown once): ") {
            secret = Some(s.trim().to_string());
        }
        if line.trim_start().starts_with("curl ") {
            url = line
                .split_whitespace()
                .find(|w| w.starts_with("http://"))
                .map(str::to_string);
            break;
        }
    }
    let (key, url) = (key.expect("key printed"), url.expect("curl line printed"));
    let secret = secret.expect("the webhook secret is printed with the key");
    assert!(secret.len() >= 32, "{secret}");
    assert!(
        !url.ends_with(":0/api/v1/account/info"),
        "the line names the bound port: {url}"
    );
    let text = ureq::get(&url)
        .set("X-API-Key", &key)
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    let body: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["data"].as_array().unwrap().len(), 6);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success(), "exit 0 on SIGTERM");
}
