//! A graph's test file (`<graph>.test.yaml`, read by `<server> test`):
//! checked at build time like the graph (the tools exist, the arguments fit
//! their `inputSchema`, `expect` says something, `assert` parses, `answers`
//! fit the `elicit` nodes they answer), each problem at its line and
//! column, then embedded in the binary as JSON (`Graph::TESTS`).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value as Json, json};

use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::{GraphFile, Pos};
use crate::suggest::{list, suggest};
use crate::yaml::{Node, Value};

mod answers;

/// The keys of a case.
const CASE_KEYS: &[&str] = &["name", "tool", "args", "answers", "expect"];
/// The keys of `expect`.
const EXPECT_KEYS: &[&str] = &["output", "subset", "assert", "error"];

/// Where the test file of the graph at `path` is: `graph.yaml` →
/// `graph.test.yaml`.
pub fn test_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let stem = [".yaml", ".yml", ".json"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name);
    path.with_file_name(format!("{stem}.test.yaml"))
}

/// Checks the test file's `text` against `graph`; its cases as the JSON
/// the runtime reads (`file`: where it is, for the cassette beside it),
/// or `None` when it has errors (they are in `diags`).
pub fn check(text: &str, file: &str, graph: &GraphFile, diags: &mut Diagnostics) -> Option<String> {
    let root = match crate::yaml::read(text) {
        Ok(root) => root,
        Err(e) => {
            diags.error(codes::YAML_SYNTAX, e.pos, e.message);
            return None;
        }
    };
    let mut cases = Vec::new();
    let Value::Map(entries) = &root.value else {
        diags
            .error(
                codes::WRONG_TYPE,
                root.pos,
                format!(
                    "a test file is a mapping with `cases`, not {}",
                    root.value.kind()
                ),
            )
            .help("write `cases:` followed by a list of cases");
        return None;
    };
    let mut found = false;
    for (key, value) in entries {
        if key.key_text() != "cases" {
            diags
                .error(
                    codes::UNKNOWN_KEY,
                    key.pos,
                    format!("unknown key `{}` in a test file", key.key_text()),
                )
                .help("a test file has only `cases`");
            continue;
        }
        found = true;
        let Value::Seq(items) = &value.value else {
            diags.error(
                codes::WRONG_TYPE,
                value.pos,
                format!("`cases` is a list, not {}", value.value.kind()),
            );
            continue;
        };
        let mut names: Vec<(String, Pos)> = Vec::new();
        for item in items {
            if let Some(case) = check_case(item, graph, &mut names, diags) {
                cases.push(case);
            }
        }
    }
    if !found {
        diags.error(
            codes::MISSING_FIELD,
            root.pos,
            "the test file has no `cases`",
        );
    }
    (diags.error_count() == 0).then(|| json!({ "file": file, "cases": cases }).to_string())
}

fn check_case(
    item: &Node,
    graph: &GraphFile,
    names: &mut Vec<(String, Pos)>,
    diags: &mut Diagnostics,
) -> Option<Json> {
    let Value::Map(entries) = &item.value else {
        diags.error(
            codes::WRONG_TYPE,
            item.pos,
            format!("a case is a mapping, not {}", item.value.kind()),
        );
        return None;
    };
    let get = |name: &str| {
        entries
            .iter()
            .find(|(k, _)| k.key_text() == name)
            .map(|(_, v)| v)
    };
    for (key, _) in entries {
        let text = key.key_text();
        if !CASE_KEYS.contains(&text.as_str()) {
            let d = diags.error(
                codes::UNKNOWN_KEY,
                key.pos,
                format!("unknown key `{text}` in a case"),
            );
            match suggest(&text, CASE_KEYS) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("a case has {}", list(CASE_KEYS))),
            };
        }
    }
    let name = match get("name").map(|n| (&n.value, n.pos)) {
        Some((Value::String(name), pos)) => {
            if let Some((_, first)) = names.iter().find(|(n, _)| n == name) {
                diags
                    .error(
                        codes::DUPLICATE_CASE,
                        pos,
                        format!("a second case named `{name}`"),
                    )
                    .note(format!("the first is at line {}", first.line));
            }
            names.push((name.clone(), pos));
            Some(name.clone())
        }
        Some((other, pos)) => {
            diags.error(
                codes::WRONG_TYPE,
                pos,
                format!("`name` is a string, not {}", other.kind()),
            );
            None
        }
        None => {
            diags.error(codes::MISSING_FIELD, item.pos, "a case needs a `name`");
            None
        }
    };
    let tool = check_tool(get("tool"), item.pos, graph, diags);
    let args = match get("args") {
        None => Some(Map::new()),
        Some(node) => match node.to_json() {
            Json::Object(map) => Some(map),
            other => {
                diags.error(
                    codes::WRONG_TYPE,
                    node.pos,
                    format!("`args` is a mapping, not {}", kind(&other)),
                );
                None
            }
        },
    };
    if let (Some(tool), Some(args), Some(node)) = (&tool, &args, get("args").or(Some(item))) {
        check_args(tool, args, node, diags);
    }
    let answers = get("answers").map(|node| answers::check(node, tool, graph, diags));
    let expect = check_expect(get("expect"), item.pos, diags);
    let (name, tool, args, expect) = (name?, tool?, args?, expect?);
    let line = item.pos.line;
    let mut case = json!({ "name": name, "tool": tool.name.value, "args": args, "expect": expect, "line": line });
    if let Some(answers) = answers {
        case["answers"] = answers?;
    }
    Some(case)
}

