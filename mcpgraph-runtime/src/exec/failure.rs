//! The errors a node fails with: each of the current node, with its kind,
//! and with secrets expanded from `${VAR}` redacted before anything (spans,
//! records, observers, the caller) sees them.

use super::Execution;
use crate::error::{ErrorKind, Limit, NodeError};
use mcpgraph_expr::value::Oversize;

impl Execution {
    pub(super) fn oversize(&self, what: &str, over: &Oversize) -> NodeError {
        match over {
            Oversize::Depth(depth) => self.error(
                ErrorKind::Limit(Limit::ValueDepth),
                format!(
                    "Value limit exceeded: {what} nests arrays and objects deeper than maxValueDepth ({depth})"
                ),
            ),
            Oversize::Bytes(bytes) => self.error(
                ErrorKind::Limit(Limit::ValueBytes),
                format!(
                    "Value limit exceeded: {what} is larger than maxValueBytes ({bytes} bytes)"
                ),
            ),
        }
    }

    /// An error of the current node, with secrets expanded from `${VAR}`
    /// redacted here, before spans, records and observers see it.
    pub(super) fn error(&self, kind: ErrorKind, message: impl Into<String>) -> NodeError {
        NodeError::new(
            kind,
            Some(self.current),
            mcpgraph_secrets::redact(&message.into()).into_owned(),
        )
    }

    pub(super) fn time_limit(&self) -> NodeError {
        self.error(
            ErrorKind::Limit(Limit::ExecutionTime),
            format!(
                "Execution limit exceeded: maximum execution time ({} ms) reached",
                self.limits.max_execution_time_ms
            ),
        )
    }
}
