//! An entry of `mcpServers`: a downstream server and how to reach it.

use std::time::Duration;

use crate::Auth;

/// A downstream server (an entry of `mcpServers`, of a graph file or of a
/// `--mcp` file). Strings are verbatim: `${VAR}` is expanded when the
/// server is first started.
#[derive(Clone, Debug, PartialEq)]
pub struct Server {
    /// Key under `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// `timeoutMs`: the bound on connecting and on each call.
    pub timeout_ms: Option<u64>,
    /// `pingTimeoutMs` (an extension key): the deadline of the ping that
    /// probes a connection after a call on it was abandoned.
    pub ping_timeout_ms: Option<u64>,
    /// `auth` (an extension key, `http` and `sse` only): how the client
    /// manager gets OAuth tokens for the server.
    pub auth: Option<Auth>,
}

/// How a downstream server is reached.
#[derive(Clone, Debug, PartialEq)]
pub enum Transport {
    /// `type` omitted or `stdio`: a child process speaking MCP over stdio.
    Stdio {
        /// `command`: the program.
        command: String,
        /// `args` (default empty).
        args: Vec<String>,
        /// `cwd`: the working directory, if given.
        cwd: Option<String>,
        /// `env`: added environment variables, in file order.
        env: Vec<(String, String)>,
        /// `inheritEnv`: names of our environment variables passed through
        /// beside the default allow-list, in file order.
        inherit_env: Vec<String>,
    },
    /// `type: streamableHttp` (also `http`, `streamable-http`).
    StreamableHttp {
        /// `url`.
        url: String,
        /// `headers`, in file order.
        headers: Vec<(String, String)>,
    },
    /// `type: sse`: legacy HTTP+SSE.
    Sse {
        /// `url`.
        url: String,
        /// `headers`, in file order.
        headers: Vec<(String, String)>,
    },
}

impl Server {
    /// `timeoutMs`'s default: one downstream call's bound.
    pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;
    /// `pingTimeoutMs`'s default.
    pub const DEFAULT_PING_TIMEOUT_MS: u64 = 1_000;

    /// The bound on connecting and on each call (`timeoutMs`).
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(Self::DEFAULT_TIMEOUT_MS))
    }

    /// The deadline of the ping that probes a suspect connection
    /// (`pingTimeoutMs`).
    pub fn ping_timeout(&self) -> Duration {
        Duration::from_millis(
            self.ping_timeout_ms
                .unwrap_or(Self::DEFAULT_PING_TIMEOUT_MS),
        )
    }
}

impl Transport {
    /// The `type` names a server entry may give, `stdio` first.
    #[doc(hidden)]
    pub const TYPES: &'static [&'static str] =
        &["stdio", "sse", "streamableHttp", "http", "streamable-http"];

    /// Whether `kind` (a `type`) names an HTTP transport (`sse` included).
    #[doc(hidden)]
    pub fn is_http(kind: &str) -> bool {
        matches!(kind, "sse" | "streamableHttp" | "http" | "streamable-http")
    }
}

/// Whether `name` is a portable environment variable name (`inheritEnv`):
/// ASCII letters, digits and `_`, not starting with a digit.
pub fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names() {
        for good in ["HOME", "_X", "a1", "AWS_SECRET_ACCESS_KEY"] {
            assert!(is_env_name(good), "{good}");
        }
        for bad in ["", "9X", "A=B", "A B", "É", "A-B", "${X}"] {
            assert!(!is_env_name(bad), "{bad}");
        }
    }
}
