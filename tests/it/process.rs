//! The real binary as a process under stress, measured from /proc: memory under stalled
//! uploads, CPU when descriptors run out, threads under a held database lock; and what
//! `serve` refuses and prints before it announces itself.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::{poll, read_answer, wait_for, RawResp};

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
         [limits]\nreads_per_minute = 100000\nwrites_per_minute = 100000\n",
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
    let req = agent.request(method, url).set("X-API-Key", key);
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

/// Opens a connection that declares a 10 MB upload, sends `megabytes` of it and stalls;
/// returns the connection (still open), the answer and how long after the head it came.
fn stalled_upload(
    addr: &str,
    account: i64,
    key: Option<&str>,
    megabytes: usize,
) -> JoinHandle<(TcpStream, RawResp, Duration)> {
    let addr = addr.to_string();
    let key = key
        .map(|k| format!("X-API-Key: {k}\r\n"))
        .unwrap_or_default();
    std::thread::spawn(move || {
        let mut stream = TcpStream::connect(&addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(15)))
            .unwrap();
        let mut writer = stream.try_clone().unwrap();
        writer
            .set_write_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let head = format!(
            "POST /api/v1/media?account_id={account} HTTP/1.1\r\nHost: {addr}\r\n{key}\
             Content-Type: multipart/form-data; boundary=X\r\nContent-Length: 10485760\r\n\r\n\
             --X\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\
             Content-Type: image/png\r\n\r\n"
        );
        let started = Instant::now();
        writer.write_all(head.as_bytes()).unwrap();
        let sending = std::thread::spawn(move || {
            let chunk = [b'a'; 64 * 1024];
            for _ in 0..16 * megabytes {
                if writer.write_all(&chunk).is_err() {
                    break;
                }
            }
        });
        let answer = read_answer(&mut stream).expect("an answer");
        let elapsed = started.elapsed();
        sending.join().unwrap();
        (stream, answer, elapsed)
    })
}

#[test]
fn stalled_uploads_do_not_hold_memory() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(adcab(
        &config(dir.path(), "body_timeout_ms = 3000"),
        &["serve"],
    ));
    let (key, pid, agent) = (server.key(), server.pid(), agent());
    let (status, _, info) = call(
        &agent,
        "GET",
        &format!("{}/account/info", server.base),
        &key,
        None,
    )
    .unwrap();
    assert_eq!(status, 200, "{info}");
    let account = info["data"][0]["id"].as_i64().unwrap();
    let baseline = proc_status(pid, "VmRSS:");
    let limit = baseline + 60 * 1024;

    let (refused, peak) = peak_while(pid, "VmRSS:", || {
        let conns: Vec<_> = (0..100)
            .map(|_| stalled_upload(server.addr(), account, None, 1))
            .collect();
        let conns: Vec<_> = conns.into_iter().map(|c| c.join().unwrap()).collect();
        // A last look while all 100 are still open.
        std::thread::sleep(Duration::from_millis(300));
        conns
    });
    for (_, answer, _) in &refused {
        answer.assert_error(401, "API_KEY_MISSING");
    }
    eprintln!("RSS baseline {baseline} kB, peak with 100 unauthenticated uploads {peak} kB");
    assert!(peak <= limit, "RSS {peak} kB over {limit} kB");
    drop(refused);

    let (stalled, peak) = peak_while(pid, "VmRSS:", || {
        let conns: Vec<_> = (0..30)
            .map(|_| stalled_upload(server.addr(), account, Some(&key), 6))
            .collect();
        conns
            .into_iter()
            .map(|c| c.join().unwrap())
            .collect::<Vec<_>>()
    });
    eprintln!("RSS peak with 30 stalled uploads {peak} kB");
    assert!(peak <= limit, "RSS {peak} kB over {limit} kB");
    let times: Vec<Duration> = stalled.iter().map(|(_, _, t)| *t).collect();
    eprintln!(
        "408 after {:?} .. {:?}",
        times.iter().min().unwrap(),
        times.iter().max().unwrap()
    );
    for (_, answer, took) in &stalled {
        answer.assert_error(408, "REQUEST_TIMEOUT");
        assert!(
            (Duration::from_secs(2)..Duration::from_secs(10)).contains(took),
            "408 after {took:?}"
        );
    }
    let (status, _, body) = call(
        &agent,
        "GET",
        &format!("{}/targeting", server.base),
        &key,
        None,
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
}

