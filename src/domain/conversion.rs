//! Owns the inbound conversion event as clients send it: every parameter of the spec's table
//! under its name or any alias, from a JSON object or a query string, the event-type aliases,
//! exact signed amounts and currency codes; and the values a campaign's link lets postbacks
//! name it by. Bad input is a `VALIDATION_ERROR` naming the parameter as the client spelled
//! it.

use std::collections::HashSet;

use serde_json::Value;

use super::campaign::LinkKind;
use super::link::{normalize_invite, query_values, PromoteLink};
use super::money::{parse_amount, MONEY_SCALE};
use super::ParseError;

/// Each parameter and its aliases, in the order they are looked up (public for the test that
/// holds the OpenAPI document to it).
pub const PARAMS: &[(&str, &[&str])] = &[
    ("ref", &["subid", "clickid", "click_id", "cnv_id", "cid"]),
    ("invite_link", &["link"]),
    ("event", &["type", "goal", "event_type"]),
    (
        "txid",
        &["tid", "transaction_id", "order_id", "rdtk_event_id"],
    ),
    ("amount", &["payout", "sum", "revenue", "value"]),
    ("currency", &["cur"]),
    ("status", &[]),
    ("account_id", &["accountId"]),
];

/// Whether `name` is a parameter or an alias of one.
fn is_param(name: &str) -> bool {
    PARAMS
        .iter()
        .any(|(p, aliases)| *p == name || aliases.contains(&name))
}

/// The longest `txid`, `ref`, `invite_link` or `status` kept.
const MAX_TEXT: usize = 255;
/// Currency used when an amount comes without one.
pub const DEFAULT_CURRENCY: &str = "USD";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Lead,
    Conversion,
    Purchase,
}

/// Each event type and the names it is sent under: its own, then its aliases (public for the
/// test that holds the OpenAPI document to it).
pub const EVENT_NAMES: [(EventType, &[&str]); 3] = [
    (
        EventType::Lead,
        &["lead", "signup", "registration", "reg", "optin", "trial"],
    ),
    (
        EventType::Conversion,
        &[
            "conversion",
            "deposit",
            "ftd",
            "install",
            "subscribe",
            "join",
        ],
    ),
    (
        EventType::Purchase,
        &[
            "purchase", "sale", "buy", "payment", "order", "rebill", "upsell",
        ],
    ),
];

impl EventType {
    /// Reads an event type or one of its aliases ([`EVENT_NAMES`]), in any letter case, spaces
    /// around it ignored.
    pub fn parse(text: &str) -> Option<EventType> {
        let name = text.trim().to_ascii_lowercase();
        EVENT_NAMES
            .iter()
            .find(|(_, names)| names.contains(&name.as_str()))
            .map(|(kind, _)| *kind)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Lead => "lead",
            EventType::Conversion => "conversion",
            EventType::Purchase => "purchase",
        }
    }
}

/// How an event names its campaigns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// The value carried in the ad's link.
    Ref(String),
    /// A channel campaign's invite link, normalised (`t.me/+CODE`).
    Invite(String),
}

/// One event, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub target: Target,
    pub event: EventType,
    pub txid: String,
    /// Micro-units of `currency`; negative for chargebacks.
    pub amount_micros: Option<i64>,
    /// Upper case; `USD` when an amount came without one, `None` without an amount.
    pub currency: Option<String>,
    pub status: Option<String>,
    pub account_id: Option<i64>,
}

/// An event's parameters as sent: names and values as text.
#[derive(Debug, Clone, Default)]
pub struct RawEvent {
    pairs: Vec<(String, String)>,
}

impl RawEvent {
    pub fn from_pairs(pairs: Vec<(String, String)>) -> RawEvent {
        RawEvent { pairs }
    }

    /// Reads a JSON object: strings and numbers are taken as text, `null` as absent; other
    /// fields the event does not use are ignored.
    pub fn from_json(value: Value) -> Result<RawEvent, ParseError> {
        let Value::Object(object) = value else {
            return Err(RawEvent::not_an_object());
        };
        RawEvent::from_fields(object.into_iter().collect())
    }

    /// The refusal of an event that is not a JSON object.
    pub fn not_an_object() -> ParseError {
        ParseError::new("body", "An event must be a JSON object.")
    }

    /// [`RawEvent::from_json`] over an object's fields as they were sent: when a name
    /// repeats, its last value counts, as in a parsed object.
    pub fn from_fields(fields: Vec<(String, Value)>) -> Result<RawEvent, ParseError> {
        let mut seen = HashSet::with_capacity(fields.len());
        let mut last: Vec<bool> = fields
            .iter()
            .rev()
            .map(|(name, _)| seen.insert(name.as_str()))
            .collect();
        last.reverse();
        let mut pairs = Vec::with_capacity(fields.len());
        for ((name, v), last) in fields.into_iter().zip(last) {
            let text = match v {
                _ if !last => continue,
                Value::Null => continue,
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                _ if is_param(&name) => {
                    let message = format!("{name} must be a string or a number.");
                    return Err(ParseError::new(name, message));
                }
                _ => continue,
            };
            pairs.push((name, text));
        }
        Ok(RawEvent { pairs })
    }

