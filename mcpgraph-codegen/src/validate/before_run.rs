//! The "may have run before" analysis: an expression that reads a node
//! which cannot have run before the expression's own node always reads
//! nothing. Reported as warnings with a lint name, since the file is valid.

use std::collections::{HashMap, VecDeque};

use super::expr::{Ref, RefKind};
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::Tool;

/// How many edges the may-have-run analysis may visit in one tool; past
/// that (graphs of many thousands of nodes) the check is skipped rather
/// than slowing the build.
const BEFORE_RUN_BUDGET: usize = 20_000_000;

/// Reports references to nodes that cannot have run before the node whose
/// expression reads them, as warnings with the lint [`codes::REFERENCE_BEFORE_RUN`].
///
/// Node X may have run before node N when some path from the entry passes
/// through X and then, one or more steps later, reaches N: in a loop, a node
/// later in the body has run on an earlier iteration, and a node on a cycle
/// has run before its own next run. This is the union over all paths (a
/// "may" analysis), so a node that ran but yielded nothing, or that runs
/// only on some paths, is never reported.
pub(super) fn references_before_run(
    tool: &Tool,
    label: &str,
    successors: &[Vec<usize>],
    reached: &[bool],
    refs: &[Vec<Ref>],
    diags: &mut Diagnostics,
) {
    let index = tool.node_index();
    // The nodes referred to, each with the nodes it can reach in one or more
    // steps: one search per node referred to.
    let mut referred: Vec<usize> = refs
        .iter()
        .flatten()
        .filter_map(|r| index.get(r.name.as_str()).copied())
        .filter(|&x| reached[x])
        .collect();
    referred.sort_unstable();
    referred.dedup();
    let mut budget = BEFORE_RUN_BUDGET;
    let mut reach_from: HashMap<usize, Vec<bool>> = HashMap::new();
    for &x in &referred {
        let mut seen = vec![false; tool.nodes.len()];
        let mut queue: VecDeque<usize> = successors[x].iter().copied().collect();
        while let Some(y) = queue.pop_front() {
            budget = budget.saturating_sub(1 + successors[y].len());
            if budget == 0 {
                return;
            }
            if !std::mem::replace(&mut seen[y], true) {
                queue.extend(successors[y].iter().copied());
            }
        }
        reach_from.insert(x, seen);
    }
    let mut predecessors = vec![Vec::new(); tool.nodes.len()];
    for (from, next) in successors.iter().enumerate() {
        for &to in next {
            predecessors[to].push(from);
        }
    }
    let mut earlier_of: HashMap<usize, Vec<&str>> = HashMap::new();
    for (n, node_refs) in refs.iter().enumerate() {
        if !reached[n] {
            continue;
        }
        let node = &tool.nodes[n].id.value;
        for r in node_refs {
            let Some(x) = index.get(r.name.as_str()).copied() else {
                continue;
            };
            let Some(from_x) = reach_from.get(&x) else {
                continue;
            };
            if from_x[n] {
                continue;
            }
            let read = match r.kind {
                RefKind::Path => "reads",
                RefKind::StringArg => "asks for the history of",
            };
            let message = if x == n {
                format!(
                    "node `{node}` {read} itself, but it is not on a loop: its own output is never in its context"
                )
            } else {
                format!(
                    "node `{node}` {read} `{}`, which cannot have run before it on any path from the entry",
                    r.name
                )
            };
            let help = match r.kind {
                RefKind::Path => "this always yields nothing; read a node that runs before it",
                RefKind::StringArg => {
                    "the history is always empty here; ask for a node that runs before it"
                }
            };
            let earlier: &Vec<&str> = earlier_of.entry(n).or_insert_with(|| {
                let before = predecessors_of(&predecessors, n);
                (0..tool.nodes.len())
                    .filter(|&y| reached[y] && before[y])
                    .map(|y| tool.nodes[y].id.value.as_str())
                    .collect()
            });
            let d = diags.warning(codes::REFERENCE_BEFORE_RUN, r.pos, message);
            d.help(help);
            if earlier.is_empty() {
                d.note(format!("no node of {label} can have run before `{node}`"));
            } else {
                d.note(format!(
                    "the nodes that may have run before `{node}`: {}",
                    earlier.join(", ")
                ));
            }
            d.as_lint();
        }
    }
}

