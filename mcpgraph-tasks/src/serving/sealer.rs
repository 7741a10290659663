//! What one task keeps sealed in the store: its journal's entries and the
//! answers a client sent, each sealed with the state keys (which replicas
//! share, `--state-key-file`) and bound to the graph, the task and what it
//! is, so the store holds no argument, result, answer or token in the
//! clear.

use std::sync::Arc;
use std::time::Duration;

use mcpgraph_runtime::host::{StateKeys, TaskEngine};
use mcpgraph_secrets::Binding;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::TaskId;

/// A journal entry or an answer as the store keeps it: sealed, or the mark
/// of one that could not be kept (too large to seal), after which the
/// journal cannot be replayed.
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

/// Seals and opens one task's journal entries and answers.
pub(super) struct Sealer {
    keys: Arc<StateKeys>,
    journal: Binding,
    answers: Binding,
}

/// How long a sealed entry opens: the longest task TTL (the store drops
/// the entries with their task before).
const SEALED_FOR: Duration = Duration::from_secs(30 * 24 * 3600);

impl Sealer {
    /// For task `id` of `engine`'s graph, with its keys.
    pub(super) fn for_task(engine: &TaskEngine, id: &TaskId) -> Self {
        let server = engine.graph().server;
        let graph = [server.name.as_bytes(), b"\0", server.version.as_bytes()].concat();
        let id = id.as_str().as_bytes();
        Self {
            keys: Arc::clone(engine.state_keys()),
            journal: Binding::new(&graph, b"task", id),
            answers: Binding::new(&graph, b"task answer", id),
        }
    }

    /// A journal `entry` as the store keeps it.
    pub(super) fn seal<T: Serialize>(&self, entry: &T) -> Value {
        seal(&self.keys, &self.journal, entry)
    }

    /// The journal entry the store kept as `value`.
    pub(super) fn open<T: for<'de> Deserialize<'de>>(
        &self,
        value: Value,
    ) -> Result<T, JournalError> {
        open(&self.keys, &self.journal, value)
    }

    /// A client's answer as the store keeps it until the task takes it.
    pub(super) fn seal_answer(&self, answer: &Value) -> Value {
        seal(&self.keys, &self.answers, answer)
    }

    /// The answer the store kept as `value`.
    pub(super) fn open_answer(&self, value: Value) -> Result<Value, JournalError> {
        open(&self.keys, &self.answers, value)
    }
}

/// `plain` sealed under `binding`, or the mark of what could not be.
fn seal<T: Serialize>(keys: &StateKeys, binding: &Binding, plain: &T) -> Value {
    let kept = serde_json::to_vec(plain)
        .map_err(|e| e.to_string())
        .and_then(|plain| {
            keys.seal(&plain, binding, SEALED_FOR)
                .map_err(|e| e.to_string())
        });
    let kept = match kept {
        Ok(sealed) => Kept::Sealed(sealed),
        Err(why) => Kept::Gap(why),
    };
    serde_json::to_value(kept).unwrap_or(Value::Null)
}

/// What [`seal`] sealed as `value`.
fn open<T: for<'de> Deserialize<'de>>(
    keys: &StateKeys,
    binding: &Binding,
    value: Value,
) -> Result<T, JournalError> {
    match serde_json::from_value(value).map_err(JournalError::Unreadable)? {
        Kept::Gap(why) => Err(JournalError::Gap(why)),
        Kept::Sealed(token) => {
            let plain = keys.open(&token, binding).map_err(JournalError::Sealed)?;
            serde_json::from_slice(&plain).map_err(JournalError::Unreadable)
        }
    }
}
