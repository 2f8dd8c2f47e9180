//! Owns the campaign enums of the spec: statuses, target types and the kind of promoted link.

use serde::{Deserialize, Serialize};

/// Serialised as the spec writes it (`In Review`, `On Hold`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    Active,
    #[serde(rename = "In Review")]
    InReview,
    Declined,
    Paused,
    Stopped,
    #[serde(rename = "On Hold")]
    OnHold,
    Deleted,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::Active,
        Status::InReview,
        Status::Declined,
        Status::Paused,
        Status::Stopped,
        Status::OnHold,
        Status::Deleted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "Active",
            Status::InReview => "In Review",
            Status::Declined => "Declined",
            Status::Paused => "Paused",
            Status::Stopped => "Stopped",
            Status::OnHold => "On Hold",
            Status::Deleted => "Deleted",
        }
    }

    /// Parses a status as the spec writes it; case and surrounding spaces are forgiven.
    pub fn parse(s: &str) -> Option<Status> {
        let s = s.trim();
        Status::ALL
            .into_iter()
            .find(|status| status.as_str().eq_ignore_ascii_case(s))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetType {
    Channels,
    Bots,
    Search,
    Users,
}

impl TargetType {
    pub fn parse(s: &str) -> Option<TargetType> {
        match s {
            "channels" => Some(TargetType::Channels),
            "bots" => Some(TargetType::Bots),
            "search" => Some(TargetType::Search),
            "users" => Some(TargetType::Users),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TargetType::Channels => "channels",
            TargetType::Bots => "bots",
            TargetType::Search => "search",
            TargetType::Users => "users",
        }
    }
}

/// What a campaign's link leads to: `bot` (bots and mini-apps), `channel` (channels, groups,
/// posts) or `site` (external websites); the `type` filter of `GET /v1/campaigns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    Bot,
    Channel,
    Site,
}

impl LinkKind {
    pub fn parse(s: &str) -> Option<LinkKind> {
        match s {
            "bot" => Some(LinkKind::Bot),
            "channel" => Some(LinkKind::Channel),
            "site" => Some(LinkKind::Site),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Bot => "bot",
            LinkKind::Channel => "channel",
            LinkKind::Site => "site",
        }
    }
}

/// Where a change to a campaign came from, as its history and status-change records say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A client of the HTTP API (answered at once).
    Api,
    /// A task queued through the API (create, copy, bulk).
    Task,
    /// The operator's panel.
    Panel,
    /// An automation rule or Auto CPM.
    Automation,
    /// The platform, as read by a sync or a re-read.
    Sync,
    /// The operator at the command line (a month reconciled with the platform's report).
    Operator,
    /// adcab itself, on its own clock (a schedule moved with its zone's daylight saving).
    System,
    /// A person through the Telegram bot (a button or a chat command).
    Telegram,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Api => "api",
            Source::Task => "task",
            Source::Panel => "panel",
            Source::Automation => "automation",
            Source::Sync => "sync",
            Source::Operator => "operator",
            Source::System => "system",
            Source::Telegram => "telegram",
        }
    }

    pub fn parse(s: &str) -> Option<Source> {
        [
            Source::Api,
            Source::Task,
            Source::Panel,
            Source::Automation,
            Source::Sync,
            Source::Operator,
            Source::System,
            Source::Telegram,
        ]
        .into_iter()
        .find(|source| source.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_and_forgive_case() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        assert_eq!(Status::parse("in review"), Some(Status::InReview));
        assert_eq!(Status::parse("Running"), None);
    }
}
