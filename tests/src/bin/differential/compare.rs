//! Our side of a case (through the runtime's node entry points and the
//! generator's lowering) and its comparison with the reference's result.

use mcpgraph_runtime::Rule;
use mcpgraph_runtime::standalone::Sandbox;
use serde_json::Value;

use super::corpus::{Case, Input};

/// One check of one case on which the two sides differ.
#[derive(Clone, Debug)]
pub struct Disagreement {
    pub key: String,
    /// `value`, `text` (JSONata) or `value`, `decision` (JSON Logic).
    pub check: &'static str,
    pub corpus: &'static str,
    pub origin: String,
    pub source: String,
    pub data: Value,
    pub ours: String,
    pub reference: String,
    /// A cause the runner recognises itself: `key-order` when both texts
    /// are the same JSON but for the order of object keys; else empty.
    pub category: &'static str,
}

/// What comparing one case found.
#[derive(Default)]
pub struct Compared {
    /// Checks made (0 when the case was skipped).
    pub checks: usize,
    pub disagreements: Vec<Disagreement>,
    /// Why the case could not be run on our side at all.
    pub skipped: Option<&'static str>,
    /// Whether the reference rejected the case (an error).
    pub reference_error: bool,
}

/// Runs `case` on our side and compares it with `reference` (the
/// reference process's result line).
pub fn compare(harness: &Sandbox, case: &Case, reference: &Value) -> Compared {
    let mut out = Compared::default();
    let mut check = |name: &'static str, ours: String, theirs: String, agree: bool| {
        out.checks += 1;
        if !agree {
            out.disagreements.push(Disagreement {
                key: case.key(),
                check: name,
                corpus: case.corpus,
                origin: case.origin.clone(),
                source: case.source(),
                data: case.data.clone(),
                category: category(&ours, &theirs),
                ours,
                reference: theirs,
            });
        }
    };
    match &case.input {
        Input::Jsonata(expr) => {
            let ours = harness.transform(expr, &case.data);
            let theirs = jsonata_outcome(reference);
            // What `mcpgraph mcp`'s `eval_jsonata` adds: the checks a graph
            // file gives the expression, which may refuse it before it
            // runs. They must refuse only what the reference fails on.
            let refused = mcpgraph_codegen::check_expression(expr)
                .items
                .iter()
                .find(|d| d.severity == mcpgraph_codegen::diag::Severity::Error)
                .map(|d| d.message.clone());
            check(
                "build-check",
                refused.clone().unwrap_or_else(|| "accepted".to_owned()),
                theirs.to_string(),
                refused.is_none() || matches!(theirs, Outcome::Error(_)),
            );
            if ours.value.is_ok() && theirs.timed_out() {
                out.skipped = Some(
                    "jsonata-js ran out of its 1000 ms where ours finished (speed and machine load, not meaning)",
                );
                return out;
            }
            let ours_value = match &ours.value {
                Ok(Some(v)) => Outcome::Value(v.clone()),
                Ok(None) => Outcome::Undefined,
                Err(e) => Outcome::Error(e.0.clone()),
            };
            let agree = ours_value.agrees(&theirs);
            check("value", ours_value.to_string(), theirs.to_string(), agree);
            if let (Some(text), Some(their_text)) = (&ours.text, reference["text"].as_str()) {
                check(
                    "text",
                    text.clone(),
                    their_text.to_owned(),
                    text == their_text,
                );
            }
            out.reference_error = matches!(theirs, Outcome::Error(_));
        }
        Input::Logic(rule) => {
            let Some(rule) = lower(rule) else {
                out.skipped = Some(
                    "rule the generator rejects (operator not in json-logic-js 2.0, or a `var` that is not a JSONata string)",
                );
                return out;
            };
            let ours = harness.switch(rule, &case.data);
            let ours_value = ours
                .value
                .map_or_else(|e| Outcome::Error(e.0), Outcome::Value);
            let their_value = match (reference.get("value"), reference["valueError"].as_str()) {
                (_, Some(e)) => Outcome::Error(e.to_owned()),
                (Some(v), None) => Outcome::Value(v.clone()),
                (None, None) => Outcome::Undefined,
            };
            let agree = ours_value.agrees(&their_value);
            check(
                "value",
                ours_value.to_string(),
                their_value.to_string(),
                agree,
            );
            let ours_decision = ours
                .decision
                .map_or_else(|e| Outcome::Error(e.0), |b| Outcome::Value(b.into()));
            let their_decision = match (
                reference.get("decision"),
                reference["decisionError"].as_str(),
            ) {
                (_, Some(e)) => Outcome::Error(e.to_owned()),
                (Some(v), None) => Outcome::Value(v.clone()),
                (None, None) => Outcome::Undefined,
            };
            let agree = ours_decision.agrees(&their_decision);
            check(
                "decision",
                ours_decision.to_string(),
                their_decision.to_string(),
                agree,
            );
            out.reference_error = matches!(their_value, Outcome::Error(_));
        }
    }
    out
}

/// The rule lowered and rewritten exactly as the generator does for a
/// switch condition; `None` when the generator rejects it.
fn lower(rule: &Value) -> Option<Rule> {
    let logic = mcpgraph_codegen::lower_rule(&rule.to_string()).ok()?;
    let rewritten = mcpgraph_codegen::rewrite_rule(&logic);
    // The runtime takes rules as generated code holds them: `'static`.
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let vars: Vec<&'static str> = rewritten.vars.into_iter().map(leak).collect();
    Some(Rule {
        json: leak(rewritten.json),
        vars: Box::leak(vars.into_boxed_slice()),
        needs_context: rewritten.needs_context,
    })
}

/// A side's result for one check.
enum Outcome {
    Value(Value),
    Undefined,
    Error(String),
}

impl Outcome {
    /// Equal values (JSON round trip, numbers as numbers, keys in any
    /// order), both "no value", or both errors (of any kind).
    fn agrees(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Value(a), Outcome::Value(b)) => json_equal(a, b),
            (Outcome::Undefined, Outcome::Undefined) | (Outcome::Error(_), Outcome::Error(_)) => {
                true
            }
            _ => false,
        }
    }
}

impl Outcome {
    /// Whether this is jsonata-js's timeout (D1012), which the suite's
    /// performance cases hit or not depending on the machine's load.
    fn timed_out(&self) -> bool {
        matches!(self, Outcome::Error(e) if e.starts_with("D1012"))
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Value(v) => write!(f, "value: {v}"),
            Outcome::Undefined => f.write_str("undefined"),
            Outcome::Error(e) => write!(f, "error: {}", e.replace('\n', " ")),
        }
    }
}

fn jsonata_outcome(reference: &Value) -> Outcome {
    if let Some(e) = reference["error"].as_str() {
        Outcome::Error(e.to_owned())
    } else if reference["undefined"] == Value::Bool(true) {
        Outcome::Undefined
    } else {
        Outcome::Value(reference["value"].clone())
    }
}

fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// See [`Disagreement::category`].
fn category(ours: &str, theirs: &str) -> &'static str {
    let parse = |s: &str| serde_json::from_str::<Value>(s).ok();
    match (parse(ours), parse(theirs)) {
        (Some(a), Some(b)) if json_equal(&a, &b) => "key-order",
        _ => "",
    }
}
