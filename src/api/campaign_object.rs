//! Owns the campaign objects of the API, serialized straight from the stored row: the reduced
//! object the list shows and the full one a single read and an edit answer with, each with
//! the client's conversions where the endpoint shows them.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;

use crate::domain::ad::DeclineReason;
use crate::domain::auto_cpm::Settings;
use crate::domain::campaign::LinkKind;
use crate::domain::conversion::{render_amount, EventType};
use crate::domain::dates;
use crate::domain::money::{fixed_text, ratio_text, CabinetType};
use crate::ops::returns::Returns;
use crate::store::campaigns::CampaignRow;
use crate::store::conversions::Summary;

/// The fields the list shows.
#[derive(Serialize)]
pub struct Reduced<'a> {
    ad_id: i64,
    account_id: i64,
    title: &'a str,
    text: &'a str,
    status: &'static str,
    tme_path: Option<&'a str>,
    /// The website a site ad leads to; platform links are in `tme_path`.
    promote_url: Option<&'a str>,
    views: i64,
    opens: i64,
    clicks: i64,
    actions: i64,
    spent: String,
    budget: String,
    cpm: String,
    cpc: String,
    cpa: String,
    ctr: String,
    cvr: String,
    date: String,
    group_id: Option<i64>,
    status_changed_at: &'a str,
    #[serde(flatten)]
    conversions: Option<Conversions<'a>>,
    /// The row's conversions, shown once [`Reduced::with_conversions`] adds their returns.
    #[serde(skip)]
    summary: &'a Summary,
}

/// The client's own conversions: `conversions: {lead, conversion, purchase}` (counts, zeros
/// included) and `revenue: {"USD": "12.50", ...}` (decimal strings, one per currency), with
/// ROAS and profit against the spend, revenue converted into the cabinet's currency.
#[derive(Serialize)]
struct Conversions<'a> {
    conversions: Counts,
    revenue: Revenue<'a>,
    /// Revenue per unit spent (`"2.10"`); null without spend, revenue, or a rate.
    roas: Option<String>,
    /// Revenue minus spend in the cabinet's currency (six decimals, as `spent`); null without
    /// revenue or a rate.
    profit: Option<String>,
    /// The rates revenue was converted at, each with its date.
    revenue_rates: Vec<RateUsed>,
    /// Revenue currencies with no rate known: ROAS and profit are then null, never guessed.
    revenue_unconverted: &'a [String],
}

/// Revenue per currency, written from the summary's micro-units as it is serialized (a list
/// page writes one per campaign).
struct Revenue<'a>(&'a BTreeMap<String, i128>);

