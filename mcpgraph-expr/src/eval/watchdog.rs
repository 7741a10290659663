//! The per-expression time limit (`maxExpressionTimeMs`) without a clock
//! read per evaluation step, and without a system call per evaluation.
//!
//! Given a `timeout_ms`, jsonata-core reads the clock at every node it
//! evaluates (measured: a fifth of a loop node's cost). Instead each call
//! hands its evaluator a [`CancelToken`] and arms a deadline before each
//! evaluation; one process-wide watchdog thread cancels the token of an
//! evaluation that outlives its deadline. The evaluation then stops with
//! U1003, which [`ExpressionTimer::disarm`] turns back into jsonata's own
//! D1012.
//!
//! The watchdog sleeps until the earliest deadline armed, and publishes
//! when it will next look (`next_look`). Arming wakes it only when the new
//! deadline comes before that. While evaluations keep coming it looks every
//! shortest limit anyway, so a new deadline (at least that far off) never
//! needs a wake-up: arming is a clock read and two atomics, no system call
//! (waking the thread on every evaluation cost two futex calls and a
//! context switch per call). After a quiet interval it parks for good, and
//! the next evaluation wakes it once. A deadline is enforced within a
//! millisecond or two of the limit.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::thread::Thread;
use std::time::{Duration, Instant};

use jsonata_core::evaluator::CancelToken;

/// `deadline` of an evaluation that is not running.
const IDLE: u64 = 0;
/// `deadline` once the watchdog has cancelled the token.
const FIRED: u64 = u64::MAX;
/// `next_look` while the watchdog is parked with no time set.
const NEVER: u64 = u64::MAX;

/// One call's timer: its token and the deadline of the running evaluation.
struct Slot {
    /// Milliseconds since [`epoch`], or [`IDLE`] / [`FIRED`].
    deadline: AtomicU64,
    /// Made when an evaluator first takes it: a call whose expressions
    /// are all evaluated natively never needs one.
    token: OnceLock<CancelToken>,
}

/// The time limit of one call's expressions.
pub(crate) struct ExpressionTimer {
    limit_ms: Option<u64>,
    slot: Arc<Slot>,
    registered: bool,
}

impl ExpressionTimer {
    /// A timer for evaluations of at most `limit_ms` (none: unlimited).
    pub(crate) fn new(limit_ms: Option<u64>) -> Self {
        Self {
            limit_ms,
            slot: Arc::new(Slot {
                deadline: AtomicU64::new(IDLE),
                token: OnceLock::new(),
            }),
            registered: false,
        }
    }

    /// The limit, in milliseconds (`None`: unlimited).
    pub(crate) fn limit_ms(&self) -> Option<u64> {
        self.limit_ms
    }

    /// The token the call's evaluator must hold.
    pub(crate) fn token(&self) -> CancelToken {
        self.token_ref().clone()
    }

    /// The token, borrowed: what the allocation budget cancels
    /// (`crate::memory`).
    pub(crate) fn token_ref(&self) -> &CancelToken {
        self.slot.token.get_or_init(CancelToken::new)
    }

    /// Starts the clock of one evaluation, counted from `started` (the
    /// node's start, read once for the node: an evaluation reads no clock).
    pub(crate) fn arm(&mut self, started: Instant) {
        let Some(limit) = self.limit_ms else {
            return;
        };
        let watchdog = watchdog();
        if !self.registered {
            watchdog.register(&self.slot, limit);
            self.registered = true;
        }
        // `now_ms` truncates: one more millisecond, so the watchdog never
        // fires before the limit has fully passed.
        let deadline = ms_since_epoch(started)
            .saturating_add(limit)
            .saturating_add(1)
            .clamp(1, FIRED - 1);
        // SeqCst pairs with the watchdog's store of `next_look` and its
        // second sweep: either this load sees the time it published, or
        // that sweep sees this deadline.
        self.slot.deadline.store(deadline, Ordering::SeqCst);
        if !watchdog.busy.load(Ordering::Relaxed) {
            watchdog.busy.store(true, Ordering::Relaxed);
        }
        if deadline < watchdog.next_look.load(Ordering::SeqCst) {
            watchdog.thread.unpark();
        }
    }

    /// Stops the clock. `Some(limit)` when the watchdog fired during the
    /// evaluation: its token is spent, so the caller must build a new
    /// evaluator with a new timer's token, and an evaluation that stopped
    /// with U1003 ran out of time.
    pub(crate) fn disarm(&mut self) -> Option<u64> {
        self.limit_ms?;
        match self.slot.deadline.swap(IDLE, Ordering::SeqCst) {
            FIRED => self.limit_ms,
            _ => None,
        }
    }
}

/// jsonata's own error for an evaluation over its time limit.
pub(crate) fn timeout_error(limit_ms: u64) -> jsonata_core::evaluator::EvaluatorError {
    jsonata_core::evaluator::EvaluatorError::EvaluationError(format!(
        "D1012: Evaluation timeout after {limit_ms} milliseconds. Check for infinite loop"
    ))
}

struct Watchdog {
    slots: Mutex<Slots>,
    /// When the watchdog looks next (ms since the epoch), [`NEVER`] while
    /// it is parked with no time set.
    next_look: AtomicU64,
    /// Set by every evaluation armed, cleared by each look: whether the
    /// watchdog may park for good.
    busy: AtomicBool,
    thread: Thread,
}

#[derive(Default)]
struct Slots {
    live: Vec<Weak<Slot>>,
    /// Length after the last pruning: registering prunes when it doubles.
    pruned_len: usize,
    /// The shortest limit of any timer registered: how often the watchdog
    /// looks while evaluations keep coming.
    shortest_ms: Option<u64>,
}

