//! Why a command failed ([`CliError`]): `main` prints it after `error: `
//! and exits with status 1.

use std::error::Error;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// A foreign error kept whole (its own `Display` says what it is).
type Cause = Box<dyn Error + Send + Sync>;

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum CliError {
    /// A file could not be read, written, touched, created or copied;
    /// `hint`, when not empty, says what to do (after a space).
    File {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
        hint: &'static str,
    },
    /// A file is not what it should be (a lock, a `--mcp` file).
    Malformed { path: PathBuf, source: Cause },
    /// A graph file has errors, printed above.
    Graph {
        path: String,
        errors: usize,
        hint: &'static str,
    },
    /// A program or the async runtime could not be started or failed.
    Run { what: String, source: io::Error },
    /// A downstream server failed (listing its tools, logging in).
    Server { name: String, source: Cause },
    /// A trace or coverage report (`what`) that `graph` cannot draw:
    /// why.
    Overlay { what: &'static str, why: String },
    /// A bug of ours: the generated code does not parse back, a picture
    /// cannot be laid out.
    Internal(Cause),
    /// What was asked for cannot be done as asked: the reason, with what
    /// would do.
    Usage(String),
}

impl CliError {
    /// A file that could not be `action`ed (`read`, `write`...).
    pub(crate) fn file(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| Self::File {
            action,
            path,
            source,
            hint: "",
        }
    }

    /// A file at `path` that is not what it should be.
    pub(crate) fn malformed<E: Into<Cause>>(path: impl Into<PathBuf>) -> impl FnOnce(E) -> Self {
        let path = path.into();
        move |e| Self::Malformed {
            path,
            source: e.into(),
        }
    }

    /// A program or runtime (`what`) that could not be started.
    pub(crate) fn run(what: impl Into<String>) -> impl FnOnce(io::Error) -> Self {
        let what = what.into();
        move |source| Self::Run { what, source }
    }

    /// The downstream server `name` failed.
    pub(crate) fn server<E: Into<Cause>>(name: &str) -> impl FnOnce(E) -> Self {
        let name = name.to_owned();
        move |e| Self::Server {
            name,
            source: e.into(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File {
                action,
                path,
                source,
                hint,
            } => {
                write!(f, "cannot {action} `{}`: {source}", path.display())?;
                if !hint.is_empty() {
                    write!(f, " {hint}")?;
                }
                Ok(())
            }
            Self::Malformed { path, source } => write!(f, "`{}`: {source}", path.display()),
            Self::Graph { path, errors, hint } => {
                let s = if *errors == 1 { "" } else { "s" };
                write!(f, "`{path}` has {errors} error{s}{hint}")
            }
            Self::Run { what, source } => write!(f, "cannot run {what}: {source}"),
            Self::Server { name, source } => write!(f, "server `{name}`: {source}"),
            Self::Overlay { what, why } => write!(f, "cannot draw the {what}: {why}"),
            Self::Internal(source) => write!(f, "internal error: {source}"),
            Self::Usage(why) => f.write_str(why),
        }
    }
}

impl Error for CliError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::File { source, .. } | Self::Run { source, .. } => Some(source),
            Self::Malformed { source, .. }
            | Self::Server { source, .. }
            | Self::Internal(source) => Some(source.as_ref()),
            Self::Graph { .. } | Self::Overlay { .. } | Self::Usage(_) => None,
        }
    }
}

/// Prints the errors of a graph file and names them as the command's
/// failure; `hint` follows the count (`"; fix them before locking"`).
pub(crate) fn graph_errors(
    d: &mcpgraph_codegen::diag::Diagnostics,
    hint: &'static str,
) -> CliError {
    for item in &d.items {
        eprintln!("{}", d.render(item));
    }
    CliError::Graph {
        path: d.path.clone(),
        errors: d.error_count(),
        hint,
    }
}
