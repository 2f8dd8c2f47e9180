//! Owns starting the real server (HTTP, task worker, scheduler, webhook sender) inside this
//! process on port 0, and stopping it; shared by the integration tests and the benchmarks.

use adcab::Services;

/// The server on a port of its own, serving until dropped.
pub struct Server {
    /// The API's base URL, `http://127.0.0.1:PORT/api/v1`.
    pub base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Starts serving `services` and returns once start-up (recovery, the scheduler's starting
    /// hour) is done and requests are answered.
    pub fn start(services: Services) -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
        listener.set_nonblocking(true).expect("nonblocking");
        let base = format!("http://{}/api/v1", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                adcab::run(services, listener, async {
                    let _ = stopped.await;
                })
                .await
                .expect("server run");
            });
        });
        // The first answer means start-up is done and requests are served.
        let _ = ureq::get(&format!("{base}/targeting")).call();
        Server {
            base,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

/// Stops the server: in-flight requests and background steps finish first.
impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
