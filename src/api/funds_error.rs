//! Owns the spec's status and code of each refusal of agency money (`ops::funds`), apart from
//! the error's other variants.

use hyper::StatusCode;

use crate::ops::funds::FundsRefusal;

pub fn status(r: FundsRefusal) -> StatusCode {
    match r {
        FundsRefusal::NotAgency | FundsRefusal::OwnerOnly => StatusCode::FORBIDDEN,
        FundsRefusal::NotMain
        | FundsRefusal::NotClientCabinet
        | FundsRefusal::MonthlyCap { .. } => StatusCode::CONFLICT,
        FundsRefusal::NotEnoughMoney => StatusCode::BAD_REQUEST,
    }
}

pub fn code(r: FundsRefusal) -> &'static str {
    match r {
        FundsRefusal::NotAgency => "FEATURE_NOT_AVAILABLE",
        FundsRefusal::OwnerOnly => "OWNER_ONLY",
        FundsRefusal::NotMain => "NOT_A_MAIN_ACCOUNT",
        FundsRefusal::NotClientCabinet => "NOT_A_CLIENT_CABINET",
        FundsRefusal::MonthlyCap { .. } => "MONTHLY_TOPUP_CAP",
        FundsRefusal::NotEnoughMoney => "INSUFFICIENT_BALANCE",
    }
}
