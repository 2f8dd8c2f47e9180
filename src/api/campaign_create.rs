//! Owns `POST /v1/campaigns` (one campaign at the top level, or `campaigns`, 1-100) and
//! `POST /v1/campaigns/{ad_id}/copy`: every field rule with its exact `param`, then one
//! `create` or `copy` task queued in the transaction that also stores the Idempotency-Key's
//! answer, so the task and the answer exist together or not at all.

use serde_json::Value;

use super::error::ApiError;
use super::idempotency::Claim;
use super::write::{self, Target};
use super::Ctx;
use crate::domain::campaign::{Source, TargetType};
use crate::domain::fields::Fields;
use crate::domain::money::Money;
use crate::domain::targeting::{self, Targeting};
use crate::domain::task::{Lane, Payload, TaskKind};
use crate::http::AppState;
use crate::http::Reply;
use crate::ops::campaigns::fields as campaign_fields;
use crate::platform::{AdDraft, AdSpec, Capabilities};
use crate::store::cabinets::Cabinet;
use crate::store::groups;
use crate::store::tasks::{self, NewTask};

const MAX_CAMPAIGNS: usize = 100;
const MAX_COPIES: i64 = 100;
/// Create tasks a cabinet may have queued before `QUEUE_FULL`.
pub const QUEUE_LIMIT: u32 = 5;
const TOP_LEVEL_ONLY: [&str; 4] = ["account_id", "accountId", "group_id", "new_group_name"];
const DEFAULT_GROUP_COLOR: &str = "#4A90D9";

/// Where new campaigns go.
enum GroupChoice {
    None,
    Existing(i64),
    New(String),
}

fn group_choice(f: &mut Fields) -> Result<GroupChoice, ApiError> {
    let id = f.id("group_id")?;
    let name = f.string("new_group_name")?.map(|n| n.trim().to_string());
    match (id, name) {
        (Some(_), Some(_)) => Err(ApiError::validation(
            "new_group_name",
            "Send group_id or new_group_name, not both.",
        )),
        (Some(id), None) => Ok(GroupChoice::Existing(id)),
        (None, Some(name)) if name.is_empty() => Err(ApiError::validation(
            "new_group_name",
            "new_group_name must not be empty.",
        )),
        (None, Some(name)) => Ok(GroupChoice::New(name)),
        (None, None) => Ok(GroupChoice::None),
    }
}

/// A campaign's fields, read and checked; `media` still to be matched to the cabinet.
struct Parsed {
    draft: AdDraft,
    media: Option<(String, String)>,
}

fn required<T>(f: &Fields, name: &str, value: Option<T>) -> Result<T, ApiError> {
    value.ok_or_else(|| ApiError::validation(f.path(name), format!("{name} is required.")))
}

fn parse_campaign(
    f: &mut Fields,
    cabinet: &Cabinet,
    caps: &Capabilities,
) -> Result<Parsed, ApiError> {
    let kind = cabinet.cabinet_type;
    let title = f.required_string("title")?;
    if title.trim().is_empty() {
        return Err(ApiError::validation(
            f.path("title"),
            "title must not be empty.",
        ));
    }
    let text = f.required_string("text")?;
    let promote_url = campaign_fields::promote_url(f)?;
    let promote_url = required(f, "promote_url", promote_url)?;
    let cpm = campaign_fields::cpm(f, kind)?;
    let cpm = required(f, "cpm", cpm)?;
    let budget = campaign_fields::budget(f, cabinet)?;
    let budget = required(f, "budget", budget)?;
    let target_name = f.required_string("target_type")?;
    let target_type = TargetType::parse(&target_name)
        .filter(|t| caps.serves(*t))
        .ok_or_else(|| {
            ApiError::validation(
                f.path("target_type"),
                format!("target_type must be {}.", caps.target_names()),
            )
        })?;
    let targeting = targeting(f, target_type, caps)?;
    let media = f.string("media")?.map(|token| (token, f.path("media")));
    let draft = AdDraft {
        client_ref: None,
        spec: AdSpec {
            title,
            text,
            promote_url,
            target_type,
            targeting,
            views_per_user: f.int("views_per_user", 1, 4)?.unwrap_or(1),
            media_token: None,
            media_type: None,
            picture: f.bool("picture")?.unwrap_or(false),
            button: campaign_fields::button(f, cabinet, caps)?.flatten(),
            website_name: f.string("website_name")?,
        },
        cpm,
        budget,
        daily_budget: campaign_fields::daily_budget(f, kind)?.flatten(),
        active: f.bool("active")?.unwrap_or(true),
        schedule: campaign_fields::schedule_json(
            campaign_fields::schedule(f, Some(target_type), caps)?.flatten(),
        ),
    };
    Ok(Parsed { draft, media })
}

