//! The errors of this crate's run-time half: an expression, argument or
//! rule that cannot be built at start-up ([`BuildError`]), and an
//! evaluation that failed ([`EvalError`], with the limit it hit if any).
//! `mcpgraph-runtime` turns them into its start-up error and its node
//! errors' kinds, in one place.

use std::fmt;

use crate::regex::UntranslatableRegex;

/// Why an expression, an `mcp` node's literal argument or a switch rule
/// cannot be built at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The JSONata expression `source` does not parse; `message` says why
    /// (its JSONata error code first).
    Syntax {
        /// The expression's text.
        source: String,
        /// The parser's error, in words a user reads.
        message: String,
    },
    /// The JSONata expression `source` has a regex literal with no
    /// JavaScript meaning in Rust's engine.
    Regex {
        /// The expression's text.
        source: String,
        /// The literal and why it cannot run.
        regex: UntranslatableRegex,
    },
    /// A literal argument that is not JSON.
    Literal {
        /// The argument's text.
        json: String,
        /// serde_json's error.
        message: String,
    },
    /// A switch rule that does not compile.
    Rule {
        /// The rule's text.
        json: String,
        /// Why it does not compile.
        message: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Syntax { source, message } => {
                write!(f, "JSONata expression `{source}` does not parse: {message}")
            }
            BuildError::Regex { source, regex } => {
                write!(f, "JSONata expression `{source}`: {regex}")
            }
            BuildError::Literal { json, message } => {
                write!(f, "literal argument `{json}`: {message}")
            }
            BuildError::Rule { json, message } => write!(f, "rule `{json}`: {message}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// An evaluation that failed: what stopped it and the message the node
/// reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// What stopped it.
    pub kind: EvalErrorKind,
    /// What the node reports.
    pub message: String,
}

/// What stopped an evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvalErrorKind {
    /// The expression or rule failed (a type error, an error it raised...).
    Expression,
    /// `maxExpressionTimeMs`.
    ExpressionTime,
    /// `maxExpressionDepth`.
    ExpressionDepth,
    /// `maxValueBytes`: what the evaluation built or allocated.
    ValueBytes,
    /// The evaluator itself failed (a panic, contained).
    Internal,
}

impl EvalError {
    /// A failure of `kind` reporting `message`.
    pub fn new(kind: EvalErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}
