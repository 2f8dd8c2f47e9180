//! Owns what a face sends to make or change a campaign, read into the typed commands every
//! face hands the operations: a create (one campaign at the top level, or `campaigns`, 1-100,
//! with the group they go to), a copy of a live campaign (1-100 copies, each field sent
//! overriding the original's) and an edit (every field optional, `auto_cpm` among them). Each
//! is read in the order its fields are: their shape, then what the cabinet decides (currency,
//! minimum budget, button, targeting limits, schedule, media on its target type, the
//! placements of the target type), then any field it does not take, each refusal with its
//! exact `param`. Dates are read to the minute here; whether they are ahead is checked by the
//! operation, at the service time. A campaign's field is declared here once for each command.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::auto_cpm::AutoCpmIn;
use super::fields::{self as campaign_fields, Link};
pub(super) use super::targets::Targets;
use crate::domain::ad::{AdDraft, AdEdit, AdSpec};
use crate::domain::auto_cpm::Settings;
use crate::domain::campaign::TargetType;
use crate::domain::capabilities::Capabilities;
use crate::domain::dates::{Dates, Sent};
use crate::domain::fields::wire::{
    present, Amount, Flag, Id, Int, Later, List, Named, NonBlank, Patch, Raw, Text, TextOrNull,
    TopLevelOnly, Word,
};
use crate::domain::fields::{self, path};
use crate::domain::money::Money;
use crate::domain::task::TaskKind;
use crate::domain::{ParseError, Why};
use crate::store::cabinets::Cabinet;
use crate::store::campaigns::CampaignRow;

/// Campaigns one create makes at most, and copies one copy.
const MAX_CAMPAIGNS: usize = 100;
/// The fields that choose the group, read apart from a campaign's own.
const GROUP_FIELDS: [&str; 2] = ["group_id", "new_group_name"];

/// Where new campaigns go.
#[derive(Debug, Clone)]
pub enum GroupChoice {
    None,
    Existing(i64),
    New(String),
}

/// The group fields as sent.
#[derive(Deserialize)]
pub(super) struct GroupIn {
    pub(super) group_id: Option<Id>,
    pub(super) new_group_name: Option<Text>,
}

impl GroupIn {
    pub(super) fn choice(self) -> Result<GroupChoice, ParseError> {
        let name = self.new_group_name.map(|Text(n)| n.trim().to_string());
        match (self.group_id, name) {
            (Some(_), Some(_)) => Err(ParseError::new(
                "new_group_name",
                "Send group_id or new_group_name, not both.",
            )
            .because(Why::Other)),
            (Some(Id(id)), None) => Ok(GroupChoice::Existing(id)),
            (None, Some(name)) if name.is_empty() => Err(ParseError::new(
                "new_group_name",
                "new_group_name must not be empty.",
            )
            .because(Why::Required)),
            (None, Some(name)) => Ok(GroupChoice::New(name)),
            (None, None) => Ok(GroupChoice::None),
        }
    }
}

/// One new campaign's fields as sent; the group's fields belong at the top level only.
#[derive(Deserialize)]
#[serde(expecting = "Each campaign is an object.")]
struct NewCampaign {
    #[serde(default, rename = "account_id")]
    _account_id: TopLevelOnly,
    #[serde(default, rename = "accountId")]
    _account_alias: TopLevelOnly,
    #[serde(default, rename = "group_id")]
    _group_id: TopLevelOnly,
    #[serde(default, rename = "new_group_name")]
    _new_group_name: TopLevelOnly,
    title: NonBlank,
    text: Text,
    promote_url: Link,
    cpm: Amount,
    budget: Amount,
    target_type: Word<TargetType>,
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
    website_name: Option<Text>,
    #[serde(default)]
    daily_budget: Patch<Amount>,
    active: Option<Flag>,
    #[serde(default)]
    schedule: Patch<Raw>,
    placement: Option<Text>,
    #[serde(default)]
    starts_at: Patch<Text>,
    #[serde(default)]
    ends_at: Patch<Text>,
}

impl Named for NewCampaign {
    const PLURAL: &'static str = "campaigns";
}

/// A create of several campaigns.
#[derive(Deserialize)]
struct Many {
    group_id: Option<Id>,
    new_group_name: Option<Text>,
    campaigns: List<Later<NewCampaign>, MAX_CAMPAIGNS>,
}

/// A copy's fields as sent: each one sent replaces the original's.
#[derive(Deserialize)]
struct CopyIn {
    copies: Option<Int<1, { MAX_CAMPAIGNS as i64 }>>,
    title: Option<Text>,
    text: Option<Text>,
    promote_url: Option<Link>,
    cpm: Option<Amount>,
    budget: Option<Amount>,
    media: Option<Text>,
    picture: Option<Flag>,
    views_per_user: Option<Int<1, 4>>,
    #[serde(default)]
    schedule: Patch<Raw>,
    group_id: Option<Id>,
    new_group_name: Option<Text>,
}

