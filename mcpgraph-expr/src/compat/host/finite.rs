//! The host functions of `compat::finite`'s rewrite.

use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::value::JValue;

use crate::compat::finite::{NEGATED, OPERATORS};

/// [`OPERAND`]: errors as jsonata-js's `evaluateNumericExpression` and
/// unary minus raise them.
pub(in crate::compat) fn operand(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    let value = args.first().cloned().unwrap_or(JValue::Undefined);
    let n = match value {
        JValue::Number(n) if !n.is_finite() => n,
        value => return Ok(value),
    };
    if n.is_infinite() {
        return Err(out_of_range());
    }
    let code = match args.get(1) {
        Some(JValue::Number(c)) => *c as usize,
        _ => NEGATED,
    };
    let message = match (code.checked_sub(OPERATORS.len()), OPERATORS.get(code)) {
        (_, Some((_, symbol))) => {
            format!("T2001: The left side of the {symbol} operator must evaluate to a number")
        }
        (Some(right), _) if right < OPERATORS.len() => format!(
            "T2002: The right side of the {} operator must evaluate to a number",
            OPERATORS[right].1
        ),
        _ => "D1002: Cannot negate a non-numeric value: NaN".to_owned(),
    };
    Err(EvaluatorError::TypeError(message))
}

/// [`TRUTH`]: jsonata-js's `boolean` reads NaN as false and fails on
/// Infinity.
pub(in crate::compat) fn truth(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    match args.first() {
        Some(JValue::Number(n)) if n.is_nan() => Ok(JValue::Bool(false)),
        Some(JValue::Number(n)) if n.is_infinite() => Err(out_of_range()),
        Some(value) => Ok(value.clone()),
        None => Ok(JValue::Undefined),
    }
}

/// [`EXTREME`]: the signature `<a<n>:n>` of the built-ins (a number alone
/// is an array of one; an empty array gives no value).
pub(in crate::compat) fn extreme(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    let max = matches!(args.get(1), Some(JValue::Number(c)) if *c == 1.0);
    let items = match args.first() {
        None | Some(JValue::Undefined) => return Ok(JValue::Undefined),
        Some(JValue::Number(n)) => return Ok(JValue::Number(*n)),
        Some(JValue::Array(items)) => items,
        Some(_) => return Err(not_numbers()),
    };
    let mut best: Option<f64> = None;
    for item in items.iter() {
        let JValue::Number(n) = item else {
            return Err(not_numbers());
        };
        best = Some(match best {
            None => *n,
            Some(b) if b.is_nan() || n.is_nan() => f64::NAN,
            Some(b) if max => b.max(*n),
            Some(b) => b.min(*n),
        });
    }
    Ok(best.map_or(JValue::Undefined, JValue::Number))
}

/// [`SORTABLE`], as jsonata-js's `sort`: an array of one is returned as
/// it is; then every number is checked, an infinite one failing first.
pub(in crate::compat) fn sortable(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    let value = args.first().cloned().unwrap_or(JValue::Undefined);
    let JValue::Array(items) = &value else {
        return Ok(value);
    };
    if items.len() <= 1 {
        return Ok(value);
    }
    let number = |test: fn(f64) -> bool| {
        items
            .iter()
            .any(|item| matches!(item, JValue::Number(n) if test(*n)))
    };
    if number(f64::is_infinite) {
        return Err(out_of_range());
    }
    if number(f64::is_nan) {
        return Err(EvaluatorError::EvaluationError(
            "D3070: The single argument form of the sort function can only be applied to an array of strings or an array of numbers".to_owned(),
        ));
    }
    Ok(value)
}

fn not_numbers() -> EvaluatorError {
    EvaluatorError::TypeError("T0412: Argument 1 must be an array of Number".to_owned())
}

fn out_of_range() -> EvaluatorError {
    EvaluatorError::EvaluationError("D1001: Number out of range".to_owned())
}
