//! Small walks over a parsed JSONata tree.

use std::collections::HashSet;

use jsonata_core::ast::{AstNode, BinaryOp, Stage};

/// Every variable the expression binds anywhere (`:=`, lambda parameters,
/// `@$v`, `#$v`): a call of such a name is not checked, wherever it is.
pub(super) fn bound_names(node: &AstNode, out: &mut HashSet<String>) {
    each_child(node, &mut |child| bound_names(child, out));
    match node {
        AstNode::Binary {
            op: BinaryOp::ColonEqual,
            lhs,
            ..
        } => {
            if let AstNode::Variable(v) = &**lhs {
                out.insert(v.clone());
            }
        }
        AstNode::Lambda { params, .. } => out.extend(params.iter().cloned()),
        AstNode::Path { steps } => {
            for s in steps {
                out.extend(s.focus.iter().chain(&s.index_var).cloned());
                for stage in &s.stages {
                    if let Stage::Index(v) = stage {
                        out.insert(v.clone());
                    }
                }
            }
        }
        _ => {}
    }
}

/// Calls `f` on every direct child of `node`.
pub(super) fn each_child(node: &AstNode, f: &mut impl FnMut(&AstNode)) {
    match node {
        AstNode::Path { steps } => {
            for s in steps {
                f(&s.node);
                for stage in &s.stages {
                    if let Stage::Filter(e) = stage {
                        f(e);
                    }
                }
            }
        }
        AstNode::Binary { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        AstNode::Unary { operand, .. } => f(operand),
        AstNode::Function { args, .. } => args.iter().for_each(f),
        AstNode::Call { procedure, args } => {
            f(procedure);
            args.iter().for_each(f);
        }
        AstNode::Lambda { body, .. } | AstNode::FunctionApplication(body) => f(body),
        AstNode::Array(items) | AstNode::Block(items) | AstNode::ArrayGroup(items) => {
            items.iter().for_each(f)
        }
        AstNode::Object(pairs) => pairs.iter().for_each(|(k, v)| {
            f(k);
            f(v);
        }),
        AstNode::ObjectTransform { input, pattern } => {
            f(input);
            pattern.iter().for_each(|(k, v)| {
                f(k);
                f(v);
            });
        }
        AstNode::Conditional {
            condition,
            then_branch,
            else_branch,
        } => {
            f(condition);
            f(then_branch);
            if let Some(e) = else_branch {
                f(e);
            }
        }
        AstNode::Sort { input, terms } => {
            f(input);
            terms.iter().for_each(|(t, _)| f(t));
        }
        AstNode::Transform {
            location,
            update,
            delete,
        } => {
            f(location);
            f(update);
            if let Some(d) = delete {
                f(d);
            }
        }
        _ => {}
    }
}