/// The nodes from which `to` is reached in one or more steps.
fn predecessors_of(predecessors: &[Vec<usize>], to: usize) -> Vec<bool> {
    let mut seen = vec![false; predecessors.len()];
    let mut stack: Vec<usize> = predecessors[to].clone();
    while let Some(y) = stack.pop() {
        if !std::mem::replace(&mut seen[y], true) {
            stack.extend(predecessors[y].iter().copied());
        }
    }
    seen
}
#[cfg(test)]
mod tests {
    use crate::test_support::{ENTRY, EXIT, switch, transform, warnings, with_nodes};

    #[test]
    fn reference_to_a_node_that_runs_later() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{EXIT}",
            transform("a", "$.b.x", "b"),
            transform("b", "$.a.x", "exit")
        ));
        let w = warnings(&src);
        assert_eq!(
            w,
            [(
                19,
                20,
                "node `a` reads `b`, which cannot have run before it on any path from the entry"
                    .to_owned()
            )]
        );
        let (_, d) = crate::load_str_with_warnings(&src, "g.yaml").unwrap();
        let item = d
            .items
            .iter()
            .find(|i| i.lint == Some(crate::diag::REFERENCE_BEFORE_RUN))
            .unwrap();
        assert_eq!(
            item.notes,
            ["the nodes that may have run before `a`: entry"]
        );
        // Its own output, off a loop; the history of a later node.
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{EXIT}",
            transform("a", "$.a", "b"),
            transform(
                "b",
                "$executionCount(\"b\") + $count($nodeExecutions(\"a\"))",
                "exit"
            )
        ));
        let msgs: Vec<String> = warnings(&src).into_iter().map(|w| w.2).collect();
        assert_eq!(
            msgs,
            [
                "node `a` reads itself, but it is not on a loop: its own output is never in its context",
                "node `b` asks for the history of itself, but it is not on a loop: its own output is never in its context",
            ]
        );
    }

    #[test]
    fn loops_and_branches_may_have_run() {
        // a → sw → (a | c) → exit: in the loop, `a` reads `sw` (an earlier
        // iteration) and itself; `c` reads everything.
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{}{EXIT}",
            transform("a", "$.sw & $.a & $executionCount(\"a\") & $.c", "sw"),
            switch("sw", "a", "c"),
            transform("c", "$.a & $.sw & $.entry", "exit")
        ));
        let msgs: Vec<String> = warnings(&src).into_iter().map(|w| w.2).collect();
        assert_eq!(
            msgs,
            ["node `a` reads `c`, which cannot have run before it on any path from the entry"]
        );
        // Two branches that join: the join may read either branch, one
        // branch cannot read the other.
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{}{}{EXIT}",
            switch("a", "b", "c"),
            transform("b", "$.c", "d"),
            transform("c", "$.b", "d"),
            transform("d", "$.b ? $.b : $.c", "exit")
        ));
        let msgs: Vec<String> = warnings(&src).into_iter().map(|w| w.2).collect();
        assert_eq!(
            msgs,
            [
                "node `b` reads `c`, which cannot have run before it on any path from the entry",
                "node `c` reads `b`, which cannot have run before it on any path from the entry",
            ]
        );
    }

    #[test]
    fn switch_vars_and_args_are_checked_too() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: switch\n        conditions:\n          - rule: {{\">\": [{{var: \"b.n\"}}, 1]}}\n            next: b\n        next: b\n      - id: b\n        type: mcp\n        server: fs\n        tool: x\n        args: {{p: {{expr: \"$.b\"}}}}\n        next: exit\n{EXIT}"
        ));
        let msgs: Vec<String> = warnings(&src).into_iter().map(|w| w.2).collect();
        assert_eq!(
            msgs,
            [
                "node `a` reads `b`, which cannot have run before it on any path from the entry",
                "node `b` reads itself, but it is not on a loop: its own output is never in its context",
            ]
        );
    }
}
