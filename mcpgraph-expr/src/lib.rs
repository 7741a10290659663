//! This crate is internal to mcpgraph and carries no semver promise: use
//! it through the [`mcpgraph`](https://docs.rs/mcpgraph) crate.
//!
//! The expression trees mcpgraph's generator builds and writes out as Rust,
//! and its runtime evaluates: JSONata trees rewritten to jsonata-js's
//! behaviour (here at the root), and switch rules compiled ([`logic`]).
//!
//! mcpgraph evaluates JSONata with jsonata-core; FORMAT.md says transforms
//! behave as in jsonata-js (mcpGraph's engine). Where the two differ, or
//! where an evaluation must be bounded, the tree is rewritten once, before
//! it is ever evaluated ([`prepare`]):
//!
//! - regex literals get JavaScript's meaning ([`regex`]);
//! - `$pad` and `$join` check their size before they allocate
//!   ([`bounded`]);
//! - non-finite numbers, JavaScript's key order, `$reduce` of an empty
//!   array and `$exists($)` behave as in jsonata-js ([`compat`]).
//!
//! A rewritten tree calls host functions ([`names`]) that the runtime
//! registers on its evaluator; [`Helpers`] says which of them an
//! expression needs. mcpgraph's generator applies [`prepare`] at build
//! time and writes the rewritten tree out as Rust, so a server's start-up
//! rewrites nothing; `mcpgraph-runtime` applies it at start-up only to
//! the expressions it parses itself, and in debug builds checks every
//! written-out tree against a parse and a rewrite of its source.
//!
//! Every walk here goes without recursion: a deep expression must not
//! overflow the stack.

#![warn(missing_docs)]

pub mod bounded;
pub mod compat;
pub mod logic;
pub mod regex;

use jsonata_core::ast::{AstNode, PathStep, Stage};

/// The names of the host functions rewritten trees call.
pub mod names {
    /// `$__mcpgraph_pad_arg(arg)`: a `$pad` argument, checked against the
    /// size budget (see [`bounded`](crate::bounded)).
    pub const PAD_ARG: &str = "__mcpgraph_pad_arg";
    /// `$__mcpgraph_join(...)`: `$join`, checked against the size budget.
    pub const JOIN: &str = "__mcpgraph_join";
    /// `$__mcpgraph_operand(value, code)`: `value` unless it is a
    /// non-finite number; `code` says which operand it is (see
    /// [`OPERATORS`](crate::compat::finite::OPERATORS)).
    pub const OPERAND: &str = "__mcpgraph_operand";
    /// `$__mcpgraph_truth(value)`: NaN as false, Infinity an error.
    pub const TRUTH: &str = "__mcpgraph_truth";
    /// `$__mcpgraph_extreme(numbers, 1)` is `$max(numbers)`, with 0 it is
    /// `$min`: the built-ins, but a NaN among the numbers gives NaN, as
    /// JavaScript's `Math.max` (jsonata-js's) gives; jsonata-core's skips
    /// it.
    pub const EXTREME: &str = "__mcpgraph_extreme";
    /// `$__mcpgraph_sortable(values)`: the array, unless a number in it is
    /// NaN (D3070, as jsonata-js's one-argument `$sort` finds it is no
    /// array of numbers) or infinite (D1001); jsonata-core sorts them.
    pub const SORTABLE: &str = "__mcpgraph_sortable";
    /// `$__mcpgraph_js_keys(value)`: an object's keys put in JavaScript's
    /// order.
    pub const KEYS: &str = "__mcpgraph_js_keys";
    /// `$__mcpgraph_nonempty(value)`: its argument, but no value for an
    /// empty array.
    pub const NONEMPTY: &str = "__mcpgraph_nonempty";
}

/// The groups of host functions a rewritten expression calls, as a set
/// of bits, so an evaluator registers only those its expressions use.
/// The `$pad`/`$join` checks are not among them: every evaluator has
/// them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Helpers(u8);

impl Helpers {
    /// None: the expression calls no host function of these groups.
    pub const NONE: Helpers = Helpers(0);
    /// The non-finite number checks ([`names::OPERAND`], [`names::TRUTH`],
    /// [`names::EXTREME`], [`names::SORTABLE`]).
    pub const FINITE: Helpers = Helpers(1);
    /// [`names::KEYS`].
    pub const KEYS: Helpers = Helpers(2);
    /// [`names::NONEMPTY`].
    pub const NONEMPTY: Helpers = Helpers(4);

