//! One expression or one rule outside a graph: a transform expression and
//! a switch rule evaluated exactly as a node of a generated server
//! evaluates them, on a context given as JSON. `mcpgraph mcp` answers its
//! `eval_jsonata` and `eval_json_logic` with it, and the differential
//! runner (`tests/src/bin/differential`) holds it against jsonata-js and
//! json-logic-js.

use std::sync::Arc;

use jsonata_core::value::JValue;
use serde_json::Value;

use super::Execution;
use crate::meta::Limits;
use crate::servers::Servers;
use mcpgraph_expr::json::{from_json, to_json};
use mcpgraph_expr::parsed::{CompiledRule, Expr, Rule, Switch};
use mcpgraph_expr::value::measure;

/// An error's message, as a node would report it: the outcome of an
/// evaluation, not a failure of the evaluator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorText(pub String);

impl ErrorText {
    /// The message of `error`.
    fn of(error: impl std::fmt::Display) -> Self {
        Self(error.to_string())
    }
}

/// What a transform node made of an expression.
#[derive(Debug)]
pub struct TransformOutcome {
    /// The node's output as JSON (`None`: no value), or its error.
    pub value: Result<Option<Value>, ErrorText>,
    /// The text content of the tool result when this node is the last
    /// before the exit node; `None` when the node failed.
    pub text: Option<String>,
}

/// What a switch node made of a single-condition rule.
#[derive(Debug)]
pub struct SwitchOutcome {
    /// The rule's value (its `var`s evaluated into slots, as the switch
    /// does), as JSON, or the error.
    pub value: Result<Value, ErrorText>,
    /// Whether the switch takes the condition (its decision), or the error
    /// that fails the node.
    pub decision: Result<bool, ErrorText>,
}

/// Holds what an [`Execution`] needs besides its context (a client manager
/// with no servers, on a runtime of its own).
pub struct Sandbox {
    clients: Arc<dyn Servers>,
    _runtime: tokio::runtime::Runtime,
}

impl Default for Sandbox {
    fn default() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime");
        let clients: Arc<dyn Servers> = Arc::new(crate::servers::NoServers);
        Self {
            clients,
            _runtime: runtime,
        }
    }
}

impl Sandbox {
    /// A call under the format's default limits whose context is `context`
    /// (in a server it is `{node id: output}`; here it is whatever the
    /// case gives).
    fn execution(&self, context: &Value) -> Execution {
        let mut exec = Execution::new(
            &Value::Object(Default::default()),
            Limits::DEFAULT,
            Arc::clone(&self.clients),
        );
        exec.context = from_json(context);
        exec.current = "node";
        exec
    }

    /// Runs `source` as a transform node followed by the exit node: its
    /// output (the node's evaluator, limits and output checks) and the text
    /// the tool result would carry.
    pub fn transform(&self, source: &str, context: &Value) -> TransformOutcome {
        let failed = |e: ErrorText| TransformOutcome {
            value: Err(e),
            text: None,
        };
        let expr = match Expr::parse(source.to_owned()) {
            Ok(expr) => expr,
            Err(e) => return failed(ErrorText(e.to_string())),
        };
        let mut exec = self.execution(context);
        let output = match exec.eval(&expr) {
            Ok(output) => output,
            Err(e) => return failed(ErrorText::of(e)),
        };
        // The output is recorded into a context of node outputs, which is
        // always an object, whatever the case evaluated the expression on.
        exec.context = JValue::object(Default::default());
        if let Err(e) = exec.record(output.clone()) {
            return failed(ErrorText::of(e));
        }
        exec.exit();
        let text = exec
            .finish()
            .map(crate::serving::result::success_result)
            .and_then(|result| result.content.into_iter().next())
            .and_then(|content| content.as_text().map(|t| t.text.clone()));
        TransformOutcome {
            value: Ok(to_json(&output)),
            text,
        }
    }

    /// Runs a switch node whose only condition is `rule` (as the generator
    /// emits it) on `context`: the decision through [`Execution::switch`],
    /// and the rule's value computed the way it computes it.
    pub fn switch(&self, rule: Rule, context: &Value) -> SwitchOutcome {
        let switch = match Switch::new(&[rule]) {
            Ok(switch) => switch,
            Err(e) => {
                return SwitchOutcome {
                    value: Err(ErrorText(e.to_string())),
                    decision: Err(ErrorText(e.to_string())),
                };
            }
        };
        let mut exec = self.execution(context);
        let decision = exec
            .switch(&switch)
            .map(|taken| taken.is_some())
            .map_err(ErrorText::of);
        let mut exec = self.execution(context);
        let value = rule_value(&mut exec, &switch.conditions()[0]);
        SwitchOutcome { value, decision }
    }
}

/// The value of a compiled rule: its slots evaluated with the call's
/// evaluator and bounded as `Execution::switch` does, and the rule applied
/// by the switch's evaluator (`null` for JavaScript's `undefined`).
fn rule_value(exec: &mut Execution, rule: &CompiledRule) -> Result<Value, ErrorText> {
    let mut values = Vec::with_capacity(rule.vars.len());
    for var in &rule.vars {
        let value = exec.eval(var).map_err(ErrorText::of)?;
        let limits = &exec.limits;
        if let Err(over) = measure(&value, limits.max_value_depth, limits.max_value_bytes) {
            return Err(ErrorText::of(exec.oversize("a `var` value", &over)));
        }
        values.push(value);
    }
    let context = if rule.needs_context {
        &exec.context
    } else {
        &JValue::Null
    };
    let outcome = mcpgraph_expr::evaluator::contained(|| rule.logic.outcome(&values, context))
        .map_err(ErrorText::of)?
        .map_err(ErrorText::of)?;
    Ok(outcome.value.unwrap_or(Value::Null))
}
