//! The in-memory `LeaseStore`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::changes::Broadcaster;
use crate::error::Result;
use crate::lease::transition::{self, AcquireDecision};
use crate::lease::{
    AcquireOutcome, AcquireParams, Capabilities, FencingToken, ForceReleaseParams, HistoryParams,
    LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, ReleaseParams, RenewAllOutcome,
    RenewAllParams, RenewParams,
};
use crate::page::{Cursor, Page, check_page_size};
use crate::time::{Clock, StoreTime, SystemClock};

#[derive(Default)]
struct State {
    leases: BTreeMap<LeaseName, Lease>,
    last_token: u64,
    history: Vec<LeaderChange>,
}

/// Leases kept in this process's memory, judged by an injected clock.
pub struct MemoryLeaseStore {
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
    changes: Broadcaster,
}

impl Default for MemoryLeaseStore {
    fn default() -> Self {
        MemoryLeaseStore::with_clock(Arc::new(SystemClock))
    }
}

impl MemoryLeaseStore {
    /// An empty store judged by `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        MemoryLeaseStore { clock, state: Mutex::default(), changes: Broadcaster::default() }
    }

    /// Deletes a lease record outright, as an operator cleaning up a table would; tokens issued
    /// later for the same name still grow.
    pub fn delete(&self, name: &LeaseName) {
        self.lock().leases.remove(name);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl LeaseStore for MemoryLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        transition::check_ttl(params.ttl)?;
        let now = self.clock.now();
        let mut state = self.lock();
        let next_token = FencingToken::new(state.last_token + 1)?;
        let current = state.leases.get(&params.name);
        match transition::acquire(current, &params, now, next_token) {
            AcquireDecision::Held => Ok(AcquireOutcome::Held(current.cloned().expect("held"))),
            AcquireDecision::Grant { lease, reason, previous_end } => {
                state.last_token = next_token.get();
                let id = i64::try_from(state.history.len()).unwrap_or(i64::MAX) + 1;
                state.history.push(LeaderChange {
                    id,
                    lease: lease.name.clone(),
                    holder: params.holder.clone(),
                    token: next_token,
                    at: now,
                    reason,
                    previous_end,
                });
                state.leases.insert(lease.name.clone(), lease.clone());
                Ok(AcquireOutcome::Acquired { lease, reason })
            }
        }
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        let now = self.clock.now();
        let mut state = self.lock();
        let renewed = transition::renew(state.leases.get(&params.name), &params, now)?;
        state.leases.insert(renewed.name.clone(), renewed.clone());
        Ok(renewed)
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        let now = self.clock.now();
        let mut state = self.lock();
        let mut outcome = RenewAllOutcome::default();
        for (name, token) in params.leases {
            let one = RenewParams { name, holder: params.holder.clone(), token };
            match transition::renew(state.leases.get(&one.name), &one, now) {
                Ok(renewed) => {
                    state.leases.insert(renewed.name.clone(), renewed.clone());
                    outcome.renewed.push(renewed);
                }
                Err(_) => outcome.lost.push(one.name),
            }
        }
        Ok(outcome)
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        let now = self.clock.now();
        let released = {
            let mut state = self.lock();
            let released = transition::release(state.leases.get(&params.name), &params, now);
            released.map(|lease| state.leases.insert(lease.name.clone(), lease)).is_some()
        };
        if released {
            self.changes.publish(&params.name);
        }
        Ok(released)
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        let now = self.clock.now();
        let previous = {
            let mut state = self.lock();
            let previous = state.leases.get(&params.name).cloned();
            match transition::force_release(previous.as_ref(), now) {
                Some(released) => {
                    state.leases.insert(released.name.clone(), released);
                    previous
                }
                None => None,
            }
        };
        if previous.is_some() {
            self.changes.publish(&params.name);
        }
        Ok(previous)
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        Ok(self.lock().leases.get(name).cloned())
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        Ok(self.lock().leases.values().cloned().collect())
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        let limit = check_page_size(params.limit)? as usize;
        let after = params.after.map_or(0, Cursor::last_id);
        let state = self.lock();
        let items: Vec<LeaderChange> = state
            .history
            .iter()
            .filter(|change| change.id > after)
            .filter(|change| params.lease.as_ref().is_none_or(|lease| &change.lease == lease))
            .take(limit + 1)
            .cloned()
            .collect();
        Ok(Page::from_fetched(items, limit as u32, |item| item.id))
    }

    async fn now(&self) -> Result<StoreTime> {
        Ok(self.clock.now())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        Ok(Some(self.changes.subscribe()))
    }
}
