//! A fake rates server for tests: the ECB's daily reference-rates XML at
//! `/eurofxref-daily.xml` and a TON price JSON (`{"EUR": 4.7, "USD": 5.1}`) at `/ton.json`,
//! on 127.0.0.1 and a free port. It publishes the day and rates a test sets (a day without a
//! rate is a day the test does not publish: the fake keeps answering the last one, as the ECB
//! does over a weekend), and answers the next calls with a fault on demand: an error, or a
//! slow answer. Included with `#[path]` by test targets.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::Request;
use parking_lot::Mutex;

use crate::fake_server::{respond, FakeServer, Resp};

/// What the next calls (to either path) answer instead of the rates.
#[derive(Clone, Debug, PartialEq)]
pub enum RatesFault {
    /// HTTP 503 with an HTML page.
    Error,
    /// Waits this long, then answers normally.
    Slow(Duration),
    /// HTTP 200 with a page that is not rates.
    Garbage,
}

struct State {
    ecb_day: String,
    ecb: Vec<(String, String)>,
    ton: Vec<(String, String)>,
    faults: VecDeque<RatesFault>,
    calls: Vec<String>,
}

/// The fake, serving until dropped.
pub struct FakeRates {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub url: String,
    shared: Arc<Mutex<State>>,
    _server: FakeServer,
}

impl FakeRates {
    /// A fake publishing no ECB day yet (an empty cube) and no TON prices.
    pub fn start() -> FakeRates {
        let shared = Arc::new(Mutex::new(State {
            ecb_day: String::new(),
            ecb: Vec::new(),
            ton: Vec::new(),
            faults: VecDeque::new(),
            calls: Vec::new(),
        }));
        let server = FakeServer::start({
            let shared = shared.clone();
            move |req| handle(shared.clone(), req)
        });
        FakeRates {
            url: server.url.clone(),
            shared,
            _server: server,
        }
    }

    /// The ECB file's URL.
    pub fn ecb_url(&self) -> String {
        format!("{}/eurofxref-daily.xml", self.url)
    }

    /// The TON prices' URL.
    pub fn ton_url(&self) -> String {
        format!("{}/ton.json", self.url)
    }

    /// From now on the ECB file is of `day` (YYYY-MM-DD) with `rates` (`("USD", "1.0512")`).
    pub fn publish_ecb(&self, day: &str, rates: &[(&str, &str)]) {
        let mut st = self.shared.lock();
        st.ecb_day = day.to_string();
        st.ecb = rates
            .iter()
            .map(|(c, r)| (c.to_string(), r.to_string()))
            .collect();
    }

    /// From now on one TON costs these (`("EUR", "4.7")`).
    pub fn publish_ton(&self, prices: &[(&str, &str)]) {
        self.shared.lock().ton = prices
            .iter()
            .map(|(c, r)| (c.to_string(), r.to_string()))
            .collect();
    }

    /// The next `n` calls answer with `fault`, then the fake recovers.
    pub fn fail_next(&self, n: usize, fault: RatesFault) {
        let mut st = self.shared.lock();
        st.faults.extend(std::iter::repeat_n(fault, n));
    }

    /// The paths called, in order (faults included).
    pub fn calls(&self) -> Vec<String> {
        self.shared.lock().calls.clone()
    }
}

fn ecb_xml(day: &str, rates: &[(String, String)]) -> String {
    let cubes: String = rates
        .iter()
        .map(|(c, r)| format!("\t\t\t<Cube currency='{c}' rate='{r}'/>\n"))
        .collect();
    let day = if day.is_empty() {
        String::new()
    } else {
        format!("\t\t<Cube time='{day}'>\n{cubes}\t\t</Cube>\n")
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gesmes:Envelope \
         xmlns:gesmes=\"http://www.gesmes.org/xml/2002-08-01\" \
         xmlns=\"http://www.ecb.int/vocabulary/2002-08-01/eurofxref\">\n\
         \t<gesmes:subject>Reference rates</gesmes:subject>\n\
         \t<gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>\n\
         \t<Cube>\n{day}\t</Cube>\n</gesmes:Envelope>\n"
    )
}

async fn handle(shared: Arc<Mutex<State>>, req: Request<Incoming>) -> Result<Resp, Infallible> {
    let path = req.uri().path().to_string();
    let fault = {
        let mut st = shared.lock();
        st.calls.push(path.clone());
        st.faults.pop_front()
    };
    match fault {
        Some(RatesFault::Error) => {
            return Ok(respond(
                503,
                "text/html",
                "<html>Service Unavailable</html>".into(),
            ))
        }
        Some(RatesFault::Garbage) => {
            return Ok(respond(200, "text/html", "<html>maintenance</html>".into()))
        }
        Some(RatesFault::Slow(wait)) => tokio::time::sleep(wait).await,
        None => {}
    }
    let st = shared.lock();
    Ok(match path.as_str() {
        "/eurofxref-daily.xml" => respond(200, "text/xml", ecb_xml(&st.ecb_day, &st.ecb)),
        "/ton.json" => {
            let body: Vec<String> = st
                .ton
                .iter()
                .map(|(c, r)| format!("\"{c}\": {r}"))
                .collect();
            respond(200, "application/json", format!("{{{}}}", body.join(", ")))
        }
        _ => respond(404, "text/plain", "not found".into()),
    })
}
