//! Ad writes (§9.2, §13): createAd and seeding, editAd with its review rule, editAdStatus,
//! increase/decreaseAdBudget, submitAdForReview and deleteAd with the 10-minute rule.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde_json::Value;

use super::params::Params;
use super::state::{err, round, Ad, MediaKind, Review, State, Status};
use super::target::{self, Target};

const BUTTONS: &[&str] = &[
    "subscribe",
    "view",
    "read",
    "learn_more",
    "download",
    "open",
    "sign_up",
    "buy",
    "order",
    "play",
    "try",
    "leave_request",
];

/// A t.me / telegram.me link (anything else is an external website).
pub fn is_tme(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or(url);
    ["t.me/", "telegram.me/"]
        .iter()
        .any(|p| rest.strip_prefix(p).is_some_and(|r| !r.is_empty()))
}

fn valid_url(url: &str) -> bool {
    if url.chars().any(char::is_whitespace) {
        return false;
    }
    if is_tme(url) {
        return true;
    }
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    rest.and_then(|r| r.split('/').next())
        .is_some_and(|host| host.contains('.') && !host.starts_with('.'))
}

/// An amount in the budget precision that must be > 0 (`bad` otherwise).
fn positive(
    st: &State,
    acting: &str,
    p: &Params,
    name: &str,
    bad: &str,
) -> Result<Option<Decimal>, String> {
    let cur = st.acct(acting).cur;
    match p.dec(name, bad)? {
        None => Ok(None),
        Some(d) => {
            let d = round(d, cur.budget_dp());
            if d <= Decimal::ZERO {
                err(bad)
            } else {
                Ok(Some(d))
            }
        }
    }
}

fn non_negative(
    st: &State,
    acting: &str,
    p: &Params,
    name: &str,
    bad: &str,
) -> Result<Option<Decimal>, String> {
    let cur = st.acct(acting).cur;
    match p.dec(name, bad)? {
        Some(d) if d < Decimal::ZERO => err(bad),
        d => Ok(d.map(|d| round(d, cur.budget_dp()))),
    }
}

fn media(
    st: &State,
    acting: &str,
    id: &str,
    kind: MediaKind,
    bad: &str,
) -> Result<Option<String>, String> {
    if id.is_empty() {
        return Ok(None);
    }
    match st.media.get(id) {
        Some(m) if m.account == acting && m.kind == kind => Ok(Some(id.to_string())),
        _ => err(bad),
    }
}

fn date(st: &State, p: &Params, name: &str, bad: &str) -> Result<Option<i64>, String> {
    match p.int(name, bad)? {
        None => Ok(None),
        Some(d) if d <= st.now || d > st.now + 365 * 86400 => err(bad),
        Some(d) => Ok(Some((d + 59).div_euclid(60) * 60)),
    }
}

/// The fields that send a funded approved or declined ad back to moderation (§9.2 [F]).
fn review_fields(ad: &Ad) -> Vec<Option<String>> {
    vec![
        ad.text.clone(),
        ad.photo.clone(),
        ad.video.clone(),
        Some(ad.promote_url.clone()),
        Some(ad.cpm.normalize().to_string()),
        ad.website_name.clone(),
        ad.website_photo.clone(),
        ad.button.clone(),
        ad.conversion_event_id.clone(),
        ad.additional_info.clone(),
        Some(ad.show_userpic.to_string()),
    ]
}

