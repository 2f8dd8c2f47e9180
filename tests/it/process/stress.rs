//! Owns the process under stress: memory while uploads stall, CPU while descriptors are out,
//! threads while another process holds the database lock.

use std::io::Write;
use std::net::TcpStream;
use std::process::Command;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::helpers::{read_answer, wait_for, RawResp};

use super::{adcab, agent, call, config, peak_while, proc_status, serve};

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
    // The server's own threads (main, the writer, 8 readers, one runtime worker per core),
    // 16 platform calls waiting for the writer, the background loops, and a margin; never
    // more than the 80 this test allowed before the reads had threads of their own.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let bound = (48 + cores).min(80);
    assert!(
        threads < bound,
        "{threads} threads in the server, over {bound}"
    );

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
