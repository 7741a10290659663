//! `docs/mcpgraph.schema.json`, the JSON Schema of the graph file format,
//! agrees with the generator: every valid graph of the repository matches
//! it, the UI cases whose error is one of shape do not, and a table of small
//! files is accepted or refused by the schema exactly as by `load_str`.
//!
//! YAML is read as the generator reads it (YAML 1.2 booleans, the first of
//! duplicate keys) and checked as JSON.

use std::path::{Path, PathBuf};

use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// UI cases (`mcpgraph/tests/ui/*.yaml`) the schema must refuse: their
/// error is one of shape (an unknown key or node type, a wrong type, a
/// missing field, a malformed `{expr}` or JSON Logic object, a bad tool name
/// or schema, a tool without exactly one entry or exit).
const SCHEMA_REJECTS: &[&str] = &[
    "empty_file.yaml",
    "expr_not_a_string.yaml",
    "expr_with_other_keys.yaml",
    "five_errors.yaml",
    "input_schema_not_object.yaml",
    "invalid_tool_name.yaml",
    "json_schema_unknown_type.yaml",
    "limits_not_positive.yaml",
    "logic_two_operators.yaml",
    "logic_unknown_operator.yaml",
    "logic_var_not_string.yaml",
    "misplaced_field.yaml",
    "missing_fields.yaml",
    "no_entry_node.yaml",
    "not_a_mapping.yaml",
    "two_exit_nodes.yaml",
    "unknown_key_node.yaml",
    "unknown_key_server.yaml",
    "unknown_key_tool.yaml",
    "unknown_key_top.yaml",
    "unknown_node_type.yaml",
    "unknown_server_type.yaml",
    "wrong_type_next.yaml",
    "wrong_type_nodes.yaml",
    "wrong_type_version.yaml",
    "yaml_truncated.yaml",
];

/// Why a UI case's error is out of the schema's sight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blind {
    /// A rule between values (references, uniqueness, reachability) or
    /// inside a string (JSONata syntax, the node ids an expression reads):
    /// the file must match the schema.
    Semantic,
    /// The file is not one YAML document of JSON values (syntax, encoding,
    /// nesting depth, several documents): there is nothing for a schema to
    /// check, and it is not checked.
    Yaml,
}

/// UI cases the schema cannot see the error of.
const SCHEMA_CANNOT_SEE: &[(&str, Blind)] = &[
    // Lost when YAML becomes JSON (the generator reports the second key).
    ("duplicate_key.yaml", Blind::Semantic),
    ("duplicate_node_ids.yaml", Blind::Semantic),
    ("duplicate_tool_names.yaml", Blind::Semantic),
    ("exit_unreachable.yaml", Blind::Semantic),
    ("jsonata_block_scalar.yaml", Blind::Semantic),
    ("jsonata_double_quoted_escapes.yaml", Blind::Semantic),
    ("jsonata_folded_block.yaml", Blind::Semantic),
    ("jsonata_in_mcp_arg.yaml", Blind::Semantic),
    ("jsonata_in_switch_var.yaml", Blind::Semantic),
    ("jsonata_plain_multiline.yaml", Blind::Semantic),
    ("jsonata_s0101_unclosed_string.yaml", Blind::Semantic),
    ("jsonata_s0102_number_out_of_range.yaml", Blind::Semantic),
    ("jsonata_s0103_unknown_escape.yaml", Blind::Semantic),
    ("jsonata_s0105_unclosed_backtick.yaml", Blind::Semantic),
    ("jsonata_s0202_expected.yaml", Blind::Semantic),
    ("jsonata_s0203_unexpected_end.yaml", Blind::Semantic),
    ("jsonata_s0204_unknown_operator.yaml", Blind::Semantic),
    ("jsonata_s0212_index.yaml", Blind::Semantic),
    ("jsonata_s0212_name.yaml", Blind::Semantic),
    ("jsonata_s0212_number.yaml", Blind::Semantic),
    ("jsonata_single_quoted.yaml", Blind::Semantic),
    ("reference_before_run.yaml", Blind::Semantic),
    ("reference_before_run_itself.yaml", Blind::Semantic),
    ("reference_unknown_bare.yaml", Blind::Semantic),
    ("reference_unknown_history.yaml", Blind::Semantic),
    ("reference_unknown_path.yaml", Blind::Semantic),
    ("skeleton_keeps_tool_items.yaml", Blind::Semantic),
    ("undeclared_server.yaml", Blind::Semantic),
    ("unknown_next.yaml", Blind::Semantic),
    ("unknown_switch_target.yaml", Blind::Semantic),
    ("unreachable_node.yaml", Blind::Semantic),
    ("not_utf8.yaml", Blind::Yaml),
    ("yaml_syntax.yaml", Blind::Yaml),
    // Its `properties` is also a sequence, which the schema would refuse;
    // the generator stops at the depth.
    ("yaml_too_deep.yaml", Blind::Yaml),
    ("yaml_two_documents.yaml", Blind::Yaml),
];

