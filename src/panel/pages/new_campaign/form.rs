//! Owns the new-campaign form as a page: its fields named as the API's create body, filled
//! from what was sent when it comes back refused or previewed, each refusal beside its
//! field; the targeting of every target type (the page's script shows only the chosen type's,
//! without it all show with a note), pickers from the platform's lists with a filter, the
//! look-ups as the person types, the character count of the text against the platform's
//! limit, the cabinet's minimums, the week grid, bulk choices, and the preview card.

use maud::{html, Markup};

use super::super::super::session::Session;
use super::super::super::{layout, week, Form, Visit};
use super::super::why::LABELLED;
use super::fields::{split, types_of, TYPES};
use super::preview::{card, link_note};
use super::refusal::Refusal;
use crate::domain::countries::COUNTRIES;
use crate::domain::money::CabinetType;
use crate::http::Reply;
use crate::store::cabinets::Reachable;

/// What the page shows.
pub struct Shown<'a> {
    /// The cabinets the person may create campaigns in.
    pub cabinets: &'a [&'a Reachable],
    /// The cabinet chosen (by the query or the form).
    pub chosen: Option<i64>,
    /// The form as sent, when it comes back.
    pub sent: Option<&'a Form>,
    pub refusals: &'a [Refusal],
    /// Draw the preview for this many ads.
    pub preview: Option<usize>,
}

/// The fields the preview draws, sent as the person types (never the CSRF token).
const PREVIEWED: [&str; 7] = [
    "title",
    "text",
    "promote_url",
    "picture",
    "media",
    "button",
    "website_name",
];

/// The fields the form has a place for a refusal beside: the labelled ones, and these.
const PLACED_UNLABELLED: [&str; 3] = ["variants", "new_group_name", "add_similar_channels"];

pub fn page(visit: &Visit, session: &Session, shown: &Shown) -> Reply {
    let title = visit.t("new-title");
    layout::page(
        visit,
        session,
        "/campaigns",
        &title,
        body(visit, session, shown),
    )
}

