//! Owns naming why a call did not reach the Telegram Ads API: the HTTP client's transport
//! error, and the I/O or TLS error under it, as an [`Unreachable`] cause. It says what
//! happened; whether the call is sent again is the wire's decision, not made here.

use std::error::Error;
use std::io;

use ureq::ErrorKind;

use crate::platform::Unreachable;

/// The cause of a transport failure of a call to `base` (the address used when the error
/// does not carry the URL it failed on).
pub(super) fn cause(t: &ureq::Transport, base: &str) -> Unreachable {
    let io = first_io(t);
    let said = || t.to_string();
    match t.kind() {
        ErrorKind::Dns => Unreachable::Dns(host(t, base)),
        ErrorKind::ConnectionFailed => {
            if let Some(tls) = tls_error(t) {
                return Unreachable::Tls(tls);
            }
            match io.map(io::Error::kind) {
                Some(io::ErrorKind::ConnectionRefused) => Unreachable::Refused(address(t, base)),
                Some(io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock) => Unreachable::Timeout,
                // A TCP connect never ends at the end of a stream: the TLS handshake did, with
                // a server that hung up on it.
                Some(io::ErrorKind::UnexpectedEof) => {
                    Unreachable::Tls("the connection closed during the handshake".into())
                }
                Some(kind) if closed(kind) => Unreachable::Closed(said()),
                Some(_) | None => Unreachable::Other(said()),
            }
        }
        ErrorKind::Io => match io {
            Some(e) => of_io(e),
            None => Unreachable::Other(said()),
        },
        ErrorKind::BadStatus | ErrorKind::BadHeader | ErrorKind::TooManyRedirects => {
            Unreachable::BadAnswer(said())
        }
        ErrorKind::InvalidUrl
        | ErrorKind::UnknownScheme
        | ErrorKind::InsecureRequestHttpsOnly
        | ErrorKind::InvalidProxyUrl
        | ErrorKind::ProxyConnect
        | ErrorKind::ProxyUnauthorized
        | ErrorKind::HTTP => Unreachable::Other(said()),
    }
}

/// The cause of an I/O failure once connected (sending the call, reading the answer).
pub(super) fn of_io(e: &io::Error) -> Unreachable {
    match e.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => Unreachable::Timeout,
        kind if closed(kind) => Unreachable::Closed(e.to_string()),
        io::ErrorKind::InvalidData => Unreachable::BadAnswer(e.to_string()),
        _ => Unreachable::Other(e.to_string()),
    }
}

/// An I/O error kind that means the other side went away.
fn closed(kind: io::ErrorKind) -> bool {
    matches!(
        kind,
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
    )
}

/// The errors under a transport error, outermost first.
fn sources<'a>(t: &'a ureq::Transport) -> impl Iterator<Item = &'a (dyn Error + 'static)> {
    std::iter::successors(t.source(), |e: &&'a (dyn Error + 'static)| (*e).source())
}

fn first_io(t: &ureq::Transport) -> Option<&io::Error> {
    sources(t).find_map(|e| e.downcast_ref::<io::Error>())
}

/// What the TLS library said, when it is what failed. It reports through an I/O error that
/// wraps it (whose `source` skips it), so each I/O error's own content is looked into too.
fn tls_error(t: &ureq::Transport) -> Option<String> {
    sources(t).find_map(|e| {
        let tls = e.downcast_ref::<ureq::rustls::Error>().or_else(|| {
            e.downcast_ref::<io::Error>()
                .and_then(io::Error::get_ref)
                .and_then(|inner| inner.downcast_ref::<ureq::rustls::Error>())
        });
        tls.map(ToString::to_string)
    })
}

/// `host:port` of the URL the call failed on.
fn address(t: &ureq::Transport, base: &str) -> String {
    match t.url() {
        Some(url) => match (url.host_str(), url.port_or_known_default()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_string(),
            (None, _) => base.to_string(),
        },
        None => base.to_string(),
    }
}

fn host(t: &ureq::Transport, base: &str) -> String {
    t.url()
        .and_then(|url| url.host_str().map(str::to_string))
        .unwrap_or_else(|| base.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One call to `url` with a short deadline; its transport error.
    fn failed(url: &str) -> ureq::Transport {
        let agent = ureq::AgentBuilder::new()
            .timeout(std::time::Duration::from_millis(300))
            .build();
        match agent.post(url).send_string("{}") {
            Err(ureq::Error::Transport(t)) => t,
            Err(ureq::Error::Status(status, _)) => panic!("{url} answered {status}"),
            Ok(_) => panic!("{url} answered"),
        }
    }

    #[test]
    fn a_closed_port_is_a_refused_connection_at_its_address() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let url = format!("http://127.0.0.1:{port}/getMe");
        assert_eq!(
            cause(&failed(&url), "unused"),
            Unreachable::Refused(format!("127.0.0.1:{port}"))
        );
    }

    #[test]
    fn a_name_under_invalid_does_not_resolve() {
        let url = "http://adcab-test.invalid/getMe";
        assert_eq!(
            cause(&failed(url), "unused"),
            Unreachable::Dns("adcab-test.invalid".into())
        );
    }

    #[test]
    fn a_listener_that_never_answers_is_a_timeout() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/getMe", listener.local_addr().unwrap());
        assert_eq!(cause(&failed(&url), "unused"), Unreachable::Timeout);
        drop(listener);
    }

    #[test]
    fn a_server_that_does_not_speak_tls_fails_the_handshake() {
        use std::io::Write;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("https://{}/getMe", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            let _ = socket.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
            std::thread::sleep(std::time::Duration::from_millis(100));
        });
        match cause(&failed(&url), "unused") {
            Unreachable::Tls(why) => assert!(!why.is_empty()),
            other => panic!("not a TLS failure: {other:?}"),
        }
        server.join().unwrap();
    }

    #[test]
    fn io_failures_after_connecting_say_what_happened() {
        let of = |kind| of_io(&io::Error::new(kind, "x"));
        assert_eq!(of(io::ErrorKind::TimedOut), Unreachable::Timeout);
        assert_eq!(of(io::ErrorKind::WouldBlock), Unreachable::Timeout);
        assert!(matches!(
            of(io::ErrorKind::ConnectionReset),
            Unreachable::Closed(_)
        ));
        assert!(matches!(
            of(io::ErrorKind::InvalidData),
            Unreachable::BadAnswer(_)
        ));
    }
}
