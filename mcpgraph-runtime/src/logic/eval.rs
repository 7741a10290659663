//! Evaluation of a compiled rule, as `jsonLogic.apply` of json-logic-js
//! 2.0.5 does it: `if`, `and`, `or` and the iterating operators evaluate
//! their arguments as they need them; every other operator gets all its
//! arguments evaluated first.
//!
//! A throw of json-logic-js is recorded in the [`Env`] rather than
//! returned: evaluation returns bare values, which stay in registers (a
//! `Result` around each was copied through memory at every step, which
//! cost more than the operators). After a throw the rest of the rule
//! still runs, without effects (`log` is silent, loops stop), and its
//! value is discarded: the rule's outcome is the first error.

use std::cell::OnceCell;

use jsonata_core::value::JValue;

use super::value::{Built, Val, js_truthy, logic_truthy};
use super::{ops, scope};
use mcpgraph_expr::logic::{Args, Node, Op};

/// What a rule reads besides its own literals, and what it threw.
pub(crate) struct Env<'a> {
    /// The slot values (`var`s, evaluated with JSONata against the context).
    slots: &'a [JValue],
    /// The first error json-logic-js would have thrown.
    error: OnceCell<Box<str>>,
}

impl<'a> Env<'a> {
    pub(crate) fn new(slots: &'a [JValue]) -> Self {
        Env {
            slots,
            error: OnceCell::new(),
        }
    }

    /// Records a throw (the first one counts); its value is `undefined`.
    #[cold]
    pub(crate) fn throw(&self, message: impl Into<Box<str>>) -> Val<'a> {
        let _ = self.error.set(message.into());
        Val::Undefined
    }

    /// Whether the rule has thrown: its value no longer matters.
    #[inline]
    pub(crate) fn thrown(&self) -> bool {
        self.error.get().is_some()
    }

    /// The rule's value, or what it threw.
    pub(crate) fn outcome<T>(self, value: T) -> Result<T, String> {
        match self.error.into_inner() {
            Some(error) => Err(error.into()),
            None => Ok(value),
        }
    }
}

/// Evaluates `node` with `data` as json-logic-js's data (the context, or
/// the current item inside an iterating operator's callback).
pub(crate) fn eval<'a>(node: &'a Node, env: &Env<'a>, data: &Val<'a>) -> Val<'a> {
    match node {
        Node::Slot(i) => slot(env, *i),
        Node::Num(n) => Val::Num(*n),
        Node::Str(s) => Val::Str(s),
        Node::Lit(value) => Val::lit(value),
        Node::Binary(op, pair) => Val::Bool(binary(*op, pair, env, data)),
        Node::Array(nodes) => {
            let items = nodes.iter().map(|n| eval(n, env, data)).collect();
            Val::List(Built::new(items))
        }
        Node::Apply(op @ (Op::And | Op::Or), Args::List(nodes)) => and_or(*op, nodes, env, data),
        Node::Apply(op, args) => {
            let argv = match args {
                Args::List(nodes) => Argv::Nodes(nodes),
                Args::Spread(i) => Argv::Spread(slot(env, *i)),
            };
            apply(*op, &argv, env, data)
        }
        Node::Unknown(name) => env.throw(format!("Unrecognized operation {name}")),
    }
}

/// JavaScript's `Boolean` of the rule's value (`decide`'s question),
/// without building the value where the rule is a comparison.
pub(crate) fn truth<'a>(node: &'a Node, env: &Env<'a>, data: &Val<'a>) -> bool {
    match node {
        Node::Binary(op, pair) => binary(*op, pair, env, data),
        Node::Apply(op @ (Op::And | Op::Or), Args::List(nodes)) => {
            and_or_truth(*op, nodes, env, data)
        }
        _ => js_truthy(&eval(node, env, data)),
    }
}

/// `and` (`or`): the first argument that is false (true) as
/// `jsonLogic.truthy` sees it, else the last; `undefined` for none.
fn and_or<'a>(op: Op, nodes: &'a [Node], env: &Env<'a>, data: &Val<'a>) -> Val<'a> {
    let mut current = Val::Undefined;
    for node in nodes {
        current = operand(node, env, data);
        if logic_truthy(&current) == (op == Op::Or) || env.thrown() {
            break;
        }
    }
    current
}