fn check_tool<'g>(
    node: Option<&Node>,
    at: Pos,
    graph: &'g GraphFile,
    diags: &mut Diagnostics,
) -> Option<&'g crate::model::Tool> {
    let node = match node {
        Some(node) => node,
        None => {
            diags.error(codes::MISSING_FIELD, at, "a case needs a `tool`");
            return None;
        }
    };
    let Value::String(name) = &node.value else {
        diags.error(
            codes::WRONG_TYPE,
            node.pos,
            format!("`tool` is a string, not {}", node.value.kind()),
        );
        return None;
    };
    let found = graph.tools.iter().find(|t| t.name.value == *name);
    if found.is_none() {
        let names: Vec<&str> = graph.tools.iter().map(|t| t.name.value.as_str()).collect();
        let d = diags.error(
            codes::UNKNOWN_TOOL,
            node.pos,
            format!("the graph has no tool `{name}`"),
        );
        match suggest(name, &names) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None => d.help(format!("its tools are {}", list(&names))),
        };
    }
    found
}

/// Each way `instance` misses `schema`: where (the value's place in
/// `node` when `locate`, else `node`), " at `path`" (or nothing at the
/// root) and what is wrong. A schema that does not compile has none.
pub(crate) fn schema_misses(
    schema: &Json,
    instance: &Json,
    node: &Node,
    locate: bool,
) -> Vec<(Pos, String, String)> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Vec::new();
    };
    validator
        .iter_errors(instance)
        .map(|error| {
            let path = error.instance_path().to_string();
            let at = if locate {
                crate::lower::schema::locate(node, &path).pos
            } else {
                node.pos
            };
            let place = if path.is_empty() {
                String::new()
            } else {
                format!(" at `{path}`")
            };
            (at, place, error.to_string())
        })
        .collect()
}

/// The arguments against the tool's `inputSchema`, each problem where the
/// value is written.
fn check_args(
    tool: &crate::model::Tool,
    args: &Map<String, Json>,
    node: &Node,
    diags: &mut Diagnostics,
) {
    let instance = Json::Object(args.clone());
    for (at, place, error) in schema_misses(&tool.input_schema, &instance, node, true) {
        diags
            .error(
                codes::INVALID_CASE_ARGS,
                at,
                format!(
                    "the arguments do not fit `{}`'s inputSchema{place}: {error}",
                    tool.name.value
                ),
            )
            .note(format!(
                "`{}` is at line {} of the graph file",
                tool.name.value, tool.name.pos.line
            ));
    }
}

fn check_expect(node: Option<&Node>, at: Pos, diags: &mut Diagnostics) -> Option<Json> {
    let Some(node) = node else {
        diags
            .error(codes::MISSING_FIELD, at, "a case needs an `expect`")
            .help("`expect: { output: ... }`, `subset`, `assert` or `error`");
        return None;
    };
    let Value::Map(entries) = &node.value else {
        diags.error(
            codes::WRONG_TYPE,
            node.pos,
            format!("`expect` is a mapping, not {}", node.value.kind()),
        );
        return None;
    };
    let errors = diags.error_count();
    for (key, value) in entries {
        let text = key.key_text();
        match text.as_str() {
            "output" | "subset" => {}
            "error" if !matches!(value.value, Value::String(_)) => {
                diags
                    .error(
                        codes::WRONG_TYPE,
                        value.pos,
                        format!("`expect.error` is a string, not {}", value.value.kind()),
                    )
                    .help("the text the error message must contain");
            }
            "error" => {}
            "assert" => match &value.value {
                Value::String(source) => {
                    if let Err(e) = jsonata_core::parser::parse(source) {
                        diags
                            .error(
                                codes::JSONATA_SYNTAX,
                                value.pos,
                                format!(
                                    "`expect.assert` is not a JSONata expression: {}",
                                    mcpgraph_expr::syntax_error::message(&e)
                                ),
                            )
                            .help("a JSONata expression over the output (`$`) that must be true");
                    }
                }
                other => {
                    diags.error(
                        codes::WRONG_TYPE,
                        value.pos,
                        format!("`expect.assert` is a string, not {}", other.kind()),
                    );
                }
            },
            _ => {
                let d = diags.error(
                    codes::UNKNOWN_KEY,
                    key.pos,
                    format!("unknown key `{text}` in `expect`"),
                );
                match suggest(&text, EXPECT_KEYS) {
                    Some(near) => d.help(format!("did you mean `{near}`?")),
                    None => d.help(format!("`expect` has {}", list(EXPECT_KEYS))),
                };
            }
        }
    }
    let has = |name: &str| entries.iter().any(|(k, _)| k.key_text() == name);
    if entries.is_empty() {
        diags
            .error(codes::EXPECT_SHAPE, node.pos, "`expect` is empty")
            .help("give `output`, `subset`, `assert` or `error`");
    } else if has("error") && (has("output") || has("subset") || has("assert")) {
        diags
            .error(
                codes::EXPECT_SHAPE,
                node.pos,
                "`expect` has `error` beside an output",
            )
            .help("a call either fails or returns: give `error` alone");
    }
    (diags.error_count() == errors).then(|| node.to_json())
}

fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a sequence",
        Json::Object(_) => "a mapping",
    }
}