/// Graphs in mcpGraph's (TypeScript) dialect, which differs from ours
/// (`target` for a switch's `next`, a default condition without `rule`,
/// `args` strings as expressions): both the generator and the schema
/// refuse them.
const OTHER_DIALECT: &[&str] = &["bench/graphs/bench.mcpgraph.yaml"];

fn schema() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/mcpgraph.schema.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn validator() -> jsonschema::Validator {
    let schema = schema();
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("the schema: {e}"))
}

/// The YAML text as JSON, read as the generator reads it.
fn to_json(text: &str) -> Result<Value, serde_saphyr::Error> {
    let mut options = serde_saphyr::Options::default();
    // YAML 1.2: `yes`, `no`, `on`, `off` are strings.
    options.strict_booleans = true;
    // The generator reports later duplicates and keeps the first.
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::FirstWins;
    serde_saphyr::from_str_with_options(text, options)
}

/// The schema's errors for `instance`, one per line (empty when it matches).
fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> String {
    validator
        .iter_errors(instance)
        .map(|e| format!("  {}: {e}\n", e.instance_path()))
        .collect()
}

/// The `*.yaml` files directly in `dir` (relative to the repository root),
/// sorted.
fn yaml_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(ROOT).join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

fn relative(path: &Path) -> String {
    let root = std::fs::canonicalize(ROOT).unwrap();
    let path = std::fs::canonicalize(path).unwrap();
    path.strip_prefix(&root).unwrap().display().to_string()
}

/// Every valid graph of the repository: `examples/*/*.yaml` (the data
/// folders, such as `examples/file_utils/counting/`, are one level deeper),
/// `tests/graphs/`, `bench/graphs/` (but the other dialect), the UI passes,
/// and the upstream copies in `testdata/mcpgraph/`.
fn valid_graphs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let examples = Path::new(ROOT).join("examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        files.extend(yaml_files(&relative(&dir)));
    }
    for dir in [
        "tests/graphs",
        "bench/graphs",
        "mcpgraph/tests/ui/pass",
        "testdata/mcpgraph",
    ] {
        files.extend(yaml_files(dir));
    }
    files.retain(|f| !OTHER_DIALECT.contains(&relative(f).as_str()));
    files
}

#[test]
fn the_schema_is_valid_draft_2020_12() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("the schema does not match its meta-schema: {e}");
    }
    validator();
}

