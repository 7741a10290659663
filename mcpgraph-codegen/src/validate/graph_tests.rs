use crate::test_support::load_errors;
use crate::test_support::{ENTRY, EXIT, errors, one_error, transform, with_nodes};

#[test]
fn duplicate_node_ids() {
    let src = with_nodes(&format!(
        "{ENTRY}{}{}{EXIT}",
        transform("a", "1", "exit"),
        transform("a", "2", "exit")
    ));
    let (line, col, msg) = one_error(&src);
    assert_eq!(msg, "duplicate node id `a` in tool `t`");
    assert_eq!((line, col), (21, 13));
}

/// A repeated `exit` (or `entry`) is one problem, the duplicate id,
/// not also a second exit.
#[test]
fn a_duplicate_exit_is_reported_once() {
    let src = with_nodes(&format!(
        "{ENTRY}{}{EXIT}{EXIT}",
        transform("a", "1", "exit")
    ));
    let errs = errors(&src);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].2, "duplicate node id `exit` in tool `t`");
    let src = with_nodes(&format!(
        "{ENTRY}{ENTRY}{}{EXIT}",
        transform("a", "1", "exit")
    ));
    let errs = errors(&src);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].2, "duplicate node id `entry` in tool `t`");
}

#[test]
fn entry_and_exit_counts() {
    let src = with_nodes(&format!("{ENTRY}{}", transform("a", "1", "entry")));
    assert_eq!(one_error(&src).2, "tool `t` has no `exit` node");
    let src = with_nodes(&format!(
        "{ENTRY}{}{EXIT}      - id: exit2\n        type: exit\n",
        transform("a", "1", "exit")
    ));
    let errs = errors(&src);
    assert!(
        errs.iter()
            .any(|e| e.2 == "tool `t` has more than one `exit` node"),
        "{errs:?}"
    );
}

#[test]
fn unknown_next_target() {
    let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exti")));
    let d = load_errors(&src);
    assert_eq!(d.items.len(), 1, "{d}");
    let item = &d.items[0];
    assert_eq!(
        item.message,
        "`next` names `exti`, which is not a node of tool `t`"
    );
    assert_eq!(item.help.as_deref(), Some("did you mean `exit`?"));
    assert_eq!(item.notes, ["the nodes of tool `t` are: entry, a, exit"]);
    assert_eq!((item.pos.line, item.pos.column), (20, 15));
}

#[test]
fn unknown_switch_target() {
    let src = with_nodes(&format!(
        "{ENTRY}      - id: a\n        type: switch\n        conditions:\n          - rule: {{\"==\": [1, 1]}}\n            next: nowhere\n        next: exit\n{EXIT}"
    ));
    let (line, col, msg) = one_error(&src);
    assert_eq!(
        msg,
        "`next` names `nowhere`, which is not a node of tool `t`"
    );
    assert_eq!((line, col), (20, 19));
}

#[test]
fn undeclared_server() {
    let src = with_nodes(&format!(
        "{ENTRY}      - id: a\n        type: mcp\n        server: fss\n        tool: x\n        next: exit\n{EXIT}"
    ));
    let d = load_errors(&src);
    assert_eq!(d.items.len(), 1, "{d}");
    assert_eq!(
        d.items[0].message,
        "node `a` calls server `fss`, which is not declared in `mcpServers`"
    );
    assert_eq!(d.items[0].help.as_deref(), Some("did you mean `fs`?"));
}

#[test]
fn unreachable_exit_and_nodes() {
    let src = with_nodes(&format!(
        "{ENTRY}{}{}{EXIT}",
        transform("a", "1", "a"),
        transform("b", "1", "exit")
    ));
    let errs = errors(&src);
    let msgs: Vec<&str> = errs.iter().map(|e| e.2.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "node `b` of tool `t` is not reachable from the entry node `entry`",
            "the exit node `exit` of tool `t` is not reachable from the entry node `entry`",
        ]
    );
}

