//! Owns the panel's pages, one module per section.

pub mod cabinets;
pub mod campaign;
pub mod campaigns;
pub mod keys;
pub mod tasks;

use maud::{html, Markup};

use crate::domain::campaign::Status;

/// A campaign status as a coloured badge.
pub fn status_badge(status: Status) -> Markup {
    let class = match status {
        Status::Active => "active",
        Status::InReview => "review",
        Status::Declined => "declined",
        Status::Paused => "paused",
        Status::OnHold => "hold",
        Status::Stopped | Status::Deleted => "",
    };
    html! { span class={ "badge " (class) } { (status.as_str()) } }
}
