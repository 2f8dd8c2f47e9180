//! Owns what Telegram Ads can do, as the connector reports it: the cabinet types (EUR, TON
//! and Stars accounts, with the platform's currency codes, budget floors and lowest bids), the
//! target types and their placements, the ad buttons, the media the API takes (JPG and PNG
//! photos up to 5 MB, MP4 videos up to 20 MB, on channels and users ads only), the limits of
//! targeting (10 search keywords), the language keys and topic ids, and the 40 time zones of a
//! schedule; and the spec's generic limits, wider where the platform's are tighter, which the
//! simulator keeps. The numbers of the spec and of the platform, kept in one place.

use crate::domain::campaign::TargetType;
use crate::domain::capabilities::{
    CabinetFacts, Capabilities, KeywordLimits, MediaClass, MediaKind, TargetFacts,
};
use crate::domain::money::{CabinetType, Money};

/// A megabyte, as the spec and the platform count file sizes.
const MB: usize = 1024 * 1024;

/// Telegram Ads as the connector finds it.
pub const CAPABILITIES: Capabilities = Capabilities {
    cabinets: &[
        CabinetFacts {
            kind: CabinetType::Euro,
            currency_code: "EUR",
            min_budget: 5,
            min_cpm: &lowest_bids(1_000_000, 700_000),
        },
        CabinetFacts {
            kind: CabinetType::Ton,
            currency_code: "TON",
            min_budget: 5,
            min_cpm: &lowest_bids(100_000, 100_000),
        },
        CabinetFacts {
            kind: CabinetType::Stars,
            currency_code: "XTR",
            min_budget: 500,
            min_cpm: &lowest_bids(1_000_000, 1_000_000),
        },
    ],
    targets: &[
        TargetFacts {
            target: TargetType::Channels,
            placements: &["channel_post"],
        },
        TargetFacts {
            target: TargetType::Bots,
            placements: &["bot_banner"],
        },
        TargetFacts {
            target: TargetType::Search,
            placements: &["search_result"],
        },
        TargetFacts {
            target: TargetType::Users,
            placements: &["channel_post", "video_banner"],
        },
    ],
    buttons: BUTTONS,
    media: &[
        photo("image/jpeg", 5 * MB),
        photo("image/png", 5 * MB),
        video("video/mp4", 20 * MB),
    ],
    media_targets: &[TargetType::Channels, TargetType::Users],
    max_targets: 100,
    keywords: KeywordLimits {
        max_count: 10,
        max_chars: 64,
    },
    languages: LANGUAGES,
    topics: TOPICS,
    time_zones: &TIME_ZONES,
    // promote-api.md, "Review rule": a funded ad that gets edited returns to moderation, a
    // CPM-only change among the examples.
    bid_edit_reviews: true,
    similar_channels: false,
    text_chars: 160,
};

/// The lowest bid of each target type, in micro-units: one for channels, bots and search, and
/// one for users (audiences).
const fn lowest_bids(posts: i64, users: i64) -> [(TargetType, Money); 4] {
    [
        (TargetType::Channels, Money::from_micros(posts)),
        (TargetType::Bots, Money::from_micros(posts)),
        (TargetType::Search, Money::from_micros(posts)),
        (TargetType::Users, Money::from_micros(users)),
    ]
}

/// What the spec promises an upload may be: JPG, PNG, GIF, WEBP or MP4, up to 10 MB each.
pub const SPEC_MEDIA: &[MediaKind] = &[
    photo("image/jpeg", 10 * MB),
    photo("image/png", 10 * MB),
    photo("image/gif", 10 * MB),
    photo("image/webp", 10 * MB),
    video("video/mp4", 10 * MB),
];

/// The spec puts no target type out of media's reach.
pub const SPEC_MEDIA_TARGETS: &[TargetType] = &[
    TargetType::Channels,
    TargetType::Bots,
    TargetType::Search,
    TargetType::Users,
];

/// The spec's search keywords: 1-100 a campaign, at most 64 characters each.
pub const SPEC_KEYWORDS: KeywordLimits = KeywordLimits {
    max_count: 100,
    max_chars: 64,
};

