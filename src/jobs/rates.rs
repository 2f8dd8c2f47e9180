//! Owns keeping the day's exchange rates (`[rates]`): once a day of the service clock (and at
//! start when the day's are missing) the ECB's reference rates (source `ecb`, kept under the
//! day the ECB dates them) and the TON URL's (source `url`), and the fixed Stars rate for the
//! day (`fixed`). Answers are read with a size bound and a deadline, and only the parts wanted
//! are taken from them. A failed fetch is logged and tried again later; it holds nothing up
//! (a fetch runs on a thread of its own, which a stopping server does not wait for). A rate
//! set by hand is never replaced by a fetch.

use std::io::Read;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use rust_decimal::Decimal;
use tokio::sync::watch;

use crate::clock;
use crate::config::{RatesConfig, RatesSource};
use crate::domain::agency::CurrencyCode;
use crate::services::Services;
use crate::store::rates::{self, Rate};
use crate::store::StoreError;

/// How often the loop looks at the service clock's day (and at once when the clock moves).
const TICK: Duration = Duration::from_secs(60);
/// A failed fetch is tried again after this long (real time).
const RETRY: Duration = Duration::from_secs(15 * 60);
/// The largest answer read: the ECB's daily file is about 2 KB.
const MAX_BYTES: u64 = 64 * 1024;
/// The most rates taken from one answer.
const MAX_RATES: usize = 100;

