//! Owns the transport under hyper: the accept loop (a cap on connections served at once, a
//! back-off when accepting fails, as it does when the process runs out of file descriptors),
//! each connection's deadlines (a request head must arrive in time, an answer must be taken
//! in time), and the spec's envelope in place of the bare answers hyper writes by itself for
//! requests it cannot parse. It knows nothing of routes or keys.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Sleep;

use super::front::{handle, Faces};
use crate::api::error::ApiError;
use crate::api::response;
use crate::http::{self, Surface};

/// How long in-flight requests may take to finish after shutdown starts.
const DRAIN: Duration = Duration::from_secs(10);
/// Connections over the cap that are told "busy" at once; beyond these they are just closed.
const REFUSALS: usize = 64;
/// The most a connection buffers of what it reads (hyper's default is ~400 KB): a request
/// head must fit, and a stalled upload holds no more than this in hyper.
const READ_BUFFER: usize = 128 * 1024;
/// How long a refused connection is given to take its 503.
const REFUSAL_TIME: Duration = Duration::from_secs(1);
/// Longest pause between two attempts to accept when accepting fails.
const MAX_BACKOFF: Duration = Duration::from_secs(1);
/// How long a closing connection goes on taking (and dropping) what the client still sends,
/// so that the kernel does not answer unread bytes with a reset that destroys the answer in
/// flight (an early 401 or 413 to an upload, an error to a request hyper could not parse).
const LINGER: Duration = Duration::from_secs(2);

/// Serves connections from `listener` until `shutdown` resolves, then lets in-flight requests
/// finish (for at most [`DRAIN`]).
pub async fn serve(
    listener: TcpListener,
    faces: Arc<Faces>,
    surface: Surface,
    shutdown: impl Future<Output = ()>,
) {
    let server = &faces.state.services.config.server;
    let slots = Arc::new(Semaphore::new(server.max_connections.max(1)));
    let refusals = Arc::new(Semaphore::new(REFUSALS));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_millis(server.header_timeout_ms))
        .max_buf_size(READ_BUFFER);
    let write_timeout = Duration::from_millis(server.write_timeout_ms);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut backoff = Duration::ZERO;
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = &mut shutdown => break,
        };
        let (stream, peer) = match stream {
            Ok((stream, peer)) => {
                backoff = Duration::ZERO;
                (stream, peer.ip())
            }
            Err(e) => {
                backoff = (backoff * 2).clamp(Duration::from_millis(5), MAX_BACKOFF);
                tracing::warn!(error = %e, pause_ms = backoff.as_millis() as u64, "accept failed; pausing");
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => continue,
                    _ = &mut shutdown => break,
                }
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refuse(stream, &refusals);
            continue;
        };
        let faces = faces.clone();
        let service = service_fn(move |req| {
            let faces = faces.clone();
            async move { Ok::<_, std::convert::Infallible>(handle(faces, req, surface, peer).await) }
        });
        // Answers go out whole at once; Nagle's delay would only hold back their last segment.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let io = TokioIo::new(Guarded::new(stream, write_timeout));
        let conn = graceful.watch(builder.serve_connection(io, service));
        tokio::spawn(async move {
            let _slot = slot;
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("in-flight requests did not finish within {DRAIN:?}");
    }
}

/// Answers a connection over the cap with `503 SERVICE_UNAVAILABLE` and closes it; when too
/// many are being refused already, just closes it.
fn refuse(mut stream: TcpStream, refusals: &Arc<Semaphore>) {
    let Ok(permit) = refusals.clone().try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        let _permit = permit;
        let answer = raw_answer(&ApiError::Busy, &http::request_id());
        let _ = tokio::time::timeout(REFUSAL_TIME, async {
            stream.write_all(&answer).await?;
            stream.shutdown().await?;
            let mut sink = [0u8; 4096];
            while stream.read(&mut sink).await? > 0 {}
            Ok::<_, io::Error>(())
        })
        .await;
    });
}

