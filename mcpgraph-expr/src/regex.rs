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

/// Rewrites every regex literal in `ast`; the first untranslatable one is
/// the error.
pub fn translate(ast: &mut AstNode) -> Result<(), String> {
    let mut stack = vec![ast];
    while let Some(node) = stack.pop() {
        if let AstNode::Regex { pattern, flags } = node {
            let translated = mcpgraph_jsregex::translate(pattern, flags).map_err(|e| {
                format!(
                    "the regex `/{pattern}/{flags}` cannot run as in JavaScript: {}",
                    e.reason
                )
            })?;
            *pattern = translated.pattern;
            *flags = translated.flags;
        }
        push_children(node, &mut stack);
    }
    Ok(())
}
