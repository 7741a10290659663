//! Checks the expressions of a tool: syntax, S0212 (assignment to
//! something that is not a variable), and the node ids they read, either as
//! a path step from the context (`$.a`) or as the first argument of a
//! history function (`$executionCount("a")`). References to nodes that
//! exist are collected for the may-have-run analysis.

use std::collections::{BTreeSet, HashSet};

use jsonata_core::ast::{AstNode, BinaryOp, Stage};

use super::lexer::{find_bad_assignment, find_name, find_string};
use super::regex::check_regex;
use super::run_errors::check_run_errors;
use super::syntax::{error_text, locate_syntax_error};
use super::unknown_node;
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::lower::expr_pos;
use crate::model::{Arg, Expr, Logic, Pos};

/// The history functions whose first argument names a node.
const HISTORY_FUNCTIONS: &[&str] = &["executionCount", "nodeExecution", "nodeExecutions"];

/// What the expressions of one tool are checked against.
pub(super) struct Scope<'a> {
    /// Every node id, of nodes built or not.
    pub(super) ids: &'a BTreeSet<&'a str>,
    /// The ids in file order, for messages.
    pub(super) id_list: &'a [&'a str],
    /// "tool `t`", for messages.
    pub(super) label: &'a str,
}

/// A reference to an existing node, found in an expression.
pub(super) struct Ref {
    /// The node's id.
    pub(super) name: String,
    /// How the expression names it.
    pub(super) kind: RefKind,
    /// Where, in the file.
    pub(super) pos: Pos,
}

/// Checks the expressions inside an `mcp` node's `args`.
pub(super) fn check_arg(
    arg: &Arg,
    scope: &Scope<'_>,
    diags: &mut Diagnostics,
    refs: &mut Vec<Ref>,
) {
    match arg {
        Arg::Expr(e) => check_expr(e, scope, diags, refs),
        Arg::Object(entries) => {
            for (_, a) in entries {
                check_arg(a, scope, diags, refs);
            }
        }
        Arg::Array(items) => {
            for a in items {
                check_arg(a, scope, diags, refs);
            }
        }
        Arg::Literal(_) => {}
    }
}

/// The names a `forEach` node's `call.args` read besides the nodes: the
/// current item and its position.
pub(crate) const ITEM_NAMES: [&str; 2] = ["item", "index"];

/// Checks the expressions inside a `forEach` node's `call.args`, where
/// `$.item` and `$.index` name the current item and its position (and
/// shadow nodes with those ids).
pub(super) fn check_item_args(
    arg: &Arg,
    scope: &Scope<'_>,
    diags: &mut Diagnostics,
    refs: &mut Vec<Ref>,
) {
    let mut ids = scope.ids.clone();
    ids.extend(ITEM_NAMES);
    let inner = Scope {
        ids: &ids,
        ..*scope
    };
    let mut found = Vec::new();
    check_arg(arg, &inner, diags, &mut found);
    refs.extend(
        found
            .into_iter()
            .filter(|r| !ITEM_NAMES.contains(&r.name.as_str())),
    );
}

/// Checks the `var` expressions inside a switch rule.
pub(super) fn check_logic(
    logic: &Logic,
    scope: &Scope<'_>,
    diags: &mut Diagnostics,
    refs: &mut Vec<Ref>,
) {
    match logic {
        Logic::Var(e) => check_expr(e, scope, diags, refs),
        Logic::Object(entries) => {
            for (_, l) in entries {
                check_logic(l, scope, diags, refs);
            }
        }
        Logic::Array(items) => {
            for l in items {
                check_logic(l, scope, diags, refs);
            }
        }
        Logic::Literal(_) => {}
    }
}

