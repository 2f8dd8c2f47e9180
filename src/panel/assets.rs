//! Owns the panel's static files: embedded in the binary, served under [`PREFIX`] with a hash
//! of their content in the name and a year-long, immutable cache lifetime (a new build with
//! changed files gets new names).

use std::sync::OnceLock;

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::http::Reply;
use crate::primitives::hex;

/// Where assets are served.
pub const PREFIX: &str = "/assets/";

/// One embedded file.
pub struct Asset {
    stem: &'static str,
    extension: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

pub static CSS: Asset = Asset {
    stem: "panel",
    extension: "css",
    content_type: "text/css; charset=utf-8",
    body: include_bytes!("assets/panel.css"),
};

pub static JS: Asset = Asset {
    stem: "panel",
    extension: "js",
    content_type: "text/javascript; charset=utf-8",
    body: include_bytes!("assets/panel.js"),
};

pub static HTMX: Asset = Asset {
    stem: "htmx-2.0.11",
    extension: "js",
    content_type: "text/javascript; charset=utf-8",
    body: include_bytes!("assets/htmx-2.0.11.min.js"),
};

static ALL: [&Asset; 3] = [&CSS, &JS, &HTMX];

/// Each asset's served name (`panel-<hash>.css`), computed once.
fn names() -> &'static [String; 3] {
    static NAMES: OnceLock<[String; 3]> = OnceLock::new();
    NAMES.get_or_init(|| {
        ALL.map(|a| {
            let hash = hex(&Sha256::digest(a.body));
            format!("{}-{}.{}", a.stem, &hash[..12], a.extension)
        })
    })
}

/// The path an asset is served at.
pub fn url(asset: &Asset) -> String {
    let i = ALL
        .iter()
        .position(|a| std::ptr::eq(*a, asset))
        .expect("every asset is in ALL");
    format!("{PREFIX}{}", names()[i])
}

/// The asset served under `name`, if it is one of this build's names.
pub fn answer(name: &str) -> Option<Reply> {
    let i = names().iter().position(|n| n == name)?;
    let asset = ALL[i];
    let mut reply = Reply::raw(Bytes::from_static(asset.body), asset.content_type);
    reply.headers.push((
        "cache-control".into(),
        "public, max-age=31536000, immutable".into(),
    ));
    Some(reply)
}
