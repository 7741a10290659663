//! Why connecting to a downstream server failed ([`ConnectFailure`]), and
//! why its handshake was cut short ([`HandshakeCut`]).

use std::time::Duration;

use rmcp::service::ClientInitializeError;

use crate::stdio::SpawnError;
use mcpgraph_secrets::ExpandError;

/// Why a connection attempt failed. The message does not name the server:
/// the manager's `ConnectionError` does.
#[derive(Debug)]
pub(crate) enum ConnectFailure {
    /// A `${VAR}` of the server's settings could not be expanded.
    Expand(ExpandError),
    /// The server's program could not be started.
    Spawn(SpawnError),
    /// The child exited in its handshake: its crash report (how it
    /// ended, the end of its stderr).
    Crashed(String),
    /// `program` answered the handshake with something else than its end.
    Handshake {
        program: String,
        error: Box<ClientInitializeError>,
    },
    /// `program` did not end its handshake.
    Cut { program: String, why: HandshakeCut },
    /// An `http` or `sse` server's failure (`connect/http.rs` says
    /// which), or, in a build without `http-client`, the feature it needs.
    Http(Box<dyn std::error::Error + Send + Sync>),
}

impl std::fmt::Display for ConnectFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Expand(e) => e.fmt(f),
            Self::Spawn(e) => e.fmt(f),
            Self::Crashed(report) => f.write_str(report),
            Self::Handshake { program, error } => {
                write!(f, "`{program}` did not complete the MCP handshake: {error}")
            }
            Self::Cut { program, why } => write!(f, "`{program}` {why}"),
            Self::Http(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ConnectFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Expand(e) => Some(e),
            Self::Spawn(e) => Some(e),
            Self::Handshake { error, .. } => Some(&**error),
            Self::Http(e) => Some(&**e),
            Self::Crashed(_) | Self::Cut { .. } => None,
        }
    }
}

impl From<ExpandError> for ConnectFailure {
    fn from(e: ExpandError) -> Self {
        Self::Expand(e)
    }
}

impl From<SpawnError> for ConnectFailure {
    fn from(e: SpawnError) -> Self {
        Self::Spawn(e)
    }
}

/// Why a handshake did not end: the time ran out, or shutdown began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HandshakeCut {
    /// Not within the server's `timeoutMs`.
    TimedOut(Duration),
    /// The server (ours) began shutting down.
    ShuttingDown,
}

impl std::fmt::Display for HandshakeCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TimedOut(limit) => write!(
                f,
                "did not complete the MCP handshake within {} ms (the server's timeoutMs)",
                limit.as_millis()
            ),
            Self::ShuttingDown => {
                f.write_str("was abandoned in its MCP handshake: the server is shutting down")
            }
        }
    }
}
