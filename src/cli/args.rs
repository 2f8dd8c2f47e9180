//! Owns the command line's grammar as clap reads it: every command, subcommand and flag the
//! operator document names, with the help text in their doc comments. It parses; `admin.rs`
//! runs what it parsed.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::domain::access::Plan;
use crate::domain::time::Month;
use crate::ops::{CabinetChange, KeyChange, NewCabinet, NewKey, Subscription, TeamAccess};
use crate::platform::sim::Fault;

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
    Check {
        /// Also compare each kept figure (status counts, daily rows, the stats rows' running
        /// sums, conversion totals) with its recomputation from the rows it stands for;
        /// non-zero exit when one differs.
        #[arg(long)]
        deep: bool,
    },
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
    /// Guided production setup: the config file, the owner with a panel password, the public
    /// address, and a Telegram Ads token checked and connected (or the simulator kept). Asks
    /// on a terminal; otherwise takes --email and --password-stdin.
    Setup(SetupArgs),
    /// Serve AI assistants over the Model Context Protocol on stdin/stdout (`--key-stdin`).
    Mcp(super::mcp::McpArgs),
}

/// `adcab setup`'s flags: each answers one of its questions.
#[derive(clap::Args, Debug)]
pub struct SetupArgs {
    /// The owner's email (found when that person exists, else created on the agency plan).
    #[arg(long)]
    pub email: Option<String>,
    /// Read the owner's panel password from the first line of stdin.
    #[arg(long)]
    pub password_stdin: bool,
    /// The address people open the panel at, e.g. https://ads.agency.example (`panel.public_url`).
    #[arg(long)]
    pub public_url: Option<String>,
    /// The address adcab listens on (`server.listen`).
    #[arg(long)]
    pub listen: Option<String>,
    /// The database file (`storage.path`).
    #[arg(long)]
    pub database: Option<String>,
    /// Read a Telegram Ads API token from stdin's next line, check it and connect its accounts
    /// (`platform.kind` becomes `telegram`).
    #[arg(long)]
    pub token_stdin: bool,
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
    /// Exchange rates, kept per day, that totals across currencies convert at.
    #[command(subcommand)]
    Rates(RatesCmd),
}

#[derive(Subcommand, Debug)]
pub enum RatesCmd {
    /// Keep a rate by hand: one FROM costs RATE of TO on the day (a fetch never replaces it).
    Set {
        /// A currency code: EUR, USD, TON, STARS...
        #[arg(long)]
        from: crate::domain::agency::CurrencyCode,
        #[arg(long)]
        to: crate::domain::agency::CurrencyCode,
        /// A positive decimal, such as 1.0512.
        #[arg(long)]
        rate: rust_decimal::Decimal,
        /// The day, YYYY-MM-DD (default: today on the service clock, UTC).
        #[arg(long)]
        date: Option<chrono::NaiveDate>,
    },
    /// The reporting currency, the source, and the kept rates, newest day first.
    List,
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
        /// Set the web panel login password in the same step, read from the first line of
        /// stdin (never from the command line).
        #[arg(long)]
        password_stdin: bool,
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
    /// A one-time link (valid 72 hours) for a person to set a new panel password, under
    /// `[panel] public_url`; using it ends the person's other sessions.
    ResetLink {
        #[arg(long)]
        id: i64,
    },
}

#[derive(Subcommand, Debug)]
pub enum CabinetCmd {
    /// Add a cabinet (opens an account on the platform).
    Add(NewCabinet),
    /// Open a client cabinet: a related account under the agency's main account.
    CreateRelated(crate::ops::funds::NewRelated),
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
    /// Compare adcab's stored spend, views and clicks per ad for a month with the platform's
    /// account report; with --fix, correct adcab's rows so the month's totals match.
    Reconcile {
        #[arg(long)]
        id: i64,
        /// The month, YYYY-MM (UTC).
        #[arg(long)]
        month: Month,
        /// Correct adcab's hourly and daily rows, recording it in each campaign's history.
        #[arg(long)]
        fix: bool,
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
