//! Owns the campaign objects of the API, written straight from the stored row: the reduced
//! object the list shows and the full one a single read and an edit answer with, each with
//! the client's conversions where the endpoint shows them. The reduced object's JSON is
//! written by hand ([`Reduced::write`]: its keys as constant bytes, its texts copied through
//! when nothing in them needs escaping), as serde_json would write it in half the time; the
//! full object adds its own fields, serialized, after the reduced ones.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
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

/// The fields the list shows, in the order [`Reduced::write`] writes them.
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
    /// Its fields follow the others in the object.
    conversions: Option<Conversions<'a>>,
    /// The row's conversions, shown once [`Reduced::with_conversions`] adds their returns.
    summary: &'a Summary,
}

/// The client's own conversions: `conversions: {lead, conversion, purchase}` (counts, zeros
/// included) and `revenue: {"USD": "12.50", ...}` (decimal strings, one per currency), with
/// ROAS and profit against the spend, revenue converted into the cabinet's currency.
struct Conversions<'a> {
    conversions: Counts,
    /// Revenue per currency in micro-units, written as decimal texts.
    revenue: &'a BTreeMap<String, i128>,
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

struct RateUsed {
    from: String,
    to: String,
    rate: String,
    date: String,
}

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
            revenue: &summary.revenue,
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

    /// Writes the object as JSON onto `out`, as serde_json writes a struct of these fields
    /// (the conversions' after the others): the same bytes, in half its time for a page.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"ad_id\":");
        number(out, self.ad_id);
        key(out, "account_id");
        number(out, self.account_id);
        key(out, "title");
        string(out, self.title);
        key(out, "text");
        string(out, self.text);
        key(out, "status");
        string(out, self.status);
        key(out, "tme_path");
        optional(out, self.tme_path, string);
        key(out, "promote_url");
        optional(out, self.promote_url, string);
        for (name, value) in [
            ("views", self.views),
            ("opens", self.opens),
            ("clicks", self.clicks),
            ("actions", self.actions),
        ] {
            key(out, name);
            number(out, value);
        }
        for (name, value) in [
            ("spent", &self.spent),
            ("budget", &self.budget),
            ("cpm", &self.cpm),
            ("cpc", &self.cpc),
            ("cpa", &self.cpa),
            ("ctr", &self.ctr),
            ("cvr", &self.cvr),
            ("date", &self.date),
        ] {
            key(out, name);
            string(out, value);
        }
        key(out, "group_id");
        optional(out, self.group_id, number);
        key(out, "status_changed_at");
        string(out, self.status_changed_at);
        if let Some(c) = &self.conversions {
            c.write(out);
        }
        out.push(b'}');
    }
}

impl Conversions<'_> {
    /// Writes its fields, each after a comma, onto the object being written.
    fn write(&self, out: &mut Vec<u8>) {
        let counts = &self.conversions;
        key(out, "conversions");
        object(
            out,
            [
                ("lead", counts.lead),
                ("conversion", counts.conversion),
                ("purchase", counts.purchase),
            ],
            number,
        );
        key(out, "revenue");
        object(out, self.revenue, |out, micros| {
            string(out, &render_amount(*micros))
        });
        key(out, "roas");
        optional(out, self.roas.as_deref(), string);
        key(out, "profit");
        optional(out, self.profit.as_deref(), string);
        key(out, "revenue_rates");
        array(out, &self.revenue_rates, |out, used| {
            let fields = [
                ("from", &used.from),
                ("to", &used.to),
                ("rate", &used.rate),
                ("date", &used.date),
            ];
            object(out, fields, |out, value| string(out, value))
        });
        key(out, "revenue_unconverted");
        array(out, self.revenue_unconverted, |out, currency| {
            string(out, currency)
        });
    }
}

/// Writes `objects` as a JSON array onto `out` (a list page's `data`).
pub fn write_list<'a>(out: &mut Vec<u8>, objects: impl IntoIterator<Item = Reduced<'a>>) {
    array(out, objects, |out, object| object.write(out));
}

/// `[item,…]`, each item written by `write`.
fn array<T>(
    out: &mut Vec<u8>,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut Vec<u8>, T),
) {
    out.push(b'[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(b']');
}