#[test]
fn loops_are_fine() {
    let src = with_nodes(&format!(
        "{ENTRY}{}      - id: sw\n        type: switch\n        conditions:\n          - rule: {{\"<\": [{{var: \"$.a\"}}, 3]}}\n            next: a\n        next: exit\n{EXIT}",
        transform("a", "$.a + 1", "sw")
    ));
    assert_eq!(errors(&src), vec![]);
}

#[test]
fn broken_nodes_still_count_as_existing() {
    // `a` has an unknown type: one error, and `next: a` is not also
    // reported, nor reachability.
    let src = with_nodes(&format!(
        "{ENTRY}      - id: a\n        type: tranform\n        next: exit\n{EXIT}"
    ));
    let (_, _, msg) = one_error(&src);
    assert!(msg.starts_with("unknown node type `tranform`"), "{msg}");
}

/// A call of a graph tool may leave out a `required` argument that has a
/// `default` (it is filled in); one without a default is still an error.
#[test]
fn a_required_argument_with_a_default_may_be_left_out() {
    let src = |schema: &str| {
        format!(
            "version: '1'\nserver: {{name: s, version: '1'}}\ntools:\n  - name: outer\n    description: d\n    inputSchema: {{type: object}}\n    nodes:\n      - {{id: entry, type: entry, next: both}}\n      - id: both\n        type: parallel\n        branches:\n          a: {{ tool: inner, args: {{}} }}\n        next: exit\n      - {{id: exit, type: exit}}\n  - name: inner\n    description: d\n    inputSchema: {schema}\n    nodes:\n      - {{id: entry, type: entry, next: exit}}\n      - {{id: exit, type: exit}}\n"
        )
    };
    let defaulted = "{type: object, properties: {n: {type: integer, default: 3}}, required: [n]}";
    assert_eq!(errors(&src(defaulted)), []);
    let bare = "{type: object, properties: {n: {type: integer}}, required: [n]}";
    let found = errors(&src(bare));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].2.contains("lacks its required argument `n`"),
        "{found:?}"
    );
}

/// Line, column, message, lint, help.
type Finding<'a> = (u32, u32, &'a str, Option<&'a str>, Option<&'a str>);

/// A call of a graph tool: its literals are checked against the whole
/// property schema (not only its `type`), an argument a closed schema does
/// not list is an error, and one an open schema does not list a warning
/// (`unknown_argument`), each naming the node and the branch or item call.
#[test]
fn graph_tool_calls_are_checked_like_downstream_calls() {
    let src = r#"version: "1"
server: { name: s, version: "1" }
tools:
  - name: outer
    description: d
    inputSchema: { type: object }
    nodes:
      - { id: entry, type: entry, next: both }
      - id: both
        type: parallel
        branches:
          a: { tool: closed, args: { n: 0, extra: 1 } }
        next: each
      - id: each
        type: forEach
        items: { expr: "[1]" }
        call: { tool: open, args: { n: { expr: "$.item" }, nn: 2 } }
        next: exit
      - { id: exit, type: exit }
  - name: closed
    description: d
    inputSchema: { type: object, additionalProperties: false, properties: { n: { type: integer, minimum: 1 } } }
    nodes:
      - { id: entry, type: entry, next: exit }
      - { id: exit, type: exit }
  - name: open
    description: d
    inputSchema: { type: object, properties: { n: { type: integer } } }
    nodes:
      - { id: entry, type: entry, next: exit }
      - { id: exit, type: exit }
"#;
    let diags = crate::load_str(src, "g.yaml").unwrap_err();
    let got: Vec<Finding<'_>> = diags
        .items
        .iter()
        .map(|d| {
            (
                d.pos.line,
                d.pos.column,
                d.message.as_str(),
                d.lint,
                d.help.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                12,
                38,
                "node `both`, branch `a`: argument `n` of `closed`: 0 is less than the minimum of 1",
                None,
                None
            ),
            (
                12,
                44,
                "node `both`, branch `a`: `closed` has no argument `extra`",
                None,
                None
            ),
            (
                17,
                60,
                "node `each`, item call: `open` has no argument `nn`",
                Some(crate::call_args::UNKNOWN_ARGUMENT),
                Some("did you mean `n`?")
            ),
        ]
    );
}