/// Applies every optional createAd/editAd field present in `p` to `ad`, then checks the
/// combination. `creating` decides how `is_paused` and the dates interact.
fn apply(st: &State, acting: &str, ad: &mut Ad, p: &Params, creating: bool) -> Result<(), String> {
    let search = matches!(ad.target, Target::Search { .. });
    if let Some(t) = p.str("title", "AD_TITLE_INVALID")? {
        if t.is_empty() {
            return err("AD_TITLE_REQUIRED");
        }
        if t.len() > 128 {
            return err("AD_TITLE_TOO_LONG");
        }
        ad.title = t;
    }
    if let Some(t) = p.str("text", "TEXT_INVALID")? {
        if t.chars().count() > 160 {
            return err("TEXT_TOO_LONG");
        }
        ad.text = Some(t).filter(|t| !t.is_empty());
    }
    if let Some(u) = p.str("promote_url", "PROMOTE_URL_INVALID")? {
        if u.is_empty() {
            return err("PROMOTE_URL_REQUIRED");
        }
        if u.chars().count() > 256 {
            return err("PROMOTE_URL_TOO_LONG");
        }
        if !valid_url(&u) {
            return err("PROMOTE_URL_INVALID");
        }
        ad.promote_url = u;
    }
    if let Some(c) = p.dec("cpm", "CPM_INVALID")? {
        let c = round(c, ad.cur.budget_dp());
        if c <= Decimal::ZERO {
            return err("CPM_INVALID");
        }
        if c < st.min_cpm(ad.cur) {
            return err("CPM_TOO_LOW");
        }
        ad.cpm = c;
    }
    let photo = p.str("photo_id", "PHOTO_ID_INVALID")?;
    let video = p.str("video_id", "VIDEO_ID_INVALID")?;
    if photo.as_deref().is_some_and(|s| !s.is_empty())
        && video.as_deref().is_some_and(|s| !s.is_empty())
    {
        return err("MEDIA_INVALID");
    }
    if let Some(id) = photo {
        ad.photo = media(st, acting, &id, MediaKind::AdPhoto, "PHOTO_ID_INVALID")?;
        if ad.photo.is_some() {
            ad.video = None;
        }
    }
    if let Some(id) = video {
        ad.video = media(st, acting, &id, MediaKind::AdVideo, "VIDEO_ID_INVALID")?;
        if ad.video.is_some() {
            ad.photo = None;
        }
    }
    if let Some(f) = p.int("impression_frequency", "IMPRESSION_FREQUENCY_INVALID")? {
        if !(1..=4).contains(&f) {
            return err("IMPRESSION_FREQUENCY_INVALID");
        }
        ad.impression_frequency = f;
    }
    let sent_name = p.str("website_name", "WEBSITE_NAME_INVALID")?;
    if let Some(n) = &sent_name {
        if n.chars().count() > 40 {
            return err("WEBSITE_NAME_INVALID");
        }
        ad.website_name = Some(n.clone()).filter(|n| !n.is_empty());
    }
    let sent_photo = p.str("website_photo_id", "WEBSITE_PHOTO_ID_INVALID")?;
    if let Some(id) = &sent_photo {
        ad.website_photo = media(
            st,
            acting,
            id,
            MediaKind::WebsitePhoto,
            "WEBSITE_PHOTO_ID_INVALID",
        )?;
    }
    let sent_button = p.str("button", "BUTTON_INVALID")?;
    if let Some(b) = &sent_button {
        if !b.is_empty() && !BUTTONS.contains(&b.as_str()) {
            return err("BUTTON_INVALID");
        }
        ad.button = Some(b.clone()).filter(|b| !b.is_empty());
    }
    if let Some(c) = p.str("conversion_event_id", "CONVERSION_EVENT_ID_INVALID")? {
        // Write-once, and pixels are off in the fake, so no event id can be new and valid.
        if ad.conversion_event_id.as_deref().unwrap_or("") != c {
            return err("CONVERSION_EVENT_ID_INVALID");
        }
    }
    if let Some(info) = p.str("additional_info", "ADDITIONAL_INFO_INVALID")? {
        let same = ad.additional_info.as_deref().unwrap_or("") == info;
        if !same {
            let allowed = st.acct(acting).info.legal_name.is_some() && ad.additional_info.is_none();
            if !allowed || info.chars().count() > 64 {
                return err("ADDITIONAL_INFO_INVALID");
            }
            ad.additional_info = Some(info);
        }
    }
    if let Some(b) = p.bool("show_userpic", "SHOW_USERPIC_INVALID")? {
        ad.show_userpic = b;
    }
    if let Some(d) = non_negative(
        st,
        acting,
        p,
        "daily_budget_limit",
        "DAILY_BUDGET_LIMIT_INVALID",
    )? {
        ad.daily_limit = Some(d).filter(|d| !d.is_zero());
    }
    let activate = date(st, p, "activate_date", "ACTIVATE_DATE_INVALID")?;
    let deactivate = date(st, p, "deactivate_date", "DEACTIVATE_DATE_INVALID")?;
    let paused = p.bool("is_paused", "IS_PAUSED_INVALID")?;
    if activate.is_some() || deactivate.is_some() {
        // A date wins over is_paused (§9.2).
        ad.activate_date = activate.or(ad.activate_date);
        ad.deactivate_date = deactivate.or(ad.deactivate_date);
        ad.is_paused = false;
        if let (Some(a), Some(d)) = (ad.activate_date, ad.deactivate_date) {
            if d <= a {
                return err("DEACTIVATE_DATE_INVALID");
            }
        }
    } else if let Some(paused) = paused {
        ad.is_paused = paused;
        if !creating {
            ad.activate_date = None;
            ad.deactivate_date = None;
        }
    }
    if let Some(s) = p.json("schedule") {
        ad.schedule = target::schedule(&s, matches!(ad.target, Target::Users { .. }))?;
    }
    // The combination.
    if ad.text.is_none() && !search {
        return err("TEXT_REQUIRED");
    }
    if (ad.photo.is_some() || ad.video.is_some())
        && !matches!(ad.target, Target::Channels { .. } | Target::Users { .. })
    {
        return err("MEDIA_INVALID");
    }
    if is_tme(&ad.promote_url) {
        let sent = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.is_empty());
        if sent(&sent_name) {
            return err("WEBSITE_NAME_INVALID");
        }
        if sent(&sent_photo) {
            return err("WEBSITE_PHOTO_ID_INVALID");
        }
        if sent(&sent_button) {
            return err("BUTTON_INVALID");
        }
        (ad.website_name, ad.website_photo, ad.button) = (None, None, None);
    } else if ad.website_name.is_none() {
        return err("WEBSITE_NAME_REQUIRED");
    }
    Ok(())
}

