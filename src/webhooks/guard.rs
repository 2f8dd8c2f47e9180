//! Owns the SSRF guard: a webhook URL must be public HTTPS; its host must not be an internal
//! name, and every address it resolves to must be public (not loopback, private, link-local,
//! CGNAT, unique-local, multicast, unspecified, documentation, or IPv4-mapped/embedded).
//! `webhooks.allow_private_targets` lifts all of this for trials and tests.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};

/// Why the guard refused a webhook URL or its addresses; `Display` is the sentence.
#[derive(Debug)]
pub enum GuardError {
    /// Neither `https://` nor `http://`.
    NotHttpOrHttps,
    /// `http://` where only `https://` is allowed.
    NotHttps,
    /// An IPv6 host without its closing bracket.
    UnclosedBracket,
    /// A port that is not a number from 0 to 65535.
    BadPort(String),
    /// No host before the path.
    NoHost,
    /// A host name that only resolves inside a network.
    InternalName(String),
    /// An address that is not plainly public, and its class.
    Address { ip: IpAddr, class: &'static str },
    /// The host did not resolve.
    Unresolved {
        host: String,
        source: std::io::Error,
    },
    /// The host resolves only to addresses the guard refuses.
    NoPublicAddress(String),
}

impl std::fmt::Display for GuardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GuardError::NotHttpOrHttps => f.write_str("the webhook URL must start with https://"),
            GuardError::NotHttps => f.write_str(
                "the webhook URL must use https:// (webhooks.allow_private_targets = true in the config allows http:// and private addresses, for local trials only)",
            ),
            GuardError::UnclosedBracket => f.write_str("unclosed [ in the webhook URL"),
            GuardError::BadPort(port) => write!(f, "bad port '{port}' in the webhook URL"),
            GuardError::NoHost => f.write_str("the webhook URL has no host"),
            GuardError::InternalName(host) => write!(f, "'{host}' is an internal host name"),
            GuardError::Address { ip, class } => write!(f, "{ip} is a {class} address"),
            GuardError::Unresolved { host, source } => write!(f, "cannot resolve {host}: {source}"),
            GuardError::NoPublicAddress(host) => {
                write!(f, "{host} resolves to no public address")
            }
        }
    }
}

impl std::error::Error for GuardError {}

/// The parts of a webhook URL the guard and the sender need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub https: bool,
    pub host: String,
    pub port: u16,
}

/// Checks a URL when it is saved: scheme, host form, and a literal address's class.
pub fn check_url(url: &str, allow_private: bool) -> Result<Target, GuardError> {
    let target = parse(url)?;
    if allow_private {
        return Ok(target);
    }
    if !target.https {
        return Err(GuardError::NotHttps);
    }
    if let Ok(ip) = target.host.parse::<IpAddr>() {
        refuse_address(ip)?;
    } else if is_internal_name(&target.host) {
        return Err(GuardError::InternalName(target.host));
    }
    Ok(target)
}

/// Resolves the target once and keeps only the addresses the guard allows; the sender connects
/// to exactly these, so no second lookup can swap in another address.
pub fn resolve(target: &Target, allow_private: bool) -> Result<Vec<SocketAddr>, GuardError> {
    let addrs: Vec<SocketAddr> = (target.host.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|source| GuardError::Unresolved {
            host: target.host.clone(),
            source,
        })?
        .collect();
    if allow_private {
        return Ok(addrs);
    }
    let allowed: Vec<SocketAddr> = addrs
        .iter()
        .copied()
        .filter(|a| refuse_address(a.ip()).is_ok())
        .collect();
    if allowed.is_empty() {
        return Err(GuardError::NoPublicAddress(target.host.clone()));
    }
    Ok(allowed)
}

fn parse(url: &str) -> Result<Target, GuardError> {
    let (https, rest) = if let Some(rest) = strip(url, "https://") {
        (true, rest)
    } else if let Some(rest) = strip(url, "http://") {
        (false, rest)
    } else {
        return Err(GuardError::NotHttpOrHttps);
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']').ok_or(GuardError::UnclosedBracket)?;
        (host.to_string(), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    let port = match port {
        Some(p) => p
            .parse::<u16>()
            .map_err(|_| GuardError::BadPort(p.to_string()))?,
        None if https => 443,
        None => 80,
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return Err(GuardError::NoHost);
    }
    Ok(Target { https, host, port })
}

/// A webhook URL as logs may show it: without the user and password before the host, and
/// with every query value (and the fragment) left out, since receivers put tokens there.
pub fn redact(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, rest) = rest.split_at(end);
    let host = match authority.rsplit_once('@') {
        Some((_, host)) => format!("***@{host}"),
        None => authority.to_string(),
    };
    let rest = rest.split('#').next().unwrap_or("");
    let (path, query) = match rest.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (rest, None),
    };
    let mut out = if scheme.is_empty() {
        format!("{host}{path}")
    } else {
        format!("{scheme}://{host}{path}")
    };
    if let Some(query) = query {
        let names: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}=***"),
                None => pair.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&names.join("&"));
    }
    out
}

