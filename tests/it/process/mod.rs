//! The real binary as a process under stress, measured from /proc: memory under stalled
//! uploads, CPU when descriptors run out, threads under a held database lock; what `serve`
//! refuses and prints before it announces itself; and the modes of what it creates on disk.
//! This file holds the harness: the binary started with a config of its own, its /proc
//! figures, and a plain API client.

mod crash;
mod first_hour;
mod modes;
mod operations;
mod panel;
mod reference;
mod setup;
mod startup;
mod stress;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

/// A running `adcab serve`, killed when dropped.
struct Server {
    child: Child,
    base: String,
    /// The lines printed up to and including "adcab serving".
    printed: Vec<String>,
    /// Everything printed after, as it arrives.
    later: Arc<Mutex<Vec<u8>>>,
    /// Reads the output into `later` until the process exits.
    drain: Option<JoinHandle<()>>,
}

impl Server {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn addr(&self) -> &str {
        self.base
            .trim_start_matches("http://")
            .trim_end_matches("/api/v1")
    }

    /// The demo key printed on the first start.
    fn key(&self) -> String {
        self.printed
            .iter()
            .find_map(|l| l.strip_prefix("API key (shown once, keep it): "))
            .expect("the demo key is printed")
            .trim()
            .to_string()
    }

    /// Sends SIGTERM and waits for the exit and the end of its output.
    fn stop(&mut self) -> Vec<u8> {
        let sent = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        assert!(self.child.wait().unwrap().success(), "exit 0 on SIGTERM");
        self.drain.take().unwrap().join().unwrap();
        self.later.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `adcab --config <config> <args>`.
fn adcab(config: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_adcab"));
    cmd.arg("--config").arg(config).args(args);
    cmd
}

/// Runs an `admin` command of the binary and returns what it printed; `stdin` is piped in.
fn admin(config: &std::path::Path, args: &[&str], stdin: &str) -> Value {
    use std::io::Write;
    let mut child = adcab(config, args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Starts `cmd` (a `serve`) and waits for its "adcab serving" line, which names the port.
fn serve(mut cmd: Command) -> Server {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut printed = Vec::new();
    while !printed
        .last()
        .is_some_and(|l: &String| l.contains("adcab serving"))
    {
        let mut line = String::new();
        let n = out.read_line(&mut line).unwrap();
        assert!(n > 0, "serve ended before serving: {printed:?}");
        printed.push(line.trim_end().to_string());
    }
    let serving = printed.last().unwrap();
    let at = serving.find("127.0.0.1:").expect("the address is logged");
    let addr: String = serving[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
        .collect();
    let later = Arc::new(Mutex::new(Vec::new()));
    let sink = later.clone();
    let drain = std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = out.read(&mut chunk) {
            sink.lock().unwrap().extend_from_slice(&chunk[..n]);
        }
    });
    Server {
        child,
        base: format!("http://{addr}/api/v1"),
        printed,
        later,
        drain: Some(drain),
    }
}

/// Writes a config beside the database `<dir>/adcab.db`, with `server` added to `[server]`
/// and rate limits out of the way.
fn config(dir: &Path, server: &str) -> PathBuf {
    let path = dir.join("adcab.toml");
    let text = format!(
        "[server]\nlisten = \"127.0.0.1:0\"\n{server}\n[storage]\npath = \"{}\"\n\
         [limits]\nreads_per_minute = 100000\nwrites_per_minute = 100000\n\
         [rates]\nsource = \"manual\"\n",
        dir.join("adcab.db").display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// The number that starts the line `field` of /proc/<pid>/status (kB for `VmRSS:`).
fn proc_status(pid: u32, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// Runs `f` while sampling `field` of the server's status every 20 ms; returns its result
/// and the largest value seen.
fn peak_while<T>(pid: u32, field: &'static str, f: impl FnOnce() -> T) -> (T, u64) {
    let done = Arc::new(AtomicBool::new(false));
    let stop = done.clone();
    let sampler = std::thread::spawn(move || {
        let mut peak = proc_status(pid, field);
        while !stop.load(Ordering::SeqCst) {
            peak = peak.max(proc_status(pid, field));
            std::thread::sleep(Duration::from_millis(20));
        }
        peak.max(proc_status(pid, field))
    });
    let value = f();
    done.store(true, Ordering::SeqCst);
    (value, sampler.join().unwrap())
}

/// One API call: status, `Retry-After`, JSON body; `Err` when no answer came.
fn call(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    key: &str,
    body: Option<&Value>,
) -> Result<(u16, Option<String>, Value), String> {
    call_with(agent, method, url, key, body, &[])
}

/// [`call`] with more request headers.
fn call_with(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    key: &str,
    body: Option<&Value>,
    headers: &[(&str, &str)],
) -> Result<(u16, Option<String>, Value), String> {
    let req = headers.iter().fold(
        agent.request(method, url).set("X-API-Key", key),
        |req, (name, value)| req.set(name, value),
    );
    let sent = match body {
        Some(b) => req
            .set("Content-Type", "application/json")
            .send_string(&b.to_string()),
        None => req.call(),
    };
    let resp = match sent {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => return Err(e.to_string()),
    };
    let (status, retry) = (
        resp.status(),
        resp.header("retry-after").map(str::to_string),
    );
    let text = resp.into_string().map_err(|e| e.to_string())?;
    let body = serde_json::from_str(&text).map_err(|_| format!("not JSON: {text}"))?;
    Ok((status, retry, body))
}

/// A client whose calls give up after 30 s.
fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(30))
        .build()
}