/// `{"name":value,…}`, each value written by `write`.
fn object<N: AsRef<str>, T>(
    out: &mut Vec<u8>,
    fields: impl IntoIterator<Item = (N, T)>,
    mut write: impl FnMut(&mut Vec<u8>, T),
) {
    out.push(b'{');
    for (i, (name, value)) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, name.as_ref());
        out.push(b':');
        write(out, value);
    }
    out.push(b'}');
}

/// `,"name":`, before a field's value.
fn key(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

fn number(out: &mut Vec<u8>, value: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

/// A JSON string as serde_json writes it: copied through between quotes when it holds no
/// control character, quote or backslash (the only bytes serde_json escapes), escaped by
/// serde_json otherwise.
fn string(out: &mut Vec<u8>, value: &str) {
    let escaped = value.bytes().fold(false, |any, b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if escaped {
        serde_json::to_writer(&mut *out, value).expect("a Vec takes every write");
    } else {
        out.push(b'"');
        out.extend_from_slice(value.as_bytes());
        out.push(b'"');
    }
}

/// `value` as `write` writes it, or `null`.
fn optional<T>(out: &mut Vec<u8>, value: Option<T>, write: fn(&mut Vec<u8>, T)) {
    match value {
        Some(v) => write(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

/// Room for one full object, for its buffer sized once.
const FULL_BYTES: usize = 4096;

/// The full campaign object: the reduced fields plus settings, creative and targeting.
pub struct Full<'a> {
    reduced: Reduced<'a>,
    own: Own<'a>,
}

/// The full object's fields after the reduced ones.
#[derive(Serialize)]
struct Own<'a> {
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
        let own = Own {
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
        };
        Full {
            reduced: Reduced::of(row, kind),
            own,
        }
    }

    /// The object with the campaign's Auto CPM settings.
    pub fn with_auto_cpm(mut self, settings: Option<&Settings>, kind: CabinetType) -> Full<'a> {
        self.own.auto_cpm = settings.map(|s| s.to_json(kind));
        self
    }

    /// The object with the campaign's conversion summary.
    pub fn with_conversions(mut self, returns: &'a Returns) -> Full<'a> {
        self.reduced = self.reduced.with_conversions(returns);
        self
    }
}

/// One object: the reduced fields as [`Reduced::write`] writes them, then the full object's own.
impl Serialize for Full<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut text = Vec::with_capacity(FULL_BYTES);
        self.reduced.write(&mut text);
        let own = serde_json::to_vec(&self.own).map_err(S::Error::custom)?;
        // `{reduced}` and `{own}` (never empty: `active` and the rest are always written)
        // become `{reduced,own}`.
        text.pop();
        text.push(b',');
        text.extend_from_slice(&own[1..]);
        let text = String::from_utf8(text).map_err(S::Error::custom)?;
        RawValue::from_string(text)
            .map_err(S::Error::custom)?
            .serialize(serializer)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::agency::CurrencyCode;
    use crate::domain::campaign::{Status, TargetType};
    use crate::domain::money::Money;
    use crate::ops::returns::Used;
    use serde_json::json;

    /// A site ad with a title that needs escaping, figures, and conversions in two currencies.
    fn row() -> CampaignRow {
        CampaignRow {
            account_id: 5,
            ad_id: 77,
            title: "Café \"Ёлка\"\n\\ 50%".into(),
            text: "Fresh news every morning".into(),
            status: Status::InReview,
            active: false,
            promote_url: "https://example.com/a".into(),
            link_kind: LinkKind::Site,
            tme_path: None,
            target_type: TargetType::Channels,
            targeting: json!({"channels": ["alpha"]}),
            cpm: Money::from_micros(3_540_000),
            budget: Money::from_micros(434_000_000),
            spent: Money::from_micros(12_345_678),
            daily_budget: None,
            views: 3000,
            opens: 40,
            clicks: 7,
            actions: 2,
            views_per_user: 1,
            schedule: None,
            media_token: None,
            media_type: None,
            picture: false,
            button: None,
            website_name: None,
            group_id: Some(9),
            auto_cpm_enabled: false,
            created_at: 1_796_418_015,
            synced_at: "2026-12-04T21:00:15Z".into(),
            status_changed_at: "2026-12-04T21:00:15Z".into(),
            invite_link: None,
            decline_reason: None,
            placement: None,
            dates: dates::Dates::default(),
            conversions: Summary::of_lines("purchase,USD,2,0,12500000;lead,,3,,").unwrap(),
            schedule_zone: None,
        }
    }

    fn returns() -> Returns {
        let code = |c: &str| CurrencyCode::parse(c).unwrap();
        Returns {
            currency: code("EUR"),
            revenue: None,
            roas: Some(Decimal::new(95, 2)),
            profit: Some(Decimal::new(-1_234_567, 6)),
            used: vec![Used {
                from: code("USD"),
                to: code("EUR"),
                rate: Decimal::new(9200, 4),
                day: chrono::NaiveDate::from_ymd_opt(2026, 12, 4).unwrap(),
            }],
            missing: vec!["JPY".into()],
        }
    }

    fn written(object: &Reduced) -> String {
        let mut out = Vec::new();
        object.write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_listed_object_is_written_as_the_json_of_its_fields() {
        let (row, returns) = (row(), returns());
        let text = written(&Reduced::of(&row, CabinetType::Euro).with_conversions(&returns));
        let expected = json!({
            "ad_id": 77, "account_id": 5, "title": row.title, "text": row.text,
            "status": "In Review", "tme_path": null, "promote_url": "https://example.com/a",
            "views": 3000, "opens": 40, "clicks": 7, "actions": 2,
            "spent": "12.345678", "budget": "434.00", "cpm": "3.54",
            "cpc": "1.763668", "cpa": "6.172839", "ctr": "0.23", "cvr": "28.57",
            "date": "1796418015", "group_id": 9, "status_changed_at": "2026-12-04T21:00:15Z",
            "conversions": {"lead": 3, "conversion": 0, "purchase": 2},
            "revenue": {"USD": "12.50"}, "roas": "0.95", "profit": "-1.234567",
            "revenue_rates": [{"from": "USD", "to": "EUR", "rate": "0.92", "date": "2026-12-04"}],
            "revenue_unconverted": ["JPY"],
        });
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
        // The title escaped as serde_json escapes it, the fields in their declared order.
        assert!(text.contains(&serde_json::to_string(&row.title).unwrap()));
        assert!(text.starts_with("{\"ad_id\":77,\"account_id\":5,\"title\":"));
        assert!(text.ends_with(",\"revenue_unconverted\":[\"JPY\"]}"));
    }

    #[test]
    fn an_object_without_its_conversions_leaves_their_fields_out() {
        let row = row();
        let text = written(&Reduced::of(&row, CabinetType::Euro));
        let object: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(object.as_object().unwrap().len(), 21);
        assert!(object.get("revenue").is_none() && object.get("conversions").is_none());
        assert!(text.ends_with(",\"status_changed_at\":\"2026-12-04T21:00:15Z\"}"));
    }

    #[test]
    fn a_list_is_written_as_an_array_of_its_objects() {
        let row = row();
        let mut out = Vec::new();
        write_list(
            &mut out,
            (0..3).map(|_| Reduced::of(&row, CabinetType::Euro)),
        );
        let list: Value = serde_json::from_slice(&out).unwrap();
        let one: Value =
            serde_json::from_str(&written(&Reduced::of(&row, CabinetType::Euro))).unwrap();
        assert_eq!(list, json!([one, one, one]));
        out.clear();
        write_list(&mut out, std::iter::empty());
        assert_eq!(out, b"[]");
    }

    #[test]
    fn a_full_object_holds_the_reduced_fields_and_its_own_once_each() {
        let (row, returns) = (row(), returns());
        let text =
            serde_json::to_string(&Full::of(&row, CabinetType::Euro).with_conversions(&returns))
                .unwrap();
        let object: Value = serde_json::from_str(&text).unwrap();
        let reduced: Value = serde_json::from_str(&written(
            &Reduced::of(&row, CabinetType::Euro).with_conversions(&returns),
        ))
        .unwrap();
        for (key, value) in reduced.as_object().unwrap() {
            assert_eq!(object.get(key), Some(value), "{key}");
        }
        assert_eq!(object["active"], false);
        assert_eq!(object["targets"], json!(["alpha"]));
        assert_eq!(object["currency"], "EUR");
        // Each key once: as many in the text as in the parsed object (which keeps the last),
        // beside the nested ones (three counts, one revenue, a rate's four, the targeting's one).
        let keys = object.as_object().unwrap().len();
        assert_eq!(keys, 27 + 20);
        assert_eq!(text.matches("\"ad_id\":").count(), 1);
        assert_eq!(text.matches("\":").count(), keys + 3 + 1 + 4 + 1);
    }
}
