//! Owns `adcab setup`, the guided production setup. On a terminal it asks; otherwise its flags
//! say. It covers where the config file and the database live, the listen address, the
//! public URL, the owner's email and panel password, and a Telegram Ads token. The token is
//! checked before anything is kept. Then the owner is created (or found) with the password,
//! the token's accounts are connected, the config file is written with its comments kept,
//! and the files setup created in the data folder are given to that folder's owner (run as
//! root for the `adcab` user's folder).

use std::io::{self, BufRead, IsTerminal, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::args::SetupArgs;
use super::{stdin_line, Failure};
use crate::config::{edited, Config, Setting};
use crate::db::Open;
use crate::domain::access::Plan;
use crate::domain::password;
use crate::ops::{self, OpsError};
use crate::platform::PlatformKind;
use crate::services::Services;

/// What setup was told, by the questions or by the flags.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answers {
    config: PathBuf,
    database: Option<String>,
    listen: Option<String>,
    public_url: Option<String>,
    email: String,
    password: String,
    token: Option<String>,
}

/// Where the questions are asked and answered: the terminal, or a script in the tests.
trait Questions {
    /// One line of answer; an empty answer takes `default`.
    fn line(&mut self, prompt: &str, default: &str) -> io::Result<String>;
    /// A secret, not shown as it is typed.
    fn secret(&mut self, prompt: &str) -> io::Result<String>;
    fn tell(&mut self, text: &str) -> io::Result<()>;
}

/// The operator's terminal: questions on stderr, so stdout keeps the one JSON answer.
struct Terminal;

impl Questions for Terminal {
    fn line(&mut self, prompt: &str, default: &str) -> io::Result<String> {
        let mut stderr = io::stderr();
        write!(stderr, "{prompt} [{default}]: ")?;
        stderr.flush()?;
        let answer = read_line(&mut io::stdin().lock())?;
        Ok(if answer.trim().is_empty() {
            default.to_string()
        } else {
            answer.trim().to_string()
        })
    }

    fn secret(&mut self, prompt: &str) -> io::Result<String> {
        rpassword::prompt_password(format!("{prompt}: "))
    }

    fn tell(&mut self, text: &str) -> io::Result<()> {
        writeln!(io::stderr(), "{text}")
    }
}

/// One line without its line ending; the end of the input is an error, not an empty answer.
fn read_line(input: &mut impl BufRead) -> io::Result<String> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "standard input ended",
        ));
    }
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

/// Runs `adcab setup` and returns what it prints.
pub fn setup(config: Option<&Path>, args: &SetupArgs) -> Result<Value, Failure> {
    let interactive = io::stdin().is_terminal() && !args.password_stdin && !args.token_stdin;
    let answers = if interactive {
        ask(&mut Terminal, config, args).map_err(|e| Failure::Io {
            what: "the answers".into(),
            source: e,
        })?
    } else {
        from_flags(config, args, &mut io::stdin().lock())?
    };
    let done = apply(&answers)?;
    for line in next_steps(&done) {
        super::print::err(line);
    }
    Ok(done)
}

/// The config file's default: the one `--config` names, else the installed one when there
/// is one, else `./adcab.toml`.
fn config_path(config: Option<&Path>) -> PathBuf {
    match config {
        Some(path) => path.to_path_buf(),
        None if Path::new("/etc/adcab/adcab.toml").exists() => "/etc/adcab/adcab.toml".into(),
        None => "adcab.toml".into(),
    }
}

/// The configuration a file gives now, for the questions' defaults (the built-in defaults
/// when it is missing; none when it does not read, and `apply` names what is wrong).
fn current(path: &Path) -> Option<Config> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(_) => return None,
    };
    Config::of_file(path, &text).ok()
}

