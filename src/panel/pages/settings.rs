//! Owns `/settings`, a person's own account: their language (`en`, `ru` or the browser's),
//! time zone (an IANA name picked from a list with its offset now, or the browser's) and
//! Telegram chat, saved together; and their password (the current one checked under the
//! login's limits, the new one twice), which ends their other sessions; for an owner, the
//! agency's name and logo and the reporting currency their totals across cabinets convert into
//! (`POST /settings/currency`). Each refusal is shown beside its field; the page answers in a
//! newly chosen language at once.

use chrono::{Offset, Utc};
use chrono_tz::{Tz, TZ_VARIANTS};
use maud::{html, Markup};

use super::super::invite::password_refusal;
use super::super::multipart::Sent;
use super::super::session::Session;
use super::super::{layout, redirect, week, Form, Visit, WebError};
use super::{ops_error, panel_op};
use crate::domain::access::Access;
use crate::domain::agency::CurrencyCode;
use crate::domain::password;
use crate::http::Reply;
use crate::i18n::Lang;
use crate::ops::people::{self, Settings};
use crate::ops::reports::agency::{self, LogoRefusal};
use crate::primitives::unix_now;
use crate::store::rates as rate_rows;
use crate::store::reports as report_rows;
use crate::store::{alerts, sessions};

/// The form's value for "as my browser" (no language or zone of one's own).
const BROWSER: &str = "browser";

/// What the page shows beside its fields: refusals, and what was sent in place of the stored
/// values.
#[derive(Default)]
struct Shown<'f> {
    refused: Vec<(&'static str, String)>,
    sent: Option<&'f Form>,
}

impl Shown<'_> {
    fn beside(&self, field: &str) -> Markup {
        html! {
            @for (f, message) in &self.refused {
                @if *f == field { p.error role="alert" data-param=(f) { (message) } }
            }
        }
    }
}

pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    page(visit, session, Shown::default()).await
}

fn zone_offset(zone: Tz) -> String {
    let minutes = Utc::now()
        .with_timezone(&zone)
        .offset()
        .fix()
        .local_minus_utc()
        / 60;
    week::offset_text(minutes)
}

