//! Owns how the platform's failures read in adcab: wire failures and API error codes as
//! `PlatformError`s, with the field a refusal is about and a sentence saying what to do.

use super::wire::WireError;
use crate::platform::PlatformError;

/// Why adcab's targeting (or schedule) cannot be sent as the platform's.
#[derive(Debug, PartialEq)]
pub struct Unsendable {
    pub param: &'static str,
    pub reason: String,
}

pub(super) fn rejected(reason: impl Into<String>, param: &'static str) -> PlatformError {
    PlatformError::Rejected {
        reason: reason.into(),
        param: Some(param),
        min_cpm: None,
    }
}

pub(super) fn unsendable(u: Unsendable) -> PlatformError {
    rejected(u.reason, u.param)
}

/// A wire failure as the platform's error (the token refusal is handled by the caller; an
/// unreachable platform is logged by the wire, with the method and its cause).
pub(super) fn refusal(e: WireError) -> PlatformError {
    match e {
        WireError::Auth(_) => PlatformError::AuthExpired,
        WireError::RateLimited(wait) => PlatformError::RateLimited(wait),
        WireError::Unavailable(cause) => PlatformError::Unreachable(cause),
        WireError::Api(code) => api_error(&code),
    }
}

/// An API error code as the platform's refusal: the field it is about, and a sentence.
pub(super) fn api_error(code: &str) -> PlatformError {
    match code {
        "NOT_ENOUGH_BUDGET" => return PlatformError::InsufficientBalance,
        "AD_ID_INVALID" => return PlatformError::NotFound,
        "AD_RECENTLY_ACTIVE" => {
            return PlatformError::Rejected {
                reason: "The platform takes budget back from an ad, and deletes one, only after it has not run for 10 minutes; pause the campaign (a delete pauses it for you) and send this again in 10 minutes.".into(),
                param: None,
                min_cpm: None,
            }
        }
        "AD_BUDGET_NOT_EMPTY" => {
            return PlatformError::Rejected {
                reason: "The platform deletes an ad only once its budget is withdrawn; withdraw_all, then delete.".into(),
                param: None,
                min_cpm: None,
            }
        }
        "CPM_TOO_LOW" => {
            return rejected(
                "The bid is below the platform's minimum for this ad (it does not say the minimum); raise cpm.",
                "cpm",
            )
        }
        _ => {}
    }
    let param = [
        ("AD_TITLE_", "title"),
        ("TEXT_", "text"),
        ("PROMOTE_URL_", "promote_url"),
        ("CPM_", "cpm"),
        ("SCHEDULE_", "schedule"),
        ("WEBSITE_NAME_", "website_name"),
        ("BUTTON_", "button"),
        ("IMPRESSION_FREQUENCY_", "views_per_user"),
        ("DAILY_BUDGET_", "daily_budget"),
        ("PHOTO_ID_", "media"),
        ("VIDEO_ID_", "media"),
        ("MEDIA_", "media"),
        ("INITIAL_BUDGET_", "budget"),
        ("AMOUNT_", "amount"),
        ("FILE_", "file"),
        ("CHANNEL_ID_", "channels"),
        ("BOT_ID_", "bots"),
        ("TARGET_", "target_type"),
    ]
    .iter()
    .find(|(prefix, _)| code.starts_with(prefix))
    .map(|(_, p)| *p);
    PlatformError::Rejected {
        reason: format!("The platform refused the change ({code})."),
        param,
        min_cpm: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Unreachable;
    use std::time::Duration;

    fn param_of(e: PlatformError) -> Option<&'static str> {
        match e {
            PlatformError::Rejected { param, .. } => param,
            other => panic!("not a rejection: {other:?}"),
        }
    }

    #[test]
    fn documented_codes_map_to_the_spec_errors() {
        assert_eq!(
            api_error("NOT_ENOUGH_BUDGET"),
            PlatformError::InsufficientBalance
        );
        assert_eq!(api_error("AD_ID_INVALID"), PlatformError::NotFound);
        assert_eq!(param_of(api_error("AD_TITLE_REQUIRED")), Some("title"));
        assert_eq!(param_of(api_error("TEXT_TOO_LONG")), Some("text"));
        assert_eq!(param_of(api_error("CPM_TOO_LOW")), Some("cpm"));
        assert_eq!(param_of(api_error("CHANNEL_ID_UNKNOWN")), Some("channels"));
        assert_eq!(param_of(api_error("BOT_ID_UNKNOWN")), Some("bots"));
        assert_eq!(param_of(api_error("MAIN_ACCOUNT_REQUIRED")), None);
        assert_eq!(param_of(api_error("IDEMPOTENT_PARAM_MISMATCH")), None);
        match api_error("AD_RECENTLY_ACTIVE") {
            PlatformError::Rejected { reason, .. } => assert!(reason.contains("10 minutes")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn wire_failures_become_platform_errors() {
        assert_eq!(
            refusal(WireError::RateLimited(Duration::from_secs(9))),
            PlatformError::RateLimited(Duration::from_secs(9))
        );
        let gateway = Unreachable::BadAnswer("HTTP 502 without an envelope".into());
        assert_eq!(
            refusal(WireError::Unavailable(gateway.clone())),
            PlatformError::Unreachable(gateway)
        );
        assert_eq!(
            refusal(WireError::Unavailable(Unreachable::Refused("h:1".into()))),
            PlatformError::Unreachable(Unreachable::Refused("h:1".into())),
            "the cause is kept"
        );
        assert_eq!(
            refusal(WireError::Auth("ACCESS_TOKEN_INVALID".into())),
            PlatformError::AuthExpired
        );
    }
}
