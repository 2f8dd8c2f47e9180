//! Owns what a token opens on the platform: its own account and, for a main (agency) account,
//! the related ones, each with its currency, balance, ad count and the sealed credential the
//! connector will call it with.

use serde_json::{json, Map};

use super::capabilities::CAPABILITIES;
use super::errors::refusal;
use super::wire::{Call, WireError};
use super::{map, Account, Credential, Telegram};
use crate::domain::money::Money;
use crate::platform::{PlatformError, RemoteAccount};

impl Telegram {
    /// The accounts a token opens: its own, and with `related` every account it manages
    /// (none when it is not a main account), each with its sealed credential and ad count.
    pub(super) fn accounts_of(
        &self,
        token: &str,
        related: bool,
    ) -> Result<Vec<RemoteAccount>, PlatformError> {
        let wire = |call: &Call| self.wire.call(token, call).map(|(v, _)| v);
        let current = wire(&Call::read("getCurrentAccount", Map::new())).map_err(refusal)?;
        let mut found = vec![(current, false)];
        if related {
            match wire(&Call::read("getRelatedAccountsList", Map::new())) {
                Ok(list) => found.extend(
                    list["accounts"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|a| (a.clone(), true)),
                ),
                Err(WireError::Api(code)) if code == "MAIN_ACCOUNT_REQUIRED" => {}
                Err(e) => return Err(refusal(e)),
            }
        }
        let secrets = self.secrets()?;
        found
            .into_iter()
            .map(|(info, via_main)| {
                let platform_id = info["account_id"]
                    .as_str()
                    .ok_or_else(|| PlatformError::Refused("an account without an id".into()))?
                    .to_string();
                let kind = info["currency"]
                    .as_str()
                    .and_then(|code| CAPABILITIES.cabinet_of_currency(code))
                    .ok_or_else(|| {
                        PlatformError::Refused(format!(
                            "account {platform_id} has a currency adcab does not know: {}",
                            info["currency"]
                        ))
                    })?;
                let account = Account {
                    id: 0,
                    platform_id: platform_id.clone(),
                    token: token.to_string(),
                    via_main,
                    kind,
                };
                let count = self
                    .wire
                    .call(
                        token,
                        &Call::read("getAdsList", account.scoped(map(json!({ "limit": 1 })))),
                    )
                    .map_err(refusal)?
                    .0;
                let credential = serde_json::to_string(&Credential {
                    token: token.to_string(),
                    via_main,
                })
                .expect("a credential serializes");
                Ok(RemoteAccount {
                    name: info["title"].as_str().unwrap_or(&platform_id).to_string(),
                    platform_id,
                    kind,
                    balance: map::money(&info["remaining_budget"]).unwrap_or(Money::ZERO),
                    credential: secrets.seal(&credential),
                    ads: count["total_count"].as_i64().unwrap_or(0),
                    related: via_main,
                })
            })
            .collect()
    }
}
