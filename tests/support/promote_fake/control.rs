//! Test controls, shared by the Rust handle and the HTTP prefix `/_fake/` (which the connector
//! never calls): accounts, seeds, moderation, delivery, the clock, tokens, faults, inspection.

use rust_decimal::Decimal;
use serde_json::{json, Map, Value};

use super::params::{int_value, Params};
use super::state::{money, round, Account, Cur, DeclineReason, FaultRule, Review, State};
use super::{ads, reads, Fault, SeedAd};

pub fn account<'a>(st: &'a State, id: &str) -> Result<&'a Account, String> {
    st.accounts
        .get(id)
        .ok_or_else(|| format!("no account {id}"))
}

fn currency(code: &str) -> Result<Cur, String> {
    Cur::parse(code).ok_or_else(|| format!("unknown currency {code} (EUR, TON or XTR)"))
}

fn balance_arg(cur: Cur, text: &str) -> Result<Decimal, String> {
    let d = super::state::parse_decimal(text)
        .ok_or_else(|| format!("balance {text:?} is not a decimal"))?;
    Ok(round(d, cur.transfer_dp()))
}

pub fn add_account(
    st: &mut State,
    cur: &str,
    title: &str,
    balance: &str,
    main: bool,
) -> Result<(String, String), String> {
    let cur = currency(cur)?;
    let balance = balance_arg(cur, balance)?;
    let id = st.add_account(cur, title, main, None);
    st.top_up(&id, balance, "initial balance");
    let token = st.new_token(&id);
    Ok((id, token))
}

pub fn add_related(
    st: &mut State,
    main: &str,
    cur: &str,
    title: &str,
    balance: &str,
) -> Result<String, String> {
    if !account(st, main)?.main {
        return Err(format!("account {main} is not a main account"));
    }
    let cur = currency(cur)?;
    let balance = balance_arg(cur, balance)?;
    let id = st.add_account(cur, title, false, Some(main));
    st.top_up(&id, balance, "initial balance");
    Ok(id)
}

fn ad_mut<'a>(
    st: &'a mut State,
    account: &str,
    ad_id: i64,
) -> Result<&'a mut super::state::Ad, String> {
    match st.ads.get_mut(&ad_id) {
        Some(ad) if ad.account == account && ad.deleted_at.is_none() => Ok(ad),
        _ => Err(format!("no ad {ad_id} in account {account}")),
    }
}

pub fn seed(st: &mut State, account_id: &str, s: &SeedAd) -> Result<i64, String> {
    account(st, account_id)?;
    let mut p = Params::default();
    let m = &mut p.map;
    m.insert("title".into(), json!(s.title));
    if !s.text.is_empty() {
        m.insert("text".into(), json!(s.text));
    }
    m.insert("promote_url".into(), json!(s.promote_url));
    if !ads::is_tme(&s.promote_url) {
        m.insert("website_name".into(), json!("Website"));
    }
    m.insert("cpm".into(), json!(s.cpm));
    m.insert("initial_budget".into(), json!(s.budget));
    m.insert("target".into(), s.target.clone());
    let id = ads::create(st, account_id, account_id, &p, true)
        .map_err(|code| format!("seed_ad: {code}"))?;
    let now = st.now;
    let ad = ad_mut(st, account_id, id)?;
    match s.status.as_str() {
        "ready_for_review" => ad.review = Review::Ready,
        "in_review" => ad.review = Review::Pending,
        "active" => ad.review = Review::Approved,
        "on_hold" => (ad.review, ad.is_paused) = (Review::Approved, true),
        "declined" => ad.review = Review::Declined(DeclineReason::new("Seeded as declined", None)),
        "stopped" => {
            ad.review = Review::Approved;
            if !ad.remaining.is_zero() {
                ad.deactivate_date = Some(now);
            }
        }
        other => return Err(format!("seed_ad: unknown status {other}")),
    }
    ad.settle(now);
    st.deliver(id, s.views, true);
    Ok(id)
}

pub fn approve(st: &mut State, account: &str, ad_id: i64) -> Result<(), String> {
    let now = st.now;
    let ad = ad_mut(st, account, ad_id)?;
    match ad.review {
        Review::Pending => ad.review = Review::Approved,
        Review::Approved => {}
        _ => {
            return Err(format!(
                "ad {ad_id} is {}, not in review",
                ad.status.as_str()
            ))
        }
    }
    ad.settle(now);
    Ok(())
}

/// Moderation declines an ad in review (or an approved one) with `reason`.
pub fn decline(
    st: &mut State,
    account: &str,
    ad_id: i64,
    reason: DeclineReason,
) -> Result<(), String> {
    let now = st.now;
    let ad = ad_mut(st, account, ad_id)?;
    match ad.review {
        Review::Pending | Review::Approved => ad.review = Review::Declined(reason),
        _ => {
            return Err(format!(
                "ad {ad_id} is {}, not in review",
                ad.status.as_str()
            ))
        }
    }
    ad.settle(now);
    Ok(())
}

pub fn deliver(st: &mut State, account: &str, ad_id: i64, views: i64) -> Result<i64, String> {
    ad_mut(st, account, ad_id)?;
    Ok(st.deliver(ad_id, views, false))
}

pub fn set_now(st: &mut State, unix: i64) {
    st.now = unix;
    st.settle_all();
    super::accounts::settle_transfers(st);
}

pub fn ad(st: &mut State, account: &str, ad_id: i64) -> Option<Value> {
    st.settle_all();
    let ad = st.own_ad(account, ad_id).ok()?;
    Some(reads::ad_json(st, ad, true))
}

