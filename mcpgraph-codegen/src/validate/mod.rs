//! Checks the graph rules of FORMAT.md ("Validated when the file is
//! compiled") on a lowered model: unique tool names and node ids, one entry
//! and one exit per tool, `next` targets and servers that exist,
//! reachability, JSONata syntax (including S0212) and references to node ids
//! inside expressions; and, as warnings with a lint name, references to
//! nodes that cannot have run before the node whose expression reads them.
//!
//! Every problem is pushed into the `Diagnostics`; nothing stops at the
//! first. Shape errors (wrong types, missing fields) are lowering's and are
//! not repeated here: parts that lowering could not build are skipped.
//!
//! This module holds the rules about the file as a whole; `graph` the rules
//! of one tool's graph, `expr` those of its expressions, and `before_run`
//! the may-have-run analysis. The types that flow through the graph
//! (`shapes`, checked by `paths` and `exit_value`) are a pass of their own,
//! [`check_types`], which takes the lock when there is one.

mod before_run;
mod builtins;
mod calls;
mod content;
mod exit_value;
mod expr;
mod findings;
mod graph;
mod lexer;
mod literal_args;
mod operands;
mod paths;
mod reads;
mod regex;
mod run_errors;
mod shapes;
mod syntax;
mod tree;

pub(crate) use expr::ITEM_NAMES;
pub(crate) use expr::check_standalone as check_expression;

use std::collections::{HashMap, HashSet};

use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::lock::Lock;
use crate::lower::{Lowered, Unfinished};
use crate::model::{GraphFile, NodeKind, Pos};
use crate::suggest::suggest;
use shapes::Types;

/// Checks everything lowering could build, but the types ([`check_types`]).
pub(crate) fn validate(lowered: &Lowered, diags: &mut Diagnostics) {
    let file = &lowered.file;
    tool_names(file, &lowered.tools, diags);
    let servers: Vec<&str> = file
        .mcp_servers
        .iter()
        .map(|s| s.name())
        .chain(lowered.broken_servers.iter().map(String::as_str))
        .collect();
    for (tool, unfinished) in file.tools.iter().zip(&lowered.tools) {
        graph::check_tool(tool, unfinished, &servers, diags);
    }
    calls::check_graph_calls(file, diags);
    unused_servers(lowered, diags);
}

/// Checks the paths of every expression against the shapes of the outputs
/// they read, and the values handed to the exits against the tools'
/// `outputSchema`; with `lock`, the outputs of calls are known from it.
/// (Apart from [`validate`] so that the lock's checks of the calls, which
/// want a graph without errors, run before it.)
pub(crate) fn check_types(lowered: &Lowered, lock: Option<&Lock>, diags: &mut Diagnostics) {
    let types = Types {
        tools: &lowered.file.tools,
        lock,
    };
    for tool in &lowered.file.tools {
        paths::check_paths(&types, tool, diags);
        exit_value::check_exit_value(&types, tool, diags);
    }
}

/// A declared server that no node calls is likely a typo or a leftover:
/// a warning (it would still be started by nothing, so it costs nothing).
fn unused_servers(lowered: &Lowered, diags: &mut Diagnostics) {
    // With errors, a server may look unused because of them (a misspelt
    // server name, a tool that could not be read).
    if diags.error_count() > 0 || lowered.tools.iter().any(|t| t.incomplete) {
        return;
    }
    let used: HashSet<&str> = lowered
        .file
        .tools
        .iter()
        .flat_map(|t| &t.nodes)
        .flat_map(|n| match &n.kind {
            NodeKind::Mcp { server, .. } => vec![server.value.as_str()],
            kind => kind
                .calls()
                .into_iter()
                .filter_map(|c| c.server.as_ref().map(|s| s.value.as_str()))
                .collect(),
        })
        .collect();
    for server in &lowered.file.mcp_servers {
        if !used.contains(server.name()) {
            diags
                .warning(
                    codes::UNUSED_SERVER,
                    server.pos,
                    format!(
                        "server `{}` is declared but no node calls it",
                        server.name()
                    ),
                )
                .help("remove it, or call it from an `mcp` node")
                .as_lint();
        }
    }
}

