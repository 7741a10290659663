//! Regex literals with JavaScript's meaning.
//!
//! jsonata-core builds a regex literal's pattern with Rust's `regex`
//! crate, whose `\d`, `\w`, `\s`, `\b`, `.` and `i` flag mean something
//! else than in JavaScript (jsonata-js). [`translate`] replaces each
//! literal's pattern with the Rust pattern that matches what JavaScript
//! matches (see `mcpgraph-jsregex`). The generator refuses, at build time,
//! every literal that has no such translation, so an error here means the
//! expression did not come from a checked graph.

use jsonata_core::ast::AstNode;

use crate::push_children;

/// A regex literal with no JavaScript meaning in Rust's engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntranslatableRegex {
    /// The literal's pattern, as written.
    pub pattern: String,
    /// Its flags, as written.
    pub flags: String,
    /// Why it has no translation (`mcpgraph-jsregex`'s reason).
    pub reason: String,
}

impl std::fmt::Display for UntranslatableRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self {
            pattern,
            flags,
            reason,
        } = self;
        write!(
            f,
            "the regex `/{pattern}/{flags}` cannot run as in JavaScript: {reason}"
        )
    }
}

impl std::error::Error for UntranslatableRegex {}

/// Rewrites every regex literal in `ast`; the first untranslatable one is
/// the error.
pub fn translate(ast: &mut AstNode) -> Result<(), UntranslatableRegex> {
    let mut stack = vec![ast];
    while let Some(node) = stack.pop() {
        if let AstNode::Regex { pattern, flags } = node {
            let translated =
                mcpgraph_jsregex::translate(pattern, flags).map_err(|e| UntranslatableRegex {
                    pattern: pattern.clone(),
                    flags: flags.clone(),
                    reason: e.reason.to_string(),
                })?;
            *pattern = translated.pattern;
            *flags = translated.flags;
        }
        push_children(node, &mut stack);
    }
    Ok(())
}

#[cfg(test)]
mod evaluated_tests;
