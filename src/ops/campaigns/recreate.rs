//! Owns the recreate of a declined campaign, for every face alike: what `POST
//! /v1/campaigns/{ad_id}/recreate` sends read into the new campaign (the declined one's
//! settings, targeting, media, schedule and group, with any create field sent in place; the
//! targeting, when any of its fields is sent, read whole as a create reads it), the task it
//! queues (one item; a bulk `recreate` queues one per campaign, unchanged) once the campaign is
//! `Declined`, and what the task worker stores of each step: the new campaign with
//! `recreated_from`, then the declined one deleted with `recreated_as`. The worker's steps
//! are made safe to repeat by the item's token (see `jobs::worker`).

use rusqlite::Connection;
use serde::Deserialize;
use serde_json::{json, Value};

use super::command::{media_on, Draft, GroupChoice, GroupIn, Targets};
use super::create::{checked, group_of, has_room};
use super::fields::{self as campaign_fields, Link};
use super::{OpsError, Refusal};
use crate::clock;
use crate::domain::ad::{AdDraft, AdSpec};
use crate::domain::campaign::{Status, TargetType};
use crate::domain::capabilities::Capabilities;
use crate::domain::dates::Dates;
use crate::domain::fields;
use crate::domain::fields::wire::{
    Amount, Flag, Id, Int, NonBlank, Patch, Raw, Text, TextOrNull, Word,
};
use crate::domain::money::Money;
use crate::domain::task::{Payload, Recreation, TaskKind};
use crate::domain::{ParseError, Why};
use crate::ops::write_back;
use crate::ops::Actor;
use crate::platform::AdSnapshot;
use crate::store::cabinets::Cabinet;
use crate::store::campaigns::{self, CampaignRow};
use crate::store::history::{self, Author};
use crate::store::tasks::{self, NewTask};
use crate::store::StoreError;

/// The history action on the new campaign, naming the declined one.
pub const RECREATED_FROM: &str = "recreated_from";
/// The history action on the declined campaign, naming the new one.
pub const RECREATED_AS: &str = "recreated_as";

/// A recreate's fields as sent: any field of a create, each one sent replacing the old value.
#[derive(Deserialize)]
struct RecreateIn {
    title: Option<NonBlank>,
    text: Option<Text>,
    promote_url: Option<Link>,
    cpm: Option<Amount>,
    budget: Option<Amount>,
    target_type: Option<Word<TargetType>>,
    #[serde(default)]
    channels: Patch<Raw>,
    #[serde(default)]
    bots: Patch<Raw>,
    #[serde(default)]
    audience_channels: Patch<Raw>,
    #[serde(default)]
    search_keywords: Patch<Raw>,
    #[serde(default)]
    countries: Patch<Raw>,
    #[serde(default)]
    languages: Patch<Raw>,
    #[serde(default)]
    topics: Patch<Raw>,
    #[serde(default)]
    exclude_topics: Patch<Raw>,
    #[serde(default)]
    add_similar_channels: Patch<Raw>,
    #[serde(default)]
    cities: Patch<Raw>,
    #[serde(default)]
    device: Patch<Raw>,
    #[serde(default)]
    intersect_topics: Patch<Raw>,
    #[serde(default)]
    exclude_channels: Patch<Raw>,
    #[serde(default)]
    political_channels: Patch<Raw>,
    media: Option<Text>,
    views_per_user: Option<Int<1, 4>>,
    picture: Option<Flag>,
    #[serde(default)]
    button: Patch<Raw>,
    #[serde(default)]
    website_name: Patch<TextOrNull>,
    #[serde(default)]
    daily_budget: Patch<Amount>,
    active: Option<Flag>,
    #[serde(default)]
    schedule: Patch<Raw>,
    group_id: Option<Id>,
    new_group_name: Option<Text>,
    placement: Option<Text>,
    #[serde(default)]
    starts_at: Patch<Text>,
    #[serde(default)]
    ends_at: Patch<Text>,
}

/// A checked recreate of one declined campaign, ready to queue.
#[derive(Debug, Clone)]
pub struct Recreate {
    from: i64,
    draft: Draft,
    group: GroupChoice,
}