/// Why one source's rates were not kept.
#[derive(Debug)]
pub enum FetchError {
    /// No answer: refused, unreachable, or past the deadline.
    Transport(String),
    /// An answer other than 200.
    Status(u16),
    /// An answer larger than [`MAX_BYTES`].
    TooLarge,
    /// An answer without the rates it should carry; the text says what was missing.
    Malformed(&'static str),
    Store(StoreError),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Transport(e) => write!(f, "no answer: {e}"),
            FetchError::Status(s) => write!(f, "answered HTTP {s}"),
            FetchError::TooLarge => write!(f, "the answer is larger than {MAX_BYTES} bytes"),
            FetchError::Malformed(why) => write!(f, "the answer is not rates: {why}"),
            FetchError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FetchError {}

impl From<StoreError> for FetchError {
    fn from(e: StoreError) -> FetchError {
        FetchError::Store(e)
    }
}

/// What one pass did: rates kept per source, and the sources that failed.
#[derive(Debug, Default)]
pub struct Pass {
    pub kept: usize,
    pub failed: Vec<(&'static str, FetchError)>,
}

/// Keeps the day's rates until `stop` turns true: a pass at start, then whenever the service
/// clock's day has a source not yet fetched, at most every [`RETRY`] after a failure.
pub async fn run(services: Services, mut stop: watch::Receiver<bool>) {
    let mut failed_at: Option<Instant> = None;
    let mut clock_moved = services.clock_moved.subscribe();
    while !*stop.borrow() {
        if failed_at.is_none_or(|t| t.elapsed() >= RETRY) {
            let s = services.clone();
            let (tx, rx) = tokio::sync::oneshot::channel();
            // A thread of its own: a fetch waiting on its deadline never holds up a stop.
            std::thread::spawn(move || {
                let _ = tx.send(pass_if_due(&s));
            });
            tokio::select! {
                done = rx => match done {
                    Ok(Ok(pass)) => {
                        failed_at = (!pass.failed.is_empty()).then(Instant::now);
                        for (source, e) in &pass.failed {
                            tracing::warn!(source, error = %e, "exchange rates not fetched; tried again later");
                        }
                        if pass.kept > 0 {
                            tracing::info!(kept = pass.kept, "exchange rates kept");
                        }
                    }
                    Ok(Err(e)) => {
                        failed_at = Some(Instant::now());
                        tracing::error!(error = %e, "exchange rates pass failed");
                    }
                    Err(_) => tracing::error!("exchange rates pass panicked"),
                },
                _ = stop.changed() => return,
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(TICK) => {}
            _ = clock_moved.changed() => {}
            _ = stop.changed() => {}
        }
    }
}

/// The service clock's day (UTC) and its time as stored.
fn today(s: &Services) -> Result<(NaiveDate, String), StoreError> {
    let now = s.db.read_blocking(clock::now)?;
    Ok((now.date_naive(), clock::iso(now)))
}

/// Fetches each source whose rates of the service clock's day are missing. Blocking.
pub fn pass_if_due(s: &Services) -> Result<Pass, StoreError> {
    let (day, _) = today(s)?;
    let config = &s.config.rates;
    let stars_code = CurrencyCode::parse("STARS").expect("STARS is a code");
    let fetched = |source: &'static str| s.db.read_blocking(|c| rates::fetched_on(c, source, day));
    let stars_due = match &config.stars_rate.0 {
        Some((_, quote)) => {
            s.db.read_blocking(|c| rates::find(c, &stars_code, quote, day, 0))?
                .is_none()
        }
        None => false,
    };
    let ecb_due = config.source == RatesSource::Ecb && !fetched("ecb")?;
    let ton_due = !config.ton_url.is_empty() && !fetched("url")?;
    Ok(pass(s, ecb_due, ton_due, stars_due))
}

/// Fetches every configured source now, whether or not the day's are kept. Blocking.
pub fn pass_now(s: &Services) -> Pass {
    let config = &s.config.rates;
    pass(
        s,
        config.source == RatesSource::Ecb,
        !config.ton_url.is_empty(),
        config.stars_rate.0.is_some(),
    )
}

fn pass(s: &Services, ecb: bool, ton: bool, stars: bool) -> Pass {
    let mut done = Pass::default();
    let config = &s.config.rates;
    let mut note = |source: &'static str, kept: Result<usize, FetchError>| match kept {
        Ok(n) => done.kept += n,
        Err(e) => done.failed.push((source, e)),
    };
    if ecb {
        note("ecb", fetch_ecb(s, config));
    }
    if ton {
        note("url", fetch_ton(s, config));
    }
    if stars {
        note("fixed", keep_stars(s, config));
    }
    done
}

fn fetch_ecb(s: &Services, config: &RatesConfig) -> Result<usize, FetchError> {
    let body = get(&config.ecb_url, config.timeout_ms)?;
    let (day, found) = parse_ecb(&body)?;
    let eur = CurrencyCode::parse("EUR").expect("EUR is a code");
    keep(s, &eur, day, found, "ecb")
}

fn fetch_ton(s: &Services, config: &RatesConfig) -> Result<usize, FetchError> {
    let body = get(&config.ton_url, config.timeout_ms)?;
    let found = parse_ton(&body)?;
    let (day, _) = today(s)?;
    let ton = CurrencyCode::parse("TON").expect("TON is a code");
    keep(s, &ton, day, found, "url")
}

fn keep_stars(s: &Services, config: &RatesConfig) -> Result<usize, FetchError> {
    let Some((rate, quote)) = config.stars_rate.0 else {
        return Ok(0);
    };
    let (day, _) = today(s)?;
    let stars = CurrencyCode::parse("STARS").expect("STARS is a code");
    keep(s, &stars, day, vec![(quote, rate)], "fixed")
}

/// Keeps `found` as `base → quote` rates of `day` (a rate set by hand stays).
fn keep(
    s: &Services,
    base: &CurrencyCode,
    day: NaiveDate,
    found: Vec<(CurrencyCode, Decimal)>,
    source: &str,
) -> Result<usize, FetchError> {
    let (_, now) = today(s)?;
    let kept = s.db.write_blocking(|tx| {
        let mut kept = 0;
        for (quote, rate) in &found {
            let rate = Rate {
                base: *base,
                quote: *quote,
                day,
                rate: *rate,
                source: source.to_string(),
            };
            kept += usize::from(rates::set_fetched(tx, &rate, &now)?);
        }
        Ok::<_, StoreError>(kept)
    })?;
    Ok(kept)
}

/// The answer of `url`, at most [`MAX_BYTES`], within `timeout_ms` in all.
fn get(url: &str, timeout_ms: u64) -> Result<String, FetchError> {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_millis(timeout_ms))
        .redirects(2)
        .build();
    let answer = match agent.get(url).call() {
        Ok(answer) => answer,
        Err(ureq::Error::Status(status, _)) => return Err(FetchError::Status(status)),
        Err(e) => return Err(FetchError::Transport(e.to_string())),
    };
    let mut bytes = Vec::new();
    answer
        .into_reader()
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FetchError::Transport(e.to_string()))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(FetchError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| FetchError::Malformed("not UTF-8"))
}

/// The ECB's daily file: the day of its `<Cube time='...'>` and each `<Cube currency='...'
/// rate='...'/>` after it (EUR → currency), until another day's. Only `Cube` tags and those
/// three attributes are read; anything else is skipped, and a bad rate refuses the answer.
pub fn parse_ecb(xml: &str) -> Result<(NaiveDate, Vec<(CurrencyCode, Decimal)>), FetchError> {
    let mut day = None;
    let mut found = Vec::new();
    let mut rest = xml;
    while let Some(at) = rest.find("<Cube") {
        rest = &rest[at + 5..];
        let end = rest
            .find('>')
            .ok_or(FetchError::Malformed("a Cube tag does not end"))?;
        let tag = &rest[..end];
        rest = &rest[end..];
        if let Some(time) = attribute(tag, "time") {
            if day.is_some() {
                break;
            }
            day = Some(
                NaiveDate::parse_from_str(time, "%Y-%m-%d")
                    .map_err(|_| FetchError::Malformed("the day is not a date"))?,
            );
            continue;
        }
        let (Some(currency), Some(rate)) = (attribute(tag, "currency"), attribute(tag, "rate"))
        else {
            continue;
        };
        if day.is_none() {
            return Err(FetchError::Malformed("a rate before its day"));
        }
        if found.len() == MAX_RATES {
            return Err(FetchError::Malformed("too many rates"));
        }
        found.push((
            CurrencyCode::parse(currency).ok_or(FetchError::Malformed("a bad currency code"))?,
            positive(rate).ok_or(FetchError::Malformed("a bad rate"))?,
        ));
    }
    match day {
        Some(day) if !found.is_empty() => Ok((day, found)),
        _ => Err(FetchError::Malformed("no day with rates")),
    }
}

/// The value of ` name='...'` (or `"..."`) in a tag's text.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = tag;
    loop {
        let at = rest.find(name)?;
        let before = rest[..at].chars().next_back();
        let after = rest[at + name.len()..].trim_start();
        rest = &rest[at + name.len()..];
        if !before.is_some_and(char::is_whitespace) {
            continue;
        }
        let Some(after) = after.strip_prefix('=') else {
            continue;
        };
        let after = after.trim_start();
        let quote = after.chars().next().filter(|q| *q == '\'' || *q == '"')?;
        let value = &after[1..];
        return value.find(quote).map(|end| &value[..end]);
    }
}

