//! The common shapes of a JSONata expression, evaluated without
//! jsonata-core: paths through objects, literals, object and array
//! constructors, arithmetic, comparisons, `&`, `and`/`or`, `? :`, a few
//! built-ins on their plain arguments and `$executionCount`.
//!
//! jsonata-core's tree walker spends most of a small expression's time
//! around the work (checkpoints, scopes, a signature check per built-in
//! call): the benchmark's 50-field object of sums and string functions
//! took 33 µs, and takes 10 µs here. [`Native::compile`] takes an expression only
//! when every node is one of these shapes, and [`Native::eval`] computes
//! only the plain case of each, the one whose answer jsonata-core's own
//! code gives in a line: numbers that are finite, strings where strings
//! are expected, objects along a path. Anything else (an array on the way
//! of a path, a value of the wrong type, an error to report) gives `None`,
//! and the whole expression is evaluated by jsonata-core as before, so
//! errors and the rarer rules keep jsonata-core's wording and behaviour.
//! Expressions are pure, so evaluating one again after giving up is safe.
//!
//! Debug builds evaluate every expression taken here with jsonata-core too
//! and panic if the two values differ in anything the rest of the call can
//! see ([`same`]: key order and array flags included), so every test graph
//! and every case of the JSONata suite the conformance runner takes here
//! is a comparison of the two.

mod compile;
mod eval;

use jsonata_core::ast::AstNode;
use jsonata_core::value::JValue;

use crate::history::History;
pub(crate) use eval::lookup;

/// An expression in the shapes this module evaluates.
#[derive(Debug)]
pub(crate) struct Native {
    root: Node,
    /// The nesting of `root`, from which [`Native::depth_needed`] follows.
    depth: u64,
    /// Whether its time can grow with the data (see [`Native::timed`]).
    timed: bool,
}

#[derive(Debug)]
enum Node {
    /// A literal.
    Value(Literal),
    /// Field names from the context (`$.a.b`, `a.b`, `$`).
    Path(Box<[Box<str>]>),
    /// `path[i]` with a literal whole number `i`.
    Index(Box<[Box<str>]>, f64),
    /// `{"key": value, ...}` with literal keys, none repeated.
    Object(Box<[(Box<str>, Node)]>),
    /// `[a, b, ...]`; each item with whether it is itself an array
    /// constructor (kept as one item rather than spliced in).
    Array(Box<[(Node, bool)]>),
    Arithmetic(Arithmetic, Box<[Node; 2]>),
    Order(Order, Box<[Node; 2]>),
    /// `=` (false) or `!=` (true).
    Equal(bool, Box<[Node; 2]>),
    Concat(Box<[Node; 2]>),
    And(Box<[Node; 2]>),
    Or(Box<[Node; 2]>),
    Negate(Box<Node>),
    Conditional(Box<(Node, Node, Option<Node>)>),
    Call(Builtin, Box<[Node]>),
    /// `$executionCount("node")`.
    ExecutionCount(Box<str>),
    /// `crate::compat`'s check of an arithmetic operand (false) or
    /// of a value tested for truth (true) that may be NaN or infinite.
    Finite(Box<Node>, bool),
}

/// A literal, kept as plain data: the compiled graph is shared between
/// threads, and a `JValue` may not be.
#[derive(Debug)]
enum Literal {
    String(Box<str>),
    Number(f64),
    Bool(bool),
    Null,
}

impl Literal {
    fn value(&self) -> JValue {
        match self {
            Literal::String(s) => JValue::string(&**s),
            Literal::Number(n) => JValue::Number(*n),
            Literal::Bool(b) => JValue::Bool(*b),
            Literal::Null => JValue::Null,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Arithmetic {
    Add,
    Subtract,
    Multiply,
    Divide,
    Modulo,
}

#[derive(Clone, Copy, Debug)]
enum Order {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

/// The built-ins taken here, each with the number of arguments it takes
/// here (fewer would make it read the context).
#[derive(Clone, Copy, Debug)]
enum Builtin {
    Count,
    Sum,
    String,
    Uppercase,
    Lowercase,
    Trim,
    Length,
    /// With two or three arguments.
    Substring,
    Split,
    Keys,
    Exists,
    Boolean,
    Not,
}

impl Builtin {
    fn of(name: &str, arity: usize) -> Option<Self> {
        Some(match (name, arity) {
            ("count", 1) => Builtin::Count,
            ("sum", 1) => Builtin::Sum,
            ("string", 1) => Builtin::String,
            ("uppercase", 1) => Builtin::Uppercase,
            ("lowercase", 1) => Builtin::Lowercase,
            ("trim", 1) => Builtin::Trim,
            ("length", 1) => Builtin::Length,
            ("substring", 2 | 3) => Builtin::Substring,
            ("split", 2) => Builtin::Split,
            ("keys", 1) => Builtin::Keys,
            ("exists", 1) => Builtin::Exists,
            ("boolean", 1) => Builtin::Boolean,
            ("not", 1) => Builtin::Not,
            _ => return None,
        })
    }
}

impl Native {
    /// `ast` in this module's shapes, or `None`.
    pub(crate) fn compile(ast: &AstNode) -> Option<Self> {
        let mut depth = 0;
        let root = compile::node(ast, 1, &mut depth)?;
        let timed = compile::timed(&root);
        Some(Self { root, depth, timed })
    }

    /// Whether an evaluation may take time that grows with the data (a
    /// string built or compared, a built-in, an array scanned or spliced),
    /// and so must run under `maxExpressionTimeMs`. The others (fields
    /// looked up, numbers computed, objects of a fixed set of fields)
    /// take a time bounded by the expression's size.
    pub(super) fn timed(&self) -> bool {
        self.timed
    }

    /// The smallest `maxExpressionDepth` under which jsonata-core is sure
    /// not to run out of depth on this expression; below it, the
    /// expression is left to jsonata-core to report. Each level of the
    /// tree is at most three of jsonata-core's (the node, a path's step,
    /// a built-in's argument); the conformance runner's comparison checks
    /// the bound.
    pub(super) fn depth_needed(&self) -> u64 {
        3 * self.depth + 4
    }

    /// The value of the expression on `data`, or `None` to evaluate it
    /// with jsonata-core.
    pub(crate) fn eval(&self, data: &JValue, history: &History) -> Option<JValue> {
        eval::eval(&self.root, data, history)
    }
}

/// Whether two values are the same to everything after the evaluation:
/// equal, with keys in the same order, numbers of the same bits and
/// arrays with the same flags.
pub(crate) fn same(a: &JValue, b: &JValue) -> bool {
    same_within(a, b, 256)
}

/// [`same`], as plain equality below `levels` (jsonata-core's own
/// comparison does not overflow the stack).
fn same_within(a: &JValue, b: &JValue, levels: u32) -> bool {
    if levels == 0 {
        return a == b;
    }
    let same = |a, b| same_within(a, b, levels - 1);
    match (a, b) {
        (JValue::Number(x), JValue::Number(y)) => x.to_bits() == y.to_bits(),
        (JValue::Array(x), JValue::Array(y)) => {
            x.len() == y.len()
                && x.sequence == y.sequence
                && x.cons == y.cons
                && x.keep_singleton == y.keep_singleton
                && x.outer_wrapper == y.outer_wrapper
                && x.sorted_tuples == y.sorted_tuples
                && x.iter().zip(y.iter()).all(|(x, y)| same(x, y))
        }
        (JValue::Object(x), JValue::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests;
