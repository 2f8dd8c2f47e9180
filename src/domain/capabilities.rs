//! Owns the shape of what an ad platform can do, as one value the platform hands out and every
//! check of a client's input reads: its cabinet types with their facts (the platform's code of
//! the currency, the default budget floor, the lowest bids), the target types it serves and the
//! placements of each, its ad buttons, the media it takes (their kinds and sizes, and the
//! target types whose ads carry them), the limits and lists of targeting (keywords, languages,
//! topics) and the time zones of a schedule. No platform's numbers live here: each platform
//! fills one (Telegram Ads' in `platform::telegram`).

use super::campaign::TargetType;
use super::countries::COUNTRIES;
use super::money::{CabinetType, Money};

/// The most cities a `users` ad names.
pub const MAX_CITIES: usize = 20;

/// What a platform can do: plain `'static` data, so it is handed out by reference (or copied)
/// for nothing.
#[derive(Debug, Clone, Copy)]
pub struct Capabilities {
    /// The cabinet types its accounts come in, each with its facts.
    pub cabinets: &'static [CabinetFacts],
    /// The target types it serves, in the order a refusal lists them, each with its placements.
    pub targets: &'static [TargetFacts],
    /// The ad buttons, in the order `GET /v1/targeting` lists them.
    pub buttons: &'static [&'static str],
    /// The media files it takes, by the type their bytes show, each with its largest size.
    pub media: &'static [MediaKind],
    /// The target types whose ads may carry media, in the platform's order.
    pub media_targets: &'static [TargetType],
    /// Entries a list of channels, bots or audience channels takes at most.
    pub max_targets: usize,
    /// How many search keywords a campaign takes, and how long each may be.
    pub keywords: KeywordLimits,
    /// Languages as the platform keys them, with their names.
    pub languages: &'static [(&'static str, &'static str)],
    /// Topics as the platform numbers them, with their names.
    pub topics: &'static [(i64, &'static str)],
    /// The time zones a schedule may name, in minutes east of UTC.
    pub time_zones: &'static [i32],
    /// A bid edit of a funded ad sends it back to the platform's review, which stops its
    /// delivery until approved (Auto CPM then waits out the review and a day of delivery
    /// between edits; rules that set a bid warn of it).
    pub bid_edit_reviews: bool,
    /// It can widen a `channels` ad to channels like those listed (`add_similar_channels`).
    pub similar_channels: bool,
    /// The most characters an ad's text may have.
    pub text_chars: usize,
}

/// One cabinet type as a platform has it.
#[derive(Debug, Clone, Copy)]
pub struct CabinetFacts {
    pub kind: CabinetType,
    /// The platform's own code of the cabinet's currency (Telegram Ads: `XTR` for Stars).
    pub currency_code: &'static str,
    /// The smallest non-zero budget of a campaign, in whole units, of a cabinet added without
    /// one of its own.
    pub min_budget: i64,
    /// The lowest bid per target type.
    pub min_cpm: &'static [(TargetType, Money)],
}

/// A target type a platform serves and the placements its ads may take there.
#[derive(Debug, Clone, Copy)]
pub struct TargetFacts {
    pub target: TargetType,
    /// At least one; the first is where an ad goes when none is asked for.
    pub placements: &'static [&'static str],
}

/// A kind of media file a platform takes.
#[derive(Debug, Clone, Copy)]
pub struct MediaKind {
    /// The media type its bytes show (`image/png`).
    pub media_type: &'static str,
    pub class: MediaClass,
    pub max_bytes: usize,
}

/// What an ad shows a media file as: a picture or a video.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaClass {
    Photo,
    Video,
}

/// Search keywords: how many at most, and how many characters each.
#[derive(Debug, Clone, Copy)]
pub struct KeywordLimits {
    pub max_count: usize,
    pub max_chars: usize,
}

impl Capabilities {
    /// The facts of a cabinet type; `None` when the platform has no such cabinets.
    pub fn cabinet(&self, kind: CabinetType) -> Option<&CabinetFacts> {
        self.cabinets.iter().find(|c| c.kind == kind)
    }

    /// The cabinet type whose currency the platform codes as `code`.
    pub fn cabinet_of_currency(&self, code: &str) -> Option<CabinetType> {
        self.cabinets
            .iter()
            .find(|c| c.currency_code == code)
            .map(|c| c.kind)
    }