    /// The value of a parameter under its name or an alias (in the table's order), with the
    /// name it came under, exactly as sent; blank values count as absent.
    fn raw(&self, param: &str) -> Option<(&str, &str)> {
        let (_, aliases) = PARAMS.iter().find(|(p, _)| *p == param)?;
        std::iter::once(param)
            .chain(aliases.iter().copied())
            .find_map(|name| {
                self.pairs
                    .iter()
                    .rev()
                    .find(|(k, v)| k == name && !v.trim().is_empty())
                    .map(|(k, v)| (k.as_str(), v.as_str()))
            })
    }

    /// [`RawEvent::raw`] without surrounding spaces, for the parameters that forgive them
    /// (every one but `amount`, which is read in the strict grammar of money).
    fn get(&self, param: &str) -> Option<(&str, &str)> {
        self.raw(param).map(|(name, v)| (name, v.trim()))
    }

    /// Checks every parameter and builds the event.
    pub fn parse(&self) -> Result<Event, ParseError> {
        let text = |param: &str| -> Result<Option<String>, ParseError> {
            match self.get(param) {
                Some((name, v)) if v.chars().count() > MAX_TEXT => Err(ParseError::new(
                    name,
                    format!("{name} is longer than {MAX_TEXT} characters."),
                )),
                Some((_, v)) => Ok(Some(v.to_string())),
                None => Ok(None),
            }
        };
        let target = match (text("ref")?, self.get("invite_link")) {
            (Some(r), _) => Target::Ref(r),
            (None, Some((name, link))) => {
                Target::Invite(normalize_invite(link).ok_or_else(|| {
                    ParseError::new(name, format!("{name} is not an invite link."))
                })?)
            }
            (None, None) => {
                return Err(ParseError::new(
                    "ref",
                    "Send ref (or subid, clickid, ...) or invite_link.",
                ))
            }
        };
        let event = match self.get("event") {
            Some((name, v)) => EventType::parse(v).ok_or_else(|| {
                ParseError::new(
                    name,
                    format!("{name} must be lead, conversion or purchase (or an alias of one)."),
                )
            })?,
            None => return Err(ParseError::new("event", "event is required.")),
        };
        let txid = text("txid")?.ok_or_else(|| ParseError::new("txid", "txid is required."))?;
        let amount_micros = self
            .raw("amount")
            .map(|(name, v)| {
                parse_amount(v, MONEY_SCALE, true)
                    .map_err(|e| ParseError::new(name, format!("{name} {e}.")))
            })
            .transpose()?;
        let currency = match self.get("currency") {
            Some((name, v)) => Some(currency(v).ok_or_else(|| {
                ParseError::new(name, format!("{name} must be a currency code such as USD."))
            })?),
            None => None,
        };
        let account_id = self
            .get("account_id")
            .map(|(name, v)| super::id::parse(name, v))
            .transpose()?;
        Ok(Event {
            target,
            event,
            txid,
            currency: amount_micros.map(|_| currency.unwrap_or_else(|| DEFAULT_CURRENCY.into())),
            amount_micros,
            status: text("status")?,
            account_id,
        })
    }
}

/// The version of the rule below; raise it when the rule changes, so that the next start
/// re-indexes every stored campaign.
pub const TARGETS_RULE: u32 = 1;

/// The values a postback can name a campaign by: the `?start=` / `?startapp=` payload of a
/// bot or mini-app link, the values of the tracker parameters of a website link, and the
/// invite link the platform made for a channel campaign.
pub fn campaign_targets(
    promote_url: &str,
    invite_link: Option<&str>,
    tracker_params: &[String],
) -> Vec<Target> {
    let mut targets: Vec<Target> = match PromoteLink::parse(promote_url) {
        Ok(link) if link.kind == LinkKind::Bot => {
            link.start_ref.into_iter().map(Target::Ref).collect()
        }
        Ok(link) if link.kind == LinkKind::Site => query_values(promote_url, tracker_params)
            .into_iter()
            .map(Target::Ref)
            .collect(),
        _ => Vec::new(),
    };
    targets.extend(invite_link.and_then(normalize_invite).map(Target::Invite));
    targets.dedup();
    targets
}

