//! The JSONata evaluator of a call: its setup (limits as options, the
//! history functions and the value guards registered), evaluation under
//! the expression time limit, and how its errors read.
//!
//! Evaluators are reused: each worker thread keeps the ones its finished
//! calls gave back ([`CallEvaluator::take`], [`CallEvaluator::give_back`]).
//! Building one registers its host functions and its timer, and
//! jsonata-core compiles an object constructor's body once per evaluator
//! (its step cache), so a fresh evaluator per call paid all of that on
//! every call. Nothing of a call outlives it in a reused evaluator: every
//! evaluation pushes and pops its own scope, the history is emptied, and an
//! evaluator whose timer fired or that panicked is replaced, never kept.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use jsonata_core::evaluator::{CancelToken, Context, Evaluator, EvaluatorError, EvaluatorOptions};
use jsonata_core::value::JValue;
use mcpgraph_format::Limits;

use crate::error::{EvalError, EvalErrorKind};
use crate::history::{History, register_history_functions};
use crate::memory;
use crate::native::same;
use crate::parsed::Expr;
use crate::watchdog::{ExpressionTimer, timeout_error};
use crate::{Helpers, bounded, compat};

/// The evaluator of one call, with the watchdog that enforces
/// `maxExpressionTimeMs` through its cancel token.
pub struct CallEvaluator {
    /// jsonata-core's evaluator, built the first time an expression needs
    /// it: one the runtime evaluates itself (`native`) does not, and
    /// a server whose expressions all are never builds one (nor touches
    /// its code, which counts in the resident memory).
    evaluator: Option<Evaluator>,
    timer: ExpressionTimer,
    limits: Limits,
    history: Rc<RefCell<History>>,
    /// The `compat` helpers registered so far: each is registered the
    /// first time an expression needing it runs.
    helpers: Helpers,
}

/// How many idle evaluators a worker thread keeps: enough for the calls
/// one worker runs at once in the common case, few enough that a burst of
/// calls leaves little behind.
const SPARE_PER_THREAD: usize = 8;

thread_local! {
    /// The evaluators this thread's finished calls gave back.
    static SPARE: RefCell<Vec<CallEvaluator>> = const { RefCell::new(Vec::new()) };
}

impl CallEvaluator {
    /// An evaluator for a new call under `limits`, with an empty history:
    /// one this thread kept, if one was built for the same limits.
    pub fn take(limits: Limits) -> Self {
        let spare = SPARE
            .try_with(|spare| spare.borrow_mut().pop())
            .ok()
            .flatten();
        match spare {
            Some(evaluator) if evaluator.limits == limits => evaluator,
            // Another engine's limits (tests run several in one process).
            _ => Self::new(limits, &Rc::new(RefCell::new(History::default()))),
        }
    }

    /// Keeps this evaluator for the thread's next call, its history
    /// emptied (the outputs freed now, not when it is next used).
    pub fn give_back(self) {
        self.history.borrow_mut().clear();
        let _ = SPARE.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARE_PER_THREAD {
                spare.push(self);
            }
        });
    }

    /// The history its history functions read.
    pub fn history(&self) -> &Rc<RefCell<History>> {
        &self.history
    }

    /// An evaluator for a call under `limits`, whose history functions
    /// read `history`.
    fn new(limits: Limits, history: &Rc<RefCell<History>>) -> Self {
        let timer = ExpressionTimer::new(Some(limits.max_expression_time_ms));
        Self {
            evaluator: None,
            timer,
            limits,
            history: Rc::clone(history),
            helpers: Helpers::default(),
        }
    }

    /// The value of `expr` on `context`, or the error as the node reports
    /// it; its time limit counts from `started`.
    pub fn eval(
        &mut self,
        expr: &Expr,
        context: &JValue,
        started: Instant,
    ) -> Result<JValue, EvalError> {
        if let Some(value) = expr.lookup(context) {
            return Ok(value);
        }
        if let Some(native) = expr.native()
            && self.limits.max_expression_depth >= native.depth_needed()
        {
            // Counted, not stopped: a native evaluation is linear in its
            // data, so what it allocated is judged once it returns.
            let metered = memory::arm(self.limits.max_value_bytes, None);
            let value = contained(|| native.eval(context, &self.history.borrow()))
                .map_err(|panic| EvalError::new(EvalErrorKind::Internal, panic.to_string()));
            if metered.disarm() {
                return Err(describe_jsonata_error(&over_budget(
                    self.limits.max_value_bytes,
                )));
            }
            // Nothing stops a native evaluation midway (the watchdog only
            // cancels jsonata-core's token), so one clock read afterwards
            // decides as the watchdog would, a little more precisely; and
            // a call whose expressions are all native starts no watchdog
            // thread.
            if native.timed()
                && let Some(limit) = self.timer.limit_ms()
                && started.elapsed() > Duration::from_millis(limit)
            {
                return Err(describe_jsonata_error(&timeout_error(limit)));
            }
            if let Some(value) = value? {
                if cfg!(debug_assertions) {
                    let evaluated = self.evaluate(expr, context, started);
                    check_native(
                        expr,
                        &value,
                        evaluated.map_err(|e| EvaluatorError::EvaluationError(e.message)),
                    );
                }
                return Ok(value);
            }
        }
        self.evaluate(expr, context, started)
    }

    /// [`CallEvaluator::eval`] by jsonata-core.
    fn evaluate(
        &mut self,
        expr: &Expr,
        context: &JValue,
        started: Instant,
    ) -> Result<JValue, EvalError> {
        let evaluator = self.evaluator.get_or_insert_with(|| {
            new_evaluator(
                Context::new(),
                self.timer.token(),
                Some(self.limits.max_expression_depth),
                Some(self.limits.max_value_bytes),
                &self.history,
            )
        });
        self.helpers = compat::register(evaluator, self.helpers, expr.helpers);
        self.timer.arm(started);
        // What the evaluation allocates counts against `maxValueBytes`
        // (with the counting allocator declared); past it, the token is
        // cancelled as the watchdog would.
        let budget = self.limits.max_value_bytes;
        let metered = memory::arm(budget, Some(self.timer.token_ref()));
        let evaluated = contained(|| evaluator.evaluate(&expr.ast, context));
        let over = metered.disarm();
        let mut result = match evaluated {
            Ok(result) => result,
            Err(panic) => {
                // A panic inside jsonata-core (an arithmetic overflow in a
                // debug build, say) fails this call only; the evaluator may
                // be in any state, so it is replaced.
                self.timer.disarm();
                *self = Self::new(self.limits, &self.history);
                return Err(EvalError::new(EvalErrorKind::Internal, panic.to_string()));
            }
        };
        let timed_out = self.timer.disarm();
        if over || timed_out.is_some() {
            // The token is spent for this evaluator.
            *self = Self::new(self.limits, &self.history);
        }
        // Past a limit, an evaluation fails even if it then returned a
        // value: a built-in that does not look at the token (a huge
        // `$sort`, `$join`) must not escape the limit.
        if over {
            result = Err(over_budget(budget));
        } else if let Some(limit) = timed_out {
            result = Err(timeout_error(limit));
        }
        result.map_err(|e| describe_jsonata_error(&e))
    }
}

