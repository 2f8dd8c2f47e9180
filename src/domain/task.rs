//! Owns the vocabulary of background tasks: their kinds, the lane of a cabinet each runs in,
//! their statuses, the bulk actions (with the money or schedule each carries), and the payload
//! a task is stored with. Shared by the HTTP layer that queues tasks and the worker that runs
//! them, so neither keeps its own table of strings.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

mod bulk;

pub use bulk::{BulkAction, BulkKind, Extra, ExtraValue};

use super::ad::AdDraft;
use super::money::Money;
use super::schedule::Schedule;
use super::ParseError;

/// Why a task stopped or paused, or why one of its items failed, as the task stores it: a code
/// adcab words in each face (`adcab:cabinet_gone`, `adcab:out_of_balance:3`), the API in the
/// English sentences it has always answered and the panel in the person's language; or a text
/// kept as it was said (the platform's own reason, or a row stored before the codes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The task's cabinet was deleted.
    CabinetGone,
    /// The task's cabinet was deactivated.
    CabinetInactive,
    /// The cabinet's platform session expired.
    SessionExpired,
    /// The platform did not answer, time after time.
    PlatformSilent,
    /// The task's stored data cannot be read.
    Unreadable,
    /// The cabinet's balance ran out at item `item` (the task is paused).
    OutOfBalance { item: i64 },
    /// The item's campaign is not (or no longer) in the cabinet.
    NoSuchCampaign,
    /// A recreate of a campaign that is not declined.
    NotDeclined,
    /// A withdrawal of more than the campaign's budget.
    AdBalance,
    /// A bid set on a campaign Auto CPM manages.
    AutoCpmLocked,
    /// A schedule in each viewer's time on a campaign that does not target users.
    ViewerZone,
    /// Said as it is.
    Said(String),
}

/// What a stored code starts with.
const CODE: &str = "adcab:";

impl Outcome {
    /// The text a task stores.
    pub fn stored(&self) -> String {
        let code = match self {
            Outcome::CabinetGone => "cabinet_gone",
            Outcome::CabinetInactive => "cabinet_inactive",
            Outcome::SessionExpired => "session_expired",
            Outcome::PlatformSilent => "platform_silent",
            Outcome::Unreadable => "unreadable",
            Outcome::OutOfBalance { item } => return format!("{CODE}out_of_balance:{item}"),
            Outcome::NoSuchCampaign => "no_such_campaign",
            Outcome::NotDeclined => "not_declined",
            Outcome::AdBalance => "ad_balance",
            Outcome::AutoCpmLocked => "auto_cpm_locked",
            Outcome::ViewerZone => "viewer_zone",
            Outcome::Said(text) => return text.clone(),
        };
        format!("{CODE}{code}")
    }

    /// A stored text read back: a code, or else what was said.
    pub fn read(stored: &str) -> Outcome {
        let Some(code) = stored.strip_prefix(CODE) else {
            return Outcome::Said(stored.to_string());
        };
        match code {
            "cabinet_gone" => Outcome::CabinetGone,
            "cabinet_inactive" => Outcome::CabinetInactive,
            "session_expired" => Outcome::SessionExpired,
            "platform_silent" => Outcome::PlatformSilent,
            "unreadable" => Outcome::Unreadable,
            "no_such_campaign" => Outcome::NoSuchCampaign,
            "not_declined" => Outcome::NotDeclined,
            "ad_balance" => Outcome::AdBalance,
            "auto_cpm_locked" => Outcome::AutoCpmLocked,
            "viewer_zone" => Outcome::ViewerZone,
            _ => match code
                .strip_prefix("out_of_balance:")
                .and_then(|i| i.parse().ok())
            {
                Some(item) => Outcome::OutOfBalance { item },
                None => Outcome::Said(stored.to_string()),
            },
        }
    }
}

/// One failed item of a task, as the task's `errors` keeps it (`error` as
/// [`Outcome::stored`] writes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemError {
    pub ad_id: Option<i64>,
    pub index: i64,
    pub error: String,
}

/// What a task does; its `type` in the task object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    Create,
    Copy,
    /// A declined campaign made again (its settings, with any field sent in place), then the
    /// declined one deleted.
    Recreate,
    /// Bulk pause or resume.
    Status,
    /// Bulk budget moves.
    Budget,
    Cpm,
    Schedule,
    Delete,
}

