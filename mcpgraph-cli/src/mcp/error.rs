//! Why a tool of `mcpgraph mcp` failed ([`ToolError`]): the agent gets it
//! as a tool error (`isError`), its text this `Display`; the server goes on.

use std::fmt;
use std::io;

use crate::error::CliError;

/// Why a tool call failed.
#[derive(Debug)]
pub(super) enum ToolError {
    /// A path that leads outside the working directory.
    Outside { path: String },
    /// A path that does not exist.
    Missing { path: String, source: io::Error },
    /// The arguments cannot be used as given: the reason.
    Usage(String),
    /// A program (cargo, the graph's binary) could not be run.
    Run { what: String, source: io::Error },
    /// A program ran past its time.
    TimedOut { what: String, seconds: u64 },
    /// What the command line would have reported.
    Cli(CliError),
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Outside { path } => write!(
                f,
                "`{path}` is outside the working directory: `mcpgraph mcp` reads and writes only under the directory it was started in"
            ),
            Self::Missing { path, source } => write!(f, "`{path}`: {source}"),
            Self::Usage(reason) => f.write_str(reason),
            Self::Run { what, source } => write!(f, "could not run {what}: {source}"),
            Self::TimedOut { what, seconds } => {
                write!(
                    f,
                    "{what} did not finish within {seconds} s and was stopped"
                )
            }
            Self::Cli(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Missing { source, .. } | Self::Run { source, .. } => Some(source),
            Self::Cli(e) => Some(e),
            _ => None,
        }
    }
}

impl From<CliError> for ToolError {
    fn from(e: CliError) -> Self {
        Self::Cli(e)
    }
}