impl Recreate {
    /// Reads a recreate of `source` (of `cabinet`, on a platform of `caps`): refused with
    /// `CAMPAIGN_NOT_DECLINED` unless it is declined, then each field sent read as a create
    /// reads it.
    pub fn read(
        body: &Value,
        cabinet: &Cabinet,
        source: &CampaignRow,
        caps: &Capabilities,
    ) -> Result<Recreate, OpsError> {
        if source.status != Status::Declined {
            return Err(OpsError::Refused(Refusal::NotDeclined));
        }
        let (sent, undeclared): (RecreateIn, _) = fields::read_open(body, "")?;
        let kind = cabinet.cabinet_type;
        let mut ad = unchanged(source, cabinet);
        let targets = Targets {
            strings: [
                ("channels", sent.channels),
                ("bots", sent.bots),
                ("audience_channels", sent.audience_channels),
                ("search_keywords", sent.search_keywords),
                ("countries", sent.countries),
                ("languages", sent.languages),
                ("exclude_channels", sent.exclude_channels),
            ],
            ints: [
                ("topics", sent.topics),
                ("exclude_topics", sent.exclude_topics),
            ],
            flags: [
                ("add_similar_channels", sent.add_similar_channels),
                ("intersect_topics", sent.intersect_topics),
            ],
            words: [
                ("device", sent.device),
                ("political_channels", sent.political_channels),
            ],
            cities: sent.cities,
        };
        let targeting_sent = crate::domain::targeting::FIELDS
            .iter()
            .any(|f| targets.sent(f));
        if sent.target_type.is_some() || targeting_sent {
            let target_type = sent.target_type.map_or(source.target_type, |Word(t)| t);
            if !caps.serves(target_type) {
                return Err(ParseError::new(
                    "target_type",
                    format!("target_type must be {}.", caps.target_names()),
                )
                .because(Why::NotOneOf {
                    allowed: caps.target_words(),
                })
                .into());
            }
            ad.spec.targeting = targets.read("", target_type, caps)?;
            if target_type != ad.spec.target_type {
                // The old placement may not be one of the new target type's.
                ad.spec.placement = None;
            }
            ad.spec.target_type = target_type;
        }
        let spec = &mut ad.spec;
        if let Some(NonBlank(title)) = sent.title {
            spec.title = title;
        }
        if let Some(Text(text)) = sent.text {
            spec.text = text;
        }
        if let Some(Link(url)) = sent.promote_url {
            spec.promote_url = url;
        }
        if let Some(v) = sent.views_per_user {
            spec.views_per_user = v.0;
        }
        if let Some(Flag(picture)) = sent.picture {
            spec.picture = picture;
        }
        if let Some(button) = campaign_fields::button(sent.button, "", cabinet, caps)? {
            spec.button = button;
        }
        if let Some(name) = sent.website_name.into_option() {
            spec.website_name = name.map(|t| t.0);
        }
        if let Some(cpm) = sent.cpm {
            ad.cpm = campaign_fields::cpm(&cpm, "", kind)?;
        }
        if let Some(budget) = sent.budget {
            ad.budget = campaign_fields::budget(&budget, "", cabinet)?;
        }
        if let Some(cap) = campaign_fields::daily_budget(sent.daily_budget, "", kind)? {
            ad.daily_budget = cap;
        }
        if let Some(Flag(active)) = sent.active {
            ad.active = active;
        }
        if sent.placement.is_some() || ad.spec.placement.is_none() {
            let placement =
                campaign_fields::placement(sent.placement, "", ad.spec.target_type, caps)?;
            ad.spec.placement = Some(placement.to_string());
        }
        ad.dates = Dates {
            starts_at: campaign_fields::date(sent.starts_at, "", "starts_at")?.flatten(),
            ends_at: campaign_fields::date(sent.ends_at, "", "ends_at")?.flatten(),
        };
        let target = Some(ad.spec.target_type);
        if let Some(schedule) = campaign_fields::schedule(sent.schedule, "", target, caps)? {
            ad.schedule_zone = campaign_fields::schedule_zone(schedule.as_ref());
            ad.schedule = campaign_fields::schedule_json(schedule);
        }
        let media = media_on(sent.media, "", ad.spec.target_type, caps)?;
        if !caps.takes_media_on(ad.spec.target_type) {
            // The old media cannot be shown on the new target type: it is not carried over.
            ad.spec.media_token = None;
            ad.spec.media_type = None;
        }
        let mut group = GroupIn {
            group_id: sent.group_id,
            new_group_name: sent.new_group_name,
        }
        .choice()?;
        undeclared.refuse()?;
        if let (GroupChoice::None, Some(g)) = (&group, source.group_id) {
            group = GroupChoice::Existing(g);
        }
        Ok(Recreate {
            from: source.ad_id,
            draft: Draft {
                ad,
                media,
                at: String::new(),
            },
            group,
        })
    }
}

/// The new campaign a declined `source` of `cabinet` is made again as, unchanged: every
/// setting, targeting, media and schedule; the budget it has left when that is a valid
/// budget, else 0 (as a copy keeps it).
pub fn unchanged(source: &CampaignRow, cabinet: &Cabinet) -> AdDraft {
    let budget = match campaign_fields::check_budget_floor(source.budget, cabinet) {
        Ok(()) => source.budget,
        Err(_) => Money::ZERO,
    };
    AdDraft {
        client_ref: None,
        spec: AdSpec {
            title: source.title.clone(),
            text: source.text.clone(),
            promote_url: source.promote_url.clone(),
            target_type: source.target_type,
            targeting: source.targeting.clone(),
            views_per_user: source.views_per_user,
            media_token: source.media_token.clone(),
            media_type: source.media_type.clone(),
            picture: source.picture,
            button: source.button.clone(),
            website_name: source.website_name.clone(),
            placement: source.placement.clone(),
        },
        cpm: source.cpm,
        budget,
        daily_budget: source.daily_budget,
        active: source.active,
        schedule: source.schedule.clone(),
        // As a copy: it starts and ends when it is told to, the declined one's dates may be past.
        dates: Dates::default(),
        schedule_zone: source.schedule_zone.clone(),
    }
}