    /// The set with these bits (what [`Helpers::bits`] gave), as the
    /// generator writes it out.
    pub const fn from_bits(bits: u8) -> Helpers {
        Helpers(bits & 7)
    }

    /// The set's bits.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether every helper of `other` is in `self`.
    pub fn covers(self, other: Helpers) -> bool {
        self.0 & other.0 == other.0
    }

    /// The helpers of both sets.
    pub fn union(self, other: Helpers) -> Helpers {
        Helpers(self.0 | other.0)
    }

    fn add(&mut self, other: Helpers) {
        self.0 |= other.0;
    }
}

/// Every rewrite, in order: regex literals ([`regex::translate`]), sizes
/// ([`bounded::guard`]), then jsonata-js's behaviour
/// ([`compat::rewrite`]). The error is the first regex literal with no
/// JavaScript meaning in Rust's engine (the generator refuses those at
/// build time).
pub fn prepare(ast: &mut AstNode) -> Result<Helpers, String> {
    regex::translate(ast)?;
    bounded::guard(ast);
    Ok(compat::rewrite(ast))
}

/// Whether a path step is only its node: no predicate stages, focus,
/// index or ancestor binding, and no tuple stream.
pub fn is_plain_step(step: &PathStep) -> bool {
    step.stages.is_empty()
        && step.focus.is_none()
        && step.index_var.is_none()
        && step.ancestor_label.is_none()
        && !step.is_tuple
        && !step.inner_tuple
}

/// Whether JavaScript orders `key` as an array index: the canonical
/// decimal form of an integer in `0..=2^32-2` (`"0"`, `"42"`; not `"01"`,
/// `"-1"`, `"1.0"`).
pub fn is_index_key(key: &str) -> Option<u64> {
    /// The largest array index JavaScript has (2^32 - 2).
    const MAX_INDEX: u64 = 4_294_967_294;
    let bytes = key.as_bytes();
    let canonical = match bytes {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.len() < 10 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !canonical {
        return None;
    }
    key.parse::<u64>().ok().filter(|n| *n <= MAX_INDEX)
}

/// Pushes the children of `node` that are expressions onto `stack`: the
/// step of every walk here.
pub fn push_children<'a>(node: &'a mut AstNode, stack: &mut Vec<&'a mut AstNode>) {
    match node {
        AstNode::Path { steps } => {
            for step in steps {
                stack.push(&mut step.node);
                for stage in &mut step.stages {
                    if let Stage::Filter(filter) = stage {
                        stack.push(filter);
                    }
                }
            }
        }
        AstNode::Binary { lhs, rhs, .. } => stack.extend([&mut **lhs, &mut **rhs]),
        AstNode::Unary { operand, .. } => stack.push(operand),
        AstNode::Function { args, .. } => stack.extend(args.iter_mut()),
        AstNode::Call { procedure, args } => {
            stack.push(procedure);
            stack.extend(args.iter_mut());
        }
        AstNode::Lambda { body, .. } => stack.push(body),
        AstNode::Array(items) | AstNode::Block(items) | AstNode::ArrayGroup(items) => {
            stack.extend(items.iter_mut());
        }
        AstNode::Object(pairs) => {
            for (key, value) in pairs {
                stack.extend([key, value]);
            }
        }
        AstNode::ObjectTransform { input, pattern } => {
            stack.push(input);
            for (key, value) in pattern {
                stack.extend([key, value]);
            }
        }
        AstNode::Conditional {
            condition,
            then_branch,
            else_branch,
        } => {
            stack.extend([&mut **condition, &mut **then_branch]);
            if let Some(other) = else_branch {
                stack.push(other);
            }
        }
        AstNode::FunctionApplication(inner) => stack.push(inner),
        AstNode::Sort { input, terms } => {
            stack.push(input);
            stack.extend(terms.iter_mut().map(|(term, _)| term));
        }
        AstNode::Transform {
            location,
            update,
            delete,
        } => {
            stack.extend([&mut **location, &mut **update]);
            if let Some(delete) = delete {
                stack.push(delete);
            }
        }
        _ => {}
    }
}
