//! The official JSONata test suite (`testdata/jsonata`), run
//! through the parse and evaluation path a transform node uses in a
//! generated server: `Expr::parse`, then `evaluate_standalone` (the same
//! evaluator setup, history functions registered, `timelimit`/`depth` as
//! the evaluator's limits, `bindings` as variables).
//!
//! Every case that does not pass must be listed, with its reason, in
//! `jsonata_known_failures.txt`; the test fails when an unlisted case fails
//! or a listed one passes.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use mcpgraph_runtime::Expr;
use mcpgraph_runtime::testing::evaluate_standalone;
use mcpgraph_runtime::testing::jsonata_core::evaluator::error_code_prefix;
use mcpgraph_runtime::testing::jsonata_core::value::JValue;
use mcpgraph_runtime::testing::{from_json, to_json};
use serde_json::{Map, Value};

use common::{check_against_known_failures, conformance_dir, json_equal};

/// What a case expects.
enum Expected {
    Value { value: Value, unordered: bool },
    Undefined,
    Code(String),
}

/// The JSONata code of an error: at the start of its message or after a
/// `Kind: ` prefix (`Type error: Signature validation failed: T0410: ...`),
/// as the user reads it in the error the call reports.
fn code_of(cause: &str) -> Option<String> {
    std::iter::once(0)
        .chain(cause.match_indices(": ").map(|(i, _)| i + 2))
        .find_map(|i| error_code_prefix(&cause[i..]))
        .map(str::to_owned)
}

struct Suite {
    root: PathBuf,
    datasets: HashMap<String, Result<JValue, String>>,
}

impl Suite {
    fn dataset(&mut self, name: &str) -> Result<JValue, String> {
        let root = &self.root;
        self.datasets
            .entry(name.to_owned())
            .or_insert_with(|| {
                let path = root.join("datasets").join(format!("{name}.json"));
                let text = fs::read_to_string(&path).map_err(|e| format!("{name}: {e}"))?;
                let value: Value =
                    serde_json::from_str(&text).map_err(|e| format!("dataset {name}: {e}"))?;
                Ok(from_json(&value))
            })
            .clone()
    }

    /// Runs one case: `Ok(())` when it passes, `Err(why)` when not.
    fn run(&mut self, dir: &Path, case: &Value) -> Result<(), String> {
        let case = case.as_object().ok_or("case is not an object")?;
        let source = match (case.get("expr"), case.get("expr-file")) {
            (Some(Value::String(expr)), _) => expr.clone(),
            (_, Some(Value::String(file))) => {
                fs::read_to_string(dir.join(file)).map_err(|e| format!("{file}: {e}"))?
            }
            _ => return Err("no expr".into()),
        };
        let data = match (case.get("data"), case.get("dataset")) {
            (Some(data), _) => from_json(data),
            (None, Some(Value::String(name))) => self.dataset(name)?,
            _ => JValue::Undefined,
        };
        let empty = Map::new();
        let bindings = case
            .get("bindings")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let timelimit = case.get("timelimit").and_then(Value::as_u64);
        let depth = case.get("depth").and_then(Value::as_u64);
        let expected = if let Some(value) = case.get("result") {
            Expected::Value {
                value: value.clone(),
                unordered: case.get("unordered") == Some(&Value::Bool(true)),
            }
        } else if case.get("undefinedResult") == Some(&Value::Bool(true)) {
            Expected::Undefined
        } else if let Some(Value::String(code)) = case.get("code") {
            Expected::Code(code.clone())
        } else if let Some(Value::String(code)) = case.get("error").and_then(|e| e.get("code")) {
            Expected::Code(code.clone())
        } else {
            return Err("case expects nothing recognisable".into());
        };

        let prefix = format!("JSONata expression `{source}` does not parse: ");
        let outcome = match Expr::parse(source) {
            Err(e) => {
                let message = e.to_string();
                let cause = message.strip_prefix(&prefix).unwrap_or(&message);
                Err((code_of(cause), message.clone()))
            }
            Ok(expr) => evaluate_standalone(&expr, &data, bindings, timelimit, depth)
                .map_err(|e| (code_of(&e.to_string()), e.to_string())),
        };
        match (expected, outcome) {
            (Expected::Code(want), Err((got, message))) => {
                if got.as_deref() == Some(want.as_str()) {
                    Ok(())
                } else {
                    Err(format!("expected error {want}, got error: {message}"))
                }
            }
            (Expected::Code(want), Ok(value)) => Err(format!(
                "expected error {want}, got {}",
                show(to_json(&value))
            )),
            (_, Err((_, message))) => Err(format!("unexpected error: {message}")),
            (Expected::Undefined, Ok(value)) => match to_json(&value) {
                None => Ok(()),
                got => Err(format!("expected no value, got {}", show(got))),
            },
            (Expected::Value { value, unordered }, Ok(got)) => {
                let got = to_json(&got);
                let equal = match (&got, unordered) {
                    (Some(Value::Array(got)), true) => match &value {
                        Value::Array(want) => multiset_equal(got, want),
                        _ => false,
                    },
                    (Some(got), _) => json_equal(got, &value),
                    (None, _) => false,
                };
                if equal {
                    Ok(())
                } else {
                    Err(format!("expected {value}, got {}", show(got)))
                }
            }
        }
    }
}

fn multiset_equal(got: &[Value], want: &[Value]) -> bool {
    if got.len() != want.len() {
        return false;
    }
    let mut used = vec![false; want.len()];
    got.iter().all(|g| {
        let slot = (0..want.len()).find(|&i| !used[i] && json_equal(g, &want[i]));
        slot.map(|i| used[i] = true).is_some()
    })
}

fn show(value: Option<Value>) -> String {
    value.map_or_else(|| "no value".to_owned(), |v| v.to_string())
}

#[test]
fn jsonata_suite_through_the_transform_evaluator() {
    let root = conformance_dir().join("jsonata");
    let mut suite = Suite {
        root: root.clone(),
        datasets: HashMap::new(),
    };
    let mut groups: Vec<PathBuf> = fs::read_dir(root.join("groups"))
        .expect("the JSONata suite is at testdata/jsonata/groups")
        .map(|e| e.expect("dir entry").path())
        .collect();
    groups.sort();

    // Case id (`group/file` without `.json`, `[i]` for files holding an
    // array of cases) -> Err(reason) when it does not pass.
    let mut results: BTreeMap<String, Result<(), String>> = BTreeMap::new();
    for group in &groups {
        let group_name = group.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = fs::read_dir(group)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
            let id = format!("{group_name}/{stem}");
            let text = fs::read_to_string(&file).expect("case file reads");
            match serde_json::from_str::<Value>(&text) {
                Err(e) => {
                    results.insert(id, Err(format!("case file does not load: {e}")));
                }
                Ok(Value::Array(cases)) => {
                    for (i, case) in cases.iter().enumerate() {
                        results.insert(format!("{id}[{i}]"), suite.run(group, case));
                    }
                }
                Ok(case) => {
                    results.insert(id, suite.run(group, &case));
                }
            }
        }
    }

    let passed = results.values().filter(|r| r.is_ok()).count();
    println!("JSONata conformance: {passed}/{} passed", results.len());
    assert_eq!(results.len(), 1686, "the suite has 1686 cases");
    check_against_known_failures(
        &results,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jsonata_known_failures.txt"),
    );
    assert!(passed >= 1680, "at least 1680 of 1686 must pass");
}
