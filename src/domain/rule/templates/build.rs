//! Owns what each template of the library writes: its conditions, action and guards, with its
//! parameters filled in by [`Fill`] (which notes the body path each one went to).

use serde_json::{json, Value};

use super::Fill;
use crate::domain::money::CabinetType;
use crate::domain::{ParseError, Why};

fn cond(metric: &str, op: &str, value: Value, window: u32) -> Value {
    json!({ "metric": metric, "op": op, "value": value, "window_hours": window })
}

pub(super) fn stop_loss(f: &mut Fill) -> Result<Value, ParseError> {
    let w = f.window(&[
        "conditions.all[0].window_hours",
        "conditions.all[1].window_hours",
    ])?;
    let spend = f.put("spend", "conditions.all[0].value")?;
    Ok(json!({
        "conditions": {"all": [
            cond("spent", ">", spend, w),
            cond("actions", "=", json!("0"), w),
        ]},
        "action": {"type": "pause"},
        "cooldown_hours": 24,
        "max_runs_per_day": 1,
    }))
}

pub(super) fn scale_winners(f: &mut Fill) -> Result<Value, ParseError> {
    let w = f.window(&[
        "conditions.all[0].window_hours",
        "conditions.all[1].window_hours",
    ])?;
    let cpa = f.put("max_cpa", "conditions.all[0].value")?;
    let actions = f.put("min_actions", "conditions.all[1].value")?;
    let percent = f.percent("percent", 1, 500)?;
    let max_cpm = f.put("max_cpm", "action.max_cpm")?;
    // The floor of a raise: the smallest bid the currency writes.
    let floor = match f.kind {
        CabinetType::Euro | CabinetType::Ton => "0.01",
        CabinetType::Stars => "1",
    };
    Ok(json!({
        "conditions": {"all": [
            cond("cpa", "<", cpa, w),
            cond("actions", ">=", actions, w),
        ]},
        "action": {"type": "change_cpm", "percent": percent.to_string(),
                   "min_cpm": floor, "max_cpm": max_cpm},
        "cooldown_hours": 24,
        "max_runs_per_day": 1,
    }))
}

pub(super) fn pause_low_ctr(f: &mut Fill) -> Result<Value, ParseError> {
    let w = f.window(&[
        "conditions.all[0].window_hours",
        "conditions.all[1].window_hours",
    ])?;
    let ctr = f.put("ctr", "conditions.all[0].value")?;
    let views = f.put("min_views", "conditions.all[1].value")?;
    Ok(json!({
        "conditions": {"all": [
            cond("ctr", "<", ctr, w),
            cond("views", ">=", views, w),
        ]},
        "action": {"type": "pause"},
        "cooldown_hours": 24,
        "max_runs_per_day": 1,
    }))
}

pub(super) fn refill_budget(f: &mut Fill) -> Result<Value, ParseError> {
    let below = f.put("below", "conditions.all[0].value")?;
    let amount = f.put("amount", "action.amount")?;
    let max = f.put("max_per_day", "action.max_per_day")?;
    Ok(json!({
        "conditions": {"all": [
            {"metric": "budget", "op": "<", "value": below},
            {"metric": "status", "op": "=", "value": "active"},
        ]},
        "action": {"type": "add_budget", "amount": amount, "max_per_day": max},
        "cooldown_hours": 1,
        "max_runs_per_day": 24,
    }))
}

pub(super) fn bid_down_high_cpa(f: &mut Fill) -> Result<Value, ParseError> {
    let w = f.window(&["conditions.all[0].window_hours"])?;
    let cpa = f.put("max_cpa", "conditions.all[0].value")?;
    let percent = f.percent("percent", 1, 90)?;
    let min_cpm = f.put("min_cpm", "action.min_cpm")?;
    // The ceiling of a lowering step never binds: a bid only goes down here.
    let ceiling = match f.kind {
        CabinetType::Euro | CabinetType::Ton => "100000",
        CabinetType::Stars => "10000000",
    };
    Ok(json!({
        "conditions": {"all": [cond("cpa", ">", cpa, w)]},
        "action": {"type": "change_cpm", "percent": (-percent).to_string(),
                   "min_cpm": min_cpm, "max_cpm": ceiling},
        "cooldown_hours": 12,
        "max_runs_per_day": 2,
    }))
}

fn hour_is(op: &str, hour: u32) -> Value {
    json!({ "metric": "hour", "op": op, "value": hour.to_string() })
}

pub(super) fn night_pause(f: &mut Fill) -> Result<Value, ParseError> {
    let from = f.int("from_hour", 0, 23)?;
    let to = f.int("to_hour", 0, 23)?;
    if from == to {
        return Err(
            ParseError::new("params.to_hour", "to_hour must differ from from_hour.")
                .because(Why::Order),
        );
    }
    // Over midnight (23 to 7) either end holds; within a day (1 to 5) both must.
    let hours = if from > to {
        json!({"any": [hour_is(">=", from), hour_is("<", to)]})
    } else {
        json!({"all": [hour_is(">=", from), hour_is("<", to)]})
    };
    Ok(json!({
        "conditions": {"all": [
            hours,
            {"metric": "status", "op": "=", "value": "active"},
        ]},
        "action": {"type": "pause"},
        "cooldown_hours": 0,
        "max_runs_per_day": 24,
    }))
}

pub(super) fn morning_resume(f: &mut Fill) -> Result<Value, ParseError> {
    let hour = f.int("hour", 0, 23)?;
    Ok(json!({
        // Resuming plans a change only for a campaign switched off.
        "conditions": {"all": [hour_is("=", hour)]},
        "action": {"type": "resume"},
        "cooldown_hours": 0,
        "max_runs_per_day": 24,
    }))
}
