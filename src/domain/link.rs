//! Owns the reading of a campaign's `promote_url` (a platform short link, `@channel`, or a
//! website URL) and of the `promote_domain` filter: what kind of link it is, its `tme_path`,
//! its username and its host.

use super::campaign::LinkKind;
use crate::primitives::form_decode;

/// Hosts of the platform's short links.
const SHORT_LINK_HOSTS: &[&str] = &["t.me", "telegram.me"];

/// Why a text is not a link a campaign can promote; `Display` is the sentence, quoting it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// `@` followed by something that is not a username.
    NotAUsername(String),
    /// Neither a short link, an `@username` nor an http(s) URL.
    NotALink(String),
    /// A URL without a host.
    NoHost(String),
    /// A short link that names no channel or bot.
    NamesNothing(String),
    /// A short link whose name is not a valid username.
    BadUsername(String),
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::NotAUsername(input) => write!(f, "'{input}' is not a valid @username"),
            LinkError::NotALink(input) => write!(
                f,
                "'{input}' is not a channel or bot link, an @username or an http(s) URL"
            ),
            LinkError::NoHost(input) => write!(f, "'{input}' has no host"),
            LinkError::NamesNothing(input) => write!(f, "'{input}' names no channel or bot"),
            LinkError::BadUsername(input) => {
                write!(f, "'{input}' does not name a valid username")
            }
        }
    }
}

impl std::error::Error for LinkError {}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromoteLink {
    pub kind: LinkKind,
    /// The part of a short link after the host: `name`, `name/123`, `name/app`.
    pub tme_path: Option<String>,
    /// Lower-case username of a short link, for the `bot_username` filter.
    pub username: Option<String>,
    /// Lower-case host of a website link, without `www.` and port.
    pub host: Option<String>,
    /// The `?start=` or `?startapp=` payload of a bot or mini-app link.
    pub start_ref: Option<String>,
}

impl PromoteLink {
    pub fn parse(input: &str) -> Result<PromoteLink, LinkError> {
        let input = input.trim();
        if let Some(name) = input.strip_prefix('@') {
            if !is_username_like(name) {
                return Err(LinkError::NotAUsername(input.to_string()));
            }
            return Ok(short_link(LinkKind::Channel, name.to_string(), name, None));
        }
        let rest = strip_scheme(input).ok_or_else(|| LinkError::NotALink(input.to_string()))?;
        let (authority, tail) = split_authority(rest);
        let host = normalize_host(authority);
        if host.is_empty() {
            return Err(LinkError::NoHost(input.to_string()));
        }
        if SHORT_LINK_HOSTS.contains(&host.as_str()) {
            return parse_short_link(input, tail);
        }
        Ok(PromoteLink {
            kind: LinkKind::Site,
            tme_path: None,
            username: None,
            host: Some(host),
            start_ref: None,
        })
    }
}

fn parse_short_link(input: &str, tail: &str) -> Result<PromoteLink, LinkError> {
    let (path, query) = match tail.split_once('?') {
        Some((p, q)) => (p, q),
        None => (tail, ""),
    };
    let path = path.split('#').next().unwrap_or("").trim_matches('/');
    let mut segments = path.split('/').filter(|s| !s.is_empty());
    let name = segments
        .next()
        .ok_or_else(|| LinkError::NamesNothing(input.to_string()))?;
    let second = segments.next();
    let param = |key: &str| {
        query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    };
    let start_ref = param("start").or_else(|| param("startapp"));
    let is_private_invite = name.starts_with('+') || name == "joinchat";
    if !is_private_invite && !is_username_like(name) {
        return Err(LinkError::BadUsername(input.to_string()));
    }
    let is_post = second.is_some_and(|s| s.chars().all(|c| c.is_ascii_digit()));
    let kind = if is_private_invite || is_post {
        LinkKind::Channel
    } else if start_ref.is_some() || second.is_some() || name.to_ascii_lowercase().ends_with("bot")
    {
        LinkKind::Bot
    } else {
        LinkKind::Channel
    };
    let tme_path = match second {
        Some(s) => format!("{name}/{s}"),
        None => name.to_string(),
    };
    let mut link = short_link(kind, tme_path, name, start_ref);
    if is_private_invite {
        link.username = None;
    }
    Ok(link)
}

fn short_link(
    kind: LinkKind,
    tme_path: String,
    name: &str,
    start_ref: Option<String>,
) -> PromoteLink {
    PromoteLink {
        kind,
        tme_path: Some(tme_path),
        username: Some(name.to_ascii_lowercase()),
        host: None,
        start_ref,
    }
}

/// Reduces a bare domain or a full URL to the host a website link is matched on: scheme,
/// `www.`, path, query and port dropped, lower case.
pub fn normalize_domain(input: &str) -> String {
    let input = input.trim();
    let rest = strip_scheme(input).unwrap_or(input);
    normalize_host(split_authority(rest).0)
}