    /// The lowest bid in a cabinet of `kind` for `target`; `None` when the platform has no
    /// such cabinet or target.
    pub fn min_cpm(&self, kind: CabinetType, target: TargetType) -> Option<Money> {
        self.cabinet(kind)?
            .min_cpm
            .iter()
            .find(|(t, _)| *t == target)
            .map(|(_, min)| *min)
    }

    /// Whether the platform serves `target`.
    pub fn serves(&self, target: TargetType) -> bool {
        self.targets.iter().any(|t| t.target == target)
    }

    /// The target types served, as a refusal names them: `channels, bots, search or users`.
    /// The target types served, as words ([`super::Why::NotOneOf`]).
    pub fn target_words(&self) -> Vec<String> {
        self.targets
            .iter()
            .map(|t| t.target.as_str().to_string())
            .collect()
    }

    pub fn target_names(&self) -> String {
        let names: Vec<&str> = self.targets.iter().map(|t| t.target.as_str()).collect();
        super::either(&names)
    }

    /// The placement an ad of `target` takes when none is asked for: its first.
    pub fn placement(&self, target: TargetType) -> Option<&'static str> {
        self.placements(target).first().copied()
    }

    /// Every placement an ad of `target` may take; none when the platform does not serve it.
    pub fn placements(&self, target: TargetType) -> &'static [&'static str] {
        self.targets
            .iter()
            .find(|t| t.target == target)
            .map_or(&[], |t| t.placements)
    }

    /// The first target type (in the platform's order) whose ads take `placement`.
    pub fn target_of_placement(&self, placement: &str) -> Option<TargetType> {
        self.targets
            .iter()
            .find(|t| t.placements.contains(&placement))
            .map(|t| t.target)
    }

    /// Whether ads of `target` may carry media.
    pub fn takes_media_on(&self, target: TargetType) -> bool {
        self.media_targets.contains(&target)
    }

    /// The target types whose ads may carry media, as a refusal names them: `channels or
    /// users`.
    pub fn media_target_names(&self) -> String {
        let names: Vec<&str> = self.media_targets.iter().map(|t| t.as_str()).collect();
        super::either(&names)
    }

    /// Whether `button` is one of the platform's ad buttons.
    pub fn has_button(&self, button: &str) -> bool {
        self.buttons.contains(&button)
    }

    /// The media kind of a media type, when the platform takes it.
    pub fn media_kind(&self, media_type: &str) -> Option<&MediaKind> {
        self.media.iter().find(|m| m.media_type == media_type)
    }

    /// The largest file of any kind the platform takes: how much of an upload is read.
    pub fn largest_media(&self) -> usize {
        self.media.iter().map(|m| m.max_bytes).max().unwrap_or(0)
    }

    /// The largest file of `class` the platform takes; 0 when it takes none.
    pub fn largest_of(&self, class: MediaClass) -> usize {
        self.media
            .iter()
            .filter(|m| m.class == class)
            .map(|m| m.max_bytes)
            .max()
            .unwrap_or(0)
    }

    /// The media types taken, as a sentence names them: `JPG, PNG or MP4`.
    pub fn media_names(&self) -> String {
        let names: Vec<&str> = self
            .media
            .iter()
            .map(|m| super::media::label(m.media_type))
            .collect();
        super::either(&names)
    }

    /// The most entries a targeting list field takes: as many as there are codes (countries,
    /// languages, topics), else the platform's limit for keywords or targets.
    pub fn max_entries(&self, field: &str) -> usize {
        match field {
            "countries" => COUNTRIES.len(),
            "languages" => self.languages.len(),
            "topics" | "exclude_topics" => self.topics.len(),
            "cities" => MAX_CITIES,
            "search_keywords" => self.keywords.max_count,
            _ => self.max_targets,
        }
    }

    /// Whether a schedule may name the offset of `minutes` east of UTC.
    pub fn takes_zone(&self, minutes: i32) -> bool {
        self.time_zones.contains(&minutes)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small platform of its own, so the domain's rules are tested apart from any real
    /// platform's numbers.
    pub(crate) const SMALL: Capabilities = Capabilities {
        cabinets: &[CabinetFacts {
            kind: CabinetType::Euro,
            currency_code: "EUR",
            min_budget: 5,
            min_cpm: &[(TargetType::Channels, Money::from_micros(1_000_000))],
        }],
        targets: &[
            TargetFacts {
                target: TargetType::Channels,
                placements: &["post"],
            },
            TargetFacts {
                target: TargetType::Search,
                placements: &["results"],
            },
            TargetFacts {
                target: TargetType::Users,
                placements: &["post", "video"],
            },
        ],
        buttons: &["open"],
        media: &[
            MediaKind {
                media_type: "image/png",
                class: MediaClass::Photo,
                max_bytes: 1000,
            },
            MediaKind {
                media_type: "video/mp4",
                class: MediaClass::Video,
                max_bytes: 5000,
            },
        ],
        media_targets: &[TargetType::Channels, TargetType::Users],
        max_targets: 3,
        keywords: KeywordLimits {
            max_count: 2,
            max_chars: 8,
        },
        languages: &[("en", "English"), ("pt-br", "Portuguese (Brazil)")],
        topics: &[(1, "Art"), (4, "Books")],
        time_zones: &[-150, 0, 60],
        bid_edit_reviews: false,
        similar_channels: true,
        text_chars: 160,
    };

    #[test]
    fn facts_are_found_by_kind_code_target_and_placement() {
        assert_eq!(SMALL.cabinet(CabinetType::Euro).unwrap().min_budget, 5);
        assert!(SMALL.cabinet(CabinetType::Stars).is_none());
        assert_eq!(SMALL.cabinet_of_currency("EUR"), Some(CabinetType::Euro));
        assert_eq!(SMALL.cabinet_of_currency("XTR"), None);
        assert_eq!(
            SMALL.min_cpm(CabinetType::Euro, TargetType::Channels),
            Some(Money::from_micros(1_000_000))
        );
        assert_eq!(SMALL.min_cpm(CabinetType::Euro, TargetType::Bots), None);
        assert!(SMALL.serves(TargetType::Search) && !SMALL.serves(TargetType::Bots));
        assert_eq!(SMALL.placement(TargetType::Users), Some("post"));
        assert_eq!(SMALL.placements(TargetType::Users), ["post", "video"]);
        assert!(SMALL.placements(TargetType::Bots).is_empty());
        assert_eq!(SMALL.placement(TargetType::Bots), None);
        assert_eq!(
            SMALL.target_of_placement("post"),
            Some(TargetType::Channels),
            "the first in the platform's order"
        );
        assert_eq!(SMALL.target_of_placement("video"), Some(TargetType::Users));
        assert_eq!(SMALL.target_of_placement("banner"), None);
    }

    #[test]
    fn target_types_are_named_as_a_list() {
        assert_eq!(SMALL.target_names(), "channels, search or users");
        let one = Capabilities {
            targets: &SMALL.targets[..1],
            ..SMALL
        };
        assert_eq!(one.target_names(), "channels");
    }

    #[test]
    fn media_go_only_on_the_platforms_media_targets() {
        assert!(SMALL.takes_media_on(TargetType::Channels));
        assert!(SMALL.takes_media_on(TargetType::Users));
        assert!(!SMALL.takes_media_on(TargetType::Search));
        assert_eq!(SMALL.media_target_names(), "channels or users");
    }

    #[test]
    fn limits_come_from_the_platform_and_the_lists() {
        assert_eq!(SMALL.max_entries("channels"), 3);
        assert_eq!(SMALL.max_entries("search_keywords"), 2);
        assert_eq!(SMALL.max_entries("languages"), 2);
        assert_eq!(SMALL.max_entries("exclude_topics"), 2);
        assert_eq!(SMALL.max_entries("countries"), COUNTRIES.len());
        assert_eq!(SMALL.largest_media(), 5000);
        assert_eq!(SMALL.largest_of(MediaClass::Photo), 1000);
        assert_eq!(SMALL.largest_of(MediaClass::Video), 5000);
        assert_eq!(SMALL.media_names(), "PNG or MP4");
        assert_eq!(SMALL.media_kind("image/png").unwrap().max_bytes, 1000);
        assert!(SMALL.media_kind("image/gif").is_none());
        assert!(SMALL.has_button("open") && !SMALL.has_button("buy"));
        assert!(SMALL.takes_zone(-150) && !SMALL.takes_zone(120));
    }
}
