//! The downstream servers a graph declares (`mcpServers`): the format's
//! [`Server`], with where it is written.

pub use mcpgraph_format::{Auth, Server, Transport};

use super::Pos;

/// One entry of `mcpServers:`.
#[derive(Clone, Debug, PartialEq)]
pub struct McpServer {
    /// Where its key (the server's name) is written.
    pub pos: Pos,
    /// The server, as the runtime gets it. Strings are kept verbatim:
    /// `${VAR}` is expanded at run time, never by the generator. Its
    /// `auth` (an extension key, `http` and `sse` only) was checked where
    /// it is written; secrets are `${VAR}` references or file paths,
    /// never values.
    pub spec: Server,
}

impl McpServer {
    /// The key under `mcpServers`.
    pub fn name(&self) -> &str {
        &self.spec.name
    }
}
