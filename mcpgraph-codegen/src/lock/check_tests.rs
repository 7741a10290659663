use serde_json::json;

use super::*;
use crate::diag::Severity;

const GRAPH: &str = r#"version: "1.0"
server: { name: "g", version: "1" }
mcpServers:
  fs: { command: "fs" }
  extra: { command: "extra" }
tools:
  - name: "t"
    description: "d"
    inputSchema: { type: object, properties: { dir: { type: number } } }
    nodes:
      - { id: entry, type: entry, next: list }
      - { id: list, type: mcp, server: fs, tool: list_directroy, args: { path: "/" }, next: read }
      - { id: read, type: mcp, server: fs, tool: read_file, args: { head: "ten", tail: 1, path: { expr: "$.entry.dir" } }, next: stat }
      - { id: stat, type: mcp, server: fs, tool: stat, args: { pth: "/" }, next: use }
      - { id: use, type: transform, transform: { expr: '{ "n": $.stat.size, "m": $.stat.mtime, "e": $.stat.entries.nme }' }, next: whole }
      - { id: whole, type: mcp, server: fs, tool: stat, args: { expr: "$.use" }, next: exit }
      - { id: exit, type: exit }
"#;

fn lock() -> Lock {
    Lock::from_json(
        &json!({
            "lockVersion": 1,
            "servers": {
                "fs": { "serverInfo": {}, "protocolVersion": "p", "tools": {
                    "list_directory": { "inputSchema": { "type": "object" } },
                    "read_file": { "inputSchema": { "type": "object", "required": ["path"],
                        "additionalProperties": false,
                        "properties": { "path": { "type": "string" }, "head": { "type": "number" } } } },
                    "stat": {
                        "inputSchema": { "type": "object", "required": ["path"],
                            "properties": { "path": { "type": "string" } } },
                        "outputSchema": { "type": "object", "properties": {
                            "size": { "type": "number" },
                            "entries": { "type": "array", "items": { "type": "object",
                                "additionalProperties": false,
                                "properties": { "name": { "type": "string" } } } } } }
                    }
                } },
                "old": { "serverInfo": {}, "protocolVersion": "p", "tools": {} }
            }
        })
        .to_string(),
    )
    .unwrap()
}

fn findings() -> Vec<(Severity, u32, String, Option<&'static str>)> {
    let (file, _) = crate::load_str_with_warnings(GRAPH, "g.yaml").unwrap();
    let mut diags = Diagnostics::new("g.yaml", GRAPH);
    check(&file, &lock(), "g.lock.json", &mut diags);
    diags.sort();
    diags
        .items
        .into_iter()
        .map(|d| (d.severity, d.pos.line, d.message, d.lint))
        .collect()
}

#[test]
fn each_call_is_checked_against_the_locked_tool() {
    let got = findings();
    let want: Vec<(Severity, u32, &str, Option<&str>)> = vec![
        (
            Severity::Warning,
            0,
            "the lock `g.lock.json` has server `old`, which the graph does not declare",
            Some(LOCK_COVERAGE),
        ),
        (
            Severity::Warning,
            5,
            "server `extra` is not in the lock `g.lock.json`",
            Some(LOCK_COVERAGE),
        ),
        (
            Severity::Error,
            12,
            "server `fs` has no tool `list_directroy`",
            None,
        ),
        (
            Severity::Error,
            13,
            "argument `head` of `read_file`: \"ten\" is not of type \"number\"",
            None,
        ),
        (
            Severity::Error,
            13,
            "`read_file` has no argument `tail`",
            None,
        ),
        (
            Severity::Warning,
            13,
            "argument `path` of `read_file` wants \"string\", and `dir` of this tool's input is \"number\"",
            Some(ARGUMENT_TYPE),
        ),
        (
            Severity::Error,
            14,
            "the call to `stat` lacks its required argument `path`",
            None,
        ),
        (
            Severity::Warning,
            14,
            "`stat` has no argument `pth`",
            Some(UNKNOWN_ARGUMENT),
        ),
        (
            Severity::Note,
            16,
            "the call to `stat` cannot be checked against the lock",
            None,
        ),
    ];
    let got: Vec<(Severity, u32, &str, Option<&str>)> = got
        .iter()
        .map(|(s, l, m, lint)| (*s, *l, m.as_str(), *lint))
        .collect();
    assert_eq!(got, want);
}