/// A currency code: three to five letters, upper-cased (ISO 4217, and codes such as USDT).
fn currency(text: &str) -> Option<String> {
    ((3..=5).contains(&text.len()) && text.chars().all(|c| c.is_ascii_alphabetic()))
        .then(|| text.to_ascii_uppercase())
}

/// Micro-units (one amount, or a sum of many) as a decimal string with at most six places
/// (trailing zeros cut, two kept). Any sum renders; nothing here can overflow or panic.
pub fn render_amount(micros: i128) -> String {
    crate::domain::money::decimal_text(micros, crate::domain::money::MONEY_SCALE, 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(list: &[(&str, &str)]) -> RawEvent {
        RawEvent::from_pairs(
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    fn param_of(e: Result<Event, ParseError>) -> String {
        match e {
            Err(ParseError { param, .. }) => param,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn every_alias_of_every_parameter_is_read() {
        for (param, aliases) in PARAMS {
            for name in std::iter::once(param).chain(aliases.iter()) {
                let value = match *param {
                    "invite_link" => "https://t.me/+AbC_12",
                    "event" => "sale",
                    "amount" => "-12.5",
                    "currency" => "eur",
                    "account_id" => "77",
                    _ => "x-1",
                };
                let mut list = vec![("event", "lead"), ("txid", "t1"), ("ref", "r1")];
                list.retain(|(k, _)| *k != *param);
                if *param == "invite_link" {
                    list.retain(|(k, _)| *k != "ref");
                }
                list.push((name, value));
                let e = pairs(&list)
                    .parse()
                    .unwrap_or_else(|e| panic!("{name}: {e:?}"));
                let read = match *param {
                    "ref" => e.target == Target::Ref("x-1".into()),
                    "invite_link" => e.target == Target::Invite("t.me/+AbC_12".into()),
                    "event" => e.event == EventType::Purchase,
                    "txid" => e.txid == "x-1",
                    "amount" => e.amount_micros == Some(-12_500_000),
                    "currency" => e.currency.is_none(),
                    "status" => e.status.as_deref() == Some("x-1"),
                    _ => e.account_id == Some(77),
                };
                assert!(read, "{name} was not read as {param}: {e:?}");
            }
        }
    }

    #[test]
    fn every_event_type_alias_maps_to_its_type() {
        let groups = [
            (EventType::Lead, "lead signup registration reg optin trial"),
            (
                EventType::Conversion,
                "conversion deposit ftd install subscribe join",
            ),
            (
                EventType::Purchase,
                "purchase sale buy payment order rebill upsell",
            ),
        ];
        for (kind, names) in groups {
            for name in names.split(' ') {
                assert_eq!(EventType::parse(name), Some(kind), "{name}");
                assert_eq!(EventType::parse(&name.to_uppercase()), Some(kind));
            }
        }
        assert_eq!(EventType::parse("click"), None);
    }

    #[test]
    fn amounts_are_exact_signed_and_default_to_usd() {
        let e = pairs(&[
            ("ref", "r"),
            ("event", "sale"),
            ("txid", "1"),
            ("payout", "19.99"),
        ])
        .parse()
        .unwrap();
        assert_eq!(
            (e.amount_micros, e.currency.as_deref()),
            (Some(19_990_000), Some("USD"))
        );
        let back = pairs(&[
            ("ref", "r"),
            ("event", "sale"),
            ("txid", "1"),
            ("amount", "-0.000001"),
            ("cur", "usdt"),
        ])
        .parse()
        .unwrap();
        assert_eq!(
            (back.amount_micros, back.currency.as_deref()),
            (Some(-1), Some("USDT"))
        );
        let none = pairs(&[("ref", "r"), ("event", "lead"), ("txid", "1")])
            .parse()
            .unwrap();
        assert_eq!((none.amount_micros, none.currency), (None, None));
        assert_eq!(render_amount(19_990_000), "19.99");
        assert_eq!(render_amount(-1), "-0.000001");
        assert_eq!(render_amount(5_000_000), "5.00");
        assert_eq!(render_amount(0), "0.00");
        assert_eq!(
            render_amount(i128::from(i64::MAX) * 3),
            "27670116110564.327421"
        );
    }

    #[test]
    fn amounts_take_only_the_strict_grammar_and_the_bound() {
        let with_amount =
            |v: &str| pairs(&[("ref", "r"), ("event", "sale"), ("txid", "1"), ("sum", v)]).parse();
        for bad in [
            "1_0",
            "1e5",
            "+5",
            " 5",
            "1.",
            ".5",
            "1000000000.01",
            "0.0000001",
        ] {
            assert_eq!(param_of(with_amount(bad)), "sum", "{bad:?}");
        }
        assert_eq!(
            with_amount("-1000000000").unwrap().amount_micros,
            Some(-1_000_000_000_000_000)
        );
        let exact = RawEvent::from_json(
            serde_json::from_str(r#"{"ref":"r","event":"sale","txid":"1","amount":123456.654321}"#)
                .unwrap(),
        )
        .unwrap()
        .parse()
        .unwrap();
        assert_eq!(
            exact.amount_micros,
            Some(123_456_654_321),
            "no float in between"
        );
        let huge = RawEvent::from_json(
            serde_json::from_str(
                r#"{"ref":"r","event":"sale","txid":"1","amount":9223372036854.775807}"#,
            )
            .unwrap(),
        )
        .unwrap()
        .parse();
        assert_eq!(param_of(huge), "amount");
    }

    #[test]
    fn bad_parameters_are_named_as_sent() {
        let base = [("ref", "r"), ("event", "lead"), ("txid", "1")];
        let with = |extra: (&'static str, &'static str)| {
            let mut list: Vec<(&str, &str)> = base.to_vec();
            list.retain(|(k, _)| *k != extra.0);
            list.push(extra);
            pairs(&list).parse()
        };
        assert_eq!(param_of(with(("payout", "1.2345678"))), "payout");
        assert_eq!(param_of(with(("amount", "ten"))), "amount");
        assert_eq!(param_of(with(("cur", "$"))), "cur");
        assert_eq!(
            param_of(pairs(&[("ref", "r"), ("goal", "click"), ("txid", "1")]).parse()),
            "goal"
        );
        assert_eq!(param_of(with(("accountId", "-3"))), "accountId");
        assert_eq!(
            param_of(pairs(&[("event", "lead"), ("txid", "1")]).parse()),
            "ref"
        );
        assert_eq!(
            param_of(pairs(&[("ref", "r"), ("txid", "1")]).parse()),
            "event"
        );
        assert_eq!(
            param_of(pairs(&[("ref", "r"), ("event", "lead")]).parse()),
            "txid"
        );
        assert_eq!(
            param_of(
                pairs(&[
                    ("link", "https://example.com/x"),
                    ("event", "lead"),
                    ("txid", "1")
                ])
                .parse()
            ),
            "link"
        );
    }

    #[test]
    fn campaigns_are_named_by_start_payloads_tracker_values_and_invite_links() {
        let params: Vec<String> = ["subid", "clickid"].map(String::from).to_vec();
        let refs = |url: &str, invite: Option<&str>| campaign_targets(url, invite, &params);
        assert_eq!(
            refs("https://t.me/shop_bot?start=promo42", None),
            [Target::Ref("promo42".into())]
        );
        assert_eq!(
            refs("https://t.me/shop_bot/app?startapp=x_1", None),
            [Target::Ref("x_1".into())]
        );
        assert_eq!(
            refs(
                "https://shop.example.com/land?utm=a&subid=s%201&clickid=c2",
                None
            ),
            [Target::Ref("s 1".into()), Target::Ref("c2".into())]
        );
        assert_eq!(refs("https://shop.example.com/land?utm=a", None), []);
        assert_eq!(
            refs("https://t.me/news_channel", Some("https://t.me/+AbCd")),
            [Target::Invite("t.me/+AbCd".into())]
        );
    }

    #[test]
    fn json_numbers_are_read_as_text_and_unknown_fields_ignored() {
        let raw = RawEvent::from_json(json!({
            "clickid": "abc", "goal": "ftd", "order_id": 1234, "revenue": 12.5, "sub5": {"x": 1}
        }))
        .unwrap();
        let e = raw.parse().unwrap();
        assert_eq!(e.txid, "1234");
        assert_eq!(e.amount_micros, Some(12_500_000));
        assert_eq!(e.event, EventType::Conversion);
        assert!(RawEvent::from_json(json!({ "txid": ["a"] })).is_err());
        assert!(RawEvent::from_json(json!("lead")).is_err());
    }

    #[test]
    fn a_repeated_field_counts_by_its_last_value() {
        let fields = |list: Vec<(&str, Value)>| {
            RawEvent::from_fields(list.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        };
        let e = fields(vec![
            ("ref", json!("r1")),
            ("event", json!("lead")),
            ("txid", json!(["not read"])),
            ("txid", json!("t1")),
            ("ref", json!("r2")),
        ])
        .unwrap()
        .parse()
        .unwrap();
        assert_eq!((e.target, e.txid), (Target::Ref("r2".into()), "t1".into()));
        let cleared = fields(vec![
            ("ref", json!("r1")),
            ("event", json!("lead")),
            ("txid", json!("t1")),
            ("txid", Value::Null),
        ])
        .unwrap()
        .parse();
        assert_eq!(param_of(cleared), "txid");
        let refused = fields(vec![("txid", json!("t1")), ("txid", json!({"a": 1}))]);
        assert_eq!(param_of(refused.and_then(|r| r.parse())), "txid");
    }
}
