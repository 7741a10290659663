//! The cases: every expression and rule of the repository's graph files,
//! the copied official suites (JSONata, JSON Logic), and the two seeded
//! generators.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use mcpgraph_codegen::model::{Arg, Logic, Message, NodeKind};
use serde_json::{Map, Value};

use super::rng::{self, Rng};
use super::{gen_jsonata, gen_logic};

/// What a case evaluates.
#[derive(Clone, Debug)]
pub enum Input {
    /// A JSONata expression, as a transform node runs it.
    Jsonata(String),
    /// A JSON Logic rule with JSONata `var`s, as a switch condition.
    Logic(Value),
}

#[derive(Clone, Debug)]
pub struct Case {
    /// The corpus it belongs to (`graphs`, `jsonata-suite`, ...).
    pub corpus: &'static str,
    /// Where it came from, for people (`file#n`, `gen#n`).
    pub origin: String,
    pub input: Input,
    pub data: Value,
}

impl Case {
    /// The expression or the rule as one line of text.
    pub fn source(&self) -> String {
        match &self.input {
            Input::Jsonata(expr) => expr.clone(),
            Input::Logic(rule) => rule.to_string(),
        }
    }

    /// A stable key from what the case is (input and data), not where it
    /// sits: 64-bit FNV-1a, in hex.
    pub fn key(&self) -> String {
        let kind = match self.input {
            Input::Jsonata(_) => "jsonata",
            Input::Logic(_) => "logic",
        };
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for part in [kind, &self.source(), &self.data.to_string()] {
            for byte in part.bytes().chain([0]) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        format!("{hash:016x}")
    }
}

/// Cases left out of a corpus, counted by why.
pub type Skipped = BTreeMap<String, usize>;

/// Deterministic data for a case without any: seeded by its text.
fn generated_data(source: &str) -> Value {
    let seed = source
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    rng::data_for(source, &mut Rng::new(seed))
}

/// Graph tools the reference cannot run to the end, by file and tool name:
/// they are left out with the reason.
const UNRUNNABLE: &[(&str, &str, &str)] = &[(
    "tests/graphs/values.yaml",
    "redos",
    "a regex that backtracks exponentially in JavaScript: jsonata-js's timeout cannot interrupt the match",
)];

/// Every expression and rule of the graph files under `dirs`.
pub fn graphs(root: &Path, dirs: &[&str], skipped: &mut Skipped) -> Vec<Case> {
    let mut files = Vec::new();
    for dir in dirs {
        collect_yaml(&root.join(dir), &mut files);
    }
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let display = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        let Ok((graph, _)) = mcpgraph_codegen::load_file(&file) else {
            *skipped
                .entry("not a loadable graph file".into())
                .or_default() += 1;
            continue;
        };
        let mut inputs = Vec::new();
        for tool in &graph.tools {
            let unrunnable = UNRUNNABLE
                .iter()
                .find(|(f, t, _)| display == *f && tool.name.value == *t);
            if let Some((_, _, why)) = unrunnable {
                *skipped.entry((*why).into()).or_default() += 1;
                continue;
            }
            for node in &tool.nodes {
                match &node.kind {
                    NodeKind::Transform { expr, .. } => {
                        inputs.push(Input::Jsonata(expr.source.clone()))
                    }
                    NodeKind::Mcp { args, .. } => arg_exprs(args, &mut inputs),
                    NodeKind::Switch { conditions, .. } => {
                        inputs.extend(conditions.iter().map(|c| Input::Logic(written(&c.rule))))
                    }
                    NodeKind::Elicit {
                        message: Message::Expr(expr),
                        ..
                    } => inputs.push(Input::Jsonata(expr.source.clone())),
                    NodeKind::Parallel { .. } | NodeKind::ForEach { .. } => {
                        for call in node.kind.calls() {
                            arg_exprs(&call.args, &mut inputs);
                        }
                        if let NodeKind::ForEach { items, .. } = &node.kind {
                            inputs.push(Input::Jsonata(items.source.clone()));
                        }
                    }
                    NodeKind::Elicit { .. } | NodeKind::Entry { .. } | NodeKind::Exit => {}
                }
            }
        }
        for (n, input) in inputs.into_iter().enumerate() {
            let source = match &input {
                Input::Jsonata(e) => e.clone(),
                Input::Logic(r) => r.to_string(),
            };
            cases.push(Case {
                corpus: "graphs",
                origin: format!("{display}#{n}"),
                input,
                data: generated_data(&source),
            });
        }
    }
    cases
}

