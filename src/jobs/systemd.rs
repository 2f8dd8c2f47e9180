//! Owns the service manager's protocol (`sd_notify`): under systemd with `Type=notify`, `serve`
//! says `READY=1` once it answers, `WATCHDOG=1` at half the unit's `WatchdogSec` while its
//! database answers, and `STOPPING=1` when it starts to shut down. Without `NOTIFY_SOCKET`
//! every call does nothing.

use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::time::Duration;

use tokio::sync::watch;

use crate::services::Services;

/// Sends `state` to the service manager, if one listens. Failures are logged, never fatal.
pub fn notify(state: &str) {
    let Some(socket) = std::env::var_os("NOTIFY_SOCKET") else {
        return;
    };
    let sent = address(&socket.to_string_lossy()).and_then(|addr| {
        let sock = UnixDatagram::unbound()?;
        sock.send_to_addr(state.as_bytes(), &addr)
    });
    if let Err(e) = sent {
        tracing::warn!(error = %e, state, "cannot notify the service manager");
    }
}

/// The socket's address: a path, or (starting with `@`) a Linux abstract name.
fn address(socket: &str) -> std::io::Result<SocketAddr> {
    match socket.strip_prefix('@') {
        Some(name) => {
            use std::os::linux::net::SocketAddrExt;
            SocketAddr::from_abstract_name(name.as_bytes())
        }
        None => SocketAddr::from_pathname(socket),
    }
}

/// The watchdog's interval when the manager asked for one for this process.
fn watchdog_interval() -> Option<Duration> {
    let usec: u64 = std::env::var("WATCHDOG_USEC").ok()?.parse().ok()?;
    if let Ok(pid) = std::env::var("WATCHDOG_PID") {
        if pid.parse::<u32>().ok()? != std::process::id() {
            return None;
        }
    }
    (usec > 0).then(|| Duration::from_micros(usec))
}

/// Pets the watchdog at half its interval, each time after the database answered a read,
/// until `stop` turns true. A hung process stops petting, and systemd restarts it.
pub async fn watchdog(services: Services, mut stop: watch::Receiver<bool>) {
    let Some(interval) = watchdog_interval() else {
        return;
    };
    loop {
        tokio::select! {
            _ = tokio::time::sleep(interval / 2) => {}
            _ = stop.changed() => return,
        }
        let alive = services
            .db
            .read(|c| Ok::<_, crate::store::StoreError>(c.query_row("SELECT 1", [], |_| Ok(()))?))
            .await;
        match alive {
            Ok(()) => notify("WATCHDOG=1"),
            Err(e) => {
                tracing::warn!(error = %e, "the database did not answer; not petting the watchdog")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_reaches_a_socket_named_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let listener = UnixDatagram::bind(&path).unwrap();
        let addr = address(path.to_str().unwrap()).unwrap();
        UnixDatagram::unbound()
            .unwrap()
            .send_to_addr(b"READY=1", &addr)
            .unwrap();
        let mut buf = [0u8; 16];
        let n = listener.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"READY=1");
        use std::os::linux::net::SocketAddrExt;
        assert!(address("@adcab-test").unwrap().as_abstract_name().is_some());
    }
}