/// Asks for every answer, each with the file's current value as its default; the email and
/// the password until they are acceptable.
fn ask(q: &mut impl Questions, config: Option<&Path>, args: &SetupArgs) -> io::Result<Answers> {
    q.tell("adcab setup: the config file, the owner of the agency with a panel password, and Telegram Ads. Enter keeps the value in brackets.")?;
    let default_path = config_path(config);
    let config = PathBuf::from(q.line("Config file", &default_path.display().to_string())?);
    let now = current(&config);
    let database = now.as_ref().map(|c| c.storage.path.display().to_string());
    let database = q.line(
        "Database file",
        args.database
            .as_deref()
            .or(database.as_deref())
            .unwrap_or(""),
    )?;
    let listen = now.as_ref().map(|c| c.server.listen.as_str());
    let listen = q.line(
        "Listen address (behind your TLS proxy)",
        args.listen.as_deref().or(listen).unwrap_or(""),
    )?;
    let public_url = now
        .as_ref()
        .map(|c| c.panel.public_url.as_str())
        .filter(|u| !u.is_empty());
    let public_url = q.line(
        "Public address of the panel (https://...; - for none)",
        args.public_url.as_deref().or(public_url).unwrap_or("-"),
    )?;
    let email = loop {
        let email = q.line("The owner's email", args.email.as_deref().unwrap_or(""))?;
        if email.contains('@') {
            break email;
        }
        q.tell("That is not an email address.")?;
    };
    let password = loop {
        let first = q.secret("The owner's panel password (at least 10 characters)")?;
        if let Err(why) = password::check(&first) {
            q.tell(&format!("{why}."))?;
            continue;
        }
        if q.secret("The same password again")? == first {
            break first;
        }
        q.tell("The two passwords differ; again, please.")?;
    };
    q.tell("A Telegram Ads API token connects the agency's accounts (README, \"Connecting a real Telegram Ads account\"). Without one the built-in simulator stays on.")?;
    let token = q.secret("Telegram Ads API token (Enter for none)")?;
    Ok(Answers {
        config,
        database: Some(database),
        listen: Some(listen),
        public_url: Some(if public_url == "-" {
            String::new()
        } else {
            public_url
        }),
        email,
        password,
        token: Some(token.trim().to_string()).filter(|t| !t.is_empty()),
    })
}

/// The answers from the flags, with the password (and then the token) from stdin's lines.
fn from_flags(
    config: Option<&Path>,
    args: &SetupArgs,
    stdin: &mut impl BufRead,
) -> Result<Answers, Failure> {
    let email = args.email.clone().ok_or_else(|| {
        ops::bad(
            "email",
            "setup needs --email and --password-stdin when standard input is not a terminal",
        )
    })?;
    if !args.password_stdin {
        return Err(ops::bad(
            "password-stdin",
            "setup needs --password-stdin (the owner's panel password on stdin's first line)",
        )
        .into());
    }
    let password = stdin_line(stdin, "password-stdin")?;
    let token = if args.token_stdin {
        Some(ops::read_token(&stdin_line(stdin, "token-stdin")?)?)
    } else {
        None
    };
    Ok(Answers {
        config: config_path(config),
        database: args.database.clone(),
        listen: args.listen.clone(),
        public_url: args.public_url.clone(),
        email,
        password,
        token,
    })
}

/// The keys setup changes in the config file.
fn settings(a: &Answers) -> Vec<(&'static str, &'static str, Setting)> {
    let text = |v: &Option<String>| v.clone().filter(|v| !v.is_empty()).map(Setting::Text);
    let mut keys = vec![("demo", "bootstrap", Setting::Flag(false))];
    keys.extend(text(&a.database).map(|v| ("storage", "path", v)));
    keys.extend(text(&a.listen).map(|v| ("server", "listen", v)));
    if let Some(url) = &a.public_url {
        keys.push(("panel", "public_url", Setting::Text(url.clone())));
    }
    if a.token.is_some() {
        keys.push(("platform", "kind", Setting::Text("telegram".into())));
    }
    keys
}

/// Checks everything, then keeps it: the owner, the connected accounts, the config file.
/// A token the platform refuses (or any check failing before it) leaves the config file as
/// it was and no database that was not there before.
fn apply(a: &Answers) -> Result<Value, Failure> {
    password::check(&a.password).map_err(|why| ops::bad("password", why.to_string()))?;
    let file_error = |what: &Path| {
        let what = what.display().to_string();
        move |source| Failure::Io { what, source }
    };
    let before = match std::fs::read_to_string(&a.config) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(file_error(&a.config)(e)),
    };
    let old = before.as_deref().unwrap_or("");
    Config::of_file(&a.config, old).map_err(|e| Failure::Config(Box::new(e)))?;
    let text = edited(old, &settings(a)).map_err(|e| Failure::Edit {
        file: a.config.clone(),
        error: Box::new(e),
    })?;
    let config = Config::of_file(&a.config, &text).map_err(|e| Failure::Config(Box::new(e)))?;
    let database = config.storage.path.clone();
    let telegram = config.platform.kind == PlatformKind::Telegram;
    let created = Created::before(&database);
    let services = Services::open(config, Open::Create).map_err(|e| Failure::Open(Box::new(e)))?;
    let kept = keep(&services, a);
    drop(services);
    let (owner, cabinets) = match kept {
        Ok(kept) => kept,
        Err(e) => {
            created.undo();
            return Err(e.into());
        }
    };
    write_config(&a.config, &text, before.is_some()).map_err(file_error(&a.config))?;
    created
        .give_to_folder_owner()
        .map_err(file_error(&database))?;
    Ok(json!({
        "config": a.config.display().to_string(),
        "database": database.display().to_string(),
        "owner": {"id": owner, "email": a.email.trim()},
        "platform": if telegram { "telegram" } else { "sim" },
        "cabinets": cabinets,
        "panel": a.public_url.as_deref().filter(|u| !u.is_empty())
            .map(|u| format!("{}/login", u.trim_end_matches('/'))),
    }))
}

