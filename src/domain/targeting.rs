//! Owns the targeting lists of `GET /v1/targeting`: languages (the platform's keys), topics
//! (non-consecutive ids) and the ad buttons. Countries live in `countries`.

/// The platform's language keys: regional variants are their own keys, never plain `pt`.
pub const LANGUAGES: &[(&str, &str)] = &[
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
pub const TOPICS: &[(i64, &str)] = &[
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
pub const BUTTONS: &[&str] = &[
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
    use crate::domain::countries::COUNTRIES;
    use std::collections::HashSet;

    #[test]
    fn lists_have_unique_keys() {
        let codes: HashSet<_> = COUNTRIES.iter().map(|(c, _)| c).collect();
        assert_eq!(codes.len(), COUNTRIES.len());
        let langs: HashSet<_> = LANGUAGES.iter().map(|(c, _)| c).collect();
        assert_eq!(langs.len(), LANGUAGES.len());
        let topics: HashSet<_> = TOPICS.iter().map(|(i, _)| i).collect();
        assert_eq!(topics.len(), TOPICS.len());
    }

    #[test]
    fn topic_ids_have_gaps() {
        assert!(TOPICS.windows(2).any(|w| w[1].0 - w[0].0 > 1));
    }
}
