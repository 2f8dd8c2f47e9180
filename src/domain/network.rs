//! Owns client addresses behind proxies: a network (`192.0.2.7`, `10.0.0.0/8`, `fd00::/8`) as
//! `[panel] trusted_proxies` lists them, and which address of an `X-Forwarded-For` chain is
//! the client's. It never trusts the header unless the connection came from a listed proxy.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

/// Why a text is not a network; `Display` is the sentence, naming the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkError {
    /// Not an IP address.
    NotAnAddress(String),
    /// The prefix is not a number from 0 to the address's bits.
    BadPrefix { text: String, bits: u8 },
    /// Bits are set past the prefix (`10.0.0.1/8`).
    HostBits { text: String, prefix: u8 },
}

impl std::fmt::Display for NetworkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetworkError::NotAnAddress(text) => write!(
                f,
                "{text:?} is not an IP address or network such as 10.0.0.0/8"
            ),
            NetworkError::BadPrefix { text, bits } => {
                write!(f, "{text:?}: the prefix must be a number from 0 to {bits}")
            }
            NetworkError::HostBits { text, prefix } => write!(
                f,
                "{text:?} has bits set past its /{prefix} prefix; write the network's first address"
            ),
        }
    }
}

impl std::error::Error for NetworkError {}

/// One address, or a block of them in CIDR notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub struct Network {
    base: IpAddr,
    prefix: u8,
}

impl Network {
    /// `ADDRESS` or `ADDRESS/PREFIX`; host bits past the prefix are refused, so a typo such
    /// as `10.0.0.1/8` is not silently read as `10.0.0.0/8`.
    pub fn parse(text: &str) -> Result<Network, NetworkError> {
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let base: IpAddr = addr
            .trim()
            .parse()
            .map_err(|_| NetworkError::NotAnAddress(text.to_string()))?;
        let bits = if base.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => bits,
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= bits).ok_or_else(|| {
                NetworkError::BadPrefix {
                    text: text.to_string(),
                    bits,
                }
            })?,
        };
        let network = Network { base, prefix };
        if network.masked(base) != bits_of(base) {
            return Err(NetworkError::HostBits {
                text: text.to_string(),
                prefix,
            });
        }
        Ok(network)
    }

    /// Whether `ip` is in the network. An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`, as
    /// a dual-stack listener reports it) is read as the IPv4 address.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        ip.is_ipv4() == self.base.is_ipv4() && self.masked(ip) == bits_of(self.base)
    }

    /// `ip`'s bits with those past the prefix cleared.
    fn masked(&self, ip: IpAddr) -> u128 {
        let bits: u32 = if ip.is_ipv4() { 32 } else { 128 };
        let host = bits - u32::from(self.prefix);
        let mask = if host >= 128 {
            0
        } else {
            (u128::MAX << host) & (u128::MAX >> (128 - bits))
        };
        bits_of(ip) & mask
    }
}

fn bits_of(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u128::from(u32::from(v4)),
        IpAddr::V6(v6) => u128::from(v6),
    }
}

fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

impl TryFrom<String> for Network {
    type Error = NetworkError;

    fn try_from(text: String) -> Result<Network, NetworkError> {
        Network::parse(&text)
    }
}

impl From<Network> for String {
    fn from(n: Network) -> String {
        let full = if n.base.is_ipv4() { 32 } else { 128 };
        if n.prefix == full {
            n.base.to_string()
        } else {
            format!("{}/{}", n.base, n.prefix)
        }
    }
}

/// The client's address: the connection's `peer`, unless the peer is a trusted proxy and
/// `forwarded` (the `X-Forwarded-For` values, in order) names others. Then it is the nearest
/// address in the chain that is not a trusted proxy, read from the right, since each proxy
/// appends the address it was reached from and only the trusted ones' additions are true; when
/// every address is a trusted proxy, the first. A chain that does not read is ignored.
pub fn client_address<'a>(
    peer: IpAddr,
    forwarded: impl Iterator<Item = &'a str>,
    trusted: &[Network],
) -> IpAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|n| n.contains(ip));
    if !is_trusted(peer) {
        return canonical(peer);
    }
    let chain: Option<Vec<IpAddr>> = forwarded
        .flat_map(|value| value.split(','))
        .map(|part| part.trim().parse::<IpAddr>().ok().map(canonical))
        .collect();
    let Some(chain) = chain.filter(|c| !c.is_empty()) else {
        return canonical(peer);
    };
    chain
        .iter()
        .rev()
        .find(|ip| !is_trusted(**ip))
        .or(chain.first())
        .copied()
        .unwrap_or(canonical(peer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn networks_read_addresses_and_cidr_blocks_and_refuse_the_rest() {
        let block = Network::parse("10.0.0.0/8").unwrap();
        assert!(block.contains(ip("10.200.3.4")));
        assert!(!block.contains(ip("11.0.0.1")));
        assert!(block.contains(ip("::ffff:10.1.2.3")), "a mapped address");
        let one = Network::parse("192.0.2.7").unwrap();
        assert!(one.contains(ip("192.0.2.7")));
        assert!(!one.contains(ip("192.0.2.8")));
        let v6 = Network::parse("fd00::/8").unwrap();
        assert!(v6.contains(ip("fd12::1")));
        assert!(!v6.contains(ip("fe80::1")));
        assert!(Network::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
        for bad in ["10.0.0.1/8", "10.0.0.0/33", "proxy", "10.0.0.0/x", ""] {
            assert!(Network::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(String::from(block), "10.0.0.0/8");
        assert_eq!(String::from(one), "192.0.2.7");
    }

    #[test]
    fn the_forwarded_chain_is_read_only_from_a_trusted_peer() {
        let trusted = [Network::parse("10.0.0.0/8").unwrap()];
        let chain = ["203.0.113.9, 198.51.100.1, 10.0.0.2"];
        assert_eq!(
            client_address(ip("10.0.0.1"), chain.into_iter(), &trusted),
            ip("198.51.100.1"),
            "the nearest untrusted address: what the trusted proxy saw"
        );
        assert_eq!(
            client_address(ip("192.0.2.1"), chain.into_iter(), &trusted),
            ip("192.0.2.1"),
            "an untrusted peer's header is ignored"
        );
        assert_eq!(
            client_address(ip("10.0.0.1"), ["10.0.0.3"].into_iter(), &trusted),
            ip("10.0.0.3"),
            "only proxies: the first"
        );
        assert_eq!(
            client_address(ip("10.0.0.1"), ["nonsense, 1.2.3.4"].into_iter(), &trusted),
            ip("10.0.0.1"),
            "a chain that does not read"
        );
        assert_eq!(
            client_address(ip("10.0.0.1"), std::iter::empty(), &trusted),
            ip("10.0.0.1")
        );
        assert_eq!(
            client_address(
                ip("10.0.0.1"),
                ["198.51.100.1", "203.0.113.5"].into_iter(),
                &trusted
            ),
            ip("203.0.113.5"),
            "several headers are one chain"
        );
    }
}