/// The token checked, the owner found or created with the password, the token's accounts
/// connected: the owner's id and the cabinets.
fn keep(s: &Services, a: &Answers) -> Result<(i64, Value), OpsError> {
    if let Some(token) = &a.token {
        ops::platform_check(s, token)?;
    }
    let owner = match ops::user_find(s, &a.email)? {
        Some(found) => found.id,
        None => ops::user_add(s, &a.email, Plan::Agency)?.id,
    };
    ops::user_set(s, owner, None, None, Some(&a.password))?;
    let cabinets = match &a.token {
        Some(token) => json!(ops::cabinet_connect(s, owner, token, true)?.cabinets),
        None => json!([]),
    };
    Ok((owner, cabinets))
}

/// The database's files as they were before setup opened it.
struct Created {
    files: Vec<PathBuf>,
    existed: Vec<bool>,
}

impl Created {
    fn before(database: &Path) -> Created {
        let mut files = vec![database.to_path_buf()];
        files.extend(crate::db::log_files(database));
        files.push(crate::secret::key_path(database));
        let existed = files.iter().map(|f| f.exists()).collect();
        Created { files, existed }
    }

    fn new_files(&self) -> impl Iterator<Item = &PathBuf> {
        self.files
            .iter()
            .zip(&self.existed)
            .filter(|(f, existed)| !**existed && f.exists())
            .map(|(f, _)| f)
    }

    /// Removes the files setup created.
    fn undo(&self) {
        for file in self.new_files() {
            let _ = std::fs::remove_file(file);
        }
    }

    /// Gives the files setup created to the owner of their folder, when that is someone
    /// else (root setting up the service user's folder).
    fn give_to_folder_owner(&self) -> io::Result<()> {
        for file in self.new_files() {
            let folder = std::fs::metadata(file.parent().unwrap_or(Path::new(".")))?;
            let mine = std::fs::metadata(file)?;
            if mine.uid() != folder.uid() || mine.gid() != folder.gid() {
                std::os::unix::fs::chown(file, Some(folder.uid()), Some(folder.gid()))?;
            }
        }
        Ok(())
    }
}

/// Writes the config file whole or not at all: a new file beside it, renamed over it. An
/// existing file keeps its mode and owner; a new one is 0640.
fn write_config(path: &Path, text: &str, existed: bool) -> io::Result<()> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    let folder = folder.unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let fresh = folder.join(format!(".{name}.setup"));
    std::fs::write(&fresh, text)?;
    if existed {
        let old = std::fs::metadata(path)?;
        std::fs::set_permissions(&fresh, old.permissions())?;
        if old.uid() != std::fs::metadata(&fresh)?.uid() {
            std::os::unix::fs::chown(&fresh, Some(old.uid()), Some(old.gid()))?;
        }
    } else {
        std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o640))?;
        let group = std::fs::metadata(folder)?.gid();
        if group != std::fs::metadata(&fresh)?.gid() {
            std::os::unix::fs::chown(&fresh, None, Some(group))?;
        }
    }
    std::fs::rename(&fresh, path)
}

