//! Calls in flight whose server asked a 2026-07-28 caller a question: kept
//! here, with the question's answer channel, until the caller's retry
//! brings the answer (on this replica: the call lives in this process) or
//! the caller's time to answer runs out.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::asking::Parked;
use super::waiting::Waiting;

/// A parked call: the call in flight, and the question it waits to answer.
type ParkedCall = (Box<Waiting>, Parked);

/// The parked calls of a client manager.
pub(super) struct Parking {
    calls: Arc<Mutex<HashMap<u64, ParkedCall>>>,
    /// Random per process, so that an id from another replica's state
    /// does not name one of ours.
    base: u64,
    next: AtomicU64,
}

/// How long a parked call waits for its caller's retry (the sealed state's
/// lifetime).
pub(super) const PARKED_TTL: Duration = Duration::from_secs(600);

/// The most calls parked at once. Each holds a downstream call (and, over
/// stdio, its connection's turn) for up to [`PARKED_TTL`]; past this, a
/// question that would park one is refused, naming the bound, and the
/// calls already parked are not touched.
pub(super) const MAX_PARKED: usize = 256;

impl Default for Parking {
    fn default() -> Self {
        let base = std::hash::RandomState::new().build_hasher().finish();
        Self {
            calls: Arc::default(),
            base,
            next: AtomicU64::new(0),
        }
    }
}

impl Parking {
    /// Parks `waiting` with its question `parked`; its id, or `None` when
    /// [`MAX_PARKED`] calls are parked already (the call is then dropped:
    /// its question refused, the call cancelled downstream). A parked call
    /// is dropped the same way if not taken back within [`PARKED_TTL`].
    pub(super) fn park(
        &self,
        runtime: &tokio::runtime::Handle,
        waiting: Box<Waiting>,
        parked: Parked,
    ) -> Option<u64> {
        let id = self
            .base
            .wrapping_add(self.next.fetch_add(1, Ordering::SeqCst));
        {
            let mut calls = self.calls.lock().ok()?;
            if calls.len() >= MAX_PARKED {
                return None;
            }
            calls.insert(id, (waiting, parked));
        }
        let calls = Arc::downgrade(&self.calls);
        runtime.spawn(async move {
            tokio::time::sleep(PARKED_TTL).await;
            if let Some(calls) = calls.upgrade() {
                let expired = calls.lock().ok().and_then(|mut c| c.remove(&id));
                drop(expired);
            }
        });
        Some(id)
    }

    /// Takes back the call parked as `id`.
    pub(super) fn take(&self, id: u64) -> Option<ParkedCall> {
        self.calls.lock().ok()?.remove(&id)
    }

    /// Drops every parked call (shutdown).
    pub(super) fn clear(&self) {
        let parked: Vec<_> = match self.calls.lock() {
            Ok(mut calls) => calls.drain().collect(),
            Err(_) => Vec::new(),
        };
        drop(parked);
    }
}
