//! Owns `/rules/templates`: the template library in the page's language (names, descriptions
//! and parameters from the catalogue), each template a form of its own (cabinet, parameters,
//! name, dry run) that posts without script, read and stored by `ops::rule::template` and
//! `ops::rule::create` as the API's `POST /v1/rules` with a template is; a refusal is shown on
//! the template's form beside the message, the form kept as sent.

use maud::{html, Markup};
use serde_json::{json, Map, Value};

use super::super::super::session::Session;
use super::super::super::{layout, redirect, Form, Visit, WebError};
use super::super::ops_error;
use crate::domain::rule::templates::{Default, Template, TEMPLATES};
use crate::domain::ParseError;
use crate::http::Reply;
use crate::i18n::Lang;
use crate::ops::rule as rule_ops;
use crate::ops::OpsError;
use crate::store::cabinets::Reachable;

/// A template's form the checks refused: the form as sent, the template and the sentence.
struct Refused<'f> {
    sent: &'f Form,
    template: String,
    param: String,
    message: String,
}

/// `GET /rules/templates`.
pub async fn templates<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    Ok(render(visit, session, None))
}

fn render(visit: &Visit, session: &Session, refused: Option<Refused>) -> Reply {
    let person = &session.person;
    let writable: Vec<&Reachable> = person
        .active()
        .filter(|r| person.writable(r.cabinet.id).is_ok())
        .collect();
    let title = visit.t("templates-title");
    let body = html! {
        header.page { div {
            h1 { (title) }
            p.muted { (visit.t("templates-lead")) }
            p { a href="/rules" { (visit.t("templates-back")) } }
        } }
        @if writable.is_empty() {
            div.empty { (visit.t("rules-new-refused")) }
        } @else {
            @for t in &TEMPLATES {
                (template_form(visit.lang, session, t, &writable, refused.as_ref().filter(|r| r.template == t.id)))
            }
        }
    };
    let reply = layout::page(visit, session, "/rules", &title, body);
    match refused {
        Some(_) => reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY),
        None => reply,
    }
}

/// The hint under a parameter's field: its default, or that it is required.
fn default_hint(lang: Lang, default: Default) -> String {
    match default {
        Default::None => lang.t("templates-required"),
        Default::Same(v) => lang.ta("templates-default", &[("value", v.into())]),
        Default::Money(euro, ton, stars) => lang.ta(
            "templates-default-money",
            &[
                ("euro", euro.into()),
                ("ton", ton.into()),
                ("stars", stars.into()),
            ],
        ),
    }
}

fn template_form(
    lang: Lang,
    session: &Session,
    t: &Template,
    writable: &[&Reachable],
    refused: Option<&Refused>,
) -> Markup {
    let sent = |name: &str| {
        refused
            .and_then(|r| r.sent.get(name))
            .unwrap_or("")
            .to_string()
    };
    html! {
        form.card id={ "template-" (t.id) } method="post" action="/rules/templates" {
            input type="hidden" name="csrf" value=(session.csrf);
            input type="hidden" name="template" value=(t.id);
            h2 { (lang.t(&format!("template-{}-name", t.id))) }
            p.muted { (lang.t(&format!("template-{}-description", t.id))) }
            @if let Some(r) = refused { p.error role="alert" data-param=(r.param) { (r.message) } }
            label { (lang.t("templates-cabinet"))
                select name="account_id" { @for r in writable {
                    @let id = r.cabinet.id.to_string();
                    option value=(id) selected[sent("account_id") == id] { (r.cabinet.name) " · " (r.cabinet.cabinet_type.currency()) }
                } } }
            div.filters {
                @for p in t.params {
                    @let field = format!("p_{}", p.name);
                    label { (lang.t(&format!("template-param-{}", p.name)))
                        input type="text" inputmode="decimal" name=(field) value=(sent(&field)) required[p.required()];
                        small { (default_hint(lang, p.default)) } }
                }
            }
            label { (lang.t("templates-name")) input type="text" name="name" maxlength="100" value=(sent("name"));
                small { (lang.t("templates-name-help")) } }
            label { span { input type="checkbox" name="dry_run" value="1" checked[sent("dry_run") == "1"]; " " (lang.t("templates-dry-run")) } }
            button.primary type="submit" { (lang.t("templates-submit")) }
        }
    }
}

/// The form as the API's body of a rule from a template (without `account_id`): a field left
/// empty is not sent, so the parameter takes its default.
fn body_of(form: &Form) -> Value {
    let text = |name: &str| form.get(name).map(str::trim).unwrap_or("").to_string();
    let template = text("template");
    let mut params = Map::new();
    if let Some(t) = TEMPLATES.iter().find(|t| t.id == template) {
        for p in t.params {
            let value = text(&format!("p_{}", p.name));
            if !value.is_empty() {
                params.insert(p.name.to_string(), json!(value));
            }
        }
    }
    let mut body = json!({ "template": template, "params": params });
    let name = text("name");
    if !name.is_empty() {
        body["name"] = json!(name);
    }
    if text("dry_run") == "1" {
        body["dry_run"] = json!(true);
    }
    body
}

/// `POST /rules/templates`: a rule from a template, read and checked as the API reads it.
pub async fn create<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    match add(visit, session, form, body_of(form)).await {
        Ok(id) => Ok(redirect(&format!("/rules#rule-{id}"))),
        Err(OpsError::Invalid(e)) => {
            let refused = Refused {
                sent: form,
                template: form.get("template").unwrap_or("").to_string(),
                message: super::super::why::worded(visit.lang, &e),
                param: e.param,
            };
            Ok(render(visit, session, Some(refused)))
        }
        Err(e) => Err(ops_error(e)),
    }
}

async fn add(
    visit: &Visit<'_>,
    session: &Session,
    form: &Form,
    body: Value,
) -> Result<i64, OpsError> {
    let account = form.get("account_id").and_then(|a| a.parse::<i64>().ok());
    let actor = account
        .ok_or_else(|| visit.t("rules-form-choose-cabinet"))
        .and_then(|a| session.person.actor(a).map_err(|e| e.sentence()))
        .map_err(|why| ParseError::new("account_id", why))?;
    let spec = rule_ops::template::read(&body, actor.cabinet().cabinet_type)?;
    let db = &visit.state.services.db;
    Ok(db
        .write(move |tx| rule_ops::create(tx, &actor, &spec))
        .await?
        .id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_and_parameter_has_its_words_in_each_language() {
        for lang in Lang::ALL {
            for t in &TEMPLATES {
                let mut keys = vec![
                    format!("template-{}-name", t.id),
                    format!("template-{}-description", t.id),
                ];
                keys.extend(
                    t.params
                        .iter()
                        .map(|p| format!("template-param-{}", p.name)),
                );
                for key in keys {
                    assert_ne!(lang.t(&key), key, "{key} in {}", lang.code());
                }
            }
        }
    }
}
