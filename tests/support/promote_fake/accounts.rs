//! Account methods (§9.1): the current account, related accounts of a main account,
//! AccountInfo, main ↔ related transfers with TransactionStatus (settling at once, or after
//! the fake's transfer delay); and the uploads (§9.3).

use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::params::{Params, Upload};
use super::state::{
    err, money, round, AcctPeer, AcctTx, ApiResult, Media, MediaKind, State, Transfer,
};

pub fn info_json(st: &State, id: &str) -> Value {
    let a = st.acct(id);
    let mut v = json!({
        "account_id": a.id,
        "title": a.title,
        "full_name": a.info.full_name,
        "email": a.info.email,
        "phone_number": a.info.phone_number,
        "country": a.info.country,
        "city": a.info.city,
    });
    if let Some(l) = &a.info.legal_name {
        v["legal_name"] = json!(l);
    }
    v
}

/// The related accounts of `main`, in creation order.
pub fn related(st: &State, main: &str) -> Vec<String> {
    let of_main = |id: &&String| st.acct(id).parent.as_deref() == Some(main);
    st.order.iter().filter(of_main).cloned().collect()
}

pub fn accounts_by_id(st: &State, me: &str, p: &Params) -> ApiResult {
    let ids = p
        .array("account_ids", "ACCOUNT_IDS_INVALID")?
        .filter(|v| !v.is_empty())
        .ok_or("ACCOUNT_IDS_REQUIRED")?;
    let mut out = Vec::new();
    for v in ids {
        let id = v
            .as_str()
            .map(str::to_string)
            .or_else(|| v.as_number().map(|n| n.as_str().to_string()));
        let id = id.ok_or("ACCOUNT_IDS_INVALID")?;
        let mine = st
            .accounts
            .get(&id)
            .is_some_and(|a| id == me || a.parent.as_deref() == Some(me));
        if mine {
            out.push(st.account_json(&id));
        }
    }
    Ok(Value::Array(out))
}

pub fn related_list(st: &State, me: &str, p: &Params) -> ApiResult {
    let all = related(st, me);
    let offset = p.int("offset", "OFFSET_INVALID")?.unwrap_or(0);
    let limit = p.int("limit", "LIMIT_INVALID")?;
    if offset < 0 {
        return err("OFFSET_INVALID");
    }
    if limit.is_some_and(|l| l < 0) {
        return err("LIMIT_INVALID");
    }
    let take = limit.map_or(usize::MAX, |l| l as usize);
    let page: Vec<Value> = all
        .iter()
        .skip(offset as usize)
        .take(take)
        .map(|id| st.account_json(id))
        .collect();
    Ok(json!({"total_count": all.len(), "accounts": page}))
}

/// Checks the AccountInfo fields present in `p` (all of them when `creating`) and stores them.
fn info_fields(p: &Params, creating: bool) -> Result<Vec<(String, String)>, String> {
    let fields: [(&str, usize, usize); 7] = [
        ("title", 1, 128),
        ("full_name", 1, 256),
        ("email", 1, 64),
        ("phone_number", 1, 64),
        ("country", 1, 128),
        ("city", 1, 128),
        ("legal_name", 0, 256),
    ];
    let mut out = Vec::new();
    for (name, min, max) in fields {
        let up = name.to_ascii_uppercase();
        match p.str(name, &format!("{up}_INVALID"))? {
            None if creating && min > 0 => return err(&format!("{up}_REQUIRED")),
            None => {}
            Some(v) if v.chars().count() < min => return err(&format!("{up}_REQUIRED")),
            Some(v) if v.chars().count() > max => return err(&format!("{up}_TOO_LONG")),
            Some(v) if name == "email" && !v.contains('@') => return err("EMAIL_INVALID"),
            Some(v) => out.push((name.to_string(), v)),
        }
    }
    Ok(out)
}

fn store_info(st: &mut State, id: &str, fields: Vec<(String, String)>) {
    let a = st.acct_mut(id);
    for (name, v) in fields {
        match name.as_str() {
            "title" => a.title = v,
            "full_name" => a.info.full_name = v,
            "email" => a.info.email = v,
            "phone_number" => a.info.phone_number = v,
            "country" => a.info.country = v,
            "city" => a.info.city = v,
            _ => a.info.legal_name = Some(v).filter(|v| !v.is_empty()),
        }
    }
}

pub fn create_account(st: &mut State, me: &str, p: &Params) -> ApiResult {
    let fields = info_fields(p, true)?;
    let cur = st.acct(me).cur;
    let id = st.add_account(cur, "", false, Some(me));
    store_info(st, &id, fields);
    Ok(info_json(st, &id))
}

pub fn edit_info(st: &mut State, acting: &str, p: &Params) -> ApiResult {
    let fields = info_fields(p, false)?;
    store_info(st, acting, fields);
    Ok(info_json(st, acting))
}

fn transfer_json(st: &State, id: &str) -> Value {
    let t = &st.transfers[id];
    let mut v = json!({
        "transaction_id": id,
        "status": t.status,
        "currency": st.acct(&t.related).cur.code(),
        "amount": money(t.amount),
        "main_account": st.account_json(&t.main),
        "related_account": st.account_json(&t.related),
    });
    if let Some(e) = t.error {
        v["error"] = json!(e);
    }
    v
}

