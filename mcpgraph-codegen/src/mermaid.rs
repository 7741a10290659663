//! Draws a validated graph as a Mermaid flowchart, for people: entry and
//! exit as stadiums, `mcp` nodes as subroutines naming the server and tool,
//! switches as diamonds whose edges carry their rules (in infix form) and
//! `default`, `elicit` nodes as parallelograms whose edges carry the answer
//! they take, and edges that close a loop dotted.
//!
//! Only drawing lives here; the graph is assumed valid (`load_str`).

use std::fmt::Write as _;

use crate::model::{GraphFile, Logic, NodeKind, Tool};

/// Mermaid words that cannot be node ids.
const RESERVED: &[&str] = &[
    "end",
    "graph",
    "subgraph",
    "flowchart",
    "style",
    "class",
    "classDef",
    "click",
    "linkStyle",
    "direction",
    "default",
];

/// The flowchart of every tool of `graph` (each in a `subgraph` when there
/// are several), or of the tool named `tool`. `None` when there is no such
/// tool.
///
/// ```
/// let src = "version: '1'\nserver: {name: s, version: '1'}\ntools:\n  - name: t\n    description: d\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n";
/// let graph = mcpgraph_codegen::load_str(src, "g.yaml").unwrap();
/// let chart = mcpgraph_codegen::mermaid::flowchart(&graph, None).unwrap();
/// assert!(chart.contains("entry([\"entry\"]) --> exit"));
/// ```
pub fn flowchart(graph: &GraphFile, tool: Option<&str>) -> Option<String> {
    let tools: Vec<&Tool> = match tool {
        Some(name) => vec![graph.tools.iter().find(|t| t.name.value == name)?],
        None => graph.tools.iter().collect(),
    };
    let mut out = String::from("flowchart TD\n");
    let several = tools.len() > 1;
    for (i, tool) in tools.iter().enumerate() {
        let prefix = if several {
            format!("t{i}_")
        } else {
            String::new()
        };
        if several {
            let _ = writeln!(
                out,
                "  subgraph t{i}[\"{}\"]",
                escape(&format!("tool {}", tool.name.value))
            );
        }
        draw_tool(&mut out, tool, &prefix, if several { "    " } else { "  " });
        if several {
            out.push_str("  end\n");
        }
    }
    Some(out)
}