/// A missing required argument is reported where it goes: at the `args`
/// key (block or flow style), or at the node when it has no `args`; the
/// help names the argument to add.
#[test]
fn a_missing_argument_is_reported_at_args() {
    let graph = r#"version: "1.0"
server: { name: "g", version: "1" }
mcpServers:
  fs: { command: "fs" }
tools:
  - name: "t"
    description: "d"
    inputSchema: { type: object }
    nodes:
      - { id: entry, type: entry, next: flow }
      - { id: flow, type: mcp, server: fs, tool: stat, args: { pth: "/" }, next: block }
      - id: block
        type: mcp
        server: fs
        tool: stat
        args:
          pth: "/"
        next: bare
      - { id: bare, type: mcp, server: fs, tool: stat, next: exit }
      - { id: exit, type: exit }
"#;
    let (file, _) = crate::load_str_with_warnings(graph, "g.yaml").unwrap();
    let mut diags = Diagnostics::new("g.yaml", graph);
    check(&file, &lock(), "g.lock.json", &mut diags);
    diags.sort();
    let got: Vec<(u32, u32, Option<&str>)> = diags
        .items
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.pos.line, d.pos.column, d.help.as_deref()))
        .collect();
    let help = Some("add `path` to the node's `args`");
    assert_eq!(got, [(11, 56, help), (16, 9, help), (19, 9, help)]);
}

/// `retry` is a warning on a tool the lock does not annotate read-only or
/// idempotent, and nothing on one it does.
#[test]
fn retry_wants_a_read_only_or_idempotent_tool() {
    let graph = r#"version: "1.0"
server: { name: "g", version: "1" }
mcpServers:
  fs: { command: "fs" }
tools:
  - name: "t"
    description: "d"
    inputSchema: { type: object }
    nodes:
      - { id: entry, type: entry, next: write }
      - { id: write, type: mcp, server: fs, tool: write, retry: { attempts: 3 }, onError: read, next: read }
      - { id: read, type: mcp, server: fs, tool: read, retry: { attempts: 3 }, next: put }
      - { id: put, type: mcp, server: fs, tool: put, retry: { attempts: 2 }, next: use }
      - { id: use, type: transform, transform: { expr: '$.write.error.kind' }, next: exit }
      - { id: exit, type: exit }
"#;
    let lock = Lock::from_json(
        &json!({
            "lockVersion": 1,
            "servers": { "fs": { "serverInfo": {}, "protocolVersion": "p", "tools": {
                "write": { "inputSchema": { "type": "object" },
                    "outputSchema": { "type": "object", "additionalProperties": false, "properties": {} },
                    "annotations": { "readOnlyHint": false } },
                "read": { "inputSchema": { "type": "object" }, "annotations": { "readOnlyHint": true } },
                "put": { "inputSchema": { "type": "object" }, "annotations": { "idempotentHint": true } }
            } } }
        })
        .to_string(),
    )
    .unwrap();
    let (file, _) = crate::load_str_with_warnings(graph, "g.yaml").unwrap();
    let mut diags = Diagnostics::new("g.yaml", graph);
    check(&file, &lock, "g.lock.json", &mut diags);
    let got: Vec<(u32, u32, &str, Option<&str>)> = diags
        .items
        .iter()
        .map(|d| (d.pos.line, d.pos.column, d.message.as_str(), d.lint))
        .collect();
    assert_eq!(
        got,
        [(
            11,
            65,
            "`retry` on `fs`/`write`, which its server does not annotate as read-only or idempotent",
            Some(RETRY_NOT_IDEMPOTENT)
        )]
    );
}

