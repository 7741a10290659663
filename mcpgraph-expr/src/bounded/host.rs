//! The functions the rewrite calls, checked against the evaluation's
//! budget (the `eval` feature): every evaluator of the runtime registers
//! them.

use jsonata_core::evaluator::{CancelToken, Evaluator, EvaluatorError};
use jsonata_core::value::JValue;

use super::{DISTINCT, JOIN, PAD_ARG, REPLACE_CHECK, STRING_CHECK};

pub(super) mod distinct;
mod join;
mod replace;
mod string;

/// The code of a budget error (not a JSONata code: those start with S, T,
/// D or U), so the node's error can say which limit it hit.
pub const CODE: &str = "M0001";

/// What a host function here may spend: bytes, and time (the evaluation's
/// cancel token, which the watchdog cancels at its deadline).
pub(super) struct Budget {
    pub(super) max_bytes: u64,
    pub(super) cancel: Option<CancelToken>,
}

/// What a check gives when the call may go ahead (the block drops it).
const PASS: Result<JValue, EvaluatorError> = Ok(JValue::Undefined);

impl Budget {
    /// jsonata-core's own error once the evaluation has been cancelled
    /// (the runtime reports it as the time limit).
    fn check_time(&self) -> Result<(), EvaluatorError> {
        match &self.cancel {
            Some(token) if token.is_cancelled() => Err(EvaluatorError::EvaluationError(
                "U1003: Evaluation cancelled".to_owned(),
            )),
            _ => Ok(()),
        }
    }

    fn over(&self, message: String) -> EvaluatorError {
        over(message)
    }
}

/// Registers the functions the rewrite calls, checking sizes against
/// `max_bytes` (`None`: no budget) and time against `cancel`, the token
/// the evaluator stops on.
pub fn register(evaluator: &mut Evaluator, max_bytes: Option<u64>, cancel: Option<CancelToken>) {
    let max = max_bytes.unwrap_or(u64::MAX);
    let budget = std::rc::Rc::new(Budget {
        max_bytes: max,
        cancel,
    });
    let pad_arg = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let value = args.first().cloned().unwrap_or(JValue::Undefined);
        match value {
            JValue::Number(width) if width.abs() > max as f64 => Err(over(format!(
                "`$pad` to {width} characters would be larger than maxValueBytes ({max} bytes)"
            ))),
            value => Ok(value),
        }
    };
    let join = move |args: &[JValue]| join::join(args, max);
    let with = |f: fn(&[JValue], &Budget) -> Result<JValue, EvaluatorError>| {
        let budget = std::rc::Rc::clone(&budget);
        move |args: &[JValue]| f(args, &budget)
    };
    for (name, result) in [
        (PAD_ARG, evaluator.register_fn(PAD_ARG, pad_arg)),
        (JOIN, evaluator.register_fn(JOIN, join)),
        (
            DISTINCT,
            evaluator.register_fn(DISTINCT, with(distinct::distinct)),
        ),
        (
            REPLACE_CHECK,
            evaluator.register_fn(REPLACE_CHECK, with(replace::check)),
        ),
        (
            STRING_CHECK,
            evaluator.register_fn(STRING_CHECK, with(string::check)),
        ),
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