/// Why a campaign is not one a recreate may start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfit {
    /// Not in the cabinet, or deleted.
    Gone,
    /// Not declined.
    NotDeclined,
}

impl From<Unfit> for OpsError {
    fn from(u: Unfit) -> Self {
        match u {
            Unfit::Gone => OpsError::NotFound,
            Unfit::NotDeclined => OpsError::Refused(Refusal::NotDeclined),
        }
    }
}

/// Whether campaign `ad` of `account`, as stored now, is one a recreate may start from.
pub fn check_declined(
    conn: &Connection,
    account: i64,
    ad: i64,
) -> Result<Result<(), Unfit>, StoreError> {
    Ok(match campaigns::status_of(conn, account, ad)? {
        None | Some((Status::Deleted, _)) => Err(Unfit::Gone),
        Some((Status::Declined, _)) => Ok(()),
        Some(_) => Err(Unfit::NotDeclined),
    })
}

/// Queues `recreate` on the actor's cabinet as one task, in the caller's transaction, once the
/// campaign is still declined, the media token is the cabinet's own, the cabinet's create
/// queue has room and the group is found or made. Returns the task's id.
pub fn queue(tx: &Connection, actor: &Actor, recreate: Recreate) -> Result<i64, OpsError> {
    let account = actor.cabinet().id;
    check_declined(tx, account, recreate.from)??;
    let now = clock::now(tx)?.timestamp();
    let campaign = checked(tx, recreate.draft, account, now)?;
    has_room(tx, account)?;
    let group_id = group_of(tx, account, recreate.group)?;
    let items = vec![Recreation {
        from: recreate.from,
        group_id,
        campaign,
    }];
    insert(tx, actor, items)
}

/// Queues a recreate task of `items` for the actor's cabinet, in the caller's transaction.
pub(super) fn insert(
    tx: &Connection,
    actor: &Actor,
    items: Vec<Recreation>,
) -> Result<i64, OpsError> {
    let payload = Payload::Recreate { items };
    let task = NewTask {
        owner_id: actor.user(),
        account_id: actor.cabinet().id,
        kind: TaskKind::Recreate,
        payload: &payload,
        source: actor.source(),
    };
    Ok(tasks::insert(tx, &task, &clock::iso(clock::now(tx)?))?)
}

/// The new campaign a recreate item made under `token`, when its first step is stored.
pub fn made_under(conn: &Connection, account: i64, token: &str) -> Result<Option<i64>, StoreError> {
    history::made_under(conn, account, RECREATED_FROM, token)
}

/// Stores the first step of a recreate item, in the caller's transaction: the new campaign
/// `snap` (unless a sync stored it already) in `group`, with `recreated_from` naming `from`
/// and the item's `token` in its history.
pub fn store_new(
    tx: &Connection,
    snap: &AdSnapshot,
    group: Option<i64>,
    from: i64,
    token: &str,
    (by, tracker_params): (Author, &[String]),
) -> Result<(), StoreError> {
    if campaigns::get(tx, snap.account_id, snap.ad_id)?.is_none() {
        write_back::store_created(tx, snap, group, by.clone(), tracker_params)?;
    }
    let details = json!({ "ad_id": from, "token": token });
    write_back::record_history(
        tx,
        snap.account_id,
        snap.ad_id,
        by,
        RECREATED_FROM,
        &details,
    )
}

/// Stores the second step of a recreate item, in the caller's transaction: the declined
/// campaign `from` marked `Deleted` when `deleted` (kept, not removed, so its history stays
/// readable), with `recreated_as` naming `new` in its history.
pub fn store_old(
    tx: &Connection,
    account: i64,
    from: i64,
    new: i64,
    deleted: bool,
    by: Author,
) -> Result<(), StoreError> {
    if deleted {
        let now = clock::iso(clock::now(tx)?);
        if let Some(before) = campaigns::get(tx, account, from)? {
            if before.status != Status::Deleted {
                write_back::record_change(tx, &before, Status::Deleted, by.source, &now)?;
                campaigns::mark_deleted(tx, account, from, &now)?;
            }
        }
    }
    let details = json!({ "ad_id": new, "deleted": deleted });
    write_back::record_history(tx, account, from, by, RECREATED_AS, &details)
}