impl Serialize for Revenue<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (currency, micros) in self.0 {
            map.serialize_entry(currency, &render_amount(*micros))?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct RateUsed {
    from: String,
    to: String,
    rate: String,
    date: String,
}

#[derive(Serialize)]
struct Counts {
    lead: i64,
    conversion: i64,
    purchase: i64,
}

impl<'a> Reduced<'a> {
    pub fn of(row: &'a CampaignRow, kind: CabinetType) -> Reduced<'a> {
        let spent = row.spent.to_decimal();
        let hundred = Decimal::from(100);
        Reduced {
            ad_id: row.ad_id,
            account_id: row.account_id,
            title: &row.title,
            text: &row.text,
            status: row.status.as_str(),
            tme_path: row.tme_path.as_deref(),
            promote_url: (row.link_kind == LinkKind::Site).then_some(row.promote_url.as_str()),
            views: row.views,
            opens: row.opens,
            clicks: row.clicks,
            actions: row.actions,
            spent: row.spent.render6(),
            budget: kind.render(row.budget),
            cpm: kind.render(row.cpm),
            cpc: ratio_text(spent, row.clicks.into(), 6),
            cpa: ratio_text(spent, row.actions.into(), 6),
            ctr: ratio_text(Decimal::from(row.clicks) * hundred, row.views.into(), 2),
            cvr: ratio_text(Decimal::from(row.actions) * hundred, row.clicks.into(), 2),
            date: row.created_at.to_string(),
            group_id: row.group_id,
            status_changed_at: &row.status_changed_at,
            conversions: None,
            summary: &row.conversions,
        }
    }

    /// The object with the campaign's conversions, which its row carries, and their returns.
    pub fn with_conversions(mut self, returns: &'a Returns) -> Reduced<'a> {
        let summary = self.summary;
        let count = |event| summary.counts.of(event);
        self.conversions = Some(Conversions {
            conversions: Counts {
                lead: count(EventType::Lead),
                conversion: count(EventType::Conversion),
                purchase: count(EventType::Purchase),
            },
            revenue: Revenue(&summary.revenue),
            roas: returns.roas.map(|r| fixed_text(r, 2)),
            profit: returns.profit.map(|p| fixed_text(p, 6)),
            revenue_rates: returns
                .used
                .iter()
                .map(|u| RateUsed {
                    from: u.from.to_string(),
                    to: u.to.to_string(),
                    rate: u.rate.normalize().to_string(),
                    date: u.day.to_string(),
                })
                .collect(),
            revenue_unconverted: &returns.missing,
        });
        self
    }
}

/// The full campaign object: the reduced fields plus settings, creative and targeting.
#[derive(Serialize)]
pub struct Full<'a> {
    #[serde(flatten)]
    reduced: Reduced<'a>,
    active: bool,
    target_type: &'static str,
    /// Usernames targeted by a channel or bot ad.
    targets: Vec<&'a Value>,
    targeting: &'a Value,
    daily_budget: Option<String>,
    views_per_user: i64,
    /// The schedule the platform holds, with the zone it was given in (`timezone_name`).
    schedule: Option<Value>,
    has_media: bool,
    media_type: Option<&'a str>,
    picture: bool,
    button: Option<&'a str>,
    website_name: Option<&'a str>,
    auto_cpm_enabled: bool,
    /// The Auto CPM settings, once a campaign had them (on or off).
    #[serde(skip_serializing_if = "Option::is_none")]
    auto_cpm: Option<Value>,
    currency: &'static str,
    synced_at: &'a str,
    invite_link: Option<&'a str>,
    /// Why the platform declined it, while `Declined`: the short reason, then " — " and the
    /// platform's longer explanation when it gave one (`DeclineReason::shown`).
    decline_reason: Option<String>,
    /// Where its ad shows; null only for a copy stored before placements were kept, until
    /// its next sync.
    placement: Option<&'a str>,
    /// When it starts and ends (ISO 8601 UTC), as adcab keeps them through pauses.
    starts_at: Option<String>,
    ends_at: Option<String>,
}

impl<'a> Full<'a> {
    pub fn of(row: &'a CampaignRow, kind: CabinetType) -> Full<'a> {
        Full {
            reduced: Reduced::of(row, kind),
            active: row.active,
            target_type: row.target_type.as_str(),
            targets: ["channels", "bots"]
                .iter()
                .filter_map(|field| row.targeting[*field].as_array())
                .flatten()
                .collect(),
            targeting: &row.targeting,
            daily_budget: row.daily_budget.map(|m| kind.render(m)),
            views_per_user: row.views_per_user,
            schedule: row.schedule.as_ref().map(|s| schedule(s, row)),
            has_media: row.media_token.is_some(),
            media_type: row.media_type.as_deref(),
            picture: row.picture,
            button: row.button.as_deref(),
            website_name: row.website_name.as_deref(),
            auto_cpm_enabled: row.auto_cpm_enabled,
            auto_cpm: None,
            currency: kind.currency(),
            synced_at: &row.synced_at,
            invite_link: row.invite_link.as_deref(),
            decline_reason: row.decline_reason.as_ref().map(DeclineReason::shown),
            placement: row.placement.as_deref(),
            starts_at: row.dates.starts_at.and_then(dates::shown),
            ends_at: row.dates.ends_at.and_then(dates::shown),
        }
    }

    /// The object with the campaign's Auto CPM settings.
    pub fn with_auto_cpm(mut self, settings: Option<&Settings>, kind: CabinetType) -> Full<'a> {
        self.auto_cpm = settings.map(|s| s.to_json(kind));
        self
    }

    /// The object with the campaign's conversion summary.
    pub fn with_conversions(mut self, returns: &'a Returns) -> Full<'a> {
        self.reduced = self.reduced.with_conversions(returns);
        self
    }
}

/// A stored schedule as the campaign object answers it: with `timezone_name`, the IANA zone
/// it was given in (whose offset `timezone` follows), or null.
fn schedule(stored: &Value, row: &CampaignRow) -> Value {
    let mut answered = stored.clone();
    if let Some(object) = answered.as_object_mut() {
        let name = row
            .schedule_zone
            .as_deref()
            .filter(|_| object.get("timezone").and_then(Value::as_str) != Some("viewer"));
        object.insert("timezone_name".into(), name.into());
    }
    answered
}
