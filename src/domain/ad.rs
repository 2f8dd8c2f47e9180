//! Owns an ad as the service and the platform speak of it: its creative and targeting
//! (`AdSpec`), what a new one is created with (`AdDraft`), a change (`AdEdit`), the platform's
//! view of one (`AdSnapshot`) and its line in an account-wide report (`AdCounters`). Plain
//! values: the `Platform` trait passes them, the store keeps copies of them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::campaign::{Status, TargetType};
use super::money::Money;
use super::stats::Totals;

/// An ad's creative and targeting: what the client asked the platform to show, and to whom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdSpec {
    pub title: String,
    pub text: String,
    pub promote_url: String,
    pub target_type: TargetType,
    /// The targeting fields of `target_type`, as a JSON object (`channels`, `countries`, ...).
    pub targeting: Value,
    pub views_per_user: i64,
    pub media_token: Option<String>,
    pub media_type: Option<String>,
    pub picture: bool,
    pub button: Option<String>,
    pub website_name: Option<String>,
}

impl AdSpec {
    /// A plain ad: one view per person, no media, button or brand name.
    pub fn plain(
        title: &str,
        text: &str,
        promote_url: &str,
        target_type: TargetType,
        targeting: Value,
    ) -> AdSpec {
        AdSpec {
            title: title.into(),
            text: text.into(),
            promote_url: promote_url.into(),
            target_type,
            targeting,
            views_per_user: 1,
            media_token: None,
            media_type: None,
            picture: false,
            button: None,
            website_name: None,
        }
    }
}

/// What a new ad is created with.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AdDraft {
    /// A reference unique to this create (task and position): the platform creates the ad
    /// once, and a repeat with the same reference returns the same ad.
    pub client_ref: Option<String>,
    pub spec: AdSpec,
    pub cpm: Money,
    pub budget: Money,
    pub daily_budget: Option<Money>,
    pub active: bool,
    pub schedule: Option<Value>,
}

impl AdDraft {
    /// An ad switched on around the clock, with no daily cap and no client reference.
    pub fn running(spec: AdSpec, cpm: Money, budget: Money) -> AdDraft {
        AdDraft {
            client_ref: None,
            spec,
            cpm,
            budget,
            daily_budget: None,
            active: true,
            schedule: None,
        }
    }
}

/// The platform's view of one ad.
#[derive(Debug, Clone)]
pub struct AdSnapshot {
    pub account_id: i64,
    pub ad_id: i64,
    pub spec: AdSpec,
    pub status: Status,
    pub active: bool,
    pub cpm: Money,
    pub budget: Money,
    pub spent: Money,
    pub daily_budget: Option<Money>,
    pub schedule: Option<Value>,
    pub views: i64,
    pub opens: i64,
    pub clicks: i64,
    pub actions: i64,
    /// Unix seconds.
    pub created_at: i64,
    pub status_changed_at: String,
    /// The invite link the platform made for a channel campaign: people who join through it
    /// are this campaign's.
    pub invite_link: Option<String>,
}

/// One ad's line in the platform's account-wide report: status and lifetime counters.
#[derive(Debug, Clone, PartialEq)]
pub struct AdCounters {
    pub ad_id: i64,
    pub status: Status,
    pub active: bool,
    pub budget: Money,
    pub spent: Money,
    pub views: i64,
    pub opens: i64,
    pub clicks: i64,
    pub actions: i64,
    pub status_changed_at: String,
}

impl AdCounters {
    pub fn totals(&self) -> Totals {
        Totals {
            views: self.views,
            opens: self.opens,
            clicks: self.clicks,
            actions: self.actions,
            spent: self.spent,
        }
    }
}

/// A change to an existing ad: `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdEdit {
    pub title: Option<String>,
    pub text: Option<String>,
    pub promote_url: Option<String>,
    pub cpm: Option<Money>,
    pub daily_budget: Option<Option<Money>>,
    pub views_per_user: Option<i64>,
    pub schedule: Option<Option<Value>>,
    /// Token and media type.
    pub media: Option<(String, String)>,
    pub picture: Option<bool>,
    pub button: Option<Option<String>>,
    pub website_name: Option<Option<String>>,
}

impl AdEdit {
    /// Saving any of these sends the ad back to review; `cpm` and `schedule` never do.
    pub fn triggers_review(&self) -> bool {
        self.title.is_some()
            || self.text.is_some()
            || self.promote_url.is_some()
            || self.media.is_some()
            || self.picture.is_some()
            || self.button.is_some()
            || self.website_name.is_some()
            || self.views_per_user.is_some()
            || self.daily_budget.is_some()
    }

    pub fn is_empty(&self) -> bool {
        *self == AdEdit::default()
    }
}
