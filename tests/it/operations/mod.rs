//! The operator's side of a running service: metrics that move with their events, retention
//! that keeps every total exact, backups taken under writes and restored, the pre-migration
//! backup, a database of the previous schema migrated (cabinet types checked by the code), and
//! the operator commands (`admin key list` for everyone, `admin webhook resend`).

mod backup;
mod cabinet_types;
mod commands;
mod kept;
mod metrics;
mod retention;

/// Runs an async service function from a test.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}
