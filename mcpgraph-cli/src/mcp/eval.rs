//! `eval_jsonata` and `eval_json_logic`: an expression or a rule evaluated
//! exactly as a node of a generated server evaluates it (the runtime's
//! [`Sandbox`](mcpgraph_runtime::standalone::Sandbox): the same evaluators,
//! limits and number spelling), after the checks a graph file would give
//! it, so an error has its place in the expression.

use std::collections::HashMap;
use std::sync::Mutex;

use mcpgraph_runtime::Rule;
use mcpgraph_runtime::standalone::Sandbox;
use serde::Serialize;
use serde_json::Value;

/// How many distinct rules are kept compiled. The runtime takes a rule's
/// text as generated code holds it (`'static`), so each distinct rule is
/// kept for the server's life; past this many a new one is refused, so
/// memory stays bounded.
const MAX_RULES: usize = 4096;

/// Where in the expression (or rule) an error is.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub(super) struct EvalError {
    /// What is wrong, as a node would report it.
    pub message: String,
    /// Line and column (from 1) in the expression or rule text, when the
    /// check that found it knows the place.
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// What to do about it, when the check can tell.
    pub help: Option<String>,
}

/// What a JSONata expression gives.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(super) struct JsonataResult {
    /// Whether it gave a value (or nothing) without an error.
    pub ok: bool,
    /// Its value; absent when it gives nothing (JavaScript's `undefined`)
    /// or fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The text a tool result would carry if this were the node before
    /// `exit`: JSON with JavaScript's number spelling and key order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<EvalError>,
    /// Warnings the graph file would get for it (an unknown function in a
    /// branch that may not run...).
    pub warnings: Vec<EvalError>,
}

/// What a JSON Logic rule gives, as a switch condition.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(super) struct LogicResult {
    pub ok: bool,
    /// The rule's value (`null` for JavaScript's `undefined`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Whether a switch would take this condition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<EvalError>,
}

/// An error without a place.
fn plain(message: String) -> EvalError {
    EvalError {
        message,
        line: None,
        column: None,
        help: None,
    }
}

/// The diagnostics of a check as errors with their places.
fn placed(d: &mcpgraph_codegen::diag::Diagnostics, errors: bool) -> Vec<EvalError> {
    use mcpgraph_codegen::diag::Severity;
    d.items
        .iter()
        .filter(|i| (i.severity == Severity::Error) == errors && i.severity != Severity::Note)
        .map(|i| EvalError {
            message: i.message.clone(),
            line: (i.pos.line > 0).then_some(i.pos.line),
            column: (i.pos.line > 0).then_some(i.pos.column),
            help: i.help.clone(),
        })
        .collect()
}

/// Evaluates `expression` on `input` (what `$` is: in a graph, the outputs
/// of the nodes that ran, by id). Blocks: call it off the async threads.
pub(super) fn jsonata(expression: &str, input: &Value) -> JsonataResult {
    let checked = mcpgraph_codegen::check_expression(expression);
    let warnings = placed(&checked, false);
    if let Some(error) = placed(&checked, true).into_iter().next() {
        return JsonataResult {
            ok: false,
            result: None,
            text: None,
            error: Some(error),
            warnings,
        };
    }
    let outcome = Sandbox::default().transform(expression, input);
    match outcome.value {
        Ok(result) => JsonataResult {
            ok: true,
            result,
            text: outcome.text,
            error: None,
            warnings,
        },
        Err(e) => JsonataResult {
            ok: false,
            result: None,
            text: None,
            error: Some(plain(e.0)),
            warnings,
        },
    }
}

/// The rules compiled so far, by their JSON text.
#[derive(Default)]
pub(super) struct Rules {
    by_text: Mutex<HashMap<String, Rule>>,
}

impl Rules {
    /// The rule `rule` lowered and rewritten exactly as the generator does
    /// for a switch condition, or the errors a graph file would get.
    fn lower(&self, rule: &Value) -> Result<Rule, EvalError> {
        let text = rule.to_string();
        let mut rules = self.by_text.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = rules.get(&text) {
            return Ok(*known);
        }
        let pretty = serde_json::to_string_pretty(rule).unwrap_or_else(|_| text.clone());
        let logic = mcpgraph_codegen::lower_rule(&pretty).map_err(|d| {
            placed(&d, true)
                .into_iter()
                .next()
                .unwrap_or_else(|| plain("the rule is refused".to_owned()))
        })?;
        if rules.len() >= MAX_RULES {
            return Err(plain(format!(
                "this server has compiled {MAX_RULES} distinct rules, its limit; restart `mcpgraph mcp` to evaluate more"
            )));
        }
        let rewritten = mcpgraph_codegen::rewrite_rule(&logic);
        // Kept for the server's life (bounded above): the runtime's rules
        // are `'static`, as generated code holds them.
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let vars: Vec<&'static str> = rewritten.vars.into_iter().map(leak).collect();
        let compiled = Rule {
            json: leak(rewritten.json),
            vars: Box::leak(vars.into_boxed_slice()),
            needs_context: rewritten.needs_context,
        };
        rules.insert(text, compiled);
        Ok(compiled)
    }

