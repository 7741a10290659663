//! Built-ins bounded before they allocate.
//!
//! A watchdog can stop an evaluation between steps, but not inside one
//! built-in call: `$pad("", 1e9)` or `$join` of many copies of a long
//! separator allocates gigabytes in a single step, before any node output
//! is measured. So [`guard`] rewrites those calls to check their size
//! against the runtime's `maxValueBytes` first:
//!
//! - every argument of `$pad(...)` goes through [`PAD_ARG`], which passes
//!   it on unchanged unless it is a width whose padding alone would pass
//!   the budget (each character is at least one byte). The built-in still
//!   does the padding, with its own signature handling (the string taken
//!   from the context included);
//! - `$join(...)` becomes [`JOIN`], which computes the result's length
//!   before building it. `$join` is on jsonata-core's compiled fast path,
//!   so it cannot be overridden in place; the runtime's function is the
//!   built-in's behaviour, error codes included, which the conformance
//!   suite pins.
//!
//! Both functions are here too, with the `eval` feature: every evaluator
//! of the runtime registers them (`register`), as any rewritten
//! expression may call them.

use jsonata_core::ast::AstNode;

#[cfg(feature = "eval")]
use jsonata_core::evaluator::{Evaluator, EvaluatorError};
#[cfg(feature = "eval")]
use jsonata_core::value::JValue;

use crate::push_children;

/// `$__mcpgraph_pad_arg(arg)`: a `$pad` argument, checked against the size
/// budget.
pub const PAD_ARG: &str = "__mcpgraph_pad_arg";
/// `$__mcpgraph_join(...)`: `$join`, checked against the size budget.
pub const JOIN: &str = "__mcpgraph_join";

/// Rewrites every `$pad` and `$join` call in `ast` (see the module docs).
pub fn guard(ast: &mut AstNode) {
    let mut stack = vec![ast];
    while let Some(node) = stack.pop() {
        if let AstNode::Function {
            name,
            args,
            is_builtin: true,
        } = node
        {
            match name.as_str() {
                "pad" => {
                    for arg in args.iter_mut() {
                        if !matches!(arg, AstNode::Placeholder) {
                            let inner = std::mem::replace(arg, AstNode::Null);
                            *arg = AstNode::Function {
                                name: PAD_ARG.to_owned(),
                                args: vec![inner],
                                is_builtin: true,
                            };
                        }
                    }
                    // The wrapped arguments are walked below, inside their
                    // wrappers.
                }
                "join" => *name = JOIN.to_owned(),
                _ => {}
            }
        }
        push_children(node, &mut stack);
    }
}

/// The code of a budget error (not a JSONata code: those start with S, T,
/// D or U), so the node's error can say which limit it hit.
#[cfg(feature = "eval")]
pub const CODE: &str = "M0001";

/// Registers the functions the rewrite calls, checking sizes against
/// `max_bytes` (`None`: no budget).
#[cfg(feature = "eval")]
pub fn register(evaluator: &mut Evaluator, max_bytes: Option<u64>) {
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

#[cfg(feature = "eval")]
fn over(message: String) -> EvaluatorError {
    EvaluatorError::EvaluationError(format!("{CODE}: Value limit exceeded: {message}"))
}

/// `$join`, as jsonata-core's built-in (signature `<a<s>s?:s>`), failing
/// before it allocates a result longer than `max` bytes.
#[cfg(feature = "eval")]
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
    #[test]
    fn deep_expressions_are_walked_without_recursion() {
        let source = format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000));
        if let Ok(mut ast) = jsonata_core::parser::parse(&source) {
            super::guard(&mut ast);
        }
    }
}

#[cfg(all(test, feature = "eval"))]
mod host_tests {
    use super::*;
    use jsonata_core::evaluator::Context;

    fn eval(source: &str, max: Option<u64>) -> Result<JValue, EvaluatorError> {
        let mut ast = jsonata_core::parser::parse(source).unwrap();
        guard(&mut ast);
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
