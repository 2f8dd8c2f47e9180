//! What the benchmarks share: the real server started in this process, by the same code the
//! integration tests start it with.

#[path = "../../tests/support/server.rs"]
mod server;
pub use server::Server;
