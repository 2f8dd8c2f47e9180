//! Owns `adcab mcp`: reads the API key from stdin's first line, opens the database and serves
//! one MCP session on the rest of stdin and on stdout (`mcp::stdio`), logging to stderr only:
//! stdout carries protocol messages and nothing else, even when the command fails.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use clap::Args;

use super::print;
use crate::config::Config;
use crate::db::Open;
use crate::domain::money::Money;
use crate::mcp::{stdio, Guards};
use crate::services::Services;

/// `adcab mcp`'s flags.
#[derive(Args, Debug)]
pub struct McpArgs {
    /// Read the API key from the first line of stdin (required: a key is never a flag).
    #[arg(long, required = true)]
    pub key_stdin: bool,
    /// Refuse every write tool in this session (read tools only).
    #[arg(long)]
    pub read_only: bool,
    /// The most money this session's writes may move in all (top-ups, and bid raises by
    /// their increase), in the cabinets' currency units, e.g. 50.
    #[arg(long, value_name = "DEC", value_parser = money)]
    pub max_money: Option<Money>,
}

fn money(text: &str) -> Result<Money, String> {
    Money::parse(text.trim(), 6)
        .map_err(|_| "must be an amount of at least 0, e.g. 50 or 12.5".to_string())
}

/// Logs to standard error (text), at `[log] level` unless `RUST_LOG` says otherwise.
fn init_logging(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(&config.log.level))
        .unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// Runs `adcab mcp`; failures are sentences on stderr (exit 1), never a line on stdout.
pub fn mcp(config: Config, args: &McpArgs) -> ExitCode {
    init_logging(&config);
    let fail = |sentence: &dyn std::fmt::Display| {
        print::err(format_args!("adcab: {sentence}"));
        ExitCode::FAILURE
    };
    let guards = Guards {
        read_only: args.read_only,
        max_money: args.max_money,
    };
    let services = match Services::open(config, Open::Existing) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut key = String::new();
    if let Err(e) = input.read_line(&mut key) {
        return fail(&format!("cannot read the key from stdin: {e}"));
    }
    let key = key.trim_end_matches(['\n', '\r']);
    match stdio::serve(&services, key, guards, input, std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}
