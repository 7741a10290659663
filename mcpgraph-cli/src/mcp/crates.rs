//! The graph crates `run_tool` and `test_graph` build and run: found from
//! a graph file or a crate directory, built with cargo (debug, in the
//! target directory the crate's cargo configuration names: the one shared
//! by the crates `mcpgraph new` makes), their binary run with a deadline.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt};
use tokio::process::Command;

use super::error::ToolError;
use super::workdir::WorkDir;
use crate::cargo::{BuildDiagnostic, CargoLine, one_binary, parse_line};

/// How long a build may take: a graph crate's first build compiles its
/// dependencies (minutes on a small machine).
const BUILD_TIME: Duration = Duration::from_secs(1200);

/// How much of a program's stderr is kept for a message (its end).
const STDERR_KEPT: usize = 16 * 1024;

/// A graph crate: its directory and its graph file.
#[derive(Debug)]
pub(super) struct GraphCrate {
    pub dir: PathBuf,
    pub graph: PathBuf,
}

impl GraphCrate {
    /// The crate of `path`: a graph file (its crate is the nearest
    /// directory above it with a `Cargo.toml`, inside the working
    /// directory) or a crate directory (its graph is its one `*.yaml` that
    /// is not a test file).
    pub(super) fn locate(work: &WorkDir, path: &str) -> Result<Self, ToolError> {
        let real = work.existing(path)?;
        if real.is_dir() {
            let graph = graph_of(&real)?;
            return Ok(Self { dir: real, graph });
        }
        let mut dir = real.parent();
        while let Some(d) = dir.filter(|d| d.starts_with(work.root())) {
            if d.join("Cargo.toml").is_file() {
                return Ok(Self {
                    dir: d.to_owned(),
                    graph: real,
                });
            }
            dir = d.parent();
        }
        Err(ToolError::Usage(format!(
            "`{path}` is in no crate inside the working directory (no Cargo.toml above it): `run_tool` and `test_graph` build the graph's crate (`mcpgraph new` makes one)"
        )))
    }
}

/// A crate directory's graph file.
fn graph_of(dir: &Path) -> Result<PathBuf, ToolError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ToolError::Missing {
        path: dir.display().to_string(),
        source,
    })?;
    let mut graphs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|n| {
                (n.ends_with(".yaml") || n.ends_with(".yml")) && !n.contains(".test.")
            })
        })
        .collect();
    graphs.sort();
    match graphs.len() {
        1 => Ok(graphs.remove(0)),
        0 => Err(ToolError::Usage(format!(
            "`{}` has no graph file (`*.yaml`)",
            dir.display()
        ))),
        _ => Err(ToolError::Usage(format!(
            "`{}` has several graph files; give one as `path`: {}",
            dir.display(),
            graphs
                .iter()
                .filter_map(|g| g.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// What a build gave.
#[derive(Debug)]
pub(super) enum Build {
    /// The crate's binary.
    Binary(PathBuf),
    /// The compiler's errors (and warnings), or cargo's own message when
    /// it failed before compiling.
    Failed(Vec<BuildDiagnostic>),
}

/// Builds `krate` (debug) and returns its binary or why it did not build.
pub(super) async fn build(krate: &GraphCrate) -> Result<Build, ToolError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .args(["build", "--bins", "--message-format=json"])
        .arg("--manifest-path")
        .arg(krate.dir.join("Cargo.toml"))
        // cargo reads its configuration (the target directory) from here.
        .current_dir(&krate.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ToolError::Run {
            what: "cargo".to_owned(),
            source,
        })?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let work = async {
        let mut binaries = Vec::new();
        let mut diagnostics = Vec::new();
        if let Some(stdout) = stdout {
            let mut lines = tokio::io::BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match parse_line(&line) {
                    Some(CargoLine::Binary(built)) => binaries.push(built),
                    Some(CargoLine::Diagnostic(d)) => diagnostics.push(d),
                    None => {}
                }
            }
        }
        let status = child.wait().await;
        (binaries, diagnostics, status)
    };
    let (read_stderr, (binaries, mut diagnostics, status)) =
        match tokio::time::timeout(BUILD_TIME, async { tokio::join!(tail(stderr), work) }).await {
            Ok(done) => done,
            Err(_) => {
                return Err(ToolError::TimedOut {
                    what: "the build".to_owned(),
                    seconds: BUILD_TIME.as_secs(),
                });
            }
        };
    let status = status.map_err(|source| ToolError::Run {
        what: "cargo".to_owned(),
        source,
    })?;
    if status.success() {
        return one_binary(&binaries)
            .map(|built| Build::Binary(built.binary))
            .map_err(ToolError::from);
    }
    diagnostics.retain(|d| d.severity == "error" || d.severity == "warning");
    if !diagnostics.iter().any(|d| d.severity == "error") {
        // cargo failed before the compiler did (a bad manifest, a
        // dependency that cannot be fetched): its own words.
        diagnostics.push(BuildDiagnostic {
            severity: "error".to_owned(),
            file: krate.dir.join("Cargo.toml").display().to_string(),
            line: 0,
            column: 0,
            code: "cargo".to_owned(),
            message: read_stderr.trim().to_owned(),
            help: None,
            rendered: read_stderr,
        });
    }
    Ok(Build::Failed(diagnostics))
}

/// What a program wrote and how it ended.
#[derive(Debug)]
pub(super) struct Ran {
    pub stdout: Vec<u8>,
    /// The end of its stderr.
    pub stderr: String,
    /// Its exit status (`None`: killed by a signal).
    pub code: Option<i32>,
}

/// Runs `binary ARGS` in `dir` with `input` on its stdin, stopped after
/// `limit`.
pub(super) async fn run(
    binary: &Path,
    args: &[String],
    input: &[u8],
    dir: &Path,
    limit: Duration,
) -> Result<Ran, ToolError> {
    let name = binary
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ToolError::Run {
            what: format!("`{name}`"),
            source,
        })?;
    let stdin = child.stdin.take();
    let input = input.to_vec();
    let write_stdin = async move {
        if let Some(mut stdin) = stdin {
            // A program that reads nothing closes its end: not an error.
            let _ = tokio::io::AsyncWriteExt::write_all(&mut stdin, &input).await;
        }
    };
    let mut stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let read_stdout = async {
        let mut out = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut out).await;
        }
        out
    };
    let done = tokio::time::timeout(limit, async {
        let ((), out, err) = tokio::join!(write_stdin, read_stdout, tail(stderr));
        (out, err, child.wait().await)
    })
    .await;
    let (stdout, stderr, status) = done.map_err(|_| ToolError::TimedOut {
        what: format!("`{name} {}`", args.first().map_or("", String::as_str)),
        seconds: limit.as_secs(),
    })?;
    let status = status.map_err(|source| ToolError::Run {
        what: format!("`{name}`"),
        source,
    })?;
    Ok(Ran {
        stdout,
        stderr,
        code: status.code(),
    })
}

/// The last [`STDERR_KEPT`] bytes of a stream, read to its end.
async fn tail(stream: Option<tokio::process::ChildStderr>) -> String {
    let Some(mut stream) = stream else {
        return String::new();
    };
    let mut kept: Vec<u8> = Vec::new();
    let mut buf = [0u8; 8192];
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
        kept.extend_from_slice(&buf[..n]);
        if kept.len() > 2 * STDERR_KEPT {
            kept.drain(..kept.len() - STDERR_KEPT);
        }
    }
    if kept.len() > STDERR_KEPT {
        kept.drain(..kept.len() - STDERR_KEPT);
    }
    String::from_utf8_lossy(&kept).into_owned()
}