/// Syntax, S0212 and node references of one expression. References to
/// existing nodes are added to `refs`.
pub(super) fn check_expr(
    expr: &Expr,
    scope: &Scope<'_>,
    diags: &mut Diagnostics,
    refs: &mut Vec<Ref>,
) {
    let Some(found) = check_text(expr, diags) else {
        return;
    };
    let mut reported = HashSet::new();
    for (name, kind) in found.refs {
        if !reported.insert((name.clone(), kind)) {
            continue;
        }
        let offset = match kind {
            RefKind::Path => find_name(&expr.source, &name),
            RefKind::StringArg => find_string(&expr.source, &name),
        };
        let pos = expr_pos(expr, offset.unwrap_or(0));
        if scope.ids.contains(name.as_str()) {
            refs.push(Ref { name, kind, pos });
            continue;
        }
        if reported.iter().any(|(n, k)| *n == name && *k != kind) {
            continue;
        }
        let what = match kind {
            RefKind::Path => "the expression reads",
            RefKind::StringArg => "the expression asks for the history of",
        };
        unknown_node(diags, pos, &name, scope.label, scope.id_list, what);
    }
}

/// The checks of an expression's own text, whatever it reads: syntax,
/// S0212, regular expressions, errors every run would raise. `None` when
/// it does not parse; else what it names.
fn check_text(expr: &Expr, diags: &mut Diagnostics) -> Option<Found> {
    let ast = match jsonata_core::parser::parse(&expr.source) {
        Ok(ast) => ast,
        Err(e) => {
            let (offset, exact) = locate_syntax_error(&expr.source, &e);
            let d = diags.error(
                codes::JSONATA_SYNTAX,
                expr_pos(expr, offset),
                format!("invalid JSONata expression: {}", error_text(&e)),
            );
            if !exact {
                d.note("the position of the error inside the expression could not be determined");
            }
            return None;
        }
    };
    let mut found = Found::default();
    walk(&ast, true, &mut found);
    if found.bad_assignment {
        let offset = find_bad_assignment(&expr.source).unwrap_or(0);
        diags
            .error(
                codes::JSONATA_SYNTAX,
                expr_pos(expr, offset),
                "invalid JSONata expression: S0212: the left side of `:=` must be a variable name (starting with `$`)",
            )
            .help("assign to a variable, e.g. `$x := 1`");
    }
    for (pattern, flags) in &found.regexes {
        check_regex(expr, pattern, flags, diags);
    }
    if !found.bad_assignment {
        check_run_errors(&ast, expr, diags);
    }
    Some(found)
}

/// The checks a graph file gives an expression that do not depend on the
/// graph (see [`check_text`]), for an expression on its own: positions are
/// lines and columns in `source`.
pub(crate) fn check_standalone(source: &str) -> Diagnostics {
    let mut diags = Diagnostics::new("expression", source);
    let expr = Expr {
        source: source.to_owned(),
        pos: Pos {
            line: 1,
            column: 1,
            offset: 0,
        },
        spans: line_spans(source),
    };
    check_text(&expr, &mut diags);
    diags
}

/// `source`'s lines as an expression's spans: each starts a line of its
/// own at column 1.
fn line_spans(source: &str) -> Vec<(usize, Pos)> {
    let mut spans = Vec::new();
    let mut offset = 0;
    for (i, line) in source.split_inclusive('\n').enumerate() {
        spans.push((
            offset,
            Pos {
                line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                column: 1,
                offset,
            },
        ));
        offset += line.len();
    }
    spans
}

/// How an expression names a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum RefKind {
    /// A path step read from the context.
    Path,
    /// The string argument of a history function.
    StringArg,
}

/// What [`walk`] found in an expression.
#[derive(Default)]
struct Found {
    refs: Vec<(String, RefKind)>,
    bad_assignment: bool,
    /// Regex literals: pattern and flags.
    regexes: Vec<(String, String)>,
}

