//! What a graph file declares, as generated code compiles it in: the
//! server's metadata, its tools and its limits (the downstream servers and
//! the limits are `mcpgraph-format`'s types).
//!
//! Plain data with `'static` strings, and a leaf: this module imports
//! nothing of the runtime's, so every other module may use it. Running a
//! graph is `graph`'s and `exec`'s business; connecting to the servers is
//! `downstream`'s.

/// `server:` metadata of a graph file.
#[derive(Clone, Copy, Debug)]
pub struct ServerMeta {
    /// `server.name`.
    pub name: &'static str,
    /// `server.version`.
    pub version: &'static str,
    /// `server.title`, already defaulted to the name by the generator.
    pub title: &'static str,
    /// `server.instructions`.
    pub instructions: Option<&'static str>,
}

/// One tool's metadata. Schemas are JSON text, checked by the generator,
/// with the validators it generated from them.
#[derive(Clone, Copy, Debug)]
pub struct ToolMeta {
    /// Tool name.
    pub name: &'static str,
    /// Tool description.
    pub description: &'static str,
    /// `inputSchema` as JSON text.
    pub input_schema: &'static str,
    /// `outputSchema` as JSON text.
    pub output_schema: Option<&'static str>,
    /// `inputSchema`'s validator, generated at build time: the first way a
    /// value breaks the schema, or `None`.
    pub input_check: SchemaCheck,
    /// `outputSchema`'s validator, as `input_check`.
    pub output_check: Option<SchemaCheck>,
    /// The exit node's `content:` (an extension): downstream content
    /// blocks the result carries.
    pub content: Option<ContentMeta>,
    /// The tool's `annotations` as listed (an MCP `ToolAnnotations` object
    /// as JSON text): derived from the lock, with the graph's overrides.
    pub annotations: Option<&'static str>,
    /// The tool's `icons` (a JSON array of MCP `Icon` objects).
    pub icons: Option<&'static str>,
    /// `requiredScopes` (an extension): the OAuth scopes a caller's token
    /// needs for a `tools/call` of this tool when `serve --http` validates
    /// OAuth tokens (`--oauth-issuer`); ignored otherwise.
    pub required_scopes: &'static [&'static str],
    /// `task` (an extension): whether a call of this tool runs as an MCP
    /// task for a client that declared the tasks extension.
    pub task: TaskSupport,
}

/// The exit node's `content:` (an mcpgraph extension, FORMAT.md "exit"):
/// the content blocks of `mcp` nodes that the result returns as they came.
#[derive(Clone, Copy, Debug)]
pub struct ContentMeta {
    /// `from`: the `mcp` nodes whose blocks (of their latest run in the
    /// call) the result carries, in this order.
    pub from: &'static [&'static str],
    /// `types`: the block types kept (`text`, `image`, `audio`, `resource`,
    /// `resource_link`); empty keeps every type.
    pub types: &'static [&'static str],
    /// `json`: whether the result starts with its JSON text block (and
    /// carries `structuredContent`) as without `content:`.
    pub json: bool,
}

/// A schema's validator, generated with the graph: the first way a value
/// breaks the schema (`/path: message`), or `None` when it conforms.
pub type SchemaCheck = fn(&serde_json::Value) -> Option<String>;

/// `executionLimits:` of a graph file, with [`Limits::DEFAULT`]: the
/// format's type (`mcpgraph-format`).
pub use mcpgraph_format::Limits;
/// A tool's `task:` (FORMAT.md "Tasks").
pub use mcpgraph_format::{TaskMode, TaskSupport};

// The format's default nesting is the expression engine's.
const _: () = assert!(Limits::DEFAULT.max_value_depth == mcpgraph_expr::DEFAULT_MAX_VALUE_DEPTH);
