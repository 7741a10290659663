//! Errors an expression raises when it is evaluated, found in its tree at
//! build time: calls of functions that do not exist (T1006, T2006, T1008),
//! calls of built-ins with a number of arguments their signature refuses
//! (T0410), and literals of a type an operator refuses (T2001, T2002,
//! T2003, T2004, T2009, T2010, D1002), as jsonata-js raises them.
//!
//! Each finding is an error where the expression reaches it on every
//! evaluation (the expression surely fails), and a warning with a lint name
//! where it is only reached on some (a conditional branch, the right side
//! of `and`, a lambda's body, a later path step, ...): see [`Walk`].

use std::collections::{HashMap, HashSet};

use jsonata_core::ast::{AstNode, BinaryOp, Stage, UnaryOp};

use super::builtins;
use super::findings::{Anchor, Finding, Problem, report};
use super::lexer::{op_offsets, var_offsets};
use super::operands::{non_number, op_token, operand_error, type_symbol};
use super::tree::{bound_names, each_child};
use crate::diag::Diagnostics;
use crate::lower::expr_pos;
use crate::model::Expr;
/// Reports what evaluating `ast` (parsed from `expr`) would fail on.
pub(super) fn check_run_errors(ast: &AstNode, expr: &Expr, diags: &mut Diagnostics) {
    #[cfg(test)]
    tests::CHECKED.with(|c| c.set(c.get() + 1));
    let mut bound = HashSet::new();
    bound_names(ast, &mut bound);
    let walk = walk(ast, &bound);
    let mut offsets: HashMap<Anchor, Vec<usize>> = HashMap::new();
    for f in &walk.found {
        let written = offsets
            .entry(f.anchor.clone())
            .or_insert_with(|| match &f.anchor {
                Anchor::Var(name) => var_offsets(&expr.source, name),
                Anchor::Op(op) => op_offsets(&expr.source, op),
            });
        // The tree keeps no positions: the n-th occurrence in the tree is
        // the n-th in the text when both count the same.
        let total = walk.seen.get(&f.anchor).copied().unwrap_or(0);
        let offset = if written.len() == total {
            written.get(f.nth).copied().unwrap_or(0)
        } else {
            written.first().copied().unwrap_or(0)
        };
        report(f, expr_pos(expr, offset), &bound, diags);
    }
}

/// Walks `ast`, where the names in `bound` are defined.
fn walk<'a>(ast: &AstNode, bound: &'a HashSet<String>) -> Walk<'a> {
    let mut walk = Walk {
        bound,
        seen: HashMap::new(),
        found: Vec::new(),
    };
    walk.node(ast, true);
    walk
}
/// A walk over the tree in text order, counting the anchors it passes and
/// knowing whether the node it is at is reached on every evaluation
/// (`surely`): the operands of most operators, a function's arguments, a
/// block's items, a condition, a path's first step are; the branches of a
/// conditional, the right side of `and`, `or`, `??` and `?:`, a lambda's
/// body, a path's later steps and predicates, an object's values under
/// computed keys, sort terms and transforms are not.
struct Walk<'a> {
    bound: &'a HashSet<String>,
    /// How many times each anchor was passed.
    seen: HashMap<Anchor, usize>,
    found: Vec<Finding>,
}

