//! Owns query strings (and form bodies, which read the same): percent-decoding, a bound on
//! the pairs, typed values, the `account_id`/`accountId` alias, each bad value named.

use super::{id, ParseError};
use crate::primitives::{form_decode as decode, form_encode as encode};

/// Parameters a query string may carry (trackers send a few dozen at most).
const MAX_PAIRS: usize = 200;

#[derive(Debug, Clone, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    pub fn parse(raw: &str) -> Result<Query, ParseError> {
        let mut pairs = Vec::new();
        for part in raw.split('&').filter(|p| !p.is_empty()) {
            if pairs.len() == MAX_PAIRS {
                return Err(ParseError::new(
                    "query",
                    format!("A query string takes at most {MAX_PAIRS} parameters."),
                ));
            }
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            let key = decode(k)
                .ok_or_else(|| ParseError::new(k, "Badly encoded query parameter name."))?;
            let value = decode(v)
                .ok_or_else(|| ParseError::new(&key, "Badly encoded query parameter value."))?;
            pairs.push((key, value));
        }
        Ok(Query { pairs })
    }

    /// Every pair, in order, as decoded.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The pairs sorted, for comparing two requests.
    pub fn canonical(&self) -> String {
        let mut pairs = self.pairs.clone();
        pairs.sort();
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The same pairs and `name=value` after them.
    pub fn with(&self, name: &str, value: &str) -> Query {
        let mut pairs = self.pairs.clone();
        pairs.push((name.to_string(), value.to_string()));
        Query { pairs }
    }

    /// The same pairs but those named in `names`.
    pub fn without(&self, names: &[&str]) -> Query {
        Query {
            pairs: self
                .pairs
                .iter()
                .filter(|(k, _)| !names.contains(&k.as_str()))
                .cloned()
                .collect(),
        }
    }

    /// `path` with the pairs (empty values left out) as its query string, encoded.
    pub fn to_url(&self, path: &str) -> String {
        let encoded: Vec<String> = self
            .pairs
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        if encoded.is_empty() {
            path.to_string()
        } else {
            format!("{path}?{}", encoded.join("&"))
        }
    }

    /// The last value of `name`, as given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in order (a form's ticked boxes of one name).
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.pairs
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A non-empty value of `name`; an empty value counts as absent.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.get(name).map(str::trim).filter(|v| !v.is_empty())
    }

    /// An integer in `min..=max`, or the error naming `name`.
    pub fn int(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>, ParseError> {
        self.text(name)
            .map(|v| {
                v.parse::<i64>()
                    .ok()
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| {
                        ParseError::new(
                            name,
                            format!("{name} must be an integer from {min} to {max}."),
                        )
                    })
            })
            .transpose()
    }

    /// `account_id` (or its alias `accountId`) as a positive integer.
    pub fn account_id(&self) -> Result<Option<i64>, ParseError> {
        let name = if self.text("account_id").is_some() {
            "account_id"
        } else {
            "accountId"
        };
        self.text(name)
            .map(|v| id::parse("account_id", v))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_carry_the_pairs_encoded_and_leave_empty_ones_out() {
        let q = Query::parse("title=a%20b&status=&sortBy=views").unwrap();
        let url = q
            .without(&["sortBy"])
            .with("offset", "50")
            .with("x", "é&=")
            .to_url("/campaigns");
        assert_eq!(url, "/campaigns?title=a%20b&offset=50&x=%C3%A9%26%3D");
        assert_eq!(Query::default().to_url("/p"), "/p");
    }

    #[test]
    fn decodes_percent_and_plus() {
        let q = Query::parse("title=Black+Friday%21&x=%E2%9C%93").unwrap();
        assert_eq!(q.get("title"), Some("Black Friday!"));
        assert_eq!(q.get("x"), Some("✓"));
        assert!(Query::parse("a=%zz").is_err());
    }

    #[test]
    fn account_id_accepts_the_alias_and_names_the_field() {
        assert_eq!(
            Query::parse("accountId=7").unwrap().account_id().unwrap(),
            Some(7)
        );
        let err = Query::parse("account_id=x")
            .unwrap()
            .account_id()
            .unwrap_err();
        assert_eq!(err.param, "account_id");
    }

    #[test]
    fn int_bounds_name_the_field() {
        let q = Query::parse("limit=0").unwrap();
        let err = q.int("limit", 1, 500).unwrap_err();
        assert_eq!(err.param, "limit");
        assert_eq!(
            Query::parse("limit=")
                .unwrap()
                .int("limit", 1, 500)
                .unwrap(),
            None
        );
    }
}
