//! Owns a rule's own pages: `/rules/{id}/log` (what it did, newest first, each change a
//! sentence naming the campaign, a campaign's repeated skips for one reason folded into one
//! line with a count and the time span; `?format=csv|xlsx` downloads every entry, unfolded)
//! and `/rules/{id}/preview` (what it would have done over the last seven days).

use std::collections::HashMap;

use maud::{html, Markup};
use serde_json::{json, Value};

use super::super::super::export::{self, Cell, Table};
use super::super::super::session::Session;
use super::super::super::{layout, Visit, WebError};
use super::super::sentence;
use super::words::{
    action_words, change_words, conditions_words, guards_words, matched_words, outcome_words,
    reason_words, slot, splice, state_badges,
};
use super::{reachable, Reached};
use crate::http::Reply;
use crate::jobs::automation::{self, preview};
use crate::primitives::unix_now;
use crate::ratelimit::Holder;
use crate::store::campaigns;
use crate::store::rules;

/// Lines the log page lists.
const LOG: usize = 100;
/// Entries read for them: repeated skips fold, so more entries than lines.
const READ: usize = 1000;
/// Evaluations the preview page lists.
const PREVIEWED: usize = 50;

/// One line of a log or preview: an evaluation, and how many identical skips of its campaign
/// it stands for, with the span of their times.
struct Line<'a> {
    entry: &'a Value,
    count: usize,
    from: &'a str,
    to: &'a str,
}

/// Folds each campaign's run of consecutive skips for one reason into one line (other
/// campaigns' entries in between do not break a run: each hour evaluates every campaign).
fn fold(entries: &[Value]) -> Vec<Line<'_>> {
    let mut lines: Vec<Line> = Vec::new();
    let mut open: HashMap<i64, usize> = HashMap::new();
    for e in entries {
        let ad = e["ad_id"].as_i64().unwrap_or_default();
        let at = e["at"].as_str().unwrap_or("");
        if e["outcome"] == "skipped" {
            if let Some(line) = open.get(&ad).and_then(|i| lines.get_mut(*i)) {
                if line.entry["reason"] == e["reason"] {
                    line.count += 1;
                    line.from = line.from.min(at);
                    line.to = line.to.max(at);
                    continue;
                }
            }
            open.insert(ad, lines.len());
        } else {
            open.remove(&ad);
        }
        lines.push(Line {
            entry: e,
            count: 1,
            from: at,
            to: at,
        });
    }
    lines
}

/// The titles of the campaigns `entries` name.
async fn titles(
    visit: &Visit<'_>,
    account: i64,
    entries: &[Value],
) -> Result<HashMap<i64, String>, WebError> {
    let mut ads: Vec<i64> = entries.iter().filter_map(|e| e["ad_id"].as_i64()).collect();
    ads.sort_unstable();
    ads.dedup();
    let found = visit
        .state
        .services
        .db
        .read(move |c| campaigns::titles(c, account, &ads));
    Ok(found.await?)
}

/// Evaluations as the log and the preview list them: `at`, `ad_id`, `matched`, `action`,
/// `outcome`, `reason` and `warning`, as in the API's answers, folded.
fn lines_table(
    visit: &Visit<'_>,
    found: &Reached,
    titles: &HashMap<i64, String>,
    entries: &[Value],
    most: usize,
) -> Markup {
    let (lang, fmt) = (visit.lang, visit.fmt());
    let account = found.rule.account_id;
    let label = |key: &str| visit.t(key);
    html! {
        div.table-wrap { table.cards.rule-log {
            thead { tr {
                th { (label("rules-col-at")) } th { (label("rules-col-change")) } th { (label("rules-col-matched")) }
                th { (label("rules-col-outcome")) } th { (label("rules-col-reason")) }
            } }
            tbody { @for line in fold(entries).iter().take(most) { tr {
                @let l = line.entry;
                @let outcome = l["outcome"].as_str().unwrap_or("");
                @let ad = l["ad_id"].as_i64().unwrap_or_default();
                @let name = titles.get(&ad).cloned().unwrap_or_else(|| format!("#{ad}"));
                td data-label=(label("rules-col-at")) {
                    @if line.count > 1 { (fmt.time(line.from)) " – " }
                    (fmt.time(line.to))
                }
                td data-label=(label("rules-col-change")) {
                    (change_words(lang, found.kind, &l["action"], outcome == "acted",
                        html! { a href={ "/campaigns/" (account) "/" (ad) } { (name) } }))
                }
                td data-label=(label("rules-col-matched")) { (matched_words(&l["matched"])) }
                td data-label=(label("rules-col-outcome")) {
                    @let class = match outcome {
                        "acted" => "active",
                        "dry_run" | "would_act" => "review",
                        "failed" => "declined",
                        _ => "",
                    };
                    span class={ "badge " (class) } { (outcome_words(lang, outcome)) }
                    @if line.count > 1 {
                        " " strong.folded { (visit.ta("rules-folded", &[("count", line.count.into())])) }
                    }
                }
                td data-label=(label("rules-col-reason")) {
                    @if let Some(why) = l["reason"].as_str() { (reason_words(lang, why)) }
                    @if let Some(warning) = l["warning"].as_str() { span.warning { (sentence(warning)) } }
                }
            } } }
        } }
    }
}

