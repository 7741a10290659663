//! A task as the store keeps it: its id, status, questions and outcome.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// A task's id: 128 random bits from the operating system, as 32
/// lowercase hex digits (URL-safe, unguessable).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TaskId(String);

impl TaskId {
    /// The longest id [`TaskId::parse`] accepts.
    pub const MAX_LEN: usize = 64;

    /// A new random id.
    pub(crate) fn generate() -> Result<TaskId, StoreError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| {
            StoreError::Unavailable(format!("the operating system's random source failed: {e}"))
        })?;
        Ok(TaskId(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// An id a client sent, if it could be one: 1 to [`TaskId::MAX_LEN`]
    /// characters of `A-Z`, `a-z`, `0-9`, `-` and `_` (anything else,
    /// such as a key separator or a control character, is refused).
    pub fn parse(text: &str) -> Option<TaskId> {
        let ok = !text.is_empty()
            && text.len() <= Self::MAX_LEN
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        ok.then(|| TaskId(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for TaskId {
    type Error = String;

    fn try_from(text: String) -> Result<TaskId, String> {
        TaskId::parse(&text).ok_or_else(|| "not a task id".to_owned())
    }
}

impl From<TaskId> for String {
    fn from(id: TaskId) -> String {
        id.0
    }
}

/// Where a task is in its life (the extension's `status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Running.
    Working,
    /// Running, and waiting for answers to its `input_requests`.
    InputRequired,
    /// Ended with a tool result (which may be an `isError` one).
    Completed,
    /// Ended with a JSON-RPC error.
    Failed,
    /// Ended by cancellation.
    Cancelled,
}

impl Status {
    /// Whether the task has ended: completed, failed or cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }

    /// The status as it is spelt on the wire and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
}

/// How a task ended: its result, or a JSON-RPC error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The `CallToolResult`, as JSON.
    Result(serde_json::Value),
    /// A JSON-RPC error.
    Error {
        /// The JSON-RPC error code.
        code: i64,
        /// Its message.
        message: String,
    },
}

/// A task: what `tasks/get` reports, and what the store keeps of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Its id.
    pub id: TaskId,
    /// Who may see it (a principal or a session key); opaque to the store.
    pub owner: String,
    /// The tool whose call it runs.
    pub tool: String,
    /// Where it is in its life.
    pub status: Status,
    /// What it is doing (for example the running node), while it runs.
    pub status_message: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub updated_at_ms: u64,
    /// How long it lives from its creation, in milliseconds; after that
    /// it reads as missing.
    pub ttl_ms: u64,
    /// How often a client should poll it, in milliseconds.
    pub poll_interval_ms: u64,
    /// The questions waiting for an answer, by key.
    pub input_requests: BTreeMap<String, serde_json::Value>,
    /// How it ended: `Some` for completed and failed tasks, `None` otherwise.
    pub outcome: Option<Outcome>,
    /// Whether a client asked for its cancellation.
    pub cancel_requested: bool,
}

impl Task {
    /// When it expires, in milliseconds since the Unix epoch.
    pub fn expires_at_ms(&self) -> u64 {
        self.created_at_ms.saturating_add(self.ttl_ms)
    }
}

/// The bounds of a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreLimits {
    /// The most tasks that may be running at once (across replicas, for a
    /// shared store); a create beyond it is [`StoreError::Full`].
    pub max_live: usize,
    /// How long a task lives from its creation, ended or not.
    pub ttl: Duration,
    /// How often clients are told to poll.
    pub poll_interval: Duration,
}

/// The most entries one task's journal holds.
pub const JOURNAL_MAX_ENTRIES: usize = 10_000;
/// The most bytes (of the entries' JSON) one task's journal holds.
pub const JOURNAL_MAX_BYTES: usize = 64 << 20;

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `timeout` from now, or a year from now if it is longer (an `Instant`
/// cannot hold every `Duration`).
pub(crate) fn deadline(timeout: Duration) -> tokio::time::Instant {
    tokio::time::Instant::now() + timeout.min(Duration::from_secs(365 * 24 * 3600))
}

/// A duration in whole milliseconds (at least 1).
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// Checks what `finish` is given: a terminal status, with an outcome for
/// completed and failed tasks and none for cancelled ones.
pub(crate) fn check_finish(status: Status, outcome: &Option<Outcome>) -> Result<(), StoreError> {
    let fits = match status {
        Status::Completed => matches!(outcome, Some(Outcome::Result(_))),
        Status::Failed => matches!(outcome, Some(Outcome::Error { .. })),
        Status::Cancelled => outcome.is_none(),
        Status::Working | Status::InputRequired => false,
    };
    if fits {
        Ok(())
    } else {
        Err(StoreError::Invalid(format!(
            "a task cannot finish as `{}` with {}",
            status.as_str(),
            match outcome {
                None => "no outcome",
                Some(Outcome::Result(_)) => "a result",
                Some(Outcome::Error { .. }) => "an error",
            }
        )))
    }
}
