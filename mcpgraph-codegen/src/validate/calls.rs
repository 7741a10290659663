//! Calls of the graph's own tools (a `parallel` branch or a `forEach`
//! `call` without `server`): the tool exists, and its arguments match its
//! `inputSchema` as a downstream call's match the lock's (`call_args`);
//! and no tool recurses without a way out. Recursion through a
//! `switch` or a `forEach` (which may run no call) is bounded at run time
//! by `maxCallDepth`; a cycle of calls that every run of each tool makes
//! can only end at that limit, and is an error here.

use std::collections::HashMap;

use crate::call_args::{Callee, Caller, check_args};
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::{Arg, Call, GraphFile, NodeKind, Sp, Tool};
use crate::suggest::suggest;

/// Checks every call of a graph tool in `file`.
pub(super) fn check_graph_calls(file: &GraphFile, diags: &mut Diagnostics) {
    let names: Vec<&str> = file.tools.iter().map(|t| t.name.value.as_str()).collect();
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    for tool in &file.tools {
        for node in &tool.nodes {
            for call in node.kind.every_call() {
                if call.server.is_some() {
                    continue;
                }
                let Some(&i) = index.get(call.tool.value.as_str()) else {
                    unknown_tool(call.tool, &node.id.value, &names, diags);
                    continue;
                };
                // Arguments given as one expression are checked at run
                // time (against the tool's `inputSchema`).
                let Arg::Object(fields) = call.args else {
                    continue;
                };
                let target = &file.tools[i];
                let caller = Caller {
                    tool,
                    node: &node.id.value,
                    place: &call.place,
                };
                let callee = Callee {
                    name: &target.name.value,
                    schema: &target.input_schema,
                    defaults_fill: true,
                };
                check_args(&caller, &callee, fields, call.args_pos, diags);
            }
        }
    }
    unbounded_recursion(file, &index, diags);
}

fn unknown_tool(tool: &Sp<String>, node: &str, names: &[&str], diags: &mut Diagnostics) {
    let d = diags.error(
        codes::UNKNOWN_TOOL,
        tool.pos,
        format!(
            "node `{node}` calls tool `{}`, which is not a tool of this graph",
            tool.value
        ),
    );
    match suggest(&tool.value, names) {
        Some(s) => d.help(format!("did you mean `{s}`?")),
        None => d.help("give the call a `server` to call a tool of a downstream server"),
    };
    d.note(format!("the tools of this graph are: {}", names.join(", ")));
}

/// A cycle of calls that every run makes: tool `a`'s graph cannot reach
/// its exit without a `parallel` node calling `b`, and so on back to `a`.
fn unbounded_recursion(file: &GraphFile, index: &HashMap<&str, usize>, diags: &mut Diagnostics) {
    // always[t]: the graph tools every run of tool t calls, with the call.
    let always: Vec<Vec<(usize, &Call)>> = file
        .tools
        .iter()
        .map(|t| unavoidable_calls(t, index))
        .collect();
    let mut reported = vec![false; file.tools.len()];
    for start in 0..file.tools.len() {
        // Depth-first along unavoidable calls, looking for `start` again.
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(start, vec![start])];
        let mut seen = vec![false; file.tools.len()];
        while let Some((at, path)) = stack.pop() {
            for &(to, call) in &always[at] {
                if to == start && !path.iter().any(|&p| reported[p]) {
                    let chain: Vec<&str> = path
                        .iter()
                        .chain([&start])
                        .map(|&i| file.tools[i].name.value.as_str())
                        .collect();
                    diags
                        .error(
                            codes::UNBOUNDED_RECURSION, call.tool.pos,
                            format!(
                                "recursion without a bound: every call of tool `{}` calls it again ({})",
                                file.tools[start].name.value,
                                chain.join(" → ")
                            ),
                        )
                        .help("route around the call with a `switch` (a way to the exit that does not recurse), or iterate with `forEach`");
                    reported[start] = true;
                } else if !seen[to] {
                    seen[to] = true;
                    let mut next = path.clone();
                    next.push(to);
                    stack.push((to, next));
                }
            }
        }
    }
}

/// The graph tools a tool calls on every run: from `parallel` nodes that
/// every way from its entry to its exit goes through.
fn unavoidable_calls<'t>(tool: &'t Tool, index: &HashMap<&str, usize>) -> Vec<(usize, &'t Call)> {
    let (Some(entry), Some(exit)) = (
        tool.entry(),
        tool.nodes
            .iter()
            .position(|n| matches!(n.kind, NodeKind::Exit)),
    ) else {
        return Vec::new();
    };
    let positions = tool.node_index();
    let mut out = Vec::new();
    for (i, node) in tool.nodes.iter().enumerate() {
        let NodeKind::Parallel { branches, .. } = &node.kind else {
            continue;
        };
        if i == entry || reaches(tool, &positions, entry, exit, i) {
            continue;
        }
        for (_, call) in branches {
            if call.server.is_none()
                && let Some(&to) = index.get(call.tool.value.as_str())
            {
                out.push((to, call));
            }
        }
    }
    out
}

/// Whether `to` can be reached from `from` without going through `avoid`.
fn reaches(
    tool: &Tool,
    positions: &HashMap<&str, usize>,
    from: usize,
    to: usize,
    avoid: usize,
) -> bool {
    let mut seen = vec![false; tool.nodes.len()];
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(at) = stack.pop() {
        if at == to {
            return true;
        }
        for target in tool.nodes[at].kind.targets() {
            if let Some(&next) = positions.get(target.value.as_str())
                && next != avoid
                && !seen[next]
            {
                seen[next] = true;
                stack.push(next);
            }
        }
    }
    false
}
