//! `executionLimits:` and their defaults (FORMAT.md).

use serde::{Deserialize, Serialize};

/// `executionLimits:` of a graph file, with defaults filled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Limits {
    /// Nodes one call may execute (default 1000).
    pub max_node_executions: u64,
    /// Wall-clock budget of one call (default 300000).
    pub max_execution_time_ms: u64,
    /// JSONata evaluation depth (default 500).
    pub max_expression_depth: u64,
    /// Wall-clock budget of one JSONata evaluation (default 1000).
    pub max_expression_time_ms: u64,
    /// `maxValueBytes` (an extension key): size of one node's output, as
    /// JSON text (default 64 MiB).
    pub max_value_bytes: u64,
    /// `maxHistoryBytes` (an extension key): size of all the outputs one
    /// call keeps (its history), as JSON text (default 256 MiB).
    pub max_history_bytes: u64,
    /// `maxValueDepth` (an extension key): nesting of arrays and objects
    /// in one node's output (default 128).
    pub max_value_depth: u64,
    /// `maxCallDepth` (an extension key): how deep calls of the graph's
    /// own tools (from `parallel` and `forEach` nodes) may nest (default 8).
    pub max_call_depth: u64,
    /// `maxQuestions` (an extension key): questions the downstream servers
    /// of one call may ask its client, all nodes, branches, items and
    /// rounds (default 16).
    pub max_questions: u64,
    /// `maxAnswerWaitMs` (an extension key): how long one question waits
    /// for the client's answer (default 600000, 10 minutes).
    pub max_answer_wait_ms: u64,
}

impl Limits {
    /// The format's defaults (FORMAT.md, `executionLimits`): what a graph
    /// file that sets no limit gets.
    pub const DEFAULT: Self = Self {
        max_node_executions: 1000,
        max_execution_time_ms: 300_000,
        max_expression_depth: 500,
        max_expression_time_ms: 1000,
        max_value_bytes: 64 << 20,
        max_history_bytes: 256 << 20,
        max_value_depth: 128,
        max_call_depth: 8,
        max_questions: 16,
        max_answer_wait_ms: 600_000,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
