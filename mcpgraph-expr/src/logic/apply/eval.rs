//! Evaluation of a compiled rule, as `jsonLogic.apply` of json-logic-js
//! 2.0.5 does it: `if`, `and`, `or` and the iterating operators evaluate
//! their arguments as they need them; every other operator gets all its
//! arguments evaluated first. A throw is recorded in the [`Env`] (its
//! docs say why).

use super::env::{Env, Operands};
use super::value::{Built, Val, js_truthy, logic_truthy};
use super::{ops, scope};
use crate::logic::tree::{Args, Node, Op};

/// Evaluates `node` with `data` as json-logic-js's data (the context, or
/// the current item inside an iterating operator's callback).
pub(super) fn eval<'a>(node: &'a Node, env: &Env<'a>, data: &Val<'a>) -> Val<'a> {
    match node {
        Node::Slot(i) => env.slot(*i),
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
                Args::Spread(i) => Argv::Spread(env.slot(*i)),
            };
            apply(*op, &argv, env, data)
        }
        Node::Unknown(name) => env.throw(format!("Unrecognized operation {name}")),
    }
}

/// JavaScript's `Boolean` of the rule's value (`decide`'s question),
/// without building the value where the rule is a comparison.
pub(super) fn truth<'a>(node: &'a Node, env: &Env<'a>, data: &Val<'a>) -> bool {
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
        Node::Slot(i) => env.slot(*i),
        Node::Num(n) => Val::Num(*n),
        Node::Str(s) => Val::Str(s),
        _ => eval(node, env, data),
    }
}

/// An operation's arguments, not yet evaluated (see [`Operands`]).
enum Argv<'a> {
    Nodes(&'a [Node]),
    /// A substituted value standing for the list: its items if it is an
    /// array, else itself alone.
    Spread(Val<'a>),
}

impl<'a> Operands<'a> for Argv<'a> {
    fn len(&self) -> usize {
        match self {
            Argv::Nodes(nodes) => nodes.len(),
            Argv::Spread(value) => value.items().map_or(1, |items| items.len()),
        }
    }

    fn eval(&self, i: usize, env: &Env<'a>, data: &Val<'a>) -> Val<'a> {
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
