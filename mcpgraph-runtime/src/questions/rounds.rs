//! Questions for a client of MCP 2026-07-28, which has no session to be
//! sent requests on: the call ends with an `input_required` result, and the
//! client's retry carries the answers (multi-round-trip requests).
//!
//! The retry runs the graph again from its entry node, on any replica.
//! What the earlier rounds learned travels in the sealed `requestState`
//! (see `serving::resume`): the tape of answers already given (each
//! downstream call's result, each question's answer), replayed in order
//! instead of calling or asking again, and the questions the last round
//! stopped at, each with the downstream server's own `requestState`. Nodes
//! in between are evaluated again; they are pure, so they take the same
//! path (a graph that reads the clock, `$now()`, may not: a replay that
//! reaches another node than the tape says fails the call, naming both).
//!
//! Everything is keyed by the call it belongs to (a [`Slot`]): the node,
//! and for the calls of a `parallel` or `forEach` node, which run at once
//! and may all ask in one round, the branch or item (and the try that
//! asked). A call takes back only its own question's answers and its own
//! server's state, and replays only its own result.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{InputRequests, InputResponses};
use serde_json::Value;

use super::journal::JournalSink;
use super::saved::{FORMAT, Pending, Saved};
use super::slot::Slot;

/// One round of a 2026-07-28 call: what earlier rounds learned, the
/// answers this retry carries, and what this round learns or asks.
#[derive(Debug, Default)]
#[doc(hidden)]
pub struct Rounds {
    responses: InputResponses,
    /// The round resumes nothing: no `requestState` came with it.
    first: bool,
    /// Questions downstream servers asked, this round and the earlier ones.
    asked: AtomicU64,
    inner: Mutex<Inner>,
    /// Set when a call asks: the round will stop.
    stopping: tokio::sync::watch::Sender<bool>,
    /// A task's round: where its journal goes.
    journal: std::sync::OnceLock<std::sync::Arc<dyn JournalSink>>,
}

#[derive(Debug, Default)]
struct Inner {
    /// What is left to replay.
    replay: VecDeque<(Slot, Value)>,
    /// The whole tape: what was replayed, then what this round learned.
    tape: Vec<(Slot, Value)>,
    /// The questions of the last round, until their calls take the answers.
    pending: Vec<Pending>,
    /// The questions this round stops at, and their requests for the
    /// client (under the client's keys).
    asked: Vec<(Pending, InputRequests)>,
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
    #[doc(hidden)]
    pub fn new(saved: Saved, responses: InputResponses) -> Self {
        Self {
            first: saved.tape.is_empty() && saved.pending.is_empty(),
            responses,
            asked: AtomicU64::new(saved.asked),
            inner: Mutex::new(Inner {
                replay: saved.tape.into_iter().collect(),
                tape: Vec::new(),
                pending: saved.pending,
                asked: Vec::new(),
                missing: None,
            }),
            stopping: tokio::sync::watch::Sender::default(),
            journal: std::sync::OnceLock::new(),
        }
    }

    /// From now on, tells `journal` what the round learns (a task's
    /// round); once.
    pub fn journal_to(&self, journal: std::sync::Arc<dyn JournalSink>) {
        let _ = self.journal.set(journal);
    }

