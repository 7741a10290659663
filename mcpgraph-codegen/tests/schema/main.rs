//! `docs/mcpgraph.schema.json`, the JSON Schema of the graph file format,
//! agrees with the generator: every valid graph of the repository matches
//! it, the UI cases whose error is one of shape do not, and a table of small
//! files is accepted or refused by the schema exactly as by `load_str`.
//!
//! YAML is read as the generator reads it (YAML 1.2 booleans, the first of
//! duplicate keys) and checked as JSON.

//!
//! This file holds the shared helpers and the checks over the repository's
//! graphs; `ui` classifies the UI cases, `edges` holds the table of small
//! files, `test_files` checks `docs/mcpgraph.test.schema.json` against the
//! repository's test files.

mod edges;
mod test_files;
mod ui;

use std::path::{Path, PathBuf};

use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Graphs in mcpGraph's (TypeScript) dialect, which differs from ours
/// (`target` for a switch's `next`, a default condition without `rule`,
/// `args` strings as expressions): both the generator and the schema
/// refuse them.
const OTHER_DIALECT: &[&str] = &[
    "bench/graphs/bench.mcpgraph.yaml",
    "bench/graphs/fanout.mcpgraph.yaml",
];

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
        // A graph's test cases (`graph.test.yaml`): `test_files`.
        .filter(|p| !p.to_string_lossy().ends_with(".test.yaml"))
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
        "mcpgraph-macros/tests/ui/pass",
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