impl TaskKind {
    pub const ALL: [TaskKind; 8] = [
        TaskKind::Create,
        TaskKind::Copy,
        TaskKind::Recreate,
        TaskKind::Status,
        TaskKind::Budget,
        TaskKind::Cpm,
        TaskKind::Schedule,
        TaskKind::Delete,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Create => "create",
            TaskKind::Copy => "copy",
            TaskKind::Recreate => "recreate",
            TaskKind::Status => "status",
            TaskKind::Budget => "budget",
            TaskKind::Cpm => "cpm",
            TaskKind::Schedule => "schedule",
            TaskKind::Delete => "delete",
        }
    }

    pub fn parse(s: &str) -> Option<TaskKind> {
        TaskKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Creates, copies and recreates share a cabinet's create lane; everything else its other
    /// lane.
    pub fn lane(self) -> Lane {
        match self {
            TaskKind::Create | TaskKind::Copy | TaskKind::Recreate => Lane::Create,
            TaskKind::Status
            | TaskKind::Budget
            | TaskKind::Cpm
            | TaskKind::Schedule
            | TaskKind::Delete => Lane::Other,
        }
    }
}

/// A cabinet runs one task of each lane at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    Create,
    Other,
}

impl Lane {
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Create => "create",
            Lane::Other => "other",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Pending,
    Running,
    Paused,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub const ALL: [TaskStatus; 6] = [
        TaskStatus::Pending,
        TaskStatus::Running,
        TaskStatus::Paused,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::Running => "running",
            TaskStatus::Paused => "paused",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<TaskStatus> {
        TaskStatus::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The task has ended and will not change again.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The task still has work ahead that runs by itself.
    pub fn is_underway(self) -> bool {
        matches!(self, TaskStatus::Pending | TaskStatus::Running)
    }
}

/// One declined campaign to make again: the one it replaces, the group the new one goes to
/// and the new one's draft (the old settings with any field sent in place).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Recreation {
    pub from: i64,
    pub group_id: Option<i64>,
    pub campaign: AdDraft,
}

/// What a task is stored with: the campaigns a create or copy makes, the declined campaigns a
/// recreate makes again, or a bulk action and the campaigns it acts on.
#[derive(Debug, Clone)]
pub enum Payload {
    Create {
        group_id: Option<i64>,
        campaigns: Vec<AdDraft>,
    },
    Recreate {
        items: Vec<Recreation>,
    },
    Bulk {
        action: BulkAction,
        ad_ids: Vec<i64>,
    },
}

impl Payload {
    /// How many items the task has.
    pub fn total(&self) -> usize {
        match self {
            Payload::Create { campaigns, .. } => campaigns.len(),
            Payload::Recreate { items } => items.len(),
            Payload::Bulk { ad_ids, .. } => ad_ids.len(),
        }
    }

    /// The stored form (kept as it always was: money in micro-units, a schedule as its
    /// normalised object).
    pub fn to_json(&self) -> Value {
        match self {
            Payload::Create {
                group_id,
                campaigns,
            } => json!({ "group_id": group_id, "campaigns": campaigns }),
            Payload::Recreate { items } => json!({ "items": items }),
            Payload::Bulk { action, ad_ids } => {
                let mut value = json!({ "action": action.name(), "ad_ids": ad_ids });
                match action {
                    BulkAction::AddBudget(m) | BulkAction::WithdrawBudget(m) => {
                        value["amount"] = json!(m.micros())
                    }
                    BulkAction::SetCpm(m) => value["cpm"] = json!(m.micros()),
                    BulkAction::SetSchedule(s) => {
                        value["schedule"] = s.as_ref().map_or(Value::Null, Schedule::to_json_named)
                    }
                    BulkAction::Pause
                    | BulkAction::Resume
                    | BulkAction::WithdrawAllBudget
                    | BulkAction::Delete => {}
                }
                value
            }
        }
    }

