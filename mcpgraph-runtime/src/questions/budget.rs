//! What one tool call may spend on questions: how many its downstream
//! servers may ask its client (`maxQuestions`, counted over the whole call:
//! every node, branch, item and, for a 2026-07-28 client, round) and how
//! long one question may wait for the answer (`maxAnswerWaitMs`). Past
//! either, the call is stopped: every downstream call of it still waiting
//! ends with the stop's error (see `downstream::waiting`).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::error::{ErrorKind, Limit};
use crate::meta::Limits;

/// The question budget of one tool call, shared by every clone of its
/// [`super::Caller`].
#[derive(Debug, Default)]
#[doc(hidden)]
pub struct Budget {
    /// `(maxQuestions, maxAnswerWaitMs)`, set when the call starts (the
    /// format's defaults until then).
    bounds: OnceLock<(u64, Duration)>,
    /// Questions asked so far (a 2026-07-28 caller counts in its rounds).
    asked: AtomicU64,
    /// Why the call was stopped, once it was.
    stop: OnceLock<Stop>,
    stopped: tokio::sync::Notify,
}

/// Why a call's questions stopped it: the limit's kind and what happened
/// (the downstream call it stops names its server and tool before it).
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct Stop {
    pub kind: ErrorKind,
    pub why: String,
}

impl Budget {
    /// Bounds the call by `limits` (its graph's); the first call wins, so
    /// that nested calls of the graph's own tools share the outer call's.
    pub(crate) fn bound(&self, limits: &Limits) {
        let _ = self.bounds.set((
            limits.max_questions,
            Duration::from_millis(limits.max_answer_wait_ms),
        ));
    }

    fn bounds(&self) -> (u64, Duration) {
        *self.bounds.get().unwrap_or(&(
            Limits::DEFAULT.max_questions,
            Duration::from_millis(Limits::DEFAULT.max_answer_wait_ms),
        ))
    }

    /// How long one question may wait for its answer.
    pub fn answer_wait(&self) -> Duration {
        self.bounds().1
    }

    /// Counts `n` more questions on this call's own counter; the total.
    pub(super) fn count(&self, n: u64) -> u64 {
        self.asked.fetch_add(n, Ordering::SeqCst) + n
    }

    /// Whether `total` questions are within `maxQuestions`; the call is
    /// stopped when not.
    pub(super) fn check(&self, total: u64) -> Result<(), Stop> {
        let max = self.bounds().0;
        if total <= max {
            return Ok(());
        }
        Err(self.stop(Stop {
            kind: ErrorKind::Limit(Limit::Questions),
            why: format!(
                "Execution limit exceeded: the call's downstream servers asked its client more than \
                 maxQuestions ({max}) questions"
            ),
        }))
    }

    /// The calling client left a question unanswered for `maxAnswerWaitMs`:
    /// the call is stopped.
    pub(super) fn answer_timed_out(&self, capability: &str) -> Stop {
        let wait = self.answer_wait().as_millis();
        self.stop(Stop {
            kind: ErrorKind::Limit(Limit::AnswerWait),
            why: format!(
                "Execution limit exceeded: the calling client did not answer its `{capability}` question \
                 within maxAnswerWaitMs ({wait} ms)"
            ),
        })
    }

    /// Stops the call with `stop` (the first stop stays); the stop in force.
    pub(crate) fn stop(&self, stop: Stop) -> Stop {
        let _ = self.stop.set(stop.clone());
        self.stopped.notify_waiters();
        self.stop.get().cloned().unwrap_or(stop)
    }

    /// Waits until the call is stopped; why.
    pub async fn stopped(&self) -> Stop {
        loop {
            let notified = self.stopped.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if let Some(stop) = self.stop.get() {
                return stop.clone();
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_max_questions_the_call_stops_once() {
        let budget = Budget::default();
        budget.bound(&Limits {
            max_questions: 2,
            ..Limits::DEFAULT
        });
        assert!(budget.check(budget.count(2)).is_ok());
        let stop = budget.check(budget.count(1)).unwrap_err();
        assert_eq!(stop.kind, ErrorKind::Limit(Limit::Questions));
        assert!(stop.why.contains("maxQuestions (2)"), "{}", stop.why);
        assert!(budget.stop.get().is_some());
    }
}
