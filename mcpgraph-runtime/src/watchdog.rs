//! The per-expression time limit (`maxExpressionTimeMs`) without a clock
//! read per evaluation step.
//!
//! Given a `timeout_ms`, jsonata-core reads the clock at every node it
//! evaluates (measured: a fifth of a loop node's cost). Instead each call
//! hands its evaluator a [`CancelToken`] and arms a deadline before each
//! evaluation; one process-wide watchdog thread, awake only while some
//! evaluation is armed, cancels the token of an evaluation that outlives
//! its deadline. The evaluation then stops with U1003, which
//! [`ExpressionTimer::disarm`] turns back into jsonata's own D1012. The
//! limit is enforced to within [`POLL`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::thread::Thread;
use std::time::{Duration, Instant};

use jsonata_core::evaluator::CancelToken;

/// How often the watchdog looks while an evaluation is armed.
const POLL: Duration = Duration::from_millis(5);

/// `deadline` of an evaluation that is not running.
const IDLE: u64 = 0;
/// `deadline` once the watchdog has cancelled the token.
const FIRED: u64 = u64::MAX;

/// One call's timer: its token and the deadline of the running evaluation.
struct Slot {
    /// Milliseconds since [`epoch`], or [`IDLE`] / [`FIRED`].
    deadline: AtomicU64,
    token: CancelToken,
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
                token: CancelToken::new(),
            }),
            registered: false,
        }
    }

    /// The token the call's evaluator must hold.
    pub(crate) fn token(&self) -> CancelToken {
        self.slot.token.clone()
    }

    /// Starts the clock of one evaluation.
    pub(crate) fn arm(&mut self) {
        let Some(limit) = self.limit_ms else {
            return;
        };
        let watchdog = watchdog();
        if !self.registered {
            watchdog.register(&self.slot);
            self.registered = true;
        }
        // `now_ms` truncates: one more millisecond, so the watchdog never
        // fires before the limit has fully passed.
        let deadline = now_ms()
            .saturating_add(limit)
            .saturating_add(1)
            .clamp(1, FIRED - 1);
        self.slot.deadline.store(deadline, Ordering::SeqCst);
        if watchdog.sleeping.load(Ordering::SeqCst) {
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
    /// Set while the thread is parked with nothing armed.
    sleeping: AtomicBool,
    thread: Thread,
}

#[derive(Default)]
struct Slots {
    live: Vec<Weak<Slot>>,
    /// Length after the last pruning: registering prunes when it doubles.
    pruned_len: usize,
}

impl Watchdog {
    fn register(&self, slot: &Arc<Slot>) {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if slots.live.len() >= 2 * slots.pruned_len + 64 {
            slots.live.retain(|w| w.strong_count() > 0);
            slots.pruned_len = slots.live.len();
        }
        slots.live.push(Arc::downgrade(slot));
    }

    /// Cancels what is overdue; whether anything is still armed.
    fn sweep(&self) -> bool {
        let now = now_ms();
        let mut armed = false;
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
                    slot.token.cancel();
                } else {
                    armed = true;
                }
            }
            true
        });
        slots.pruned_len = slots.live.len();
        armed
    }

    fn run(&self) {
        loop {
            if self.sweep() {
                std::thread::sleep(POLL);
                continue;
            }
            // Publish that we sleep, then look once more: an evaluation
            // armed in between either sees the flag (and unparks us) or is
            // seen here.
            self.sleeping.store(true, Ordering::SeqCst);
            if !self.sweep() {
                std::thread::park();
            }
            self.sleeping.store(false, Ordering::SeqCst);
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
            sleeping: AtomicBool::new(false),
            thread: handle.thread().clone(),
        }));
        let _ = tx.send(watchdog);
        watchdog
    })
}

/// Milliseconds since the first call (never 0 for a deadline: see `arm`).
fn now_ms() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(FIRED - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overdue_evaluation_is_cancelled_and_reported_once() {
        let mut timer = ExpressionTimer::new(Some(20));
        let token = timer.token();
        timer.arm();
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
            timer.arm();
            assert_eq!(timer.disarm(), None);
        }
        std::thread::sleep(POLL * 3);
        assert!(!timer.token().is_cancelled());
    }

    #[test]
    fn without_a_limit_nothing_is_armed() {
        let mut timer = ExpressionTimer::new(None);
        timer.arm();
        assert!(!timer.registered);
        assert_eq!(timer.disarm(), None);
    }
}
