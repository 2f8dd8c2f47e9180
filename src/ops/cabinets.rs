//! Owns the operator's cabinets (`adcab admin cabinet`, `group`, `history`): adding one (an
//! account on the platform), changing it, its groups, and a campaign's change history.

use super::{bad, now_iso, refused, require_cabinet, require_user, History, Id, OpsError};
use crate::domain::agency::{FeePercent, ReportSchedule};
use crate::domain::money::{CabinetType, Money, MAX_UNITS, MONEY_SCALE};
use crate::domain::Why;
use crate::i18n::Lang;
use crate::services::Services;
use crate::store::cabinets::{self, Cabinet};
use crate::store::{alerts, campaigns, groups, history, rules, StoreError};

const DEFAULT_GROUP_COLOR: &str = "#4A90D9";

fn parse_balance(text: &str) -> Result<Money, OpsError> {
    Money::parse(text, MONEY_SCALE).map_err(|e| bad("balance", format!("balance {e}")))
}

/// Options of `admin cabinet add`.
#[derive(Debug, Clone, clap::Args)]
pub struct NewCabinet {
    #[arg(long)]
    pub owner: i64,
    #[arg(long)]
    pub name: String,
    #[arg(long = "type", value_enum)]
    pub kind: CabinetType,
    /// Money on the cabinet, a decimal.
    #[arg(long)]
    pub balance: Option<String>,
    /// Smallest non-zero budget of a campaign (default 5, or 500 for stars).
    #[arg(long)]
    pub min_budget: Option<i64>,
    /// The ad form has a custom button.
    #[arg(long)]
    pub ad_button: bool,
    /// The ad form has crypto-channel filters.
    #[arg(long)]
    pub crypto_filters: bool,
}

/// The smallest non-zero budget of a new cabinet when none is given: the platform's for the
/// cabinet type; refused when the platform has no such cabinets.
pub(crate) fn default_min_budget(s: &Services, kind: CabinetType) -> Result<i64, OpsError> {
    s.platform
        .capabilities()
        .cabinet(kind)
        .map(|facts| facts.min_budget)
        .ok_or_else(|| {
            bad(
                "type",
                format!("the platform has no {} cabinets", kind.as_str()),
            )
        })
}

pub fn cabinet_add(s: &Services, c: &NewCabinet) -> Result<Id, OpsError> {
    let kind = c.kind;
    let balance = c
        .balance
        .as_deref()
        .map(parse_balance)
        .transpose()?
        .unwrap_or(Money::ZERO);
    let min_budget = c.min_budget.unwrap_or(default_min_budget(s, kind)?);
    if !(0..=MAX_UNITS).contains(&min_budget) {
        return Err(bad(
            "min-budget",
            format!("min-budget must be from 0 to {MAX_UNITS}"),
        ));
    }
    if c.name.trim().is_empty() {
        return Err(bad("name", "the cabinet needs a name"));
    }
    s.db.read_blocking(|conn| {
        require_user(conn, c.owner)
            .map_err(|_| bad("owner", format!("no user with id {}", c.owner)))
    })?;
    let id = s
        .platform
        .open_account(kind, balance)
        .map_err(|e| bad("platform", e.to_string()))?;
    s.db.write_blocking(|tx| {
        let now = now_iso(tx)?;
        let cabinet = Cabinet {
            id,
            owner_id: c.owner,
            name: c.name.trim().to_string(),
            cabinet_type: kind,
            is_active: true,
            balance,
            balance_updated_at: now.clone(),
            min_budget,
            ad_button: c.ad_button,
            crypto_filters: c.crypto_filters,
            auth_expired: false,
            locked: false,
        };
        cabinets::insert(tx, &cabinet, &now)?;
        Ok(Id { id })
    })
}

/// Options of `admin cabinet set`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CabinetChange {
    #[arg(long)]
    pub active: Option<bool>,
    /// The cabinet's balance, a decimal.
    #[arg(long)]
    pub balance: Option<String>,
    /// The platform session expired (writes answer CABINET_AUTH_EXPIRED).
    #[arg(long)]
    pub auth_expired: Option<bool>,
    /// Under automatic management (writes answer CABINET_LOCKED).
    #[arg(long)]
    pub locked: Option<bool>,
    /// The most money automation rules may move into the cabinet's campaigns in 24 hours,
    /// across all its rules (a decimal in the cabinet currency), or `none`.
    #[arg(long)]
    pub automation_daily_cap: Option<String>,
    /// The Telegram chat the cabinet's alerts go to (a chat id), or `none`.
    #[arg(long, allow_hyphen_values = true)]
    pub telegram_chat: Option<String>,
    /// The most money that may be moved into the cabinet in one calendar month (UTC), a
    /// decimal in its currency, or `none`.
    #[arg(long)]
    pub monthly_topup_cap: Option<String>,
    /// The agency's fee on the cabinet's spend in its client reports, a percent (0-100, two
    /// decimals at most), or `none`.
    #[arg(long)]
    pub fee_percent: Option<String>,
    /// How often the cabinet's client report is sent: `weekly`, `monthly` or `none`.
    #[arg(long)]
    pub report: Option<String>,
    /// The cabinet is the agency's main account, from which client cabinets are opened and
    /// funded (`adcab admin cabinet create-related --main`).
    #[arg(long)]
    pub main_account: Option<bool>,
    /// The language the client reads its reports in: `en`, `ru`, or `none` for the owner's.
    #[arg(long)]
    pub report_language: Option<String>,
}