fn collect_yaml(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_yaml(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

fn arg_exprs(arg: &Arg, out: &mut Vec<Input>) {
    match arg {
        Arg::Expr(expr) => out.push(Input::Jsonata(expr.source.clone())),
        Arg::Object(fields) => fields.iter().for_each(|(_, a)| arg_exprs(a, out)),
        Arg::Array(items) => items.iter().for_each(|a| arg_exprs(a, out)),
        Arg::Literal(_) => {}
    }
}

/// A lowered rule as written: `var`s with their JSONata.
fn written(logic: &Logic) -> Value {
    match logic {
        Logic::Var(expr) => serde_json::json!({ "var": expr.source }),
        Logic::Literal(value) => value.clone(),
        Logic::Array(items) => items.iter().map(written).collect(),
        Logic::Object(entries) => entries
            .iter()
            .map(|(key, v)| (key.value.clone(), written(v)))
            .collect(),
    }
}

/// The official JSONata suite (`testdata/jsonata/groups`), each case on its
/// own data (generated when it has none). Cases with variable bindings or
/// limits, which a transform node cannot be given, are left out.
pub fn jsonata_suite(root: &Path, skipped: &mut Skipped) -> Vec<Case> {
    let suite = root.join("testdata/jsonata");
    let mut files = Vec::new();
    collect_json(&suite.join("groups"), &mut files);
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let Some(case) = read_json(&file) else {
            continue;
        };
        // A file holds a case or an array of cases.
        let items = match case {
            Value::Array(items) => items,
            other => vec![other],
        };
        for (n, case) in items.into_iter().enumerate() {
            let Value::Object(case) = case else { continue };
            let dir = file.parent().unwrap_or(&suite);
            let origin = format!("{}#{n}", file.strip_prefix(root).unwrap_or(&file).display());
            match jsonata_case(&suite, dir, &case) {
                Ok((expr, data)) => cases.push(Case {
                    corpus: "jsonata-suite",
                    origin,
                    input: Input::Jsonata(expr),
                    data,
                }),
                Err(why) => *skipped.entry(why.into()).or_default() += 1,
            }
        }
    }
    cases
}

fn jsonata_case(
    suite: &Path,
    dir: &Path,
    case: &Map<String, Value>,
) -> Result<(String, Value), &'static str> {
    if case
        .get("bindings")
        .is_some_and(|b| b.as_object().is_some_and(|b| !b.is_empty()))
    {
        return Err("variable bindings (a node has none)");
    }
    if case.contains_key("timelimit") || case.contains_key("depth") {
        return Err("time or depth limits (the node's are the format's)");
    }
    let expr = match (case.get("expr"), case.get("expr-file")) {
        (Some(Value::String(e)), _) => e.clone(),
        (_, Some(Value::String(f))) => {
            fs::read_to_string(dir.join(f)).map_err(|_| "unreadable expr-file")?
        }
        _ => return Err("no expression"),
    };
    let data = match (case.get("data"), case.get("dataset")) {
        (Some(data), _) => data.clone(),
        (None, Some(Value::String(name))) => {
            read_json(&suite.join("datasets").join(format!("{name}.json")))
                .ok_or("unreadable dataset")?
        }
        _ => generated_data(&expr),
    };
    Ok((expr, data))
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_json(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

/// The JSON Logic suites (`testdata/jsonlogic`, the files `index.json`
/// lists), each rule on its own data when that is an object (a switch's
/// context always is), else on generated data. Whether a rule can be
/// written in a graph at all (json-logic-js 2.0 operators, string `var`s)
/// is the lowering's call, made when the case runs.
pub fn jsonlogic_suite(root: &Path) -> Vec<Case> {
    let dir = root.join("testdata/jsonlogic");
    let index: Vec<String> = read_json(&dir.join("index.json"))
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let mut cases = Vec::new();
    for suite in index {
        let Some(Value::Array(items)) = read_json(&dir.join(&suite)) else {
            continue;
        };
        for (n, case) in items.iter().filter_map(Value::as_object).enumerate() {
            let Some(rule) = case.get("rule") else {
                continue;
            };
            let data = match case.get("data") {
                Some(data @ Value::Object(_)) => data.clone(),
                _ => generated_data(&rule.to_string()),
            };
            cases.push(Case {
                corpus: "jsonlogic-suite",
                origin: format!("{suite}#{}", n + 1),
                input: Input::Logic(rule.clone()),
                data,
            });
        }
    }
    cases
}

/// `count` generated JSON Logic rules, each on its own random data.
pub fn generated_logic(seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|n| Case {
            corpus: "gen-logic",
            origin: format!("gen-logic#{n}"),
            input: Input::Logic(gen_logic::rule(&mut rng, 4)),
            data: rng::data(&mut rng),
        })
        .collect()
}

/// `count` generated JSONata expressions, each on its own random data.
pub fn generated_jsonata(seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed.wrapping_add(1));
    (0..count)
        .map(|n| Case {
            corpus: "gen-jsonata",
            origin: format!("gen-jsonata#{n}"),
            input: Input::Jsonata(gen_jsonata::expr(&mut rng, 4)),
            data: rng::data(&mut rng),
        })
        .collect()
}
