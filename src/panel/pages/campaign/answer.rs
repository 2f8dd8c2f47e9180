//! Owns what a campaign's forms share when they answer: where a form returns (`back`, a path
//! of this site only), a refusal said beside its field in the person's language, and whether
//! the form was a row of the campaigns list (its `back` is the list), whose refusal shows in
//! that row of the list instead of on the campaign's page.

use super::super::super::{Form, Visit};
use super::super::{sentence, why};
use super::own_path;
use crate::domain::money::CabinetType;
use crate::domain::{ParseError, Why};
use crate::http::Query;
use crate::ops::campaigns::{OpsError, Refusal};
use crate::platform::PlatformError;

/// Where a form returns: its `back` field when that is a path of this site, else the
/// campaign's page.
pub(super) fn back(form: &Form, account: i64, ad: i64) -> String {
    match form.get("back") {
        Some(b) if same_origin(b) => b.to_string(),
        _ => own_path(account, ad),
    }
}

/// The list's query when the form came from a row of `/campaigns` (its `back` is that list),
/// so a refusal answers there, in the row.
pub(super) fn list_query(form: &Form) -> Option<Query> {
    let back = form.get("back").filter(|b| same_origin(b))?;
    let (path, query) = back.split_once('?').unwrap_or((back, ""));
    (path == "/campaigns")
        .then(|| Query::parse(query).ok())
        .flatten()
}

/// A path on this site: `/...`, not `//host` nor `/\host`, no control characters.
fn same_origin(path: &str) -> bool {
    path.starts_with('/')
        && !path.starts_with("//")
        && !path.starts_with("/\\")
        && path.len() <= 2048
        && !path.chars().any(|c| c.is_control())
}

/// The field a refusal's `param` names, in the person's language.
fn field_name(visit: &Visit, param: &str) -> String {
    let key = match param.split(['.', '[']).next().unwrap_or(param) {
        "title" => "campaign-title",
        "text" => "campaign-text",
        "promote_url" => "campaign-link",
        "website_name" => "campaign-website-name",
        "cpm" => "campaign-bid",
        "budget" => "campaign-budget",
        "daily_budget" => "campaign-daily-budget",
        "views_per_user" => "campaign-views-per-user",
        "schedule" => "campaign-schedule",
        "amount" => "campaign-amount",
        "action" | "direction" => "campaign-direction",
        "group_id" | "new_group_name" => "campaign-group",
        "auto_cpm" => "campaign-auto-cpm",
        _ => return param.to_string(),
    };
    visit.t(key)
}

/// A field refused while read: its `param` and the sentence, in the person's language (the
/// field's name in it, with the check's own detail).
pub(super) fn invalid(visit: &Visit, e: &ParseError) -> (String, String) {
    let param = if e.param == "action" {
        "direction".to_string()
    } else {
        e.param.clone()
    };
    let field = field_name(visit, &e.param);
    let said = match e.why {
        Why::Other => visit.ta(
            "campaign-refused-invalid",
            &[
                ("field", field.as_str().into()),
                ("detail", sentence(&e.message).into()),
            ],
        ),
        _ => why::reason(visit.lang, e, &field),
    };
    (param, said)
}

/// An operation's refusal as the field it names and its sentence in the person's language;
/// `None` for a failure that is a page of its own (`ops_error`).
pub(super) fn refusal(visit: &Visit, kind: CabinetType, e: &OpsError) -> Option<(String, String)> {
    match e {
        OpsError::Invalid(p) => Some(invalid(visit, p)),
        OpsError::Refused(r) => Some(match r {
            Refusal::InsufficientAdBalance => {
                ("amount".into(), visit.t("campaign-refused-ad-balance"))
            }
            Refusal::AutoCpmLocked => ("cpm".into(), visit.t("campaign-refused-auto-cpm")),
            Refusal::ViewerZoneNeedsUsers => {
                ("schedule".into(), visit.t("campaign-refused-viewer-zone"))
            }
            Refusal::NotDeclined => ("recreate".into(), visit.t("campaign-refused-not-declined")),
        }),
        OpsError::BudgetUnchanged => Some(("amount".into(), visit.t("campaign-refused-unchanged"))),
        OpsError::Funds(_) => None,
        OpsError::QueueFull { limit } => Some((
            "queue".into(),
            visit.ta(
                "campaign-refused-queue",
                &[("limit", i64::from(*limit).into())],
            ),
        )),
        OpsError::Platform(p) => match p {
            PlatformError::Rejected {
                min_cpm: Some(min), ..
            } => Some((
                "cpm".into(),
                visit.ta(
                    "campaign-refused-min-cpm",
                    &[("min", visit.fmt().money(kind, *min).into())],
                ),
            )),
            PlatformError::Rejected { reason, param, .. } => {
                let param = param.unwrap_or("body");
                Some(invalid(visit, &ParseError::new(param, reason.clone())))
            }
            PlatformError::InsufficientBalance => {
                Some(("amount".into(), visit.t("campaign-refused-balance")))
            }
            PlatformError::Unreachable(_)
            | PlatformError::Refused(_)
            | PlatformError::NotFound
            | PlatformError::Unsupported(_)
            | PlatformError::AuthExpired
            | PlatformError::RateLimited(_)
            | PlatformError::StorageFull
            | PlatformError::Internal(_) => None,
        },
        OpsError::NotFound
        | OpsError::RuleNotFound
        | OpsError::NotYours(_)
        | OpsError::Media(_)
        | OpsError::UnknownAdIds(_)
        | OpsError::Store(_)
        | OpsError::Internal(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{list_query, same_origin};
    use crate::http::Query as Form;

    #[test]
    fn only_a_back_to_the_list_is_a_row_of_it() {
        let form = |back: &str| {
            Form::parse(&format!("back={}", crate::primitives::form_encode(back))).unwrap()
        };
        let q = list_query(&form("/campaigns?status=Active&sortBy=title")).expect("the list");
        assert_eq!(q.get("sortBy"), Some("title"));
        assert!(list_query(&form("/campaigns")).is_some());
        for not in [
            "/campaigns/7/1",
            "/",
            "//evil.example/campaigns",
            "/campaigns/new",
        ] {
            assert!(list_query(&form(not)).is_none(), "{not}");
        }
    }

    #[test]
    fn only_a_path_of_this_site_is_a_place_to_return_to() {
        for good in ["/campaigns", "/campaigns?status=Active&sortBy=title", "/"] {
            assert!(same_origin(good), "{good}");
        }
        for bad in [
            "https://evil.example/",
            "//evil.example/",
            "/\\evil.example",
            "campaigns",
            "/x\r\nSet-Cookie: a=b",
            "",
        ] {
            assert!(!same_origin(bad), "{bad:?}");
        }
    }
}
