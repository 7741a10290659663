//! A task's journal in the store: what another replica needs to take the
//! task over when the one running it stops (its lease runs out). The first
//! entry is the call (the tool, its arguments, what the client declared,
//! the caller's token); then each downstream call about to be made, each
//! result and answer the call's rounds record, and each round that asked.
//! Every entry is sealed with the state keys (which replicas share,
//! `--state-key-file`), bound to the graph and the task, so the store holds
//! no argument, result, answer or token in the clear.
//!
//! The steps are written in batches ([`keep`]): one store write when a
//! downstream call begins (with the results recorded since the last one),
//! which the call waits for; results alone at most [`LINGER`] after they
//! were recorded. A node costs at most one write.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use mcpgraph_runtime::host::{CallerToken, Slot};
use rmcp::model::ClientCapabilities;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::oneshot;

use super::sealer::{JournalError, Sealer};
use super::steps::{Journaled, Step};
use crate::{TaskId, TaskStore};

/// How long a replica holds a task it runs without renewing (it renews
/// three times as often); a task whose lease ran out is taken over.
pub(super) const LEASE: Duration = Duration::from_secs(6);

/// The call a task runs, as its journal starts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Start {
    pub(super) tool: String,
    pub(super) arguments: Option<Map<String, Value>>,
    pub(super) capabilities: Option<ClientCapabilities>,
    /// Who the caller is, for its share of what is held for callers.
    pub(super) owner: Option<String>,
    /// The caller's access token, so that a replica taking the task over
    /// calls downstream servers on the caller's behalf as the first did.
    #[serde(default)]
    pub(super) token: Option<KeptToken>,
}

/// A caller's access token as a task's journal keeps it (sealed with the
/// rest of its first entry); never printed.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct KeptToken {
    secret: String,
    scopes: Vec<String>,
}

impl KeptToken {
    pub(super) fn of(token: &CallerToken) -> Self {
        Self {
            secret: token.secret().to_owned(),
            scopes: token.scopes().to_vec(),
        }
    }

    pub(super) fn token(&self) -> CallerToken {
        CallerToken::new(&self.secret, self.scopes.iter().cloned())
    }
}

impl std::fmt::Debug for KeptToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeptToken(..)")
    }
}

/// One journal entry, before it is sealed.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) enum Entry {
    Start(Box<Start>),
    Steps(Vec<Journaled>),
}

/// A whole journal, read back with `sealer`: the call, what the rounds got in order,
/// the call in flight when the journal ends (its slot, server and
/// tool), and the last round that asked.
pub(super) fn replay(sealer: &Sealer, journal: Vec<Value>) -> Result<Replay, JournalError> {
    let mut entries = journal.into_iter().map(|v| sealer.open::<Entry>(v));
    let start = match entries.next() {
        Some(Ok(Entry::Start(start))) => *start,
        Some(Err(why)) => return Err(why),
        _ => return Err(JournalError::Shape("it does not start with the call")),
    };
    let mut replay = Replay {
        start,
        tape: Vec::new(),
        in_flight: BTreeMap::new(),
        rounds_before: 0,
    };
    let mut waiting = false;
    for entry in entries {
        let steps = match entry? {
            Entry::Start(_) => return Err(JournalError::Shape("it starts twice")),
            Entry::Steps(steps) => steps,
        };
        for step in steps {
            waiting = matches!(step, Journaled::Asked { .. });
            match step {
                Journaled::Began { slot, server, tool } => {
                    replay
                        .in_flight
                        .insert(slot.to_string(), (slot, server, tool));
                }
                Journaled::Ended { slot, value } => {
                    replay.in_flight.remove(&slot.to_string());
                    replay.tape.push((slot, value));
                }
                Journaled::Asked { round } => replay.rounds_before = round,
            }
        }
    }
    // Stopped while it waited for answers: the same round asks again,
    // under the keys the client may be answering.
    if waiting {
        replay.rounds_before -= 1;
    }
    Ok(replay)
}

/// A journal read back (see [`Sealer::replay`]).
pub(super) struct Replay {
    pub(super) start: Start,
    pub(super) tape: Vec<(Slot, Value)>,
    /// Calls begun and not ended, by slot: at most one per fan-out item or
    /// branch, and those of a fan-out node may be several.
    pub(super) in_flight: BTreeMap<String, (Slot, String, String)>,
    /// The rounds the task ran before the one to run now.
    pub(super) rounds_before: u32,
}

