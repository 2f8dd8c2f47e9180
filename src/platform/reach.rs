//! Owns why the platform could not be reached, said as what it is ([`Unreachable`]: a refused
//! connection, a name that did not resolve, a failed TLS handshake, no answer in time, ...),
//! and what the last call found of the way to the platform ([`Reach`]), which the readiness
//! probe reports. It does not decide which failures are repeated: that is the connector's.

use std::fmt;
use std::time::Duration;

/// Why a call did not reach the platform, or reached it without getting an answer of its API.
/// Whether the call took effect is unknown for every cause but `Refused` and `Dns` (nothing
/// was sent); callers treat them all alike, as "not answered".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreachable {
    /// Nothing accepted the connection at the platform's address (`host:port`).
    Refused(String),
    /// The platform's host name did not resolve (the name).
    Dns(String),
    /// The TLS handshake failed: a certificate refused, or a server that does not speak TLS
    /// (what the TLS library said).
    Tls(String),
    /// No answer within the deadline (or adcab's own store too busy to let the call finish).
    Timeout,
    /// The connection was reset or closed before the answer was complete (what was seen).
    Closed(String),
    /// Something answered, but not the API: a server error, a gateway's page, broken HTTP.
    BadAnswer(String),
    /// Any other failure on the way (a proxy, an address the client cannot use), as the HTTP
    /// client said it.
    Other(String),
}

impl Unreachable {
    /// A short name of the cause, for log fields and metrics labels.
    pub fn name(&self) -> &'static str {
        match self {
            Unreachable::Refused(_) => "refused",
            Unreachable::Dns(_) => "dns",
            Unreachable::Tls(_) => "tls",
            Unreachable::Timeout => "timeout",
            Unreachable::Closed(_) => "closed",
            Unreachable::BadAnswer(_) => "bad_answer",
            Unreachable::Other(_) => "other",
        }
    }

    /// The cause as it follows "The ad platform ...", without the address or the client's
    /// detail: for an API client, who neither configured the platform's address nor can act
    /// on a TLS library's words.
    pub fn brief(&self) -> &'static str {
        match self {
            Unreachable::Refused(_) => "refused the connection",
            Unreachable::Dns(_) => "could not be found (its name did not resolve)",
            Unreachable::Tls(_) => "failed the TLS handshake",
            Unreachable::Timeout => "did not answer in time",
            Unreachable::Closed(_) => "closed the connection before answering",
            Unreachable::BadAnswer(_) => "did not give a usable answer",
            Unreachable::Other(_) => "could not be reached",
        }
    }
}

/// The sentence for the operator and the log: the cause with what it is about.
impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::Refused(addr) => write!(f, "the platform refused the connection ({addr})"),
            Unreachable::Dns(host) => write!(f, "the platform's name did not resolve ({host})"),
            Unreachable::Tls(why) => write!(f, "the TLS handshake with the platform failed: {why}"),
            Unreachable::Timeout => f.write_str("the platform did not answer in time"),
            Unreachable::Closed(why) => {
                write!(
                    f,
                    "the platform closed the connection before answering ({why})"
                )
            }
            Unreachable::BadAnswer(what) => {
                write!(f, "the platform did not give a usable answer ({what})")
            }
            Unreachable::Other(why) => write!(f, "the platform could not be reached: {why}"),
        }
    }
}

/// What the last call found of the way to the platform, and how long ago.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// The platform runs inside adcab (the simulator): there is no way to it that can fail.
    Local,
    /// No call was made since the service started.
    Untried,
    /// The last call got an answer of the platform's API (whatever it said).
    Reached { ago: Duration },
    /// The last call did not, for this reason.
    Failed { cause: Unreachable, ago: Duration },
}

impl Reach {
    /// Whether the platform answered the last call (or cannot fail to).
    pub fn ok(&self) -> bool {
        match self {
            Reach::Local | Reach::Untried | Reach::Reached { .. } => true,
            Reach::Failed { .. } => false,
        }
    }
}

/// The sentence the readiness probe gives.
impl fmt::Display for Reach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reach::Local => f.write_str("the built-in simulator, in adcab's own database"),
            Reach::Untried => f.write_str("not called since the start"),
            Reach::Reached { ago } => {
                write!(f, "the last call, {} s ago, was answered", ago.as_secs())
            }
            Reach::Failed { cause, ago } => {
                write!(f, "the last call, {} s ago, failed: {cause}", ago.as_secs())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_says_what_it_is() {
        let said = |u: Unreachable| u.to_string();
        assert_eq!(
            said(Unreachable::Refused("127.0.0.1:9".into())),
            "the platform refused the connection (127.0.0.1:9)"
        );
        assert_eq!(
            said(Unreachable::Dns("ads.invalid".into())),
            "the platform's name did not resolve (ads.invalid)"
        );
        assert_eq!(
            said(Unreachable::Tls("received corrupt message".into())),
            "the TLS handshake with the platform failed: received corrupt message"
        );
        assert_eq!(
            said(Unreachable::Timeout),
            "the platform did not answer in time"
        );
        assert_eq!(
            Unreachable::Refused("10.0.0.1:443".into()).brief(),
            "refused the connection",
            "the brief form leaves the address out"
        );
    }

    #[test]
    fn only_a_failed_last_call_is_not_ok() {
        let ago = Duration::from_secs(4);
        assert!(Reach::Local.ok() && Reach::Untried.ok() && Reach::Reached { ago }.ok());
        let failed = Reach::Failed {
            cause: Unreachable::Timeout,
            ago,
        };
        assert!(!failed.ok());
        assert_eq!(
            failed.to_string(),
            "the last call, 4 s ago, failed: the platform did not answer in time"
        );
    }
}
