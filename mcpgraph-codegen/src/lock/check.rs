//! The graph checked against its lock at build time: every call of a
//! downstream tool, wherever it stands (an `mcp` node, a `parallel`
//! branch, a `forEach` call), against the tool the lock records. (The
//! paths into the outputs of calls are checked with the other types, in
//! `validate`, given the lock.)
//!
//! Errors are what the server would reject for certain (a tool it does
//! not have, a required argument missing, a literal that does not match
//! its schema, an argument a closed schema does not allow); warnings, each
//! with a lint name `allow(...)` accepts, are what is likely wrong.

use serde_json::Value;

use super::{Lock, ToolLock};
pub use crate::call_args::{ARGUMENT_TYPE, UNKNOWN_ARGUMENT};
use crate::call_args::{Callee, Caller, check_args};
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::{Arg, GraphFile, NodeCall, Pos, Retry, Sp};

/// A server the graph declares that the lock lacks, or a locked server no
/// node calls.
pub const LOCK_COVERAGE: &str = codes::LOCK_COVERAGE.as_str();
/// A path into an `mcp` node's output naming a field its tool's (open)
/// output schema does not list.
pub const UNKNOWN_OUTPUT_FIELD: &str = codes::UNKNOWN_OUTPUT_FIELD.as_str();
/// A `retry` on a call to a tool that the lock does not annotate as
/// read-only (`readOnlyHint`) or idempotent (`idempotentHint`): a retried
/// call may do its work twice.
pub const RETRY_NOT_IDEMPOTENT: &str = codes::RETRY_NOT_IDEMPOTENT.as_str();

/// Every lint of this module.
pub const LINTS: [&str; 5] = [
    LOCK_COVERAGE,
    UNKNOWN_ARGUMENT,
    ARGUMENT_TYPE,
    UNKNOWN_OUTPUT_FIELD,
    RETRY_NOT_IDEMPOTENT,
];

/// Checks `file` against `lock` (read from the file shown as `lock_name`).
pub fn check(file: &GraphFile, lock: &Lock, lock_name: &str, diags: &mut Diagnostics) {
    for server in &file.mcp_servers {
        if !lock.servers.contains_key(server.name()) {
            let d = diags.warning(
                codes::LOCK_COVERAGE,
                server.pos,
                format!(
                    "server `{}` is not in the lock `{lock_name}`",
                    server.name()
                ),
            );
            d.help("run `mcpgraph lock` to record its tools; until then its calls are not checked");
            d.as_lint();
        }
    }
    for tool in &file.tools {
        for node in &tool.nodes {
            for call in node.kind.every_call() {
                let caller = Caller {
                    tool,
                    node: &node.id.value,
                    place: &call.place,
                };
                check_call(&caller, &call, lock, lock_name, diags);
            }
        }
    }
    // A declared server that no node calls has its own warning already.
    for server in lock.servers.keys() {
        if !file.mcp_servers.iter().any(|s| s.name() == server) {
            let d = diags.warning(
                codes::LOCK_COVERAGE,
                Pos::default(),
                format!(
                    "the lock `{lock_name}` has server `{server}`, which the graph does not declare"
                ),
            );
            d.help("re-run `mcpgraph lock` to drop it");
            d.as_lint();
        }
    }
}

/// One call of a downstream tool against the tool its server's lock
/// records (none for a call of this graph's tools, or to a server the lock
/// lacks).
fn check_call(
    caller: &Caller<'_>,
    call: &NodeCall<'_>,
    lock: &Lock,
    lock_name: &str,
    diags: &mut Diagnostics,
) {
    let Some(server) = call.server else {
        return;
    };
    let Some(locked) = lock.servers.get(&server.value) else {
        return;
    };
    let name = &call.tool.value;
    let Some(target) = locked.tools.get(name) else {
        let names: Vec<&str> = locked.tools.keys().map(String::as_str).collect();
        let d = diags.error(
            codes::LOCK_UNKNOWN_TOOL,
            call.tool.pos,
            format!(
                "{}server `{}` has no tool `{name}`",
                caller.prefix(),
                server.value
            ),
        );
        if let Some(close) = crate::suggest::suggest(name, &names) {
            d.help(format!("did you mean `{close}`?"));
        }
        d.note(format!("its tools in `{lock_name}`: {}", names.join(", ")));
        return;
    };
    match call.args {
        Arg::Object(fields) => {
            let callee = Callee {
                name,
                schema: &target.input_schema,
                defaults_fill: false,
            };
            check_args(caller, &callee, fields, call.args_pos, diags);
        }
        Arg::Expr(expr) => {
            diags
                .note(
                    codes::UNCHECKED_CALL,
                    expr.pos,
                    format!(
                        "{}the call to `{name}` cannot be checked against the lock",
                        caller.prefix()
                    ),
                )
                .note("its whole `args` is one expression, whose keys are known only when it runs");
        }
        // Not an object: lowering has reported it.
        Arg::Array(_) | Arg::Literal(_) => {}
    }
    check_retry(call.retry, &server.value, name, target, diags);
}

/// A `retry` on a call to a tool not annotated read-only or idempotent.
fn check_retry(
    retry: Option<&Sp<Retry>>,
    server: &str,
    name: &str,
    target: &ToolLock,
    diags: &mut Diagnostics,
) {
    let Some(retry) = retry else {
        return;
    };
    let hint = |key: &str| {
        target
            .annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
            == Some(true)
    };
    if hint("readOnlyHint") || hint("idempotentHint") {
        return;
    }
    let d = diags.warning(
        codes::RETRY_NOT_IDEMPOTENT, retry.pos,
        format!(
            "`retry` on `{server}`/`{name}`, which its server does not annotate as read-only or idempotent"
        ),
    );
    d.note(
        "a call that failed for lack of an answer may have done its work: a retry may do it again",
    );
    d.help("retry only tools with `readOnlyHint` or `idempotentHint`, or accept it");
    d.as_lint();
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
