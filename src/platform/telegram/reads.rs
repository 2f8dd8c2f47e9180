//! Owns the connector's reads of ads and balances: by id (`getAdsById`, 100 a call), every
//! ad of an account page by page (`getAdsList`), an `Ad` object as adcab's snapshot, and the
//! account's free balance.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::wire::Call;
use super::{map, truncate, Account, Telegram, BY_ID, MAX_PAGES, PAGE};
use crate::domain::money::Money;
use crate::platform::{AdSnapshot, PlatformError};
use crate::store::media;

impl Telegram {
    /// The `Ad` objects of these ids (ids the platform does not have are left out).
    pub(super) fn ads_by_id(
        &self,
        account: &Account,
        ids: &[i64],
    ) -> Result<Vec<Value>, PlatformError> {
        let mut found = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(BY_ID) {
            let params = account.scoped(map(json!({ "ad_ids": chunk, "return_target": true })));
            let result = self.call(account, &Call::read("getAdsById", params))?;
            found.extend(result.as_array().cloned().unwrap_or_default());
        }
        Ok(found)
    }

    pub(super) fn ad_by_id(&self, account: &Account, ad: i64) -> Result<Value, PlatformError> {
        self.ads_by_id(account, &[ad])?
            .into_iter()
            .find(|a| a.get("ad_id").and_then(Value::as_i64) == Some(ad))
            .ok_or(PlatformError::NotFound)
    }

    /// Every ad of the account, page by page (`getAdsList`), until the platform gives no
    /// further cursor, an empty page or a cursor it gave before.
    pub(super) fn all_ads(
        &self,
        account: &Account,
        with_target: bool,
    ) -> Result<Vec<Value>, PlatformError> {
        let mut ads = Vec::new();
        let mut offset: Option<String> = None;
        let mut seen = HashSet::new();
        for _ in 0..MAX_PAGES {
            let mut params = map(json!({ "limit": PAGE, "return_target": with_target }));
            if let Some(o) = &offset {
                params.insert("offset".into(), json!(o));
            }
            let page = self.call(account, &Call::read("getAdsList", account.scoped(params)))?;
            let batch = page["ads"].as_array().cloned().unwrap_or_default();
            if batch.is_empty() {
                break;
            }
            ads.extend(batch);
            offset = match page.get("next_offset") {
                Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            };
            match &offset {
                Some(o) if seen.insert(o.clone()) => {}
                _ => break,
            }
        }
        Ok(ads)
    }

    pub(super) fn to_snapshot(
        &self,
        account: &Account,
        ad: &Value,
    ) -> Result<AdSnapshot, PlatformError> {
        let media = match map::media_id(ad) {
            Some(id) => self
                .db
                .read_blocking(|c| media::by_platform_ref(c, account.id, id))
                .map_err(PlatformError::store)?,
            None => None,
        };
        map::snapshot(account.id, ad, media, &self.now_iso()?).ok_or_else(|| {
            PlatformError::Refused(format!(
                "the platform answered an ad adcab cannot read: {}",
                truncate(&ad.to_string())
            ))
        })
    }

    pub(super) fn balance_of(&self, account: &Account) -> Result<Money, PlatformError> {
        let info = if account.via_main {
            let params = map(json!({ "account_ids": [account.platform_id] }));
            let list = self.call(account, &Call::read("getAccountsById", params))?;
            list.as_array()
                .and_then(|l| {
                    l.iter()
                        .find(|a| a["account_id"].as_str() == Some(&account.platform_id))
                })
                .cloned()
                .ok_or(PlatformError::NotFound)?
        } else {
            self.call(account, &Call::read("getCurrentAccount", Map::new()))?
        };
        map::money(&info["remaining_budget"]).ok_or_else(|| {
            PlatformError::Refused("the platform answered an account without a balance".into())
        })
    }
}