/// A page of one rule: the rule in words, then `section` (its log or its preview).
fn rule_page(visit: &Visit<'_>, session: &Session, found: &Reached, section: Markup) -> Reply {
    let (lang, rule) = (visit.lang, &found.rule);
    let then = action_words(visit.fmt(), &rule.spec.action, found.kind);
    let body = html! {
        p.muted {
            a href="/rules" { (visit.t("rules-title")) } " · #" (rule.id) " · "
            (found.cabinet)
        }
        h1 { (rule.spec.name) " " (state_badges(lang, &rule.spec)) }
        div.card {
            (conditions_words(lang, &rule.spec, found.kind))
            p { (visit.ta("rules-then", &[("action", then.into())])) " " span.muted { (guards_words(lang, &rule.spec)) } }
        }
        (section)
    };
    layout::page(visit, session, "/rules", &rule.spec.name, body)
}

/// `GET /rules/{id}/log`: the rule's last evaluations, newest first, folded; or, with
/// `?format=csv|xlsx`, every entry as a download.
pub async fn log<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let found = reachable(visit, session, args[0]).await?;
    let format = export::Format::requested(visit)?;
    let id = found.rule.id;
    let most = if format.is_some() {
        export::MAX_ROWS
    } else {
        READ
    };
    let entries = visit
        .state
        .services
        .db
        .read(move |c| rules::log(c, id, None, most));
    let reviews = visit
        .state
        .services
        .platform
        .capabilities()
        .bid_edit_reviews;
    let lines: Vec<Value> = entries
        .await?
        .into_iter()
        .map(|e| {
            json!({ "id": e.id, "at": e.at, "ad_id": e.ad_id, "matched": e.matched, "action": e.action,
            "warning": automation::warning(&found.rule, &e.outcome, reviews),
            "outcome": e.outcome, "reason": e.reason })
        })
        .collect();
    let titles = titles(visit, found.rule.account_id, &lines).await?;
    if let Some(format) = format {
        return download(visit, &found, &titles, &lines).reply(format);
    }
    let section = html! {
        h2 { (visit.t("rules-log")) }
        @if lines.is_empty() {
            div.empty { (visit.t("rules-log-empty")) }
        } @else {
            p.muted {
                (visit.ta("rules-log-lead", &[("count", lines.len().into())])) " "
                (export::links(visit, &format!("/rules/{id}/log")))
            }
            (lines_table(visit, &found, &titles, &lines, LOG))
        }
    };
    Ok(rule_page(visit, session, &found, section))
}

/// A rule's log as a download: one row per entry, unfolded, the API's field names, and the
/// change in a sentence of the page's language.
fn download(
    visit: &Visit<'_>,
    found: &Reached,
    titles: &HashMap<i64, String>,
    lines: &[Value],
) -> Table {
    let text = |v: &Value| -> Cell { v.as_str().map(str::to_string).into() };
    let rows = lines.iter().map(|l| {
        let ad = l["ad_id"].as_i64().unwrap_or_default();
        let title = titles.get(&ad).cloned().unwrap_or_else(|| format!("#{ad}"));
        let acted = l["outcome"] == "acted";
        let change = change_words(
            visit.lang,
            found.kind,
            &l["action"],
            acted,
            html! { (title) },
        );
        vec![
            Cell::Int(found.rule.id),
            l["id"].as_i64().into(),
            text(&l["at"]),
            Cell::Int(ad),
            title.into(),
            text(&l["outcome"]),
            text(&l["reason"]),
            // The sentence as text: the markup's escapes undone by reading it as text again.
            unescape(&change.into_string()).into(),
            l["matched"].to_string().into(),
            l["action"].to_string().into(),
        ]
    });
    Table {
        name: format!("rule-{}-log", found.rule.id),
        columns: vec![
            "rule_id", "id", "at", "ad_id", "title", "outcome", "reason", "change", "matched",
            "action",
        ],
        rows: rows.collect(),
    }
}