    /// Reads a stored payload of a task of `kind`; the error says what could not be read.
    pub fn from_json(kind: TaskKind, value: &Value) -> Result<Payload, PayloadError> {
        match kind {
            TaskKind::Create | TaskKind::Copy => {
                let group_id = match &value["group_id"] {
                    Value::Null => None,
                    v => Some(v.as_i64().ok_or_else(|| PayloadError::GroupId(v.clone()))?),
                };
                let campaigns = serde_json::from_value(value["campaigns"].clone())
                    .map_err(PayloadError::Campaigns)?;
                Ok(Payload::Create {
                    group_id,
                    campaigns,
                })
            }
            TaskKind::Recreate => {
                let items = serde_json::from_value(value["items"].clone())
                    .map_err(PayloadError::Recreations)?;
                Ok(Payload::Recreate { items })
            }
            TaskKind::Status
            | TaskKind::Budget
            | TaskKind::Cpm
            | TaskKind::Schedule
            | TaskKind::Delete => Payload::bulk_from_json(kind, value),
        }
    }

    /// Reads a stored bulk payload of a task of `kind`.
    fn bulk_from_json(kind: TaskKind, value: &Value) -> Result<Payload, PayloadError> {
        let name = value["action"].as_str().unwrap_or_default();
        let bulk_kind =
            BulkKind::parse(name).ok_or_else(|| PayloadError::UnknownAction(name.to_string()))?;
        let money = |field: &'static str| {
            value[field]
                .as_i64()
                .map(|m| ExtraValue::Money(Money::from_micros(m)))
                .ok_or_else(|| PayloadError::Money {
                    field,
                    action: name.to_string(),
                    value: value[field].clone(),
                })
        };
        let read = match bulk_kind.extra() {
            Extra::None => ExtraValue::None,
            Extra::Amount => money("amount")?,
            Extra::Cpm => money("cpm")?,
            Extra::Schedule => ExtraValue::Schedule(match &value["schedule"] {
                Value::Null => None,
                v => Some(Schedule::stored(v).map_err(|error| PayloadError::Schedule {
                    value: v.clone(),
                    error,
                })?),
            }),
        };
        let action = BulkAction::from_parts(bulk_kind, read)
            .ok_or_else(|| PayloadError::Extra(name.to_string()))?;
        if action.kind() != kind {
            return Err(PayloadError::WrongKind {
                action: name.to_string(),
                kind,
            });
        }
        let ad_ids =
            serde_json::from_value(value["ad_ids"].clone()).map_err(PayloadError::AdIds)?;
        Ok(Payload::Bulk { action, ad_ids })
    }
}

/// What of a stored payload could not be read; `Display` says it for the log and the task's
/// failure.
#[derive(Debug)]
pub enum PayloadError {
    /// `group_id` is neither null nor an integer.
    GroupId(Value),
    /// `campaigns` does not read as drafts.
    Campaigns(serde_json::Error),
    /// `items` does not read as recreations.
    Recreations(serde_json::Error),
    /// `action` names no bulk action.
    UnknownAction(String),
    /// A money field of the action is not an integer of micro-units.
    Money {
        field: &'static str,
        action: String,
        value: Value,
    },
    /// `schedule` does not read as a schedule.
    Schedule { value: Value, error: ParseError },
    /// The action's extra field does not fit the action.
    Extra(String),
    /// The action belongs to another kind of task.
    WrongKind { action: String, kind: TaskKind },
    /// `ad_ids` is not a list of ids.
    AdIds(serde_json::Error),
}

impl std::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PayloadError::GroupId(v) => write!(f, "group_id {v}"),
            PayloadError::Campaigns(e) => write!(f, "campaigns: {e}"),
            PayloadError::Recreations(e) => write!(f, "items: {e}"),
            PayloadError::UnknownAction(name) => write!(f, "unknown bulk action {name:?}"),
            PayloadError::Money {
                field,
                action,
                value,
            } => write!(f, "{field} of {action}: {value}"),
            PayloadError::Schedule { value, error } => write!(f, "schedule {value}: {error}"),
            PayloadError::Extra(name) => write!(f, "the extra field of {name}"),
            PayloadError::WrongKind { action, kind } => {
                write!(f, "action {action} in a task of type {}", kind.as_str())
            }
            PayloadError::AdIds(e) => write!(f, "ad_ids: {e}"),
        }
    }
}

impl std::error::Error for PayloadError {}

#[cfg(test)]
mod tests {
    #[test]
    fn an_outcome_is_stored_as_a_code_and_read_back() {
        for o in [
            Outcome::CabinetGone,
            Outcome::SessionExpired,
            Outcome::OutOfBalance { item: 3 },
            Outcome::NotDeclined,
            Outcome::Said("the platform said no".into()),
        ] {
            assert_eq!(Outcome::read(&o.stored()), o);
        }
        assert_eq!(Outcome::SessionExpired.stored(), "adcab:session_expired");
        assert_eq!(
            Outcome::read("adcab:what"),
            Outcome::Said("adcab:what".into())
        );
    }

