//! Error types: what went wrong in a call ([`ErrorKind`]), a failed node
//! ([`NodeError`], reported to the caller as a tool error naming the node),
//! a failed call ([`CallError`]) and start-up failures ([`StartupError`]).

use std::fmt;

/// What kind of failure ended a call, for routing and counting; the
/// message says the rest.
///
/// Serialises (and displays) as a dotted name: `expression`,
/// `limit.execution_time`, `schema.input`, `downstream.timeout`, ...
/// ([`ErrorKind::as_str`]); [`ErrorKind::from_name`] reads it back.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// A JSONata expression or JSON Logic rule failed (a type error, a
    /// non-function call, an error it raised, a bad `var` value).
    Expression,
    /// One of the graph's limits stopped the call.
    Limit(Limit),
    /// A value did not match a tool's schema.
    Schema(SchemaSide),
    /// A downstream server's call failed.
    Downstream(Downstream),
    /// An `elicit` node got no usable answer: the calling client cannot be
    /// asked, failed to answer, answered outside the node's form, or gave
    /// an answer the node has no route for.
    Elicitation,
    /// The caller cancelled the call.
    Cancelled,
    /// A cap of the server refused the call (calls in flight, sessions),
    /// or the caller's access token lacks a scope that a tool of the graph
    /// the call reaches needs (`requiredScopes`).
    Refused,
    /// The server is shutting down: the call did not start, or did not
    /// finish within the drain time.
    Shutdown,
    /// No tool of that name.
    UnknownTool,
    /// Not a failure: the call waits for its client's answers (MCP
    /// 2026-07-28), and the server answers `input_required`.
    InputRequired,
    /// A task taken over from a replica that stopped had a downstream call
    /// in flight that may not be made again (its tool is neither
    /// read-only nor idempotent by the lock).
    TaskInterrupted,
    /// The graph cannot run the call: it ended without reaching its exit
    /// node, or its file has errors; or the server could not run it (a
    /// worker thread could not start or stopped).
    Internal,
}

/// Which limit stopped a call (the graph's `limits`, or a downstream
/// server's `timeoutMs`, which is [`Downstream::TimedOut`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Limit {
    /// `maxNodeExecutions`.
    NodeExecutions,
    /// `maxExecutionTimeMs`.
    ExecutionTime,
    /// `maxExpressionTimeMs`.
    ExpressionTime,
    /// `maxExpressionDepth`.
    ExpressionDepth,
    /// `maxValueBytes`.
    ValueBytes,
    /// `maxValueDepth`.
    ValueDepth,
    /// `maxHistoryBytes`.
    HistoryBytes,
    /// `maxCallDepth`: calls of the graph's own tools nested too deep.
    CallDepth,
    /// `maxQuestions`: the downstream servers of one call asked its client
    /// more questions than this.
    Questions,
    /// `maxAnswerWaitMs`: the calling client took longer than this to
    /// answer a question.
    AnswerWait,
}

/// Which side of a tool a schema failure is on.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SchemaSide {
    /// The call's arguments against the tool's `inputSchema`.
    Input,
    /// The call's result against the tool's `outputSchema`.
    Output,
}

/// How a downstream server's call failed.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Downstream {
    /// The server's process exited or its connection closed.
    Crashed,
    /// No answer within the server's `timeoutMs`.
    TimedOut,
    /// The server could not be started or connected to, or is not
    /// configured.
    Refused,
    /// The server answered with a protocol error, or asked for something
    /// graphs do not support; or, under `--strict-lock`, its tool changed
    /// since the lock, or its tools could not be listed to compare them
    /// (a listing with no answer at all is [`Downstream::TimedOut`]).
    Protocol,
    /// The tool ran and returned an error result (`isError`).
    ToolError,
    /// The call was abandoned (the connection was shut down under it).
    Cancelled,
}

const NAMES: &[(ErrorKind, &str)] = &[
    (ErrorKind::Expression, "expression"),
    (
        ErrorKind::Limit(Limit::NodeExecutions),
        "limit.node_executions",
    ),
    (
        ErrorKind::Limit(Limit::ExecutionTime),
        "limit.execution_time",
    ),
    (
        ErrorKind::Limit(Limit::ExpressionTime),
        "limit.expression_time",
    ),
    (
        ErrorKind::Limit(Limit::ExpressionDepth),
        "limit.expression_depth",
    ),
    (ErrorKind::Limit(Limit::ValueBytes), "limit.value_bytes"),
    (ErrorKind::Limit(Limit::ValueDepth), "limit.value_depth"),
    (ErrorKind::Limit(Limit::HistoryBytes), "limit.history_bytes"),
    (ErrorKind::Limit(Limit::CallDepth), "limit.call_depth"),
    (ErrorKind::Limit(Limit::Questions), "limit.questions"),
    (ErrorKind::Limit(Limit::AnswerWait), "limit.answer_wait"),
    (ErrorKind::Schema(SchemaSide::Input), "schema.input"),
    (ErrorKind::Schema(SchemaSide::Output), "schema.output"),
    (
        ErrorKind::Downstream(Downstream::Crashed),
        "downstream.crashed",
    ),
    (
        ErrorKind::Downstream(Downstream::TimedOut),
        "downstream.timeout",
    ),
    (
        ErrorKind::Downstream(Downstream::Refused),
        "downstream.refused",
    ),
    (
        ErrorKind::Downstream(Downstream::Protocol),
        "downstream.protocol",
    ),
    (
        ErrorKind::Downstream(Downstream::ToolError),
        "downstream.tool_error",
    ),
    (
        ErrorKind::Downstream(Downstream::Cancelled),
        "downstream.cancelled",
    ),
    (ErrorKind::Elicitation, "elicitation"),
    (ErrorKind::Cancelled, "cancelled"),
    (ErrorKind::Refused, "refused"),
    (ErrorKind::Shutdown, "shutdown"),
    (ErrorKind::UnknownTool, "unknown_tool"),
    (ErrorKind::InputRequired, "input_required"),
    (ErrorKind::TaskInterrupted, "task.interrupted"),
    (ErrorKind::Internal, "internal"),
];

