//! Owns the new ad's preview: a card drawn on the server the way Telegram shows a sponsored
//! message (the promoted name, the text, media or the channel's picture, the button), from
//! the form as sent (or, as the person types, its fields in `GET /campaigns/new/preview`); and what the link in `promote_url` resolves to, for the form and its
//! `GET /campaigns/new/link` fragment.

use maud::{html, Markup};

use super::super::super::{Form, Visit};
use crate::domain::campaign::LinkKind;
use crate::domain::link::PromoteLink;

/// What `promote_url` resolves to, in a sentence; `None` for an empty field.
pub fn link_kind(visit: &Visit, url: &str) -> Option<(bool, String)> {
    let url = url.trim();
    if url.is_empty() {
        return None;
    }
    let Ok(link) = PromoteLink::parse(url) else {
        return Some((false, visit.t("new-link-bad")));
    };
    let name = link.username.clone().unwrap_or_default();
    let said = match link.kind {
        LinkKind::Site => visit.ta(
            "new-link-site",
            &[("host", link.host.clone().unwrap_or_default().into())],
        ),
        LinkKind::Bot => match &link.start_ref {
            Some(start) => visit.ta(
                "new-link-bot-ref",
                &[("name", name.into()), ("ref", start.clone().into())],
            ),
            None => visit.ta("new-link-bot", &[("name", name.into())]),
        },
        LinkKind::Channel if link.username.is_none() => visit.t("new-link-private"),
        LinkKind::Channel if link.tme_path.as_deref().is_some_and(|p| p.contains('/')) => {
            visit.ta("new-link-post", &[("name", name.into())])
        }
        LinkKind::Channel => visit.ta("new-link-channel", &[("name", name.into())]),
    };
    Some((true, said))
}

/// The link's sentence as the form's note under `promote_url` (the fragment's body too).
pub fn link_note(visit: &Visit, url: &str) -> Markup {
    html! {
        @match link_kind(visit, url) {
            Some((true, said)) => span.link-kind data-ok="1" { (said) },
            Some((false, said)) => span.link-kind.error { (said) },
            None => "",
        }
    }
}

/// The card as Telegram would show the ad sent in `form`, with how many ads the form makes:
/// the inside of the form's `#preview` (the `GET /campaigns/new/preview` fragment too).
pub fn card(visit: &Visit, form: &Form, ads: usize) -> Markup {
    let text = form.get("text").unwrap_or("").trim();
    let url = form.get("promote_url").unwrap_or("").trim();
    let link = PromoteLink::parse(url).ok();
    let kind = link.as_ref().map(|l| l.kind);
    let name = match (&link, form.text("website_name")) {
        (_, Some(site)) => site.to_string(),
        (Some(l), None) => l
            .username
            .clone()
            .or_else(|| l.host.clone())
            .unwrap_or_else(|| form.get("title").unwrap_or("").to_string()),
        (None, None) => form.get("title").unwrap_or("").to_string(),
    };
    let button = match kind {
        Some(LinkKind::Bot) => visit.t("new-preview-open-bot"),
        Some(LinkKind::Site) => visit.t("new-preview-open-site"),
        Some(LinkKind::Channel) | None => visit.t("new-preview-open-channel"),
    };
    let button = form.text("button").map_or(button, str::to_string);
    let initial = name.chars().next().map(|c| c.to_uppercase().to_string());
    html! {
        h2 { (visit.t("new-preview-title")) }
        div.tg-ad {
            @if text.is_empty() {
                p.muted { (visit.t("new-preview-empty")) }
            } @else {
                div.tg-head {
                    @if form.get("picture").is_some() {
                        span.tg-avatar aria-hidden="true" { (initial.unwrap_or_default()) }
                    }
                    strong.tg-name { (name) }
                    span.tg-sponsored { (visit.t("new-preview-sponsored")) }
                }
                @if form.text("media").is_some() {
                    div.tg-media aria-hidden="true" { "▣" }
                }
                p.tg-text { (text) }
                span.tg-button { (button) }
            }
        }
        @if ads > 1 {
            p.muted { (visit.ta("new-preview-count", &[("count", ads.into())])) }
        }
    }
}
