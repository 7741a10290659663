//! What an operator reads besides its own arguments and what it throws
//! ([`Env`]), and its arguments as it sees them ([`Operands`]): evaluated
//! on demand, by the evaluator (`eval`) that implements the trait. The
//! operators (`ops`, `scope`) depend on this file, not on the evaluator,
//! which depends on them.

use std::cell::{Cell, OnceCell};
use std::time::Instant;

use jsonata_core::value::JValue;

use super::value::Val;

/// How many loop steps go between two looks at the clock.
const STEPS_PER_LOOK: u32 = 256;

/// What a rule reads besides its own literals, and what it threw.
///
/// A throw of json-logic-js is recorded here rather than returned:
/// evaluation returns bare values, which stay in registers (a `Result`
/// around each was copied through memory at every step, which cost more
/// than the operators). After a throw the rest of the rule still runs,
/// without effects (`log` is silent, loops stop), and its value is
/// discarded: the rule's outcome is the first error.
pub(super) struct Env<'a> {
    /// The slot values (`var`s, evaluated with JSONata against the context).
    slots: &'a [JValue],
    /// The first error json-logic-js would have thrown, or the limit the
    /// rule ran into.
    error: OnceCell<LogicError>,
    bounds: Bounds,
    /// Loop steps since the clock was last read.
    steps: Cell<u32>,
    /// Bytes the rule has built so far (strings, and two an item of the
    /// lists it built).
    spent: Cell<u64>,
}

impl<'a> Env<'a> {
    pub(super) fn new(slots: &'a [JValue], bounds: Bounds) -> Self {
        Env {
            slots,
            error: OnceCell::new(),
            bounds,
            steps: Cell::new(0),
            spent: Cell::new(0),
        }
    }

    /// One step of a loop over data: false (and the rule stops, as after
    /// a throw) once the rule has run past its deadline or stopped.
    #[inline]
    pub(super) fn step(&self) -> bool {
        let steps = self.steps.get().wrapping_add(1);
        self.steps.set(steps);
        if steps.is_multiple_of(STEPS_PER_LOOK)
            && let Some(deadline) = self.bounds.deadline
            && Instant::now() >= deadline
        {
            let _ = self.error.set(LogicError::TimeLimit);
        }
        !self.thrown()
    }

    /// Counts `bytes` more built: false (and the rule stops) when that
    /// takes the rule past its byte budget. Called before building.
    #[inline]
    pub(super) fn spend(&self, bytes: u64) -> bool {
        let spent = self.spent.get().saturating_add(bytes);
        self.spent.set(spent);
        if spent > self.bounds.max_bytes {
            let _ = self
                .error
                .set(LogicError::ValueLimit(self.bounds.max_bytes));
        }
        !self.thrown()
    }

    /// Slot `i`'s value; `undefined` for a `var` that read nothing.
    #[inline]
    pub(super) fn slot(&self, i: usize) -> Val<'a> {
        self.slots.get(i).map_or(Val::Undefined, Val::data)
    }

    /// Records a throw (the first one counts); its value is `undefined`.
    #[cold]
    pub(super) fn throw(&self, message: impl Into<Box<str>>) -> Val<'a> {
        let _ = self.error.set(LogicError::Thrown(message.into().into()));
        Val::Undefined
    }

    /// Whether the rule has thrown: its value no longer matters.
    #[inline]
    pub(super) fn thrown(&self) -> bool {
        self.error.get().is_some()
    }

    /// The rule's value, or what it threw or ran into.
    pub(super) fn bounded_outcome<T>(self, value: T) -> Result<T, LogicError> {
        match self.error.into_inner() {
            Some(error) => Err(error),
            None => Ok(value),
        }
    }
}

/// An operation's arguments, not yet evaluated: an operator evaluates
/// those it needs, when it needs them (`if`, `and`, `or` and the iterating
/// operators evaluate lazily; the others all first).
pub(super) trait Operands<'a> {
    /// How many arguments there are.
    fn len(&self) -> usize;

    /// Argument `i`, evaluated against `data`; `undefined` past the end.
    fn eval(&self, i: usize, env: &Env<'a>, data: &Val<'a>) -> Val<'a>;

    /// The first `N` arguments, after evaluating all of them (json-logic-js
    /// evaluates arguments an operator then ignores, errors included).
    fn first<const N: usize>(&self, env: &Env<'a>, data: &Val<'a>) -> [Val<'a>; N] {
        let mut out: [Val<'a>; N] = std::array::from_fn(|_| Val::Undefined);
        for i in 0..self.len() {
            let value = self.eval(i, env, data);
            if let Some(slot) = out.get_mut(i) {
                *slot = value;
            }
        }
        out
    }

    /// All arguments, evaluated.
    fn all(&self, env: &Env<'a>, data: &Val<'a>) -> Vec<Val<'a>> {
        (0..self.len()).map(|i| self.eval(i, env, data)).collect()
    }
}

/// The limits of one application of a rule.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// When the rule must have finished (`None`: never).
    pub deadline: Option<Instant>,
    /// How many bytes of strings and lists (two bytes an item) the rule
    /// may build in all.
    pub max_bytes: u64,
}

impl Bounds {
    /// No limits.
    pub const NONE: Bounds = Bounds {
        deadline: None,
        max_bytes: u64::MAX,
    };
}

/// Why a rule has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogicError {
    /// What json-logic-js would have thrown.
    Thrown(String),
    /// The rule ran past its deadline ([`Bounds::deadline`]).
    TimeLimit,
    /// The rule would have built more than this many bytes
    /// ([`Bounds::max_bytes`]).
    ValueLimit(u64),
}

impl std::fmt::Display for LogicError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogicError::Thrown(message) => f.write_str(message),
            LogicError::TimeLimit => f.write_str("the rule ran past its time limit"),
            LogicError::ValueLimit(max) => {
                write!(f, "the rule would build more than {max} bytes")
            }
        }
    }
}