/// A picture type taken up to `max_bytes`.
const fn photo(media_type: &'static str, max_bytes: usize) -> MediaKind {
    MediaKind {
        media_type,
        class: MediaClass::Photo,
        max_bytes,
    }
}

/// A video type taken up to `max_bytes`.
const fn video(media_type: &'static str, max_bytes: usize) -> MediaKind {
    MediaKind {
        media_type,
        class: MediaClass::Video,
        max_bytes,
    }
}

/// The platform's time zones, in minutes east of UTC: whole hours from -12:00 to +14:00 and
/// thirteen half and quarter hours.
const TIME_ZONES: [i32; 40] = [
    -720, -660, -600, -570, -540, -480, -420, -360, -300, -240, -210, -180, -150, -120, -60, 0, 60,
    120, 180, 210, 240, 270, 300, 330, 345, 360, 390, 420, 480, 525, 540, 570, 600, 630, 660, 720,
    765, 780, 825, 840,
];

/// The platform's language keys: regional variants are their own keys, never plain `pt`.
const LANGUAGES: &[(&str, &str)] = &[
    ("ar", "Arabic"),
    ("az", "Azerbaijani"),
    ("be", "Belarusian"),
    ("bg", "Bulgarian"),
    ("ca", "Catalan"),
    ("cs", "Czech"),
    ("da", "Danish"),
    ("de", "German"),
    ("el", "Greek"),
    ("en", "English"),
    ("es", "Spanish"),
    ("et", "Estonian"),
    ("fa", "Persian"),
    ("fi", "Finnish"),
    ("fr", "French"),
    ("he", "Hebrew"),
    ("hi", "Hindi"),
    ("hr", "Croatian"),
    ("hu", "Hungarian"),
    ("hy", "Armenian"),
    ("id", "Indonesian"),
    ("it", "Italian"),
    ("ja", "Japanese"),
    ("ka", "Georgian"),
    ("kk", "Kazakh"),
    ("ko", "Korean"),
    ("lt", "Lithuanian"),
    ("lv", "Latvian"),
    ("ms", "Malay"),
    ("nl", "Dutch"),
    ("no", "Norwegian"),
    ("pl", "Polish"),
    ("pt-br", "Portuguese (Brazil)"),
    ("pt-pt", "Portuguese (Portugal)"),
    ("ro", "Romanian"),
    ("ru", "Russian"),
    ("sk", "Slovak"),
    ("sr", "Serbian"),
    ("sv", "Swedish"),
    ("th", "Thai"),
    ("tr", "Turkish"),
    ("uk", "Ukrainian"),
    ("uz", "Uzbek"),
    ("vi", "Vietnamese"),
    ("zh-hans", "Chinese (Simplified)"),
    ("zh-hant", "Chinese (Traditional)"),
];

/// Topic ids as the platform numbers them: stable, with gaps where topics were retired.
const TOPICS: &[(i64, &str)] = &[
    (1, "Art & Design"),
    (2, "Blogs"),
    (4, "Books"),
    (5, "Business & Startups"),
    (7, "Cryptocurrencies"),
    (8, "Economics"),
    (10, "Education"),
    (11, "Entertainment"),
    (13, "Fashion & Beauty"),
    (14, "Food & Cooking"),
    (16, "Games & Apps"),
    (17, "Health & Fitness"),
    (19, "Humor & Memes"),
    (20, "Languages"),
    (22, "Marketing & PR"),
    (23, "Movies"),
    (25, "Music"),
    (26, "News & Media"),
    (28, "Parenting"),
    (29, "Pets"),
    (31, "Politics"),
    (32, "Psychology"),
    (34, "Science"),
    (35, "Sports"),
    (37, "Technology"),
    (38, "Travel"),
    (40, "Cars & Transport"),
    (41, "Real Estate"),
    (43, "Jobs & Careers"),
    (44, "Shopping & Deals"),
];