/// Editors show descriptions: every property the schema declares has one
/// (the matchers of `if` and `contains` are not shown and need none).
#[test]
fn every_property_has_a_description() {
    /// Walks a (sub)schema; `path` is its JSON Pointer.
    fn walk(schema: &Value, path: &str, missing: &mut Vec<String>) {
        let Value::Object(map) = schema else {
            return;
        };
        for (key, value) in map {
            let here = format!("{path}/{key}");
            match (key.as_str(), value) {
                ("properties" | "$defs", Value::Object(subs)) => {
                    for (name, sub) in subs {
                        if key == "properties" && sub.get("description").is_none() {
                            missing.push(format!("{here}/{name}"));
                        }
                        walk(sub, &format!("{here}/{name}"), missing);
                    }
                }
                ("allOf" | "anyOf" | "oneOf", Value::Array(subs)) => {
                    for (i, sub) in subs.iter().enumerate() {
                        walk(sub, &format!("{here}/{i}"), missing);
                    }
                }
                ("items" | "additionalProperties" | "then" | "else" | "not", sub) => {
                    walk(sub, &here, missing);
                }
                // `if` and `contains` only match; other keywords hold data.
                _ => {}
            }
        }
    }
    let mut missing = Vec::new();
    walk(&schema(), "#", &mut missing);
    assert!(
        missing.is_empty(),
        "properties without a description:\n{}",
        missing.join("\n")
    );
}

