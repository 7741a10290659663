//! The time a call spent waiting for its caller's answers ([`WaitClock`]),
//! which its time limits do not count.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Time a call spent waiting for its caller's answers, which its time
/// limits do not count.
#[derive(Debug, Default)]
#[doc(hidden)]
pub struct WaitClock {
    /// Questions out now.
    outstanding: AtomicUsize,
    /// Microseconds waited by questions that were answered.
    waited_us: AtomicU64,
}

impl WaitClock {
    /// Starts timing one question; the guard stops it.
    pub(super) fn start(self: &Arc<Self>) -> Waiting {
        self.outstanding.fetch_add(1, Ordering::SeqCst);
        Waiting {
            clock: Arc::clone(self),
            since: Instant::now(),
        }
    }

    /// Whether a question is out now.
    pub(crate) fn asking(&self) -> bool {
        self.outstanding.load(Ordering::SeqCst) > 0
    }

    /// The time waited by answered questions so far.
    pub(crate) fn waited(&self) -> Duration {
        Duration::from_micros(self.waited_us.load(Ordering::SeqCst))
    }

    /// Runs `work` until `limit` of time not spent waiting for answers has
    /// passed (the wait of a question still out does not count); `None`
    /// when the limit came first.
    #[doc(hidden)]
    pub async fn timeout<T>(&self, limit: Duration, work: impl Future<Output = T>) -> Option<T> {
        let started = tokio::time::Instant::now();
        let waited_before = self.waited();
        let mut work = std::pin::pin!(work);
        loop {
            let due = started + limit + (self.waited() - waited_before);
            let now = tokio::time::Instant::now();
            let asking = self.asking();
            if !asking && now >= due {
                return None;
            }
            // While a question is out its wait is not run time yet: look
            // again once it may have been answered.
            let wake = if asking {
                due.max(now + ASKING_POLL)
            } else {
                due
            };
            tokio::select! {
                done = &mut work => return Some(done),
                () = tokio::time::sleep_until(wake) => {}
            }
        }
    }
}

/// How often a time limit that fell due while a question was out looks
/// again.
const ASKING_POLL: Duration = Duration::from_millis(50);

/// One question being waited for.
pub(super) struct Waiting {
    clock: Arc<WaitClock>,
    since: Instant,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let waited = u64::try_from(self.since.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.clock.waited_us.fetch_add(waited, Ordering::SeqCst);
        self.clock.outstanding.fetch_sub(1, Ordering::SeqCst);
    }
}
