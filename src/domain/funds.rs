//! Owns money between an agency's main account and its client (related) cabinets as values:
//! which way a transfer goes, where it stands, the amount at the currency's transfer precision,
//! and the details a client cabinet is opened with, each read from a body with its `param`.

use serde::Deserialize;
use serde_json::Value;

use super::fields::{self, wire::Amount, wire::Trimmed};
use super::money::{CabinetType, Money};
use super::{words, ParseError, Why};

/// Which way money moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the main account into the client cabinet.
    In,
    /// From the client cabinet back to the main account.
    Out,
}

impl Direction {
    pub fn parse(text: &str) -> Option<Direction> {
        match text {
            "in" => Some(Direction::In),
            "out" => Some(Direction::Out),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
        }
    }
}

/// Where a transfer stands on the platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferState {
    InProgress,
    Completed,
    Failed,
}

impl TransferState {
    pub fn parse(text: &str) -> Option<TransferState> {
        match text {
            "in_progress" => Some(TransferState::InProgress),
            "completed" => Some(TransferState::Completed),
            "failed" => Some(TransferState::Failed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TransferState::InProgress => "in_progress",
            TransferState::Completed => "completed",
            TransferState::Failed => "failed",
        }
    }
}

/// Decimals a transfer between accounts keeps (the platform's transfer precision): EUR and TON
/// 5, Stars 3.
pub fn transfer_scale(kind: CabinetType) -> u32 {
    match kind {
        CabinetType::Euro | CabinetType::Ton => 5,
        CabinetType::Stars => 3,
    }
}

/// Renders an amount moved between accounts: the currency's usual decimals at least, more
/// when the transfer keeps them.
pub fn render_transfer(kind: CabinetType, money: Money) -> String {
    money.render(kind.scale())
}

/// A move of money as asked: its amount and direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FundsMove {
    pub amount: Money,
    pub direction: Direction,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FundsWire {
    amount: Amount,
    direction: Trimmed<1, 8>,
}

impl FundsMove {
    /// Reads `{amount, direction}` (the cabinet's id already taken out) for a cabinet of `kind`.
    pub fn read(fields: &Value, kind: CabinetType) -> Result<FundsMove, ParseError> {
        let wire: FundsWire = fields::read(fields)?;
        let direction = Direction::parse(&wire.direction.0).ok_or_else(|| {
            ParseError::new("direction", "direction must be in or out.").because(Why::NotOneOf {
                allowed: words(&["in", "out"]),
            })
        })?;
        let amount = wire
            .amount
            .positive("amount", "amount", transfer_scale(kind))?;
        Ok(FundsMove { amount, direction })
    }
}

/// The details a client cabinet is opened with on the platform (its `AccountInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedInfo {
    pub title: String,
    pub full_name: String,
    pub email: String,
    pub phone_number: String,
    pub country: String,
    pub city: String,
    pub legal_name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RelatedWire {
    title: Trimmed<1, 128>,
    full_name: Trimmed<1, 256>,
    email: Trimmed<3, 64>,
    phone_number: Trimmed<1, 32>,
    country: Trimmed<1, 128>,
    city: Trimmed<1, 128>,
    #[serde(default)]
    legal_name: Option<Trimmed<0, 256>>,
}

impl RelatedInfo {
    /// Reads the body's fields (the main account's id already taken out).
    pub fn read(fields: &Value) -> Result<RelatedInfo, ParseError> {
        let w: RelatedWire = fields::read(fields)?;
        let info = RelatedInfo {
            title: w.title.0,
            full_name: w.full_name.0,
            email: w.email.0,
            phone_number: w.phone_number.0,
            country: w.country.0,
            city: w.city.0,
            legal_name: w.legal_name.map(|l| l.0).filter(|l| !l.is_empty()),
        };
        info.check()?;
        Ok(info)
    }

    /// The checks past the lengths: an email with an `@`.
    pub fn check(&self) -> Result<(), ParseError> {
        let (user, host) = self.email.split_once('@').unwrap_or(("", ""));
        if user.is_empty() || host.is_empty() {
            return Err(ParseError::new("email", "email must be an email address."));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_move_reads_its_amount_at_the_transfer_precision() {
        let m = FundsMove::read(
            &json!({"amount": "1.00001", "direction": "in"}),
            CabinetType::Euro,
        )
        .unwrap();
        assert_eq!(m.amount, Money::from_micros(1_000_010));
        assert_eq!(m.direction, Direction::In);
        let e = FundsMove::read(
            &json!({"amount": "1.000001", "direction": "in"}),
            CabinetType::Euro,
        )
        .unwrap_err();
        assert_eq!(e.param, "amount");
        let e = FundsMove::read(
            &json!({"amount": "1.0001", "direction": "in"}),
            CabinetType::Stars,
        )
        .unwrap_err();
        assert_eq!(e.param, "amount");
        let e = FundsMove::read(&json!({"amount": 0, "direction": "in"}), CabinetType::Euro)
            .unwrap_err();
        assert_eq!(e.param, "amount");
        let e = FundsMove::read(
            &json!({"amount": 5, "direction": "sideways"}),
            CabinetType::Euro,
        )
        .unwrap_err();
        assert_eq!(e.param, "direction");
        let e = FundsMove::read(
            &json!({"amount": 5, "direction": "in", "x": 1}),
            CabinetType::Euro,
        )
        .unwrap_err();
        assert_eq!(e.param, "x");
    }

    #[test]
    fn transfers_render_at_least_the_currency_decimals() {
        let r = |kind, micros| render_transfer(kind, Money::from_micros(micros));
        assert_eq!(r(CabinetType::Euro, 12_000_000), "12.00");
        assert_eq!(r(CabinetType::Euro, 12_345_670), "12.34567");
        assert_eq!(r(CabinetType::Stars, 500_000_000), "500");
        assert_eq!(r(CabinetType::Stars, 500_500_000), "500.5");
    }

    #[test]
    fn a_client_cabinet_needs_every_field_but_the_legal_name() {
        let body = json!({"title": "Client", "full_name": "Ann Lee", "email": "ann@example.com",
            "phone_number": "+44 20 1234", "country": "GB", "city": "London"});
        let info = RelatedInfo::read(&body).unwrap();
        assert_eq!(info.legal_name, None);
        let mut missing = body.clone();
        missing.as_object_mut().unwrap().remove("city");
        assert_eq!(RelatedInfo::read(&missing).unwrap_err().param, "city");
        let mut bad = body;
        bad["email"] = json!("nobody");
        assert_eq!(RelatedInfo::read(&bad).unwrap_err().param, "email");
    }
}
