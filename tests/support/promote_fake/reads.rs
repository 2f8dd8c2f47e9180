//! Reads: the `Ad` object (§10.2), getAdsById, cursor paging newest first (§12), ad and
//! account transaction lists, stats series (§11) and the monthly account report.

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::params::{int_value, Params};
use super::state::{err, money, AcctPeer, Ad, AdPeer, ApiResult, Review, Row, State};
use super::target;

fn media_json(st: &State, key: &str, id: &str) -> Value {
    let url = st.media.get(id).map(|m| m.url.clone()).unwrap_or_default();
    json!({ format!("{key}_id"): id, format!("{key}_url"): url })
}

/// The `Ad` object as getAdsById returns it; the ad must be settled to `st.now`.
pub fn ad_json(st: &State, ad: &Ad, with_target: bool) -> Value {
    let mut v = json!({
        "ad_id": ad.id,
        "title": ad.title,
        "currency": ad.cur.code(),
        "promote_url": ad.promote_url,
        "cpm": money(ad.cpm),
        "placement": ad.placement,
        "spent_budget": money(ad.spent),
        "remaining_budget": money(ad.remaining),
        "views": ad.views,
        "clicks": ad.clicks,
        "opens": ad.opens,
        "actions": ad.actions,
        "created_date": ad.created_date,
        "is_paused": ad.is_paused,
        "status": ad.status.as_str(),
    });
    let o = v.as_object_mut().expect("object");
    let mut put = |k: &str, x: Option<Value>| {
        if let Some(x) = x {
            o.insert(k.to_string(), x);
        }
    };
    put("text", ad.text.clone().map(Value::from));
    put(
        "photo",
        ad.photo.as_ref().map(|id| media_json(st, "photo", id)),
    );
    put(
        "video",
        ad.video.as_ref().map(|id| media_json(st, "video", id)),
    );
    put(
        "target",
        with_target.then(|| target::render(st, &ad.target)),
    );
    put(
        "impression_frequency",
        (ad.impression_frequency != 1).then(|| json!(ad.impression_frequency)),
    );
    put("website_name", ad.website_name.clone().map(Value::from));
    put(
        "website_photo",
        ad.website_photo
            .as_ref()
            .map(|id| media_json(st, "photo", id)),
    );
    put("button", ad.button.clone().map(Value::from));
    put(
        "conversion_event_id",
        ad.conversion_event_id.clone().map(Value::from),
    );
    put(
        "additional_info",
        ad.additional_info.clone().map(Value::from),
    );
    put("show_userpic", ad.show_userpic.then_some(Value::Bool(true)));
    put("daily_budget_limit", ad.daily_limit.map(money));
    put(
        "daily_spent_budget",
        ad.daily_limit.map(|_| money(ad.daily_spent(st.now))),
    );
    put("activate_date", ad.activate_date.map(Value::from));
    put("deactivate_date", ad.deactivate_date.map(Value::from));
    put("schedule", ad.schedule.clone());
    put("action_type", Some(json!(action_type(&ad.promote_url))));
    if let Review::Declined(reason) = &ad.review {
        put(
            "decline_reason",
            Some(json!({"text": reason.text, "description_html": reason.description_html})),
        );
    }
    v
}

fn action_type(url: &str) -> &'static str {
    if !super::ads::is_tme(url) {
        "page_view"
    } else if url
        .split('?')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
        .trim_end_matches('/')
        .ends_with("bot")
    {
        "start_bot"
    } else {
        "join"
    }
}

/// One page of a newest-first list whose keys are given in descending order.
fn page(
    keys: &[u64],
    prefix: &str,
    p: &Params,
    max: i64,
) -> Result<(Vec<u64>, Option<String>), String> {
    let limit = p.int("limit", "LIMIT_INVALID")?.unwrap_or(100);
    if !(0..=max).contains(&limit) {
        return err("LIMIT_INVALID");
    }
    let start = match p.json("offset") {
        None => 0,
        Some(Value::String(s)) if s.is_empty() => 0,
        Some(Value::String(s)) => {
            let key: u64 = s
                .strip_prefix(prefix)
                .and_then(|n| n.parse().ok())
                .ok_or("OFFSET_INVALID")?;
            keys.iter().position(|k| *k < key).unwrap_or(keys.len())
        }
        Some(v) => int_value(&v)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or("OFFSET_INVALID")?,
    };
    let end = (start + limit as usize).min(keys.len());
    let items = keys.get(start..end).unwrap_or(&[]).to_vec();
    let next = (limit > 0 && end < keys.len()).then(|| format!("{prefix}{}", keys[end - 1]));
    Ok((items, next))
}

