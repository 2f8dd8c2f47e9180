//! Owns a refused create as the form shows it: the field it belongs beside (`param`
//! `campaigns[2].channels[0]` → `channels`; a schedule's day → `schedule`) and its sentence in
//! the person's language for the refusals this form can produce (a missing or empty field, a
//! bad amount, a budget under the cabinet's minimum, a bid under the platform's, a text over
//! the platform's length, a bad link or date); a sentence it cannot map shows as the
//! operation wrote it.

use crate::domain::ParseError;
use crate::i18n::Lang;

/// A refusal placed on the form.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// The form field it belongs beside.
    pub field: String,
    /// The sentence in the person's language.
    pub message: String,
}

/// What the form knows of the cabinet when it translates: the currency and minimum budget.
pub struct Known<'a> {
    pub currency: &'a str,
    pub min_budget: i64,
}

/// The form field a refusal's `param` names.
pub fn field_of(param: &str) -> String {
    let mut p = param;
    if let Some(rest) = p.strip_prefix("campaigns[") {
        p = rest.split_once("].").map_or(p, |(_, f)| f);
    }
    let end = p.find(['.', '[']).unwrap_or(p.len());
    p[..end].to_string()
}

/// A refused field `e` in `lang`.
pub fn translate(e: &ParseError, lang: Lang, known: &Known) -> Refusal {
    let field = field_of(&e.param);
    let m = e.message.as_str();
    let name = lang.t(&format!("new-field-{}", label_key(&field)));
    let missing = [
        " is required.",
        " must not be empty.",
        " must not be blank.",
    ];
    let message = if missing.iter().any(|end| m.ends_with(end)) {
        lang.ta("new-err-required", &[("field", name.into())])
    } else if m.ends_with(" must be greater than 0.") {
        lang.ta("new-err-positive", &[("field", name.into())])
    } else if m.starts_with("A campaign's budget is 0 or at least") {
        lang.ta(
            "new-err-budget-floor",
            &[
                ("min", known.min_budget.into()),
                ("currency", known.currency.into()),
            ],
        )
    } else if field == "promote_url" && m.starts_with('\'') {
        lang.t("new-err-link")
    } else if matches!(field.as_str(), "starts_at" | "ends_at") && m.contains("ISO 8601") {
        lang.t("new-err-date")
    } else if matches!(field.as_str(), "cpm" | "budget" | "daily_budget")
        && (m.contains("number") || m.contains("decimal"))
    {
        lang.ta("new-err-number", &[("field", name.into())])
    } else {
        m.to_string()
    };
    Refusal { field, message }
}

/// The form fields the catalogue has a label for (`new-field-…`).
pub const LABELLED: [&str; 28] = [
    "account_id",
    "title",
    "text",
    "promote_url",
    "target_type",
    "channels",
    "bots",
    "audience_channels",
    "exclude_channels",
    "search_keywords",
    "countries",
    "languages",
    "topics",
    "exclude_topics",
    "cities",
    "device",
    "political_channels",
    "placement",
    "starts_at",
    "ends_at",
    "button",
    "website_name",
    "cpm",
    "budget",
    "daily_budget",
    "views_per_user",
    "schedule",
    "media",
];

/// The catalogue's label of a form field (`new-field-…`); a field the catalogue has no label
/// for is named by the form's summary label.
fn label_key(field: &str) -> &str {
    if LABELLED.contains(&field) {
        field
    } else {
        "other"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nested_param_names_its_form_field() {
        assert_eq!(field_of("campaigns[2].channels[0]"), "channels");
        assert_eq!(field_of("schedule.days.mon"), "schedule");
        assert_eq!(field_of("cpm"), "cpm");
    }

    #[test]
    fn a_known_refusal_is_translated_and_an_unknown_one_kept() {
        let known = Known {
            currency: "EUR",
            min_budget: 5,
        };
        let e = ParseError::new("title", "title is required.");
        assert_eq!(
            translate(&e, Lang::Ru, &known).message,
            "Заполните поле «Название»."
        );
        let e = ParseError::new(
            "campaigns[1].budget",
            "A campaign's budget is 0 or at least the cabinet's min_budget of 5 EUR.",
        );
        let r = translate(&e, Lang::En, &known);
        assert_eq!(r.field, "budget");
        assert!(r.message.contains("5 EUR"), "{}", r.message);
        let e = ParseError::new("device", "something new");
        assert_eq!(translate(&e, Lang::Ru, &known).message, "something new");
    }
}