/// Severity, line, column, message, lint, help.
type Finding<'a> = (
    Severity,
    u32,
    u32,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
);

/// A `parallel` branch and a `forEach` call of a downstream tool are
/// checked as an `mcp` node's call is, each message naming the node and
/// the branch or item call; `$.item` and `$.index` in an item call are not
/// read as paths into the entry (whose id here is `item`).
#[test]
fn branch_and_item_calls_are_checked_like_nodes() {
    let graph = r#"version: "1.0"
server: { name: "g", version: "1" }
mcpServers:
  fs: { command: "fs" }
tools:
  - name: "t"
    description: "d"
    inputSchema: { type: object, properties: { dir: { type: number }, path: { type: number } } }
    nodes:
      - { id: item, type: entry, next: gather }
      - id: gather
        type: parallel
        branches:
          now: { server: fs, tool: list_directroy, args: { path: "/" } }
          read: { server: fs, tool: read_file, args: { head: "ten", tail: 1, path: { expr: "$.item.dir" } } }
          look: { server: fs, tool: stat, args: { pth: "/" } }
        next: each
      - id: each
        type: forEach
        items: { expr: '["a"]' }
        call: { server: fs, tool: read_file, args: { path: { expr: "$.item.path" }, head: { expr: "$.index" } } }
        next: again
      - id: again
        type: forEach
        items: { expr: '["a"]' }
        call: { server: fs, tool: read_txt_file, args: { path: { expr: "$.item" } } }
        next: exit
      - { id: exit, type: exit }
"#;
    let (file, _) = crate::load_str_with_warnings(graph, "g.yaml").unwrap();
    let mut diags = Diagnostics::new("g.yaml", graph);
    check(&file, &lock(), "g.lock.json", &mut diags);
    diags.sort();
    let got: Vec<Finding<'_>> = diags
        .items
        .iter()
        .map(|d| {
            (
                d.severity,
                d.pos.line,
                d.pos.column,
                d.message.as_str(),
                d.lint,
                d.help.as_deref(),
            )
        })
        .collect();
    let want: Vec<Finding<'_>> = vec![
        (
            Severity::Warning,
            0,
            0,
            "the lock `g.lock.json` has server `old`, which the graph does not declare",
            Some(LOCK_COVERAGE),
            Some("re-run `mcpgraph lock` to drop it"),
        ),
        (
            Severity::Error,
            14,
            36,
            "node `gather`, branch `now`: server `fs` has no tool `list_directroy`",
            None,
            Some("did you mean `list_directory`?"),
        ),
        (
            Severity::Error,
            15,
            56,
            "node `gather`, branch `read`: argument `head` of `read_file`: \"ten\" is not of type \"number\"",
            None,
            None,
        ),
        (
            Severity::Error,
            15,
            69,
            "node `gather`, branch `read`: `read_file` has no argument `tail`",
            None,
            None,
        ),
        (
            Severity::Warning,
            15,
            92,
            "node `gather`, branch `read`: argument `path` of `read_file` wants \"string\", and `dir` of this tool's input is \"number\"",
            Some(ARGUMENT_TYPE),
            None,
        ),
        (
            Severity::Error,
            16,
            43,
            "node `gather`, branch `look`: the call to `stat` lacks its required argument `path`",
            None,
            Some("add `path` to the branch's `args`"),
        ),
        (
            Severity::Warning,
            16,
            51,
            "node `gather`, branch `look`: `stat` has no argument `pth`",
            Some(UNKNOWN_ARGUMENT),
            Some("did you mean `path`?"),
        ),
        (
            Severity::Error,
            26,
            35,
            "node `again`, item call: server `fs` has no tool `read_txt_file`",
            None,
            Some("did you mean `read_file`?"),
        ),
    ];
    assert_eq!(got, want);
}
