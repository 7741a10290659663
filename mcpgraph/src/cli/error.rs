//! Why a command of a generated server's command line failed
//! ([`CliError`]), printed as `error: ...` with exit status 1.

use std::error::Error;
use std::fmt;
use std::io;
use std::path::PathBuf;

use mcpgraph_runtime::StartupError;

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum CliError {
    /// The `--mcp` file could not be read.
    McpFile { path: PathBuf, source: io::Error },
    /// The `--mcp` file or a state key is not right, or the graph did not
    /// start.
    Startup(StartupError),
    /// The async runtime could not start.
    Runtime(io::Error),
    /// `serve --record-failures` cannot record: its directory cannot be
    /// used (the graph tests' error), or this build lacks the feature
    /// (`MissingFeature`).
    Recording(Box<dyn Error + Send + Sync>),
    /// `--task-store` names no store this build can open.
    TaskStore(Box<dyn Error + Send + Sync>),
    /// Serving failed: the stdio session's error, `mcpgraph-http`'s, or in
    /// a build without `http-server`, the feature `--http` needs.
    Serve(Box<dyn Error + Send + Sync>),
    /// `call`'s arguments could not be read from `origin`.
    ReadArguments { origin: Origin, source: io::Error },
    /// `call`'s arguments from `origin` are not JSON (`source`), or not a
    /// JSON object (`None`).
    Arguments {
        origin: Origin,
        source: Option<serde_json::Error>,
    },
}

/// Where `call`'s arguments came from.
#[derive(Clone, Debug)]
pub(crate) enum Origin {
    /// The command line.
    Inline,
    /// `-`: stdin.
    Stdin,
    /// `@PATH`: the file.
    File(String),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::McpFile { path, source } => {
                write!(f, "cannot read --mcp file {}: {source}", path.display())
            }
            Self::Startup(e) => e.fmt(f),
            Self::Runtime(e) => write!(f, "cannot start the tokio runtime: {e}"),
            Self::Recording(e) | Self::Serve(e) => e.fmt(f),
            Self::TaskStore(e) => write!(f, "--task-store: {e}"),
            Self::ReadArguments { origin, source } => {
                let from = match origin {
                    Origin::File(path) => format!("`{path}`"),
                    _ => "stdin".to_owned(),
                };
                write!(f, "cannot read the arguments from {from}: {source}")
            }
            Self::Arguments { origin, source } => {
                let from = match origin {
                    Origin::Inline => String::new(),
                    Origin::Stdin => " (from stdin)".to_owned(),
                    Origin::File(path) => format!(" (from `{path}`)"),
                };
                match source {
                    None => write!(f, "the arguments{from} must be a JSON object"),
                    Some(e) => write!(f, "the arguments{from} are not valid JSON: {e}"),
                }
            }
        }
    }
}

impl Error for CliError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::McpFile { source, .. } | Self::ReadArguments { source, .. } => Some(source),
            Self::Startup(e) => Some(e),
            Self::Runtime(e) => Some(e),
            Self::Recording(e) | Self::Serve(e) | Self::TaskStore(e) => Some(&**e),
            Self::Arguments { source, .. } => source.as_ref().map(|e| e as _),
        }
    }
}

impl From<StartupError> for CliError {
    fn from(e: StartupError) -> Self {
        Self::Startup(e)
    }
}
