//! The typed model of a graph file, with a source position on every value a
//! diagnostic may need to point at.
//!
//! This module holds data, and the few questions about a tool's graph that
//! every reader of it asks (which node has this id, where a node may go
//! next). Building it from YAML is `lower`'s job, checking the graph rules
//! is `validate`'s, and turning it into Rust is `expand`'s. A `GraphFile`
//! that `lower` + `validate` return without error is well formed: every
//! `next` names a node of the same tool, every `mcp` node names a declared
//! server, every expression parses.

use std::collections::HashMap;

mod calls;
mod resilience;
mod servers;
mod targets;

pub use calls::{Call, NodeCall, Place};
pub use mcpgraph_format::Limits;
pub use resilience::{Resilience, Retry};
pub use servers::{Auth, McpServer, Server, Transport};

/// A position in the graph file: 1-based line and column (in characters),
/// plus the 0-based byte offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
    /// 0-based byte offset into the file.
    pub offset: usize,
}

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Sp<T> {
    /// The value.
    pub value: T,
    /// Where the value starts in the file.
    pub pos: Pos,
}

impl<T> Sp<T> {
    /// Pairs a value with its position.
    pub fn new(value: T, pos: Pos) -> Self {
        Self { value, pos }
    }
}

/// A whole graph file.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphFile {
    /// The `version` field (not interpreted).
    pub version: Sp<String>,
    /// The server this file becomes.
    pub server: ServerMeta,
    /// Downstream servers, in file order.
    pub mcp_servers: Vec<McpServer>,
    /// Execution limits, with defaults filled in.
    pub limits: Limits,
    /// Tools, in file order.
    pub tools: Vec<Tool>,
}

/// `server:` metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerMeta {
    /// `server.name`.
    pub name: Sp<String>,
    /// `server.version`.
    pub version: Sp<String>,
    /// `server.title`, if given (the generator defaults it to the name).
    pub title: Option<Sp<String>>,
    /// `server.instructions`, if given.
    pub instructions: Option<Sp<String>>,
}

/// One tool.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    /// `name`.
    pub name: Sp<String>,
    /// `description`.
    pub description: String,
    /// `inputSchema`, whole.
    pub input_schema: serde_json::Value,
    /// `outputSchema`, whole, if given.
    pub output_schema: Option<serde_json::Value>,
    /// `nodes`, in file order.
    pub nodes: Vec<Node>,
    /// The exit node's `content:` (an extension), if it has one.
    pub exit_content: Option<ExitContent>,
    /// `annotations:` (an extension): the hints the graph sets, which
    /// replace the ones derived from the lock.
    pub annotations: ToolAnnotations,
    /// `icons:` (an extension): MCP `Icon` objects, as written (checked).
    pub icons: Vec<serde_json::Value>,
    /// `requiredScopes:` (an extension): the OAuth scopes a caller's token
    /// needs for this tool when the server validates OAuth tokens.
    pub required_scopes: Vec<String>,
    /// `task:` (an extension): whether a call runs as an MCP task.
    pub task: mcpgraph_format::TaskSupport,
}

/// An exit node's `content:`: the `mcp` nodes whose content blocks the
/// result returns as they came.
#[derive(Clone, Debug, PartialEq)]
pub struct ExitContent {
    /// `from`: node ids, in the order their blocks are returned.
    pub from: Vec<Sp<String>>,
    /// `types`: the block types kept (empty: all).
    pub types: Vec<String>,
    /// `json` (default true): keep the JSON text block and
    /// `structuredContent`; where it is written, if it is.
    pub json: Sp<bool>,
}

/// A tool's MCP annotations (`ToolAnnotations`), each hint set or not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// `title`.
    pub title: Option<String>,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

impl Tool {
    /// Each node id with the position in `nodes` of the first node that
    /// has it (ids repeat only in a file with errors).
    pub fn node_index(&self) -> HashMap<&str, usize> {
        let mut index = HashMap::with_capacity(self.nodes.len());
        for (i, node) in self.nodes.iter().enumerate() {
            index.entry(node.id.value.as_str()).or_insert(i);
        }
        index
    }

    /// The position in `nodes` of the node with id `id` (the first, if ids
    /// repeat).
    pub fn position(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id.value == id)
    }

    /// The position in `nodes` of the entry node (the first, if there are
    /// several).
    pub fn entry(&self) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| matches!(n.kind, NodeKind::Entry { .. }))
    }
}

/// One node of a tool's graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// `id`.
    pub id: Sp<String>,
    /// `type` and its fields.
    pub kind: NodeKind,
}

