//! Regex literals: each must run as jsonata-js runs it.
//!
//! The runtime translates every literal into the syntax of its engine
//! (Rust's `regex` crate) with JavaScript's meaning (`mcpgraph-jsregex`),
//! then jsonata-core builds it. A literal with no exact translation
//! (backreferences, lookaround, JavaScript-only escapes and flags), or
//! whose translation the engine cannot build, would fail or differ at run
//! time: it is a build error here, at the literal, saying why.

use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::lower::expr_pos;
use crate::model::Expr;

/// Reports `/pattern/flags` of `expr` if the runtime cannot run it as
/// JavaScript does.
pub(super) fn check_regex(expr: &Expr, pattern: &str, flags: &str, diags: &mut Diagnostics) {
    let literal = format!("/{pattern}/");
    let offset = expr.source.find(&literal).unwrap_or(0);
    let reason = match mcpgraph_jsregex::translate(pattern, flags) {
        Err(e) => e.reason,
        // The runtime builds the translation with exactly this function.
        Ok(t) => match jsonata_core::functions::string::build_regex(&t.pattern, &t.flags) {
            Ok(_) => return,
            Err(e) => {
                let reason = e.to_string();
                let reason = reason.lines().last().unwrap_or(&reason).trim();
                reason.strip_prefix("error: ").unwrap_or(reason).to_owned()
            }
        },
    };
    diags
        .error(
            codes::REGEX_NOT_JAVASCRIPT,
            expr_pos(expr, offset),
            format!("the regex `{literal}{flags}` cannot run as in JavaScript: {reason}"),
        )
        .help(
            "regexes run on Rust's `regex` crate with JavaScript's meaning: no backreferences, \
             no lookaround, flags `i` and `m` only; rewrite the pattern without them",
        );
}