/// An `admin cabinet set` option that sets a value or, as `none`, clears it: `None` when not
/// given, `Some(None)` for `none`, else the value `parse` reads.
fn clearable<T>(
    sent: Option<&str>,
    parse: impl FnOnce(&str) -> Result<T, OpsError>,
) -> Result<Option<Option<T>>, OpsError> {
    match sent {
        None => Ok(None),
        Some("none") => Ok(Some(None)),
        Some(text) => parse(text).map(|v| Some(Some(v))),
    }
}

pub fn cabinet_set(s: &Services, id: i64, change: &CabinetChange) -> Result<Id, OpsError> {
    let balance = change.balance.as_deref().map(parse_balance).transpose()?;
    let cabinet = s.db.read_blocking(|conn| require_cabinet(conn, id))?;
    let scale = cabinet.cabinet_type.scale();
    let money = |param: &'static str| {
        move |text: &str| Money::parse(text, scale).map_err(|e| bad(param, format!("{param} {e}")))
    };
    let cap = clearable(
        change.automation_daily_cap.as_deref(),
        money("automation-daily-cap"),
    )?;
    let topup_cap = clearable(
        change.monthly_topup_cap.as_deref(),
        money("monthly-topup-cap"),
    )?;
    let fee = clearable(change.fee_percent.as_deref(), |text| {
        FeePercent::parse(text).ok_or_else(|| {
            bad(
                "fee-percent",
                format!(
                    "fee-percent '{text}' is not a percent from 0 to 100 with at most two decimals"
                ),
            )
        })
    })?;
    let report = clearable(change.report.as_deref(), |text| {
        ReportSchedule::parse(text).ok_or_else(|| {
            bad(
                "report",
                format!("report '{text}' is not weekly, monthly or none"),
            )
        })
    })?;
    let report_language = clearable(change.report_language.as_deref(), |text| {
        Lang::parse(text).ok_or_else(|| {
            bad(
                "report-language",
                format!("report-language '{text}' is not en, ru or none"),
            )
        })
    })?;
    if let Some(balance) = balance {
        s.platform
            .set_balance(id, balance)
            .map_err(|e| bad("balance", e.to_string()))?;
    }
    let chat = change
        .telegram_chat
        .as_deref()
        .map(|c| super::parse_chat(c, "telegram-chat"))
        .transpose()?;
    s.db.write_blocking(|tx| {
        let now = now_iso(tx)?;
        if let Some(chat) = chat {
            alerts::set_cabinet_chat(tx, id, chat)?;
        }
        if let Some(balance) = balance {
            cabinets::set_balance(tx, id, balance, &now)?;
        }
        if let Some(active) = change.active {
            cabinets::set_active(tx, id, active)?;
        }
        if let Some(main) = change.main_account {
            cabinets::set_main(tx, id, main)?;
        }
        if let Some(expired) = change.auth_expired {
            cabinets::set_auth_expired(tx, id, expired)?;
        }
        if let Some(locked) = change.locked {
            cabinets::set_locked(tx, id, locked)?;
        }
        if let Some(cap) = cap {
            rules::set_cabinet_cap(tx, id, cap)?;
        }
        if let Some(cap) = topup_cap {
            cabinets::set_monthly_topup_cap(tx, id, cap)?;
        }
        if let Some(fee) = fee {
            cabinets::set_fee(tx, id, fee)?;
        }
        if let Some(report) = report {
            cabinets::set_report_schedule(tx, id, report)?;
        }
        if let Some(language) = report_language {
            cabinets::set_report_language(tx, id, language)?;
        }
        Ok(Id { id })
    })
}

pub fn group_add(
    s: &Services,
    cabinet: i64,
    name: &str,
    color: Option<&str>,
) -> Result<Id, OpsError> {
    let color = color.unwrap_or(DEFAULT_GROUP_COLOR);
    let valid = color.len() == 7
        && color.starts_with('#')
        && color[1..].chars().all(|c| c.is_ascii_hexdigit());
    if !valid {
        return Err(refused(
            "color",
            format!("'{color}' is not a #RRGGBB color"),
            Why::Other,
        ));
    }
    let name = name.trim();
    if name.is_empty() {
        return Err(refused("name", "the group needs a name", Why::Required));
    }
    s.db.write_blocking(|tx| {
        require_cabinet(tx, cabinet)?;
        match groups::insert(tx, cabinet, name, color) {
            Ok(id) => Ok(Id { id }),
            Err(StoreError::Conflict) => Err(refused(
                "name",
                format!("cabinet {cabinet} already has a group named '{name}'"),
                Why::Taken,
            )),
            Err(e) => Err(e.into()),
        }
    })
}

pub fn history(s: &Services, account: i64, ad: i64) -> Result<History, OpsError> {
    s.db.read_blocking(|conn| {
        campaigns::get(conn, account, ad)?
            .ok_or_else(|| bad("ad", format!("no campaign {ad} in cabinet {account}")))?;
        Ok(History {
            events: history::list(conn, account, ad)?,
        })
    })
}
