//! Owns the simulator's reasons for declining an ad: a small set modelled on the real
//! platform's moderation (a short reason and its longer explanation), which one auto review
//! gives for a decline word, which one `adcab sim review --decline` gives without a
//! `--reason` (chosen by the seed, the account and the ad, so a trial replays the same), and
//! how a `--reason` of the operator's own reads.

use crate::domain::ad::DeclineReason;

/// The reasons the simulator declines with: short text, longer explanation.
pub const REASONS: [(&str, &str); 5] = [
    (
        "Misleading claims",
        "The ad promises results that cannot be guaranteed, such as income, health effects or \
         prices that are not offered. Remove the claim or state it accurately, then edit the ad \
         to send it back to review.",
    ),
    (
        PROHIBITED,
        "The ad promotes a product or service that ads on the platform may not offer, such as \
         gambling, weapons, drugs or unlicensed financial services.",
    ),
    (
        "Landing page does not work",
        "The ad's link does not open, or leads to a page other than the one the ad describes. \
         Check the link, then edit the ad to send it back to review.",
    ),
    (
        "Text formatting",
        "The ad text uses capital letters, emoji or punctuation to draw attention. Write it in \
         ordinary sentence case.",
    ),
    (
        "Wrong language for the target",
        "The ad text is not in the language of the channels or people it targets. Write it in \
         their language or change the targeting.",
    ),
];

/// The reason a decline word earns.
const PROHIBITED: &str = "Prohibited product or service";

/// The reason auto review gives an ad whose text holds `word` (one of `sim.decline_words`).
pub fn for_decline_word(word: &str) -> Option<DeclineReason> {
    let explanation = REASONS
        .iter()
        .find(|(text, _)| *text == PROHIBITED)
        .map_or("", |(_, d)| d);
    DeclineReason::new(
        PROHIBITED,
        Some(&format!("{explanation} The text mentions “{word}”.")),
    )
}

/// The reason a decline by the operator gives: their own `reason` (with the set's explanation
/// when it names one of the set), or, without one, one of the set chosen by `seed`, `account`
/// and `ad`.
pub fn for_operator(
    reason: Option<&str>,
    seed: u64,
    account: i64,
    ad: i64,
) -> Option<DeclineReason> {
    match reason.map(str::trim).filter(|r| !r.is_empty()) {
        Some(own) => {
            let known = REASONS
                .iter()
                .find(|(text, _)| text.eq_ignore_ascii_case(own));
            DeclineReason::new(own, known.map(|(_, d)| *d))
        }
        None => {
            let mixed = seed
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add(account as u64)
                .wrapping_mul(0xBF58_476D_1CE4_E5B9)
                .wrapping_add(ad as u64);
            let (text, description) = REASONS[(mixed % REASONS.len() as u64) as usize];
            DeclineReason::new(text, Some(description))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decline_word_earns_the_prohibited_reason_naming_the_word() {
        let r = for_decline_word("casino").unwrap();
        assert_eq!(r.text(), PROHIBITED);
        assert!(r.description().unwrap().ends_with("mentions “casino”."));
    }

    #[test]
    fn the_operators_reason_is_kept_and_a_known_one_gets_its_explanation() {
        let own = for_operator(Some(" Too loud "), 1, 5, 7).unwrap();
        assert_eq!((own.text(), own.description()), ("Too loud", None));
        let known = for_operator(Some("text formatting"), 1, 5, 7).unwrap();
        assert_eq!(known.text(), "text formatting");
        assert_eq!(known.description(), Some(REASONS[3].1));
    }

    #[test]
    fn without_a_reason_the_set_is_drawn_from_the_same_way_every_time() {
        let drawn: Vec<String> = (1..=40)
            .map(|ad| for_operator(None, 42, 5_000_000_001, ad).unwrap().shown())
            .collect();
        let again: Vec<String> = (1..=40)
            .map(|ad| {
                for_operator(Some(""), 42, 5_000_000_001, ad)
                    .unwrap()
                    .shown()
            })
            .collect();
        assert_eq!(
            drawn, again,
            "the same seed, account and ad: the same reason"
        );
        for (text, description) in REASONS {
            assert!(
                drawn.contains(&format!("{text} — {description}")),
                "{text} is drawn for some ad"
            );
        }
    }
}
