//! What a round tells a task's journal as it goes (`mcpgraph-tasks` keeps
//! it): a downstream call about to be made, and each result the round
//! records (a call's result, an answer). Another replica that takes the
//! task over replays the results and knows which call was in flight. A
//! call is made only once the journal holds its beginning ([`Journal::keep`]),
//! so that no replica taking the task over can miss it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

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

/// An entry on its way to the journal, and whom to tell once it is kept
/// (or why it could not be).
#[derive(Debug)]
pub struct Step {
    /// The entry.
    pub entry: Journaled,
    /// Told when the entry is in the store; none: nobody waits for it.
    pub kept: Option<oneshot::Sender<Result<(), String>>>,
}

/// Where a round's journal goes, and the call that was in flight when the
/// task's last replica stopped, if it may not be made again.
#[derive(Debug, Default)]
pub struct Journal {
    /// Where the entries go.
    pub sink: Option<UnboundedSender<Step>>,
    /// The calls a stopped replica had in flight that may not be made
    /// again.
    pub interrupted: Vec<Slot>,
}

impl Journal {
    /// Sends `entry`, to be kept with the next ones.
    pub(crate) fn send(&self, entry: Journaled) {
        if let Some(sink) = &self.sink {
            let _ = sink.send(Step { entry, kept: None });
        }
    }

    /// Sends `entry` and waits until the store holds it: the reason if
    /// it could not be kept (a journal no longer kept is no reason).
    pub(crate) async fn keep(&self, entry: Journaled) -> Result<(), String> {
        let Some(sink) = &self.sink else {
            return Ok(());
        };
        let (kept, told) = oneshot::channel();
        if sink
            .send(Step {
                entry,
                kept: Some(kept),
            })
            .is_err()
        {
            return Ok(());
        }
        told.await.unwrap_or(Ok(()))
    }
}

/// Why a task's call is not made: it was in flight when the replica
/// running the task stopped, and the lock does not mark its tool read-only
/// or idempotent; or the journal could not record that it begins.
#[derive(Debug)]
pub(crate) enum Interrupted {
    InFlight { slot: String },
    Unkept { slot: String, why: String },
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InFlight { slot } => write!(
                f,
                "the replica running this task stopped while call {slot} was in flight, and \
                 the lock marks its tool neither read-only nor idempotent, so it is not made \
                 again"
            ),
            Self::Unkept { slot, why } => write!(
                f,
                "call {slot} is not made: the task's journal could not record it first ({why})"
            ),
        }
    }
}
