//! The contract between generated code and the runtime: exactly the names
//! the generator emits, and nothing else (tonic's `codegen` module is the
//! model). Generated code reaches it as `<crate>::__private`, imported once
//! per module as `rt`, so it compiles after a rename of the facade
//! dependency and under `#![no_implicit_prelude]`. Not a public API: it
//! changes with the generator, without notice.
//!
//! The standard names are here too (`rt::Ok`, `rt::Box`,
//! `#[derive(rt::Clone)]`), so generated code never spells
//! `::core::result::Result::Ok`.

/// The connector of a graph that declares no server.
pub use crate::servers::no_servers;
pub use crate::{
    Answer, Args, CallSpec, Connect, ContentMeta, Elicit, Execution, Expr, ForEach, Graph, Limits,
    NodeError, NodeType, Parallel, Resilience, Retry, Rule, RunFuture, ServerAuth, ServerMeta,
    ServerSpec, StartupError, Switch, TaskMode, TaskSupport, ToolMeta, TransportSpec,
    schema_violation,
};
pub use ::mcpgraph_expr::parsed::Condition;
/// What a server's `auth` names.
pub mod auth {
    pub use ::mcpgraph_format::{Algorithm, Enterprise, Grant, TokenStore};
}
/// What the compiled-in servers' strings are built with.
pub use ::mcpgraph_format::owned;

pub use crate::GraphDef;
pub use ::jsonschema;
pub use ::mcpgraph_expr::Helpers;
pub use ::serde_json;
pub use ::std::boxed::Box;
pub use ::std::clone::Clone;
pub use ::std::cmp::{Eq, PartialEq};
pub use ::std::fmt::Debug;
pub use ::std::hash::Hash;
pub use ::std::marker::Copy;
pub use ::std::option::Option::{self, None, Some};
pub use ::std::result::Result::{self, Err, Ok};
pub use ::std::string::String;
pub use ::std::vec::Vec;

/// What generated code builds a parsed JSONata tree with
/// ([`Expr::from_ast`](crate::Expr::from_ast)).
pub mod ast {
    pub use ::jsonata_core::ast::{AstNode, BinaryOp, PathStep, Stage, UnaryOp};

    /// An owned string.
    pub fn s(text: &str) -> String {
        text.to_owned()
    }

    /// A boxed node.
    pub fn b(node: AstNode) -> Box<AstNode> {
        Box::new(node)
    }

    /// `AstNode::String`.
    pub fn string(text: &str) -> AstNode {
        AstNode::String(s(text))
    }

    /// `AstNode::Name`.
    pub fn name(text: &str) -> AstNode {
        AstNode::Name(s(text))
    }

    /// `AstNode::Variable`.
    pub fn var(name: &str) -> AstNode {
        AstNode::Variable(s(name))
    }

    /// `AstNode::Path`.
    pub fn path<const N: usize>(steps: [PathStep; N]) -> AstNode {
        AstNode::Path {
            steps: Vec::from(steps),
        }
    }

    /// `AstNode::Path` of plain steps, the commonest path: the variable
    /// `var` (`""` is `$`) when given, then a step per field name. One call
    /// with static names instead of a builder per step keeps the generated
    /// code small.
    pub fn names(var: Option<&str>, names: &[&str]) -> AstNode {
        let mut steps = Vec::with_capacity(usize::from(var.is_some()) + names.len());
        steps.extend(var.map(|v| plain(self::var(v))));
        steps.extend(names.iter().map(|n| plain(name(n))));
        AstNode::Path { steps }
    }

    /// `AstNode::Binary`.
    pub fn binary(op: BinaryOp, lhs: AstNode, rhs: AstNode) -> AstNode {
        AstNode::Binary {
            op,
            lhs: b(lhs),
            rhs: b(rhs),
        }
    }

    /// `AstNode::Function`.
    pub fn function<const N: usize>(name: &str, args: [AstNode; N], is_builtin: bool) -> AstNode {
        AstNode::Function {
            name: s(name),
            args: Vec::from(args),
            is_builtin,
        }
    }

    /// `AstNode::Array`.
    pub fn array<const N: usize>(items: [AstNode; N]) -> AstNode {
        AstNode::Array(Vec::from(items))
    }