fn strip<'a>(url: &'a str, scheme: &str) -> Option<&'a str> {
    url.get(..scheme.len())
        .filter(|s| s.eq_ignore_ascii_case(scheme))
        .map(|_| &url[scheme.len()..])
}

fn is_internal_name(host: &str) -> bool {
    const INTERNAL: &[&str] = &[
        ".localhost",
        ".local",
        ".internal",
        ".lan",
        ".home.arpa",
        ".intranet",
        ".corp",
    ];
    host == "localhost" || !host.contains('.') || INTERNAL.iter().any(|s| host.ends_with(s))
}

/// Refuses every address that is not plainly public, naming its class.
pub fn refuse_address(ip: IpAddr) -> Result<(), GuardError> {
    let class = match ip {
        IpAddr::V4(v4) => v4_class(v4),
        IpAddr::V6(v6) => v6_class(v6),
    };
    match class {
        Some(class) => Err(GuardError::Address { ip, class }),
        None => Ok(()),
    }
}

fn v4_class(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, _, _) => "unspecified",
        (127, _, _) => "loopback",
        (10, _, _) | (192, 168, _) => "private",
        (172, 16..=31, _) => "private",
        (169, 254, _) => "link-local",
        (100, 64..=127, _) => "CGNAT",
        (192, 0, 0) => "protocol-assignment",
        (192, 88, 99) => "6to4-relay",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18..=19, _) => "benchmarking",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved",
        _ => return None,
    })
}

fn v6_class(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    Some(match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => "IPv4-mapped",
        [0, 0, 0, 0, 0xffff, 0, _, _] => "IPv4-translated",
        [0x100, 0, 0, 0, ..] => "discard-only",
        [0x2001, 2, 0, ..] => "benchmarking",
        [0x2001, x, ..] if (0x10..=0x2f).contains(&x) => "ORCHID",
        [0, 0, 0, 0, 0, 0, _, _] => "IPv4-compatible",
        [0x64, 0xff9b, ..] => "IPv4-embedded (NAT64)",
        [0x2002, ..] => "IPv4-embedded (6to4)",
        [0x2001, 0, ..] => "IPv4-embedded (Teredo)",
        [0x2001, 0xdb8, ..] => "documentation",
        [x, ..] if x & 0xfe00 == 0xfc00 => "unique-local",
        [x, ..] if x & 0xffc0 == 0xfe80 => "link-local",
        [x, ..] if x & 0xffc0 == 0xfec0 => "site-local",
        [x, ..] if x & 0xff00 == 0xff00 => "multicast",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_every_non_public_class() {
        for bad in [
            "0.0.0.0",
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:8.8.8.8",
            "64:ff9b::a00:1",
            "2002:a00:1::1",
            "192.88.99.1",
            "::ffff:0:7f00:1",
            "::ffff:0:0",
            "100::1",
            "2001:2::1",
            "2001:20::1",
        ] {
            assert!(
                refuse_address(bad.parse().unwrap()).is_err(),
                "{bad} should be refused"
            );
        }
    }

    #[test]
    fn allows_public_addresses() {
        for good in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
        ] {
            assert!(
                refuse_address(good.parse().unwrap()).is_ok(),
                "{good} should pass"
            );
        }
    }

    #[test]
    fn urls_must_be_public_https() {
        assert!(check_url("https://hooks.example.com/x", false).is_ok());
        let http = check_url("http://hooks.example.com/x", false).unwrap_err();
        assert!(matches!(http, GuardError::NotHttps), "{http}");
        assert!(
            http.to_string().contains("webhooks.allow_private_targets"),
            "{http}"
        );
        assert!(check_url("https://localhost/x", false).is_err());
        assert!(check_url("https://intranet/x", false).is_err());
        assert!(check_url("https://db.internal/x", false).is_err());
        assert!(check_url("https://10.0.0.5/x", false).is_err());
        assert!(check_url("https://[::1]:8443/x", false).is_err());
        assert!(check_url("ftp://example.com", false).is_err());
        let t = check_url("http://127.0.0.1:9000/hook", true).unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.https),
            ("127.0.0.1", 9000, false)
        );
    }

    #[test]
    fn a_redacted_url_keeps_no_password_and_no_query_value() {
        assert_eq!(
            redact("https://user:hunter2@hooks.example.com:8443/in/x?token=s3cret&a=1&flag#frag"),
            "https://***@hooks.example.com:8443/in/x?token=***&a=***&flag"
        );
        assert_eq!(redact("https://example.com"), "https://example.com");
        assert_eq!(redact("https://example.com/a?"), "https://example.com/a?");
        assert_eq!(redact("odd@host?k=v"), "***@host?k=***");
    }

    #[test]
    fn resolution_drops_refused_addresses() {
        let t = Target {
            https: true,
            host: "127.0.0.1".into(),
            port: 443,
        };
        assert!(resolve(&t, false).is_err());
        assert_eq!(resolve(&t, true).unwrap().len(), 1);
    }
}
