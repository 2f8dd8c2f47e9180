//! The statement where the platform keeps no ledger: the simulator behind a platform that
//! answers `transactions` with Unsupported. The lines are adcab's own transfers (as the client
//! cabinet and as the main account, each the right way round) and the balances are unknown.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::month_of;
use super::sim::{agency, moved};
use adcab::domain::campaign::TargetType;
use adcab::domain::money::{CabinetType, Money};
use adcab::ops::reports::Reader;
use adcab::ops::statement::{self, LineKind, Peer};
use adcab::platform::{
    AdCounters, AdDraft, AdEdit, AdSnapshot, BudgetMoved, BudgetOp, Capabilities, CityEntry, Dates,
    PeerEntry, Platform, PlatformError, Switch, TransactionPage,
};

/// A platform that is the simulator in all but its ledger.
struct NoLedger(Arc<dyn Platform>);

impl Platform for NoLedger {
    fn capabilities(&self) -> &Capabilities {
        self.0.capabilities()
    }
    fn cities(&self, a: Option<i64>, c: &str, q: &str) -> Result<Vec<CityEntry>, PlatformError> {
        self.0.cities(a, c, q)
    }
    fn look_up_peer(
        &self,
        a: i64,
        t: TargetType,
        q: &str,
    ) -> Result<Option<PeerEntry>, PlatformError> {
        self.0.look_up_peer(a, t, q)
    }
    fn list_ads(&self, a: i64) -> Result<Vec<AdSnapshot>, PlatformError> {
        self.0.list_ads(a)
    }
    fn open_account(&self, k: CabinetType, b: Money) -> Result<i64, PlatformError> {
        self.0.open_account(k, b)
    }
    fn set_balance(&self, a: i64, b: Money) -> Result<(), PlatformError> {
        self.0.set_balance(a, b)
    }
    fn balance(&self, a: i64) -> Result<Money, PlatformError> {
        self.0.balance(a)
    }
    fn create_ad(&self, a: i64, d: &AdDraft) -> Result<AdSnapshot, PlatformError> {
        self.0.create_ad(a, d)
    }
    fn get_ad(&self, a: i64, ad: i64) -> Result<AdSnapshot, PlatformError> {
        self.0.get_ad(a, ad)
    }
    fn get_ads(&self, a: i64, ads: &[i64]) -> Result<Vec<AdSnapshot>, PlatformError> {
        self.0.get_ads(a, ads)
    }
    fn report(&self, a: i64, at: DateTime<Utc>) -> Result<Vec<AdCounters>, PlatformError> {
        self.0.report(a, at)
    }
    fn transactions(
        &self,
        _: i64,
        _: Option<&str>,
        _: usize,
    ) -> Result<TransactionPage, PlatformError> {
        Err(PlatformError::Unsupported("an account's transactions"))
    }
    fn edit_ad(&self, a: i64, ad: i64, e: &AdEdit) -> Result<AdSnapshot, PlatformError> {
        self.0.edit_ad(a, ad, e)
    }
    fn switch_ad(
        &self,
        a: i64,
        ad: i64,
        on: bool,
        d: Dates,
    ) -> Result<(AdSnapshot, Switch), PlatformError> {
        self.0.switch_ad(a, ad, on, d)
    }
    fn move_budget(
        &self,
        a: i64,
        ad: i64,
        op: BudgetOp,
        t: &str,
    ) -> Result<BudgetMoved, PlatformError> {
        self.0.move_budget(a, ad, op, t)
    }
    fn delete_ad(&self, a: i64, ad: i64, t: &str) -> Result<bool, PlatformError> {
        self.0.delete_ad(a, ad, t)
    }
    fn upload_media(&self, a: i64, m: &str, f: &Path) -> Result<Option<String>, PlatformError> {
        self.0.upload_media(a, m, f)
    }
}

#[test]
fn without_a_ledger_the_lines_are_adcabs_transfers_and_the_balances_unknown() {
    let (app, main, client, key) = agency();
    moved(&app, &key, client, "30", "in");
    moved(&app, &key, client, "4", "out");
    let mut s = app.services.clone();
    s.platform = Arc::new(NoLedger(app.services.platform.clone()));
    let owner: i64 = app.scalar("SELECT owner_id FROM cabinets WHERE id = ?1", &[client]);
    let reach =
        s.db.read_blocking(|c| adcab::store::cabinets::reachable_by(c, owner))
            .unwrap();
    let month = month_of(app.now());
    let read = |account: i64| {
        let reader = Reader::of(&reach, account).unwrap();
        statement::statement(&s, &reader, month).unwrap()
    };

    let st = read(client);
    assert_eq!(st.balances(), None, "the balances are unknown");
    let lines: Vec<(LineKind, i64, Peer)> = st
        .lines
        .iter()
        .map(|l| (l.kind, l.amount.micros(), l.peer.clone()))
        .collect();
    assert_eq!(
        lines,
        [
            (LineKind::TransferIn, 30_000_000, Peer::MainAccount),
            (LineKind::TransferOut, -4_000_000, Peer::MainAccount),
        ]
    );
    let as_main = read(main);
    let lines: Vec<(LineKind, i64)> = as_main
        .lines
        .iter()
        .map(|l| (l.kind, l.amount.micros()))
        .collect();
    assert_eq!(
        lines,
        [
            (LineKind::TransferOut, -30_000_000),
            (LineKind::TransferIn, 4_000_000),
        ],
        "the main account's side of the same transfers"
    );
    assert_eq!(as_main.lines[0].peer, Peer::Account("Client Ltd".into()));
}
