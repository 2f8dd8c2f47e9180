//! Owns a refused create as the form shows it: the field it belongs beside (`param`
//! `campaigns[2].channels[0]` → `channels`; a schedule's day → `schedule`) and its sentence in
//! the person's language, worded from the refusal's typed reason ([`super::super::why`]); a
//! reason not typed yet shows as the operation wrote it.

use super::super::why;
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

/// A refused field `e` in `lang`.
pub fn translate(e: &ParseError, lang: Lang) -> Refusal {
    let field = why::field_of(&e.param);
    let name = if why::LABELLED.contains(&field.as_str()) {
        lang.t(&format!("new-field-{field}"))
    } else {
        lang.t("new-field-other")
    };
    Refusal {
        message: why::reason(lang, e, &name),
        field,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Why;

    #[test]
    fn a_typed_refusal_is_translated_and_an_untyped_one_kept() {
        let e = ParseError::required("title", "title");
        assert_eq!(
            translate(&e, Lang::Ru).message,
            "Заполните поле «Название»."
        );
        let e = ParseError::new(
            "campaigns[1].budget",
            "A campaign's budget is 0 or at least the cabinet's min_budget of 5 EUR.",
        )
        .because(Why::BelowFloor {
            min: 5,
            currency: "EUR",
        });
        let r = translate(&e, Lang::En);
        assert_eq!(r.field, "budget");
        assert!(r.message.contains("5 EUR"), "{}", r.message);
        let e = ParseError::new("device", "something new");
        assert_eq!(translate(&e, Lang::Ru).message, "Something new.");
    }
}
