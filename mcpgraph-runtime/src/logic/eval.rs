//! Evaluation of a compiled rule, as `jsonLogic.apply` of json-logic-js
//! 2.0.5 does it: `if`, `and`, `or` and the iterating operators evaluate
//! their arguments as they need them; every other operator gets all its
//! arguments evaluated first.

use jsonata_core::value::JValue;

use super::compile::{Args, Node, Op};
use super::value::{Built, Val, logic_truthy};
use super::{ops, scope};

/// What a rule reads besides its own literals.
pub(crate) struct Env<'a> {
    /// The slot values (`var`s, evaluated with JSONata against the context).
    pub(crate) slots: &'a [JValue],
}

/// An error: a thin pointer, so that `Result<Val>` is no bigger than `Val`
/// (moving a wider one cost more than the evaluation itself).
pub(crate) type Result<T> = std::result::Result<T, Box<Box<str>>>;

/// Evaluates `node` with `data` as json-logic-js's data (the context, or
/// the current item inside an iterating operator's callback).
pub(crate) fn eval<'a>(node: &'a Node, env: &Env<'a>, data: &Val<'a>) -> Result<Val<'a>> {
    match node {
        Node::Slot(i) => Ok(slot(env, *i)),
        Node::Num(n) => Ok(Val::Num(*n)),
        Node::Str(s) => Ok(Val::Str(s)),
        Node::Lit(value) => Ok(Val::lit(value)),
        Node::Binary(op, pair) => {
            let [a, b] = &**pair;
            let a = eval(a, env, data)?;
            let b = eval(b, env, data)?;
            Ok(Val::Bool(ops::binary(*op, &a, &b)))
        }
        Node::Array(nodes) => {
            let items = nodes
                .iter()
                .map(|n| eval(n, env, data))
                .collect::<Result<Vec<_>>>()?;
            Ok(Val::List(Built::new(items)))
        }
        Node::Apply(op, args) => {
            let argv = match args {
                Args::List(nodes) => Argv::Nodes(nodes),
                Args::Spread(i) => Argv::Spread(slot(env, *i)),
            };
            apply(*op, &argv, env, data)
        }
        Node::Unknown(name) => Err(Box::new(format!("Unrecognized operation {name}").into())),
    }
}

/// A slot's value; `undefined` for a `var` that read nothing.
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
    pub(crate) fn eval(&self, i: usize, env: &Env<'a>, data: &Val<'a>) -> Result<Val<'a>> {
        match self {
            Argv::Nodes(nodes) => match nodes.get(i) {
                Some(node) => eval(node, env, data),
                None => Ok(Val::Undefined),
            },
            Argv::Spread(value) => Ok(match value.items() {
                Some(items) => items.get(i).unwrap_or(Val::Undefined),
                None if i == 0 => value.clone(),
                None => Val::Undefined,
            }),
        }
    }

    /// The first `N` arguments, after evaluating all of them (json-logic-js
    /// evaluates arguments an operator then ignores, errors included).
    pub(crate) fn first<const N: usize>(
        &self,
        env: &Env<'a>,
        data: &Val<'a>,
    ) -> Result<[Val<'a>; N]> {
        if let Argv::Nodes(nodes) = self
            && nodes.len() <= N
        {
            // The common case, without the bookkeeping below.
            let mut out: [Val<'a>; N] = std::array::from_fn(|_| Val::Undefined);
            for (slot, node) in out.iter_mut().zip(nodes.iter()) {
                *slot = eval(node, env, data)?;
            }
            return Ok(out);
        }
        let mut out: [Val<'a>; N] = std::array::from_fn(|_| Val::Undefined);
        for i in 0..self.len() {
            let value = self.eval(i, env, data)?;
            if let Some(slot) = out.get_mut(i) {
                *slot = value;
            }
        }
        Ok(out)
    }

    /// All arguments, evaluated.
    pub(crate) fn all(&self, env: &Env<'a>, data: &Val<'a>) -> Result<Vec<Val<'a>>> {
        (0..self.len()).map(|i| self.eval(i, env, data)).collect()
    }
}

fn apply<'a>(op: Op, argv: &Argv<'a>, env: &Env<'a>, data: &Val<'a>) -> Result<Val<'a>> {
    match op {
        Op::If => {
            let n = argv.len();
            let mut i = 0;
            while i + 1 < n {
                if logic_truthy(&argv.eval(i, env, data)?) {
                    return argv.eval(i + 1, env, data);
                }
                i += 2;
            }
            if n == i + 1 {
                argv.eval(i, env, data)
            } else {
                Ok(Val::Null)
            }
        }
        Op::And | Op::Or => {
            let mut current = Val::Undefined;
            for i in 0..argv.len() {
                current = argv.eval(i, env, data)?;
                if logic_truthy(&current) == (op == Op::Or) {
                    break;
                }
            }
            Ok(current)
        }
        Op::All | Op::Some | Op::None | Op::Map | Op::Filter | Op::Reduce => {
            scope::iterate(op, argv, env, data)
        }
        Op::Var => {
            let [path, default] = argv.first(env, data)?;
            Ok(scope::var(data, &path, default))
        }
        Op::Missing => scope::missing(&argv.all(env, data)?, data),
        Op::MissingSome => {
            let [need, options] = argv.first(env, data)?;
            scope::missing_some(&need, &options, data)
        }
        Op::Add | Op::Mul | Op::Min | Op::Max | Op::Cat | Op::Merge => {
            ops::variadic(op, argv, env, data)
        }
        _ => {
            let [a, b, c] = argv.first(env, data)?;
            Ok(ops::fixed(op, a, b, c))
        }
    }
}