async fn page(visit: &Visit<'_>, session: &Session, shown: Shown<'_>) -> Result<Reply, WebError> {
    let user = &session.person.user;
    let id = user.id;
    let chat = visit
        .state
        .services
        .db
        .read(move |conn| alerts::user_chat(conn, id))
        .await?;
    let sent = |field: &str| shown.sent.map(|f| f.get(field).unwrap_or("").to_string());
    let language = sent("language").unwrap_or_else(|| {
        user.language
            .map_or(BROWSER.to_string(), |l| l.code().to_string())
    });
    let zone = sent("time_zone").unwrap_or_else(|| {
        user.time_zone
            .map_or(BROWSER.to_string(), |z| z.name().to_string())
    });
    let chat =
        sent("telegram_chat").unwrap_or_else(|| chat.map(|c| c.to_string()).unwrap_or_default());
    let default = visit.state.services.config.rates.reporting_currency;
    let agency = if owns_cabinets(session) {
        Some(
            visit
                .state
                .services
                .db
                .read(move |conn| {
                    Ok::<_, crate::store::StoreError>((
                        report_rows::profile(conn, id)?,
                        rate_rows::owner_currency(conn, id)?,
                        crate::ops::reporting_currencies(conn, &default)?,
                    ))
                })
                .await?,
        )
    } else {
        None
    };
    let saved = match visit.query.get("saved") {
        Some("agency") => Some(visit.t("settings-agency-saved")),
        Some("currency") => Some(visit.t("settings-currency-saved")),
        Some("profile") => Some(visit.t("people-settings-saved")),
        Some("password") => Some(visit.t("people-settings-password-saved")),
        _ => None,
    };
    let csrf = &session.csrf;
    let body = html! {
        header.page { div {
            h1 { (visit.t("people-settings-title")) }
            p.muted { (visit.t("people-settings-lead")) }
        } }
        @if let Some(saved) = saved { p.notice role="status" { (saved) } }
        form.card id="profile" method="post" action="/settings" {
            h2 { (visit.t("people-settings-profile")) }
            input type="hidden" name="csrf" value=(csrf);
            label { (visit.t("people-settings-language"))
                select name="language" {
                    @for (value, key) in [(BROWSER, "people-settings-language-browser"), ("en", "people-settings-language-en"), ("ru", "people-settings-language-ru")] {
                        option value=(value) selected[language == value] { (visit.t(key)) }
                    }
                }
            }
            (shown.beside("language"))
            label { (visit.t("people-settings-zone"))
                select name="time_zone" {
                    option value=(BROWSER) selected[zone == BROWSER] { (visit.t("people-settings-zone-browser")) }
                    @for tz in TZ_VARIANTS.iter() {
                        option value=(tz.name()) selected[zone == tz.name()] { (tz.name()) " (UTC" (zone_offset(*tz)) ")" }
                    }
                }
            }
            (shown.beside("time_zone"))
            label { (visit.t("people-settings-chat"))
                input type="text" name="telegram_chat" value=(chat) inputmode="numeric" pattern="-?[0-9]*" autocomplete="off";
                span.muted { (visit.t("people-settings-chat-help")) }
            }
            (shown.beside("telegram_chat"))
            button.primary type="submit" { (visit.t("people-settings-save")) }
        }
        @if let Some((agency, chosen, offered)) = &agency {
            @let chosen = sent("reporting_currency")
                .unwrap_or_else(|| chosen.as_ref().map(ToString::to_string).unwrap_or_default());
            section.card id="agency" {
                h2 { (visit.t("settings-agency")) }
                p.muted { (visit.t("settings-agency-lead")) }
                form method="post" action="/settings/agency" {
                    input type="hidden" name="csrf" value=(csrf);
                    label { (visit.t("settings-agency-name"))
                        input type="text" name="agency_name" maxlength=(agency::MAX_NAME)
                            value=(sent("agency_name").unwrap_or_else(|| agency.name.clone().unwrap_or_default()));
                    }
                    (shown.beside("agency_name"))
                    button.primary type="submit" { (visit.t("settings-agency-save")) }
                }
                @if agency.logo_type.is_some() {
                    p { img.agency-logo src="/settings/logo" alt=(visit.t("settings-agency-logo")); }
                    form method="post" action="/settings/logo/remove" {
                        input type="hidden" name="csrf" value=(csrf);
                        button type="submit" { (visit.t("settings-agency-logo-remove")) }
                    }
                }
                form method="post" action="/settings/logo" enctype="multipart/form-data" {
                    input type="hidden" name="csrf" value=(csrf);
                    label { (visit.t("settings-agency-logo"))
                        input type="file" name="logo" accept="image/png,image/jpeg" required;
                        span.muted { (visit.ta("settings-agency-logo-help", &[("kb", (agency::MAX_LOGO / 1024).into())])) }
                    }
                    (shown.beside("logo"))
                    button.primary type="submit" { (visit.t("settings-agency-logo-save")) }
                }
                form id="currency" method="post" action="/settings/currency" {
                    input type="hidden" name="csrf" value=(csrf);
                    label { (visit.t("settings-currency"))
                        select name="reporting_currency" {
                            option value="" selected[chosen.is_empty()] {
                                (visit.ta("settings-currency-default", &[("currency", default.as_str().into())]))
                            }
                            @for code in offered {
                                option value=(code) selected[chosen == code.as_str()] { (currency_name(visit, code)) }
                            }
                        }
                        span.muted { (visit.t("settings-currency-help")) }
                    }
                    (shown.beside("reporting_currency"))
                    button.primary type="submit" { (visit.t("settings-currency-save")) }
                }
            }
        }
        form.card id="password" method="post" action="/settings/password" {
            h2 { (visit.t("people-settings-password")) }
            p.muted { (visit.t("people-settings-password-help")) }
            input type="hidden" name="csrf" value=(csrf);
            input type="email" name="email" value=(user.email) autocomplete="username" hidden;
            label { (visit.t("people-password-current")) input type="password" name="current_password" autocomplete="current-password" required; }
            (shown.beside("current_password"))
            label { (visit.t("people-password-new")) input type="password" name="password" autocomplete="new-password" minlength=(password::MIN_LEN) required; }
            (shown.beside("password"))
            label { (visit.t("people-password-again")) input type="password" name="password_again" autocomplete="new-password" minlength=(password::MIN_LEN) required; }
            (shown.beside("password_again"))
            button.primary type="submit" { (visit.t("people-settings-password-save")) }
        }
    };
    let title = visit.t("people-settings-title");
    let reply = layout::page(visit, session, "/settings", &title, body);
    Ok(if shown.refused.is_empty() {
        reply
    } else {
        reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY)
    })
}

