//! Owns the connection regressions: a body that does not arrive in time, silent, slow and
//! idle connections closed, the connection cap, and a client that does not take its answer.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::{campaign, open, request};
use crate::helpers::{read_answer, spawn_app_with, wait_for};

/// Waits until the server closes `stream` (a read gives EOF or an error); returns how long.
fn closed_after(mut stream: TcpStream) -> Duration {
    let started = Instant::now();
    let mut sink = [0u8; 1024];
    while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
    started.elapsed()
}

#[test]
fn a_body_that_does_not_arrive_in_time_is_answered_408() {
    let app = spawn_app_with(|c| c.server.body_timeout_ms = 400);
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let bytes = request(
        "PATCH",
        &format!("/campaigns/{ad}?account_id={cabinet}"),
        &[
            ("X-API-Key", key.clone()),
            ("Content-Type", "application/json".into()),
            ("Content-Length", "100".into()),
        ],
        "{\"title\":",
    );
    let started = Instant::now();
    let mut stream = open(&app, &bytes);
    read_answer(&mut stream)
        .unwrap()
        .assert_error(408, "REQUEST_TIMEOUT");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(350) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert_eq!(campaign(&app, cabinet, ad, &key)["title"], "Running");
}

#[test]
fn silent_slow_and_idle_connections_are_closed() {
    let app = spawn_app_with(|c| c.server.header_timeout_ms = 300);
    let silent = TcpStream::connect(app.addr()).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    assert!(closed_after(silent) < Duration::from_secs(2));

    let mut slow = TcpStream::connect(app.addr()).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let started = Instant::now();
    for byte in b"GET /api/v1/targeting HTTP/1.1\r\nX-Slow: ".iter().cycle() {
        if slow.write_all(&[*byte]).is_err() || started.elapsed() > Duration::from_secs(3) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a head trickling in is cut off"
    );

    let mut idle = TcpStream::connect(app.addr()).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    idle.write_all(b"GET /api/v1/targeting HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    read_answer(&mut idle)
        .unwrap()
        .assert_error(401, "API_KEY_MISSING");
    assert!(
        closed_after(idle) < Duration::from_secs(2),
        "keep-alive idles out"
    );
}

#[test]
fn connections_over_the_cap_are_told_busy_and_served_again_after() {
    let app = spawn_app_with(|c| {
        c.server.max_connections = 2;
        c.server.header_timeout_ms = 20_000;
    });
    let (_, _, key) = app.manager();
    // Each held connection is one the server admitted: a connection it refuses is answered at
    // once (a place can still be taken for a moment by the start-up probe's connection, which
    // the server lets go only when it sees it close).
    let held: Vec<TcpStream> = (0..2)
        .map(|_| {
            wait_for(Duration::from_secs(5), "a place to hold", || {
                let mut s = TcpStream::connect(app.addr()).unwrap();
                s.set_read_timeout(Some(Duration::from_millis(300)))
                    .unwrap();
                let mut byte = [0u8; 1];
                match s.read(&mut byte) {
                    Err(e)
                        if e.kind() == std::io::ErrorKind::WouldBlock
                            || e.kind() == std::io::ErrorKind::TimedOut =>
                    {
                        Some(s)
                    }
                    _ => None,
                }
            })
        })
        .collect();
    let mut third = TcpStream::connect(app.addr()).unwrap();
    third
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let busy = read_answer(&mut third).unwrap();
    busy.assert_error(503, "SERVICE_UNAVAILABLE");
    assert_eq!(
        busy.headers.get("retry-after").map(String::as_str),
        Some("2")
    );
    drop(held);
    wait_for(
        Duration::from_secs(5),
        "a place to free up and serve again",
        || {
            let mut s = TcpStream::connect(app.addr()).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            s.write_all(&request(
                "GET",
                "/targeting",
                &[("X-API-Key", key.clone())],
                "",
            ))
            .unwrap();
            (read_answer(&mut s).map(|r| r.status).ok() == Some(200)).then_some(())
        },
    );
}

#[test]
fn an_answer_the_client_does_not_take_closes_its_connection() {
    let app = spawn_app_with(|c| {
        c.server.max_connections = 1;
        c.server.write_timeout_ms = 500;
        c.limits.reads_per_minute = 1_000_000;
    });
    let (_, _, key) = app.manager();
    let one = request("GET", "/targeting", &[("X-API-Key", key.clone())], "");
    let keep_alive = String::from_utf8(one)
        .unwrap()
        .replace("Connection: close\r\n", "");
    // The greedy client sends thousands of requests and reads only the first answer, once it
    // holds the one place (the start-up probe's connection may still hold it for a moment).
    let greedy = wait_for(
        Duration::from_secs(10),
        "the greedy client to hold the one place",
        || {
            let mut greedy = TcpStream::connect(app.addr()).unwrap();
            greedy
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            greedy
                .write_all(keep_alive.repeat(3_000).as_bytes())
                .unwrap();
            (read_answer(&mut greedy).map(|r| r.status).ok() == Some(200)).then_some(greedy)
        },
    );
    let started = Instant::now();
    let served = wait_for(
        Duration::from_secs(10),
        "the stalled connection to lose its place",
        || {
            let mut other = TcpStream::connect(app.addr()).unwrap();
            other
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            other
                .write_all(&request(
                    "GET",
                    "/targeting",
                    &[("X-API-Key", key.clone())],
                    "",
                ))
                .unwrap();
            match read_answer(&mut other) {
                Ok(r) if r.status == 200 => return Some(started.elapsed()),
                Ok(r) => assert_eq!(r.status, 503, "{}", r.body),
                Err(_) => {}
            }
            None
        },
    );
    assert!(
        served > Duration::from_millis(300),
        "the greedy client held the place first: {served:?}"
    );
    drop(greedy);
}
