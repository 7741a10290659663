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

use indexmap::IndexMap;
use jsonata_core::ast::{AstNode, BinaryOp, PathStep, Stage, UnaryOp};
use jsonata_core::functions;
use jsonata_core::value::{JArray, JValue, flattens_in_step};

use super::history::History;
use crate::expr::is_plain_step;
use crate::js_compat::finite;

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
    /// `js_compat`'s check of an arithmetic operand (false) or of a value
    /// tested for truth (true) that may be NaN or infinite.
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
    Substring2,
    Substring3,
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
            ("substring", 2) => Builtin::Substring2,
            ("substring", 3) => Builtin::Substring3,
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
        let root = node(ast, 1, &mut depth)?;
        let timed = timed(&root);
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
    pub(super) fn eval(&self, data: &JValue, history: &History) -> Option<JValue> {
        eval(&self.root, data, history)
    }
}

fn pair(lhs: &AstNode, rhs: &AstNode, level: u64, depth: &mut u64) -> Option<Box<[Node; 2]>> {
    Some(Box::new([
        node(lhs, level + 1, depth)?,
        node(rhs, level + 1, depth)?,
    ]))
}

/// The deepest tree taken here: compiling, evaluating and dropping one
/// recurse, and an expression nested deeper is no common shape.
const MAX_DEPTH: u64 = 48;

fn node(ast: &AstNode, level: u64, depth: &mut u64) -> Option<Node> {
    if level > MAX_DEPTH {
        return None;
    }
    *depth = (*depth).max(level);
    Some(match ast {
        AstNode::String(s) => Node::Value(Literal::String(s.as_str().into())),
        AstNode::Number(n) => Node::Value(Literal::Number(*n)),
        AstNode::Boolean(b) => Node::Value(Literal::Bool(*b)),
        AstNode::Null => Node::Value(Literal::Null),
        AstNode::Variable(name) if name.is_empty() => Node::Path(Box::default()),
        AstNode::Name(name) => Node::Path(Box::new([name.as_str().into()])),
        AstNode::Path { steps } => path(steps)?,
        // Parentheses around one expression (not an array constructor,
        // which a block keeps whole).
        AstNode::Block(inner) => match inner.as_slice() {
            [inner] if !matches!(inner, AstNode::Array(_)) => node(inner, level + 1, depth)?,
            _ => return None,
        },
        AstNode::Binary { op, lhs, rhs } => {
            let operands = pair(lhs, rhs, level, depth)?;
            match op {
                BinaryOp::Add => Node::Arithmetic(Arithmetic::Add, operands),
                BinaryOp::Subtract => Node::Arithmetic(Arithmetic::Subtract, operands),
                BinaryOp::Multiply => Node::Arithmetic(Arithmetic::Multiply, operands),
                BinaryOp::Divide => Node::Arithmetic(Arithmetic::Divide, operands),
                BinaryOp::Modulo => Node::Arithmetic(Arithmetic::Modulo, operands),
                BinaryOp::LessThan => Node::Order(Order::Less, operands),
                BinaryOp::LessThanOrEqual => Node::Order(Order::LessOrEqual, operands),
                BinaryOp::GreaterThan => Node::Order(Order::Greater, operands),
                BinaryOp::GreaterThanOrEqual => Node::Order(Order::GreaterOrEqual, operands),
                BinaryOp::Equal => Node::Equal(false, operands),
                BinaryOp::NotEqual => Node::Equal(true, operands),
                BinaryOp::Concatenate => Node::Concat(operands),
                BinaryOp::And => Node::And(operands),
                BinaryOp::Or => Node::Or(operands),
                _ => return None,
            }
        }
        AstNode::Unary {
            op: UnaryOp::Negate,
            operand,
        } => Node::Negate(Box::new(node(operand, level + 1, depth)?)),
        AstNode::Conditional {
            condition,
            then_branch,
            else_branch,
        } => {
            let otherwise = match else_branch {
                Some(e) => Some(node(e, level + 1, depth)?),
                None => None,
            };
            Node::Conditional(Box::new((
                node(condition, level + 1, depth)?,
                node(then_branch, level + 1, depth)?,
                otherwise,
            )))
        }
        AstNode::Object(pairs) => {
            let mut fields: Vec<(Box<str>, Node)> = Vec::with_capacity(pairs.len());
            for (key, value) in pairs {
                let AstNode::String(key) = key else {
                    return None;
                };
                // A repeated key is jsonata-core's error to report.
                if fields.iter().any(|(k, _)| **k == **key) {
                    return None;
                }
                fields.push((key.as_str().into(), node(value, level + 1, depth)?));
            }
            Node::Object(fields.into_boxed_slice())
        }
        AstNode::Array(items) => Node::Array(
            items
                .iter()
                .map(|item| {
                    let kept = matches!(item, AstNode::Array(_));
                    Some((node(item, level + 1, depth)?, kept))
                })
                .collect::<Option<_>>()?,
        ),
        AstNode::Function {
            name,
            args,
            is_builtin: true,
        } => {
            match (name.as_str(), args.as_slice()) {
                ("executionCount", [AstNode::String(id)]) => {
                    return Some(Node::ExecutionCount(id.as_str().into()));
                }
                (finite::OPERAND, [value, AstNode::Number(_)]) | (finite::TRUTH, [value]) => {
                    let truth = name == finite::TRUTH;
                    return Some(Node::Finite(
                        Box::new(node(value, level + 1, depth)?),
                        truth,
                    ));
                }
                _ => {}
            }
            let builtin = Builtin::of(name, args.len())?;
            Node::Call(
                builtin,
                args.iter()
                    .map(|arg| node(arg, level + 1, depth))
                    .collect::<Option<_>>()?,
            )
        }
        _ => return None,
    })
}