/// Moves a transfer's money (as seen by the related account: `signed` > 0 is main → related)
/// and books it on both accounts.
fn move_money(st: &mut State, main: &str, related: &str, signed: Decimal) {
    let (seq, date) = (st.next_seq(), st.now);
    let m = st.acct_mut(main);
    m.remaining -= signed;
    m.money_moves += 1;
    m.txs.push(AcctTx {
        seq,
        date,
        amount: -signed,
        peer: AcctPeer::Related(related.to_string()),
    });
    let rel = st.acct_mut(related);
    rel.remaining += signed;
    rel.money_moves += 1;
    rel.txs.push(AcctTx {
        seq,
        date,
        amount: signed,
        peer: AcctPeer::MainAccount,
    });
}

/// Settles every in-progress transfer whose time has come: the money moves, or, when the
/// source no longer has it, the transfer fails with `NOT_ENOUGH_BUDGET`.
pub fn settle_transfers(st: &mut State) {
    let now = st.now;
    let mut due: Vec<String> = st
        .transfers
        .iter()
        .filter(|(_, t)| t.status == "in_progress" && t.settles_at <= now)
        .map(|(id, _)| id.clone())
        .collect();
    due.sort();
    for id in due {
        let (main, related, signed) = {
            let t = &st.transfers[&id];
            (t.main.clone(), t.related.clone(), t.amount)
        };
        let from = if signed > Decimal::ZERO {
            &main
        } else {
            &related
        };
        let short = st.acct(from).remaining < signed.abs();
        let t = st.transfers.get_mut(&id).expect("a due transfer");
        if short {
            t.status = "failed";
            t.error = Some("NOT_ENOUGH_BUDGET");
        } else {
            t.status = "completed";
            move_money(st, &main, &related, signed);
        }
    }
}

/// increase/decreaseAccountBudget: completes at once, or stays `in_progress` for the fake's
/// transfer delay. The amount is in the related account's currency and moves as the same
/// number (the sources know no conversion).
pub fn transfer(st: &mut State, me: &str, p: &Params, to_related: bool) -> ApiResult {
    let related = p
        .str("account_id", "ACCOUNT_ID_INVALID")?
        .ok_or("ACCOUNT_ID_REQUIRED")?;
    if st
        .accounts
        .get(&related)
        .is_none_or(|a| a.parent.as_deref() != Some(me))
    {
        return err("ACCOUNT_ID_INVALID");
    }
    let cur = st.acct(&related).cur;
    let amount = p
        .dec("amount", "AMOUNT_INVALID")?
        .ok_or("AMOUNT_REQUIRED")?;
    let amount = round(amount, cur.transfer_dp());
    if amount <= Decimal::ZERO {
        return err("AMOUNT_INVALID");
    }
    let from = if to_related { me } else { related.as_str() };
    if st.acct(from).remaining < amount {
        return err("NOT_ENOUGH_BUDGET");
    }
    let signed = if to_related { amount } else { -amount };
    let delay = st.opts.transfer_delay;
    let status = if delay > 0 {
        "in_progress"
    } else {
        move_money(st, me, &related, signed);
        "completed"
    };
    let id = st.new_id("tx");
    st.transfers.insert(
        id.clone(),
        Transfer {
            main: me.to_string(),
            related,
            amount: signed,
            status,
            settles_at: st.now + delay,
            error: None,
        },
    );
    Ok(transfer_json(st, &id))
}

pub fn transaction_status(st: &State, me: &str, p: &Params) -> ApiResult {
    let id = p
        .str("transaction_id", "TRANSACTION_ID_INVALID")?
        .ok_or("TRANSACTION_ID_REQUIRED")?;
    match st.transfers.get(&id) {
        Some(t) if t.main == me => Ok(transfer_json(st, &id)),
        _ => err("TRANSACTION_ID_INVALID"),
    }
}

/// uploadAdPhoto / uploadAdVideo / uploadWebsitePhoto: size and magic bytes only; the
/// dimension, ratio and duration checks of §9.3 are skipped (the fake does not decode media).
pub fn upload(st: &mut State, acting: &str, method: &str, file: Option<&Upload>) -> ApiResult {
    let (kind, max, video) = match method {
        "uploadAdPhoto" => (MediaKind::AdPhoto, 5 << 20, false),
        "uploadAdVideo" => (MediaKind::AdVideo, 20 << 20, true),
        _ => (MediaKind::WebsitePhoto, 1 << 20, false),
    };
    let bytes = &file.ok_or("FILE_REQUIRED")?.bytes;
    if bytes.is_empty() {
        return err("FILE_EMPTY");
    }
    if bytes.len() > max {
        return err("FILE_SIZE_INVALID");
    }
    let jpeg = bytes.starts_with(&[0xFF, 0xD8, 0xFF]);
    let png = bytes.starts_with(&[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]);
    let mp4 = bytes.get(4..8) == Some(b"ftyp".as_slice());
    let (ok, ext) = if video {
        (mp4, "mp4")
    } else {
        (jpeg || png, if png { "png" } else { "jpg" })
    };
    if !ok {
        return err("FILE_TYPE_INVALID");
    }
    let id = st.new_id(if video { "v" } else { "p" });
    let url = format!("https://promote-fake.invalid/media/{id}.{ext}");
    let media = Media {
        account: acting.to_string(),
        kind,
        url: url.clone(),
    };
    st.media.insert(id.clone(), media);
    Ok(if video {
        json!({"video_id": id, "video_url": url})
    } else {
        json!({"photo_id": id, "photo_url": url})
    })
}
