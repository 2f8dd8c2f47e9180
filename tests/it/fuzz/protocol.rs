//! Owns the fixed cases that break HTTP itself: bad request lines and versions, oversized or
//! malformed heads, conflicting or broken framing, bodies cut short.

use super::world::World;
use super::Case;

/// Requests that break HTTP itself, each sent once.
pub(super) fn protocol_cases(w: &World) -> Vec<Case> {
    let tail = "Host: x\r\nConnection: close\r\n\r\n";
    let line = |l: &str| Case::new("protocol", format!("{l}\r\n{tail}"));
    let with = |headers: &str| {
        Case::new(
            "protocol",
            format!(
                "GET /api/v1/account/info HTTP/1.1\r\nX-API-Key: {}\r\n{headers}{tail}",
                w.manage
            ),
        )
    };
    let post = |path: &str, headers: &str, body: &[u8]| {
        let mut bytes = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nX-API-Key: {}\r\nIdempotency-Key: fuzz-protocol-0001\r\nContent-Type: application/json\r\n{headers}Connection: close\r\n\r\n",
            w.manage
        )
        .into_bytes();
        bytes.extend_from_slice(body);
        Case::new("protocol", bytes)
    };
    let mut cases = vec![
        Case::new("protocol", "GARBAGE\r\n\r\n"),
        Case::new("protocol", "GET\r\n\r\n"),
        Case::new("protocol", "GET /api/v1/targeting\r\n\r\n"),
        Case::new(
            "protocol",
            "\r\n\r\nGET /api/v1/targeting HTTP/1.1\r\nConnection: close\r\n\r\n",
        ),
        Case::new(
            "protocol",
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n".to_vec(),
        ),
        Case::new("protocol", b"\x00\x01\x02\x03\xff\xfe\r\n\r\n".to_vec()),
        Case::new("protocol", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        line("GET /api/v1/targeting HTTP/1.1 extra"),
        line("GET  /api/v1/targeting  HTTP/1.1"),
        line("GET\t/api/v1/targeting\tHTTP/1.1"),
        line("GET /api/v1/targeting HTTP/2.0"),
        line("GET /api/v1/targeting HTTP/1.2"),
        line("GET /api/v1/targeting HTTP/0.9"),
        line("GET /api/v1/targeting HTTP/9.9"),
        line("GET /api/v1/targeting HTTPS/1.1"),
        line("GET /api/v1/targeting http/1.1"),
        line("GET /api/v1/targeting HTTP/1.10"),
        line("GET /api/v1/targeting HTTP/ 1.1"),
        line("GET /api/v1/targeting HTTP/1.1\0"),
        line("OPTIONS * HTTP/1.1"),
        line("CONNECT 127.0.0.1:80 HTTP/1.1"),
        line("GET http://127.0.0.1/api/v1/targeting HTTP/1.1"),
        line("GET //api/v1/targeting HTTP/1.1"),
        line("GET api/v1/targeting HTTP/1.1"),
        line("GET /api/v1/campaigns/é€ HTTP/1.1"),
        Case::new(
            "protocol",
            b"GET /api/v1/campaigns/\xff\xfe HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        line(&format!(
            "GET /api/v1/targeting?{} HTTP/1.1",
            "a".repeat(70 * 1024)
        )),
        line(&format!("GET /api/v1/{} HTTP/1.1", "x/".repeat(35 * 1024))),
        with(
            &(0..150)
                .map(|i| format!("X-Fuzz-{i}: {i}\r\n"))
                .collect::<String>(),
        ),
        with(&format!("X-Big: {}\r\n", "b".repeat(200 * 1024))),
        with(&format!("X-Big: {}\r\n", "b".repeat(500 * 1024))),
        with("X-Fuzz: a\x01b\r\n"),
        with("X-Fuzz: a\0b\r\n"),
        with("X-Fuzz: \x7f\r\n"),
        with("X-Fuzz: a\rb\r\n"),
        with("X-Fuzz: a\x1bb\r\n"),
        with("Idempotency-Key: fuzz\x02key-0002\r\n"),
        with("NoColon\r\n"),
        with("Bad Name: x\r\n"),
        with(": empty name\r\n"),
        with("X-Fuzz: first\r\n folded\r\n"),
        with("X-Fuzz-é: x\r\n"),
        with("Content-Length: -1\r\n"),
        with("Content-Length: abc\r\n"),
        with("Content-Length: 99999999999999999999999\r\n"),
        with("Content-Length: 1\r\nContent-Length: 2\r\n"),
        with("Transfer-Encoding: gzip\r\n"),
        with("Transfer-Encoding: chunked, identity\r\n"),
        Case::new(
            "protocol",
            format!(
                "GET /api/v1/account/info HTTP/1.1\nX-API-Key: {}\nConnection: close\n\n",
                w.manage
            ),
        ),
        post(
            "/api/v1/postback",
            "Transfer-Encoding: chunked\r\n",
            b"zz\r\n{}\r\n0\r\n\r\n",
        ),
        post(
            "/api/v1/campaigns/bulk",
            "Transfer-Encoding: chunked\r\n",
            b"ffffffffffffffffffff\r\nx\r\n0\r\n\r\n",
        ),
        post(
            "/api/v1/postback",
            "Transfer-Encoding: chunked\r\n",
            b"2;ext=1\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n",
        ),
        post("/api/v1/campaigns", "Content-Length: 3000000\r\n", b""),
        post("/api/v1/media", "Content-Length: 20000000\r\n", b""),
        post(
            "/api/v1/postback",
            "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
            b"2\r\n{}\r\n0\r\n\r\n",
        ),
        post(
            "/api/v1/postback",
            "Content-Length: 2\r\n",
            b"{}GET /api/v1/targeting HTTP/1.1\r\n\r\n",
        ),
    ];
    for path in ["/api/v1/postback", "/api/v1/campaigns", "/api/v1/targeting"] {
        let mut cut = post(path, "Content-Length: 500\r\n", b"{\"ref\":\"promo42\",");
        cut.cut = true;
        cases.push(cut);
    }
    cases
}
