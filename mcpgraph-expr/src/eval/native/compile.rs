//! An expression's tree in the shapes of [`Native`](super::Native), or
//! nothing.

use jsonata_core::ast::{AstNode, BinaryOp, PathStep, Stage, UnaryOp};

use super::{Arithmetic, Builtin, Literal, Node, Order};
use crate::compat::finite::{OPERAND, TRUTH};
use crate::is_plain_step;

fn pair(lhs: &AstNode, rhs: &AstNode, level: u64, depth: &mut u64) -> Option<Box<[Node; 2]>> {
    Some(Box::new([
        node(lhs, level + 1, depth)?,
        node(rhs, level + 1, depth)?,
    ]))
}

/// The deepest tree taken here: compiling, evaluating and dropping one
/// recurse, and an expression nested deeper is no common shape.
const MAX_DEPTH: u64 = 48;

pub(super) fn node(ast: &AstNode, level: u64, depth: &mut u64) -> Option<Node> {
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
                (OPERAND, [value, AstNode::Number(_)]) | (TRUTH, [value]) => {
                    let truth = name == TRUTH;
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

/// See [`Native::timed`](super::Native::timed). Comparing with a literal is bounded by the
/// literal; values are shared, never copied, when they are passed on.
pub(super) fn timed(node: &Node) -> bool {
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