#[test]
fn valid_graphs_match() {
    let validator = validator();
    let files = valid_graphs();
    // The examples, the end-to-end graphs, the benchmark and the copies.
    assert!(files.len() >= 15, "too few graphs found: {files:?}");
    let mut failures = String::new();
    for file in &files {
        let name = relative(file);
        let text = std::fs::read_to_string(file).unwrap();
        if let Err(d) = mcpgraph_codegen::load_str(&text, &name) {
            failures.push_str(&format!("{name} is not a valid graph:\n{d}\n"));
            continue;
        }
        let instance = to_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let errors = schema_errors(&validator, &instance);
        if !errors.is_empty() {
            failures.push_str(&format!("{name} does not match the schema:\n{errors}"));
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn other_dialect_is_refused() {
    let validator = validator();
    for name in OTHER_DIALECT {
        let text = std::fs::read_to_string(Path::new(ROOT).join(name)).unwrap();
        assert!(
            mcpgraph_codegen::load_str(&text, name).is_err(),
            "{name} loads"
        );
        let instance = to_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!validator.is_valid(&instance), "{name} matches the schema");
    }
}

#[test]
fn ui_cases_are_classified() {
    let validator = validator();
    let files = yaml_files("mcpgraph/tests/ui");
    assert!(!files.is_empty());
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    let mut failures = String::new();
    for name in &names {
        let rejects = SCHEMA_REJECTS.contains(&name.as_str());
        let blind = SCHEMA_CANNOT_SEE.iter().find(|(n, _)| n == name);
        match (rejects, blind) {
            (false, None) => failures.push_str(&format!(
                "{name}: a new UI case: add it to SCHEMA_REJECTS (the schema must refuse it) or SCHEMA_CANNOT_SEE\n"
            )),
            (true, Some(_)) => {
                failures.push_str(&format!("{name}: in both SCHEMA_REJECTS and SCHEMA_CANNOT_SEE\n"))
            }
            _ => {}
        }
    }
    for listed in SCHEMA_REJECTS
        .iter()
        .copied()
        .chain(SCHEMA_CANNOT_SEE.iter().map(|(n, _)| *n))
    {
        if !names.iter().any(|n| n == listed) {
            failures.push_str(&format!("{listed}: listed, but there is no such UI case\n"));
        }
    }

    let ui = Path::new(ROOT).join("mcpgraph/tests/ui");
    for name in SCHEMA_REJECTS {
        let Ok(text) = std::fs::read_to_string(ui.join(name)) else {
            continue;
        };
        assert!(
            mcpgraph_codegen::load_str(&text, name).is_err(),
            "{name} loads"
        );
        match to_json(&text) {
            Err(e) => failures.push_str(&format!("{name}: not readable as JSON: {e}\n")),
            Ok(instance) => {
                if validator.is_valid(&instance) {
                    failures.push_str(&format!("{name}: matches the schema, but should not\n"));
                }
            }
        }
    }
    for (name, blind) in SCHEMA_CANNOT_SEE {
        if *blind != Blind::Semantic {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(ui.join(name)) else {
            continue;
        };
        match to_json(&text) {
            Err(e) => failures.push_str(&format!("{name}: not readable as JSON: {e}\n")),
            Ok(instance) => {
                let errors = schema_errors(&validator, &instance);
                if !errors.is_empty() {
                    failures.push_str(&format!(
                        "{name}: the schema refuses it, so it belongs in SCHEMA_REJECTS:\n{errors}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

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

/// Small files on the edges of the format: the schema accepts exactly those
/// the generator loads.
#[test]
fn schema_and_generator_agree() {
    let switch = |rule: &str| {
        with_node(&format!(
            "{{id: a, type: switch, conditions: [{{rule: {rule}, next: exit}}], next: exit}}"
        ))
    };
    let mcp_args = |args: &str| {
        with_node(&format!(
            "{{id: a, type: mcp, server: fs, tool: x, args: {args}, next: exit}}"
        ))
    };
    // Everything before `tools:`.
    let head = BASE.split("tools:").next().unwrap();
    let cases: Vec<(&str, String, bool)> = vec![
        ("the base graph", BASE.to_owned(), true),
        // Top level.
        ("no tools", head.to_owned(), true),
        ("tools: null", format!("{head}tools:\n"), true),
        (
            "no mcpServers",
            edit("mcpServers:\n  fs: {command: npx}\n", "").replace(
                "{id: a, type: mcp, server: fs, tool: x, next: exit}",
                "{id: a, type: transform, transform: {expr: '1'}, next: exit}",
            ),
            true,
        ),
        (
            "mcpServers: null",
            edit("mcpServers:\n  fs: {command: npx}\n", "mcpServers:\n").replace(
                "{id: a, type: mcp, server: fs, tool: x, next: exit}",
                "{id: a, type: transform, transform: {expr: '1'}, next: exit}",
            ),
            true,
        ),
        (
            "version is a number",
            edit("version: \"1\"", "version: 1"),
            false,
        ),
        ("no version", edit("version: \"1\"\n", ""), false),
        (
            "no server",
            edit("server: {name: s, version: \"1\"}\n", ""),
            false,
        ),
        (
            "server title and instructions",
            edit(
                "version: \"1\"}",
                "version: \"1\", title: T, instructions: I}",
            ),
            true,
        ),
        (
            "server title is null",
            edit("version: \"1\"}", "version: \"1\", title: null}"),
            false,
        ),
        (
            "unknown server key",
            edit("version: \"1\"}", "version: \"1\", website: w}"),
            false,
        ),
        ("unknown top-level key", format!("{BASE}extra: 1\n"), false),
        ("tools is a mapping", format!("{head}tools: {{}}\n"), false),
        // Limits.
        (
            "all limits",
            format!(
                "{BASE}executionLimits: {{maxNodeExecutions: 1, maxExecutionTimeMs: 2, maxExpressionDepth: 3, maxExpressionTimeMs: 4}}\n"
            ),
            true,
        ),
        (
            "executionLimits: null",
            format!("{BASE}executionLimits:\n"),
            false,
        ),
        (
            "zero limit",
            format!("{BASE}executionLimits: {{maxNodeExecutions: 0}}\n"),
            false,
        ),
        (
            "limit as a string",
            format!("{BASE}executionLimits: {{maxNodeExecutions: '5'}}\n"),
            false,
        ),
        (
            "unknown limit",
            format!("{BASE}executionLimits: {{maxNodes: 5}}\n"),
            false,
        ),
        // Servers.
        (
            "stdio with everything",
            edit(
                "{command: npx}",
                "{type: stdio, command: npx, args: [a, b], cwd: ., env: {A: b}, timeoutMs: 5}",
            ),
            true,
        ),
        (
            "stdio without command",
            edit("{command: npx}", "{args: [a]}"),
            false,
        ),
        (
            "stdio with a url",
            edit("{command: npx}", "{command: npx, url: u}"),
            false,
        ),
        (
            "stdio arg not a string",
            edit("{command: npx}", "{command: npx, args: [1]}"),
            false,
        ),
        (
            "env value not a string",
            edit("{command: npx}", "{command: npx, env: {A: 1}}"),
            false,
        ),
        (
            "env: null",
            edit("{command: npx}", "{command: npx, env: null}"),
            false,
        ),
        (
            "timeoutMs zero",
            edit("{command: npx}", "{command: npx, timeoutMs: 0}"),
            false,
        ),
        (
            "sse",
            edit(
                "{command: npx}",
                "{type: sse, url: u, headers: {H: v}, timeoutMs: 9}",
            ),
            true,
        ),
        (
            "streamableHttp",
            edit("{command: npx}", "{type: streamableHttp, url: u}"),
            true,
        ),
        ("http", edit("{command: npx}", "{type: http, url: u}"), true),
        (
            "streamable-http",
            edit("{command: npx}", "{type: streamable-http, url: u}"),
            true,
        ),
        (
            "http without url",
            edit("{command: npx}", "{type: http}"),
            false,
        ),
        (
            "http with a command",
            edit("{command: npx}", "{type: http, url: u, command: c}"),
            false,
        ),
        (
            "header not a string",
            edit("{command: npx}", "{type: sse, url: u, headers: {H: 1}}"),
            false,
        ),
        (
            "unknown server type",
            edit("{command: npx}", "{type: websocket, url: u}"),
            false,
        ),
        (
            "server type not a string",
            edit("{command: npx}", "{type: 1, command: npx}"),
            false,
        ),
        ("server: null", edit("{command: npx}", "null"), false),
        // Tools.
        (
            "tool name with a dot and dash",
            edit("name: t\n", "name: a.b-c_D9\n"),
            true,
        ),
        (
            "tool name with a space",
            edit("name: t\n", "name: a b\n"),
            false,
        ),
        (
            "tool name too long",
            edit("name: t\n", &format!("name: {}\n", "a".repeat(129))),
            false,
        ),
        (
            "tool name of 128",
            edit("name: t\n", &format!("name: {}\n", "a".repeat(128))),
            true,
        ),
        ("empty tool name", edit("name: t\n", "name: ''\n"), false),
        ("no description", edit("    description: d\n", ""), false),
        (
            "unknown tool key",
            edit("    description: d\n", "    description: d\n    title: T\n"),
            false,
        ),
        (
            "no inputSchema",
            edit("    inputSchema: {type: object}\n", ""),
            false,
        ),
        (
            "outputSchema",
            edit(
                "{type: object}",
                "{type: object}\n    outputSchema: {type: object}",
            ),
            true,
        ),
        (
            "outputSchema not an object",
            edit(
                "{type: object}",
                "{type: object}\n    outputSchema: {type: array}",
            ),
            false,
        ),
        (
            "schema type list at the root",
            edit("{type: object}", "{type: [object]}"),
            false,
        ),
        ("schema as true", edit("{type: object}", "true"), false),
        (
            "no nodes",
            edit(
                "    nodes:\n      - {id: entry, type: entry, next: a}\n      - {id: a, type: mcp, server: fs, tool: x, next: exit}\n      - {id: exit, type: exit}\n",
                "",
            ),
            false,
        ),
        (
            "nodes: []",
            edit(
                "    nodes:\n      - {id: entry, type: entry, next: a}\n      - {id: a, type: mcp, server: fs, tool: x, next: exit}\n      - {id: exit, type: exit}\n",
                "    nodes: []\n",
            ),
            false,
        ),
        // JSON Schema keywords.
        (
            "a rich schema",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {type: [string, 'null'], enum: [x, null]}, b: {type: array, items: {type: integer, minimum: 1}}, c: true, d: {anyOf: [{type: string}, false], not: {const: 1}}}, required: [a], additionalProperties: false, $defs: {x: {type: number}}, minProperties: 1}",
            ),
            true,
        ),
        (
            "unknown nested type",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {type: strng}}}",
            ),
            false,
        ),
        (
            "nested type not a string",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {type: 1}}}",
            ),
            false,
        ),
        (
            "properties is a list",
            edit("{type: object}", "{type: object, properties: [a]}"),
            false,
        ),
        (
            "property schema is a string",
            edit("{type: object}", "{type: object, properties: {a: string}}"),
            false,
        ),
        (
            "items is a list",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {items: [{}]}}}",
            ),
            false,
        ),
        (
            "anyOf is a mapping",
            edit("{type: object}", "{type: object, anyOf: {a: 1}}"),
            false,
        ),
        (
            "required is a string",
            edit("{type: object}", "{type: object, required: a}"),
            false,
        ),
        (
            "required item not a string",
            edit("{type: object}", "{type: object, required: [1]}"),
            false,
        ),
        (
            "enum is a string",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {enum: x}}}",
            ),
            false,
        ),
        (
            "unchecked keywords",
            edit(
                "{type: object}",
                "{type: object, minimum: x, prefixItems: 1, description: 5}",
            ),
            true,
        ),
        // Nodes.
        ("node is a string", with_node("a"), false),
        (
            "node without id",
            with_node("{type: transform, transform: {expr: '1'}, next: exit}"),
            false,
        ),
        (
            "node with empty id",
            with_node("{id: '', type: transform, transform: {expr: '1'}, next: exit}"),
            false,
        ),
        (
            "node id is a number",
            with_node("{id: 1, type: transform, transform: {expr: '1'}, next: exit}"),
            false,
        ),
        ("node without type", with_node("{id: a, next: exit}"), false),
        (
            "unknown node type",
            with_node("{id: a, type: tranform, transform: {expr: '1'}, next: exit}"),
            false,
        ),
        (
            "exit with next",
            edit("{id: exit, type: exit}", "{id: exit, type: exit, next: a}"),
            false,
        ),
        (
            "entry without next",
            edit(
                "{id: entry, type: entry, next: a}",
                "{id: entry, type: entry}",
            ),
            false,
        ),
        (
            "two entries",
            edit(
                "{id: exit, type: exit}",
                "{id: exit, type: exit}\n      - {id: e2, type: entry, next: a}",
            ),
            false,
        ),
        (
            "no exit",
            edit(
                "      - {id: exit, type: exit}\n",
                "      - {id: exit, type: transform, transform: {expr: '1'}, next: a}\n",
            ),
            false,
        ),
        (
            "next is a list",
            with_node("{id: a, type: transform, transform: {expr: '1'}, next: [exit]}"),
            false,
        ),
        (
            "mcp without tool",
            with_node("{id: a, type: mcp, server: fs, next: exit}"),
            false,
        ),
        (
            "mcp without server",
            with_node("{id: a, type: mcp, tool: x, next: exit}"),
            false,
        ),
        (
            "mcp with transform",
            with_node(
                "{id: a, type: mcp, server: fs, tool: x, transform: {expr: '1'}, next: exit}",
            ),
            false,
        ),
        (
            "transform",
            with_node("{id: a, type: transform, transform: {expr: '$.entry'}, next: exit}"),
            true,
        ),
        (
            "transform without transform",
            with_node("{id: a, type: transform, next: exit}"),
            false,
        ),
        (
            "transform: null",
            with_node("{id: a, type: transform, transform: null, next: exit}"),
            false,
        ),
        (
            "transform expr a number",
            with_node("{id: a, type: transform, transform: {expr: 1}, next: exit}"),
            false,
        ),
        (
            "transform with another key",
            with_node(
                "{id: a, type: transform, transform: {expr: '1', lang: jsonata}, next: exit}",
            ),
            false,
        ),
        (
            "transform without expr",
            with_node("{id: a, type: transform, transform: {}, next: exit}"),
            false,
        ),
        // Args.
        ("args: null", mcp_args("null"), true),
        ("args: {}", mcp_args("{}"), true),
        (
            "args nested",
            mcp_args(
                "{a: {expr: '$.entry'}, b: [1, {expr: '2'}, {c: null}], d: '$.entry', e: {f: {g: {expr: '3'}}}}",
            ),
            true,
        ),
        ("args as one expr", mcp_args("{expr: '$.entry'}"), true),
        ("args is a list", mcp_args("[1]"), false),
        ("args is a string", mcp_args("x"), false),
        (
            "expr beside another key",
            mcp_args("{a: {expr: '1', default: 2}}"),
            false,
        ),
        ("expr is a number", mcp_args("{a: {expr: 1}}"), false),
        (
            "expr in a list is a number",
            mcp_args("{a: [{expr: 1}]}"),
            false,
        ),
        ("expr: null", mcp_args("{a: {expr: null}}"), false),
        // Switches.
        ("switch", switch("{'>': [{var: entry.n}, 1]}"), true),
        ("switch rule a scalar", switch("true"), true),
        ("switch rule a list", switch("[1, {var: entry}]"), true),
        (
            "switch with no conditions",
            with_node("{id: a, type: switch, conditions: [], next: exit}"),
            true,
        ),
        (
            "switch without conditions",
            with_node("{id: a, type: switch, next: exit}"),
            false,
        ),
        (
            "switch conditions: null",
            with_node("{id: a, type: switch, conditions: null, next: exit}"),
            false,
        ),
        (
            "condition without next",
            with_node("{id: a, type: switch, conditions: [{rule: true}], next: exit}"),
            false,
        ),
        (
            "condition without rule",
            with_node("{id: a, type: switch, conditions: [{next: exit}], next: exit}"),
            false,
        ),
        (
            "condition with target",
            with_node(
                "{id: a, type: switch, conditions: [{rule: true, target: exit}], next: exit}",
            ),
            false,
        ),
        (
            "every operator",
            switch(
                "{and: [{'==': [1, 1]}, {'===': [1, 1]}, {'!=': [1, 2]}, {'!==': [1, 2]}, {'>': [2, 1]}, {'>=': [1, 1]}, {'<': [1, 2]}, {'<=': [1, 1]}, {'!': false}, {'!!': 1}, {or: [1]}, {'?:': [1, 1, 2]}, {if: [1, 1, 2]}, {in: [a, abc]}, {cat: [a]}, {substr: [ab, 1]}, {'+': [1]}, {'-': [1]}, {'*': [1]}, {'/': [1, 1]}, {'%': [1, 1]}, {max: [1]}, {min: [1]}, {merge: [1]}, {missing: [a]}, {missing_some: [1, [a]]}, {all: [[1], true]}, {some: [[1], true]}, {none: [[1], true]}, {map: [[1], 1]}, {filter: [[1], true]}, {reduce: [[1], 1, 0]}, {log: 1}]}",
            ),
            true,
        ),
        ("unknown operator", switch("{'=<': [1, 2]}"), false),
        ("two operators", switch("{'>': [1, 2], '<': [1, 2]}"), false),
        ("empty object in a rule", switch("{in: [a, {}]}"), false),
        (
            "data object in a rule",
            switch("{'==': [{foo: 1}, 1]}"),
            false,
        ),
        ("var a number", switch("{'==': [{var: 1}, 1]}"), false),
        ("var a list", switch("{'==': [{var: [a, 1]}, 1]}"), false),
        ("var empty", switch("{var: ''}"), false),
        ("var blank", switch("{var: '  '}"), false),
        // YAML 1.2 booleans: `yes` is a string.
        ("yes as a string", edit("name: s,", "name: yes,"), true),
    ];
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
