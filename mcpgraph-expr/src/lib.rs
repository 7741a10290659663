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
//! A rewritten tree calls host functions that the runtime registers on
//! its evaluator; [`Helpers`] says which of them an expression needs.
//! Each rewrite's host functions sit in a `host` module beside it, under
//! the rewrite's name constants, compiled with the `eval` feature only:
//! the runtime turns it on, the generator does not. mcpgraph's generator
//! applies [`prepare`] at build time and writes the rewritten tree out as
//! Rust, so a server's start-up rewrites nothing; `mcpgraph-runtime`
//! applies it at start-up only to the expressions it parses itself, and in
//! debug builds checks every written-out tree against a parse and a
//! rewrite of its source.
//!
//! [`syntax_error`] writes a JSONata syntax error in words a user reads,
//! for the generator's diagnostics and the runtime's start-up errors.
//!
//! With `eval`, [`logic`] also evaluates compiled switch rules, and
//! `json` converts values between JSON and JSONata in JavaScript's key
//! order. The `eval` feature also holds the run-time side of a graph's
//! expressions, in one place (`eval`, its modules re-exported here): the
//! expressions and switch rules a compiled graph holds (`parsed`), a
//! call's evaluator (`evaluator`) with its history functions (`history`),
//! the common shapes evaluated without jsonata-core (`native`), field
//! lookup and the value budget (`value`), JavaScript's text of a JSON
//! value (`js_text`), the limits of one evaluation, its time (`watchdog`)
//! and its memory (`memory`, the counting allocator), and their errors
//! (`error`). Nothing here knows of
//! a call's nodes or downstream servers: `mcpgraph-runtime` runs the nodes
//! and asks this crate to evaluate. The `testing` feature adds the entry
//! points of the tests, the fuzz targets and the differential runner.
//!
//! Every walk here goes without recursion: a deep expression must not
//! overflow the stack.

pub mod bounded;
pub mod compat;
#[cfg(feature = "eval")]
mod eval;
pub mod logic;
pub mod regex;
pub mod syntax_error;

#[cfg(feature = "eval")]
pub use eval::{error, evaluator, history, js_text, json, memory, parsed, value};
#[cfg(feature = "eval")]
use eval::{native, watchdog};

use jsonata_core::ast::{AstNode, PathStep, Stage};

/// How deeply a value's arrays and objects may nest unless a graph says
/// otherwise: the format's default `maxValueDepth` (FORMAT.md,
/// `executionLimits`). The runtime's default limits and the rule
/// evaluator's test entry points (which refuse deeper data) both take it
/// from here.
pub const DEFAULT_MAX_VALUE_DEPTH: u64 = 128;

/// The largest `maxValueDepth` a graph may set (a larger one fails the
/// build). The conversions of a value at the edges of a call (to and from
/// JSON, serde_json's clone, serialisation and drop) recurse once per
/// level, on worker threads of 2 MiB; measured there from a fresh stack,
/// the costliest, `json::to_json` of nested objects, carries
/// about 870 levels in a debug build and 2,800 in a release one (clone:
/// 1,370 and 3,400; the others more). 256 leaves the stack used before the
/// conversion, and debug builds, a margin of more than three times.
pub const MAX_VALUE_DEPTH_CEILING: u64 = 256;

/// The groups of host functions a rewritten expression calls, as a set
/// of bits, so an evaluator registers only those its expressions use.
/// The `$pad`/`$join` checks are not among them: every evaluator has
/// them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Helpers(u8);

impl Helpers {
    /// None: the expression calls no host function of these groups.
    pub const NONE: Helpers = Helpers(0);
    /// The non-finite number checks ([`compat::finite::OPERAND`],
    /// [`compat::finite::TRUTH`], [`compat::finite::EXTREME`],
    /// [`compat::finite::SORTABLE`]).
    pub const FINITE: Helpers = Helpers(1);
    /// [`compat::KEYS`].
    pub const KEYS: Helpers = Helpers(2);
    /// [`compat::NONEMPTY`].
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
pub fn prepare(ast: &mut AstNode) -> Result<Helpers, regex::UntranslatableRegex> {
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

/// Whether keys in this order are already in JavaScript's order (true for
/// the common case of no index keys), so reordering can be skipped.
pub fn in_js_order<'a>(keys: impl IntoIterator<Item = &'a str>) -> bool {
    let mut last_index: Option<u64> = None;
    let mut seen_other = false;
    for key in keys {
        match is_index_key(key) {
            Some(_) if seen_other => return false,
            Some(n) if last_index.is_some_and(|last| last > n) => return false,
            Some(n) => last_index = Some(n),
            None => seen_other = true,
        }
    }
    true
}

/// Sorts `entries` into JavaScript's order: index keys ascending, then the
/// others in their current (insertion) order. Stable, so a no-op on
/// entries already in that order.
pub fn sort_js_order<T>(entries: &mut [(String, T)]) {
    entries.sort_by_key(|(key, _)| is_index_key(key).unwrap_or(u64::MAX));
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
