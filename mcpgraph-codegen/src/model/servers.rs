//! The downstream servers a graph declares (`mcpServers`).

use super::Sp;

/// One entry of `mcpServers:`.
#[derive(Clone, Debug, PartialEq)]
pub struct McpServer {
    /// The key under `mcpServers`.
    pub name: Sp<String>,
    /// How to reach it. Strings are kept verbatim: `${VAR}` is expanded at
    /// run time, never by the generator.
    pub transport: Transport,
    /// `timeoutMs`, if given.
    pub timeout_ms: Option<u64>,
    /// `pingTimeoutMs` (an extension key), if given.
    pub ping_timeout_ms: Option<u64>,
    /// `auth` (an extension key, `http` and `sse` only): how the client
    /// manager gets OAuth tokens for the server, checked and written as
    /// canonical JSON, the shape the runtime reads (and `--mcp` files
    /// give). Secrets are `${VAR}` references or file paths, never values.
    pub auth: Option<String>,
}

/// How a downstream server is reached.
#[derive(Clone, Debug, PartialEq)]
pub enum Transport {
    /// `type` omitted or `stdio`.
    Stdio {
        /// `command`.
        command: String,
        /// `args` (default empty).
        args: Vec<String>,
        /// `cwd`, if given.
        cwd: Option<String>,
        /// `env`, in file order.
        env: Vec<(String, String)>,
        /// `inheritEnv`: names of our environment variables passed through
        /// (beside the default allow-list), in file order.
        inherit_env: Vec<String>,
    },
    /// `type: streamableHttp` (also `http`, `streamable-http`).
    StreamableHttp {
        /// `url`.
        url: String,
        /// `headers`, in file order.
        headers: Vec<(String, String)>,
    },
    /// `type: sse`.
    Sse {
        /// `url`.
        url: String,
        /// `headers`, in file order.
        headers: Vec<(String, String)>,
    },
}
