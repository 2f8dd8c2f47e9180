//! Owns the connector's agency money (§8, §9.1): opening a client (related) account under the
//! main account (`createAccount`), moving money main ↔ related (`increase`/
//! `decreaseAccountBudget`) with idempotency keys derived from adcab's own ids, reading where a
//! transfer stands (`getTransactionStatus`), and an account's transactions
//! (`getAccountTransactionsList`, cursor paging).

use chrono::{TimeZone, Utc};
use serde_json::{json, Value};

use super::errors::rejected;
use super::keys::operation_key;
use super::wire::Call;
use super::{map, Account, Credential, Telegram};
use crate::domain::funds::{transfer_scale, Direction, RelatedInfo, TransferState};
use crate::domain::money::Money;
use crate::platform::{
    OpenedRelated, PlatformError, Transaction, TransactionPage, TransactionPeer, TransferReport,
};

/// A money value of the wire with its sign (the platform sends money that left an account as
/// a negative number).
fn signed(value: &Value) -> Option<Money> {
    let m = map::money(value)?;
    let negative = match value {
        Value::Number(n) => n.to_string().starts_with('-'),
        Value::String(s) => s.trim_start().starts_with('-'),
        _ => false,
    };
    Some(if negative {
        Money::from_micros(-m.micros())
    } else {
        m
    })
}

/// A `TransactionStatus` as adcab reads it.
fn status_of(v: &Value) -> Result<TransferReport, PlatformError> {
    let id = v["transaction_id"]
        .as_str()
        .map(str::to_string)
        .or_else(|| v["transaction_id"].as_i64().map(|n| n.to_string()))
        .ok_or_else(|| PlatformError::Refused("a transfer was answered without an id".into()))?;
    let state = v["status"]
        .as_str()
        .and_then(TransferState::parse)
        .ok_or_else(|| {
            PlatformError::Refused(format!("a transfer has an unknown status: {}", v["status"]))
        })?;
    let balance = |side: &str| map::money(&v[side]["remaining_budget"]).unwrap_or(Money::ZERO);
    Ok(TransferReport {
        id,
        state,
        main_balance: balance("main_account"),
        balance: balance("related_account"),
        error: v["error"].as_str().map(str::to_string),
    })
}

fn peer_of(v: &Value) -> TransactionPeer {
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    match v["type"].as_str().unwrap_or_default() {
        "external" => TransactionPeer::External(v["comment"].as_str().map(str::to_string)),
        "main_account" => TransactionPeer::MainAccount,
        "related_account" => TransactionPeer::Related {
            account: v["account_id"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v["account_id"].to_string()),
            title: text("account_title"),
        },
        "ad" => TransactionPeer::Ad {
            ad_id: v["ad_id"].as_i64().unwrap_or(0),
            title: text("ad_title"),
        },
        other => TransactionPeer::Other(other.to_string()),
    }
}

impl Telegram {
    /// The related cabinet a transfer acts on: reached through its main account's token.
    fn related(&self, related: i64) -> Result<Account, PlatformError> {
        let account = self.account(related)?;
        if !account.via_main {
            return Err(PlatformError::Refused(format!(
                "cabinet {related} is not reached through a main account; money moves only between a main account and its related accounts"
            )));
        }
        Ok(account)
    }

    pub(super) fn open_related_of(
        &self,
        main: i64,
        info: &RelatedInfo,
        key: &str,
    ) -> Result<OpenedRelated, PlatformError> {
        let account = self.account(main)?;
        if account.via_main {
            return Err(PlatformError::Refused(format!(
                "cabinet {main} is itself a related account; open client accounts under the main account"
            )));
        }
        let mut params = map(json!({
            "title": info.title,
            "full_name": info.full_name,
            "email": info.email,
            "phone_number": info.phone_number,
            "country": info.country,
            "city": info.city,
        }));
        if let Some(legal) = &info.legal_name {
            params.insert("legal_name".into(), json!(legal));
        }
        let key = operation_key("account", account.id, key);
        let opened = self.call(&account, &Call::keyed("createAccount", params, key))?;
        let platform_id = opened["account_id"]
            .as_str()
            .ok_or_else(|| PlatformError::Refused("an account was opened without an id".into()))?
            .to_string();
        let credential = serde_json::to_string(&Credential {
            token: account.token.clone(),
            via_main: true,
        })
        .expect("a credential serializes");
        Ok(OpenedRelated {
            account: None,
            link: Some((platform_id, self.secrets()?.seal(&credential))),
            kind: account.kind,
            name: opened["title"].as_str().unwrap_or(&info.title).to_string(),
        })
    }

    pub(super) fn transfer_of(
        &self,
        related: i64,
        direction: Direction,
        amount: Money,
        key: &str,
    ) -> Result<TransferReport, PlatformError> {
        let account = self.related(related)?;
        let method = match direction {
            Direction::In => "increaseAccountBudget",
            Direction::Out => "decreaseAccountBudget",
        };
        let params = map(json!({
            "account_id": account.platform_id,
            "amount": map::number(amount, transfer_scale(account.kind)),
        }));
        let key = operation_key("funds", account.id, key);
        let answer = self.call(&account, &Call::keyed(method, params, key))?;
        status_of(&answer)
    }

    pub(super) fn transfer_status_of(
        &self,
        related: i64,
        id: &str,
    ) -> Result<TransferReport, PlatformError> {
        let account = self.related(related)?;
        let params = map(json!({ "transaction_id": id }));
        let answer = self.call(&account, &Call::read("getTransactionStatus", params))?;
        status_of(&answer)
    }

    pub(super) fn transactions_of(
        &self,
        account: i64,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<TransactionPage, PlatformError> {
        let account = self.account(account)?;
        let mut params = map(json!({ "limit": limit.clamp(1, 100) }));
        if let Some(c) = cursor {
            params.insert("offset".into(), json!(c));
        }
        let answer = match self.call(
            &account,
            &Call::read("getAccountTransactionsList", account.scoped(params)),
        ) {
            Err(PlatformError::Rejected { param: None, .. }) if cursor.is_some() => {
                return Err(rejected(
                    "The cursor is not one this list handed out.",
                    "cursor",
                ))
            }
            other => other?,
        };
        let items = answer["transactions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| Transaction {
                at: Utc
                    .timestamp_opt(t["date"].as_i64().unwrap_or(0), 0)
                    .single()
                    .unwrap_or_default(),
                amount: signed(&t["amount"]).unwrap_or(Money::ZERO),
                peer: peer_of(&t["peer"]),
            })
            .collect();
        let next = answer["next_offset"]
            .as_str()
            .filter(|n| !n.is_empty() && Some(*n) != cursor)
            .map(str::to_string);
        Ok(TransactionPage {
            total: answer["total_count"].as_i64().unwrap_or(0),
            items,
            next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_that_left_an_account_keeps_its_sign() {
        assert_eq!(signed(&json!(-2.5)), Some(Money::from_micros(-2_500_000)));
        assert_eq!(signed(&json!("7")), Some(Money::from_micros(7_000_000)));
    }

    #[test]
    fn a_transfer_status_reads_both_balances() {
        let r = status_of(&json!({
            "transaction_id": "tx9", "status": "in_progress", "currency": "EUR", "amount": 5,
            "main_account": {"remaining_budget": 95}, "related_account": {"remaining_budget": 5}
        }))
        .unwrap();
        assert_eq!(r.state, TransferState::InProgress);
        assert_eq!(r.main_balance, Money::from_micros(95_000_000));
        assert_eq!(r.balance, Money::from_micros(5_000_000));
    }
}