/// The targeting fields of `target_type`, read and checked; a field of another type is refused
/// by name.
fn targeting(f: &mut Fields, t: TargetType, caps: &Capabilities) -> Result<Value, ApiError> {
    let allowed = targeting::fields_of(t);
    if let Some(wrong) = targeting::FIELDS
        .iter()
        .find(|n| f.has(n) && !allowed.contains(n))
    {
        return Err(ApiError::validation(
            f.path(wrong),
            format!("{wrong} is not a field of target_type {}.", t.as_str()),
        ));
    }
    let strings = |f: &mut Fields, name: &str| f.strings(name, caps.max_entries(name));
    let read = Targeting {
        channels: strings(f, "channels")?,
        bots: strings(f, "bots")?,
        audience_channels: strings(f, "audience_channels")?,
        search_keywords: strings(f, "search_keywords")?,
        countries: strings(f, "countries")?,
        languages: strings(f, "languages")?,
        topics: f.ints("topics", caps.max_entries("topics"))?,
        exclude_topics: f.ints("exclude_topics", caps.max_entries("exclude_topics"))?,
        add_similar_channels: f.bool("add_similar_channels")?,
    };
    read.check(t, caps)
        .map_err(|e| ApiError::validation(f.path(&e.param), e.message))?;
    Ok(read.to_json())
}

pub async fn create(state: &AppState, ctx: &Ctx, claim: Claim) -> Result<(Reply, bool), ApiError> {
    let target = Target::cabinet(ctx)?;
    let cabinet = &target.cabinet;
    let caps = state.services.platform.capabilities();
    let mut top = target.fields();
    let group = group_choice(&mut top)?;
    let parsed: Vec<Parsed> = match top.raw("campaigns") {
        Some(list) => {
            let list = list
                .as_array()
                .filter(|l| (1..=MAX_CAMPAIGNS).contains(&l.len()))
                .ok_or_else(|| {
                    ApiError::validation(
                        "campaigns",
                        format!("campaigns is an array of 1 to {MAX_CAMPAIGNS} campaigns."),
                    )
                })?;
            top.deny_unknown()?;
            let mut parsed = Vec::with_capacity(list.len());
            for (i, item) in list.iter().enumerate() {
                let prefix = format!("campaigns[{i}]");
                let obj = item
                    .as_object()
                    .ok_or_else(|| ApiError::validation(&prefix, "Each campaign is an object."))?;
                if let Some(misplaced) = TOP_LEVEL_ONLY.iter().find(|k| obj.contains_key(**k)) {
                    return Err(ApiError::validation(
                        format!("{prefix}.{misplaced}"),
                        format!("{misplaced} is top level only."),
                    ));
                }
                let mut f = Fields::new(obj, prefix);
                parsed.push(parse_campaign(&mut f, cabinet, caps)?);
                f.deny_unknown()?;
            }
            parsed
        }
        None => {
            let one = parse_campaign(&mut top, cabinet, caps)?;
            top.deny_unknown()?;
            vec![one]
        }
    };
    let mut drafts = Vec::with_capacity(parsed.len());
    for p in parsed {
        let mut draft = p.draft;
        if let Some((token, path)) = p.media {
            let (token, media_type) = write::media(state, Some(token), path, cabinet.id)
                .await?
                .ok_or_else(|| ApiError::internal("media lookup returned nothing"))?;
            draft.spec.media_token = Some(token);
            draft.spec.media_type = Some(media_type);
        }
        drafts.push(draft);
    }
    enqueue(
        state,
        ctx,
        claim,
        cabinet.id,
        TaskKind::Create,
        drafts,
        group,
    )
    .await
}