/// A whole HTTP/1.1 answer carrying the error envelope, for the connection to close after.
pub fn raw_answer(e: &ApiError, request_id: &str) -> Vec<u8> {
    let reply = response::error(e, request_id);
    let body = reply.body;
    let mut head = format!(
        "HTTP/1.1 {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-request-id: {request_id}\r\nconnection: close\r\n",
        reply.status,
        body.len()
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut answer = head.into_bytes();
    answer.extend_from_slice(&body);
    answer
}

/// The error of a bare answer hyper wrote for a request it could not parse.
fn parse_error(head: &[u8]) -> ApiError {
    match head.get(9..12) {
        Some(b"414") => ApiError::UriTooLong,
        Some(b"431") => ApiError::HeadersTooLarge,
        _ => ApiError::BadRequest {
            why: "the request line or a header is malformed".into(),
        },
    }
}

/// Whether `buf` starts an error answer hyper wrote by itself: every answer of the service
/// carries `x-request-id`; hyper's own (400, 414, 431 on a request it cannot parse) do not.
fn is_bare_error(buf: &[u8]) -> bool {
    buf.starts_with(b"HTTP/1.")
        && matches!(buf.get(9), Some(b'4' | b'5'))
        && !buf
            .windows(13)
            .any(|w| w.eq_ignore_ascii_case(b"x-request-id:"))
}

/// How an HTTP/2 connection starts. This server speaks HTTP/1.1; hyper would end such a
/// connection without a word, so the preface is made to read as the malformed HTTP/1 request
/// line it is, which is answered `400 BAD_REQUEST` like any other.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n";

/// A connection's stream with a deadline on every write and the envelope swapped in for
/// hyper's bare error answers.
struct Guarded {
    inner: TcpStream,
    /// Nothing has been read yet (the HTTP/2 preface is looked for in the first bytes).
    fresh: bool,
    write_timeout: Duration,
    /// Running while a write waits for the client to take bytes.
    stall: Option<Pin<Box<Sleep>>>,
    /// The answer written instead of hyper's bare one, and how much of it is out.
    replaced: Option<(Vec<u8>, usize)>,
    /// Set once the write side is shut: the lingering close is under way until it fires.
    linger: Option<Pin<Box<Sleep>>>,
}

impl Guarded {
    fn new(inner: TcpStream, write_timeout: Duration) -> Guarded {
        Guarded {
            inner,
            fresh: true,
            write_timeout,
            stall: None,
            replaced: None,
            linger: None,
        }
    }

    /// A write made no progress: pending until the deadline, then an error that ends the
    /// connection.
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.write_timeout;
        let stall = self
            .stall
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stall.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client did not take the answer in time",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progressed<T>(&mut self, outcome: io::Result<T>) -> Poll<io::Result<T>> {
        self.stall = None;
        Poll::Ready(outcome)
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let outcome = Pin::new(&mut this.inner).poll_read(cx, buf);
        if this.fresh && buf.filled().len() > before {
            this.fresh = false;
            let read = &mut buf.filled_mut()[before..];
            if read.starts_with(H2_PREFACE) {
                read[H2_PREFACE.len() - 5] = b'0';
            }
        }
        outcome
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.replaced.is_none() && is_bare_error(buf) {
            let answer = raw_answer(&parse_error(buf), &http::request_id());
            this.replaced = Some((answer, 0));
        }
        let Some((answer, sent)) = this.replaced.as_mut() else {
            return match Pin::new(&mut this.inner).poll_write(cx, buf) {
                Poll::Ready(outcome) => this.progressed(outcome),
                Poll::Pending => this.stalled(cx),
            };
        };
        while *sent < answer.len() {
            match Pin::new(&mut this.inner).poll_write(cx, &answer[*sent..]) {
                Poll::Ready(Ok(0)) => return this.progressed(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    *sent += n;
                    this.stall = None;
                }
                Poll::Ready(Err(e)) => return this.progressed(Err(e)),
                Poll::Pending => return this.stalled(cx),
            }
        }
        Poll::Ready(Ok(buf.len()))
    }

    /// Hands hyper's head and body to the socket together, without hyper first copying the
    /// body behind the head; a bare error answer (one head) goes through `poll_write`.
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first = bufs
            .iter()
            .find(|b| !b.is_empty())
            .map_or(&[][..], |b| &**b);
        if self.replaced.is_some() || is_bare_error(first) {
            return self.poll_write(cx, first);
        }
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(outcome) => this.progressed(outcome),
            Poll::Pending => this.stalled(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Ready(outcome) => this.progressed(outcome),
            Poll::Pending => this.stalled(cx),
        }
    }

    /// Shuts the write side, then lingers: reads and drops what the client still sends until
    /// it closes too or [`LINGER`] passes.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.linger.is_none() {
            match Pin::new(&mut this.inner).poll_shutdown(cx) {
                Poll::Ready(Ok(())) => this.linger = Some(Box::pin(tokio::time::sleep(LINGER))),
                other => return other,
            }
        }
        let mut sink = [0u8; 8192];
        loop {
            if let Some(linger) = this.linger.as_mut() {
                if linger.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Ok(()));
                }
            }
            let mut buf = ReadBuf::new(&mut sink);
            match Pin::new(&mut this.inner).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if buf.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => continue,
                Poll::Ready(Err(_)) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_error_answers_are_replaced() {
        assert!(is_bare_error(
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n"
        ));
        assert!(is_bare_error(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n"
        ));
        assert!(!is_bare_error(b"HTTP/1.1 100 Continue\r\n\r\n"));
        assert!(!is_bare_error(
            b"HTTP/1.1 401 Unauthorized\r\nx-request-id: req_1\r\n\r\n{}"
        ));
        assert!(!is_bare_error(b"{\"success\":false}"));
        assert_eq!(
            parse_error(b"HTTP/1.1 414 URI Too Long\r\n"),
            ApiError::UriTooLong
        );
    }

    #[test]
    fn a_raw_answer_is_a_whole_envelope() {
        let answer = String::from_utf8(raw_answer(&ApiError::Busy, "req_x")).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(
            head.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
            "{head}"
        );
        assert!(head.contains("retry-after: 2"), "{head}");
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["code"], "SERVICE_UNAVAILABLE");
        assert_eq!(body["request_id"], "req_x");
    }
}
