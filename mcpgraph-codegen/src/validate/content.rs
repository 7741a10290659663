//! The rules of an exit node's `content:`: it names `mcp` nodes of the
//! tool, each once, each able to run before the exit; and it keeps the
//! JSON result when the tool declares an `outputSchema` (MCP requires
//! `structuredContent` then).

use std::collections::{HashMap, HashSet, VecDeque};

use super::expr::Scope;
use super::unknown_node;
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::{NodeKind, Tool};

/// The checks that need no whole graph: names, node types, repeats and
/// `json: false` against an `outputSchema`.
pub(super) fn check_names(tool: &Tool, scope: &Scope<'_>, diags: &mut Diagnostics) {
    let Some(content) = &tool.exit_content else {
        return;
    };
    let mut seen = HashSet::new();
    for name in &content.from {
        if !seen.insert(name.value.as_str()) {
            diags.error(
                codes::CONTENT_FROM,
                name.pos,
                format!("`content.from` names `{}` twice", name.value),
            );
            continue;
        }
        if !scope.ids.contains(name.value.as_str()) {
            unknown_node(
                diags,
                name.pos,
                &name.value,
                scope.label,
                scope.id_list,
                "`content.from` names",
            );
            continue;
        }
        let Some(node) = tool.nodes.iter().find(|n| n.id.value == name.value) else {
            continue;
        };
        let kind = match node.kind {
            NodeKind::Mcp { .. } => continue,
            NodeKind::Entry { .. } => "entry",
            NodeKind::Exit => "exit",
            NodeKind::Transform { .. } => "transform",
            NodeKind::Switch { .. } => "switch",
            NodeKind::Elicit { .. } => "elicit",
            NodeKind::Parallel { .. } => "parallel",
            NodeKind::ForEach { .. } => "forEach",
        };
        diags
            .error(
                codes::CONTENT_FROM, name.pos,
                format!(
                    "`content.from` names `{}`, a `{kind}` node: only `mcp` nodes have content blocks",
                    name.value
                ),
            )
            .help("name an `mcp` node whose downstream result the exit should return");
    }
    if !content.json.value && tool.output_schema.is_some() {
        diags
            .error(
                codes::CONTENT_JSON_REQUIRED, content.json.pos,
                format!(
                    "`content.json: false` drops the result's `structuredContent`, which {} must return: it declares an `outputSchema`",
                    scope.label
                ),
            )
            .help("keep `json: true` (the default), or remove the tool's `outputSchema`");
    }
}