impl ErrorKind {
    /// Every kind, in the order of [`ErrorKind::as_str`]'s table.
    pub fn all() -> impl Iterator<Item = ErrorKind> {
        NAMES.iter().map(|(kind, _)| *kind)
    }

    /// The kind's dotted name, as serialised and used as a metric label.
    pub fn as_str(self) -> &'static str {
        NAMES
            .iter()
            .find(|(kind, _)| *kind == self)
            .map_or("internal", |(_, name)| name)
    }

    /// The kind named `name` ([`ErrorKind::as_str`]'s spelling).
    pub fn from_name(name: &str) -> Option<Self> {
        NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(kind, _)| *kind)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A failed tool call: its kind, which node failed (if any) and why.
///
/// Serialises as `{"kind": "downstream.timeout", "node": "fetch",
/// "message": "..."}` (`node` is `null` outside any node).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NodeError {
    kind: ErrorKind,
    node: Option<String>,
    message: String,
}

impl NodeError {
    /// An error of kind `kind` at node `node` (`None`: outside any node,
    /// for example invalid arguments).
    pub fn new(kind: ErrorKind, node: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            kind,
            node: node.map(str::to_owned),
            message: message.into(),
        }
    }

    /// An error of kind `kind` outside any node.
    pub fn outside(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self::new(kind, None, message)
    }

    /// An [`ErrorKind::Internal`] error outside any node: what generated
    /// code reports when it cannot run a call at all (no such tool, a
    /// graph file with errors).
    #[doc(hidden)]
    pub fn call(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, None, message)
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The node that was running, `None` before the graph started (for
    /// example invalid arguments) or after it ended.
    pub fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }

    /// What failed, without the node.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The message, rewritten (redaction).
    pub(crate) fn map_message(mut self, f: impl FnOnce(&str) -> String) -> Self {
        self.message = f(&self.message);
        self
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Some(node) => write!(f, "node `{node}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for NodeError {}

/// Why a call did not produce a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// No tool of that name.
    UnknownTool(String),
    /// The call ran and failed (or its arguments were invalid).
    Failed(NodeError),
}

impl CallError {
    /// What kind of failure it is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CallError::UnknownTool(_) => ErrorKind::UnknownTool,
            CallError::Failed(e) => e.kind(),
        }
    }
}

/// The longest tool name an error message repeats whole: the longest a
/// tool can have (MCP's 128 characters of `A-Z a-z 0-9 _ - .`). A longer
/// name, which no tool has, is cut there: a client sending made-up names of
/// 64 KiB must not get them echoed back, nor written to the log with every
/// error rmcp reports.
const MAX_TOOL_NAME_SHOWN: usize = 128;

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownTool(name) if name.len() > MAX_TOOL_NAME_SHOWN => {
                let shown = name.floor_char_boundary(MAX_TOOL_NAME_SHOWN);
                write!(
                    f,
                    "unknown tool `{}…` ({} bytes)",
                    &name[..shown],
                    name.len()
                )
            }
            CallError::UnknownTool(name) => write!(f, "unknown tool `{name}`"),
            CallError::Failed(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::UnknownTool(_) => None,
            CallError::Failed(e) => Some(e),
        }
    }
}

/// A failure while preparing the server: an expression or schema that does
/// not compile, a bad `--mcp` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartupError(pub String);

impl fmt::Display for StartupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartupError {}

/// State keys that cannot be read stop start-up.
impl From<mcpgraph_secrets::KeysError> for StartupError {
    fn from(error: mcpgraph_secrets::KeysError) -> Self {
        StartupError(error.to_string())
    }
}

/// An expression, argument or rule that does not build fails start-up
/// (generated code builds them with `?`).
impl From<mcpgraph_expr::error::BuildError> for StartupError {
    fn from(e: mcpgraph_expr::error::BuildError) -> Self {
        StartupError(e.to_string())
    }
}

/// What stopped an evaluation, as the kind of the node's error.
impl From<mcpgraph_expr::error::EvalErrorKind> for ErrorKind {
    fn from(kind: mcpgraph_expr::error::EvalErrorKind) -> Self {
        use mcpgraph_expr::error::EvalErrorKind as Eval;
        match kind {
            Eval::Expression => ErrorKind::Expression,
            Eval::ExpressionTime => ErrorKind::Limit(Limit::ExpressionTime),
            Eval::ExpressionDepth => ErrorKind::Limit(Limit::ExpressionDepth),
            Eval::ValueBytes => ErrorKind::Limit(Limit::ValueBytes),
            Eval::Internal => ErrorKind::Internal,
        }
    }
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