/// Collects node references and S0212 violations. `at_context`: the node is
/// evaluated against the expression's input (the context of the call), not
/// against an item inside a path.
fn walk(node: &AstNode, at_context: bool, found: &mut Found) {
    match node {
        AstNode::Regex { pattern, flags } => found.regexes.push((pattern.clone(), flags.clone())),
        AstNode::Name(n) => {
            if at_context {
                found.refs.push((n.clone(), RefKind::Path));
            }
        }
        AstNode::Path { steps } => {
            let mut rest = steps.iter();
            if let Some(first) = rest.next() {
                match &first.node {
                    AstNode::Variable(v) | AstNode::ParentVariable(v) if v.is_empty() => {
                        // `$` (at the top) or `$$` (anywhere): the next
                        // step reads the context.
                        let root = matches!(first.node, AstNode::ParentVariable(_));
                        if (at_context || root)
                            && first.stages.is_empty()
                            && let Some(AstNode::Name(n)) = steps.get(1).map(|s| &s.node)
                        {
                            found.refs.push((n.clone(), RefKind::Path));
                        }
                    }
                    other => walk(other, at_context, found),
                }
                walk_stages(&first.stages, found);
            }
            for step in rest {
                walk(&step.node, false, found);
                walk_stages(&step.stages, found);
            }
        }
        AstNode::Binary { op, lhs, rhs } => {
            if *op == BinaryOp::ColonEqual && !matches!(**lhs, AstNode::Variable(_)) {
                found.bad_assignment = true;
            }
            if *op != BinaryOp::ColonEqual {
                walk(lhs, at_context, found);
            }
            walk(rhs, at_context, found);
        }
        AstNode::Unary { operand, .. } => walk(operand, at_context, found),
        AstNode::Function { name, args, .. } => {
            if HISTORY_FUNCTIONS.contains(&name.as_str())
                && let Some(AstNode::String(id)) = args.first()
            {
                found.refs.push((id.clone(), RefKind::StringArg));
            }
            for a in args {
                walk(a, at_context, found);
            }
        }
        AstNode::Call { procedure, args } => {
            walk(procedure, at_context, found);
            for a in args {
                walk(a, at_context, found);
            }
        }
        // A lambda's body sees the input where it was defined.
        AstNode::Lambda { body, .. } => walk(body, at_context, found),
        AstNode::Array(items) | AstNode::Block(items) => {
            for i in items {
                walk(i, at_context, found);
            }
        }
        AstNode::Object(pairs) => {
            for (k, v) in pairs {
                walk(k, at_context, found);
                walk(v, at_context, found);
            }
        }
        AstNode::ObjectTransform { input, pattern } => {
            walk(input, at_context, found);
            for (k, v) in pattern {
                walk(k, false, found);
                walk(v, false, found);
            }
        }
        AstNode::Conditional {
            condition,
            then_branch,
            else_branch,
        } => {
            walk(condition, at_context, found);
            walk(then_branch, at_context, found);
            if let Some(e) = else_branch {
                walk(e, at_context, found);
            }
        }
        AstNode::ArrayGroup(items) => {
            for i in items {
                walk(i, false, found);
            }
        }
        AstNode::FunctionApplication(inner) => walk(inner, false, found),
        AstNode::Sort { input, terms } => {
            walk(input, at_context, found);
            for (t, _) in terms {
                walk(t, false, found);
            }
        }
        AstNode::Transform {
            location,
            update,
            delete,
        } => {
            walk(location, false, found);
            walk(update, false, found);
            if let Some(d) = delete {
                walk(d, false, found);
            }
        }
        AstNode::String(_)
        | AstNode::Number(_)
        | AstNode::Boolean(_)
        | AstNode::Null
        | AstNode::Undefined
        | AstNode::Placeholder
        | AstNode::Variable(_)
        | AstNode::ParentVariable(_)
        | AstNode::Wildcard
        | AstNode::Descendant
        | AstNode::Parent(_) => {}
    }
}

fn walk_stages(stages: &[Stage], found: &mut Found) {
    for s in stages {
        if let Stage::Filter(f) = s {
            walk(f, false, found);
        }
    }
}
#[cfg(test)]
#[path = "expr_tests.rs"]
mod tests;
