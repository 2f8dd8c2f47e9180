//! Owns an ad as the service and the platform speak of it: its creative and targeting
//! (`AdSpec`), what a new one is created with (`AdDraft`), a change (`AdEdit`), the platform's
//! view of one (`AdSnapshot`), its line in an account-wide report (`AdCounters`) and why its
//! review declined it (`DeclineReason`). Plain values: the `Platform` trait passes them, the
//! store keeps copies of them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::campaign::{Status, TargetType};
use super::dates::Dates;
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
    /// Where the ad shows (`channel_post`, `video_banner`, ...); `None` takes the platform's
    /// placement for `target_type`. Fixed once the ad is made.
    #[serde(default)]
    pub placement: Option<String>,
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
            placement: None,
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
    /// When it starts and ends; a platform is sent them only while the ad is switched on.
    #[serde(default)]
    pub dates: Dates,
    /// The IANA zone `schedule` was given in, which adcab keeps beside the ad (a platform is
    /// sent only the offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_zone: Option<String>,
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
            dates: Dates::default(),
            schedule_zone: None,
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
    /// The dates the platform holds (a platform clears them on a pause; adcab's record keeps
    /// its own).
    pub dates: Dates,
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
    /// Why the platform's review declined the ad; `None` unless `status` is `Declined`.
    pub decline_reason: Option<DeclineReason>,
    /// The channels and bots its targeting names, as the platform described them (titles and
    /// pictures where it gives them); empty when it describes none.
    pub peers: Vec<crate::domain::targeting::PeerEntry>,
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
    /// Why the platform's review declined the ad; `None` unless `status` is `Declined`.
    pub decline_reason: Option<DeclineReason>,
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

/// Why the platform's review declined an ad: a short reason ("Misleading claims") and, where
/// the platform gives one, its longer explanation, both plain text. Built only through
/// [`DeclineReason::new`], which trims both, keeps them to a bounded length and drops an
/// explanation that only repeats the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclineReason {
    text: String,
    description: Option<String>,
}

impl DeclineReason {
    /// Characters of the short reason kept; a longer one is cut with an ellipsis.
    pub const TEXT_CHARS: usize = 200;
    /// Characters of the explanation kept; a longer one is cut with an ellipsis.
    pub const DESCRIPTION_CHARS: usize = 2_000;
    /// What separates the reason from its explanation in [`DeclineReason::shown`].
    pub const SEPARATOR: &'static str = " — ";

    /// The reason, or `None` when the platform said nothing: an empty `text` takes the
    /// explanation's place, an explanation equal to the text is dropped.
    pub fn new(text: &str, description: Option<&str>) -> Option<DeclineReason> {
        let description = description
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| cut(d, Self::DESCRIPTION_CHARS));
        let text = text.trim();
        let (text, description) = match (text.is_empty(), description) {
            (true, None) => return None,
            (true, Some(d)) => (cut(&d, Self::TEXT_CHARS), None),
            (false, d) => (cut(text, Self::TEXT_CHARS), d),
        };
        let description = description.filter(|d| !d.eq_ignore_ascii_case(&text));
        Some(DeclineReason { text, description })
    }

    /// The short reason.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The longer explanation, when the platform gave one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The reason as one line, as the API's `decline_reason`, the `status_change` webhook and
    /// the declined alert show it: the text, then [`Self::SEPARATOR`] and the explanation
    /// when there is one ("Misleading claims — The ad promises ...").
    pub fn shown(&self) -> String {
        match &self.description {
            Some(d) => format!("{}{}{d}", self.text, Self::SEPARATOR),
            None => self.text.clone(),
        }
    }
}

/// `s` kept to `max` characters, the last of them an ellipsis when it was cut.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max.saturating_sub(1)) {
        Some((end, _)) if s.chars().count() > max => format!("{}…", s[..end].trim_end()),
        _ => s.to_string(),
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
    /// The dates the ad runs between from now on, both of them (an absent one removed).
    pub dates: Option<Dates>,
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

#[cfg(test)]
mod tests {
    use super::DeclineReason;

    #[test]
    fn a_decline_reason_shows_its_text_then_its_description() {
        let r = DeclineReason::new(" Misleading claims ", Some("Promises income.")).unwrap();
        assert_eq!(r.text(), "Misleading claims");
        assert_eq!(r.shown(), "Misleading claims — Promises income.");
        let bare = DeclineReason::new("Prohibited product", None).unwrap();
        assert_eq!(bare.shown(), "Prohibited product");
    }

    #[test]
    fn an_empty_or_repeated_part_of_a_decline_reason_is_dropped() {
        assert_eq!(DeclineReason::new(" ", None), None);
        assert_eq!(DeclineReason::new("", Some("  ")), None);
        let only_description = DeclineReason::new("", Some("Broken link")).unwrap();
        assert_eq!(
            (only_description.text(), only_description.description()),
            ("Broken link", None)
        );
        let repeated = DeclineReason::new("Too loud", Some("too loud")).unwrap();
        assert_eq!(repeated.description(), None);
    }

    #[test]
    fn a_long_decline_reason_is_cut_to_its_bound() {
        let long = "é".repeat(DeclineReason::TEXT_CHARS + 5);
        let r = DeclineReason::new(&long, Some(&"x".repeat(5_000))).unwrap();
        assert_eq!(r.text().chars().count(), DeclineReason::TEXT_CHARS);
        assert!(r.text().ends_with('…'));
        let d = r.description().unwrap();
        assert_eq!(d.chars().count(), DeclineReason::DESCRIPTION_CHARS);
        let exact = "a".repeat(DeclineReason::TEXT_CHARS);
        assert_eq!(DeclineReason::new(&exact, None).unwrap().text(), exact);
    }
}
