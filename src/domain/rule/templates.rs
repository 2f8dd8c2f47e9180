//! Owns the built-in library of rule templates: each one's id, name, description and
//! parameters, and how a template with its parameters (and the cabinet's currency) becomes the
//! same rule body any client could send, with the body paths each parameter filled, so that
//! reading that body (`ops::rule::read`) can name a refusal `params.<name>`. Pure: it neither
//! reads nor checks the body it writes beyond each parameter's own form.

mod build;

use rust_decimal::Decimal;
use serde_json::{json, Map, Value};

use build::{
    bid_down_high_cpa, morning_resume, night_pause, pause_low_ctr, refill_budget, scale_winners,
    stop_loss,
};

use crate::domain::money::CabinetType;
use crate::domain::{ParseError, Why};

/// What a parameter holds, as a client shows a field for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// An amount in the cabinet's currency.
    Money,
    /// A count (views, actions).
    Number,
    /// A percentage (CTR, a bid step).
    Percent,
    /// Hours (a window, or an hour of the day 0-23).
    Hours,
}

impl ParamKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::Money => "money",
            ParamKind::Number => "number",
            ParamKind::Percent => "percent",
            ParamKind::Hours => "hours",
        }
    }
}

/// A parameter's default: the same in every cabinet, or an amount per currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Default {
    None,
    Same(&'static str),
    /// EUR, TON, STARS.
    Money(&'static str, &'static str, &'static str),
}

impl Default {
    fn of(self, kind: CabinetType) -> Option<&'static str> {
        match (self, kind) {
            (Default::None, _) => None,
            (Default::Same(v), _) => Some(v),
            (Default::Money(e, _, _), CabinetType::Euro) => Some(e),
            (Default::Money(_, t, _), CabinetType::Ton) => Some(t),
            (Default::Money(_, _, s), CabinetType::Stars) => Some(s),
        }
    }

    fn to_json(self) -> Option<Value> {
        match self {
            Default::None => None,
            Default::Same(v) => Some(json!(v)),
            Default::Money(e, t, s) => Some(json!({ "euro": e, "ton": t, "stars": s })),
        }
    }
}

/// One parameter of a template.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    pub default: Default,
    pub description: &'static str,
}

impl Param {
    /// Required when it has no default.
    pub fn required(&self) -> bool {
        self.default == Default::None
    }

    /// Its default in a cabinet of `kind`.
    pub fn default_for(&self, kind: CabinetType) -> Option<&'static str> {
        self.default.of(kind)
    }
}

/// A template of the library.
#[derive(Debug, Clone, Copy)]
pub struct Template {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static [Param],
    build: fn(&mut Fill) -> Result<Value, ParseError>,
}

impl Template {
    /// As `GET /v1/rule-templates` and the MCP tool list it.
    pub fn to_json(&self) -> Value {
        let params: Vec<Value> = self
            .params
            .iter()
            .map(|p| {
                let mut v = json!({
                    "name": p.name,
                    "kind": p.kind.as_str(),
                    "required": p.required(),
                    "description": p.description,
                });
                if let Some(d) = p.default.to_json() {
                    v["default"] = d;
                }
                v
            })
            .collect();
        json!({
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "params": params,
        })
    }
}

const fn param(
    name: &'static str,
    kind: ParamKind,
    default: Default,
    description: &'static str,
) -> Param {
    Param {
        name,
        kind,
        default,
        description,
    }
}

const WINDOW: Param = param(
    "window_hours",
    ParamKind::Hours,
    Default::Same("24"),
    "Hours looked back (1-168).",
);

