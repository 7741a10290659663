//! One evaluation outside a call, in the evaluator a transform node uses:
//! a graph test's `assert` ([`evaluate_on`]), and the entry points of the
//! conformance runner and the fuzz targets (`evaluate_standalone`).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use jsonata_core::evaluator::{Context, EvaluatorError};
use jsonata_core::value::JValue;
use mcpgraph_format::Limits;
use serde_json::Value;

use super::{contained, new_evaluator, over_budget};
use crate::history::History;
use crate::json::from_json;
use crate::memory;
use crate::parsed::Expr;
use crate::watchdog::{ExpressionTimer, timeout_error};
use crate::{Helpers, compat};

/// Evaluates `expr` against `data` as a transform node would (an empty
/// history, the default limits): for a test case's `assert`. Its JSON
/// value, `None` for no value, or the error.
#[doc(hidden)]
pub fn evaluate_on(expr: &Expr, data: &Value) -> Result<Option<Value>, EvaluatorError> {
    let history = Rc::new(RefCell::new(History::default()));
    let limits = Limits::DEFAULT;
    evaluate_by_jsonata(
        expr,
        &from_json(data),
        Context::new(),
        Some(limits.max_expression_time_ms),
        Some(limits.max_expression_depth),
        &history,
    )
    .map(|value| crate::json::to_json(&value))
}

/// Evaluates `expr` against `data` in the evaluator a transform node uses
/// (history functions registered, with an empty history; `$pad` and
/// `$join` bounded by the default `maxValueBytes`), with `bindings` as
/// variables and optional time and depth limits. For the conformance
/// runner and the fuzz targets; not part of the generated-code interface.
#[cfg(feature = "testing")]
pub fn evaluate_standalone(
    expr: &Expr,
    data: &JValue,
    bindings: &serde_json::Map<String, Value>,
    timeout_ms: Option<u64>,
    depth: Option<u64>,
) -> Result<JValue, EvaluatorError> {
    let mut context = Context::new();
    for (name, value) in bindings {
        context.bind(name.clone(), from_json(value));
    }
    if bindings.is_empty()
        && let Some(value) = expr.lookup(data)
    {
        return Ok(value);
    }
    let history = Rc::new(RefCell::new(History::default()));
    let native = expr.native().filter(|native| {
        // No clock here: an evaluation under a time limit that may take
        // long is left to jsonata-core's.
        bindings.is_empty()
            && depth.is_none_or(|d| d >= native.depth_needed())
            && (timeout_ms.is_none() || !native.timed())
    });
    match native.and_then(|native| Some((native, native.eval(data, &history.borrow())?))) {
        Some((native, value)) => {
            if cfg!(debug_assertions) {
                // At the least depth the native evaluation assumes, so the
                // comparison checks that bound too.
                let depth = Some(native.depth_needed());
                let evaluated =
                    evaluate_by_jsonata(expr, data, context, timeout_ms, depth, &history);
                super::check_native(expr, &value, evaluated);
            }
            Ok(value)
        }
        None => evaluate_by_jsonata(expr, data, context, timeout_ms, depth, &history),
    }
}

/// `evaluate_standalone` and [`evaluate_on`] by jsonata-core.
pub(crate) fn evaluate_by_jsonata(
    expr: &Expr,
    data: &JValue,
    context: Context,
    timeout_ms: Option<u64>,
    depth: Option<u64>,
    history: &Rc<RefCell<History>>,
) -> Result<JValue, EvaluatorError> {
    let mut timer = ExpressionTimer::new(timeout_ms);
    let budget = Limits::DEFAULT.max_value_bytes;
    let mut evaluator = new_evaluator(context, timer.token(), depth, Some(budget), history);
    compat::register(&mut evaluator, Helpers::default(), expr.helpers);
    timer.arm(Instant::now());
    let metered = memory::arm(budget, Some(timer.token_ref()));
    let result = contained(|| evaluator.evaluate(&expr.ast, data));
    let over = metered.disarm();
    match (timer.disarm(), result) {
        _ if over => Err(over_budget(budget)),
        (Some(limit), _) => Err(timeout_error(limit)),
        (None, Ok(result)) => result,
        (None, Err(panic)) => Err(EvaluatorError::EvaluationError(panic.to_string())),
    }
}