pub fn total_money(st: &State, account_id: &str) -> Result<String, String> {
    let a = account(st, account_id)?;
    let ads: Decimal = st
        .ads_of(account_id)
        .filter(|ad| ad.deleted_at.is_none())
        .map(|ad| ad.remaining)
        .sum();
    let total = a.remaining + ads + reads::total_spent(st, account_id);
    Ok(total.normalize().to_string())
}

fn fault_arg(v: &Value) -> Result<Fault, String> {
    let kind = v
        .get("fault")
        .and_then(Value::as_str)
        .ok_or("fault: give \"fault\"")?;
    let int = |k: &str| v.get(k).and_then(int_value);
    Ok(match kind {
        "http429" => Fault::Http429 {
            retry_after: int("retry_after").map(|n| n as u64),
        },
        "flood_wait" => Fault::FloodWait(int("seconds").unwrap_or(1) as u64),
        "api_error" => Fault::ApiError(
            v.get("code")
                .and_then(Value::as_str)
                .ok_or("api_error needs code")?
                .into(),
        ),
        "gateway" => Fault::Gateway,
        "delay" => Fault::Delay(std::time::Duration::from_millis(
            int("ms").unwrap_or(0) as u64
        )),
        "drop" => Fault::Drop,
        "drop_before" => Fault::DropBefore,
        "hold" => Fault::Hold(std::time::Duration::from_millis(
            int("ms").unwrap_or(0) as u64
        )),
        other => return Err(format!("unknown fault {other}")),
    })
}

/// `/_fake/<name>` with a JSON object (or query string) of arguments.
pub fn dispatch(st: &mut State, name: &str, args: &Value) -> Result<Value, String> {
    let empty = Map::new();
    let a = args.as_object().unwrap_or(&empty);
    let s = |k: &str| -> Result<String, String> {
        match a.get(k) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.as_str().to_string()),
            _ => Err(format!("{name}: give {k}")),
        }
    };
    let i = |k: &str| {
        a.get(k)
            .and_then(int_value)
            .ok_or_else(|| format!("{name}: give {k} (integer)"))
    };
    let b = |k: &str| {
        matches!(a.get(k), Some(Value::Bool(true)))
            || a.get(k).and_then(Value::as_str) == Some("true")
    };
    Ok(match name {
        "approve" => approve(st, &s("account_id")?, i("ad_id")?).map(|()| json!(true))?,
        "decline" => {
            let text = s("reason").unwrap_or_else(|_| "Declined by the fake".into());
            let html = s("description_html").ok();
            let reason = DeclineReason::new(&text, html.as_deref());
            decline(st, &s("account_id")?, i("ad_id")?, reason).map(|()| json!(true))?
        }
        "deliver" => json!({"served": deliver(st, &s("account_id")?, i("ad_id")?, i("views")?)?}),
        "advance" => {
            set_now(st, st.now + i("seconds")?);
            json!({"now": st.now})
        }
        "set_now" => {
            set_now(st, i("unix")?);
            json!({"now": st.now})
        }
        "now" => json!({"now": st.now}),
        "add_account" => {
            let balance = s("balance").unwrap_or_else(|_| "0".into());
            let (id, token) = add_account(st, &s("currency")?, &s("title")?, &balance, b("main"))?;
            json!({"account_id": id, "token": token})
        }
        "add_related" => {
            let balance = s("balance").unwrap_or_else(|_| "0".into());
            json!({"account_id": add_related(st, &s("main")?, &s("currency")?, &s("title")?, &balance)?})
        }
        "seed_ad" => {
            let mut sd = SeedAd::default();
            let fields = [
                ("title", &mut sd.title),
                ("text", &mut sd.text),
                ("promote_url", &mut sd.promote_url),
                ("cpm", &mut sd.cpm),
                ("budget", &mut sd.budget),
                ("status", &mut sd.status),
            ];
            for (k, f) in fields {
                if let Ok(v) = s(k) {
                    *f = v;
                }
            }
            if let Some(t) = a.get("target") {
                sd.target = t.clone();
            }
            sd.views = i("views").unwrap_or(0);
            json!({"ad_id": seed(st, &s("account_id")?, &sd)?})
        }
        "delay_transfers" => {
            st.opts.transfer_delay = i("seconds")?.max(0);
            json!(true)
        }
        "revoke_token" => json!(st.tokens.remove(&s("token")?).is_some()),
        "new_token" => {
            let id = s("account_id")?;
            account(st, &id)?;
            json!({"token": st.new_token(&id)})
        }
        "fail_next" => {
            let count = i("count").unwrap_or(1).max(0) as u32;
            let method = s("method").ok();
            if count > 0 {
                st.faults.push(FaultRule {
                    fault: fault_arg(args)?,
                    method,
                    left: count,
                });
            }
            json!(true)
        }
        "calls" => {
            let calls = st.calls.iter().map(|(_, c)| {
                json!({"method": c.method, "token": c.token, "idempotency_key": c.idempotency_key, "replayed": c.replayed})
            });
            Value::Array(calls.collect())
        }
        "reset_calls" => {
            st.calls.clear();
            json!(true)
        }
        "ad" => ad(st, &s("account_id")?, i("ad_id")?).unwrap_or(Value::Null),
        "balance" => {
            let a = account(st, &s("account_id")?)?;
            json!({"remaining_budget": money(a.remaining), "money_moves": a.money_moves})
        }
        "total_money" => json!(total_money(st, &s("account_id")?)?),
        _ => return Err(format!("unknown control {name}")),
    })
}
