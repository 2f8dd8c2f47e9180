//! Runs the README's trial as written, so it cannot drift: its `sh trial-background` blocks
//! (the server, the webhook receiver: "a terminal of its own") as background processes, and
//! its `sh trial` blocks, in order, as one bash script with `set -euo pipefail`, in a fresh
//! folder, against the binary the tests built, on two free ports instead of 8080 and 9000.
//! Every other fenced block is tagged with where it runs (`blocks`: the tags, the Telegram
//! and API blocks; `packaging/test-install.sh`: the install blocks).

mod blocks;
mod reference;
mod terminal;

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// One fenced block of a Markdown file: its info string (```` ```sh trial ```` gives
/// `sh trial`), its body, and the line of its opening fence (from 1).
#[derive(Debug)]
struct Block {
    info: String,
    body: String,
    line: usize,
}

/// Every fenced block of `text`, in order.
fn fenced(text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| *l != "```")
            .collect();
        found.push(Block {
            info: info.trim().to_string(),
            body: body.join("\n"),
            line: n + 1,
        });
    }
    found
}

/// The bodies of the README's blocks tagged `info`, in order.
pub(crate) fn tagged(readme: &str, info: &str) -> Vec<String> {
    fenced(readme)
        .into_iter()
        .filter(|b| b.info == info)
        .map(|b| b.body)
        .collect()
}

/// The README's runnable shell blocks, in the order they appear.
#[derive(Debug, Default)]
struct Trial {
    background: Vec<String>,
    script: Vec<String>,
}

/// Collects the fenced blocks whose info string is `sh trial` or `sh trial-background`.
fn trial(readme: &str) -> Trial {
    Trial {
        background: tagged(readme, "sh trial-background"),
        script: tagged(readme, "sh trial"),
    }
}

/// A port nobody listens on now (the trial's processes bind it a moment later).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The block with the README's ports replaced by this run's.
pub(crate) fn on_ports(block: &str, api: u16, hooks: u16) -> String {
    block
        .replace("8080", &api.to_string())
        .replace("9000", &hooks.to_string())
}

/// `bash -c script` in `dir`, finding the tests' `adcab` first on the `PATH`, in a process
/// group of its own so that everything it started can be stopped together.
pub(crate) fn bash(dir: &Path, script: &str) -> Command {
    use std::os::unix::process::CommandExt;
    let bin = Path::new(env!("CARGO_BIN_EXE_adcab")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .process_group(0);
    cmd
}

/// Background processes, stopped with their whole group when the test ends, pass or fail.
pub(crate) struct Group(pub(crate) Vec<Child>);

impl Drop for Group {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = Command::new("kill")
                .args(["-TERM", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
        }
    }
}

/// Waits for `child` at most `limit`; a script still running then is killed and reported.
fn finish(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let out = child.wait_with_output().unwrap();
            panic!(
                "the trial did not finish in {limit:?}:\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn the_readme_has_the_trials_blocks_in_order() {
    let found = trial(include_str!("../../README.md"));
    assert_eq!(found.background.len(), 2, "the server and the receiver");
    assert!(found.background[0].contains("serve"));
    assert!(found.background[1].contains("receiver.py"));
    assert!(
        found.script.len() >= 6,
        "{} trial blocks",
        found.script.len()
    );
    assert!(found.script[0].contains("readyz"), "the script first waits");
}

#[test]
fn the_trial_runs_as_written() {
    let found = trial(include_str!("../../README.md"));
    let dir = tempfile::tempdir().unwrap();
    let (api, hooks) = (free_port(), free_port());
    let mut background = Group(Vec::new());
    for (n, block) in found.background.iter().enumerate() {
        let log = std::fs::File::create(dir.path().join(format!("background-{n}.log"))).unwrap();
        let child = bash(dir.path(), &on_ports(block, api, hooks))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        background.0.push(child);
    }
    let script = format!(
        "set -euo pipefail\n{}",
        on_ports(&found.script.join("\n"), api, hooks)
    );
    let child = bash(dir.path(), &script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish(child, Duration::from_secs(120));
    let printed = String::from_utf8_lossy(&out.stdout);
    let server = std::fs::read_to_string(dir.path().join("background-0.log")).unwrap_or_default();
    assert!(
        out.status.success(),
        "the trial failed:\n{printed}\n{}\nserver:\n{server}",
        String::from_utf8_lossy(&out.stderr)
    );
    for verified in ["status_change verified", "hourly_digest verified"] {
        assert!(printed.contains(verified), "{verified}:\n{printed}");
    }
    assert!(server.contains("created the demo workspace"), "{server}");
}
