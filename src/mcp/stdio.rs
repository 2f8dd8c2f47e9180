//! Owns MCP over standard input and output (`adcab mcp --key-stdin`): the key on stdin's first
//! line, then one JSON-RPC message per line each way, until stdin closes. Nothing but protocol
//! messages is ever written to stdout; what the operator reads goes to stderr.

use std::io::{BufRead, Write};
use std::sync::Arc;

use serde_json::Value;

use super::session::{self, Guards, Session};
use crate::auth::{self, AuthFailure, Principal};
use crate::services::Services;

/// The JSON-RPC error code of a message refused because the key no longer opens the service
/// (revoked, or its holder's access lost since the session began).
const KEY_REFUSED: i64 = -32001;

/// Why a stdio session could not run.
#[derive(Debug)]
pub enum StdioError {
    /// The key on the first line is refused; the sentence says why.
    Key(String),
    /// Standard input or output failed.
    Io(std::io::Error),
}

impl std::fmt::Display for StdioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StdioError::Key(sentence) => f.write_str(sentence),
            StdioError::Io(e) => write!(f, "cannot read or write the MCP messages: {e}"),
        }
    }
}

fn principal(s: &Services, key: &str) -> Result<Arc<Principal>, String> {
    s.db.read_blocking(|c| auth::authenticate(c, &s.principals, Some(key)))
        .and_then(|p| {
            p.check_access()?;
            Ok(p)
        })
        .map_err(|e| match e {
            AuthFailure::Refused(e) => e.sentence(),
            AuthFailure::Store(e) => {
                tracing::error!(error = %e, "MCP key check failed");
                "the key could not be checked; try again".to_string()
            }
        })
}

/// Serves one session: `key` is checked first (refused: nothing is written to `output`), then
/// each line of `input` is a message, answered on one line of `output`.
pub fn serve(
    s: &Services,
    key: &str,
    guards: Guards,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<(), StdioError> {
    principal(s, key).map_err(StdioError::Key)?;
    let mut session = Session::new(uuid::Uuid::new_v4().to_string(), guards);
    tracing::info!(session = session.id(), "MCP session on stdio");
    for line in input.lines() {
        let line = line.map_err(StdioError::Io)?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Err(_) => Some(session::error(
                Value::Null,
                session::PARSE_ERROR,
                "Parse error",
            )),
            Ok(message) => match principal(s, key) {
                Ok(p) => session.answer(s, &p, message),
                Err(sentence) => message
                    .get("id")
                    .filter(|_| message.get("method").is_some())
                    .map(|id| session::error(id.clone(), KEY_REFUSED, &sentence)),
            },
        };
        if let Some(answer) = answer {
            writeln!(output, "{answer}").map_err(StdioError::Io)?;
            output.flush().map_err(StdioError::Io)?;
        }
    }
    Ok(())
}