/// HTML text (as maud escapes it) back to plain text.
fn unescape(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// `GET /rules/{id}/preview`: what the rule would have done over the last seven days. It
/// changes nothing, so it is a page rather than a form.
pub async fn preview<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let found = reachable(visit, session, args[0]).await?;
    let (rule, kind) = (found.rule.clone(), found.kind);
    let who = Holder::Person(session.person.user.id);
    let state = visit.state;
    let replay = preview::kept_or_new(
        &state.services,
        &state.previews,
        &state.limiter,
        who,
        rule,
        kind,
    );
    let data = match replay.await {
        Ok(data) => data,
        Err(preview::Refused::Limited(info)) => {
            return Err(WebError::RateLimited {
                retry_after: info.retry_after(unix_now()),
            })
        }
        Err(preview::Refused::Store(e)) => return Err(e.into()),
    };
    let listed = data["evaluations"].as_array().map(Vec::as_slice);
    let lines = listed.unwrap_or_default();
    let lines = &lines[..lines.len().min(PREVIEWED)];
    let titles = titles(visit, found.rule.account_id, lines).await?;
    let fmt = visit.fmt();
    let (acts, skipped) = (&data["would_act"], &data["skipped"]);
    let counts = visit.ta(
        "rules-preview-counts",
        &[
            ("from", slot(0).into()),
            ("to", slot(1).into()),
            ("shown_acts", slot(2).into()),
            ("shown_skipped", slot(3).into()),
            ("acts", acts.as_i64().unwrap_or_default().into()),
        ],
    );
    let counts = splice(
        &counts,
        &[
            fmt.time(data["from"].as_str().unwrap_or("")),
            fmt.time(data["to"].as_str().unwrap_or("")),
            html! { strong { (acts) } },
            html! { strong { (skipped) } },
        ],
    );
    let section = html! {
        h2 { (visit.t("rules-preview")) }
        p #preview-counts { (counts) }
        p.muted { (visit.t("rules-preview-lead")) }
        @if let Some(warning) = data["review_warning"].as_str() {
            p.warning #review-warning role="note" { (sentence(warning)) }
        }
        @if lines.is_empty() {
            div.empty { (visit.t("rules-preview-empty")) }
        } @else {
            p.muted { (visit.ta("rules-preview-first", &[("count", lines.len().into())])) }
            (lines_table(visit, &found, &titles, lines, PREVIEWED))
        }
    };
    Ok(rule_page(visit, session, &found, section))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(hour: u32, ad: i64, outcome: &str, reason: Option<&str>) -> Value {
        json!({ "at": format!("2026-11-20T{hour:02}:00:00Z"), "ad_id": ad, "outcome": outcome, "reason": reason })
    }

    #[test]
    fn each_campaigns_run_of_skips_for_one_reason_folds_into_one_line() {
        // Newest first, two campaigns evaluated each hour.
        let log = [
            entry(9, 1, "skipped", Some("cooldown")),
            entry(9, 2, "acted", None),
            entry(8, 1, "skipped", Some("cooldown")),
            entry(8, 2, "skipped", Some("cooldown")),
            entry(7, 1, "skipped", Some("max_runs_per_day")),
            entry(7, 2, "skipped", Some("cooldown")),
            entry(6, 1, "skipped", Some("max_runs_per_day")),
            entry(5, 1, "acted", None),
            entry(4, 1, "skipped", Some("cooldown")),
        ];
        let lines = fold(&log);
        let seen: Vec<(i64, &str, usize, &str, &str)> = lines
            .iter()
            .map(|l| {
                let e = l.entry;
                (
                    e["ad_id"].as_i64().unwrap(),
                    e["outcome"].as_str().unwrap(),
                    l.count,
                    &l.from[11..13],
                    &l.to[11..13],
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (1, "skipped", 2, "08", "09"),
                (2, "acted", 1, "09", "09"),
                (2, "skipped", 2, "07", "08"),
                (1, "skipped", 2, "06", "07"),
                (1, "acted", 1, "05", "05"),
                (1, "skipped", 1, "04", "04"),
            ]
        );
    }
}