/// A node's type and type-specific fields.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// `type: entry`.
    Entry {
        /// `next`.
        next: Sp<String>,
    },
    /// `type: exit`.
    Exit,
    /// `type: mcp`.
    Mcp {
        /// `server` (a key of `mcpServers`).
        server: Sp<String>,
        /// `tool` on that server.
        tool: Sp<String>,
        /// `args` (default: empty object).
        args: Arg,
        /// Where a missing argument goes: the `args` key, or the node's
        /// mapping when it has none.
        args_pos: Pos,
        /// `next`.
        next: Sp<String>,
        /// `retry`, `timeoutMs` and `onError`.
        resilience: Resilience,
    },
    /// `type: transform`.
    Transform {
        /// `transform.expr`.
        expr: Expr,
        /// `next`.
        next: Sp<String>,
    },
    /// `type: switch`.
    Switch {
        /// `conditions`, in order.
        conditions: Vec<Condition>,
        /// `next`: the default target.
        next: Sp<String>,
    },
    /// `type: parallel` (an extension): calls at once, output keyed by
    /// branch name.
    Parallel {
        /// `branches`, in file order.
        branches: Vec<(Sp<String>, Call)>,
        /// `maxConcurrency` (default: every branch at once).
        max_concurrency: Option<u64>,
        /// `next`.
        next: Sp<String>,
        /// `retry` (each branch's default), `timeoutMs` (the whole node)
        /// and `onError`.
        resilience: Resilience,
    },
    /// `type: forEach` (an extension): one call per item, output in item
    /// order.
    ForEach {
        /// `items.expr`: must evaluate to an array.
        items: Expr,
        /// `call`: its args see `$.item` and `$.index`.
        call: Call,
        /// `maxConcurrency` (default 4).
        max_concurrency: u64,
        /// `next`.
        next: Sp<String>,
        /// `retry` (each call's default), `timeoutMs` (the whole node)
        /// and `onError`.
        resilience: Resilience,
    },
    /// `type: elicit` (an extension): asks the calling client's user.
    Elicit {
        /// `message`: what the user is asked.
        message: Message,
        /// `requestedSchema`, whole: a flat form, checked when lowered.
        schema: serde_json::Value,
        /// `routes`: where each answer goes.
        routes: Routes,
    },
}

/// An `elicit` node's `message`.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A string, sent as written.
    Text(String),
    /// `{ expr: "..." }`: the expression's value, which must be a string.
    Expr(Expr),
}

/// An `elicit` node's `routes`: the node each answer goes to. `accept` is
/// required; an answer without a route ends the call with an error.
#[derive(Clone, Debug, PartialEq)]
pub struct Routes {
    /// `accept`.
    pub accept: Sp<String>,
    /// `decline`, if given.
    pub decline: Option<Sp<String>>,
    /// `cancel`, if given.
    pub cancel: Option<Sp<String>>,
}

impl Routes {
    /// The routes given, with their answer's name, in the order
    /// accept, decline, cancel.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Sp<String>)> {
        [
            ("accept", Some(&self.accept)),
            ("decline", self.decline.as_ref()),
            ("cancel", self.cancel.as_ref()),
        ]
        .into_iter()
        .filter_map(|(answer, to)| to.map(|to| (answer, to)))
    }
}

/// A JSONata expression and where its text starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The expression text after YAML unescaping.
    pub source: String,
    /// Position of the scalar holding it: its first character (the opening
    /// quote of a quoted scalar, the first content character of a block
    /// scalar).
    pub pos: Pos,
    /// Where the text of `source` is in the file, for mapping an offset
    /// inside the expression (e.g. of a syntax error) to a line and column:
    /// pairs `(byte offset in source, file position)`, sorted, the first at
    /// offset 0. From each entry up to the next, `source` is copied
    /// character for character from one line of the file; escapes and line
    /// folds start new entries. Empty when the text could not be mapped:
    /// then every offset maps to `pos`.
    pub spans: Vec<(usize, Pos)>,
}

/// An `mcp` node's `args`, walked as FORMAT.md says.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// `{ expr: "..." }`: replaced by the expression's value.
    Expr(Expr),
    /// Any other object: its keys in file order.
    Object(Vec<(Sp<String>, Arg)>),
    /// An array.
    Array(Vec<Arg>),
    /// A scalar passed as it is (strings starting with `$` included).
    Literal(serde_json::Value),
}

/// One switch condition.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// The JSON Logic rule.
    pub rule: Logic,
    /// Where the condition routes.
    pub next: Sp<String>,
}

/// A JSON Logic rule with every `{"var": S}` lifted out as a JSONata
/// expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Logic {
    /// `{"var": "S"}`.
    Var(Expr),
    /// An object: an operator application `{"op": args}` (validated to have
    /// a known operator) or, as data, any other object.
    Object(Vec<(Sp<String>, Logic)>),
    /// An array.
    Array(Vec<Logic>),
    /// A scalar.
    Literal(serde_json::Value),
}
