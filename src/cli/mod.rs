//! Owns the command line: `serve`, `init`, the `admin` panel and the `sim` controls, exactly as
//! the operator document names them. Each admin/sim command prints one JSON object on stdout;
//! failures (usage errors included) print `{"error": ...}` on stdout and a sentence on stderr,
//! and exit non-zero. Sentences say what is wrong (file, key, line), never "internal error"
//! for an operator's mistake.

mod files;
mod serve;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde::Serialize;
use serde_json::{json, Value};

use crate::config::Config;
use crate::db::Open;
use crate::domain::access::Plan;
use crate::ops::{
    self, CabinetChange, KeyChange, NewCabinet, NewKey, PanelError, Subscription, TeamAccess,
};
use crate::platform::sim::Fault;
use crate::services::Services;

/// What `adcab --version` prints after the name: the version and the commit it was built from.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("ADCAB_COMMIT"), ")");

/// adcab: self-hosted ad campaign management.
#[derive(Parser, Debug)]
#[command(name = "adcab", version = VERSION)]
pub struct Cli {
    /// Config file (default: ./adcab.toml when it exists, else built-in defaults).
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the HTTP API, task worker, sync scheduler and webhook sender (creates the database
    /// when it is missing).
    Serve,
    /// Create the database (and its folder) when it is missing and bring its schema up to date.
    Init,
    /// The panel: people, cabinets, teams, groups, keys, tasks, history, webhook log.
    #[command(subcommand)]
    Admin(Admin),
    /// Control the built-in platform simulator and the service clock.
    #[command(subcommand)]
    Sim(Sim),
    /// The configuration in effect.
    #[command(subcommand)]
    Config(ConfigCmd),
    /// Check the config file and the database (read-only: schema and integrity) without
    /// starting; exits non-zero when either is wrong.
    Check,
    /// Take a verified backup (database and media) into a new folder, while the server runs.
    Backup {
        #[arg(long)]
        to: PathBuf,
    },
    /// Put a backup folder in place of the database and media; refused while a server runs.
    Restore {
        #[arg(long)]
        from: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
pub enum ConfigCmd {
    /// Print the effective configuration (defaults, file, environment) as JSON, secrets masked.
    Show,
}

#[derive(Subcommand, Debug)]
pub enum Admin {
    /// People and their plans.
    #[command(subcommand)]
    User(UserCmd),
    /// Ad cabinets.
    #[command(subcommand)]
    Cabinet(CabinetCmd),
    /// Agency team members and the cabinets shared with them.
    #[command(subcommand)]
    Member(MemberCmd),
    /// Campaign groups.
    #[command(subcommand)]
    Group(GroupCmd),
    /// API keys.
    #[command(subcommand)]
    Key(KeyCmd),
    /// The write-only ingest token.
    #[command(subcommand)]
    Tracker(TrackerCmd),
    /// Background tasks.
    #[command(subcommand)]
    Task(TaskCmd),
    /// A campaign's change history.
    History {
        #[arg(long)]
        account: i64,
        #[arg(long)]
        ad: i64,
    },
    /// Webhook deliveries.
    #[command(subcommand)]
    Webhook(WebhookCmd),
    /// Automation rules.
    #[command(subcommand)]
    Rule(RuleCmd),
    /// Auto CPM.
    #[command(subcommand)]
    AutoCpm(AutoCpmCmd),
    /// The real ad platform's side of a token.
    #[command(subcommand)]
    Platform(PlatformCmd),
}

#[derive(Subcommand, Debug)]
pub enum PlatformCmd {
    /// What a platform token opens (its account, related accounts, ads); changes nothing.
    Check {
        /// Read the token from standard input (it is never taken on the command line).
        #[arg(long)]
        token_stdin: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum UserCmd {
    /// Add a person.
    Add {
        #[arg(long)]
        email: String,
        #[arg(long, value_enum, default_value_t = Plan::Pro)]
        plan: Plan,
    },
    /// Change a person's plan or subscription.
    Set {
        #[arg(long)]
        id: i64,
        #[arg(long, value_enum)]
        plan: Option<Plan>,
        #[arg(long, value_enum)]
        subscription: Option<Subscription>,
        /// Set the web panel login password, read from the first line of stdin (ends the
        /// person's sessions).
        #[arg(long)]
        password_stdin: bool,
        /// The Telegram chat the person's alerts go to (a chat id), or `none`.
        #[arg(long, allow_hyphen_values = true)]
        telegram_chat: Option<String>,
    },
    /// Every person, with their plan and subscription.
    List,
}

#[derive(Subcommand, Debug)]
pub enum CabinetCmd {
    /// Add a cabinet (opens an account on the platform).
    Add(NewCabinet),
    /// Change a cabinet.
    Set {
        #[arg(long)]
        id: i64,
        #[command(flatten)]
        change: CabinetChange,
    },
    /// Connect the platform account of a token (and with --related every account it
    /// manages) as cabinets, importing their ads.
    Connect {
        #[arg(long)]
        owner: i64,
        /// Read the token from standard input (it is never taken on the command line).
        #[arg(long)]
        token_stdin: bool,
        #[arg(long)]
        related: bool,
    },
    /// Give a connected cabinet a new token (lifts "session expired").
    Reconnect {
        #[arg(long)]
        id: i64,
        /// Read the token from standard input.
        #[arg(long)]
        token_stdin: bool,
    },
    /// Sync a cabinet with its platform now: statuses, settings, counters, balance.
    Sync {
        #[arg(long)]
        id: i64,
    },
    /// Every cabinet (of one owner), with its platform account id when connected.
    List {
        #[arg(long)]
        owner: Option<i64>,
    },
}

#[derive(Subcommand, Debug)]
pub enum MemberCmd {
    /// Share a cabinet with a team member (adds them to the team).
    Add {
        #[arg(long)]
        agency: i64,
        #[arg(long)]
        member: i64,
        #[arg(long)]
        cabinet: i64,
        #[arg(long, value_enum)]
        access: TeamAccess,
    },
    /// Stop sharing one cabinet, or (without --cabinet) remove the member from the team.
    Remove {
        #[arg(long)]
        agency: i64,
        #[arg(long)]
        member: i64,
        #[arg(long)]
        cabinet: Option<i64>,
    },
}

#[derive(Subcommand, Debug)]
pub enum GroupCmd {
    /// Add a group to a cabinet.
    Add {
        #[arg(long)]
        cabinet: i64,
        #[arg(long)]
        name: String,
        /// #RRGGBB.
        #[arg(long)]
        color: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum KeyCmd {
    /// Create a key; the key text is printed once.
    Create(NewKey),
    /// Change a key.
    Set {
        #[arg(long)]
        id: i64,
        #[command(flatten)]
        change: KeyChange,
    },
    /// Revoke a key; it stops working on the next request.
    Revoke {
        #[arg(long)]
        id: i64,
    },
    /// Replace the key's webhook signing secret.
    RotateSecret {
        #[arg(long)]
        id: i64,
    },
    /// Send a `ping` webhook now (the Test button).
    Ping {
        #[arg(long)]
        id: i64,
    },
    /// A person's keys (an agency owner sees the team's); without --user, everyone's.
    List {
        #[arg(long)]
        user: Option<i64>,
    },
}

#[derive(Subcommand, Debug)]
pub enum TrackerCmd {
    /// Issue a new ingest token; the old one stops working.
    Rotate {
        #[arg(long)]
        user: i64,
    },
}

#[derive(Subcommand, Debug)]
pub enum TaskCmd {
    /// Cancel a task.
    Cancel {
        #[arg(long)]
        id: i64,
    },
    /// Resume a paused task.
    Resume {
        #[arg(long)]
        id: i64,
    },
}

#[derive(Subcommand, Debug)]
pub enum RuleCmd {
    /// Every rule of every cabinet, or of one owner's cabinets, in the order they run.
    List {
        #[arg(long)]
        owner: Option<i64>,
    },
}

#[derive(Subcommand, Debug)]
pub enum AutoCpmCmd {
    /// A campaign's Auto CPM decisions, oldest first, with what each read.
    Log {
        #[arg(long)]
        account: i64,
        #[arg(long)]
        ad: i64,
    },
}

#[derive(Subcommand, Debug)]
pub enum WebhookCmd {
    /// Recent deliveries of a key.
    Log {
        #[arg(long)]
        key: i64,
        #[arg(long)]
        limit: Option<i64>,
    },
    /// Send a failed delivery again (new delivery id, signed with the key's current secret).
    Resend {
        #[arg(long)]
        delivery: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum Sim {
    /// Move the service clock forward.
    Advance {
        #[arg(long)]
        seconds: i64,
    },
    /// Decide a pending review.
    Review {
        #[arg(long)]
        account: i64,
        #[arg(long)]
        ad: i64,
        #[arg(long, conflicts_with = "decline", required_unless_present = "decline")]
        approve: bool,
        #[arg(long)]
        decline: bool,
        #[arg(long)]
        reason: Option<String>,
    },
    /// Make an account's next platform calls time out, be refused, be ignored (acknowledged,
    /// nothing done) or panic (a platform bug).
    Fail {
        #[arg(long)]
        account: i64,
        #[arg(long, value_enum)]
        next: Fault,
        #[arg(long, default_value_t = 1)]
        count: u32,
    },
    /// Print the service clock.
    Now,
}

/// A panel answer as the JSON object the command prints.
fn printed<T: Serialize>(answer: Result<T, PanelError>) -> Result<Value, PanelError> {
    serde_json::to_value(answer?)
        .map_err(|e| PanelError::Store(crate::store::StoreError::Failed(e.to_string())))
}

/// The first line of stdin, without its line ending: a password piped in, never on the
/// command line (where `ps` would show it).
fn read_password() -> Result<String, PanelError> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| ops::bad("password", format!("cannot read stdin: {e}")))?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

/// Runs one admin command.
pub fn admin(s: &Services, cmd: &Admin) -> Result<Value, PanelError> {
    match cmd {
        Admin::User(UserCmd::Add { email, plan }) => printed(ops::user_add(s, email, *plan)),
        Admin::User(UserCmd::List) => printed(ops::user_list(s)),
        Admin::User(UserCmd::Set {
            id,
            plan,
            subscription,
            password_stdin,
            telegram_chat,
        }) => {
            let password = password_stdin.then(read_password).transpose()?;
            if let Some(chat) = telegram_chat {
                ops::user_set_chat(s, *id, chat)?;
            }
            printed(ops::user_set(
                s,
                *id,
                *plan,
                *subscription,
                password.as_deref(),
            ))
        }
        Admin::Cabinet(CabinetCmd::Add(new)) => printed(ops::cabinet_add(s, new)),
        Admin::Cabinet(CabinetCmd::Set { id, change }) => printed(ops::cabinet_set(s, *id, change)),
        Admin::Member(MemberCmd::Add {
            agency,
            member,
            cabinet,
            access,
        }) => printed(ops::member_add(s, *agency, *member, *cabinet, *access)),
        Admin::Member(MemberCmd::Remove {
            agency,
            member,
            cabinet,
        }) => printed(ops::member_remove(s, *agency, *member, *cabinet)),
        Admin::Group(GroupCmd::Add {
            cabinet,
            name,
            color,
        }) => printed(ops::group_add(s, *cabinet, name, color.as_deref())),
        Admin::Key(KeyCmd::Create(new)) => printed(ops::key_create(s, new)),
        Admin::Key(KeyCmd::Set { id, change }) => printed(ops::key_set(s, *id, change)),
        Admin::Key(KeyCmd::Revoke { id }) => printed(ops::key_revoke(s, *id)),
        Admin::Key(KeyCmd::RotateSecret { id }) => printed(ops::key_rotate_secret(s, *id)),
        Admin::Key(KeyCmd::Ping { id }) => printed(ops::key_ping(s, *id)),
        Admin::Key(KeyCmd::List { user }) => printed(ops::key_list(s, *user)),
        Admin::Tracker(TrackerCmd::Rotate { user }) => printed(ops::tracker_rotate(s, *user)),
        Admin::Task(TaskCmd::Cancel { id }) => printed(ops::task_cancel(s, *id)),
        Admin::Task(TaskCmd::Resume { id }) => printed(ops::task_resume(s, *id)),
        Admin::History { account, ad } => printed(ops::history(s, *account, *ad)),
        Admin::Webhook(WebhookCmd::Log { key, limit }) => {
            printed(ops::webhook_log(s, *key, *limit))
        }
        Admin::Webhook(WebhookCmd::Resend { delivery }) => {
            printed(ops::webhook_resend(s, delivery))
        }
        Admin::Rule(RuleCmd::List { owner }) => printed(ops::rule_list(s, *owner)),
        Admin::AutoCpm(AutoCpmCmd::Log { account, ad }) => {
            printed(ops::auto_cpm_log(s, *account, *ad))
        }
        Admin::Cabinet(CabinetCmd::Connect {
            owner,
            token_stdin,
            related,
        }) => {
            let token = token_from_stdin(*token_stdin)?;
            printed(ops::cabinet_connect(s, *owner, &token, *related))
        }
        Admin::Cabinet(CabinetCmd::Reconnect { id, token_stdin }) => {
            let token = token_from_stdin(*token_stdin)?;
            printed(ops::cabinet_reconnect(s, *id, &token))
        }
        Admin::Cabinet(CabinetCmd::Sync { id }) => printed(ops::cabinet_sync(s, *id)),
        Admin::Cabinet(CabinetCmd::List { owner }) => printed(ops::cabinet_list(s, *owner)),
        Admin::Platform(PlatformCmd::Check { token_stdin }) => {
            let token = token_from_stdin(*token_stdin)?;
            printed(ops::platform_check(s, &token))
        }
    }
}

/// A platform token from standard input; `--token-stdin` must say so.
fn token_from_stdin(asked: bool) -> Result<String, PanelError> {
    use std::io::Read;
    if !asked {
        return Err(ops::bad(
            "token-stdin",
            "give the token on standard input with --token-stdin",
        ));
    }
    let mut text = String::new();
    std::io::stdin()
        .take(ops::MAX_TOKEN as u64 + 2)
        .read_to_string(&mut text)
        .map_err(|e| ops::bad("token-stdin", format!("cannot read standard input: {e}")))?;
    ops::read_token(&text)
}

/// Runs one sim command.
pub fn sim(s: &Services, cmd: &Sim) -> Result<Value, PanelError> {
    match cmd {
        Sim::Advance { seconds } => printed(ops::sim_advance(s, *seconds)),
        Sim::Review {
            account,
            ad,
            approve,
            reason,
            ..
        } => printed(ops::sim_review(
            s,
            *account,
            *ad,
            *approve,
            reason.as_deref(),
        )),
        Sim::Fail {
            account,
            next,
            count,
        } => printed(ops::sim_fail(s, *account, *next, *count)),
        Sim::Now => printed(ops::sim_now(s)),
    }
}

/// Prints a command's answer as the operator document fixes it and returns the exit code.
fn emit(result: Result<Value, PanelError>) -> ExitCode {
    match result {
        Ok(value) => emit_value(value),
        Err(e) => fail(e.to_string()),
    }
}

fn emit_value(value: Value) -> ExitCode {
    println!("{value}");
    ExitCode::SUCCESS
}

/// Prints a failure: `{"error": sentence}` on stdout, the sentence on stderr; exit 1.
fn fail(sentence: String) -> ExitCode {
    println!("{}", json!({ "error": sentence }));
    eprintln!("adcab: {sentence}");
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
            println!("{}", json!({ "error": sentence }));
            eprint!("{text}");
            return ExitCode::from(2);
        }
    };
    let config = match Config::load(cli.config.as_deref()) {
        Ok(config) => config,
        Err(e) => return fail(e.to_string()),
    };
    let how = match cli.command {
        Command::Config(ConfigCmd::Show) => return emit(Ok(config.shown())),
        Command::Check => return files::check(&config),
        Command::Backup { to } => return files::backup(&config, &to),
        Command::Restore { from } => return files::restore(&config, &from),
        Command::Serve | Command::Init => Open::Create,
        Command::Admin(_) | Command::Sim(_) => Open::Existing,
    };
    let services = match Services::open(config, how) {
        Ok(services) => services,
        Err(e) => return fail(e),
    };
    match &cli.command {
        Command::Serve => serve::serve(services),
        Command::Init => emit(Ok(json!({
            "database": services.db.path().display().to_string(),
            "schema": crate::db::schema::version(),
        }))),
        Command::Admin(cmd) => emit(admin(&services, cmd)),
        Command::Sim(cmd) => emit(sim(&services, cmd)),
        Command::Config(_) | Command::Check | Command::Backup { .. } | Command::Restore { .. } => {
            unreachable!("answered before the database is opened")
        }
    }
}