/// The library, in the order it is listed.
pub const TEMPLATES: [Template; 7] = [
    Template {
        id: "stop_loss",
        name: "Stop-loss on spend without actions",
        description: "Pauses a campaign that spent more than `spend` over the window without a \
                      single action.",
        params: &[
            param(
                "spend",
                ParamKind::Money,
                Default::Money("5", "2", "250"),
                "Spend over the window that pauses a campaign without actions.",
            ),
            WINDOW,
        ],
        build: stop_loss,
    },
    Template {
        id: "scale_winners",
        name: "Scale winners",
        description: "Raises the bid by `percent` (up to `max_cpm`) of a campaign whose CPA over \
                      the window is below `max_cpa` with at least `min_actions` actions; at most \
                      once a day.",
        params: &[
            param(
                "max_cpa",
                ParamKind::Money,
                Default::None,
                "The CPA under which a campaign is a winner.",
            ),
            param(
                "min_actions",
                ParamKind::Number,
                Default::Same("10"),
                "Actions over the window a winner needs at least.",
            ),
            param(
                "percent",
                ParamKind::Percent,
                Default::Same("10"),
                "How much the bid rises each time (1-500).",
            ),
            param(
                "max_cpm",
                ParamKind::Money,
                Default::Money("10", "5", "500"),
                "The highest bid it raises to.",
            ),
            WINDOW,
        ],
        build: scale_winners,
    },
    Template {
        id: "pause_low_ctr",
        name: "Pause low CTR",
        description: "Pauses a campaign whose CTR over the window is below `ctr` percent once it \
                      has at least `min_views` views.",
        params: &[
            param(
                "ctr",
                ParamKind::Percent,
                Default::Same("0.5"),
                "The CTR (percent) under which a campaign is paused.",
            ),
            param(
                "min_views",
                ParamKind::Number,
                Default::Same("1000"),
                "Views over the window before CTR is judged.",
            ),
            WINDOW,
        ],
        build: pause_low_ctr,
    },
    Template {
        id: "refill_budget",
        name: "Refill budget",
        description: "Adds `amount` from the cabinet's balance to an active campaign whose budget \
                      fell below `below`, at most `max_per_day` a day per rule.",
        params: &[
            param(
                "below",
                ParamKind::Money,
                Default::Money("5", "2", "250"),
                "The budget under which a campaign is refilled.",
            ),
            param(
                "amount",
                ParamKind::Money,
                Default::Money("20", "10", "1000"),
                "How much each refill adds.",
            ),
            param(
                "max_per_day",
                ParamKind::Money,
                Default::Money("60", "30", "3000"),
                "The most the rule adds in 24 hours.",
            ),
        ],
        build: refill_budget,
    },
    Template {
        id: "bid_down_high_cpa",
        name: "Bid down on high CPA",
        description: "Lowers the bid by `percent` (not under `min_cpm`) of a campaign whose CPA \
                      over the window is above `max_cpa`; at most once every 12 hours.",
        params: &[
            param(
                "max_cpa",
                ParamKind::Money,
                Default::None,
                "The CPA above which the bid goes down.",
            ),
            param(
                "percent",
                ParamKind::Percent,
                Default::Same("10"),
                "How much the bid goes down each time (1-90).",
            ),
            param(
                "min_cpm",
                ParamKind::Money,
                Default::Money("0.5", "0.2", "20"),
                "The lowest bid it goes down to.",
            ),
            WINDOW,
        ],
        build: bid_down_high_cpa,
    },
    Template {
        id: "night_pause",
        name: "Night pause",
        description: "Pauses active campaigns from `from_hour` to `to_hour` (hours of the day in \
                      the cabinet owner's time zone, UTC without one). Pair it with \
                      morning_resume over the same scope: adcab does not remember which \
                      campaigns a rule paused, so a campaign paused by hand in that scope comes \
                      back in the morning too.",
        params: &[
            param(
                "from_hour",
                ParamKind::Hours,
                Default::Same("23"),
                "The hour of the day (0-23) the pause starts.",
            ),
            param(
                "to_hour",
                ParamKind::Hours,
                Default::Same("7"),
                "The hour of the day (0-23) campaigns may run again.",
            ),
        ],
        build: night_pause,
    },
    Template {
        id: "morning_resume",
        name: "Morning resume",
        description: "Resumes paused campaigns of its scope at `hour` (the hour of the day in the \
                      cabinet owner's time zone): night_pause's pair. Give it the same scope as \
                      the night pause; it resumes every paused campaign of that scope.",
        params: &[param(
            "hour",
            ParamKind::Hours,
            Default::Same("7"),
            "The hour of the day (0-23) campaigns come back.",
        )],
        build: morning_resume,
    },
];

/// The template `id`.
pub fn find(id: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|t| t.id == id)
}

/// A template filled: the rule body, and which body path each parameter went to.
#[derive(Debug, Clone)]
pub struct Filled {
    pub body: Value,
    pub placed: Vec<(String, &'static str)>,
}

impl Filled {
    /// The parameter a refusal of the body at `param` comes from, if one filled that path.
    pub fn param_at(&self, param: &str) -> Option<&'static str> {
        self.placed.iter().find_map(|(at, name)| {
            let rest = param.strip_prefix(at.as_str())?;
            (rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')).then_some(*name)
        })
    }
}

/// The parameters as sent, with the cabinet's defaults and where each went.
pub struct Fill<'a> {
    template: &'static Template,
    sent: &'a Map<String, Value>,
    kind: CabinetType,
    placed: Vec<(String, &'static str)>,
}

impl Fill<'_> {
    fn spec(&self, name: &str) -> &'static Param {
        self.template
            .params
            .iter()
            .find(|p| p.name == name)
            .expect("a template reads its own parameters")
    }

    /// The text of parameter `name` as sent (a string or a number) or its default.
    fn text(&self, name: &'static str) -> Result<String, ParseError> {
        let at = format!("params.{name}");
        match self.sent.get(name) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            Some(Value::Null) | None => self
                .spec(name)
                .default_for(self.kind)
                .map(str::to_string)
                .ok_or_else(|| {
                    ParseError::new(&at, format!("{name} is required.")).because(Why::Required)
                }),
            Some(Value::String(_)) => {
                Err(ParseError::new(&at, format!("{name} is required.")).because(Why::Required))
            }
            Some(_) => Err(ParseError::new(
                &at,
                format!("{name} must be a number (or a string holding one)."),
            )
            .because(Why::Kind)),
        }
    }

    /// Parameter `name` put at body path `at` as sent: the rule's reading checks it.
    fn put(&mut self, name: &'static str, at: &str) -> Result<Value, ParseError> {
        let text = self.text(name)?;
        self.placed.push((at.to_string(), name));
        Ok(json!(text))
    }

    /// Parameter `name` as a whole number from `min` to `max`.
    fn int(&mut self, name: &'static str, min: u32, max: u32) -> Result<u32, ParseError> {
        let text = self.text(name)?;
        text.parse::<u32>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| {
                ParseError::new(
                    format!("params.{name}"),
                    format!("{name} is a whole number from {min} to {max}."),
                )
                .because(Why::Range {
                    min: i64::from(min),
                    max: i64::from(max),
                })
            })
    }

    /// The window (`window_hours`), placed at every condition path in `at`.
    fn window(&mut self, at: &[&str]) -> Result<u32, ParseError> {
        let hours = self.int("window_hours", 1, super::MAX_WINDOW_HOURS)?;
        for path in at {
            self.placed.push((path.to_string(), "window_hours"));
        }
        Ok(hours)
    }

    /// Parameter `name` as a percentage from `min` to `max` (decimals allowed), as text.
    fn percent(&mut self, name: &'static str, min: i64, max: i64) -> Result<Decimal, ParseError> {
        let text = self.text(name)?;
        text.parse::<Decimal>()
            .ok()
            .filter(|p| *p >= Decimal::from(min) && *p <= Decimal::from(max))
            .map(|p| p.normalize())
            .ok_or_else(|| {
                ParseError::new(
                    format!("params.{name}"),
                    format!("{name} is a percentage from {min} to {max}."),
                )
                .because(Why::Range { min, max })
            })
    }
}

