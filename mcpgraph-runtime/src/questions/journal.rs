//! What a round tells a task's journal as it goes (`mcpgraph-tasks` keeps it): a
//! downstream call about to be made, and each result the round records
//! (a call's result, an answer). Another replica that takes the task over
//! replays the results and knows which call was in flight.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use super::slot::Slot;

/// One entry of a task's journal.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Journaled {
    /// A downstream call is about to be made.
    Began {
        /// Where in the call it is.
        slot: Slot,
        /// The server called.
        server: String,
        /// Its tool.
        tool: String,
    },
    /// What a slot got (a call's result, a question's answer).
    Ended {
        /// The slot.
        slot: Slot,
        /// What it got.
        value: Value,
    },
    /// A round stopped for answers.
    Asked {
        /// Its number (the task's question keys start `r{round}.`).
        round: u32,
    },
}

/// Where a round's journal goes, and the call that was in flight when the
/// task's last replica stopped, if it may not be made again.
#[derive(Debug, Default)]
pub struct Journal {
    /// Where the entries go.
    pub sink: Option<UnboundedSender<Journaled>>,
    /// The calls a stopped replica had in flight that may not be made
    /// again.
    pub interrupted: Vec<Slot>,
}

impl Journal {
    pub(crate) fn send(&self, entry: Journaled) {
        if let Some(sink) = &self.sink {
            let _ = sink.send(entry);
        }
    }
}

/// A call that was in flight when the replica running its task stopped,
/// whose tool the lock does not mark read-only or idempotent: it is not
/// made again.
#[derive(Debug)]
pub(crate) struct Interrupted {
    pub(crate) slot: String,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the replica running this task stopped while call {} was in flight, and the lock \
             marks its tool neither read-only nor idempotent, so it is not made again",
            self.slot
        )
    }
}
