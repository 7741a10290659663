//! Calls in flight whose server asked a 2026-07-28 caller a question: kept
//! here, with the question's answer channel, until the caller's retry
//! brings the answer (on this replica: the call lives in this process) or
//! the caller's time to answer (`maxAnswerWaitMs`) runs out. Each caller
//! has a share of the places ([`MAX_PARKED_PER_CALLER`]).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::asking::Parked;
use super::waiting::Waiting;
use mcpgraph_runtime::host::Owner;

/// A parked call: the call in flight, and the question it waits to answer.
type ParkedCall = (Box<Waiting>, Parked);

/// The parked calls of a client manager.
pub(super) struct Parking {
    calls: Arc<Mutex<Held>>,
    /// Random per process, so that an id from another replica's state
    /// does not name one of ours.
    base: u64,
    next: AtomicU64,
}

/// What [`Parking`] guards: the calls by id, with their owners, and how
/// many each owner has parked.
#[derive(Default)]
struct Held {
    by_id: HashMap<u64, (ParkedCall, Owner)>,
    shares: Shares,
}

/// The most calls parked at once. Each holds a downstream call (and, over
/// stdio, its connection's turn) for up to its caller's `maxAnswerWaitMs`;
/// past this, a question that would park one is refused, naming the bound,
/// and the calls already parked are not touched.
pub(super) const MAX_PARKED: usize = 256;

/// The most calls one caller (principal, else session, else peer address:
/// see `questions::Owner`) may have parked at once: one caller cannot take
/// all of [`MAX_PARKED`].
pub(super) const MAX_PARKED_PER_CALLER: usize = 32;

/// Why a call could not be parked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Full {
    /// [`MAX_PARKED`] calls are parked.
    All,
    /// This caller has [`MAX_PARKED_PER_CALLER`] parked.
    Caller,
}

impl std::fmt::Display for Full {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::All => write!(
                f,
                "{MAX_PARKED} calls already wait for their clients' answers on this server (the bound)"
            ),
            Self::Caller => write!(
                f,
                "this client already has {MAX_PARKED_PER_CALLER} calls waiting for its answers on this server \
                 (its share)"
            ),
        }
    }
}

/// How many calls each owner has parked.
#[derive(Default)]
struct Shares {
    by_owner: HashMap<Owner, usize>,
    total: usize,
}

impl Shares {
    /// Takes a place for `owner`, or says why there is none.
    fn take(&mut self, owner: &Owner) -> Result<(), Full> {
        if self.total >= MAX_PARKED {
            return Err(Full::All);
        }
        let held = self.by_owner.entry(owner.clone()).or_default();
        if *held >= MAX_PARKED_PER_CALLER {
            return Err(Full::Caller);
        }
        *held += 1;
        self.total += 1;
        Ok(())
    }

    /// Gives `owner`'s place back.
    fn give_back(&mut self, owner: &Owner) {
        if let Some(held) = self.by_owner.get_mut(owner) {
            *held -= 1;
            self.total -= 1;
            if *held == 0 {
                self.by_owner.remove(owner);
            }
        }
    }
}

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

impl Held {
    fn remove(&mut self, id: u64) -> Option<ParkedCall> {
        let (call, owner) = self.by_id.remove(&id)?;
        self.shares.give_back(&owner);
        Some(call)
    }
}

impl Parking {
    /// Parks `waiting` with its question `parked`, for `owner`, for at most
    /// `ttl` (the caller's `maxAnswerWaitMs`); its id, or why it cannot be
    /// parked (the call is then dropped: its question refused, the call
    /// cancelled downstream). A parked call is dropped the same way if not
    /// taken back within `ttl`.
    pub(super) fn park(
        &self,
        runtime: &tokio::runtime::Handle,
        (waiting, parked): ParkedCall,
        owner: Option<&Owner>,
        ttl: Duration,
    ) -> Result<u64, Full> {
        let owner = owner.cloned().unwrap_or_else(|| Owner::new("unknown"));
        let id = self
            .base
            .wrapping_add(self.next.fetch_add(1, Ordering::SeqCst));
        {
            let Ok(mut calls) = self.calls.lock() else {
                return Err(Full::All);
            };
            calls.shares.take(&owner)?;
            calls.by_id.insert(id, ((waiting, parked), owner));
        }
        let calls = Arc::downgrade(&self.calls);
        runtime.spawn(async move {
            tokio::time::sleep(ttl).await;
            if let Some(calls) = calls.upgrade() {
                let expired = calls.lock().ok().and_then(|mut c| c.remove(id));
                drop(expired);
            }
        });
        Ok(id)
    }

    /// Takes back the call parked as `id`.
    pub(super) fn take(&self, id: u64) -> Option<ParkedCall> {
        self.calls.lock().ok()?.remove(id)
    }

    /// Drops every parked call (shutdown).
    pub(super) fn clear(&self) {
        let parked: Vec<_> = match self.calls.lock() {
            Ok(mut calls) => {
                calls.shares = Shares::default();
                calls.by_id.drain().collect()
            }
            Err(_) => Vec::new(),
        };
        drop(parked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_caller_cannot_take_every_place() {
        let mut shares = Shares::default();
        let (greedy, other) = (Owner::new("peer:10.0.0.1"), Owner::new("session:b"));
        for _ in 0..MAX_PARKED_PER_CALLER {
            shares.take(&greedy).unwrap();
        }
        assert_eq!(shares.take(&greedy), Err(Full::Caller));
        assert_eq!(shares.take(&other), Ok(()));
        shares.give_back(&greedy);
        assert_eq!(shares.take(&greedy), Ok(()));
    }

    #[test]
    fn the_total_bound_still_holds() {
        let mut shares = Shares::default();
        for i in 0..MAX_PARKED {
            shares.take(&Owner::new(&format!("peer:{i}"))).unwrap();
        }
        assert_eq!(shares.take(&Owner::new("peer:new")), Err(Full::All));
    }
}