/// createAd for `acting`; `resolver` is the token's account. A seed (no API call) tops the
/// account up with any shortfall instead of failing, and its move is not counted.
pub fn create(
    st: &mut State,
    resolver: &str,
    acting: &str,
    p: &Params,
    seeding: bool,
) -> Result<i64, String> {
    let title = p
        .str("title", "AD_TITLE_INVALID")?
        .filter(|t| !t.is_empty())
        .ok_or("AD_TITLE_REQUIRED")?;
    let target_v = p.json("target").ok_or("TARGET_REQUIRED")?;
    let promote_url = p
        .str("promote_url", "PROMOTE_URL_INVALID")?
        .ok_or("PROMOTE_URL_REQUIRED")?;
    if !p.has("cpm") {
        return err("CPM_REQUIRED");
    }
    let target = target::parse(st, resolver, &target_v)?;
    let placement =
        target::placement(&target, p.str("placement", "PLACEMENT_INVALID")?.as_deref())?;
    let cur = st.acct(acting).cur;
    let now = st.now;
    let mut ad = Ad {
        id: st.next_ad,
        account: acting.to_string(),
        cur,
        title,
        text: None,
        promote_url,
        cpm: Decimal::ZERO,
        placement,
        target,
        photo: None,
        video: None,
        impression_frequency: 1,
        website_name: None,
        website_photo: None,
        button: None,
        conversion_event_id: None,
        additional_info: None,
        show_userpic: false,
        remaining: Decimal::ZERO,
        spent: Decimal::ZERO,
        daily_limit: None,
        is_paused: false,
        activate_date: None,
        deactivate_date: None,
        schedule: None,
        review: Review::Ready,
        created_date: now,
        deleted_at: None,
        views: 0,
        clicks: 0,
        opens: 0,
        actions: 0,
        stats: BTreeMap::new(),
        txs: Vec::new(),
        status: Status::ReadyForReview,
        settled_at: now,
        inactive_since: now,
    };
    apply(st, acting, &mut ad, p, true)?;
    let budget = non_negative(st, acting, p, "initial_budget", "INITIAL_BUDGET_INVALID")?
        .unwrap_or_default();
    let free = st.acct(acting).remaining;
    if budget > free {
        if !seeding {
            return err("NOT_ENOUGH_BUDGET");
        }
        st.top_up(acting, budget - free, "seed top-up");
    }
    let id = ad.id;
    st.next_ad += 1;
    st.insert_ad(ad);
    if budget > Decimal::ZERO {
        st.move_to_ad(id, budget, !seeding);
        st.ads.get_mut(&id).expect("just inserted").review = Review::Pending;
    }
    st.ads.get_mut(&id).expect("just inserted").settle(now);
    Ok(id)
}

/// editAd: only the sent fields change; see §9.2 for the review rule.
pub fn edit(st: &mut State, acting: &str, p: &Params) -> Result<i64, String> {
    let id = ad_id(p)?;
    for (field, code) in [
        ("target", "TARGET_INVALID"),
        ("placement", "PLACEMENT_INVALID"),
        ("initial_budget", "INITIAL_BUDGET_INVALID"),
    ] {
        if p.has(field) {
            return err(code);
        }
    }
    let mut ad = st.own_ad(acting, id)?.clone();
    let before = review_fields(&ad);
    apply(st, acting, &mut ad, p, false)?;
    let changed = review_fields(&ad) != before;
    let funded = !ad.remaining.is_zero();
    match ad.review {
        Review::Ready if funded => ad.review = Review::Pending,
        Review::Approved | Review::Declined(_) if changed => {
            // Back to moderation: the decline and its reason are gone.
            ad.review = if funded {
                Review::Pending
            } else {
                Review::Ready
            };
        }
        _ => {}
    }
    ad.settle(st.now);
    st.ads.insert(id, ad);
    Ok(id)
}