fn body(visit: &Visit, session: &Session, shown: &Shown) -> Markup {
    let caps = visit.state.services.platform.capabilities();
    let sent = shown.sent;
    let val = |field: &str| sent.and_then(|f| f.get(field)).unwrap_or("").to_string();
    let picked = |field: &str, value: &str| sent.is_some_and(|f| f.all(field).any(|v| v == value));
    let ticked = |field: &str| sent.is_some_and(|f| f.get(field).is_some());
    let cabinet = shown
        .cabinets
        .iter()
        .find(|r| Some(r.cabinet.id) == shown.chosen)
        .or(shown.cabinets.first())
        .map(|r| &r.cabinet);
    let kind = cabinet.map_or(CabinetType::Euro, |c| c.cabinet_type);
    let target = sent
        .and_then(|f| f.get("target_type"))
        .unwrap_or("channels")
        .to_string();
    let refused = |field: &str| -> Markup {
        html! {
            @for r in shown.refusals.iter().filter(|r| r.field == field) {
                p.error role="alert" data-param=(field) { (r.message) }
            }
        }
    };
    let label = |field: &str| visit.t(&format!("new-field-{field}"));
    let text = val("text");
    let limit = caps.text_chars;
    let now = cabinet.map(|c| hints(visit, c)).unwrap_or_default();
    let zone = visit
        .zone
        .map_or_else(|| "UTC".to_string(), |z| z.name().to_string());
    let lookup = |target_type: &str, to: &str| -> Markup {
        let results = format!("lookup-{to}");
        html! {
            label.lookup {
                (visit.t("new-lookup-label"))
                input type="search" name="q" autocomplete="off"
                    placeholder=(visit.t("new-lookup-placeholder"))
                    hx-get="/campaigns/new/lookup"
                    hx-trigger="input changed delay:400ms, search"
                    hx-target={ "#" (results) }
                    hx-include="[name='account_id']"
                    hx-vals=(format!(r#"{{"target_type": "{target_type}", "to": "{to}"}}"#));
            }
            div id=(results) aria-live="polite" {}
        }
    };
    let list = |field: &str, rows: u32| -> Markup {
        html! {
            div.for-type data-for=(types_of(field)) {
                label {
                    (label(field))
                    textarea name=(field) rows=(rows) { (val(field)) }
                }
                small.muted { (visit.t("new-list-help")) }
                (refused(field))
            }
        }
    };
    let multi = |field: &str, options: Vec<(String, String)>| -> Markup {
        html! {
            div.for-type.multi data-for=(types_of(field)) {
                label {
                    (label(field))
                    input.filter type="search" data-filter=(field) placeholder=(visit.t("new-filter")) autocomplete="off";
                    select name=(field) multiple size="6" {
                        @for (value, name) in &options {
                            option value=(value) selected[picked(field, value)] { (name) }
                        }
                    }
                }
                (refused(field))
            }
        }
    };
    let countries: Vec<(String, String)> = COUNTRIES
        .iter()
        .map(|(c, n)| (c.to_string(), format!("{n} ({c})")))
        .collect();
    let languages: Vec<(String, String)> = caps
        .languages
        .iter()
        .map(|(c, n)| (c.to_string(), n.to_string()))
        .collect();
    let topics: Vec<(String, String)> = caps
        .topics
        .iter()
        .map(|(id, n)| (id.to_string(), n.to_string()))
        .collect();
    let placements: Vec<&str> = {
        let mut all: Vec<&str> = Vec::new();
        for t in caps.targets {
            for p in t.placements {
                if !all.contains(p) {
                    all.push(p);
                }
            }
        }
        all
    };
    let unplaced: Vec<&Refusal> = shown
        .refusals
        .iter()
        .filter(|r| {
            let f = r.field.as_str();
            !LABELLED.contains(&f) && !PLACED_UNLABELLED.contains(&f)
        })
        .collect();
    let keywords = split(&val("search_keywords"));
    html! {
        h1 { (visit.t("new-title")) }
        p.muted { (visit.t("new-intro")) }
        @for r in &unplaced {
            p.error role="alert" data-param=(r.field) { (r.message) }
        }
        div.new-layout {
        form #new-campaign method="post" action="/campaigns/new" {
            input type="hidden" name="csrf" value=(session.csrf);
            fieldset {
                legend { (visit.t("new-section-ad")) }
                label {
                    (label("account_id"))
                    select name="account_id" data-cabinet {
                        @for r in shown.cabinets {
                            @let h = hints(visit, &r.cabinet);
                            option value=(r.cabinet.id) selected[Some(r.cabinet.id) == cabinet.map(|c| c.id)]
                                data-currency=(h.currency) data-cpm-min=(h.cpm_min)
                                data-budget-help=(h.budget_help) data-button=(h.button) {
                                (r.cabinet.name) " (" (r.cabinet.cabinet_type.currency()) ")"
                            }
                        }
                    }
                }
                noscript {
                    button.small type="submit" name="switch_cabinet" value="1" formnovalidate { (visit.t("new-switch-cabinet")) }
                }
                (refused("account_id"))
                label { (label("title")) input type="text" name="title" value=(val("title")) required; }
                (refused("title"))
                label {
                    (label("text"))
                    textarea name="text" rows="4" data-limit=(limit) { (text) }
                }
                small.muted {
                    output.count data-for="text" { (visit.ta("new-count", &[("count", text.chars().count().into()), ("limit", limit.into())])) }
                    " · " (visit.ta("new-text-help", &[("limit", limit.into())]))
                }
                (refused("text"))
                label {
                    (label("promote_url"))
                    input type="text" name="promote_url" value=(val("promote_url")) placeholder="https://t.me/…"
                        hx-get="/campaigns/new/link" hx-trigger="blur, change" hx-target="#link-kind";
                }
                div #link-kind aria-live="polite" { (link_note(visit, &val("promote_url"))) }
                (refused("promote_url"))
            }
            fieldset {
                legend { (visit.t("new-section-targeting")) }
                label {
                    (label("target_type"))
                    select name="target_type" data-target-type {
                        @for t in TYPES {
                            @if caps.serves(t) {
                                option value=(t.as_str()) selected[target == t.as_str()] { (visit.t(&format!("new-type-{}", t.as_str()))) }
                            }
                        }
                    }
                }
                (refused("target_type"))
                p.muted.types-note { (visit.t("new-types-note")) }
                div.for-type data-for=(types_of("channels")) {
                    (list("channels", 3))
                    (lookup("channels", "channels"))
                    @if caps.similar_channels {
                        label.check { input type="checkbox" name="add_similar_channels" checked[ticked("add_similar_channels")]; " " (label("add_similar_channels")) }
                        (refused("add_similar_channels"))
                    }
                    label.check { input type="checkbox" name="per_channel" checked[ticked("per_channel")]; " " (visit.t("new-bulk-per-channel")) }
                }
                div.for-type data-for=(types_of("bots")) {
                    (list("bots", 3))
                    (lookup("bots", "bots"))
                }
                div.for-type data-for=(types_of("search_keywords")) {
                    label {
                        (label("search_keywords"))
                        input type="text" name="search_keywords" value=(val("search_keywords")) data-chips="keyword-chips";
                    }
                    div.chips #keyword-chips {
                        @for k in &keywords { span.chip { (k) } }
                    }
                    small.muted { (visit.ta("new-keywords-help", &[("count", caps.keywords.max_count.into()), ("length", caps.keywords.max_chars.into())])) }
                    (refused("search_keywords"))
                }
                (multi("countries", countries))
                (multi("languages", languages))
                (multi("topics", topics.clone()))
                (multi("exclude_topics", topics))
                (list("audience_channels", 2))
                (list("exclude_channels", 2))
                div.for-type data-for=(types_of("cities")) {
                    label { (label("cities")) textarea name="cities" rows="2" { (val("cities")) } }
                    small.muted { (visit.t("new-cities-help")) }
                    label.lookup {
                        (visit.t("new-cities-find"))
                        input type="search" name="city" autocomplete="off"
                            placeholder=(visit.t("new-cities-placeholder"))
                            hx-get="/campaigns/new/cities"
                            hx-trigger="input changed delay:400ms, search"
                            hx-target="#lookup-cities"
                            hx-include="[name='account_id'], [name='countries']";
                    }
                    div #lookup-cities aria-live="polite" {}
                    (refused("cities"))
                }
                div.for-type data-for=(types_of("device")) {
                    label {
                        (label("device"))
                        select name="device" {
                            option value="" { (visit.t("new-device-any")) }
                            @for d in ["ios", "android", "mobile", "desktop"] {
                                option value=(d) selected[val("device") == d] { (d) }
                            }
                        }
                    }
                    (refused("device"))
                    label.check { input type="checkbox" name="intersect_topics" checked[ticked("intersect_topics")]; " " (label("intersect_topics")) }
                    label {
                        (label("political_channels"))
                        select name="political_channels" {
                            option value="" { (visit.t("new-political-any")) }
                            option value="exclude" selected[val("political_channels") == "exclude"] { (visit.t("new-political-exclude")) }
                            option value="only" selected[val("political_channels") == "only"] { (visit.t("new-political-only")) }
                        }
                    }
                    (refused("political_channels"))
                }
                label {
                    (label("placement"))
                    select name="placement" {
                        option value="" { (visit.t("new-placement-default")) }
                        @for p in &placements {
                            option value=(p) selected[val("placement") == *p]
                                data-for=(TYPES.iter().filter(|t| caps.placements(**t).contains(p)).map(|t| t.as_str()).collect::<Vec<_>>().join(" ")) { (p) }
                        }
                    }
                }
                (refused("placement"))
                div.dates {
                    label { (label("starts_at")) input type="datetime-local" name="starts_at" value=(val("starts_at")); }
                    label { (label("ends_at")) input type="datetime-local" name="ends_at" value=(val("ends_at")); }
                }
                small.muted { (visit.ta("new-dates-help", &[("zone", zone.into())])) }
                (refused("starts_at"))
                (refused("ends_at"))
            }
            fieldset {
                legend { (visit.t("new-section-creative")) }
                label.check { input type="checkbox" name="picture" checked[ticked("picture")]; " " (label("picture")) }
                label {
                    (visit.t("new-media-upload"))
                    input type="file" data-upload="/campaigns/new/media" data-token-to="media"
                        data-sending=(visit.t("new-media-sending"))
                        accept=(caps.media.iter().map(|m| m.media_type).collect::<Vec<_>>().join(","));
                }
                div.media-preview #media-preview aria-live="polite" {}
                label { (label("media")) input type="text" name="media" value=(val("media")) autocomplete="off"; }
                small.muted { (visit.t("new-media-help")) }
                (refused("media"))
                @if shown.cabinets.iter().any(|r| r.cabinet.ad_button) {
                    label.button-field hidden[!cabinet.is_some_and(|c| c.ad_button)] {
                        (label("button"))
                        select name="button" {
                            option value="" { (visit.t("new-button-none")) }
                            @for b in caps.buttons {
                                option value=(b) selected[val("button") == *b] { (b) }
                            }
                        }
                    }
                    (refused("button"))
                }
                label { (label("website_name")) input type="text" name="website_name" value=(val("website_name")); }
                (refused("website_name"))
            }
            fieldset {
                legend { (visit.t("new-section-money")) }
                label { (label("cpm")) " (" span.currency { (kind.currency()) } ")" input type="text" inputmode="decimal" name="cpm" value=(val("cpm")) required; }
                small.muted #cpm-min hidden[now.cpm_min.is_empty()] { (now.cpm_min) }
                (refused("cpm"))
                label { (label("budget")) " (" span.currency { (kind.currency()) } ")" input type="text" inputmode="decimal" name="budget" value=(val("budget")) required; }
                small.muted #budget-help { (now.budget_help) }
                (refused("budget"))
                label { (label("daily_budget")) " (" span.currency { (kind.currency()) } ")" input type="text" inputmode="decimal" name="daily_budget" value=(val("daily_budget")); }
                (refused("daily_budget"))
                label {
                    (label("views_per_user"))
                    select name="views_per_user" {
                        @for n in 1..=4 {
                            option value=(n) selected[val("views_per_user") == n.to_string()] { (n) }
                        }
                    }
                }
                (refused("views_per_user"))
                label {
                    (label("active"))
                    select name="active" {
                        option value="true" { (visit.t("new-active-on")) }
                        option value="false" selected[val("active") == "false"] { (visit.t("new-active-off")) }
                    }
                }
            }
            div.scroll-x { (week::input(visit, None, sent)) }
            (refused("schedule"))
            fieldset {
                legend { (visit.t("new-section-bulk")) }
                p.muted { (visit.t("new-bulk-help")) }
                label { (label("variants")) textarea name="variants" rows="3" { (val("variants")) } }
                small.muted { (visit.t("new-variants-help")) }
                (refused("variants"))
                label { (label("new_group_name")) input type="text" name="new_group_name" value=(val("new_group_name")); }
                small.muted { (visit.t("new-group-help")) }
                (refused("new_group_name"))
            }
            div.actions {
                button type="submit" name="preview" value="1" { (visit.t("new-preview")) }
                " "
                button.primary type="submit" { (visit.t("new-create")) }
            }
        }
        section.preview #preview aria-live="polite"
            hx-get="/campaigns/new/preview"
            hx-trigger="input delay:500ms from:#new-campaign, change from:#new-campaign"
            hx-include=(PREVIEWED.iter().map(|f| format!("#new-campaign [name='{f}']")).collect::<Vec<_>>().join(", "))
        {
            @if let (Some(ads), Some(form)) = (shown.preview, sent) {
                (card(visit, form, ads))
            }
        }
        }
    }
}