/// The error of an evaluation that allocated more than `budget` bytes, as
/// the bounded built-ins report theirs.
fn over_budget(budget: u64) -> EvaluatorError {
    EvaluatorError::EvaluationError(format!(
        "{}: {}",
        bounded::CODE,
        memory::over_budget_message(budget)
    ))
}

/// JSONata errors carry their code in the message (`D1012: ...`); limits
/// get a sentence of their own so the caller knows which one was hit.
fn describe_jsonata_error(e: &EvaluatorError) -> EvalError {
    let text = e.to_string();
    let (kind, message) = match e.code() {
        Some("D1012") => (
            EvalErrorKind::ExpressionTime,
            format!("JSONata evaluation exceeded maxExpressionTimeMs ({text})"),
        ),
        Some("D1011") | Some("U1001") => (
            EvalErrorKind::ExpressionDepth,
            format!("JSONata evaluation exceeded maxExpressionDepth ({text})"),
        ),
        Some(bounded::CODE) => (
            EvalErrorKind::ValueBytes,
            e.message()[bounded::CODE.len() + 2..].to_owned(),
        ),
        Some("D2015") => (
            EvalErrorKind::ValueBytes,
            format!("Value limit exceeded: a sequence would be larger than maxValueBytes ({text})"),
        ),
        _ => (EvalErrorKind::Expression, format!("JSONata error: {text}")),
    };
    EvalError::new(kind, message)
}

/// The evaluator every expression of a call runs in: the limits as
/// evaluator options and the history functions registered. The conformance
/// runner builds its evaluator here too, so it tests this exact setup.
fn new_evaluator(
    context: Context,
    cancel: CancelToken,
    depth: Option<u64>,
    value_bytes: Option<u64>,
    history: &Rc<RefCell<History>>,
) -> Evaluator {
    // The time limit is the watchdog's (`cancel`), not jsonata's
    // `timeout_ms`, which reads the clock at every node evaluated.
    // A sequence of items takes at least two bytes an item (`0,`): the
    // byte budget caps ranges, paths, maps and filters before they are
    // built (D2015, reported as `maxValueBytes`).
    let options = EvaluatorOptions {
        max_stack_depth: depth.map(|d| usize::try_from(d).unwrap_or(usize::MAX)),
        max_sequence_length: value_bytes.map(|b| usize::try_from(b / 2).unwrap_or(usize::MAX)),
        cancel: Some(cancel.clone()),
        ..Default::default()
    };
    let mut evaluator = Evaluator::with_options(context, options);
    register_history_functions(&mut evaluator, history);
    bounded::register(&mut evaluator, value_bytes, Some(cancel));
    evaluator
}

/// In debug builds, that jsonata-core's result (`evaluated`) is the value
/// `native` gave for `expr` (see `same`), unless jsonata-core ran out
/// of time, which says nothing of the value.
fn check_native(expr: &Expr, value: &JValue, evaluated: Result<JValue, EvaluatorError>) {
    if !cfg!(debug_assertions) {
        return;
    }
    match evaluated {
        Ok(want) => assert!(
            same(value, &want),
            "`{}`: evaluated natively as {value:?}, by jsonata-core as {want:?}",
            expr.source()
        ),
        Err(e)
            if e.to_string().contains("D1012") || e.to_string().contains("maxExpressionTimeMs") => {
        }
        Err(e) => panic!(
            "`{}`: evaluated natively as {value:?}, jsonata-core fails: {e}",
            expr.source()
        ),
    }
}

/// Runs `f`, turning a panic into an error: a bug in an evaluator must
/// cost the call it hit, never the worker or the process.
pub fn contained<T>(f: impl FnOnce() -> T) -> Result<T, Panicked> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_owned());
        Panicked(what)
    })
}

/// A panic in an evaluator, caught by [`contained`]: what it said.
#[derive(Debug)]
pub struct Panicked(String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "internal error in the expression evaluator: {}", self.0)
    }
}

pub(crate) mod standalone;
#[cfg(test)]
mod tests;

pub use standalone::evaluate_on;
#[cfg(feature = "testing")]
pub use standalone::evaluate_standalone;
