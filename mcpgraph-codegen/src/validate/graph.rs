//! The graph rules of one tool, as passes: node ids, targets and servers,
//! expressions, one entry and one exit, reachability, and last the
//! may-have-run analysis. The passes that need a whole graph run only when
//! the earlier ones found it whole.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use super::before_run::references_before_run;
use super::content;
use super::expr::{Ref, Scope, check_arg, check_expr, check_item_args, check_logic};
use super::literal_args::check_literal_args;
use super::unknown_node;
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::lower::Unfinished;
use crate::model::{Message, NodeKind, Tool};
use crate::suggest::suggest;

/// Checks one tool. `servers`: the names of the declared servers.
pub(super) fn check_tool(
    tool: &Tool,
    unfinished: &Unfinished,
    servers: &[&str],
    diags: &mut Diagnostics,
) {
    let label = if unfinished.name_missing {
        "this tool".to_owned()
    } else {
        format!("tool `{}`", tool.name.value)
    };
    let index = node_ids(tool, &label, diags);
    // Nodes that could not be built still exist for references.
    let mut ids: BTreeSet<&str> = index.keys().copied().collect();
    ids.extend(unfinished.broken_ids.iter().map(String::as_str));
    let id_list: Vec<&str> = {
        let mut seen = HashSet::new();
        unfinished
            .ids
            .iter()
            .map(String::as_str)
            .filter(|id| seen.insert(*id))
            .collect()
    };
    let scope = Scope {
        ids: &ids,
        id_list: &id_list,
        label: &label,
    };
    let targets_ok = targets_and_servers(tool, &scope, servers, diags);
    let refs = expressions(tool, &scope, diags);
    content::check_names(tool, &scope, diags);
    if unfinished.incomplete {
        return;
    }
    let Some((entry, exit)) = entry_and_exit(tool, &index, &label, diags) else {
        return;
    };
    if !targets_ok || index.len() != tool.nodes.len() {
        return;
    }
    let successors: Vec<Vec<usize>> = tool
        .nodes
        .iter()
        .map(|n| {
            n.kind
                .targets()
                .into_iter()
                .map(|t| index[t.value.as_str()])
                .collect()
        })
        .collect();
    let reached = reachability(tool, entry, exit, &successors, &label, diags);
    content::check_reach(tool, &index, &successors, exit, &label, diags);
    references_before_run(tool, &label, &successors, &reached, &refs, diags);
}

/// Reports repeated node ids; returns each id with the position of its
/// first node.
fn node_ids<'t>(tool: &'t Tool, label: &str, diags: &mut Diagnostics) -> HashMap<&'t str, usize> {
    let index = tool.node_index();
    for (i, node) in tool.nodes.iter().enumerate() {
        let first = index[node.id.value.as_str()];
        if first != i {
            let first = tool.nodes[first].id.pos;
            diags
                .error(
                    codes::DUPLICATE_NODE_ID,
                    node.id.pos,
                    format!("duplicate node id `{}` in {label}", node.id.value),
                )
                .note(format!(
                    "first defined at line {}, column {}",
                    first.line, first.column
                ));
        }
    }
    index
}

/// Reports `next` targets that are not nodes of the tool and servers that
/// are not declared. Returns whether every target exists.
fn targets_and_servers(
    tool: &Tool,
    scope: &Scope<'_>,
    servers: &[&str],
    diags: &mut Diagnostics,
) -> bool {
    let mut targets_ok = true;
    for node in &tool.nodes {
        for (key, target) in node.kind.keyed_targets() {
            if !scope.ids.contains(target.value.as_str()) {
                targets_ok = false;
                unknown_node(
                    diags,
                    target.pos,
                    &target.value,
                    scope.label,
                    scope.id_list,
                    &format!("`{key}` names"),
                );
            }
        }
        let called = match &node.kind {
            NodeKind::Mcp { server, .. } => vec![server],
            kind => kind
                .calls()
                .into_iter()
                .filter_map(|c| c.server.as_ref())
                .collect(),
        };
        for server in called {
            if servers.contains(&server.value.as_str()) {
                continue;
            }
            let d = diags.error(
                codes::UNDECLARED_SERVER,
                server.pos,
                format!(
                    "node `{}` calls server `{}`, which is not declared in `mcpServers`",
                    node.id.value, server.value
                ),
            );
            match suggest(&server.value, servers) {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None if servers.is_empty() => {
                    d.help("declare it under `mcpServers` at the top level")
                }
                None => d.note(format!("declared servers: {}", servers.join(", "))),
            };
        }
    }
    targets_ok
}