/// See [`Native::timed`]. Comparing with a literal is bounded by the
/// literal; values are shared, never copied, when they are passed on.
fn timed(node: &Node) -> bool {
    let literal = |node: &Node| matches!(node, Node::Value(_));
    match node {
        Node::Value(_) | Node::Path(_) | Node::ExecutionCount(_) => false,
        Node::Index(..) | Node::Concat(_) | Node::Call(..) => true,
        Node::Object(fields) => fields.iter().any(|(_, value)| timed(value)),
        Node::Array(items) => items.iter().any(|(item, kept)| !kept || timed(item)),
        Node::Order(_, operands) | Node::Equal(_, operands) => {
            !(literal(&operands[0]) || literal(&operands[1])) || operands.iter().any(timed)
        }
        Node::Arithmetic(_, operands) | Node::And(operands) | Node::Or(operands) => {
            operands.iter().any(timed)
        }
        Node::Negate(operand) | Node::Finite(operand, _) => timed(operand),
        Node::Conditional(parts) => {
            let (condition, then, otherwise) = &**parts;
            timed(condition) || timed(then) || otherwise.as_ref().is_some_and(timed)
        }
    }
}

/// A path of plain field steps, optionally from `$`, the last one
/// optionally selecting a literal whole-number position.
fn path(steps: &[PathStep]) -> Option<Node> {
    let mut names: Vec<Box<str>> = Vec::with_capacity(steps.len());
    let mut index = None;
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        if !is_plain_step(step) {
            match (last, step.stages.as_slice()) {
                (true, [Stage::Filter(position)])
                    if step.focus.is_none()
                        && step.index_var.is_none()
                        && step.ancestor_label.is_none()
                        && !step.is_tuple
                        && !step.inner_tuple =>
                {
                    let n = match &**position {
                        AstNode::Number(n) => *n,
                        AstNode::Unary {
                            op: UnaryOp::Negate,
                            operand,
                        } => match **operand {
                            AstNode::Number(n) => -n,
                            _ => return None,
                        },
                        _ => return None,
                    };
                    if n.fract() != 0.0 || n.abs() > 1e15 {
                        return None;
                    }
                    index = Some(n);
                }
                _ => return None,
            }
        }
        match &step.node {
            AstNode::Variable(name) if name.is_empty() && i == 0 && index.is_none() => {}
            AstNode::Name(name) => names.push(name.as_str().into()),
            _ => return None,
        }
    }
    let names = names.into_boxed_slice();
    Some(match index {
        Some(i) if !names.is_empty() => Node::Index(names, i),
        Some(_) => return None,
        None => Node::Path(names),
    })
}