/// A campaign to make: the draft, an uploaded media token with the path it came under, and
/// the path its fields sit under (`campaigns[2]`), for the checks of its dates against the
/// time it is queued at.
#[derive(Debug, Clone)]
pub(super) struct Draft {
    pub(super) ad: AdDraft,
    pub(super) media: Option<(String, String)>,
    pub(super) at: String,
}

/// A checked create or copy, ready to queue.
#[derive(Debug, Clone)]
pub struct Create {
    pub(super) kind: TaskKind,
    pub(super) drafts: Vec<Draft>,
    pub(super) group: GroupChoice,
}

impl Create {
    /// Reads `POST /v1/campaigns`'s fields for `cabinet`: with `campaigns`, each of them
    /// (`campaigns[2].cpm`), else the one campaign at the top level, on a platform of `caps`.
    pub fn read(
        body: &Value,
        cabinet: &Cabinet,
        caps: &Capabilities,
    ) -> Result<Create, ParseError> {
        let map = body.as_object().cloned().unwrap_or_default();
        let (group, drafts) = if map.contains_key("campaigns") {
            let many: Many = fields::read(body)?;
            let group = GroupIn {
                group_id: many.group_id,
                new_group_name: many.new_group_name,
            }
            .choice()?;
            let drafts = many
                .campaigns
                .0
                .iter()
                .enumerate()
                .map(|(i, Later(c, _))| {
                    NewCampaign::read(c, &format!("campaigns[{i}]"), cabinet, caps)
                })
                .collect::<Result<Vec<_>, _>>()?;
            (group, drafts)
        } else {
            // The cabinet's id under its alias besides `account_id` is the group part's, to be
            // refused as unknown there.
            let (group, campaign): (Map<String, Value>, Map<String, Value>) =
                map.into_iter().partition(|(k, _)| {
                    GROUP_FIELDS.contains(&k.as_str()) || k.as_str() == "accountId"
                });
            let group = fields::read::<GroupIn>(&Value::Object(group))?.choice()?;
            let campaign = NewCampaign::read(&Value::Object(campaign), "", cabinet, caps)?;
            (group, vec![campaign])
        };
        Ok(Create {
            kind: TaskKind::Create,
            drafts,
            group,
        })
    }

    /// Reads `POST /v1/campaigns/{ad_id}/copy`'s fields: copies of `source` (of `cabinet`, on a
    /// platform of `caps`).
    pub fn copy(
        body: &Value,
        cabinet: &Cabinet,
        source: &CampaignRow,
        caps: &Capabilities,
    ) -> Result<Create, ParseError> {
        let (sent, undeclared): (CopyIn, _) = fields::read_open(body, "")?;
        let kind = cabinet.cabinet_type;
        let cpm = sent
            .cpm
            .map(|a| campaign_fields::cpm(&a, "", kind))
            .transpose()?;
        let budget = sent
            .budget
            .map(|a| campaign_fields::budget(&a, "", cabinet))
            .transpose()?;
        let schedule =
            campaign_fields::schedule(sent.schedule, "", Some(source.target_type), caps)?;
        let schedule_zone = match &schedule {
            Some(chosen) => campaign_fields::schedule_zone(chosen.as_ref()),
            None => source.schedule_zone.clone(),
        };
        let schedule = schedule.map(campaign_fields::schedule_json);
        let media = media_on(sent.media, "", source.target_type, caps)?;
        let mut group = GroupIn {
            group_id: sent.group_id,
            new_group_name: sent.new_group_name,
        }
        .choice()?;
        undeclared.refuse()?;
        if let (GroupChoice::None, Some(g)) = (&group, source.group_id) {
            group = GroupChoice::Existing(g);
        }
        // A copy keeps what is left on the original when that is a valid budget, else 0.
        let inherited = match campaign_fields::check_budget_floor(source.budget, cabinet) {
            Ok(()) => source.budget,
            Err(_) => Money::ZERO,
        };
        let ad = AdDraft {
            client_ref: None,
            spec: AdSpec {
                title: sent.title.map_or_else(|| source.title.clone(), |t| t.0),
                text: sent.text.map_or_else(|| source.text.clone(), |t| t.0),
                promote_url: sent
                    .promote_url
                    .map_or_else(|| source.promote_url.clone(), |l| l.0),
                target_type: source.target_type,
                targeting: source.targeting.clone(),
                views_per_user: sent.views_per_user.map_or(source.views_per_user, |v| v.0),
                media_token: source.media_token.clone(),
                media_type: source.media_type.clone(),
                picture: sent.picture.map_or(source.picture, |p| p.0),
                button: source.button.clone(),
                website_name: source.website_name.clone(),
                placement: source.placement.clone(),
            },
            cpm: cpm.unwrap_or(source.cpm),
            budget: budget.unwrap_or(inherited),
            daily_budget: source.daily_budget,
            active: source.active,
            schedule: schedule.unwrap_or_else(|| source.schedule.clone()),
            // A copy starts and ends when it is told to: the original's dates may be past.
            dates: Dates::default(),
            schedule_zone,
        };
        let draft = Draft {
            ad,
            media,
            at: String::new(),
        };
        let copies = sent.copies.map_or(1, |c| c.0) as usize;
        Ok(Create {
            kind: TaskKind::Copy,
            drafts: vec![draft; copies],
            group,
        })
    }
}

