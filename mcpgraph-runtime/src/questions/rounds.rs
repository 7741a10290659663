//! Questions for a client of MCP 2026-07-28, which has no session to be
//! sent requests on: the call ends with an `input_required` result, and the
//! client's retry carries the answers (multi-round-trip requests).
//!
//! The retry runs the graph again from its entry node, on any replica.
//! What the earlier rounds learned travels in the sealed `requestState`
//! (see `serving::resume`): the tape of answers already given (each
//! downstream call's result, each question's answer), replayed in order
//! instead of calling or asking again, and the question the last round
//! stopped at, with the downstream server's own `requestState`. Nodes in
//! between are evaluated again; they are pure, so they take the same path
//! (a graph that reads the clock, `$now()`, may not: a replay that reaches
//! another node than the tape says fails the call, naming both).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{InputRequests, InputResponses};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a sealed `requestState` holds: the rounds so far.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Saved {
    /// `(node id, what it got)`, in the order the graph got them.
    pub(crate) tape: Vec<(String, Value)>,
    /// The question the last round stopped at.
    pub(crate) pending: Option<Pending>,
    /// The questions downstream servers asked in the rounds so far (against
    /// `maxQuestions`, which counts over every round of the call).
    #[serde(default)]
    pub(crate) asked: u64,
}

/// A node waiting for answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Pending {
    pub(crate) node: String,
    /// The keys of the `inputRequests` the client was sent for it.
    pub(crate) keys: Vec<String>,
    /// The downstream server's own `requestState`, sent back with the
    /// answers.
    pub(crate) state: Option<String>,
}

/// One round of a 2026-07-28 call: what earlier rounds learned, the
/// answers this retry carries, and what this round learns or asks.
#[derive(Debug, Default)]
pub(crate) struct Rounds {
    responses: InputResponses,
    /// The round resumes nothing: no `requestState` came with it.
    first: bool,
    /// Questions downstream servers asked, this round and the earlier ones.
    asked: AtomicU64,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// What is left to replay.
    replay: VecDeque<(String, Value)>,
    /// The whole tape: what was replayed, then what this round learned.
    tape: Vec<(String, Value)>,
    /// The question of the last round, until its node takes the answers.
    pending: Option<Pending>,
    /// The question this round stops at.
    asked: Option<(Pending, InputRequests)>,
    /// A capability a question needed that the client did not declare.
    missing: Option<&'static str>,
}

/// Why a replay cannot go on.
#[derive(Debug)]
pub(crate) struct OffTape {
    pub(crate) expected: String,
    pub(crate) reached: String,
}

impl std::fmt::Display for OffTape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the retry took another path than the first round (it reached node `{}` where node `{}` ran before): \
             the graph's choices depend on something that changed, so its earlier answers cannot be reused; call the tool again without requestState",
            self.reached, self.expected
        )
    }
}

impl Rounds {
    /// A round that resumes `saved` with the client's `responses`.
    pub(crate) fn new(saved: Saved, responses: InputResponses) -> Self {
        Self {
            first: saved.tape.is_empty() && saved.pending.is_none(),
            responses,
            asked: AtomicU64::new(saved.asked),
            inner: Mutex::new(Inner {
                replay: saved.tape.into_iter().collect(),
                tape: Vec::new(),
                pending: saved.pending,
                asked: None,
                missing: None,
            }),
        }
    }

