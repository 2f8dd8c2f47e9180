//! Owns the simulator's controls (`adcab sim` and the web panel's): the service clock, review
//! decisions and faults.

use super::{bad, Done, Now, OpsError, Reviewed};
use crate::clock;
use crate::platform::sim::{Fault, Simulator};
use crate::services::Services;

fn simulator(s: &Services) -> Result<&Simulator, OpsError> {
    s.sim
        .as_deref()
        .ok_or_else(|| bad("platform", "the simulator is not the configured platform"))
}

pub fn sim_now(s: &Services) -> Result<Now, OpsError> {
    let now = s.db.read_blocking(clock::now)?;
    Ok(Now {
        now: clock::iso(now),
    })
}

pub fn sim_advance(s: &Services, seconds: i64) -> Result<Now, OpsError> {
    simulator(s)?;
    if !(1..=clock::MAX_ADVANCE).contains(&seconds) {
        return Err(bad(
            "seconds",
            format!("seconds must be from 1 to {} (a year)", clock::MAX_ADVANCE),
        ));
    }
    let now =
        s.db.write_blocking(|tx| clock::advance(tx, seconds))?
            .ok_or_else(|| {
                bad(
                    "seconds",
                    "the service clock cannot run more than a hundred years ahead",
                )
            })?;
    s.clock_moved.send_replace(());
    Ok(Now {
        now: clock::iso(now),
    })
}

/// Decides a pending review and brings the service's copy up to date at once.
pub fn sim_review(
    s: &Services,
    account: i64,
    ad: i64,
    approve: bool,
    reason: Option<&str>,
) -> Result<Reviewed, OpsError> {
    let status = simulator(s)?.review(account, ad, approve, reason)?;
    if let Err(e) = super::write_back::reread(s, account, ad)? {
        tracing::warn!(account, ad, error = %e, "the copy was not refreshed after review");
    }
    Ok(Reviewed {
        status: status.as_str(),
    })
}

pub fn sim_fail(s: &Services, account: i64, fault: Fault, count: u32) -> Result<Done, OpsError> {
    simulator(s)?.inject_fault(account, fault, count)?;
    Ok(Done {})
}