/// Descriptors the process has open.
fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

/// CPU time the process used so far (utime + stime), in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<u64> = stat[stat.rfind(')').unwrap() + 2..]
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // Fields 14 and 15 of the file; the list starts at field 3.
    fields[11] + fields[12]
}

#[test]
fn the_accept_loop_backs_off_when_descriptors_run_out() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(
        dir.path(),
        "max_connections = 1000\nheader_timeout_ms = 2000",
    );
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_adcab"))
        .arg("--config")
        .arg(&config)
        .arg("serve");
    let server = serve(cmd);
    let pid = server.pid();
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let nofile = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap();
    assert_eq!(nofile, "64", "{limits}");

    let clients: Vec<TcpStream> = (0..120)
        .map(|_| TcpStream::connect(server.addr()).unwrap())
        .collect();
    wait_for(
        Duration::from_secs(5),
        "the server to run out of descriptors",
        || (open_fds(pid) >= 64).then_some(()),
    );
    let hz: u64 = String::from_utf8(
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .parse()
    .unwrap();
    let window = Duration::from_millis(1500);
    let before = cpu_ticks(pid);
    std::thread::sleep(window);
    let used = (cpu_ticks(pid) - before) as f64 / hz as f64;
    let share = 100.0 * used / window.as_secs_f64();
    eprintln!("CPU while out of descriptors: {share:.1}% of one core");
    assert!(
        share < 30.0,
        "the accept loop spins: {share:.1}% of one core"
    );

    drop(clients);
    let (key, agent) = (
        server.key(),
        ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(2))
            .build(),
    );
    let started = Instant::now();
    wait_for(Duration::from_secs(10), "the server to recover", || {
        let answer = call(
            &agent,
            "GET",
            &format!("{}/targeting", server.base),
            &key,
            None,
        );
        matches!(answer, Ok((200, _, _))).then_some(())
    });
    eprintln!("recovered {:?} after the clients closed", started.elapsed());
}

