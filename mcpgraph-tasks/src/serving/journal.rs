//! A task's journal in the store: what another replica needs to take the
//! task over when the one running it stops (its lease runs out). The first
//! entry is the call (the tool, its arguments, what the client declared);
//! then each downstream call about to be made, each result and answer the
//! call's rounds record, and each round that asked. Every entry is sealed
//! with the state keys (which replicas share, `--state-key-file`), bound
//! to the graph and the task, so the store holds no argument, result or
//! answer in the clear.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use mcpgraph_runtime::host::{Journaled, Slot, StateKeys, TaskEngine};
use mcpgraph_secrets::Binding;
use rmcp::model::ClientCapabilities;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::TaskId;

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
}

/// One journal entry, before it is sealed.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) enum Entry {
    Start(Box<Start>),
    Step(Journaled),
}

/// A journal entry as the store keeps it: sealed, or the mark of one that
/// could not be kept (too large to seal), after which the journal cannot
/// be replayed.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Kept {
    Sealed(String),
    Gap(String),
}

/// Why a task's journal cannot be replayed.
#[derive(Debug)]
pub(super) enum JournalError {
    /// An entry could not be kept when it was written (too large to seal).
    Gap(String),
    /// An entry does not open with these keys (another key file, say).
    Sealed(mcpgraph_secrets::StateError),
    /// An entry does not read as one.
    Unreadable(serde_json::Error),
    /// The entries are not a call's journal (no start, or two).
    Shape(&'static str),
}

impl std::fmt::Display for JournalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Gap(why) => write!(f, "an entry could not be kept ({why})"),
            Self::Sealed(e) => write!(f, "an entry does not open ({e})"),
            Self::Unreadable(e) => write!(f, "an entry does not read ({e})"),
            Self::Shape(why) => f.write_str(why),
        }
    }
}

/// Seals and opens one task's entries.
pub(super) struct Sealer {
    keys: Arc<StateKeys>,
    binding: Binding,
}

/// How long a sealed entry opens: the longest task TTL (the store drops
/// the entries with their task before).
const SEALED_FOR: Duration = Duration::from_secs(30 * 24 * 3600);

impl Sealer {
    /// For task `id` of `engine`'s graph, with its keys.
    pub(super) fn for_task(engine: &TaskEngine, id: &TaskId) -> Self {
        let server = engine.graph().server;
        let graph = [server.name.as_bytes(), b"\0", server.version.as_bytes()].concat();
        Self {
            keys: Arc::clone(engine.state_keys()),
            binding: Binding::new(&graph, b"task", id.as_str().as_bytes()),
        }
    }

    /// `entry` as the store keeps it.
    pub(super) fn seal(&self, entry: &Entry) -> Value {
        let kept = serde_json::to_vec(entry)
            .map_err(|e| e.to_string())
            .and_then(|plain| {
                self.keys
                    .seal(&plain, &self.binding, SEALED_FOR)
                    .map_err(|e| e.to_string())
            });
        let kept = match kept {
            Ok(sealed) => Kept::Sealed(sealed),
            Err(why) => Kept::Gap(why),
        };
        serde_json::to_value(kept).unwrap_or(Value::Null)
    }

    /// The entry the store kept as `value`.
    fn open(&self, value: Value) -> Result<Entry, JournalError> {
        match serde_json::from_value(value).map_err(JournalError::Unreadable)? {
            Kept::Gap(why) => Err(JournalError::Gap(why)),
            Kept::Sealed(token) => {
                let plain = self
                    .keys
                    .open(&token, &self.binding)
                    .map_err(JournalError::Sealed)?;
                serde_json::from_slice(&plain).map_err(JournalError::Unreadable)
            }
        }
    }

    /// A whole journal, read back: the call, what the rounds got in order,
    /// the call in flight when the journal ends (its slot, server and
    /// tool), and the last round that asked.
    pub(super) fn replay(&self, journal: Vec<Value>) -> Result<Replay, JournalError> {
        let mut entries = journal.into_iter().map(|v| self.open(v));
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
            let step = match entry? {
                Entry::Start(_) => return Err(JournalError::Shape("it starts twice")),
                Entry::Step(step) => step,
            };
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
        // Stopped while it waited for answers: the same round asks again,
        // under the keys the client may be answering.
        if waiting {
            replay.rounds_before -= 1;
        }
        Ok(replay)
    }
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
