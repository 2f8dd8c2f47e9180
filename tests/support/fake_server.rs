//! Owns serving a test fake over HTTP/1 on 127.0.0.1 and a free port, from a thread with a
//! runtime of its own, until the handle is dropped (calls still hanging are dropped with their
//! connections). Included with `#[path]` by each fake.

use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response};

pub type Resp = Response<Full<Bytes>>;

pub struct FakeServer {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeServer {
    /// Serves every request with `handle`.
    pub fn start<H, F, E>(handle: H) -> FakeServer
    where
        H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
        F: Future<Output = Result<Resp, E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
    {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
        listener.set_nonblocking(true).expect("nonblocking");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                loop {
                    tokio::select! {
                        _ = &mut stopped => break,
                        accepted = listener.accept() => {
                            let Ok((io, _)) = accepted else { continue };
                            let handle = handle.clone();
                            tokio::spawn(async move {
                                let svc = hyper::service::service_fn(handle);
                                let io = hyper_util::rt::TokioIo::new(io);
                                let _ = hyper::server::conn::http1::Builder::new()
                                    .serve_connection(io, svc)
                                    .await;
                            });
                        }
                    }
                }
            });
            rt.shutdown_timeout(Duration::from_millis(100));
        });
        FakeServer {
            url,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub fn respond(status: u16, content_type: &str, body: String) -> Resp {
    Response::builder()
        .status(status)
        .header("Content-Type", content_type)
        .body(Full::new(Bytes::from(body)))
        .expect("response")
}