/// Checks every expression; returns, for each node, the references to
/// existing nodes its expressions make.
fn expressions(tool: &Tool, scope: &Scope<'_>, diags: &mut Diagnostics) -> Vec<Vec<Ref>> {
    let mut refs: Vec<Vec<Ref>> = Vec::with_capacity(tool.nodes.len());
    for node in &tool.nodes {
        let mut found = Vec::new();
        match &node.kind {
            NodeKind::Transform { expr, .. } => check_expr(expr, scope, diags, &mut found),
            NodeKind::Mcp { args, args_pos, .. } => {
                check_arg(args, scope, diags, &mut found);
                check_literal_args(args, *args_pos, scope, diags);
            }
            NodeKind::Parallel { branches, .. } => {
                for (_, call) in branches {
                    check_arg(&call.args, scope, diags, &mut found);
                    check_literal_args(&call.args, call.args_pos, scope, diags);
                }
            }
            NodeKind::ForEach { items, call, .. } => {
                check_expr(items, scope, diags, &mut found);
                check_item_args(&call.args, scope, diags, &mut found);
                check_literal_args(&call.args, call.args_pos, scope, diags);
            }
            NodeKind::Switch { conditions, .. } => {
                for c in conditions {
                    check_logic(&c.rule, scope, diags, &mut found);
                }
            }
            NodeKind::Elicit {
                message: Message::Expr(expr),
                ..
            } => check_expr(expr, scope, diags, &mut found),
            NodeKind::Elicit { .. } | NodeKind::Entry { .. } | NodeKind::Exit => {}
        }
        refs.push(found);
    }
    refs
}

/// Reports a tool without exactly one entry and one exit; returns their
/// positions when there is one of each.
///
/// A node whose id repeats an earlier one was reported as a duplicate: one
/// typo, one error, so it is not counted again as a second entry or exit.
fn entry_and_exit(
    tool: &Tool,
    index: &HashMap<&str, usize>,
    label: &str,
    diags: &mut Diagnostics,
) -> Option<(usize, usize)> {
    let first_of_its_id = |i: usize| index.get(tool.nodes[i].id.value.as_str()) == Some(&i);
    let entries: Vec<usize> = (0..tool.nodes.len())
        .filter(|&i| matches!(tool.nodes[i].kind, NodeKind::Entry { .. }) && first_of_its_id(i))
        .collect();
    let exits: Vec<usize> = (0..tool.nodes.len())
        .filter(|&i| matches!(tool.nodes[i].kind, NodeKind::Exit) && first_of_its_id(i))
        .collect();
    for (found, kind) in [(&entries, "entry"), (&exits, "exit")] {
        match found.as_slice() {
            [] => {
                diags
                    .error(
                        codes::ENTRY_EXIT_COUNT,
                        tool.name.pos,
                        format!("{label} has no `{kind}` node"),
                    )
                    .help(format!(
                        "every tool needs exactly one node of type `{kind}`"
                    ));
            }
            [_] => {}
            [first, rest @ ..] => {
                let first = &tool.nodes[*first].id;
                for i in rest {
                    diags
                        .error(
                            codes::ENTRY_EXIT_COUNT,
                            tool.nodes[*i].id.pos,
                            format!("{label} has more than one `{kind}` node"),
                        )
                        .note(format!(
                            "the first is `{}` at line {}, column {}",
                            first.value, first.pos.line, first.pos.column
                        ));
                }
            }
        }
    }
    match (entries.as_slice(), exits.as_slice()) {
        ([entry], [exit]) => Some((*entry, *exit)),
        _ => None,
    }
}

/// Reports an exit and nodes that the entry does not reach; returns which
/// nodes it reaches.
fn reachability(
    tool: &Tool,
    entry: usize,
    exit: usize,
    successors: &[Vec<usize>],
    label: &str,
    diags: &mut Diagnostics,
) -> Vec<bool> {
    let mut reached = vec![false; tool.nodes.len()];
    let mut queue = VecDeque::from([entry]);
    reached[entry] = true;
    while let Some(i) = queue.pop_front() {
        for &j in &successors[i] {
            if !reached[j] {
                reached[j] = true;
                queue.push_back(j);
            }
        }
    }
    let entry_id = &tool.nodes[entry].id.value;
    if !reached[exit] {
        let exit_node = &tool.nodes[exit].id;
        diags
            .error(
                codes::EXIT_UNREACHABLE, exit_node.pos,
                format!(
                    "the exit node `{}` of {label} is not reachable from the entry node `{entry_id}`",
                    exit_node.value
                ),
            )
            .help("every call must be able to end: route some `next` to the exit node");
    }
    for (i, node) in tool.nodes.iter().enumerate() {
        if !reached[i] && i != exit {
            diags
                .error(
                    codes::UNREACHABLE_NODE,
                    node.id.pos,
                    format!(
                        "node `{}` of {label} is not reachable from the entry node `{entry_id}`",
                        node.id.value
                    ),
                )
                .help("route a `next` to it, or remove it");
        }
    }
    reached
}

#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;
