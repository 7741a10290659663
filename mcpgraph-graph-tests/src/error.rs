//! Why `test`, a graph test case or `serve --record-failures` could not
//! go on: [`GraphTestError`]. A case that runs and fails is not one of
//! these: its failure is part of the run's report.

use std::fmt;
use std::io;
use std::path::PathBuf;

use serde_json::Value;

/// Why the graph tests could not run, or a failed call could not be
/// recorded.
#[derive(Debug)]
#[non_exhaustive]
pub enum GraphTestError {
    /// A file could not be read or written.
    File {
        /// What was done: `read`, `write`.
        action: &'static str,
        /// What the file is (`the test file`, `the cassette`), or `""`.
        what: &'static str,
        /// Where it is.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
    /// A test file is not YAML of test cases.
    TestFile {
        /// The test file.
        path: PathBuf,
        /// What does not read.
        source: Box<serde_saphyr::Error>,
    },
    /// A case of a test file is not well formed.
    Case {
        /// The test file.
        path: PathBuf,
        /// The case's name.
        case: String,
        /// What is wrong with it.
        problem: CaseProblem,
    },
    /// What the generator compiled in does not read: a bug of ours.
    CompiledIn {
        /// What it is: `test file`, `map of the graph`.
        what: &'static str,
        /// What does not read.
        source: serde_json::Error,
    },
    /// The graph has no test file, and none was given.
    NoTestFile {
        /// The graph's server name.
        graph: String,
        /// The command that runs the tests, to be given a file.
        command: String,
    },
    /// A cassette is not JSON of a cassette.
    Cassette {
        /// The cassette.
        path: PathBuf,
        /// What does not read.
        source: serde_json::Error,
    },
    /// A cassette is of another version than this binary reads.
    CassetteVersion {
        /// The cassette.
        path: PathBuf,
        /// Its version.
        version: u32,
        /// The version this binary reads.
        reads: u32,
    },
    /// A cassette could not be written as JSON.
    CassetteText(serde_json::Error),
    /// A recorded failure would be larger than allowed.
    TooLarge {
        /// How many bytes it would take.
        bytes: usize,
        /// How many it may.
        max: usize,
    },
    /// `--record-failures` cannot write into its directory.
    RecordDir {
        /// The directory.
        dir: PathBuf,
        /// What is wrong with it.
        problem: DirProblem,
    },
    /// `test --replay`: there is no such file.
    NoFile {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// `test --replay`: the file is a cassette, not a recorded failure.
    NotAFailure {
        /// The file.
        path: PathBuf,
    },
    /// `test --replay`: the recorded failure's case did not run.
    DidNotRun,
    /// A case's `expect.assert` does not parse or evaluate.
    Predicate(Box<dyn std::error::Error + Send + Sync>),
    /// A case's `expect.assert` gave this, not `true` or `false`.
    NotBoolean(Value),
}

/// What is wrong with a test case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseProblem {
    /// Another case has its name.
    DuplicateName,
    /// It has no `output`, `subset`, `assert` or `error`.
    ExpectsNothing,
    /// It expects both an error and an output.
    ErrorAndOutput,
}

/// Why `--record-failures` cannot use its directory.
#[derive(Debug)]
pub enum DirProblem {
    /// Something else than a directory is there.
    NotADirectory,
    /// It is open to other users (its mode).
    Open(u32),
    /// It could not be created.
    Create(io::Error),
    /// It could not be looked at.
    Inspect(io::Error),
    /// Its files could not be listed.
    List(io::Error),
}

impl fmt::Display for GraphTestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File {
                action,
                what,
                path,
                source,
            } => {
                let space = if what.is_empty() { "" } else { " " };
                write!(
                    f,
                    "cannot {action} {what}{space}{}: {source}",
                    path.display()
                )
            }
            Self::TestFile { path, source } => write!(f, "{}: {source}", path.display()),
            Self::Case {
                path,
                case,
                problem,
            } => {
                let path = path.display();
                match problem {
                    CaseProblem::DuplicateName => {
                        write!(f, "{path}: two cases are named `{case}`")
                    }
                    CaseProblem::ExpectsNothing => write!(
                        f,
                        "{path}: case `{case}` expects nothing: give `output`, `subset`, `assert` or `error`"
                    ),
                    CaseProblem::ErrorAndOutput => write!(
                        f,
                        "{path}: case `{case}` expects an error and an output: give one"
                    ),
                }
            }
            Self::CompiledIn { what, source } => {
                write!(f, "the compiled-in {what} does not read: {source}")
            }
            Self::NoTestFile { graph, command } => write!(
                f,
                "`{graph}` has no test file: write `<graph>.test.yaml` beside the graph file and build again, or give one: `{command} FILE`"
            ),
            Self::Cassette { path, source } => {
                write!(f, "the cassette {} does not read: {source}", path.display())
            }
            Self::CassetteVersion {
                path,
                version,
                reads,
            } => write!(
                f,
                "the cassette {} has version {version}; this binary reads version {reads}: record it again",
                path.display(),
            ),
            Self::CassetteText(e) => write!(f, "cannot write the cassette: {e}"),
            Self::TooLarge { bytes, max } => {
                write!(
                    f,
                    "it would take {bytes} bytes, more than the {max} allowed"
                )
            }
            Self::RecordDir { dir, problem } => {
                let dir = dir.display();
                match problem {
                    DirProblem::NotADirectory => {
                        write!(f, "--record-failures {dir}: not a directory")
                    }
                    DirProblem::Open(mode) => write!(
                        f,
                        "--record-failures {dir}: the directory has mode {mode:04o}, open to other users; \
                         recorded failures hold callers' arguments and downstream replies: \
                         make it 0700 (`chmod 700 {dir}`) or name a new directory"
                    ),
                    DirProblem::Create(e) => {
                        write!(f, "--record-failures {dir}: cannot create it: {e}")
                    }
                    DirProblem::Inspect(e) => write!(f, "--record-failures {dir}: {e}"),
                    DirProblem::List(e) => write!(f, "--record-failures: cannot read {dir}: {e}"),
                }
            }
            Self::NoFile { path } => write!(f, "there is no file {}", path.display()),
            Self::NotAFailure { path } => write!(
                f,
                "{} is not a recorded failure (`serve --record-failures DIR` writes those)",
                path.display()
            ),
            Self::DidNotRun => f.write_str("the recorded failure did not run"),
            Self::Predicate(e) => e.fmt(f),
            Self::NotBoolean(value) => write!(f, "it gave {value}, not true or false"),
        }
    }
}

impl GraphTestError {
    /// The file at `path` (`what`, or `""`) that could not be `action`ed.
    pub(crate) fn file(
        action: &'static str,
        what: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| Self::File {
            action,
            what,
            path,
            source,
        }
    }
}

impl std::error::Error for GraphTestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::File { source, .. } => Some(source),
            Self::TestFile { source, .. } => Some(&**source),
            Self::CompiledIn { source, .. }
            | Self::Cassette { source, .. }
            | Self::CassetteText(source) => Some(source),
            Self::RecordDir { problem, .. } => match problem {
                DirProblem::Create(e) | DirProblem::Inspect(e) | DirProblem::List(e) => Some(e),
                DirProblem::NotADirectory | DirProblem::Open(_) => None,
            },
            Self::Predicate(e) => Some(&**e),
            _ => None,
        }
    }
}
