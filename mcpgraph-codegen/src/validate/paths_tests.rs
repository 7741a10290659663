use serde_json::json;

use crate::diag::{Diagnostic, Severity, UNKNOWN_INPUT_FIELD};
use crate::lock::Lock;
use crate::lock::check::UNKNOWN_OUTPUT_FIELD;

/// A lock of server `fs` with `stat` (an output schema with an open top
/// level and closed `entries` items), `closed` (a closed output schema)
/// and `bare` (no output schema).
fn lock() -> Lock {
    Lock::from_json(
        &json!({
            "lockVersion": 1,
            "servers": { "fs": { "serverInfo": {}, "protocolVersion": "p", "tools": {
                "stat": { "inputSchema": { "type": "object" },
                    "outputSchema": { "type": "object", "properties": {
                        "size": { "type": "number" },
                        "entries": { "type": "array", "items": { "type": "object",
                            "additionalProperties": false,
                            "properties": { "name": { "type": "string" } } } } } } },
                "closed": { "inputSchema": { "type": "object" },
                    "outputSchema": { "type": "object", "additionalProperties": false,
                        "properties": { "content": { "type": "string" } } } },
                "bare": { "inputSchema": { "type": "object" } }
            } } }
        })
        .to_string(),
    )
    .unwrap()
}

/// Every diagnostic of a file with server `fs` and the tools `t` (whose
/// input schema is `schema` and whose nodes are `nodes`) and `notes` (a
/// tool of the graph with a closed `outputSchema`), validated with `lock`.
fn all(schema: &str, nodes: &str, lock: Option<&Lock>) -> Vec<Diagnostic> {
    let src = format!(
        r#"version: "1.0"
server: {{ name: s, version: "1.0" }}
mcpServers:
  fs: {{ command: fs }}
tools:
  - name: notes
    description: d
    inputSchema: {{ type: object }}
    outputSchema: {{ type: object, properties: {{ content: {{ type: string }} }}, additionalProperties: false }}
    nodes:
      - {{ id: entry, type: entry, next: make }}
      - {{ id: make, type: transform, transform: {{ expr: '{{ "content": "" }}' }}, next: exit }}
      - {{ id: exit, type: exit }}
  - name: t
    description: d
    inputSchema: {schema}
    nodes:
      - {{ id: entry, type: entry, next: a }}
{nodes}      - {{ id: exit, type: exit }}
"#
    );
    let (_, diags) = crate::load_lowered(&src, "g.yaml", lock.map(|l| (l, "g.lock.json")));
    // Not every case calls the declared server.
    diags
        .items
        .into_iter()
        .filter(|d| d.message != "server `fs` is declared but no node calls it")
        .collect()
}

/// The errors and warnings of [`all`], as `(line, column, message, lint)`.
fn findings(
    schema: &str,
    nodes: &str,
    lock: Option<&Lock>,
) -> Vec<(u32, u32, String, Option<&'static str>)> {
    all(schema, nodes, lock)
        .into_iter()
        .filter(|d| d.severity != Severity::Note)
        .map(|d| (d.pos.line, d.pos.column, d.message, d.lint))
        .collect()
}

fn notes(schema: &str, nodes: &str, lock: Option<&Lock>) -> Vec<String> {
    all(schema, nodes, lock)
        .into_iter()
        .filter(|d| d.severity == Severity::Note)
        .map(|d| d.message)
        .collect()
}

const OBJECT: &str = "{ type: object }";

/// A transform `b` reading `expr`, after node `a` (given), to the exit.
fn reading(a: &str, expr: &str) -> String {
    format!(
        "      - {{ {a}, next: b }}\n      - {{ id: b, type: transform, transform: {{ expr: '{expr}' }}, next: exit }}\n"
    )
}

#[test]
fn paths_into_an_mcp_output_by_the_lock() {
    let lock = lock();
    let nodes = reading(
        "id: a, type: mcp, server: fs, tool: stat, onError: b",
        "$.a.size & $.a.sise & $.a.entries.nme & $.a.error.kind",
    );
    let got = findings(OBJECT, &nodes, Some(&lock));
    assert_eq!(
        got,
        [
            (
                20,
                70,
                "`a.sise`: the output of `a` (a call to `stat`) has no field `sise`".to_owned(),
                Some(UNKNOWN_OUTPUT_FIELD)
            ),
            (
                20,
                89,
                "`a.entries.nme`: the output of `a` (a call to `stat`) has no field `nme`"
                    .to_owned(),
                None
            ),
        ]
    );
    // Without the lock nothing is known, and a note says why.
    assert_eq!(findings(OBJECT, &nodes, None), []);
    assert_eq!(
        notes(OBJECT, &nodes, None),
        [
            "the paths into the output of `a` are not checked: the output of `fs`/`stat` is known from its `outputSchema` in a lock, and there is none (`mcpgraph lock` writes it)"
        ]
    );
    // With it, no note: those paths are checked.
    assert_eq!(notes(OBJECT, &nodes, Some(&lock)), Vec::<String>::new());
    let bare = reading("id: a, type: mcp, server: fs, tool: bare", "$.a.x");
    assert_eq!(
        notes(OBJECT, &bare, Some(&lock)),
        [
            "the paths into the output of `a` are not checked: the lock records no `outputSchema` for `fs`/`bare`"
        ]
    );
}