/// What the operator does next, in sentences for the terminal.
fn next_steps(done: &Value) -> Vec<String> {
    let mut lines = vec![format!(
        "adcab setup: wrote {}; the owner is {} (id {}).",
        done["config"].as_str().unwrap_or_default(),
        done["owner"]["email"].as_str().unwrap_or_default(),
        done["owner"]["id"]
    )];
    lines.push(match done["platform"].as_str() {
        Some("telegram") => format!(
            "Telegram Ads: {} cabinet(s) connected.",
            done["cabinets"].as_array().map_or(0, Vec::len)
        ),
        _ => "No Telegram Ads token: the built-in simulator stays on, and campaigns are simulated until you connect one (README, \"Connecting a real Telegram Ads account\").".into(),
    });
    lines.push(
        "If adcab runs as a service, restart it to read the config: sudo systemctl restart adcab"
            .into(),
    );
    if let Some(panel) = done["panel"].as_str() {
        lines.push(format!("Then sign in at {panel}"));
    } else {
        lines.push("Then sign in to the panel at /login on the address adcab listens on (set a public address with --public-url for links in invitations and alerts).".into());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers from a script; a secret is one more line of it.
    struct Script {
        input: io::Cursor<Vec<u8>>,
        told: Vec<String>,
    }

    impl Questions for Script {
        fn line(&mut self, _prompt: &str, default: &str) -> io::Result<String> {
            let answer = read_line(&mut self.input)?;
            Ok(if answer.is_empty() {
                default.to_string()
            } else {
                answer
            })
        }
        fn secret(&mut self, _prompt: &str) -> io::Result<String> {
            read_line(&mut self.input)
        }
        fn tell(&mut self, text: &str) -> io::Result<()> {
            self.told.push(text.to_string());
            Ok(())
        }
    }

    fn script(lines: &[&str]) -> Script {
        Script {
            input: io::Cursor::new(format!("{}\n", lines.join("\n")).into_bytes()),
            told: Vec::new(),
        }
    }

    fn args() -> SetupArgs {
        SetupArgs {
            email: None,
            password_stdin: false,
            public_url: None,
            listen: None,
            database: None,
            token_stdin: false,
        }
    }

    #[test]
    fn the_dialogue_asks_again_for_a_bad_email_a_short_or_mismatched_password() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("adcab.toml");
        let mut q = script(&[
            "",
            "",
            "",
            "https://ads.example",
            "not-an-email",
            "owner@agency.example",
            "short",
            "long enough password",
            "another long password",
            "long enough password",
            "long enough password",
            "",
        ]);
        let answers = ask(&mut q, Some(&config), &args()).unwrap();
        assert_eq!(answers.config, config);
        assert_eq!(answers.email, "owner@agency.example");
        assert_eq!(answers.password, "long enough password");
        assert_eq!(answers.public_url.as_deref(), Some("https://ads.example"));
        assert_eq!(answers.listen.as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(answers.token, None);
        assert!(q.told.iter().any(|t| t.contains("not an email")));
        assert!(q.told.iter().any(|t| t.contains("differ")));
    }

    #[test]
    fn a_dash_for_the_public_address_leaves_it_empty_and_a_token_is_kept() {
        let mut q = script(&[
            "/tmp/x/adcab.toml",
            "/tmp/x/adcab.db",
            "0.0.0.0:9090",
            "-",
            "o@a.example",
            "long enough password",
            "long enough password",
            "  tok-123  ",
        ]);
        let answers = ask(&mut q, None, &args()).unwrap();
        assert_eq!(answers.public_url.as_deref(), Some(""));
        assert_eq!(answers.database.as_deref(), Some("/tmp/x/adcab.db"));
        assert_eq!(answers.token.as_deref(), Some("tok-123"));
        let keys = settings(&answers);
        assert!(keys.contains(&("platform", "kind", Setting::Text("telegram".into()))));
        assert!(keys.contains(&("server", "listen", Setting::Text("0.0.0.0:9090".into()))));
    }

    #[test]
    fn input_that_ends_early_is_an_error_not_an_empty_answer() {
        let mut q = script(&["", "", "", "", "o@a.example"]);
        let e = ask(&mut q, None, &args()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn flags_without_an_email_or_a_password_on_stdin_are_refused() {
        let mut stdin = io::Cursor::new(b"long enough password\n".to_vec());
        let e = from_flags(None, &args(), &mut stdin).unwrap_err();
        assert!(e.to_string().contains("--email"), "{e}");
        let with_email = SetupArgs {
            email: Some("o@a.example".into()),
            ..args()
        };
        let e = from_flags(None, &with_email, &mut stdin).unwrap_err();
        assert!(e.to_string().contains("--password-stdin"), "{e}");
    }

    #[test]
    fn the_token_is_the_line_after_the_password() {
        let mut stdin = io::Cursor::new(b"long enough password\ntok-9\n".to_vec());
        let flags = SetupArgs {
            email: Some("o@a.example".into()),
            password_stdin: true,
            token_stdin: true,
            ..args()
        };
        let answers = from_flags(None, &flags, &mut stdin).unwrap();
        assert_eq!(answers.password, "long enough password");
        assert_eq!(answers.token.as_deref(), Some("tok-9"));
    }
}