#[test]
fn a_held_database_lock_is_answered_503_without_piling_up_threads() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(adcab(&config(dir.path(), ""), &["serve"]));
    let (key, pid, agent) = (server.key(), server.pid(), agent());
    let (_, _, list) = call(
        &agent,
        "GET",
        &format!("{}/campaigns", server.base),
        &key,
        None,
    )
    .unwrap();
    let first = &list["data"][0];
    let url = format!(
        "{}/campaigns/{}?account_id={}",
        server.base, first["ad_id"], first["account_id"]
    );
    let holder = adcab::db::open_connection(&dir.path().join("adcab.db")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();

    let (answers, threads) = peak_while(pid, "Threads:", || {
        let requests: Vec<_> = (0..150)
            .map(|i| {
                let (agent, url, key) = (agent.clone(), url.clone(), key.clone());
                std::thread::spawn(move || {
                    let t = Instant::now();
                    let body = json!({ "title": format!("x{i}") });
                    (call(&agent, "PATCH", &url, &key, Some(&body)), t.elapsed())
                })
            })
            .collect();
        requests
            .into_iter()
            .map(|r| r.join().unwrap())
            .collect::<Vec<_>>()
    });
    let (mut busy, mut platform) = (0, 0);
    for (answer, _) in &answers {
        let (status, retry, body) = answer.as_ref().expect("every request is answered");
        if *status == 503 {
            busy += 1;
            platform += usize::from(body["code"] == "PLATFORM_UNAVAILABLE");
            assert!(retry.is_some(), "503 without Retry-After: {body}");
            assert!(
                ["SERVICE_UNAVAILABLE", "PLATFORM_UNAVAILABLE"]
                    .contains(&body["code"].as_str().unwrap_or("")),
                "{body}"
            );
        } else {
            assert!((200..300).contains(status), "{status} {body}");
        }
    }
    let took: Vec<Duration> = answers.iter().map(|(_, t)| *t).collect();
    eprintln!(
        "{busy} of 150 answered 503 ({platform} PLATFORM_UNAVAILABLE) after {:?} to {:?}; at most {threads} threads",
        took.iter().min().unwrap(),
        took.iter().max().unwrap()
    );
    assert!(
        busy > 0,
        "no request was answered busy while the lock was held"
    );
    assert!(threads < 80, "{threads} threads in the server");

    holder.execute_batch("ROLLBACK").unwrap();
    let (status, _, body) = call(
        &agent,
        "PATCH",
        &url,
        &key,
        Some(&json!({ "title": "after" })),
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
}

/// Runs a command that must fail within 10 s without announcing that it serves; returns the
/// sentence of the `{"error": ...}` object it printed.
fn refused(mut cmd: Command) -> String {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let Some(status) = poll(Duration::from_secs(10), || child.try_wait().unwrap()) else {
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        panic!(
            "still running after 10 s: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(!status.success(), "it succeeded: {out}");
    assert!(!out.contains("adcab serving"), "it announced itself: {out}");
    out.lines()
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no {{\"error\": ...}} printed: {out}"))
}

#[test]
fn serve_refuses_a_corrupt_or_newer_database_before_announcing() {
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = (config(dir.path(), ""), dir.path().join("adcab.db"));
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let noise: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(&db, noise).unwrap();
    let said = refused(adcab(&config, &["serve"]));
    eprintln!("random bytes: {said}");
    assert!(
        said.contains(&db.display().to_string()) && said.contains("not an adcab database"),
        "{said}"
    );

    std::fs::remove_file(&db).unwrap();
    assert!(adcab(&config, &["init"]).output().unwrap().status.success());
    adcab::db::open_connection(&db)
        .unwrap()
        .execute_batch("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'x')")
        .unwrap();
    for args in [&["serve"][..], &["sim", "now"]] {
        let said = refused(adcab(&config, args));
        eprintln!("{args:?} on a newer schema: {said}");
        assert!(said.contains("newer"), "{args:?}: {said}");
    }

    let dir = tempfile::tempdir().unwrap();
    let (config, db) = (self::config(dir.path(), ""), dir.path().join("adcab.db"));
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    mode(dir.path(), 0o755);
    assert!(adcab(&config, &["init"]).output().unwrap().status.success());
    mode(&db, 0o444);
    mode(dir.path(), 0o555);
    let mut cmd = adcab(&config, &["serve"]);
    if proc_status(std::process::id(), "Uid:") == 0 {
        cmd.uid(65534).gid(65534);
    }
    let said = refused(cmd);
    mode(dir.path(), 0o755);
    eprintln!("read-only: {said}");
    assert!(
        said.contains("does not take writes") || said.contains("read-only"),
        "{said}"
    );
}

#[test]
fn log_lines_carry_no_colour_codes_when_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = serve(adcab(&config(dir.path(), ""), &["serve"]));
    for line in &server.printed {
        assert!(!line.contains('\x1b'), "colour codes in {line:?}");
    }
    let (status, _, body) = call(
        &agent(),
        "GET",
        &format!("{}/account/info", server.base),
        &server.key(),
        None,
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
    let later = server.stop();
    let text = String::from_utf8_lossy(&later);
    assert!(text.contains("adcab stopped"), "{text}");
    assert!(!later.contains(&0x1b), "colour codes in {text:?}");
}