/// The deprecated editAdStatus, mapped onto is_paused.
pub fn edit_status(st: &mut State, acting: &str, p: &Params) -> Result<i64, String> {
    let status = p
        .str("status", "AD_STATUS_INVALID")?
        .ok_or("AD_STATUS_REQUIRED")?;
    let paused = match status.as_str() {
        "active" => false,
        "on_hold" | "paused" => true,
        _ => return err("AD_STATUS_INVALID"),
    };
    let mut q = Params::default();
    q.map.insert("ad_id".into(), Value::from(ad_id(p)?));
    q.map.insert("is_paused".into(), Value::Bool(paused));
    edit(st, acting, &q)
}

pub fn ad_id(p: &Params) -> Result<i64, String> {
    p.int("ad_id", "AD_ID_INVALID")?
        .ok_or_else(|| "AD_ID_REQUIRED".to_string())
}

fn amount(st: &State, acting: &str, p: &Params) -> Result<Decimal, String> {
    if !p.has("amount") {
        return err("AMOUNT_REQUIRED");
    }
    Ok(positive(st, acting, p, "amount", "AMOUNT_INVALID")?.expect("present"))
}

pub fn increase_budget(st: &mut State, acting: &str, p: &Params) -> Result<i64, String> {
    let id = ad_id(p)?;
    st.own_ad(acting, id)?;
    let amount = amount(st, acting, p)?;
    if amount > st.acct(acting).remaining {
        return err("NOT_ENOUGH_BUDGET");
    }
    st.move_to_ad(id, amount, true);
    let now = st.now;
    st.ads.get_mut(&id).expect("own ad").settle(now);
    Ok(id)
}

/// decreaseAdBudget: amounts round to the budget precision, except that sending exactly the
/// ad's remaining budget (which delivery may leave with more decimals) withdraws all of it.
pub fn decrease_budget(st: &mut State, acting: &str, p: &Params) -> Result<i64, String> {
    let id = ad_id(p)?;
    let ad = st.own_ad(acting, id)?;
    let exact = p.dec("amount", "AMOUNT_INVALID")?;
    let amount = match exact {
        Some(all) if all == ad.remaining && !all.is_zero() => all,
        _ => amount(st, acting, p)?,
    };
    if ad.recently_active(st.now) {
        return err("AD_RECENTLY_ACTIVE");
    }
    if amount > ad.remaining {
        return err("NOT_ENOUGH_BUDGET");
    }
    st.move_to_ad(id, -amount, true);
    let now = st.now;
    st.ads.get_mut(&id).expect("own ad").settle(now);
    Ok(id)
}

pub fn submit(st: &mut State, acting: &str, p: &Params) -> Result<i64, String> {
    let id = ad_id(p)?;
    let ad = st.own_ad(acting, id)?;
    if ad.review != Review::Ready {
        return err("AD_STATUS_INVALID");
    }
    if ad.remaining.is_zero() {
        return err("AD_BUDGET_EMPTY");
    }
    let now = st.now;
    let ad = st.ads.get_mut(&id).expect("own ad");
    ad.review = Review::Pending;
    ad.settle(now);
    Ok(id)
}

/// deleteAd: quiet for 10 minutes, and no budget left unless the fake refunds it. A remainder
/// below one unit of the budget precision (left by delivery, which spends in transfer
/// precision) cannot be withdrawn by decreaseAdBudget, so it does not block deletion and goes
/// back to the account.
pub fn delete(st: &mut State, acting: &str, p: &Params) -> Result<(), String> {
    let id = ad_id(p)?;
    let ad = st.own_ad(acting, id)?;
    if ad.recently_active(st.now) {
        return err("AD_RECENTLY_ACTIVE");
    }
    let remaining = ad.remaining;
    let unit = Decimal::new(1, ad.cur.budget_dp());
    let dust = remaining < unit;
    if !remaining.is_zero() {
        if !dust && !st.opts.delete_refunds {
            return err("AD_BUDGET_NOT_EMPTY");
        }
        st.move_to_ad(id, -remaining, !dust);
    }
    let now = st.now;
    let ad = st.ads.get_mut(&id).expect("own ad");
    ad.settle(now);
    ad.deleted_at = Some(now);
    Ok(())
}