    /// Call `slot` of `server`'s `tool` is about to be made (none of the
    /// tape's entries was for it): in a task, made once the journal holds
    /// it, or refused with the reason (see [`JournalSink::began`]).
    pub(crate) async fn begin_call(
        &self,
        slot: &Slot,
        server: &str,
        tool: &str,
    ) -> Result<(), String> {
        match self.journal.get() {
            Some(journal) => journal.began(slot, server, tool).await,
            None => Ok(()),
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
        self.replay_call(&Slot::node(node))
    }

    /// What the call `slot` got in an earlier round, if it got it there.
    /// A node's entry must be next on the tape. The calls of a fan-out
    /// node end in any order: a call's entry is looked for among the
    /// entries of its node next on the tape, and a call not among them
    /// did not end then (it asked, or never started).
    pub(crate) fn replay_call(&self, slot: &Slot) -> Result<Option<Value>, OffTape> {
        let mut inner = self.inner();
        let Some((expected, _)) = inner.replay.front() else {
            return Ok(None);
        };
        if expected.node != slot.node || expected.part.is_some() != slot.part.is_some() {
            return Err(OffTape {
                expected: expected.to_string(),
                reached: slot.to_string(),
            });
        }
        let at = if slot.part.is_none() {
            0
        } else {
            let found = inner
                .replay
                .iter()
                .take_while(|(at, _)| at.node == slot.node && at.part.is_some())
                .position(|(at, _)| at == slot);
            let Some(at) = found else {
                return Ok(None);
            };
            at
        };
        let entry = inner.replay.remove(at).expect("found above");
        let value = entry.1.clone();
        inner.tape.push(entry);
        Ok(Some(value))
    }

    /// Records what `node` got this round, for the next rounds to replay.
    pub(crate) fn record(&self, node: &str, value: Value) {
        self.record_call(Slot::node(node), value);
    }

    /// Records what the call `slot` got this round.
    pub(crate) fn record_call(&self, slot: Slot, value: Value) {
        if let Some(journal) = self.journal.get() {
            journal.ended(&slot, &value);
        }
        self.inner().tape.push((slot, value));
    }

    /// For the node the last round stopped at: the client's answers to its
    /// questions (by the keys it was sent) and the downstream server's
    /// `requestState`. Once.
    pub(crate) fn resume(&self, node: &str) -> Option<(InputResponses, Option<String>)> {
        self.resume_call(&Slot::node(node), 1)
    }

    /// For try `attempt` of the call `slot`, if the last round stopped at
    /// its question: the client's answers to that question, under the
    /// keys its server asked with, and the server's `requestState`. Once;
    /// nobody else's.
    #[doc(hidden)]
    pub fn resume_call(
        &self,
        slot: &Slot,
        attempt: u32,
    ) -> Option<(InputResponses, Option<String>)> {
        let mut inner = self.inner();
        let at = inner
            .pending
            .iter()
            .position(|p| p.slot == *slot && p.attempt == attempt)?;
        let pending = inner.pending.swap_remove(at);
        let answers = pending
            .keys
            .iter()
            .filter_map(|(client, server)| {
                self.responses
                    .get(client)
                    .map(|v| (server.clone(), v.clone()))
            })
            .collect();
        Some((answers, pending.state))
    }

    /// The try at which the call `slot` asked the question the last round
    /// stopped at, if it asked one: its retry goes on as that try.
    pub(crate) fn attempt(&self, slot: &Slot) -> Option<u32> {
        let inner = self.inner();
        inner
            .pending
            .iter()
            .find(|p| p.slot == *slot)
            .map(|p| p.attempt)
    }

    /// For the first question of a call that resumes nothing (its client
    /// sent answers but no `requestState`): the answer under the node's
    /// id, taken as the answer to the question the node would ask (it is
    /// checked like any answer). Later questions need the state.
    pub(crate) fn unasked(&self, node: &str) -> Option<Value> {
        let inner = self.inner();
        (self.first && inner.tape.is_empty() && inner.asked.is_empty())
            .then(|| self.responses.get(node).cloned())
            .flatten()
    }

    /// Ends this round at `node` with `requests` for the client (and the
    /// downstream server's `state`, to send back with the answers).
    pub(crate) fn ask(&self, node: &str, requests: InputRequests, state: Option<String>) {
        self.ask_call(Slot::node(node), 1, requests, state);
    }

    /// Ends this round with the questions `requests` of try `attempt` of
    /// the call `slot` (and its server's `state`, to send back with the
    /// answers), beside those other calls of the same node ask.
    #[doc(hidden)]
    pub fn ask_call(
        &self,
        slot: Slot,
        attempt: u32,
        requests: InputRequests,
        state: Option<String>,
    ) {
        let mut keys = Vec::with_capacity(requests.len());
        let requests: InputRequests = requests
            .into_iter()
            .map(|(key, request)| {
                let client = slot.client_key(attempt, &key);
                keys.push((client.clone(), key));
                (client, request)
            })
            .collect();
        let pending = Pending {
            slot,
            attempt,
            keys,
            state,
        };
        self.inner().asked.push((pending, requests));
        self.stopping.send_replace(true);
    }

    /// Waits until a call of this round asks (the round stops then).
    #[doc(hidden)]
    pub async fn stopping(&self) {
        let mut stopping = self.stopping.subscribe();
        let _ = stopping.wait_for(|stopping| *stopping).await;
    }

    /// Takes back the questions the calls of `node` asked this round (the
    /// node failed, and the round will not stop at them): their servers'
    /// states, for whoever holds what they name.
    pub(crate) fn withdraw(&self, node: &str) -> Vec<Option<String>> {
        let mut inner = self.inner();
        let (withdrawn, kept) = std::mem::take(&mut inner.asked)
            .into_iter()
            .partition(|(p, _)| p.slot.node == node);
        inner.asked = kept;
        self.stopping.send_replace(!inner.asked.is_empty());
        withdrawn.into_iter().map(|(p, _)| p.state).collect()
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

    /// The questions this round stopped at (every call's, under the keys
    /// the client is sent), and what to seal for the retry; `None` if it
    /// did not stop.
    #[doc(hidden)]
    pub fn asked(&self) -> Option<(InputRequests, Saved)> {
        let mut inner = self.inner();
        if inner.asked.is_empty() {
            return None;
        }
        let mut requests = InputRequests::new();
        let mut pending = Vec::with_capacity(inner.asked.len());
        for (question, asked) in std::mem::take(&mut inner.asked) {
            requests.extend(asked);
            pending.push(question);
        }
        let mut tape = std::mem::take(&mut inner.tape);
        tape.extend(inner.replay.drain(..));
        Some((
            requests,
            Saved {
                v: FORMAT,
                tape,
                pending,
                asked: self.asked.load(Ordering::SeqCst),
            },
        ))
    }
}

#[cfg(test)]
#[path = "rounds_tests.rs"]
mod tests;