    /// Counts `n` more questions asked by downstream servers; the total
    /// over every round so far.
    pub(crate) fn count_questions(&self, n: u64) -> u64 {
        self.asked.fetch_add(n, Ordering::SeqCst) + n
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What `node` got in an earlier round, if the tape has it next.
    pub(crate) fn replay(&self, node: &str) -> Result<Option<Value>, OffTape> {
        let mut inner = self.inner();
        let Some((expected, _)) = inner.replay.front() else {
            return Ok(None);
        };
        if expected != node {
            return Err(OffTape {
                expected: expected.clone(),
                reached: node.to_owned(),
            });
        }
        let entry = inner.replay.pop_front().expect("checked above");
        let value = entry.1.clone();
        inner.tape.push(entry);
        Ok(Some(value))
    }

    /// Records what `node` got this round, for the next rounds to replay.
    pub(crate) fn record(&self, node: &str, value: Value) {
        self.inner().tape.push((node.to_owned(), value));
    }

    /// For the node the last round stopped at: the client's answers to its
    /// questions (by the keys it was sent) and the downstream server's
    /// `requestState`. Once.
    pub(crate) fn resume(&self, node: &str) -> Option<(InputResponses, Option<String>)> {
        let mut inner = self.inner();
        if inner.pending.as_ref().is_none_or(|p| p.node != node) {
            return None;
        }
        let pending = inner.pending.take()?;
        let answers = pending
            .keys
            .iter()
            .filter_map(|k| self.responses.get(k).map(|v| (k.clone(), v.clone())))
            .collect();
        Some((answers, pending.state))
    }

    /// For the first question of a call that resumes nothing (its client
    /// sent answers but no `requestState`): the answer under the node's
    /// id, taken as the answer to the question the node would ask (it is
    /// checked like any answer). Later questions need the state.
    pub(crate) fn unasked(&self, node: &str) -> Option<Value> {
        let inner = self.inner();
        (self.first && inner.tape.is_empty() && inner.asked.is_none())
            .then(|| self.responses.get(node).cloned())
            .flatten()
    }

    /// Ends this round at `node` with `requests` for the client (and the
    /// downstream server's `state`, to send back with the answers).
    pub(crate) fn ask(&self, node: &str, requests: InputRequests, state: Option<String>) {
        let keys = requests.keys().cloned().collect();
        self.inner().asked = Some((
            Pending {
                node: node.to_owned(),
                keys,
                state,
            },
            requests,
        ));
    }

    /// Notes that a question needed `capability` (as the spec spells it,
    /// e.g. `elicitation.url`), which the client did not declare.
    pub(crate) fn lacks(&self, capability: &'static str) {
        self.inner().missing.get_or_insert(capability);
    }

    /// The capability a question needed that the client did not declare,
    /// as the `requiredCapabilities` of MCP 2026-07-28's error -32021.
    pub(crate) fn missing(&self) -> Option<Value> {
        let capability = self.inner().missing?;
        Some(match capability.split_once('.') {
            Some((outer, inner)) => serde_json::json!({ outer: { inner: {} } }),
            None => serde_json::json!({ capability: {} }),
        })
    }

    /// The questions this round stopped at, and what to seal for the
    /// retry; `None` if it did not stop.
    pub(crate) fn asked(&self) -> Option<(InputRequests, Saved)> {
        let mut inner = self.inner();
        let (pending, requests) = inner.asked.take()?;
        let mut tape = std::mem::take(&mut inner.tape);
        tape.extend(inner.replay.drain(..));
        Some((
            requests,
            Saved {
                tape,
                pending: Some(pending),
                asked: self.asked.load(Ordering::SeqCst),
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `maxQuestions` counts over every round: the count of the earlier
    /// rounds comes back with the sealed state, and goes on in it.
    #[test]
    fn the_question_count_carries_over_rounds() {
        let saved: Saved =
            serde_json::from_value(serde_json::json!({"tape": [], "asked": 10})).unwrap();
        let round = Rounds::new(saved, InputResponses::new());
        assert_eq!(round.count_questions(2), 12);
        round.ask("ask", InputRequests::new(), None);
        let (_, saved) = round.asked().expect("it stopped");
        assert_eq!(saved.asked, 12);
        // A state sealed before the count was kept reads as none asked.
        let old: Saved = serde_json::from_value(serde_json::json!({"tape": []})).unwrap();
        assert_eq!(old.asked, 0);
    }
}