/// The settings the form sent, or the refusals of its fields.
fn read(visit: &Visit, form: &Form) -> Result<Settings, Vec<(&'static str, String)>> {
    let mut refused = Vec::new();
    let language = match form.get("language").unwrap_or(BROWSER) {
        BROWSER => None,
        code => match Lang::ALL.into_iter().find(|l| l.code() == code) {
            Some(lang) => Some(lang),
            None => {
                refused.push(("language", visit.t("people-settings-language-bad")));
                None
            }
        },
    };
    let time_zone = match form.get("time_zone").map(str::trim).unwrap_or(BROWSER) {
        BROWSER | "" => None,
        name => match name.parse::<Tz>() {
            Ok(tz) => Some(tz),
            Err(_) => {
                refused.push(("time_zone", visit.t("people-settings-zone-bad")));
                None
            }
        },
    };
    let telegram_chat = match form.get("telegram_chat").map(str::trim).unwrap_or("") {
        "" => None,
        text => match text.parse::<i64>() {
            Ok(chat) => Some(chat),
            Err(_) => {
                refused.push(("telegram_chat", visit.t("people-settings-chat-bad")));
                None
            }
        },
    };
    if refused.is_empty() {
        Ok(Settings {
            language,
            time_zone,
            telegram_chat,
        })
    } else {
        Err(refused)
    }
}

/// `POST /settings`: `language`, `time_zone`, `telegram_chat`.
pub async fn save<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let settings = match read(visit, form) {
        Ok(settings) => settings,
        Err(refused) => {
            let shown = Shown {
                refused,
                sent: Some(form),
            };
            return page(visit, session, shown).await;
        }
    };
    let user = session.person.user.id;
    panel_op(visit, move |s| people::settings_save(s, user, settings))
        .await
        .map_err(ops_error)?;
    Ok(redirect("/settings?saved=profile"))
}

/// `POST /settings/password`: `current_password`, `password`, `password_again`.
pub async fn password<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let refuse = |field: &'static str, message: String| async move {
        let shown = Shown {
            refused: vec![(field, message)],
            sent: None,
        };
        page(visit, session, shown).await
    };
    let new = form.get("password").unwrap_or("").to_string();
    if let Err(why) = password::check(&new) {
        return refuse("password", password_refusal(visit, why)).await;
    }
    if form.get("password_again") != Some(new.as_str()) {
        return refuse("password_again", visit.t("people-password-mismatch")).await;
    }
    let config = &visit.state.services.config.panel;
    let limits = (
        config.login_failures_per_account,
        config.login_failures_per_address,
    );
    let user = &session.person.user;
    let limiter = &visit.state.logins;
    let Some(attempt) = limiter.reserve(limits, &user.email, visit.client, unix_now()) else {
        return refuse("current_password", visit.t("people-link-limited")).await;
    };
    let id = user.id;
    let stored = visit
        .state
        .services
        .db
        .read(move |conn| sessions::password_of(conn, id))
        .await?;
    let current = form.get("current_password").unwrap_or("").to_string();
    let matched = match limiter.verify(current, stored).await {
        Ok(matched) => matched,
        Err(_) => {
            attempt.take_back();
            return refuse("current_password", visit.t("people-link-busy")).await;
        }
    };
    if !matched {
        return refuse("current_password", visit.t("people-password-wrong")).await;
    }
    attempt.take_back();
    let keep = session.token_hash.clone();
    panel_op(visit, move |s| people::password_change(s, id, &new, &keep))
        .await
        .map_err(ops_error)?;
    Ok(redirect("/settings?saved=password"))
}

/// Whether the person owns a cabinet, and so has an agency's name and logo to set for its
/// client reports.
fn owns_cabinets(session: &Session) -> bool {
    session
        .person
        .reach
        .iter()
        .any(|r| r.access == Access::Owner && r.cabinet.owner_id == session.person.user.id)
}

/// The largest body `POST /settings/logo` reads: the logo and its form.
pub const LOGO_LIMIT: usize = agency::MAX_LOGO;