    /// Evaluates `rule` on `data` as a switch condition does (its `var`s
    /// are JSONata paths on `data`). Blocks: call it off the async threads.
    pub(super) fn json_logic(&self, rule: &Value, data: &Value) -> LogicResult {
        let failed = |error| LogicResult {
            ok: false,
            result: None,
            decision: None,
            error: Some(error),
        };
        let compiled = match self.lower(rule) {
            Ok(rule) => rule,
            Err(e) => return failed(e),
        };
        let outcome = Sandbox::default().switch(compiled, data);
        match (outcome.value, outcome.decision) {
            (Ok(value), Ok(decision)) => LogicResult {
                ok: true,
                result: Some(value),
                decision: Some(decision),
                error: None,
            },
            (Err(e), _) | (_, Err(e)) => failed(plain(e.0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn jsonata_gives_values_text_and_placed_errors() {
        let ok = jsonata(
            "{\"n\": $.entry.n * 2, \"s\": 0.000001}",
            &json!({"entry": {"n": 21}}),
        );
        assert!(ok.ok);
        assert_eq!(ok.result, Some(json!({"n": 42, "s": 0.000001})));
        assert_eq!(ok.text.as_deref(), Some(r#"{"n":42,"s":0.000001}"#));
        let nothing = jsonata("$.missing", &json!({}));
        assert!(nothing.ok && nothing.result.is_none());
        let bad = jsonata("$.a +\n  (1", &json!({}));
        let error = bad.error.expect("a syntax error");
        assert!(!bad.ok);
        assert_eq!((error.line, error.column), (Some(2), Some(5)), "{error:?}");
    }

    /// As jsonata-js gives it, from bench/:
    /// node -e 'require("jsonata")(`{"small": 0.000001, "big": 1e16, "b": $.entry.b, "2": 2, "1": 1}`).evaluate({entry:{b:[1e21,-0]}}).then(r => console.log(JSON.stringify(r)))'
    /// prints {"1":1,"2":2,"small":0.000001,"big":10000000000000000,"b":[1e+21,0]}
    #[test]
    fn text_spells_numbers_and_orders_keys_as_jsonata_js() {
        let run = jsonata(
            r#"{"small": 0.000001, "big": 1e16, "b": $.entry.b, "2": 2, "1": 1}"#,
            &json!({"entry": {"b": [1e21, -0.0]}}),
        );
        assert_eq!(
            run.text.as_deref(),
            Some(r#"{"1":1,"2":2,"small":0.000001,"big":10000000000000000,"b":[1e+21,0]}"#)
        );
        let value = run.result.unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["1", "2", "small", "big", "b"]);
    }

    /// Nothing is the exit's empty object; an evaluation error reads as a
    /// node's.
    #[test]
    fn nothing_is_an_empty_object_and_errors_read_as_the_nodes() {
        let run = jsonata("$.missing", &json!({}));
        assert_eq!((run.result, run.text.as_deref()), (None, Some("{}")));
        let failed = jsonata("$.a + $.b", &json!({"a": 1, "b": "x"}));
        let message = failed.error.unwrap().message;
        assert!(message.contains("JSONata error:"), "{message}");
        // One every run would raise is the check's, as a graph file gets it.
        let checked = jsonata("$number(\"x\") + {}", &json!({})).error.unwrap();
        assert!(checked.message.contains("needs numbers"), "{checked:?}");
        assert_eq!(checked.line, Some(1));
    }

    #[test]
    fn json_logic_decides_as_a_switch() {
        let rules = Rules::default();
        let yes = rules.json_logic(
            &json!({">": [{"var": "entry.n"}, 3]}),
            &json!({"entry": {"n": 5}}),
        );
        assert_eq!((yes.result, yes.decision), (Some(json!(true)), Some(true)));
        let again = rules.json_logic(
            &json!({">": [{"var": "entry.n"}, 3]}),
            &json!({"entry": {"n": 1}}),
        );
        assert_eq!(again.decision, Some(false));
        assert_eq!(rules.by_text.lock().unwrap().len(), 1);
        let refused = rules.json_logic(&json!({"no_such_op": [1]}), &json!({}));
        assert!(!refused.ok && refused.error.is_some());
    }
}