#[test]
fn paths_into_parallel_branches() {
    let lock = lock();
    let nodes = reading(
        "id: a, type: parallel, branches: { s: { server: fs, tool: closed }, n: { tool: notes }, u: { server: fs, tool: bare } }",
        "$.a.s.contnt & $.a.n.cont & $.a.u.anything & $.a.v & $.a.error",
    );
    let got: Vec<(String, Option<&str>)> = findings(OBJECT, &nodes, Some(&lock))
        .into_iter()
        .map(|(_, _, m, l)| (m, l))
        .collect();
    assert_eq!(
        got,
        [
            (
                "`a.s.contnt`: the output of `a.s` (a call to `closed`) has no field `contnt`"
                    .to_owned(),
                None
            ),
            (
                "`a.n.cont`: the output of `a.n` (a call to `notes`) has no field `cont`"
                    .to_owned(),
                None
            ),
            ("`a.v`: `a` cannot have a field `v`".to_owned(), None),
            (
                "`a.error`: `a` cannot have a field `error`".to_owned(),
                None
            ),
        ]
    );
    // `onError`: `$.a.error` is its failure.
    let nodes = reading(
        "id: a, type: parallel, branches: { n: { tool: notes }, u: { server: fs, tool: bare } }, onError: b",
        "$.a.error.kind & $.a.n.content",
    );
    assert_eq!(findings(OBJECT, &nodes, None), []);
}

#[test]
fn paths_into_for_each_outputs_and_items() {
    let schema = "{ type: object, properties: { files: { type: array, items: { type: object, properties: { path: { type: string } } } } } }";
    let nodes = reading(
        "id: a, type: forEach, items: { expr: '$.entry.files' }, call: { tool: notes, args: { p: { expr: '$.item.pth & $.item.path & $.index' } } }",
        "$.a.content & $.a.contnt",
    );
    let got = findings(schema, &nodes, None);
    let got: Vec<(String, Option<&str>)> = got.into_iter().map(|(_, _, m, l)| (m, l)).collect();
    assert_eq!(
        got,
        [
            (
                "`item.pth`: `item` cannot have a field `pth`".to_owned(),
                Some(UNKNOWN_INPUT_FIELD)
            ),
            (
                "`a.contnt`: the output of `a` (a call to `notes`) has no field `contnt`"
                    .to_owned(),
                None
            ),
        ]
    );
    // Items that are not a plain path into a known shape say nothing of
    // `$.item`; a node named `item` is shadowed there.
    let nodes = reading(
        "id: a, type: forEach, items: { expr: '$append([], $.entry.files)' }, call: { server: fs, tool: stat, args: { p: { expr: '$.item.pth' } } }",
        "$.a.x",
    );
    assert_eq!(findings(schema, &nodes, None), []);
    let lock = lock();
    let nodes = reading(
        "id: a, type: forEach, items: { expr: '$.entry.files.path' }, call: { server: fs, tool: stat, args: { p: { expr: '$.item.x' } } }",
        "$.a.entries.name & $.a.sise",
    );
    let got: Vec<String> = findings(schema, &nodes, Some(&lock))
        .into_iter()
        .map(|(_, _, m, _)| m)
        .collect();
    assert_eq!(
        got,
        ["`a.sise`: the output of `a` (a call to `stat`) has no field `sise`"]
    );
}

#[test]
fn paths_into_an_elicit_answer() {
    let nodes = reading(
        "id: a, type: elicit, message: Zone?, requestedSchema: { type: object, properties: { timezone: { type: string } } }, routes: { accept: b, decline: b }",
        "$.a.timezone & $.a.timezon",
    )
    .replace(", next: b }", " }");
    let got = findings(OBJECT, &nodes, None);
    assert_eq!(
        got,
        [(
            20,
            74,
            "`a.timezon`: the answer to `a` (its `requestedSchema`) has no field `timezon`"
                .to_owned(),
            None
        )]
    );
    let d = all(OBJECT, &nodes, None);
    assert_eq!(d[0].help.as_deref(), Some("did you mean `timezone`?"));
    assert_eq!(
        d[0].notes,
        ["its fields, by its requestedSchema: timezone".to_owned()]
    );
}

/// A path misspelt on the second line of a block scalar, in every style,
/// is reported at the typo: into the arguments (no lock), and into a
/// locked tool's output.
#[test]
fn positions_inside_block_scalars() {
    let lock = lock();
    let schema =
        "{ type: object, properties: { dir: { type: string } }, additionalProperties: false }";
    for header in [">-", ">", "|", "|-", "|+", ">2", "|2-", ">-2"] {
        let nodes = format!(
            "      - {{ id: a, type: mcp, server: fs, tool: closed, next: b }}\n      - id: b\n        type: transform\n        transform:\n          expr: {header}\n            $.entry.dir &\n              $.a.contnet & $.entry.dri\n        next: exit\n"
        );
        let got: Vec<(u32, u32, String)> = findings(schema, &nodes, Some(&lock))
            .into_iter()
            .map(|(l, c, m, _)| (l, c, m))
            .collect();
        assert_eq!(
            got,
            [
                (
                    25,
                    19,
                    "`a.contnet`: the output of `a` (a call to `closed`) has no field `contnet`"
                        .to_owned()
                ),
                (
                    25,
                    37,
                    "`entry.dri`: the tool's arguments (its `inputSchema`) cannot have a field `dri`"
                        .to_owned()
                ),
            ],
            "{header}"
        );
    }
}
