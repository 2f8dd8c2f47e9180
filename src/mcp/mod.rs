//! Owns the AI assistants' face: a Model Context Protocol server over stdio (`adcab mcp`) and
//! over HTTP (`POST /mcp`) that exposes adcab's operations as tools with the key's rights. A
//! face like the API and the panel: it reads a tool's arguments into the operation's command
//! and calls the operation (`ops`), which does every check, platform call, store write,
//! history entry and event; it never calls another face. The protocol's JSON-RPC messages are
//! answered by hand (`session.rs`); the tools are listed and their writes made in `tools.rs`,
//! their reads answered in `reads.rs`, what they share of their shape is in `shape.rs`, their
//! failures in `error.rs`.

mod error;
pub mod http;
mod reads;
pub mod session;
mod shape;
pub mod stdio;
mod tools;

pub use error::ToolError;
pub use session::{Guards, Session};
