//! What a call is given and what it gives back.

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::error::CallError;
use crate::exec::ExitContent;
use crate::observe::{NodeRecord, ProgressEvent};

/// Options of one call.
#[derive(Debug, Default)]
pub struct CallOptions {
    /// Cancelling it abandons the call (and its downstream call in flight).
    pub cancel: CancellationToken,
    /// Receives an event as each node starts.
    pub progress: Option<mpsc::UnboundedSender<ProgressEvent>>,
    /// Keep the execution record (one entry per node, with outputs, and
    /// one per call of a `parallel` or `forEach` node).
    pub record: bool,
    /// The client making the call, asked what downstream servers ask
    /// (elicitation, sampling, roots). `None`: nobody can be asked, and a
    /// downstream server's question fails the call.
    pub caller: Option<crate::questions::Caller>,
}

/// What a call produced: its result and, if asked for, its record.
#[derive(Debug)]
pub struct CallOutcome {
    /// The result value or the error.
    pub result: Result<Value, CallError>,
    /// One entry per node execution, and one per call of a `parallel` or
    /// `forEach` node before it (see [`NodeRecord::part`]), when
    /// `CallOptions::record` was set.
    pub records: Option<Vec<NodeRecord>>,
    /// The downstream content blocks the tool's exit returns (its
    /// `content:`), for the MCP result; `None` when it has no `content:`.
    pub(crate) content: Option<ExitContent>,
}

impl CallOutcome {
    pub(super) fn failed(error: CallError) -> Self {
        Self {
            result: Err(error),
            records: None,
            content: None,
        }
    }
}