/// What the form says of one cabinet, carried by its choice in the cabinet list so the page's
/// script can swap the hints when another is chosen (without the script, "Apply" draws the
/// form again for the chosen cabinet, keeping what was entered).
#[derive(Default)]
struct Hints {
    currency: &'static str,
    /// The platform's minimum bid of each target type in the cabinet's currency; empty when
    /// the platform names none.
    cpm_min: String,
    /// The cabinet's minimum budget.
    budget_help: String,
    /// Whether the cabinet's ad form has a button (`true`/`false`).
    button: &'static str,
}

fn hints(visit: &Visit, cabinet: &crate::store::cabinets::Cabinet) -> Hints {
    let caps = visit.state.services.platform.capabilities();
    let kind = cabinet.cabinet_type;
    let mins: Vec<String> = TYPES
        .iter()
        .filter_map(|t| {
            let min = caps.min_cpm(kind, *t)?;
            Some(format!(
                "{} {}",
                visit.t(&format!("new-type-{}", t.as_str())),
                kind.render(min)
            ))
        })
        .collect();
    let cpm_min = if mins.is_empty() {
        String::new()
    } else {
        visit.ta(
            "new-cpm-min",
            &[
                ("currency", kind.currency().into()),
                ("mins", mins.join(" · ").into()),
            ],
        )
    };
    Hints {
        currency: kind.currency(),
        cpm_min,
        budget_help: visit.ta(
            "new-budget-help",
            &[
                ("min", cabinet.min_budget.into()),
                ("currency", kind.currency().into()),
            ],
        ),
        button: if cabinet.ad_button { "true" } else { "false" },
    }
}