    use super::*;

    #[test]
    fn names_round_trip_and_lanes_follow_kinds() {
        for kind in TaskKind::ALL {
            assert_eq!(TaskKind::parse(kind.as_str()), Some(kind));
        }
        for status in TaskStatus::ALL {
            assert_eq!(TaskStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(TaskKind::Copy.lane(), Lane::Create);
        assert_eq!(TaskKind::Recreate.lane(), Lane::Create);
        for kind in BulkKind::ALL {
            assert_eq!(BulkKind::parse(kind.name()), Some(kind));
        }
        assert_eq!(TaskKind::Delete.lane(), Lane::Other);
        assert_eq!(TaskKind::parse("explode"), None);
    }

    #[test]
    fn bulk_payloads_keep_their_stored_form() {
        let schedule =
            Schedule::stored(&json!({ "days": { "mon": [9] }, "timezone": "+03:00" })).unwrap();
        for action in [
            BulkAction::Pause,
            BulkAction::AddBudget(Money::from_micros(5_000_000)),
            BulkAction::SetCpm(Money::from_micros(2_500_000)),
            BulkAction::SetSchedule(Some(schedule)),
            BulkAction::SetSchedule(None),
            BulkAction::Delete,
        ] {
            let payload = Payload::Bulk {
                action: action.clone(),
                ad_ids: vec![3, 1],
            };
            let stored = payload.to_json();
            assert_eq!(stored["action"], action.name());
            match Payload::from_json(action.kind(), &stored).unwrap() {
                Payload::Bulk {
                    action: read,
                    ad_ids,
                } => {
                    assert_eq!((read, ad_ids), (action, vec![3, 1]))
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            Payload::to_json(&Payload::Bulk {
                action: BulkAction::AddBudget(Money::from_micros(7)),
                ad_ids: vec![1],
            })["amount"],
            7,
            "money stays in micro-units"
        );
    }

    #[test]
    fn damaged_payloads_say_what_is_wrong() {
        let read = |kind, v: Value| Payload::from_json(kind, &v).unwrap_err().to_string();
        assert!(read(TaskKind::Delete, json!({ "action": "delete" })).contains("ad_ids"));
        assert!(read(
            TaskKind::Budget,
            json!({ "action": "add_budget", "ad_ids": [1] })
        )
        .contains("amount"));
        assert!(
            read(TaskKind::Cpm, json!({ "action": "pause", "ad_ids": [1] })).contains("type cpm")
        );
        assert!(read(TaskKind::Status, json!({ "action": "fly", "ad_ids": [1] })).contains("fly"));
        assert!(read(TaskKind::Create, json!({ "group_id": "x" })).contains("group_id"));
    }

    #[test]
    fn recreate_payloads_keep_what_each_item_replaces_and_makes() {
        use crate::domain::ad::AdSpec;
        use crate::domain::campaign::TargetType;
        let spec = AdSpec::plain(
            "Original",
            "An honest text",
            "https://t.me/alpha_chan",
            TargetType::Channels,
            json!({ "channels": ["@tech_daily"] }),
        );
        let campaign = AdDraft::running(spec, Money::from_micros(3_000_000), Money::ZERO);
        let payload = Payload::Recreate {
            items: vec![Recreation {
                from: 1042,
                group_id: Some(7),
                campaign,
            }],
        };
        let stored = payload.to_json();
        assert_eq!(stored["items"][0]["from"], 1042);
        match Payload::from_json(TaskKind::Recreate, &stored).unwrap() {
            Payload::Recreate { items } => {
                assert_eq!(items.len(), 1);
                assert_eq!((items[0].from, items[0].group_id), (1042, Some(7)));
                assert_eq!(items[0].campaign.spec.text, "An honest text");
                assert_eq!(items[0].campaign.cpm, Money::from_micros(3_000_000));
            }
            other => panic!("{other:?}"),
        }
        let damaged = Payload::from_json(TaskKind::Recreate, &json!({ "items": [{ "from": 1 }] }));
        assert!(damaged.unwrap_err().to_string().starts_with("items: "));
    }
}