/// Fills `template` with the parameters `sent` for a cabinet of `kind`: a parameter it does
/// not take, or a required one left out, is refused as `params.<name>`.
pub fn fill(
    template: &'static Template,
    sent: &Map<String, Value>,
    kind: CabinetType,
) -> Result<Filled, ParseError> {
    if let Some(name) = sent
        .keys()
        .find(|k| !template.params.iter().any(|p| p.name == k.as_str()))
    {
        let names: Vec<&str> = template.params.iter().map(|p| p.name).collect();
        return Err(ParseError::new(
            format!("params.{name}"),
            format!(
                "{} takes {}; not {name}.",
                template.id,
                crate::domain::either(&names)
            ),
        )
        .because(Why::NotOneOf {
            allowed: crate::domain::words(&names),
        }));
    }
    let mut fill = Fill {
        template,
        sent,
        kind,
        placed: Vec::new(),
    };
    let mut body = (template.build)(&mut fill)?;
    body["name"] = json!(template.name);
    Ok(Filled {
        body,
        placed: fill.placed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_snake_case_unique_and_every_parameter_is_placed_or_checked() {
        let mut ids: Vec<&str> = TEMPLATES.iter().map(|t| t.id).collect();
        for id in &ids {
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{id}"
            );
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), TEMPLATES.len());
        assert!(find("stop_loss").is_some());
        assert!(find("nope").is_none());
    }

    #[test]
    fn a_required_parameter_left_out_and_an_unknown_one_are_named() {
        let t = find("scale_winners").unwrap();
        let e = fill(t, &Map::new(), CabinetType::Euro).unwrap_err();
        assert_eq!(e.param, "params.max_cpa");
        assert_eq!(e.why, Why::Required);
        let mut sent = Map::new();
        sent.insert("max_cpa".into(), json!("2"));
        sent.insert("colour".into(), json!("red"));
        let e = fill(t, &sent, CabinetType::Euro).unwrap_err();
        assert_eq!(e.param, "params.colour");
    }

    #[test]
    fn a_refusal_of_the_body_is_traced_back_to_its_parameter() {
        let t = find("stop_loss").unwrap();
        let filled = fill(t, &Map::new(), CabinetType::Stars).unwrap();
        assert_eq!(filled.body["conditions"]["all"][0]["value"], "250");
        assert_eq!(filled.param_at("conditions.all[0].value"), Some("spend"));
        assert_eq!(
            filled.param_at("conditions.all[1].window_hours"),
            Some("window_hours")
        );
        assert_eq!(filled.param_at("conditions.all[1].value"), None);
    }

    #[test]
    fn night_pause_spans_midnight_with_any_and_a_day_with_all() {
        let t = find("night_pause").unwrap();
        let filled = fill(t, &Map::new(), CabinetType::Euro).unwrap();
        assert!(filled.body["conditions"]["all"][0]["any"].is_array());
        let mut sent = Map::new();
        sent.insert("from_hour".into(), json!(1));
        sent.insert("to_hour".into(), json!("5"));
        let filled = fill(t, &sent, CabinetType::Euro).unwrap();
        assert!(filled.body["conditions"]["all"][0]["all"].is_array());
        sent.insert("to_hour".into(), json!(24));
        assert_eq!(
            fill(t, &sent, CabinetType::Euro).unwrap_err().param,
            "params.to_hour"
        );
    }
}