fn draw_tool(out: &mut String, tool: &Tool, prefix: &str, indent: &str) {
    let index = tool.node_index();
    let names: Vec<String> = tool
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let id = &n.id.value;
            let safe = id.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !RESERVED.contains(&id.as_str());
            if safe {
                format!("{prefix}{id}")
            } else {
                format!("{prefix}n{i}")
            }
        })
        .collect();
    // Edges as (from, to, label), in node order.
    let mut edges: Vec<(usize, usize, Option<String>)> = Vec::new();
    for (i, node) in tool.nodes.iter().enumerate() {
        // A switch's edges carry their rules, then `default`; an elicit
        // node's, the answer they take.
        let labels: Option<Vec<String>> = match &node.kind {
            NodeKind::Switch { conditions, .. } => Some(
                conditions
                    .iter()
                    .map(|c| rule_text(&c.rule))
                    .chain(std::iter::once("default".to_owned()))
                    .collect(),
            ),
            NodeKind::Elicit { routes, .. } => {
                Some(routes.iter().map(|(answer, _)| answer.to_owned()).collect())
            }
            kind if kind.resilience().is_some_and(|r| r.on_error.is_some()) => {
                Some(vec![String::new(), "onError".to_owned()])
            }
            _ => None,
        };
        for (k, to) in node.kind.targets().into_iter().enumerate() {
            let label = labels
                .as_ref()
                .and_then(|l| l.get(k).cloned())
                .filter(|l| !l.is_empty());
            if let Some(&j) = index.get(to.value.as_str()) {
                edges.push((i, j, label));
            }
        }
    }
    let back = back_edges(tool, &edges);
    let mut declared = vec![false; tool.nodes.len()];
    let shape = |i: usize, declared: &mut Vec<bool>| -> String {
        if std::mem::replace(&mut declared[i], true) {
            return names[i].clone();
        }
        let node = &tool.nodes[i];
        let id = escape(&node.id.value);
        let body = match &node.kind {
            NodeKind::Entry { .. } | NodeKind::Exit => format!("([\"{id}\"])"),
            NodeKind::Mcp {
                server,
                tool: remote,
                ..
            } => format!(
                "[[\"{id}<br/>{}\"]]",
                escape(&format!("{} / {}", server.value, remote.value))
            ),
            NodeKind::Transform { .. } => format!("[\"{id}<br/>transform\"]"),
            NodeKind::Switch { .. } => format!("{{\"{id}\"}}"),
            NodeKind::Elicit { .. } => format!("[/\"{id}<br/>elicit\"/]"),
            NodeKind::Parallel { branches, .. } => format!(
                "[[\"{id}<br/>parallel: {}\"]]",
                escape(
                    &branches
                        .iter()
                        .map(|(b, _)| b.value.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            ),
            NodeKind::ForEach { call, .. } => {
                format!("[[\"{id}<br/>forEach: {}\"]]", escape(&call.tool.value))
            }
        };
        format!("{}{body}", names[i])
    };
    for (k, (from, to, label)) in edges.iter().enumerate() {
        let a = shape(*from, &mut declared);
        let b = shape(*to, &mut declared);
        let arrow = if back[k] { "-.->" } else { "-->" };
        match label {
            Some(l) => {
                let _ = writeln!(out, "{indent}{a} {arrow}|\"{}\"| {b}", escape(l));
            }
            None => {
                let _ = writeln!(out, "{indent}{a} {arrow} {b}");
            }
        }
    }
    for i in 0..tool.nodes.len() {
        if !declared[i] {
            let s = shape(i, &mut declared);
            let _ = writeln!(out, "{indent}{s}");
        }
    }
}

/// Which edges close a loop: those that go back to a node still on the
/// depth-first search's path from the entry.
fn back_edges(tool: &Tool, edges: &[(usize, usize, Option<String>)]) -> Vec<bool> {
    let pairs: Vec<(usize, usize)> = edges.iter().map(|(from, to, _)| (*from, *to)).collect();
    loop_edges(tool.nodes.len(), tool.entry(), &pairs)
}

/// Which of `edges` (from, to) among `n` nodes close a loop: those that go
/// back to a node still on the path of a depth-first search from each of
/// `starts`, then from each node not yet seen, in order. How the flowchart
/// dots them and `mcpgraph graph --html` lays them out.
pub fn loop_edges(
    n: usize,
    starts: impl IntoIterator<Item = usize>,
    edges: &[(usize, usize)],
) -> Vec<bool> {
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, (from, _)) in edges.iter().enumerate() {
        out_edges[*from].push(k);
    }
    let mut back = vec![false; edges.len()];
    // 0: not seen, 1: on the path, 2: done.
    let mut state = vec![0u8; n];
    for start in starts.into_iter().chain(0..n) {
        if state[start] != 0 {
            continue;
        }
        // An explicit stack of (node, next edge to look at).
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            if let Some(&k) = out_edges[node].get(*next) {
                *next += 1;
                let to = edges[k].1;
                match state[to] {
                    0 => {
                        state[to] = 1;
                        stack.push((to, 0));
                    }
                    1 => back[k] = true,
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    back
}

/// A rule in infix form: `$.a.count < 3`, `x and y`, `op(args)`: how the
/// flowchart and `mcpgraph graph --html` label a switch's edges.
pub fn rule_text(rule: &Logic) -> String {
    const INFIX: &[&str] = &[
        "==", "===", "!=", "!==", ">", ">=", "<", "<=", "+", "-", "*", "/", "%", "in",
    ];
    match rule {
        Logic::Var(e) => e.source.trim().to_owned(),
        Logic::Literal(v) => v.to_string(),
        Logic::Array(items) => format!(
            "[{}]",
            items.iter().map(rule_text).collect::<Vec<_>>().join(", ")
        ),
        Logic::Object(entries) => match entries.as_slice() {
            [(op, args)] => {
                let op = op.value.as_str();
                let args: Vec<String> = match args {
                    Logic::Array(items) => items.iter().map(operand).collect(),
                    other => vec![operand(other)],
                };
                match (op, args.as_slice()) {
                    (_, [a, b]) if INFIX.contains(&op) => format!("{a} {op} {b}"),
                    ("<" | "<=", [a, b, c]) => format!("{a} {op} {b} {op} {c}"),
                    ("and" | "or", _) if !args.is_empty() => args.join(&format!(" {op} ")),
                    ("!" | "!!", [a]) => format!("{op}{a}"),
                    _ => format!("{op}({})", args.join(", ")),
                }
            }
            _ => format!(
                "{{{}}}",
                entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.value, rule_text(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    }
}

/// An operand, parenthesised when it is itself an operation.
fn operand(rule: &Logic) -> String {
    let text = rule_text(rule);
    match rule {
        Logic::Object(entries) if entries.len() == 1 && text.contains(' ') => format!("({text})"),
        _ => text,
    }
}

/// Text for inside a quoted Mermaid label: quotes and angle brackets as
/// entity codes, line breaks as spaces, long text shortened.
fn escape(text: &str) -> String {
    const MAX: usize = 80;
    let mut flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > MAX {
        flat = flat.chars().take(MAX - 1).collect::<String>() + "…";
    }
    flat.replace('#', "#35;")
        .replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_example() {
        let src = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/loop_example/loop_example.yaml"
        ))
        .unwrap();
        let graph = crate::load_str(&src, "loop_example.yaml").unwrap();
        let chart = flowchart(&graph, Some("sum_to_n")).unwrap();
        assert_eq!(
            chart,
            "flowchart TD
  entry_sum([\"entry_sum\"]) --> increment_node[\"increment_node<br/>transform\"]
  increment_node --> check_condition{\"check_condition\"}
  check_condition -.->|\"$.increment_node.counter #lt; $.increment_node.target\"| increment_node
  check_condition -->|\"default\"| exit_sum[\"exit_sum<br/>transform\"]
  exit_sum --> exit_sum_final([\"exit_sum_final\"])
"
        );
        assert!(flowchart(&graph, Some("nope")).is_none());
    }

    #[test]
    fn rules_in_infix() {
        let src = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/switch_example/switch_example.yaml"
        ))
        .unwrap();
        let graph = crate::load_str(&src, "switch_example.yaml").unwrap();
        let chart = flowchart(&graph, None).unwrap();
        assert!(chart.contains("-->|\"default\"|"), "{chart}");
        let several = format!(
            "{src}\n  - name: second\n    description: d\n    inputSchema: {{type: object}}\n    nodes:\n      - {{id: end, type: entry, next: x}}\n      - {{id: x, type: exit}}\n"
        );
        let graph = crate::load_str(&several, "g.yaml").unwrap();
        let chart = flowchart(&graph, None).unwrap();
        assert!(chart.contains("subgraph t1[\"tool second\"]"), "{chart}");
        assert!(chart.contains("t1_n0([\"end\"]) --> t1_x"), "{chart}");
    }
}