/// How long a recorded result waits for the next call's beginning to be
/// written with it, at most.
pub(super) const LINGER: Duration = Duration::from_millis(250);

/// Appends a round's steps to task `id`'s journal, sealed, in order and in
/// batches: a step someone waits for (a call about to be made) or a round
/// that asked is written at once, with every step before it; other steps
/// wait at most [`LINGER`] for one. Each waiting step is told when its
/// batch is in the store, or why it is not.
pub(super) async fn keep(
    store: Arc<dyn TaskStore>,
    id: TaskId,
    sealer: Arc<Sealer>,
    mut steps: UnboundedReceiver<Step>,
) {
    let mut batch = Batch::default();
    let mut due = None;
    loop {
        let next = match due {
            None => steps.recv().await,
            Some(due_at) => match tokio::time::timeout_at(due_at, steps.recv()).await {
                Ok(next) => next,
                Err(_) => {
                    batch.write(&*store, &id, &sealer).await;
                    due = None;
                    continue;
                }
            },
        };
        let Some(step) = next else { break };
        let mut now = batch.push(step);
        // Steps sent at the same moment (a fan-out's calls) join it.
        while let Ok(step) = steps.try_recv() {
            now |= batch.push(step);
        }
        if now {
            batch.write(&*store, &id, &sealer).await;
            due = None;
        } else if due.is_none() {
            due = Some(tokio::time::Instant::now() + LINGER);
        }
    }
    batch.write(&*store, &id, &sealer).await;
}

/// The steps not yet written, and who waits for them.
#[derive(Default)]
struct Batch {
    entries: Vec<Journaled>,
    waiting: Vec<oneshot::Sender<Result<(), String>>>,
}

impl Batch {
    /// Adds `step`; `true` if the batch is to be written at once.
    fn push(&mut self, step: Step) -> bool {
        let now = step.kept.is_some() || matches!(step.entry, Journaled::Asked { .. });
        self.entries.push(step.entry);
        self.waiting.extend(step.kept);
        now
    }

    /// Writes the batch as one entry, and tells those waiting.
    async fn write(&mut self, store: &dyn TaskStore, id: &TaskId, sealer: &Sealer) {
        if self.entries.is_empty() {
            return;
        }
        let entry = sealer.seal(&Entry::Steps(std::mem::take(&mut self.entries)));
        let kept = store
            .append_journal(id, entry)
            .await
            .map_err(|e| e.to_string());
        if let Err(e) = &kept {
            tracing::warn!(task = %id, error = %e, "a task's journal entries could not be kept");
        }
        for waiting in self.waiting.drain(..) {
            let _ = waiting.send(kept.clone());
        }
    }
}

/// Whether the lock (`lock`, the graph's schema lock as JSON text) marks
/// `server`'s `tool` read-only or idempotent, so that a call of it cut off
/// by a stopped replica may be made again.
pub(super) fn may_repeat(lock: Option<&str>, server: &str, tool: &str) -> bool {
    let Some(lock) = lock.and_then(|text| serde_json::from_str::<Value>(text).ok()) else {
        return false;
    };
    let annotations = &lock["servers"][server]["tools"][tool]["annotations"];
    annotations["readOnlyHint"] == Value::Bool(true)
        || annotations["idempotentHint"] == Value::Bool(true)
}

#[cfg(test)]
mod tests {
    use crate::serving::journal::may_repeat;

    #[test]
    fn only_read_only_or_idempotent_tools_repeat() {
        let lock = r#"{"servers": {"s": {"tools": {
            "read": {"annotations": {"readOnlyHint": true}},
            "put": {"annotations": {"readOnlyHint": false, "idempotentHint": true}},
            "send": {"annotations": {"destructiveHint": true}},
            "plain": {}
        }}}}"#;
        assert!(may_repeat(Some(lock), "s", "read"));
        assert!(may_repeat(Some(lock), "s", "put"));
        assert!(!may_repeat(Some(lock), "s", "send"));
        assert!(!may_repeat(Some(lock), "s", "plain"));
        assert!(!may_repeat(Some(lock), "other", "read"));
        assert!(!may_repeat(None, "s", "read"));
        assert!(!may_repeat(Some("not json"), "s", "read"));
    }
}
