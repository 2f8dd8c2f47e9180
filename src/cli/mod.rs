//! Owns the command line: `serve`, `init`, the `admin` panel and the `sim` controls, exactly as
//! the operator document names them (the grammar in `args.rs`, the `admin` and `sim` commands
//! in `admin.rs`, `serve` in `serve.rs`, the commands on the data folder's files in
//! `files.rs`, writing lines in `print.rs`). Each admin/sim command prints one JSON object on
//! stdout; failures (usage errors included) print `{"error": ...}` on stdout and a sentence on
//! stderr, and exit non-zero; a closed stdout ends a command quietly with exit code 141. An
//! operation's error becomes its sentence here ([`Failure`]), through one exhaustive match;
//! sentences say what is wrong (file, key, line), never "internal error" for an operator's
//! mistake.

mod admin;
mod args;
mod files;
mod mcp;
mod print;
mod serve;
mod setup;

use std::fmt;
use std::process::ExitCode;

use clap::Parser;
use serde_json::{json, Value};

use crate::config::{Config, ConfigError};
use crate::db::{Open, OpenError};
use crate::ops::{OpsError, Owned};
use crate::platform::PlatformError;
use crate::services::Services;
use crate::store::StoreError;
use args::{Cli, Command, ConfigCmd};

pub use args::VERSION;

/// Why a command failed; `Display` is the sentence the operator reads.
#[derive(Debug)]
pub enum Failure {
    /// The operation refused or failed.
    Ops(OpsError),
    /// The operation's answer did not become JSON.
    Answer(serde_json::Error),
    /// A file could not be read or written, or the terminal's answers read.
    Io {
        what: String,
        source: std::io::Error,
    },
    /// The configuration (as a command would write it) does not load.
    Config(Box<ConfigError>),
    /// The config file's text could not be edited.
    Edit {
        file: std::path::PathBuf,
        error: Box<toml_edit::TomlError>,
    },
    /// The database could not be opened or created.
    Open(Box<OpenError>),
}

impl From<OpsError> for Failure {
    fn from(e: OpsError) -> Self {
        Failure::Ops(e)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Ops(OpsError::Invalid(e)) => f.write_str(&e.message),
            Failure::Ops(OpsError::NotFound) => f.write_str("no such campaign"),
            Failure::Ops(OpsError::RuleNotFound) => f.write_str("no such rule"),
            Failure::Ops(OpsError::NotYours(Owned::Key)) => f.write_str("no such key"),
            Failure::Ops(OpsError::NotYours(Owned::Task)) => f.write_str("no such task"),
            Failure::Ops(OpsError::Refused(r)) => f.write_str(r.sentence()),
            Failure::Ops(OpsError::Funds(r)) => f.write_str(&r.sentence()),
            Failure::Ops(OpsError::Media(r)) => f.write_str(&r.sentence()),
            Failure::Ops(OpsError::BudgetUnchanged) => {
                f.write_str("the platform took the top-up but the budget did not move")
            }
            Failure::Ops(OpsError::UnknownAdIds(missing)) => {
                write!(f, "these are not live campaigns of the cabinet: {missing:?}")
            }
            Failure::Ops(OpsError::Platform(PlatformError::Unreachable(cause))) => {
                write!(f, "{cause}")
            }
            Failure::Ops(OpsError::Platform(e)) => write!(f, "the platform refused: {e}"),
            Failure::Ops(OpsError::Store(StoreError::Busy)) => f.write_str(
                "the database is locked by another process (the server or another command); nothing was done, try again",
            ),
            Failure::Ops(OpsError::QueueFull { limit }) => {
                write!(f, "the cabinet already has {limit} create tasks queued")
            }
            Failure::Ops(OpsError::Store(e)) => write!(f, "internal error: {e}"),
            Failure::Ops(OpsError::Internal(e)) => write!(f, "internal error: {e}"),
            Failure::Answer(e) => write!(f, "internal error: {e}"),
            Failure::Io { what, source } => write!(f, "cannot read or write {what}: {source}"),
            Failure::Config(e) => write!(f, "{e}"),
            Failure::Edit { file, error } => {
                write!(f, "config file {}: {error}", file.display())
            }
            Failure::Open(e) => write!(f, "{e}"),
        }
    }
}

/// The next line of `input` (stdin, where passwords and tokens are piped in), without its line
/// ending; a failure to read names `param`, the flag that asked for it.
fn stdin_line(input: &mut impl std::io::BufRead, param: &str) -> Result<String, OpsError> {
    let mut line = String::new();
    input
        .read_line(&mut line)
        .map_err(|e| crate::ops::bad(param, format!("cannot read stdin: {e}")))?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

/// Prints a command's answer as the operator document fixes it and returns the exit code.
fn emit(result: Result<Value, Failure>) -> ExitCode {
    match result {
        Ok(value) => emit_value(value),
        Err(e) => fail(e),
    }
}

fn emit_value(value: Value) -> ExitCode {
    print::out(value);
    ExitCode::SUCCESS
}

/// Prints a failure: `{"error": sentence}` on stdout, the sentence on stderr; exit 1.
fn fail(sentence: impl fmt::Display) -> ExitCode {
    let sentence = sentence.to_string();
    print::out(json!({ "error": sentence }));
    print::err(format_args!("adcab: {sentence}"));
    ExitCode::FAILURE
}

/// Entry point of the binary: parses the command line (a usage error is answered like any
/// other failure, as JSON, with exit code 2) and runs the command.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.render().to_string();
            let sentence = text
                .lines()
                .take_while(|line| !line.trim().is_empty())
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
                .trim_start_matches("error: ")
                .to_string();
            print::out(json!({ "error": sentence }));
            print::err(text.trim_end());
            return ExitCode::from(2);
        }
    };
    for warning in crate::config::env_warnings() {
        print::err(format_args!("adcab: warning: {warning}"));
    }
    if let Command::Setup(args) = &cli.command {
        return emit(setup::setup(cli.config.as_deref(), args));
    }
    let config = match Config::load(cli.config.as_deref()) {
        Ok(config) => config,
        Err(e) => return fail(e.to_string()),
    };
    let how = match cli.command {
        Command::Config(ConfigCmd::Show) => return emit(Ok(config.shown())),
        Command::Check { deep } => return files::check(&config, deep),
        Command::Backup { to } => return files::backup(&config, &to),
        Command::Restore { from } => return files::restore(&config, &from),
        Command::Setup(_) => unreachable!("answered before the config is loaded"),
        Command::Serve => return serve::serve(config),
        Command::Mcp(args) => return mcp::mcp(config, &args),
        Command::Init => Open::Create,
        Command::Admin(_) | Command::Sim(_) => Open::Existing,
    };
    let services = match Services::open(config, how) {
        Ok(services) => services,
        Err(e) => return fail(e.to_string()),
    };
    match &cli.command {
        Command::Init => emit(Ok(json!({
            "database": services.db.path().display().to_string(),
            "schema": crate::db::schema::version(),
        }))),
        Command::Admin(cmd) => emit(admin::admin(&services, cmd)),
        Command::Sim(cmd) => emit(admin::sim(&services, cmd)),
        Command::Serve
        | Command::Mcp(_)
        | Command::Config(_)
        | Command::Check { .. }
        | Command::Backup { .. }
        | Command::Restore { .. }
        | Command::Setup(_) => unreachable!("answered before the database is opened"),
    }
}
