//! Small files on the edges of the format: the schema accepts exactly those
//! the generator loads. Each test is a table of `(what, file, valid)` rows,
//! each file an edit of [`BASE`].

mod file;
mod nodes;
mod tools;

use super::{schema_errors, to_json, validator};

/// A small valid graph; the cases below edit it.
const BASE: &str = r#"version: "1"
server: {name: s, version: "1"}
mcpServers:
  fs: {command: npx}
tools:
  - name: t
    description: d
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: a}
      - {id: a, type: mcp, server: fs, tool: x, next: exit}
      - {id: exit, type: exit}
"#;

/// `BASE` with its node `a` replaced by `node`.
fn with_node(node: &str) -> String {
    BASE.replace("{id: a, type: mcp, server: fs, tool: x, next: exit}", node)
}

/// `BASE` with `from` replaced by `to` (which must occur).
fn edit(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

/// `BASE` with node `a` a switch whose one condition has rule `rule`.
fn switch(rule: &str) -> String {
    with_node(&format!(
        "{{id: a, type: switch, conditions: [{{rule: {rule}, next: exit}}], next: exit}}"
    ))
}

/// `BASE` with node `a` calling the server with `args`.
fn mcp_args(args: &str) -> String {
    with_node(&format!(
        "{{id: a, type: mcp, server: fs, tool: x, args: {args}, next: exit}}"
    ))
}

/// Checks that the schema and the generator both accept the files marked
/// valid and both refuse the others.
fn agree(cases: Vec<(&str, String, bool)>) {
    let validator = validator();
    let mut failures = String::new();
    for (what, text, valid) in &cases {
        let loaded = mcpgraph_codegen::load_str(text, "case.yaml");
        let instance = to_json(text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        let errors = schema_errors(&validator, &instance);
        if loaded.is_ok() != *valid {
            failures.push_str(&format!(
                "{what}: the generator {} it (the table is wrong):\n{}\n{text}\n",
                if loaded.is_ok() { "accepts" } else { "refuses" },
                loaded.err().map(|d| d.to_string()).unwrap_or_default()
            ));
        }
        if errors.is_empty() != *valid {
            failures.push_str(&format!(
                "{what}: the schema {} it:\n{errors}{text}\n",
                if errors.is_empty() {
                    "accepts"
                } else {
                    "refuses"
                }
            ));
        }
    }
    assert!(failures.is_empty(), "{failures}");
}