/// A refusal of the agency's form, on the settings page.
async fn refuse_agency<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    field: &'static str,
    message: String,
    sent: Option<&'a Form>,
) -> Result<Reply, WebError> {
    let shown = Shown {
        refused: vec![(field, message)],
        sent,
    };
    page(visit, session, shown).await
}

/// `POST /settings/agency`: `agency_name` (empty removes it).
pub async fn agency<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    if !owns_cabinets(session) {
        return Err(WebError::NotFound);
    }
    let owner = session.person.user.id;
    let name = form.get("agency_name").unwrap_or("").to_string();
    let saved = visit
        .state
        .services
        .db
        .write(move |tx| agency::set_name(tx, owner, &name))
        .await;
    match saved {
        Ok(()) => Ok(redirect("/settings?saved=agency#agency")),
        Err(crate::ops::OpsError::Invalid(_)) => {
            let message = visit.ta(
                "settings-agency-name-long",
                &[("max", agency::MAX_NAME.into())],
            );
            refuse_agency(visit, session, "agency_name", message, Some(form)).await
        }
        Err(e) => Err(ops_error(e)),
    }
}

/// `POST /settings/logo`: the file field `logo`, a PNG or JPEG.
pub async fn logo<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    sent: &'a Sent,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    if !owns_cabinets(session) {
        return Err(WebError::NotFound);
    }
    let Some(bytes) = sent.file("logo").cloned() else {
        let message = visit.t("settings-agency-logo-missing");
        return refuse_agency(visit, session, "logo", message, None).await;
    };
    let owner = session.person.user.id;
    let kept = visit
        .state
        .services
        .db
        .write(move |tx| agency::set_logo(tx, owner, &bytes))
        .await
        .map_err(ops_error)?;
    match kept {
        Ok(()) => Ok(redirect("/settings?saved=agency#agency")),
        Err(why) => {
            let message = match why {
                LogoRefusal::NotAnImage => visit.t("settings-agency-logo-type"),
                LogoRefusal::TooLarge => visit.ta(
                    "settings-agency-logo-large",
                    &[("kb", (agency::MAX_LOGO / 1024).into())],
                ),
            };
            refuse_agency(visit, session, "logo", message, None).await
        }
    }
}

/// `POST /settings/logo/remove`.
pub async fn remove_logo<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let owner = session.person.user.id;
    visit
        .state
        .services
        .db
        .write(move |tx| agency::remove_logo(tx, owner))
        .await
        .map_err(ops_error)?;
    Ok(redirect("/settings?saved=agency#agency"))
}

/// A currency as the reporting currency's list names it: its code, and Stars by name.
fn currency_name(visit: &Visit, code: &CurrencyCode) -> String {
    match code.as_str() {
        "STARS" => visit.t("settings-currency-stars"),
        other => other.to_string(),
    }
}

/// `POST /settings/currency`: `reporting_currency`, a code of the list or empty for the
/// operator's default.
pub async fn currency<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    if !owns_cabinets(session) {
        return Err(WebError::NotFound);
    }
    let refuse = || async {
        let message = visit.t("settings-currency-bad");
        refuse_agency(visit, session, "reporting_currency", message, Some(form)).await
    };
    let choice = match form.get("reporting_currency").map(str::trim).unwrap_or("") {
        "" => None,
        text => match CurrencyCode::parse(text) {
            Some(code) => Some(code),
            None => return refuse().await,
        },
    };
    let owner = session.person.user.id;
    let default = visit.state.services.config.rates.reporting_currency;
    let saved = visit
        .state
        .services
        .db
        .write(move |tx| crate::ops::reporting_currency_set(tx, owner, choice.as_ref(), &default))
        .await;
    match saved {
        Ok(()) => Ok(redirect("/settings?saved=currency#currency")),
        Err(crate::ops::OpsError::Invalid(_)) => refuse().await,
        Err(e) => Err(ops_error(e)),
    }
}

/// `GET /settings/logo`: the person's own agency logo.
pub async fn show_logo<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let owner = session.person.user.id;
    let found = visit
        .state
        .services
        .db
        .read(move |conn| report_rows::logo(conn, owner))
        .await?;
    let (kind, bytes) = found.ok_or(WebError::NotFound)?;
    Ok(super::reports::image(kind, bytes))
}
