//! Helpers shared by the unit tests: small graph files built from node
//! snippets, and their errors and warnings as `(line, column, message)`.

use crate::diag::{Diagnostics, REFERENCE_BEFORE_RUN, Severity};
use crate::model::GraphFile;
use crate::{load_str, load_str_with_warnings};

/// A file with one tool whose `nodes:` are `nodes` (lines indented by
/// six spaces) and one stdio server `fs`.
pub(crate) fn with_nodes(nodes: &str) -> String {
    format!(
        "version: \"1.0\"\nserver:\n  name: s\n  version: \"1.0\"\nmcpServers:\n  fs:\n    command: npx\ntools:\n  - name: t\n    description: d\n    inputSchema: {{type: object}}\n    nodes:\n{nodes}"
    )
}

/// The errors of loading `src`, as `(line, column, message)`.
pub(crate) fn errors(src: &str) -> Vec<(u32, u32, String)> {
    match load_str(src, "g.yaml") {
        Ok(_) => Vec::new(),
        Err(d) => d
            .items
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .map(|i| (i.pos.line, i.pos.column, i.message.clone()))
            .collect(),
    }
}

/// The errors of loading `src` (warnings left out).
pub(crate) fn load_errors(src: &str) -> Diagnostics {
    let mut d = load_str(src, "g.yaml").unwrap_err();
    d.items.retain(|i| i.severity == Severity::Error);
    d
}

/// The only error of loading `src`.
#[track_caller]
pub(crate) fn one_error(src: &str) -> (u32, u32, String) {
    let mut e = errors(src);
    assert_eq!(e.len(), 1, "expected one error, got {e:#?}\n{src}");
    e.remove(0)
}

/// An entry node that goes to `a`, as a line of `nodes:`.
pub(crate) const ENTRY: &str = "      - id: entry\n        type: entry\n        next: a\n";
/// The exit node `exit`.
pub(crate) const EXIT: &str = "      - id: exit\n        type: exit\n";

/// A transform node `id` with expression `expr` (single-quoted), going to
/// `next`.
pub(crate) fn transform(id: &str, expr: &str, next: &str) -> String {
    format!(
        "      - id: {id}\n        type: transform\n        transform:\n          expr: '{expr}'\n        next: {next}\n"
    )
}

/// A switch node `id` whose one condition (always true) goes to `to`, and
/// whose default is `default`.
pub(crate) fn switch(id: &str, to: &str, default: &str) -> String {
    format!(
        "      - id: {id}\n        type: switch\n        conditions:\n          - rule: {{\"==\": [1, 1]}}\n            next: {to}\n        next: {default}\n"
    )
}

/// The warnings of loading `src` (which must have no errors), as
/// `(line, column, message)`.
pub(crate) fn warnings(src: &str) -> Vec<(u32, u32, String)> {
    let (_, w) =
        load_str_with_warnings(src, "g.yaml").unwrap_or_else(|d| panic!("unexpected errors:\n{d}"));
    w.items
        .iter()
        .filter(|d| d.lint == Some(REFERENCE_BEFORE_RUN))
        .map(|d| (d.pos.line, d.pos.column, d.message.clone()))
        .collect()
}

/// The model of `src`, which must load without errors.
pub(crate) fn load(src: &str) -> GraphFile {
    load_str(src, "g.yaml").unwrap_or_else(|d| panic!("{d}"))
}

/// The messages of the errors of loading `src`.
pub(crate) fn messages(src: &str) -> Vec<String> {
    errors(src).into_iter().map(|e| e.2).collect()
}

/// A graph of entry → `a` → exit, where `body` holds the lines of node
/// `a` after its id.
pub(crate) fn a_node(body: &str) -> String {
    with_nodes(&format!("{ENTRY}      - id: a\n{body}{EXIT}"))
}