/// [`truth`] of `and` (`or`): [`and_or`] without building the value of a
/// comparison argument, whose truthiness is its boolean.
fn and_or_truth<'a>(op: Op, nodes: &'a [Node], env: &Env<'a>, data: &Val<'a>) -> bool {
    let decisive = op == Op::Or;
    for (i, node) in nodes.iter().enumerate() {
        let last = i + 1 == nodes.len();
        if let Node::Binary(op, pair) = node {
            let holds = binary(*op, pair, env, data);
            if holds == decisive || last || env.thrown() {
                return holds;
            }
            continue;
        }
        let value = operand(node, env, data);
        // `[]` is false to `and`/`or` but true to `Boolean`.
        if logic_truthy(&value) == decisive || last || env.thrown() {
            return js_truthy(&value);
        }
    }
    false
}

#[inline]
fn binary<'a>(op: Op, [a, b]: &'a [Node; 2], env: &Env<'a>, data: &Val<'a>) -> bool {
    let a = operand(a, env, data);
    let b = operand(b, env, data);
    ops::binary(op, &a, &b)
}

/// `eval`, with the leaves of a rule (slots and constants: most operands)
/// read in place rather than through a call.
#[inline(always)]
fn operand<'a>(node: &'a Node, env: &Env<'a>, data: &Val<'a>) -> Val<'a> {
    match node {
        Node::Slot(i) => slot(env, *i),
        Node::Num(n) => Val::Num(*n),
        Node::Str(s) => Val::Str(s),
        _ => eval(node, env, data),
    }
}

/// A slot's value; `undefined` for a `var` that read nothing.
#[inline]
fn slot<'a>(env: &Env<'a>, i: usize) -> Val<'a> {
    env.slots.get(i).map_or(Val::Undefined, Val::data)
}

/// An operation's arguments, not yet evaluated.
pub(crate) enum Argv<'a> {
    Nodes(&'a [Node]),
    /// A substituted value standing for the list: its items if it is an
    /// array, else itself alone.
    Spread(Val<'a>),
}

impl<'a> Argv<'a> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Argv::Nodes(nodes) => nodes.len(),
            Argv::Spread(value) => value.items().map_or(1, |items| items.len()),
        }
    }

    /// Argument `i`, evaluated against `data`; `undefined` past the end.
    pub(crate) fn eval(&self, i: usize, env: &Env<'a>, data: &Val<'a>) -> Val<'a> {
        match self {
            Argv::Nodes(nodes) => match nodes.get(i) {
                Some(node) => operand(node, env, data),
                None => Val::Undefined,
            },
            Argv::Spread(value) => match value.items() {
                Some(items) => items.get(i).unwrap_or(Val::Undefined),
                None if i == 0 => value.clone(),
                None => Val::Undefined,
            },
        }
    }

    /// The first `N` arguments, after evaluating all of them (json-logic-js
    /// evaluates arguments an operator then ignores, errors included).
    pub(crate) fn first<const N: usize>(&self, env: &Env<'a>, data: &Val<'a>) -> [Val<'a>; N] {
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
    pub(crate) fn all(&self, env: &Env<'a>, data: &Val<'a>) -> Vec<Val<'a>> {
        (0..self.len()).map(|i| self.eval(i, env, data)).collect()
    }
}

fn apply<'a>(op: Op, argv: &Argv<'a>, env: &Env<'a>, data: &Val<'a>) -> Val<'a> {
    match op {
        Op::If => {
            let n = argv.len();
            let mut i = 0;
            while i + 1 < n {
                if logic_truthy(&argv.eval(i, env, data)) {
                    return argv.eval(i + 1, env, data);
                }
                i += 2;
            }
            if n == i + 1 {
                argv.eval(i, env, data)
            } else {
                Val::Null
            }
        }
        Op::And | Op::Or => {
            let mut current = Val::Undefined;
            for i in 0..argv.len() {
                current = argv.eval(i, env, data);
                if logic_truthy(&current) == (op == Op::Or) || env.thrown() {
                    break;
                }
            }
            current
        }
        Op::All | Op::Some | Op::None | Op::Map | Op::Filter | Op::Reduce => {
            scope::iterate(op, argv, env, data)
        }
        Op::Var => {
            let [path, default] = argv.first(env, data);
            scope::var(data, &path, default)
        }
        Op::Missing => scope::missing(&argv.all(env, data), data),
        Op::MissingSome => {
            let [need, options] = argv.first(env, data);
            scope::missing_some(&need, &options, env, data)
        }
        Op::Add | Op::Mul | Op::Min | Op::Max | Op::Cat | Op::Merge => {
            ops::variadic(op, argv, env, data)
        }
        _ => {
            let [a, b, c] = argv.first(env, data);
            ops::fixed(op, a, b, c, env)
        }
    }
}