/// Reports a node of `content.from` from which the exit cannot be
/// reached: its blocks could never be returned.
pub(super) fn check_reach(
    tool: &Tool,
    index: &HashMap<&str, usize>,
    successors: &[Vec<usize>],
    exit: usize,
    label: &str,
    diags: &mut Diagnostics,
) {
    let Some(content) = &tool.exit_content else {
        return;
    };
    for name in &content.from {
        let Some(&start) = index.get(name.value.as_str()) else {
            continue;
        };
        if !matches!(tool.nodes[start].kind, NodeKind::Mcp { .. }) {
            continue;
        }
        let mut seen = vec![false; tool.nodes.len()];
        let mut queue = VecDeque::from([start]);
        while let Some(n) = queue.pop_front() {
            if !std::mem::replace(&mut seen[n], true) {
                queue.extend(successors[n].iter().copied());
            }
        }
        if !seen[exit] {
            diags
                .error(
                    codes::CONTENT_FROM, name.pos,
                    format!(
                        "`content.from` names `{}`, from which the exit node `{}` of {label} cannot be reached",
                        name.value, tool.nodes[exit].id.value
                    ),
                )
                .help("its blocks could never be returned: route its `next` towards the exit");
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{errors, load};

    const HEAD: &str = "version: '1'\nserver: {name: s, version: '1'}\nmcpServers:\n  fs: {command: x}\ntools:\n  - name: t\n    description: d\n    inputSchema: {type: object}\n";

    fn graph(tool_extra: &str, exit_extra: &str) -> String {
        format!(
            "{HEAD}{tool_extra}    nodes:\n      - {{id: entry, type: entry, next: img}}\n      - {{id: img, type: mcp, server: fs, tool: get, next: tr}}\n      - {{id: tr, type: transform, transform: {{expr: '1'}}, next: exit}}\n      - id: exit\n        type: exit\n{exit_extra}"
        )
    }

    #[test]
    fn content_is_lowered() {
        let src = graph(
            "",
            "        content:\n          from: [img]\n          types: [image, audio]\n          json: false\n",
        );
        let file = load(&src);
        let c = file.tools[0].exit_content.as_ref().unwrap();
        assert_eq!(c.from[0].value, "img");
        assert_eq!((c.from[0].pos.line, c.from[0].pos.column), (16, 18));
        assert_eq!(c.types, ["image", "audio"]);
        assert!(!c.json.value);
        let src = graph("", "        content: {from: img}\n");
        let c = load(&src).tools[0].exit_content.clone().unwrap();
        assert!(c.json.value && c.types.is_empty());
    }

    #[test]
    fn content_errors_point_at_the_name() {
        let src = graph("", "        content: {from: [imgg, tr, img, img]}\n");
        let errs = errors(&src);
        let got: Vec<(u32, u32, &str)> =
            errs.iter().map(|(l, c, m)| (*l, *c, m.as_str())).collect();
        assert_eq!(
            got,
            [
                (
                    15,
                    26,
                    "`content.from` names `imgg`, which is not a node of tool `t`"
                ),
                (
                    15,
                    32,
                    "`content.from` names `tr`, a `transform` node: only `mcp` nodes have content blocks"
                ),
                (15, 41, "`content.from` names `img` twice"),
            ]
        );
    }

    #[test]
    fn shape_errors() {
        let src = graph("", "        content: {from: [], types: [picture]}\n");
        assert_eq!(errors(&src).len(), 1, "{:?}", errors(&src));
        assert_eq!(errors(&src)[0].2, "`content.from` names no node");
        let src = graph("", "        content: {from: img, types: [picture]}\n");
        assert_eq!(
            errors(&src)[0].2,
            "unknown content block type `picture` (expected one of `text`, `image`, `audio`, `resource`, `resource_link`)"
        );
        let src = graph("", "        content: {from: img, json: 'no'}\n");
        assert_eq!(
            errors(&src)[0].2,
            "`content.json` must be `true` or `false`, found a string"
        );
        let src = graph("", "        content: {from: img, jsno: false}\n");
        assert_eq!(
            errors(&src)[0].2,
            "unknown key `jsno` in `content` in node `exit`"
        );
        let src = graph("", "").replace(
            "{id: tr, type: transform, transform: {expr: '1'}, next: exit}",
            "{id: tr, type: transform, transform: {expr: '1'}, next: exit, content: {from: img}}",
        );
        assert_eq!(
            errors(&src)[0].2,
            "`content` is not a field of a `transform` node in node `tr`"
        );
    }

    #[test]
    fn json_false_needs_no_output_schema() {
        let src = graph(
            "    outputSchema: {type: object}\n",
            "        content: {from: img, json: false}\n",
        );
        let errs = errors(&src);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!((errs[0].0, errs[0].1), (16, 36));
        assert!(
            errs[0].2.starts_with("`content.json: false` drops"),
            "{}",
            errs[0].2
        );
    }

    #[test]
    fn a_node_that_cannot_reach_the_exit() {
        let src = graph("", "        content: {from: img}\n").replace(
            "{id: entry, type: entry, next: img}",
            "{id: entry, type: entry, next: sw}\n      - id: sw\n        type: switch\n        conditions: [{rule: {'==': [1, 1]}, next: exit}]\n        next: img",
        ).replace("next: tr}", "next: img2}\n      - {id: img2, type: mcp, server: fs, tool: get, next: img}\n      - {id: tr2, type: transform, transform: {expr: '1'}, next: exit}");
        let errs = errors(&src);
        assert!(
            errs.iter().any(|e| e.2
                == "`content.from` names `img`, from which the exit node `exit` of tool `t` cannot be reached"),
            "{errs:?}"
        );
    }
}
