//! Built-ins bounded before they allocate: the host functions a tree
//! rewritten by `mcpgraph_expr::bounded::guard` calls (its docs say
//! why), checking sizes against `maxValueBytes`. Every evaluator
//! registers both ([`register`]): any expression may call them.

use jsonata_core::evaluator::{Evaluator, EvaluatorError};
use jsonata_core::value::JValue;
use mcpgraph_expr::names::{JOIN, PAD_ARG};

/// The code of a budget error (not a JSONata code: those start with S, T,
/// D or U), so the node's error can say which limit it hit.
pub(crate) const CODE: &str = "M0001";

/// Registers the functions the rewrite calls, checking sizes against
/// `max_bytes` (`None`: no budget).
pub(crate) fn register(evaluator: &mut Evaluator, max_bytes: Option<u64>) {
    let max = max_bytes.unwrap_or(u64::MAX);
    let pad_arg = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let value = args.first().cloned().unwrap_or(JValue::Undefined);
        match value {
            JValue::Number(width) if width.abs() > max as f64 => Err(over(format!(
                "`$pad` to {width} characters would be larger than maxValueBytes ({max} bytes)"
            ))),
            value => Ok(value),
        }
    };
    let join = move |args: &[JValue]| join(args, max);
    for (name, result) in [
        (PAD_ARG, evaluator.register_fn(PAD_ARG, pad_arg)),
        (JOIN, evaluator.register_fn(JOIN, join)),
    ] {
        if let Err(e) = result {
            // Only a clash with a JSONata built-in can fail; the tests of
            // this module catch it.
            tracing::error!("cannot register ${name}: {e}");
        }
    }
}

fn over(message: String) -> EvaluatorError {
    EvaluatorError::EvaluationError(format!("{CODE}: Value limit exceeded: {message}"))
}

/// `$join`, as jsonata-core's built-in (signature `<a<s>s?:s>`), failing
/// before it allocates a result longer than `max` bytes.
fn join(args: &[JValue], max: u64) -> Result<JValue, EvaluatorError> {
    let not_strings = || {
        EvaluatorError::TypeError(
            "T0412: Argument 1 of function $join must be an array of String".to_owned(),
        )
    };
    let items = match args.first() {
        None => {
            return Err(EvaluatorError::TypeError(
                "T0410: Argument 1 of function $join does not match function signature".to_owned(),
            ));
        }
        Some(JValue::Undefined) => return Ok(JValue::Undefined),
        Some(JValue::String(s)) => return Ok(JValue::String(s.clone())),
        Some(JValue::Array(items)) => items,
        Some(_) => return Err(not_strings()),
    };
    if args.len() > 2 {
        return Err(EvaluatorError::TypeError(
            "T0410: Argument 3 of function $join does not match function signature".to_owned(),
        ));
    }
    let separator = match args.get(1) {
        None | Some(JValue::Undefined) => "",
        Some(JValue::String(s)) => s,
        Some(_) => {
            return Err(EvaluatorError::TypeError(
                "T0410: Argument 2 of function $join does not match function signature (expected String)"
                    .to_owned(),
            ));
        }
    };
    let mut length = (items.len().saturating_sub(1) as u64).saturating_mul(separator.len() as u64);
    for item in items.iter() {
        let JValue::String(s) = item else {
            return Err(not_strings());
        };
        length = length.saturating_add(s.len() as u64);
    }
    if length > max {
        return Err(over(format!(
            "`$join` would give {length} bytes, more than maxValueBytes ({max} bytes)"
        )));
    }
    let mut out = String::with_capacity(length as usize);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(item.as_str().unwrap_or_default());
    }
    Ok(JValue::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonata_core::evaluator::Context;

    fn eval(source: &str, max: Option<u64>) -> Result<JValue, EvaluatorError> {
        let mut ast = jsonata_core::parser::parse(source).unwrap();
        mcpgraph_expr::bounded::guard(&mut ast);
        let mut evaluator = Evaluator::with_options(Context::new(), Default::default());
        register(&mut evaluator, max);
        let data = JValue::from_json_str(r#"{"s": "ab", "w": 6, "xs": ["a", "b", "c"]}"#).unwrap();
        evaluator.evaluate(&ast, &data)
    }

    #[test]
    fn guarded_calls_give_what_the_builtins_give() {
        for source in [
            r#"$pad(s, w, "-")"#,
            r#"s.$pad(-5)"#,
            r#"$pad(s, ?, "*")(4)"#,
            r#"$join(xs, ", ")"#,
            r#"$join(xs)"#,
            r#"$join("one")"#,
            r#"$map([xs], function($v) { $join($v, "+") })"#,
            r#"[xs].$join($, "/")"#,
            r#"{ "a": $pad($join(xs), 5) }"#,
        ] {
            let plain = Evaluator::new()
                .evaluate(&jsonata_core::parser::parse(source).unwrap(), &{
                    JValue::from_json_str(r#"{"s": "ab", "w": 6, "xs": ["a", "b", "c"]}"#).unwrap()
                })
                .unwrap();
            assert_eq!(eval(source, Some(100)).unwrap(), plain, "{source}");
        }
    }

    #[test]
    fn oversized_pad_and_join_fail_before_they_allocate() {
        let err = eval(r#"$pad("", 1e12, "x")"#, Some(1000)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Evaluation error: M0001: Value limit exceeded: `$pad` to 1000000000000 characters would be larger than maxValueBytes (1000 bytes)"
        );
        assert!(eval(r#"s.$pad(-2000)"#, Some(1000)).is_err());
        let err = eval(r#"$join([1..1000].$string(), $pad("", 999))"#, Some(1000)).unwrap_err();
        assert!(
            err.to_string().contains("`$join` would give 1000894 bytes"),
            "{err}"
        );
        assert!(eval(r#"$join(xs, $pad("", 999))"#, Some(1000)).is_err());
        assert!(eval(r#"$join(xs, $pad("", 10))"#, Some(1000)).is_ok());
    }
}