fn return_target(p: &Params) -> Result<bool, String> {
    Ok(p.bool("return_target", "RETURN_TARGET_INVALID")?
        .unwrap_or(false))
}

pub fn ads_by_id(st: &State, acting: &str, p: &Params) -> ApiResult {
    let ids = p
        .ints("ad_ids", "AD_IDS_INVALID")?
        .filter(|i| !i.is_empty())
        .ok_or("AD_IDS_REQUIRED")?;
    let with_target = return_target(p)?;
    let found = ids.iter().filter_map(|id| st.own_ad(acting, *id).ok());
    Ok(found.map(|ad| ad_json(st, ad, with_target)).collect())
}

pub fn ads_list(st: &State, acting: &str, p: &Params) -> ApiResult {
    let with_target = return_target(p)?;
    let keys: Vec<u64> = st
        .ads_of(acting)
        .rev()
        .filter(|ad| ad.deleted_at.is_none())
        .map(|ad| ad.id as u64)
        .collect();
    let (items, next) = page(&keys, "a:", p, 100)?;
    let ads: Vec<Value> = items
        .iter()
        .map(|id| ad_json(st, &st.ads[&(*id as i64)], with_target))
        .collect();
    let mut out = json!({"total_count": keys.len(), "ads": ads});
    if let Some(n) = next {
        out["next_offset"] = json!(n);
    }
    Ok(out)
}

pub fn ad_transactions(st: &State, acting: &str, p: &Params) -> ApiResult {
    let ad = st.own_ad(acting, super::ads::ad_id(p)?)?;
    let keys: Vec<u64> = ad.txs.iter().rev().map(|t| t.seq).collect();
    let (items, next) = page(&keys, "t:", p, 1000)?;
    let list: Vec<Value> = items
        .iter()
        .filter_map(|seq| ad.txs.iter().find(|t| t.seq == *seq))
        .map(|t| {
            let peer = match t.peer {
                AdPeer::Account => json!({"type": "account"}),
                AdPeer::Views(n) => json!({"type": "views", "views": n}),
            };
            json!({"peer": peer, "date": t.date, "currency": ad.cur.code(), "amount": money(t.amount)})
        })
        .collect();
    let mut out = json!({"total_count": keys.len(), "transactions": list});
    if let Some(n) = next {
        out["next_offset"] = json!(n);
    }
    Ok(out)
}

pub fn account_transactions(st: &State, acting: &str, p: &Params) -> ApiResult {
    let a = st.acct(acting);
    let keys: Vec<u64> = a.txs.iter().rev().map(|t| t.seq).collect();
    let (items, next) = page(&keys, "t:", p, 1000)?;
    let list: Vec<Value> = items
        .iter()
        .filter_map(|seq| a.txs.iter().find(|t| t.seq == *seq))
        .map(|t| {
            let peer = match &t.peer {
                AcctPeer::External(c) if c.is_empty() => json!({"type": "external"}),
                AcctPeer::External(c) => json!({"type": "external", "comment": c}),
                AcctPeer::MainAccount => json!({"type": "main_account"}),
                AcctPeer::Related(id) => json!({
                    "type": "related_account",
                    "account_id": id,
                    "account_title": st.accounts.get(id).map(|r| r.title.clone()).unwrap_or_default(),
                }),
                AcctPeer::Ad(id) => {
                    let ad = st.ads.get(id);
                    json!({
                        "type": "ad",
                        "ad_id": id,
                        "ad_title": ad.map(|ad| ad.title.clone()).unwrap_or_default(),
                        "ad_is_deleted": ad.is_none_or(|ad| ad.deleted_at.is_some()),
                    })
                }
            };
            json!({"peer": peer, "date": t.date, "currency": a.cur.code(), "amount": money(t.amount)})
        })
        .collect();
    let mut out = json!({"total_count": keys.len(), "transactions": list});
    if let Some(n) = next {
        out["next_offset"] = json!(n);
    }
    Ok(out)
}

