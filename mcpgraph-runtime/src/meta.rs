//! What a graph file declares, as generated code compiles it in: the
//! server's metadata, its tools, its limits and its downstream servers.
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

/// `executionLimits:` of a graph file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Nodes one call may execute.
    pub max_node_executions: u64,
    /// Wall-clock budget of one call.
    pub max_execution_time_ms: u64,
    /// JSONata evaluation depth.
    pub max_expression_depth: u64,
    /// Wall-clock budget of one JSONata evaluation.
    pub max_expression_time_ms: u64,
    /// Size of one node's output, as JSON text.
    pub max_value_bytes: u64,
    /// Size of all the outputs one call keeps (its history), as JSON text.
    pub max_history_bytes: u64,
    /// Nesting of arrays and objects in one node's output.
    pub max_value_depth: u64,
    /// Nesting of calls of the graph's own tools.
    pub max_call_depth: u64,
    /// Questions the downstream servers of one call may ask its client
    /// (all nodes, branches, items and rounds).
    pub max_questions: u64,
    /// How long one question waits for the client's answer.
    pub max_answer_wait_ms: u64,
}

impl Limits {
    /// The format's defaults (FORMAT.md, `executionLimits`): what a graph
    /// file that sets no limit gets.
    pub const DEFAULT: Self = Self {
        max_node_executions: 1000,
        max_execution_time_ms: 300_000,
        max_expression_depth: 500,
        max_expression_time_ms: 1000,
        max_value_bytes: 64 << 20,
        max_history_bytes: 256 << 20,
        max_value_depth: mcpgraph_expr::DEFAULT_MAX_VALUE_DEPTH,
        max_call_depth: 8,
        max_questions: 16,
        max_answer_wait_ms: 600_000,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A downstream server as compiled in. Strings are verbatim: `${VAR}` is
/// expanded when the server is first started.
#[derive(Clone, Copy, Debug)]
pub struct ServerDef {
    /// Key under `mcpServers`.
    pub name: &'static str,
    /// How to reach it.
    pub transport: TransportDef,
    /// Per-call timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `pingTimeoutMs`: deadline of the ping that probes a connection
    /// after a call on it was abandoned.
    pub ping_timeout_ms: Option<u64>,
    /// `auth`, as JSON (FORMAT.md, "OAuth"): how the client manager gets
    /// OAuth tokens for an `http` or `sse` server.
    pub auth: Option<&'static str>,
}

/// Transport of a compiled-in downstream server.
#[derive(Clone, Copy, Debug)]
pub enum TransportDef {
    /// A child process speaking MCP over stdio.
    Stdio {
        /// Program.
        command: &'static str,
        /// Arguments.
        args: &'static [&'static str],
        /// Working directory.
        cwd: Option<&'static str>,
        /// Added environment variables.
        env: &'static [(&'static str, &'static str)],
        /// `inheritEnv`: our variables passed through beside the default
        /// allow-list.
        inherit_env: &'static [&'static str],
    },
    /// Streamable HTTP.
    StreamableHttp {
        /// Endpoint URL.
        url: &'static str,
        /// Extra request headers.
        headers: &'static [(&'static str, &'static str)],
    },
    /// Legacy HTTP+SSE.
    Sse {
        /// Endpoint URL.
        url: &'static str,
        /// Extra request headers.
        headers: &'static [(&'static str, &'static str)],
    },
}
