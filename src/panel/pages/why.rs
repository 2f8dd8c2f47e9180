//! Owns a lower layer's refusal of a field as the person reads it: the field's label (the
//! form's, where the catalogue has one) and the reason, worded from the catalogue in the
//! person's language from its typed [`Why`]; a reason not typed yet shows as the API's
//! English sentence. The API's own answer (`message`) is never changed here.

use crate::domain::{ParseError, Why};
use crate::i18n::Lang;

use super::sentence;

/// The form field a refusal's `param` names (`campaigns[2].channels[0]` → `channels`;
/// `schedule.days.mon` → `schedule`; `auto_cpm.max_cpm` → `auto_cpm`).
pub fn field_of(param: &str) -> String {
    let mut p = param;
    if let Some(rest) = p.strip_prefix("campaigns[") {
        p = rest.split_once("].").map_or(p, |(_, f)| f);
    }
    let end = p.find(['.', '[']).unwrap_or(p.len());
    p[..end].to_string()
}

/// The create form's fields the catalogue has a label for (`new-field-…`).
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

/// Other fields the catalogue has a label for (`new-field-…`), outside the create form.
const ALSO_LABELLED: [&str; 3] = ["amount", "email", "password"];

/// Fields outside the forms' own labels the catalogue names (`error-field-…`), by the last part
/// of their `param` (`conditions[0].value` → `value`).
const NAMED: [&str; 13] = [
    "value",
    "name",
    "percent",
    "min_cpm",
    "max_cpm",
    "max_per_day",
    "cooldown_hours",
    "window_hours",
    "ad_ids",
    "target",
    "goal",
    "metric",
    "op",
];

/// The label of the field `param` names in `lang`; a field the catalogue has no label for is
/// named as the API names it (its last part: `conditions[0].value` → `value`).
pub fn label(lang: Lang, param: &str) -> String {
    let field = field_of(param);
    if LABELLED.contains(&field.as_str()) || ALSO_LABELLED.contains(&field.as_str()) {
        lang.t(&format!("new-field-{field}"))
    } else {
        let last = param.rsplit('.').next().unwrap_or(param);
        let last = last.split('[').next().unwrap_or(last);
        if NAMED.contains(&last) {
            lang.t(&format!("error-field-{last}"))
        } else {
            last.to_string()
        }
    }
}

/// The reason of `e` in `lang`, about the field called `field` (a label).
pub fn reason(lang: Lang, e: &ParseError, field: &str) -> String {
    let named = |key: &str| lang.ta(key, &[("field", field.into())]);
    let with = |key: &str, args: &[(&str, crate::i18n::Arg)]| {
        let mut all = vec![("field", field.into())];
        all.extend(args.iter().cloned());
        lang.ta(key, &all)
    };
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    match &e.why {
        Why::Required => named("error-why-required"),
        Why::Kind => named("error-why-kind"),
        Why::NotANumber => named("error-why-number"),
        Why::Decimals { scale } => {
            with("error-why-decimals", &[("scale", i64::from(*scale).into())])
        }
        Why::Negative => named("error-why-negative"),
        Why::NotPositive => named("error-why-positive"),
        Why::TooLarge { max } => with("error-why-too-large", &[("max", (*max).into())]),
        Why::Length { min, max } => with(
            "error-why-length",
            &[("min", count(*min).into()), ("max", count(*max).into())],
        ),
        Why::TooLong { max } => with("error-why-too-long", &[("max", count(*max).into())]),
        Why::Range { min, max } => with(
            "error-why-range",
            &[("min", (*min).into()), ("max", (*max).into())],
        ),
        Why::NotOneOf { allowed } => with(
            "error-why-one-of",
            &[("allowed", allowed.join(", ").into())],
        ),
        Why::TooMany { max } => with("error-why-too-many", &[("max", count(*max).into())]),
        Why::BelowFloor { min, currency } => with(
            "error-why-below-floor",
            &[("min", (*min).into()), ("currency", (*currency).into())],
        ),
        Why::Time => named("error-why-time"),
        Why::Past => named("error-why-past"),
        Why::TooFar { days } => with("error-why-too-far", &[("days", (*days).into())]),
        Why::Order => named("error-why-order"),
        Why::Link => named("error-why-link"),
        Why::Username => named("error-why-username"),
        Why::Unknown => named("error-why-unknown"),
        Why::OneCountry => named("error-why-one-country"),
        Why::NotHere => named("error-why-not-here"),
        Why::Hours => named("error-why-hours"),
        Why::NoHours => named("error-why-no-hours"),
        Why::Zone => named("error-why-zone"),
        Why::NoMedia => named("error-why-no-media"),
        Why::Email => named("error-why-email"),
        Why::Taken => named("error-why-taken"),
        Why::PasswordShort { min } => {
            with("error-why-password-short", &[("min", count(*min).into())])
        }
        Why::PasswordLong { max } => {
            with("error-why-password-long", &[("max", count(*max).into())])
        }
        Why::Other => sentence(&e.message),
    }
}

/// `e` in `lang` where no form shows it beside its field: the reason, naming the field.
pub fn worded(lang: Lang, e: &ParseError) -> String {
    reason(lang, e, &label(lang, &e.param))
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
    fn a_typed_reason_is_worded_and_an_untyped_one_kept() {
        let e = ParseError::required("title", "title");
        assert_eq!(worded(Lang::Ru, &e), "Заполните поле «Название».");
        let e = ParseError::new("cpm", "cpm must be a number.").because(Why::NotANumber);
        assert_eq!(
            worded(Lang::Ru, &e),
            "В поле «Ставка CPM» нужно число, например 2.50."
        );
        let e = ParseError::new("device", "something new");
        assert_eq!(worded(Lang::Ru, &e), "Something new.");
    }
}