impl NewCampaign {
    /// Reads the campaign at `at` (`campaigns[2]`, or the top level): its fields, then what
    /// `cabinet` decides, then any field it does not take.
    fn read(
        value: &Value,
        at: &str,
        cabinet: &Cabinet,
        caps: &Capabilities,
    ) -> Result<Draft, ParseError> {
        let (campaign, undeclared): (NewCampaign, _) = fields::read_open(value, at)?;
        let draft = campaign.draft(at, cabinet, caps)?;
        undeclared.refuse()?;
        Ok(draft)
    }

    /// The campaign at `at`, with what `cabinet` and the platform's `caps` decide: its
    /// currency, minimum budget, the target types served, button and the targeting limits.
    fn draft(self, at: &str, cabinet: &Cabinet, caps: &Capabilities) -> Result<Draft, ParseError> {
        let kind = cabinet.cabinet_type;
        let cpm = campaign_fields::cpm(&self.cpm, at, kind)?;
        let budget = campaign_fields::budget(&self.budget, at, cabinet)?;
        let Word(target_type) = self.target_type;
        if !caps.serves(target_type) {
            return Err(ParseError::new(
                path(at, "target_type"),
                format!("target_type must be {}.", caps.target_names()),
            )
            .because(Why::NotOneOf {
                allowed: caps.target_words(),
            }));
        }
        let targets = Targets {
            strings: [
                ("channels", self.channels),
                ("bots", self.bots),
                ("audience_channels", self.audience_channels),
                ("search_keywords", self.search_keywords),
                ("countries", self.countries),
                ("languages", self.languages),
                ("exclude_channels", self.exclude_channels),
            ],
            ints: [
                ("topics", self.topics),
                ("exclude_topics", self.exclude_topics),
            ],
            flags: [
                ("add_similar_channels", self.add_similar_channels),
                ("intersect_topics", self.intersect_topics),
            ],
            words: [
                ("device", self.device),
                ("political_channels", self.political_channels),
            ],
            cities: self.cities,
        };
        let targeting = targets.read(at, target_type, caps)?;
        let placement = campaign_fields::placement(self.placement, at, target_type, caps)?;
        let schedule =
            campaign_fields::schedule(self.schedule, at, Some(target_type), caps)?.flatten();
        let ad = AdDraft {
            client_ref: None,
            spec: AdSpec {
                title: self.title.0,
                text: self.text.0,
                promote_url: self.promote_url.0,
                target_type,
                targeting,
                views_per_user: self.views_per_user.map_or(1, |v| v.0),
                media_token: None,
                media_type: None,
                picture: self.picture.is_some_and(|p| p.0),
                button: campaign_fields::button(self.button, at, cabinet, caps)?.flatten(),
                website_name: self.website_name.map(|t| t.0),
                placement: Some(placement.to_string()),
            },
            cpm,
            budget,
            daily_budget: campaign_fields::daily_budget(self.daily_budget, at, kind)?.flatten(),
            active: self.active.is_none_or(|a| a.0),
            schedule_zone: campaign_fields::schedule_zone(schedule.as_ref()),
            schedule: campaign_fields::schedule_json(schedule),
            dates: Dates {
                starts_at: campaign_fields::date(self.starts_at, at, "starts_at")?.flatten(),
                ends_at: campaign_fields::date(self.ends_at, at, "ends_at")?.flatten(),
            },
        };
        let media = media_on(self.media, at, target_type, caps)?;
        Ok(Draft {
            ad,
            media,
            at: at.to_string(),
        })
    }
}

/// A media token sent at `at` for an ad of `target`, with the path it came under; refused
/// when the platform puts no media on ads of that target type.
pub(super) fn media_on(
    sent: Option<Text>,
    at: &str,
    target: TargetType,
    caps: &Capabilities,
) -> Result<Option<(String, String)>, ParseError> {
    let Some(Text(token)) = sent else {
        return Ok(None);
    };
    let param = path(at, "media");
    if !caps.takes_media_on(target) {
        return Err(ParseError::new(
            param,
            format!(
                "The platform shows media only on {} ads, not on {} ads.",
                caps.media_target_names(),
                target.as_str()
            ),
        )
        .because(Why::NoMedia));
    }
    Ok(Some((token, param)))
}