/// Tool names: valid for MCP, and each used once.
fn tool_names(file: &GraphFile, unfinished: &[Unfinished], diags: &mut Diagnostics) {
    let mut seen: HashMap<&str, Pos> = HashMap::new();
    for (tool, unfinished) in file.tools.iter().zip(unfinished) {
        if unfinished.name_missing {
            continue;
        }
        let name = &tool.name;
        let bad: Vec<char> = name
            .value
            .chars()
            .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .collect();
        if name.value.is_empty() || name.value.len() > 128 || !bad.is_empty() {
            let d = diags.error(
                codes::INVALID_TOOL_NAME,
                name.pos,
                format!("invalid tool name `{}`", name.value),
            );
            d.help("MCP tool names are 1 to 128 characters of A-Z a-z 0-9 _ - .");
            if let Some(c) = bad.first() {
                d.note(format!("`{c}` is not allowed"));
            }
        }
        if let Some(first) = seen.get(name.value.as_str()) {
            diags
                .error(
                    codes::DUPLICATE_TOOL_NAME,
                    name.pos,
                    format!("duplicate tool name `{}`", name.value),
                )
                .note(format!(
                    "first defined at line {}, column {}",
                    first.line, first.column
                ));
        } else {
            seen.insert(&name.value, name.pos);
        }
    }
}

/// Reports `name`, read as a node id (`what` says how), that is not a node
/// of the tool.
fn unknown_node(
    diags: &mut Diagnostics,
    pos: Pos,
    name: &str,
    label: &str,
    id_list: &[&str],
    what: &str,
) {
    let d = diags.error(
        codes::UNKNOWN_NODE,
        pos,
        format!("{what} `{name}`, which is not a node of {label}"),
    );
    if let Some(s) = suggest(name, id_list) {
        d.help(format!("did you mean `{s}`?"));
    }
    if id_list.is_empty() {
        d.note(format!("{label} has no nodes"));
    } else {
        d.note(format!("the nodes of {label} are: {}", id_list.join(", ")));
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::Severity;
    use crate::test_support::{ENTRY, EXIT, errors, one_error, transform, with_nodes};

    #[test]
    fn compat_examples_load() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/mcpgraph/");
        for f in [
            "file_utils.yaml",
            "loop_example.yaml",
            "switch_example.yaml",
            "test_minimal.yaml",
        ] {
            let src = std::fs::read_to_string(format!("{dir}{f}")).unwrap();
            let (file, warnings) = crate::load_str_with_warnings(&src, f)
                .unwrap_or_else(|d| panic!("{f} failed:\n{d}"));
            // Notes (what could not be checked) are not problems.
            assert_eq!(warnings.warning_count(), 0, "{f}: {warnings}");
            assert!(!file.tools.is_empty());
        }
    }

    #[test]
    fn valid_minimal_graph() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "$.entry", "exit")
        ));
        assert_eq!(errors(&src), vec![]);
    }

    #[test]
    fn duplicate_tool_names() {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exit")));
        let tool = &src[src.find("  - name: t").unwrap()..];
        let src = format!("{src}{tool}");
        let (line, col, msg) = one_error(&src);
        assert_eq!(msg, "duplicate tool name `t`");
        assert_eq!((line, col), (23, 11));
    }

    #[test]
    fn invalid_tool_name() {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exit")))
            .replace("name: t\n", "name: \"my tool\"\n");
        assert_eq!(one_error(&src).2, "invalid tool name `my tool`");
    }

    #[test]
    fn unused_server_is_a_warning() {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exit")));
        let (_, warnings) = crate::load_str_with_warnings(&src, "g.yaml").unwrap();
        assert_eq!(warnings.items.len(), 1);
        assert_eq!(warnings.items[0].severity, Severity::Warning);
        assert_eq!(
            warnings.items[0].message,
            "server `fs` is declared but no node calls it"
        );
        assert_eq!(
            (warnings.items[0].pos.line, warnings.items[0].pos.column),
            (6, 3)
        );
        assert!(
            warnings
                .to_string()
                .starts_with("warning[unused_server]: server `fs`")
        );
    }

    #[test]
    fn load_file_reports_the_absolute_path() {
        let d = crate::load_file(std::path::Path::new("no/such/graph.yaml")).unwrap_err();
        let text = d.to_string();
        let abs = std::env::current_dir().unwrap().join("no/such/graph.yaml");
        assert!(text.contains(&format!("`{}`", abs.display())), "{text}");
        assert_eq!(d.error_count(), 1);
        let path = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/mcpgraph/test_minimal.yaml"
        ));
        let (file, source) = crate::load_file(path).unwrap();
        assert_eq!(file.server.name.value, "testMinimal");
        assert!(source.contains("testMinimal"));
    }

    #[test]
    fn everything_at_once() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{EXIT}",
            transform("a", "$.nope", "b"),
            transform("b", "1 +* 2", "exti")
        ))
        .replace("description: d", "descripton: d")
        .replace("server:\n  name: s", "server:\n  nme: s");
        let errs = errors(&src);
        assert_eq!(errs.len(), 5, "{errs:#?}");
    }
}