    /// `AstNode::Object`.
    pub fn object<const N: usize>(fields: [(AstNode, AstNode); N]) -> AstNode {
        AstNode::Object(Vec::from(fields))
    }

    /// A path step that is only its node.
    pub fn plain(node: AstNode) -> PathStep {
        PathStep::new(node)
    }

    /// A path step with every field given (its id is a fresh one, as the
    /// parser's are).
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        node: AstNode,
        stages: Vec<Stage>,
        focus: Option<&str>,
        index_var: Option<&str>,
        ancestor_label: Option<&str>,
        is_tuple: bool,
        inner_tuple: bool,
    ) -> PathStep {
        let mut step = PathStep::new(node);
        step.stages = stages;
        step.focus = focus.map(s);
        step.index_var = index_var.map(s);
        step.ancestor_label = ancestor_label.map(s);
        step.is_tuple = is_tuple;
        step.inner_tuple = inner_tuple;
        step
    }
}

/// What generated code builds a switch condition's tree with
/// ([`Condition::tree`], for [`Switch::compiled`](crate::Switch::compiled)):
/// the tree the runtime's rule compiler makes of the rewritten rule's JSON,
/// node for node, so that start-up parses no JSON. Debug builds compile the
/// JSON too and check that the trees are equal.
pub mod logic {
    pub use mcpgraph_expr::logic::{Args, Node, Op};
    use serde_json::Value as Json;

    /// `Node::Num`: a number.
    pub fn num(n: f64) -> Node {
        Node::Num(n)
    }

    /// `Node::Str`: a string.
    pub fn text(text: &str) -> Node {
        Node::Str(text.to_owned())
    }

    /// `Node::Lit`: any other constant.
    pub fn lit(value: Json) -> Node {
        Node::Lit(value)
    }

    /// `Node::Slot`: the value of slot `i`.
    pub fn slot(i: usize) -> Node {
        Node::Slot(i)
    }

    /// `Node::Array`: an array with operations inside.
    pub fn array<const N: usize>(items: [Node; N]) -> Node {
        Node::Array(Box::new(items))
    }

    /// `Node::Binary`: a comparison or `in` of two arguments.
    pub fn binary(op: Op, lhs: Node, rhs: Node) -> Node {
        Node::Binary(op, Box::new([lhs, rhs]))
    }

    /// `Node::Apply` with one node per argument.
    pub fn apply<const N: usize>(op: Op, args: [Node; N]) -> Node {
        Node::Apply(op, Args::List(Box::new(args)))
    }

    /// `Node::Apply` with slot `i` standing for the argument list.
    pub fn spread(op: Op, i: usize) -> Node {
        Node::Apply(op, Args::Spread(i))
    }

    /// `Node::Unknown`: an operator json-logic-js does not know.
    pub fn unknown(name: &str) -> Node {
        Node::Unknown(name.into())
    }

    /// JSON `null`.
    pub fn null() -> Json {
        Json::Null
    }

    /// A JSON boolean.
    pub fn bool(b: bool) -> Json {
        Json::Bool(b)
    }

    /// A JSON number written as a non-negative integer.
    pub fn uint(n: u64) -> Json {
        Json::from(n)
    }

    /// A JSON number written as a negative integer.
    pub fn int(n: i64) -> Json {
        Json::from(n)
    }

    /// Any other JSON number.
    pub fn float(n: f64) -> Json {
        serde_json::Number::from_f64(n).map_or(Json::Null, Json::Number)
    }

    /// A JSON string.
    pub fn string(text: &str) -> Json {
        Json::String(text.to_owned())
    }

    /// A JSON array.
    pub fn list<const N: usize>(items: [Json; N]) -> Json {
        Json::Array(Vec::from(items))
    }

    /// A JSON object, keys in the order given.
    pub fn map<const N: usize>(entries: [(&str, Json); N]) -> Json {
        Json::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    }
}

pub use mcpgraph_expr::logic::SLOT_KEY;

/// The check of a schema that accepts every value reaching it (`{}`, or
/// `{"type": "object"}` for a tool's arguments, always an object): the
/// generator emits no validator for it.
pub fn no_check(_: &serde_json::Value) -> Option<String> {
    None
}
