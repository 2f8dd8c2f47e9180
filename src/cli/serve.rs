//! Owns `adcab serve` as a process: its logging (`[log]`: text or JSON lines, the level), the
//! listener, the demo workspace on a first start, and the signals that stop it gracefully.

use std::io::IsTerminal;
use std::process::ExitCode;

use super::{fail, print, Failure};
use crate::config::{Config, LogConfig, LogFormat};
use crate::db::Open;
use crate::services::Services;

/// Logs to standard output: JSON lines or text (colour only on a terminal), at `[log] level`
/// unless `RUST_LOG` says otherwise.
fn init_logging(log: &LogConfig) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(&log.level))
        .unwrap_or_else(|_| "info".into());
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match log.format {
        LogFormat::Json => builder.json().flatten_event(true).init(),
        LogFormat::Text => builder.with_ansi(std::io::stdout().is_terminal()).init(),
    }
}

/// The most threads tokio's blocking pool may start (tokio's default is 512). The pool starts
/// a thread whenever none is counted idle, and a thread that has just finished a piece of work
/// (and given its gate's place to the next) is not counted idle until it is scheduled again:
/// on a loaded machine a burst starts threads well beyond what its gate admits, so only this
/// ceiling bounds the pool. It is what the gates admit at once, plus a margin: platform calls
/// for requests 16, panel operations 16, webhook deliveries 8, webhook Tests 4, password
/// checks 2 and the background loops one each (about 50), and the margin for short work that
/// no gate counts (a file of an upload, a PDF, the health check). Work beyond it waits in the
/// pool's queue for the next thread that finishes. The database has threads of its own (the
/// writer and the readers, `db`), outside the pool.
const BLOCKING_THREADS: usize = 64;

/// How long an idle blocking thread is kept for the next piece of work (tokio's default is
/// 10 s), so threads a burst started go soon after it.
const BLOCKING_KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(1);

/// `adcab serve`: the listener first (a taken address is refused before the database is
/// created or migrated), then the database, logging as `[log]` says, and the API until SIGTERM
/// or SIGINT. A database with a damaged page is refused before `serve` writes to it.
pub fn serve(config: Config) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .thread_keep_alive(BLOCKING_KEEP_ALIVE)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(format!("cannot start the runtime: {e}")),
    };
    let listen = config.server.listen.clone();
    let listener = match runtime.block_on(tokio::net::TcpListener::bind(&listen)) {
        Ok(l) => l,
        Err(e) => return fail(cannot_listen(&listen, &e)),
    };
    let services = match Services::open(config, Open::Create) {
        Ok(services) => services,
        Err(e) => return fail(e.to_string()),
    };
    init_logging(&services.config.log);
    if let Err(e) = services.db.check_integrity() {
        return fail(e.to_string());
    }
    if let Err(e) = services.db.check_writable() {
        return fail(e.to_string());
    }
    runtime.block_on(async move {
        let addr = listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or(listen);
        match crate::app::demo::bootstrap_if_empty(&services) {
            Ok(Some(ws)) => print_demo(&addr, &ws),
            Ok(None) => {}
            Err(e) => return fail(format!("demo bootstrap failed: {}", Failure::from(e))),
        }
        if let Err(e) = crate::run(services, listener, shutdown_signal()).await {
            return fail(e);
        }
        tracing::info!("adcab stopped");
        ExitCode::SUCCESS
    })
}

/// Why `serve` cannot listen on `listen`, naming the setting and its variable, and what to do
/// when the address is taken.
fn cannot_listen(listen: &str, e: &std::io::Error) -> String {
    let what = format!(
        "cannot listen on {listen} (server.listen in the config file, or ADCAB_SERVER_LISTEN)"
    );
    match e.kind() {
        std::io::ErrorKind::AddrInUse => format!(
            "{what}: the address is already in use, by another adcab or another program; stop it, or set another address in server.listen or ADCAB_SERVER_LISTEN"
        ),
        _ => format!("{what}: {e}"),
    }
}

fn print_demo(addr: &str, ws: &crate::app::demo::Workspace) {
    print::out_or_drop(format_args!(
        "adcab: created the demo workspace ({} cabinets).",
        ws.cabinets.len()
    ));
    print::out_or_drop(format_args!("API key (shown once, keep it): {}", ws.key));
    print::out_or_drop(format_args!(
        "Webhook secret (shown once): {}",
        ws.webhook_secret
    ));
    print::out_or_drop(format_args!(
        "Web panel: http://{addr}/login as {} with password {} (shown once; change it with `adcab admin user set --id N --password-stdin`)",
        ws.email, ws.password
    ));
    print::out_or_drop(format_args!(
        "API reference: http://{addr}{}",
        crate::api::docs::DOCS_PATH
    ));
    print::out_or_drop("Try it:");
    print::out_or_drop(format_args!(
        "  curl -s -H 'X-API-Key: {}' http://{addr}/api/v1/account/info",
        ws.key
    ));
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C). The handlers are installed when this is called,
/// before the server answers anything: a signal that arrives once it answers always means a
/// graceful stop, never the default (fatal) action.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{signal, Signal, SignalKind};
    let listen = |kind: SignalKind, name: &str| match signal(kind) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!(error = %e, "cannot listen for {name}");
            None
        }
    };
    let mut term = listen(SignalKind::terminate(), "SIGTERM");
    let mut interrupt = listen(SignalKind::interrupt(), "SIGINT");
    async move {
        async fn received(s: &mut Option<Signal>) {
            match s {
                Some(s) => drop(s.recv().await),
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = received(&mut term) => {}
            _ = received(&mut interrupt) => {}
        }
        tracing::info!("shutting down: finishing in-flight requests");
    }
}