/// The value at `names` from `data` (`Some(None)`: nothing), when that is
/// certain to be what jsonata-core gives: fields looked up through
/// objects, a missing one giving nothing, the last value returned as it is
/// (an array too: jsonata-js returns a last step's single array
/// unchanged). `None` (evaluate it) for anything else, such as a step
/// through an array, which maps.
pub(crate) fn lookup<'a>(data: &'a JValue, names: &[Box<str>]) -> Option<Option<&'a JValue>> {
    let mut current = data;
    for (i, name) in names.iter().enumerate() {
        let JValue::Object(map) = current else {
            return None;
        };
        match crate::value::field(map, name) {
            Some(JValue::Array(_)) if i + 1 < names.len() => return None,
            Some(value) => current = value,
            None => return Some(None),
        }
    }
    match current {
        // `$` on an array input is a sequence to jsonata; an array built
        // by the evaluator may unwrap or flatten where an input's does not.
        JValue::Array(_) if names.is_empty() => None,
        JValue::Array(array) if flagged(array) => None,
        value => Some(Some(value)),
    }
}

/// Whether an array carries any of the flags jsonata-core reads.
fn flagged(array: &JArray) -> bool {
    array.sequence
        || array.cons
        || array.keep_singleton
        || array.outer_wrapper
        || array.sorted_tuples
}

/// Whether an array's one flag is `sequence` (a built-in's list of values).
fn only_a_sequence(array: &JArray) -> bool {
    array.sequence
        && !(array.cons || array.keep_singleton || array.outer_wrapper || array.sorted_tuples)
}

fn number(value: &JValue) -> Option<f64> {
    match value {
        JValue::Number(n) if n.is_finite() => Some(*n),
        _ => None,
    }
}