/// The decoded values of the named query parameters of a URL, in the URL's order.
pub fn query_values(url: &str, names: &[String]) -> Vec<String> {
    let query = url.split('#').next().unwrap_or("");
    let Some((_, query)) = query.split_once('?') else {
        return Vec::new();
    };
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(k, _)| form_decode(k).is_some_and(|k| names.contains(&k)))
        .filter_map(|(_, v)| form_decode(v))
        .filter(|v| !v.is_empty())
        .collect()
}

/// An invite link reduced to `t.me/+CODE` (or `t.me/joinchat/CODE`), whatever scheme and
/// short-link host it was written with; `None` when it is not an invite link.
pub fn normalize_invite(input: &str) -> Option<String> {
    let input = input.trim();
    let rest = strip_scheme(input).unwrap_or(input);
    let (authority, tail) = split_authority(rest);
    if !SHORT_LINK_HOSTS.contains(&normalize_host(authority).as_str()) {
        return None;
    }
    let path = tail
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .trim_matches('/');
    let code = path
        .strip_prefix('+')
        .map(|c| format!("+{c}"))
        .or_else(|| {
            path.strip_prefix("joinchat/")
                .map(|c| format!("joinchat/{c}"))
        })?;
    let valid = code.len() > 1
        && code
            .trim_start_matches("joinchat/")
            .trim_start_matches('+')
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    valid.then(|| format!("t.me/{code}"))
}

fn strip_scheme(input: &str) -> Option<&str> {
    let lower = input.get(..8).unwrap_or(input).to_ascii_lowercase();
    if lower.starts_with("https://") {
        Some(&input[8..])
    } else if lower.starts_with("http://") {
        Some(&input[7..])
    } else {
        None
    }
}

fn split_authority(rest: &str) -> (&str, &str) {
    match rest.find(['/', '?', '#']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    }
}

fn normalize_host(authority: &str) -> String {
    let without_user = authority.rsplit('@').next().unwrap_or(authority);
    let host = match without_user.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => without_user,
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host.strip_prefix("www.")
        .map(str::to_string)
        .unwrap_or(host)
}

fn is_username_like(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_name_is_a_channel() {
        let l = PromoteLink::parse("@NewsDaily").unwrap();
        assert_eq!(l.kind, LinkKind::Channel);
        assert_eq!(l.tme_path.as_deref(), Some("NewsDaily"));
        assert_eq!(l.username.as_deref(), Some("newsdaily"));
    }

    #[test]
    fn start_links_are_bots_with_their_ref() {
        let l = PromoteLink::parse("https://t.me/ShopHelper?start=promo42").unwrap();
        assert_eq!(l.kind, LinkKind::Bot);
        assert_eq!(l.start_ref.as_deref(), Some("promo42"));
        let app = PromoteLink::parse("t.me/game/play?startapp=x1").unwrap_err();
        assert_eq!(
            app,
            LinkError::NotALink("t.me/game/play?startapp=x1".into())
        );
        assert!(
            app.to_string().contains("http"),
            "a short link needs its scheme: {app}"
        );
        let app = PromoteLink::parse("https://t.me/game/play?startapp=x1").unwrap();
        assert_eq!(app.kind, LinkKind::Bot);
        assert_eq!(app.tme_path.as_deref(), Some("game/play"));
        assert_eq!(app.start_ref.as_deref(), Some("x1"));
    }

    #[test]
    fn posts_and_plain_channels_are_channels() {
        let post = PromoteLink::parse("https://t.me/news/123").unwrap();
        assert_eq!(post.kind, LinkKind::Channel);
        assert_eq!(post.tme_path.as_deref(), Some("news/123"));
        assert_eq!(
            PromoteLink::parse("https://t.me/mychannel").unwrap().kind,
            LinkKind::Channel
        );
        assert_eq!(
            PromoteLink::parse("https://t.me/helper_bot").unwrap().kind,
            LinkKind::Bot
        );
    }

    #[test]
    fn websites_keep_a_normalized_host() {
        let l = PromoteLink::parse("https://WWW.Shop.Example.com:8443/a?b=c").unwrap();
        assert_eq!(l.kind, LinkKind::Site);
        assert_eq!(l.host.as_deref(), Some("shop.example.com"));
        assert_eq!(l.tme_path, None);
        assert!(PromoteLink::parse("example.com").is_err());
    }

    #[test]
    fn domains_normalize_from_bare_or_full_forms() {
        assert_eq!(normalize_domain("Example.COM"), "example.com");
        assert_eq!(
            normalize_domain("https://www.example.com:8080/x?y=1"),
            "example.com"
        );
        assert_eq!(normalize_domain("www.example.com/path"), "example.com");
    }
}