/// The ad buttons, in the spec's order.
const BUTTONS: &[&str] = &[
    "subscribe",
    "view",
    "read",
    "learn_more",
    "download",
    "open",
    "sign_up",
    "buy",
    "order",
    "play",
    "try",
    "leave_request",
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn lists_have_unique_keys() {
        let langs: HashSet<_> = LANGUAGES.iter().map(|(c, _)| c).collect();
        assert_eq!(langs.len(), LANGUAGES.len());
        let topics: HashSet<_> = TOPICS.iter().map(|(i, _)| i).collect();
        assert_eq!(topics.len(), TOPICS.len());
        let zones: HashSet<_> = TIME_ZONES.iter().collect();
        assert_eq!(zones.len(), TIME_ZONES.len());
    }

    #[test]
    fn topic_ids_have_gaps() {
        assert!(TOPICS.windows(2).any(|w| w[1].0 - w[0].0 > 1));
    }

    #[test]
    fn the_time_zones_are_the_specs_offsets() {
        let half = [
            -570, -210, -150, 210, 270, 330, 345, 390, 525, 570, 630, 765, 825,
        ];
        let spec: HashSet<i32> = (-12..=14).map(|h| h * 60).chain(half).collect();
        let ours: HashSet<i32> = TIME_ZONES.iter().copied().collect();
        assert_eq!(ours, spec);
    }

    #[test]
    fn every_cabinet_type_and_target_has_its_lowest_bid() {
        for kind in [CabinetType::Euro, CabinetType::Ton, CabinetType::Stars] {
            for t in CAPABILITIES.targets {
                assert!(
                    CAPABILITIES.min_cpm(kind, t.target).is_some(),
                    "{} {}",
                    kind.as_str(),
                    t.target.as_str()
                );
            }
        }
        let m = |kind, t| CAPABILITIES.min_cpm(kind, t).unwrap().micros();
        assert_eq!(m(CabinetType::Euro, TargetType::Channels), 1_000_000);
        assert_eq!(m(CabinetType::Euro, TargetType::Users), 700_000);
        assert_eq!(m(CabinetType::Ton, TargetType::Bots), 100_000);
        assert_eq!(m(CabinetType::Stars, TargetType::Search), 1_000_000);
    }

    #[test]
    fn the_platforms_limits_are_promote_apis() {
        let caps = &CAPABILITIES;
        let kinds: Vec<_> = caps
            .media
            .iter()
            .map(|m| (m.media_type, m.class, m.max_bytes))
            .collect();
        assert_eq!(
            kinds,
            [
                ("image/jpeg", MediaClass::Photo, 5 * MB),
                ("image/png", MediaClass::Photo, 5 * MB),
                ("video/mp4", MediaClass::Video, 20 * MB),
            ],
            "uploadAdPhoto: JPEG/PNG up to 5 MB; uploadAdVideo: MP4 up to 20 MB"
        );
        assert!(caps.media_kind("image/gif").is_none() && caps.media_kind("image/webp").is_none());
        assert_eq!(caps.largest_media(), 20 * MB);
        assert_eq!(caps.media_names(), "JPG, PNG or MP4");
        assert_eq!(caps.media_target_names(), "channels or users");
        assert_eq!(caps.max_entries("search_keywords"), 10);
        assert_eq!(caps.keywords.max_chars, 64);
        assert_eq!(caps.max_entries("channels"), 100);
        assert_eq!(
            caps.placements(TargetType::Users),
            ["channel_post", "video_banner"]
        );
        assert_eq!(caps.placement(TargetType::Users), Some("channel_post"));
        assert_eq!(
            caps.target_of_placement("video_banner"),
            Some(TargetType::Users)
        );
    }

    /// The simulator keeps the spec's limits: every kind and media target the platform takes,
    /// and at least its keywords. (Sizes differ both ways: the platform's photos are smaller,
    /// its videos larger, than the spec's 10 MB.)
    #[test]
    fn the_spec_takes_in_the_platforms_kinds_targets_and_keywords() {
        const {
            assert!(SPEC_KEYWORDS.max_count >= CAPABILITIES.keywords.max_count);
            assert!(SPEC_KEYWORDS.max_chars >= CAPABILITIES.keywords.max_chars);
        }
        for t in CAPABILITIES.media_targets {
            assert!(SPEC_MEDIA_TARGETS.contains(t), "{}", t.as_str());
        }
        for kind in CAPABILITIES.media {
            assert!(
                SPEC_MEDIA.iter().any(|m| m.media_type == kind.media_type),
                "{}",
                kind.media_type
            );
        }
        assert!(SPEC_MEDIA.iter().all(|m| m.max_bytes == 10 * MB));
    }
}