/// The TON URL's answer: a JSON object of what one TON costs per currency code. Keys that are
/// not codes are skipped; a value that is not a positive number refuses the answer.
pub fn parse_ton(json: &str) -> Result<Vec<(CurrencyCode, Decimal)>, FetchError> {
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(json).map_err(|_| FetchError::Malformed("not a JSON object"))?;
    let mut found = Vec::new();
    for (key, value) in object {
        let Some(code) = CurrencyCode::parse(&key).filter(|c| c.as_str() != "TON") else {
            continue;
        };
        let text = match &value {
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::String(s) => s.clone(),
            _ => return Err(FetchError::Malformed("a rate is not a number")),
        };
        if found.len() == MAX_RATES {
            return Err(FetchError::Malformed("too many rates"));
        }
        found.push((
            code,
            positive(&text).ok_or(FetchError::Malformed("a bad rate"))?,
        ));
    }
    if found.is_empty() {
        return Err(FetchError::Malformed("no rates"));
    }
    Ok(found)
}

fn positive(text: &str) -> Option<Decimal> {
    let text = text.trim();
    let d = text
        .parse::<Decimal>()
        .ok()
        .or_else(|| Decimal::from_scientific(text).ok())?;
    (d > Decimal::ZERO).then(|| d.normalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ECB: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<Cube>
		<Cube time='2026-11-27'>
			<Cube currency='USD' rate='1.0512'/>
			<Cube currency='JPY' rate='158.61'/>
		</Cube>
	</Cube>
</gesmes:Envelope>"#;

    #[test]
    fn the_ecb_file_gives_its_day_and_rates() {
        let (day, found) = parse_ecb(ECB).unwrap();
        assert_eq!(day.to_string(), "2026-11-27");
        let text: Vec<String> = found.iter().map(|(c, r)| format!("{c} {r}")).collect();
        assert_eq!(text, ["USD 1.0512", "JPY 158.61"]);
    }

    #[test]
    fn a_hostile_or_broken_ecb_answer_is_refused_not_guessed() {
        for bad in [
            "",
            "<html>maintenance</html>",
            "<Cube time='2026-11-27'>",
            "<Cube currency='USD' rate='1.05'/>",
            "<Cube time='2026-11-27'><Cube currency='USD' rate='-1'/>",
            "<Cube time='2026-11-27'><Cube currency='USD' rate='abc'/>",
            "<Cube time='yesterday'><Cube currency='USD' rate='1'/>",
            "<Cube time='2026-11-27'><Cube currency='USD' rate='1",
        ] {
            assert!(parse_ecb(bad).is_err(), "{bad}");
        }
        let many: String = (0..200)
            .map(|_| "<Cube currency='USD' rate='1'/>")
            .collect();
        assert!(parse_ecb(&format!("<Cube time='2026-11-27'>{many}")).is_err());
        let older = "<Cube time=\"2026-11-27\"><Cube rate=\"1.1\" currency=\"USD\"/></Cube>\
                     <Cube time=\"2026-11-26\"><Cube currency=\"USD\" rate=\"9\"/></Cube>";
        let (day, found) = parse_ecb(older).unwrap();
        assert_eq!((day.to_string(), found.len()), ("2026-11-27".into(), 1));
    }

    #[test]
    fn the_ton_answer_is_an_object_of_prices() {
        let found = parse_ton(r#"{"EUR": 4.7, "usd": "5.1", "updated": 1, "TON": 1}"#);
        let text: Vec<String> = found
            .unwrap()
            .iter()
            .map(|(c, r)| format!("{c} {r}"))
            .collect();
        assert_eq!(text, ["EUR 4.7", "USD 5.1"]);
        for bad in ["[]", "{}", r#"{"EUR": -1}"#, r#"{"EUR": {"x": 1}}"#, "nope"] {
            assert!(parse_ton(bad).is_err(), "{bad}");
        }
    }
}