impl Watchdog {
    fn register(&self, slot: &Arc<Slot>, limit_ms: u64) {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if slots.live.len() >= 2 * slots.pruned_len + 64 {
            slots.live.retain(|w| w.strong_count() > 0);
            slots.pruned_len = slots.live.len();
        }
        slots.live.push(Arc::downgrade(slot));
        slots.shortest_ms = Some(slots.shortest_ms.map_or(limit_ms, |s| s.min(limit_ms)));
    }

    /// Cancels what is overdue at `now`; the earliest deadline still armed,
    /// and the shortest limit registered.
    fn sweep(&self, now: u64) -> (Option<u64>, Option<u64>) {
        let mut earliest = None::<u64>;
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.live.retain(|weak| {
            let Some(slot) = weak.upgrade() else {
                return false;
            };
            let deadline = slot.deadline.load(Ordering::SeqCst);
            if deadline != IDLE && deadline != FIRED {
                if now >= deadline
                    && slot
                        .deadline
                        .compare_exchange(deadline, FIRED, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                {
                    if let Some(token) = slot.token.get() {
                        token.cancel();
                    }
                } else {
                    earliest = Some(earliest.map_or(deadline, |e| e.min(deadline)));
                }
            }
            true
        });
        slots.pruned_len = slots.live.len();
        (earliest, slots.shortest_ms)
    }

    /// When to look next, after a look at `now`: at the earliest deadline
    /// armed; else, if evaluations came since the last look, after the
    /// shortest limit (no deadline armed from now on is earlier); else
    /// never, until an evaluation wakes the thread.
    fn next_look(&self, now: u64) -> u64 {
        let (earliest, shortest) = self.sweep(now);
        let busy = self.busy.swap(false, Ordering::Relaxed);
        match (earliest, shortest) {
            (Some(deadline), _) => deadline,
            (None, Some(shortest)) if busy => now.saturating_add(shortest.max(1)),
            _ => NEVER,
        }
    }

    fn run(&self) {
        loop {
            let now = now_ms();
            let mut next = self.next_look(now);
            // Publish, then look once more: an evaluation armed in between
            // either sees the time published (and wakes us if its deadline
            // is earlier) or is seen here.
            loop {
                self.next_look.store(next, Ordering::SeqCst);
                let (earliest, _) = self.sweep(now_ms());
                match earliest {
                    Some(deadline) if deadline < next => next = deadline,
                    _ => break,
                }
            }
            if next == NEVER {
                std::thread::park();
            } else {
                let wait = next.saturating_sub(now_ms()).max(1);
                std::thread::park_timeout(Duration::from_millis(wait));
            }
        }
    }
}

fn watchdog() -> &'static Watchdog {
    static WATCHDOG: OnceLock<&'static Watchdog> = OnceLock::new();
    WATCHDOG.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<&'static Watchdog>();
        let handle = std::thread::Builder::new()
            .name("mcpgraph-watchdog".into())
            .spawn(move || {
                if let Ok(watchdog) = rx.recv() {
                    watchdog.run();
                }
            })
            .expect("spawn the expression watchdog thread");
        let watchdog: &'static Watchdog = Box::leak(Box::new(Watchdog {
            slots: Mutex::new(Slots::default()),
            // Until the thread has looked once, every evaluation wakes it.
            next_look: AtomicU64::new(NEVER),
            busy: AtomicBool::new(false),
            thread: handle.thread().clone(),
        }));
        let _ = tx.send(watchdog);
        watchdog
    })
}

/// Milliseconds since the watchdog's epoch (never 0 for a deadline: see
/// `arm`).
fn now_ms() -> u64 {
    ms_since_epoch(Instant::now())
}

/// `at` in milliseconds since the epoch, the first time asked for.
fn ms_since_epoch(at: Instant) -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(at.saturating_duration_since(epoch).as_millis()).unwrap_or(FIRED - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overdue_evaluation_is_cancelled_and_reported_once() {
        let mut timer = ExpressionTimer::new(Some(20));
        let token = timer.token();
        timer.arm(Instant::now());
        let started = Instant::now();
        while !token.is_cancelled() {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "never cancelled"
            );
            std::thread::yield_now();
        }
        assert!(started.elapsed() >= Duration::from_millis(19));
        assert_eq!(timer.disarm(), Some(20));
        // A quick evaluation is left alone.
        let mut timer = ExpressionTimer::new(Some(1000));
        for _ in 0..1000 {
            timer.arm(Instant::now());
            assert_eq!(timer.disarm(), None);
        }
        std::thread::sleep(Duration::from_millis(15));
        assert!(!timer.token().is_cancelled());
    }

    /// While the watchdog sleeps until a look set by long limits, a timer
    /// with a shorter limit still wakes it in time.
    #[test]
    fn a_shorter_limit_armed_while_the_watchdog_sleeps_is_enforced() {
        let mut long = ExpressionTimer::new(Some(60_000));
        for _ in 0..100 {
            long.arm(Instant::now());
            assert_eq!(long.disarm(), None);
        }
        std::thread::sleep(Duration::from_millis(10));
        long.arm(Instant::now());
        let mut short = ExpressionTimer::new(Some(30));
        let token = short.token();
        let started = Instant::now();
        short.arm(Instant::now());
        while !token.is_cancelled() {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "never cancelled"
            );
            std::thread::yield_now();
        }
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(29), "{took:?}");
        assert!(took < Duration::from_millis(500), "{took:?}");
        assert_eq!(short.disarm(), Some(30));
        assert_eq!(long.disarm(), None);
    }

    #[test]
    fn without_a_limit_nothing_is_armed() {
        let mut timer = ExpressionTimer::new(None);
        timer.arm(Instant::now());
        assert!(!timer.registered);
        assert_eq!(timer.disarm(), None);
    }
}