pub async fn copy(
    state: &AppState,
    ctx: &Ctx,
    ad: &str,
    claim: Claim,
) -> Result<(Reply, bool), ApiError> {
    let target = Target::campaign(state, ctx, ad).await?;
    let (cabinet, source) = (&target.cabinet, &target.campaign);
    let kind = cabinet.cabinet_type;
    let mut f = target.fields();
    let copies = f.int("copies", 1, MAX_COPIES)?.unwrap_or(1);
    let title = f.string("title")?;
    let text = f.string("text")?;
    let promote_url = campaign_fields::promote_url(&mut f)?;
    let cpm = campaign_fields::cpm(&mut f, kind)?;
    let budget = campaign_fields::budget(&mut f, cabinet)?;
    let media = f.string("media")?;
    let picture = f.bool("picture")?;
    let views_per_user = f.int("views_per_user", 1, 4)?;
    let caps = state.services.platform.capabilities();
    let schedule = campaign_fields::schedule(&mut f, Some(source.target_type), caps)?
        .map(campaign_fields::schedule_json);
    let mut group = group_choice(&mut f)?;
    f.deny_unknown()?;
    let media = write::media(state, media, f.path("media"), cabinet.id).await?;
    if let (GroupChoice::None, Some(g)) = (&group, source.group_id) {
        group = GroupChoice::Existing(g);
    }
    // A copy keeps what is left on the original when that is a valid budget, else starts at 0.
    let inherited = if campaign_fields::check_budget_floor(source.budget, cabinet).is_ok() {
        source.budget
    } else {
        Money::ZERO
    };
    let (media_token, media_type) = match media {
        Some((token, media_type)) => (Some(token), Some(media_type)),
        None => (source.media_token.clone(), source.media_type.clone()),
    };
    let draft = AdDraft {
        client_ref: None,
        spec: AdSpec {
            title: title.unwrap_or_else(|| source.title.clone()),
            text: text.unwrap_or_else(|| source.text.clone()),
            promote_url: promote_url.unwrap_or_else(|| source.promote_url.clone()),
            target_type: source.target_type,
            targeting: source.targeting.clone(),
            views_per_user: views_per_user.unwrap_or(source.views_per_user),
            media_token,
            media_type,
            picture: picture.unwrap_or(source.picture),
            button: source.button.clone(),
            website_name: source.website_name.clone(),
        },
        cpm: cpm.unwrap_or(source.cpm),
        budget: budget.unwrap_or(inherited),
        daily_budget: source.daily_budget,
        active: source.active,
        schedule: match schedule {
            Some(replaced) => replaced,
            None => source.schedule.clone(),
        },
    };
    let drafts = vec![draft; copies as usize];
    enqueue(state, ctx, claim, cabinet.id, TaskKind::Copy, drafts, group).await
}

/// Queues the task, resolving the group, in the transaction that stores the answer.
async fn enqueue(
    state: &AppState,
    ctx: &Ctx,
    claim: Claim,
    account: i64,
    kind: TaskKind,
    drafts: Vec<AdDraft>,
    group: GroupChoice,
) -> Result<(Reply, bool), ApiError> {
    let owner = ctx.principal.user.id;
    let reply = state
        .services
        .db
        .write(move |tx| {
            if tasks::queued(tx, account, Lane::Create)? >= i64::from(QUEUE_LIMIT) {
                return Err(ApiError::QueueFull { limit: QUEUE_LIMIT });
            }
            let group_id = match group {
                GroupChoice::None => None,
                GroupChoice::Existing(id) => {
                    let found = groups::get(tx, id)?.filter(|g| g.account_id == account);
                    Some(
                        found
                            .ok_or_else(|| {
                                ApiError::validation("group_id", "No such group in this cabinet.")
                            })?
                            .id,
                    )
                }
                GroupChoice::New(name) => Some(match groups::find_by_name(tx, account, &name)? {
                    Some(g) => g.id,
                    None => groups::insert(tx, account, &name, DEFAULT_GROUP_COLOR)?,
                }),
            };
            let task = NewTask {
                owner_id: owner,
                account_id: account,
                kind,
                payload: &Payload::Create {
                    group_id,
                    campaigns: drafts,
                },
                source: Source::Api,
            };
            super::tasks::queue(tx, &task, &claim)
        })
        .await?;
    state.wake.notify_one();
    Ok((reply, true))
}
