//! Owns the simulator's faults on demand: the next calls of an account time out, are refused,
//! are acknowledged and ignored, or panic, as `adcab sim fail` asks; and the configured
//! latency every call waits first.

use rusqlite::{params, OptionalExtension};

use super::rows::account_kind;
use super::{SimError, Simulator};
use crate::platform::{PlatformError, Unreachable};
use crate::store::StoreError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Fault {
    Timeout,
    Refuse,
    /// The platform acknowledges the next change but does nothing.
    Ignore,
    /// The next call panics, as a bug in a platform connector would.
    Panic,
}

impl Fault {
    pub fn parse(s: &str) -> Option<Fault> {
        match s {
            "timeout" => Some(Fault::Timeout),
            "refuse" => Some(Fault::Refuse),
            "ignore" => Some(Fault::Ignore),
            "panic" => Some(Fault::Panic),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Fault::Timeout => "timeout",
            Fault::Refuse => "refuse",
            Fault::Ignore => "ignore",
            Fault::Panic => "panic",
        }
    }
}

impl Simulator {
    /// Makes the account's next `count` platform calls time out or be refused.
    pub fn inject_fault(&self, account: i64, fault: Fault, count: u32) -> Result<(), SimError> {
        self.db.write_blocking(|tx| {
            account_kind(tx, account)?.ok_or(SimError::NoAccount(account))?;
            tx.execute(
                "INSERT INTO sim_faults (account_id, kind, remaining) VALUES (?1, ?2, ?3)
                 ON CONFLICT (account_id) DO UPDATE SET kind = excluded.kind, remaining = excluded.remaining",
                params![account, fault.as_str(), count.max(1)],
            )
            .map_err(StoreError::from)?;
            Ok(())
        })
    }

    /// Starts every platform call: waits the configured latency, then consumes one injected
    /// fault of the account, if any is pending: a timeout or refusal is returned as the error;
    /// `Some(Ignore)` tells a change to do nothing. Whether one is pending is looked up on a
    /// reader first, so that a call with none (nearly every call) does not wait for the writer.
    pub(super) fn take_fault(&self, account: i64) -> Result<Option<Fault>, PlatformError> {
        if self.config.latency_ms > 0 {
            std::thread::sleep(std::time::Duration::from_millis(self.config.latency_ms));
        }
        let pending = self
            .db
            .read_blocking(|c| {
                c.query_row(
                    "SELECT EXISTS (SELECT 1 FROM sim_faults WHERE account_id = ?1)",
                    [account],
                    |r| r.get::<_, bool>(0),
                )
                .map_err(StoreError::from)
            })
            .map_err(PlatformError::store)?;
        if !pending {
            return Ok(None);
        }
        let fault = self
            .db
            .write_blocking(|tx| {
                let pending: Option<(String, i64)> = tx
                    .query_row(
                        "SELECT kind, remaining FROM sim_faults WHERE account_id = ?1",
                        [account],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                let Some((kind, remaining)) = pending else {
                    return Ok(None);
                };
                if remaining > 1 {
                    tx.execute(
                        "UPDATE sim_faults SET remaining = remaining - 1 WHERE account_id = ?1",
                        [account],
                    )?;
                } else {
                    tx.execute("DELETE FROM sim_faults WHERE account_id = ?1", [account])?;
                }
                Ok(Fault::parse(&kind))
            })
            .map_err(PlatformError::store)?;
        match fault {
            Some(Fault::Timeout) => Err(PlatformError::Unreachable(Unreachable::Timeout)),
            Some(Fault::Refuse) => Err(PlatformError::Refused("simulated refusal".into())),
            Some(Fault::Panic) => panic!("simulated platform panic (account {account})"),
            other => Ok(other),
        }
    }
}