/// An edit's fields as sent; each is optional.
#[derive(Deserialize)]
struct EditIn {
    media: Option<Text>,
    title: Option<Text>,
    text: Option<Text>,
    promote_url: Option<Link>,
    cpm: Option<Amount>,
    #[serde(default)]
    daily_budget: Patch<Amount>,
    views_per_user: Option<Int<1, 4>>,
    #[serde(default)]
    schedule: Patch<Raw>,
    picture: Option<Flag>,
    #[serde(default)]
    button: Patch<Raw>,
    #[serde(default)]
    website_name: Patch<TextOrNull>,
    active: Option<Flag>,
    #[serde(default, deserialize_with = "present")]
    auto_cpm: Option<Raw>,
    #[serde(default)]
    starts_at: Patch<Text>,
    #[serde(default)]
    ends_at: Patch<Text>,
}

/// An edit of a campaign, as read.
#[derive(Debug, Clone)]
pub struct Edit {
    /// The platform's fields; its media is looked up from `media` when the edit is made.
    pub ad: AdEdit,
    /// An uploaded media token, with the path it came under.
    pub media: Option<(String, String)>,
    /// Switch it on or off.
    pub active: Option<bool>,
    /// The Auto CPM settings to store.
    pub auto_cpm: Option<Settings>,
    /// The campaign's dates after the edit, with which of them it sent; checked against the
    /// time the edit is made.
    pub dates: Option<(Dates, Sent)>,
    /// What was sent, for the campaign's history.
    pub details: Value,
    /// The zone the schedule follows after the edit, when it sets or removes one (`None`
    /// inside: given as an offset or `viewer`, or removed).
    pub schedule_zone: Option<Option<String>>,
}

impl Edit {
    /// Reads an edit of `row` in `cabinet` on a platform of `caps` from `body` (every field
    /// optional; an unknown one refused), with the Auto CPM settings `stored` for the campaign; `details` is what the
    /// history keeps of it.
    pub fn read(
        body: &Value,
        cabinet: &crate::store::cabinets::Cabinet,
        caps: &Capabilities,
        row: &CampaignRow,
        stored: Option<Settings>,
        details: Value,
    ) -> Result<Edit, ParseError> {
        let (sent, undeclared): (EditIn, _) = fields::read_open(body, "")?;
        let kind = cabinet.cabinet_type;
        let schedule = campaign_fields::schedule(sent.schedule, "", Some(row.target_type), caps)?;
        let schedule_zone = schedule
            .as_ref()
            .map(|chosen| campaign_fields::schedule_zone(chosen.as_ref()));
        let ad = AdEdit {
            title: sent.title.map(|t| t.0),
            text: sent.text.map(|t| t.0),
            promote_url: sent.promote_url.map(|l| l.0),
            cpm: sent
                .cpm
                .map(|a| campaign_fields::cpm(&a, "", kind))
                .transpose()?,
            daily_budget: campaign_fields::daily_budget(sent.daily_budget, "", kind)?,
            views_per_user: sent.views_per_user.map(|v| v.0),
            schedule: schedule.map(campaign_fields::schedule_json),
            media: None,
            picture: sent.picture.map(|p| p.0),
            button: campaign_fields::button(sent.button, "", cabinet, caps)?,
            website_name: sent.website_name.into_option().map(|w| w.map(|t| t.0)),
            dates: None,
        };
        let starts_at = campaign_fields::date(sent.starts_at, "", "starts_at")?;
        let ends_at = campaign_fields::date(sent.ends_at, "", "ends_at")?;
        let dates = (starts_at.is_some() || ends_at.is_some()).then(|| {
            let sent = Sent {
                starts_at: starts_at.is_some(),
                ends_at: ends_at.is_some(),
            };
            let dates = Dates {
                starts_at: starts_at.unwrap_or(row.dates.starts_at),
                ends_at: ends_at.unwrap_or(row.dates.ends_at),
            };
            (dates, sent)
        });
        let auto_cpm = match sent.auto_cpm {
            Some(Raw(value)) => AutoCpmIn::read(&value, kind, stored)?,
            None => None,
        };
        let media = media_on(sent.media, "", row.target_type, caps)?;
        undeclared.refuse()?;
        Ok(Edit {
            ad,
            media,
            active: sent.active.map(|a| a.0),
            auto_cpm,
            dates,
            details,
            schedule_zone,
        })
    }
}