impl Walk<'_> {
    /// Passes an anchor; returns its occurrence number.
    fn pass(&mut self, anchor: &Anchor) -> usize {
        let n = self.seen.entry(anchor.clone()).or_insert(0);
        *n += 1;
        *n - 1
    }

    fn push(&mut self, problem: Problem, anchor: Anchor, nth: usize, surely: bool) {
        self.found.push(Finding {
            problem,
            anchor,
            nth,
            surely,
        });
    }

    fn node(&mut self, node: &AstNode, surely: bool) {
        match node {
            AstNode::Variable(v) => {
                self.pass(&Anchor::Var(v.clone()));
            }
            AstNode::Wildcard => {
                self.pass(&Anchor::Op("*"));
            }
            AstNode::Descendant => {
                self.pass(&Anchor::Op("**"));
            }
            AstNode::Parent(_) => {
                self.pass(&Anchor::Op("%"));
            }
            AstNode::Function { .. } => self.call(node, surely, None),
            AstNode::Path { steps } => {
                for (i, s) in steps.iter().enumerate() {
                    self.node(&s.node, surely && i == 0);
                    for stage in &s.stages {
                        if let Stage::Filter(e) = stage {
                            self.node(e, false);
                        }
                    }
                }
            }
            AstNode::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, surely),
            AstNode::Unary { op, operand } => {
                if *op == UnaryOp::Negate {
                    let nth = self.pass(&Anchor::Op("-"));
                    if let Some(kind) = non_number(operand) {
                        let message = format!("`-` negates numbers, but its operand is {kind}");
                        let problem = Problem::Operand {
                            code: "D1002",
                            message,
                        };
                        self.push(problem, Anchor::Op("-"), nth, surely);
                    }
                }
                self.node(operand, surely);
            }
            AstNode::Lambda { body, .. } => self.node(body, false),
            AstNode::Object(pairs) => {
                for (k, v) in pairs {
                    self.node(k, surely);
                    self.node(v, surely && matches!(k, AstNode::String(_)));
                }
            }
            AstNode::ObjectTransform { input, pattern } => {
                self.node(input, surely);
                for (k, v) in pattern {
                    self.node(k, false);
                    self.node(v, false);
                }
            }
            AstNode::Conditional {
                condition,
                then_branch,
                else_branch,
            } => {
                self.node(condition, surely);
                self.node(then_branch, false);
                if let Some(e) = else_branch {
                    self.node(e, false);
                }
            }
            AstNode::Sort { input, terms } => {
                self.node(input, surely);
                for (t, _) in terms {
                    self.node(t, false);
                }
            }
            AstNode::Transform { .. } => each_child(node, &mut |c| self.node(c, false)),
            _ => each_child(node, &mut |c| self.node(c, surely)),
        }
    }

    /// A call `$name(args)`; `piped`: the left side of `~>` when the call
    /// is its right side (the left side is then the first argument).
    fn call(&mut self, node: &AstNode, surely: bool, piped: Option<&AstNode>) {
        let AstNode::Function {
            name,
            args,
            is_builtin,
        } = node
        else {
            return self.node(node, surely);
        };
        if *is_builtin {
            let anchor = Anchor::Var(name.clone());
            let nth = self.pass(&anchor);
            if !self.bound.contains(name) && !name.is_empty() {
                let all: Vec<&AstNode> = piped.into_iter().chain(args).collect();
                if let Some(problem) = call_problem(name, &all, piped.is_some()) {
                    self.push(problem, anchor, nth, surely);
                }
            }
        }
        for a in args {
            self.node(a, surely);
        }
    }

    fn binary(&mut self, op: BinaryOp, lhs: &AstNode, rhs: &AstNode, surely: bool) {
        use BinaryOp::*;
        match op {
            ChainPipe => {
                self.node(lhs, surely);
                if let AstNode::Function { .. } = rhs {
                    return self.call(rhs, surely, Some(lhs));
                }
                // `x ~> $f(a)[]`: one step, a call with stages.
                if let AstNode::Path { steps } = rhs
                    && let [step] = steps.as_slice()
                    && let AstNode::Function { .. } = &step.node
                {
                    self.call(&step.node, surely, Some(lhs));
                    for stage in &step.stages {
                        if let Stage::Filter(e) = stage {
                            self.node(e, false);
                        }
                    }
                    return;
                }
                if let AstNode::Variable(name) = rhs {
                    let anchor = Anchor::Var(name.clone());
                    let nth = self.pass(&anchor);
                    if !name.is_empty()
                        && !self.bound.contains(name)
                        && builtins::arity(name).is_none()
                    {
                        let problem = Problem::UnknownFunction {
                            name: name.clone(),
                            piped: true,
                        };
                        self.push(problem, anchor, nth, surely);
                    }
                    return;
                }
                self.node(rhs, surely);
            }
            And | Or | Coalesce | Default => {
                self.node(lhs, surely);
                self.node(rhs, false);
            }
            ColonEqual => {
                self.node(lhs, surely);
                self.node(rhs, surely);
            }
            _ => {
                self.node(lhs, surely);
                if let Some(token) = op_token(op) {
                    let nth = self.pass(&Anchor::Op(token));
                    if let Some((code, message)) = operand_error(op, token, lhs, rhs) {
                        let problem = Problem::Operand { code, message };
                        self.push(problem, Anchor::Op(token), nth, surely);
                    }
                }
                self.node(rhs, surely);
            }
        }
    }
}
/// What is wrong with calling `$name` with `args` (the value before `~>`
/// first when `piped`), if anything: nothing defines it, or its signature
/// refuses these arguments whatever the values not written as literals
/// turn out to be. A placeholder makes a partial application, called later
/// with more arguments: only an unknown name is reported then.
fn call_problem(name: &str, args: &[&AstNode], piped: bool) -> Option<Problem> {
    let Some(arity) = builtins::arity(name) else {
        return Some(Problem::UnknownFunction {
            name: name.to_owned(),
            piped: false,
        });
    };
    if args.iter().any(|a| matches!(a, AstNode::Placeholder)) {
        return None;
    }
    let given = args.len();
    if given < arity.min || arity.max.is_some_and(|m| given > m) {
        return Some(Problem::ArgumentCount {
            name: name.to_owned(),
            given,
            arity,
            piped,
        });
    }
    let sig = arity.signature?;
    let symbols: Vec<Option<char>> = args.iter().map(|a| type_symbol(a)).collect();
    if builtins::signature_accepts(sig, &symbols) {
        return None;
    }
    let literals = args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| Some(format!("argument {} is {}", i + 1, literal_kind(a)?)))
        .collect();
    Some(Problem::ArgumentTypes {
        name: name.to_owned(),
        signature: sig,
        literals,
        piped,
    })
}

/// What a literal argument is, for messages.
fn literal_kind(node: &AstNode) -> Option<String> {
    match node {
        AstNode::Number(_) => Some("a number".to_owned()),
        AstNode::Unary {
            op: UnaryOp::Negate,
            operand,
        } if matches!(**operand, AstNode::Number(_)) => Some("a number".to_owned()),
        AstNode::Lambda { .. } | AstNode::Regex { .. } | AstNode::Transform { .. } => {
            Some("a function".to_owned())
        }
        other => non_number(other),
    }
}

#[cfg(test)]
#[path = "run_errors_tests.rs"]
pub(crate) mod tests;