fn eval(node: &Node, data: &JValue, history: &History) -> Option<JValue> {
    Some(match node {
        Node::Value(literal) => literal.value(),
        Node::Path(names) => lookup(data, names)?.cloned().unwrap_or(JValue::Undefined),
        Node::Index(names, i) => match lookup(data, names)? {
            None => JValue::Undefined,
            Some(JValue::Array(items)) => {
                if items.iter().any(|item| matches!(item, JValue::Array(_))) {
                    return None;
                }
                let at = if *i < 0.0 { items.len() as f64 + i } else { *i };
                if at >= 0.0 && at < items.len() as f64 {
                    items[at as usize].clone()
                } else {
                    JValue::Undefined
                }
            }
            Some(value) if *i == 0.0 || *i == -1.0 => value.clone(),
            Some(_) => JValue::Undefined,
        },
        Node::Object(fields) => {
            if matches!(data, JValue::Array(_)) {
                return None;
            }
            let mut object = IndexMap::with_capacity(fields.len());
            for (key, value) in fields.iter() {
                let value = eval(value, data, history)?;
                if !value.is_undefined() {
                    object.insert(key.to_string(), value);
                }
            }
            JValue::object(object)
        }
        Node::Array(items) => {
            let mut values = Vec::with_capacity(items.len());
            let mut flat = true;
            for (item, kept) in items.iter() {
                match eval(item, data, history)? {
                    JValue::Undefined => {}
                    JValue::Array(array) if !kept => {
                        flat &= array.is_flat();
                        values.extend(array.iter().cloned());
                    }
                    value => {
                        flat &= !flattens_in_step(&value);
                        values.push(value);
                    }
                }
            }
            JValue::Array(JArray::new_flat(values, flat))
        }
        Node::Arithmetic(op, operands) => {
            let lhs = eval(&operands[0], data, history)?;
            let rhs = eval(&operands[1], data, history)?;
            match (&lhs, &rhs) {
                (JValue::Number(_), JValue::Number(_)) => {
                    let (a, b) = (number(&lhs)?, number(&rhs)?);
                    JValue::Number(match op {
                        Arithmetic::Add => a + b,
                        Arithmetic::Subtract => a - b,
                        Arithmetic::Multiply => a * b,
                        Arithmetic::Divide => a / b,
                        Arithmetic::Modulo => a % b,
                    })
                }
                (JValue::Undefined, JValue::Undefined) => JValue::Undefined,
                (JValue::Undefined, other) | (other, JValue::Undefined) => {
                    number(other)?;
                    JValue::Undefined
                }
                _ => return None,
            }
        }
        Node::Order(op, operands) => {
            let lhs = eval(&operands[0], data, history)?;
            let rhs = eval(&operands[1], data, history)?;
            let ordering = match (&lhs, &rhs) {
                (JValue::Number(a), JValue::Number(b)) => a.partial_cmp(b),
                (JValue::String(a), JValue::String(b)) => Some(a.cmp(b)),
                (JValue::Undefined, JValue::Undefined | JValue::Number(_) | JValue::String(_))
                | (JValue::Number(_) | JValue::String(_), JValue::Undefined) => {
                    return Some(JValue::Undefined);
                }
                _ => return None,
            };
            let Some(ordering) = ordering else {
                // NaN: every comparison is false.
                return Some(JValue::Bool(false));
            };
            JValue::Bool(match op {
                Order::Less => ordering.is_lt(),
                Order::LessOrEqual => ordering.is_le(),
                Order::Greater => ordering.is_gt(),
                Order::GreaterOrEqual => ordering.is_ge(),
            })
        }
        Node::Equal(negated, operands) => {
            let lhs = eval(&operands[0], data, history)?;
            let rhs = eval(&operands[1], data, history)?;
            if *negated && (lhs.is_undefined() || rhs.is_undefined()) {
                return Some(JValue::Bool(false));
            }
            JValue::Bool(functions::array::values_equal(&lhs, &rhs) != *negated)
        }
        Node::Concat(operands) => {
            let mut text = String::new();
            for operand in operands.iter() {
                // A literal's text is copied as it is, with no value built.
                if let Node::Value(Literal::String(s)) = operand {
                    text.push_str(s);
                    continue;
                }
                let value = eval(operand, data, history)?;
                match &value {
                    JValue::String(s) => text.push_str(s),
                    JValue::Undefined => {}
                    JValue::Null
                    | JValue::Number(_)
                    | JValue::Bool(_)
                    | JValue::Array(_)
                    | JValue::Object(_) => match functions::string::string(&value, None) {
                        Ok(JValue::String(s)) => text.push_str(&s),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            JValue::string(text)
        }
        Node::And(operands) => {
            let lhs = eval(&operands[0], data, history)?;
            JValue::Bool(truthy(&lhs)? && truthy(&eval(&operands[1], data, history)?)?)
        }
        Node::Or(operands) => {
            let lhs = eval(&operands[0], data, history)?;
            JValue::Bool(truthy(&lhs)? || truthy(&eval(&operands[1], data, history)?)?)
        }
        Node::Negate(operand) => match eval(operand, data, history)? {
            JValue::Undefined => JValue::Undefined,
            value => JValue::Number(-number(&value)?),
        },
        Node::Conditional(parts) => {
            let (condition, then, otherwise) = &**parts;
            if truthy(&eval(condition, data, history)?)? {
                eval(then, data, history)?
            } else if let Some(otherwise) = otherwise {
                eval(otherwise, data, history)?
            } else {
                JValue::Undefined
            }
        }
        Node::Call(builtin, args) => {
            let mut values = Vec::with_capacity(args.len());
            for arg in args.iter() {
                values.push(eval(arg, data, history)?);
            }
            call(*builtin, &values)?
        }
        Node::ExecutionCount(id) => JValue::Number(history.count(id) as f64),
        Node::Finite(value, truth) => match eval(value, data, history)? {
            JValue::Number(n) if n.is_nan() && *truth => JValue::Bool(false),
            JValue::Number(n) if !n.is_finite() => return None,
            value => value,
        },
    })
}

/// jsonata's truth of a value, for the values whose truth needs no
/// recursion (an array's depends on its items: jsonata-core's to say).
fn truthy(value: &JValue) -> Option<bool> {
    Some(match value {
        JValue::Null | JValue::Undefined => false,
        JValue::Bool(b) => *b,
        JValue::Number(_) => number(value)? != 0.0,
        JValue::String(s) => !s.is_empty(),
        JValue::Object(object) => !object.is_empty(),
        _ => return None,
    })
}

/// A built-in on evaluated arguments, in the plain case of each: an
/// undefined first argument gives nothing (or 0, or false, as the
/// built-in says), and the rest have the types the built-in wants.
fn call(builtin: Builtin, args: &[JValue]) -> Option<JValue> {
    let first = &args[0];
    let text = || match first {
        JValue::String(s) => Some(&**s),
        _ => None,
    };
    let whole = |value: &JValue| number(value).filter(|n| n.fract() == 0.0 && n.abs() < 1e15);
    if first.is_undefined() {
        // The other arguments are checked first.
        for arg in &args[1..] {
            match builtin {
                Builtin::Split => matches!(arg, JValue::String(_)).then_some(())?,
                _ => whole(arg).map(drop)?,
            }
        }
        return Some(match builtin {
            Builtin::Count => JValue::Number(0.0),
            Builtin::Exists => JValue::Bool(false),
            _ => JValue::Undefined,
        });
    }
    Some(match builtin {
        Builtin::Count => match first {
            JValue::Array(items) if !flagged(items) || only_a_sequence(items) => {
                JValue::Number(items.len() as f64)
            }
            JValue::Array(_) | JValue::Null => return None,
            _ => JValue::Number(1.0),
        },
        Builtin::Sum => match first {
            JValue::Number(_) => JValue::Number(number(first)?),
            JValue::Array(items) if !flagged(items) => {
                let mut total = 0.0;
                for item in items.iter() {
                    total += number(item)?;
                }
                JValue::Number(total)
            }
            _ => return None,
        },
        Builtin::String => match first {
            JValue::String(_) | JValue::Null | JValue::Bool(_) | JValue::Number(_) => {
                functions::string::string(first, None).ok()?
            }
            _ => return None,
        },
        Builtin::Uppercase => functions::string::uppercase(text()?).ok()?,
        Builtin::Lowercase => functions::string::lowercase(text()?).ok()?,
        Builtin::Trim => functions::string::trim(text()?).ok()?,
        Builtin::Length => functions::string::length(text()?).ok()?,
        Builtin::Substring2 | Builtin::Substring3 => {
            let start = whole(&args[1])? as i64;
            let length = match args.get(2) {
                Some(length) => Some(whole(length)? as i64),
                None => None,
            };
            functions::string::substring(text()?, start, length).ok()?
        }
        Builtin::Split => match &args[1] {
            JValue::String(separator) if !separator.is_empty() => {
                functions::string::split(text()?, &args[1], None).ok()?
            }
            _ => return None,
        },
        // A sequence of the keys, unwrapped as every call's value is: no
        // keys give nothing, one key that key.
        Builtin::Keys => match first {
            JValue::Object(object) => match object.len() {
                0 => JValue::Undefined,
                1 => JValue::string(object.keys().next()?.as_str()),
                _ => JValue::sequence(object.keys().map(|k| JValue::string(k.as_str())).collect()),
            },
            _ => return None,
        },
        Builtin::Exists => JValue::Bool(true),
        Builtin::Boolean => JValue::Bool(truthy(first)?),
        Builtin::Not => JValue::Bool(!truthy(first)?),
    })
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