fn row_json(r: &Row, currency: &str) -> Value {
    json!({
        "views": r.views,
        "opens": r.opens,
        "clicks": r.clicks,
        "actions": r.actions,
        "currency": currency,
        "spent_budget": money(r.spent),
    })
}

/// from_time / to_time / interval per §11: rounded down, at most 1000 intervals.
fn range(p: &Params) -> Result<(i64, i64, i64), String> {
    let interval = p.int("interval", "INTERVAL_INVALID")?.unwrap_or(86400);
    if interval != 300 && interval != 86400 {
        return err("INTERVAL_INVALID");
    }
    let from = p
        .int("from_time", "FROM_TIME_INVALID")?
        .ok_or("FROM_TIME_REQUIRED")?;
    let to = p
        .int("to_time", "TO_TIME_INVALID")?
        .ok_or("TO_TIME_REQUIRED")?;
    let (from, to) = (
        from - from.rem_euclid(interval),
        to - to.rem_euclid(interval),
    );
    if to <= from || (to - from) / interval > 1000 {
        return err("TIME_RANGE_INVALID");
    }
    Ok((from, to, interval))
}

/// One dense row per interval, summed over `ads`.
fn series(ads: &[&Ad], currency: &str, p: &Params) -> ApiResult {
    let (from, to, interval) = range(p)?;
    let mut rows = Vec::new();
    let mut t = from;
    while t < to {
        let mut r = Row::default();
        for ad in ads {
            r.add(&ad.sum(t, t + interval));
        }
        let mut item = row_json(&r, currency);
        item["from_time"] = json!(t);
        item["to_time"] = json!(t + interval);
        rows.push(item);
        t += interval;
    }
    Ok(Value::Array(rows))
}

pub fn ad_stats(st: &State, acting: &str, p: &Params) -> ApiResult {
    let ad = st.own_ad(acting, super::ads::ad_id(p)?)?;
    series(&[ad], ad.cur.code(), p)
}

/// Stats of the whole account, deleted ads included (their spend stays spent).
pub fn account_stats(st: &State, acting: &str, p: &Params) -> ApiResult {
    let ads: Vec<&Ad> = st.ads_of(acting).collect();
    series(&ads, st.acct(acting).cur.code(), p)
}

/// One line per ad that existed during the month (UTC), deleted ones flagged.
pub fn account_report(st: &State, acting: &str, p: &Params) -> ApiResult {
    let year = p.int("year", "YEAR_INVALID")?.ok_or("YEAR_REQUIRED")?;
    let month = p.int("month", "MONTH_INVALID")?.ok_or("MONTH_REQUIRED")?;
    if !(2021..=2100).contains(&year) {
        return err("YEAR_INVALID");
    }
    if !(1..=12).contains(&month) {
        return err("MONTH_INVALID");
    }
    let first = NaiveDate::from_ymd_opt(year as i32, month as u32, 1).ok_or("MONTH_INVALID")?;
    let next = first
        .checked_add_months(chrono::Months::new(1))
        .ok_or("MONTH_INVALID")?;
    let ts = |d: NaiveDate| {
        d.and_hms_opt(0, 0, 0)
            .expect("midnight")
            .and_utc()
            .timestamp()
    };
    let (start, end) = (ts(first), ts(next));
    debug_assert_eq!(first.month() as i64, month);
    let cur = st.acct(acting).cur.code();
    let lines = st
        .ads_of(acting)
        .filter(|ad| ad.created_date < end && ad.deleted_at.is_none_or(|d| d >= start))
        .map(|ad| {
            let mut item = row_json(&ad.sum(start, end), cur);
            item["ad_id"] = json!(ad.id);
            item["ad_title"] = json!(ad.title);
            item["ad_is_deleted"] = json!(ad.deleted_at.is_some());
            item
        });
    Ok(lines.collect())
}

/// Sum of spend, for the money self-checks.
pub fn total_spent(st: &State, account: &str) -> Decimal {
    st.ads_of(account).map(|ad| ad.spent).sum()
}
