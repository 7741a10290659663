//! `mcpgraph`: the command-line front door to the generator.
//!
//! `check` reports every problem of graph files (the macro's diagnostics,
//! with warnings kept as warnings), `explain` tells what a diagnostic's
//! code means, `lock` records (or checks) the tools
//! of a graph's servers, `auth` logs in to them, `expand` prints the
//! generated Rust, `graph` draws a tool as a Mermaid flowchart or as a
//! picture (`picture`), and `new` starts a binary crate for a graph file.
//! The checking and generating are `mcpgraph-codegen`'s; this file only
//! parses the command line and prints.

mod auth;
mod cargo;
mod ci;
mod error;
mod lock;
mod mcp;
mod new;
mod picture;
mod test;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use mcpgraph_codegen::diag::Diagnostics;
use mcpgraph_codegen::lints::{Level, LintLevels};
use mcpgraph_codegen::{ExpandOptions, generate_file, pretty};

use error::{CliError, graph_errors};

/// Check, lock, expand and draw mcpgraph graph files, log in to their
/// servers, or start a crate for one.
#[derive(Parser)]
#[command(name = "mcpgraph", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Report every problem in graph files; exit status 1 if any has an error.
    Check {
        /// Output format: rustc-style text on stderr; a JSON array, GitHub
        /// annotations or SARIF 2.1.0 on stdout.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Exit with status 1 when there is any warning (warnings are
        /// still shown as warnings).
        #[arg(long)]
        deny_warnings: bool,
        /// Drop the warnings of a lint (`warnings`: all), as `allow(...)`
        /// in `mcpgraph!` does. May be repeated.
        #[arg(long, value_name = "LINT")]
        allow: Vec<String>,
        /// Report the warnings of a lint (`warnings`: all) as errors, as
        /// `deny(...)` in `mcpgraph!` does; wins over `--allow` of the
        /// same name. May be repeated.
        #[arg(long, value_name = "LINT")]
        deny: Vec<String>,
        /// Graph files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Explain a diagnostic's code (`unknown_node`, `reference_before_run`):
    /// what its check means, a graph that fails it, and the fix.
    Explain {
        /// The code, as diagnostics show it.
        code: String,
    },
    /// List every downstream server of a graph and record its tools in
    /// `<graph>.lock.json` (sorted, stable: commit it), or with `--check`
    /// compare the servers with that lock.
    Lock {
        /// Graph file.
        graph: PathBuf,
        /// A JSON file of `mcpServers` entries overriding the graph's (by
        /// name), as `serve --mcp` takes. May be repeated.
        #[arg(long, value_name = "FILE")]
        mcp: Vec<PathBuf>,
        /// Only this server (the lock keeps the others' entries).
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
        /// Do not write: print what changed since the lock and exit 1 if a
        /// change matters (a tool a node calls removed, a property newly
        /// required or retyped, a property the graph passes removed from a
        /// closed schema).
        #[arg(long)]
        check: bool,
        /// With `--check`: cosmetic changes (descriptions, titles,
        /// annotations, new tools, changes to tools no node calls) fail
        /// too.
        #[arg(long, requires = "check")]
        strict: bool,
    },
    /// OAuth for a downstream server of a graph with `auth`: log in
    /// (opening the authorization page with $BROWSER, or printing its
    /// address), log out, or show what is kept. A graph's binary has the
    /// same command.
    Auth {
        #[command(subcommand)]
        action: auth::AuthCommand,
    },
    /// Build the graph crate here (or at `--manifest-path`) and run its
    /// test cases (`<graph>.test.yaml`): `<binary> test` with the
    /// arguments after `--` (`--record`, `--update`, `--json`...).
    Test(test::TestArgs),
    /// Serve MCP for an agent writing graphs in the current directory:
    /// check, explain, lock, evaluate, run, test and draw them (stdio, or
    /// streamable HTTP on a loopback address). Reads and writes only under
    /// the current directory; running and testing a graph runs what it
    /// says.
    Mcp(mcp::McpArgs),
    /// Print the Rust code generated for a graph file, pretty-printed.
    Expand {
        /// The path of the mcpgraph crate in the code.
        #[arg(long = "crate", default_value = "::mcpgraph")]
        krate: String,
        /// Graph file.
        file: PathBuf,
    },
    /// Print a Mermaid flowchart of each tool of a graph file, or with
    /// `--html` or `--svg` write it as a picture, with a call's trace or a
    /// test run's coverage drawn on it.
    Graph {
        /// Only this tool.
        #[arg(long)]
        tool: Option<String>,
        /// Write a self-contained HTML page of the pictures here (instead
        /// of printing Mermaid).
        #[arg(long, value_name = "OUT")]
        html: Option<PathBuf>,
        /// Write the SVG picture here (instead of printing Mermaid).
        #[arg(long, value_name = "OUT")]
        svg: Option<PathBuf>,
        /// Draw this call's path, each node's time and output, failed
        /// nodes: the JSON of `<binary> call --trace --json`, or of
        /// `<binary> test --json` / `--report` (see `--case`).
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// With a test report as `--trace`: the case to draw (default: the
        /// first that failed, else the first).
        #[arg(long, value_name = "NAME", requires = "trace")]
        case: Option<String>,
        /// Mark the nodes never run and routes never taken: the JSON of
        /// `<binary> test --json` or `--report`.
        #[arg(long, value_name = "FILE")]
        coverage: Option<PathBuf>,
        /// Graph file.
        file: PathBuf,
    },
    /// Create a binary crate that serves a graph file (by default a small
    /// starter graph to edit).
    New {
        /// Directory to create; its last component is the package name.
        name: PathBuf,
        /// A graph file to copy into the crate instead of the starter graph.
        #[arg(long)]
        graph: Option<PathBuf>,
        /// Depend on the `mcpgraph` crate of this checkout of the mcpgraph
        /// repository (a path dependency). Default: the checkout this
        /// command was built from (the crates are not on crates.io).
        #[arg(long, value_name = "CHECKOUT")]
        mcpgraph_path: Option<PathBuf>,
        /// Build in the crate's own `target/` instead of the target
        /// directory shared by the crates `mcpgraph new` makes
        /// (`$XDG_CACHE_HOME/mcpgraph/target`, else `~/.cache/mcpgraph/target`).
        #[arg(long)]
        own_target: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// rustc-style text on stderr.
    Human,
    /// A JSON array on stdout.
    Json,
    /// GitHub workflow commands on stdout: annotations on a pull request's
    /// lines.
    Github,
    /// A SARIF 2.1.0 log on stdout, for code scanning.
    Sarif,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check {
            format,
            deny_warnings,
            allow,
            deny,
            files,
        } => lint_levels(&allow, &deny).map(|levels| check(&files, format, deny_warnings, &levels)),
        Command::Explain { code } => explain(&code),
        Command::Lock {
            graph,
            mcp,
            server,
            check,
            strict,
        } => lock::run(&lock::LockArgs {
            graph,
            mcp,
            server,
            check,
            strict,
        }),
        Command::Auth { action } => auth::run(action),
        Command::Test(args) => test::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::Expand { krate, file } => expand(&file, &krate),
        Command::Graph {
            tool,
            html,
            svg,
            trace,
            case,
            coverage,
            file,
        } => graph(
            &file,
            tool.as_deref(),
            &Pictures {
                html,
                svg,
                trace,
                case,
                coverage,
            },
        ),
        Command::New {
            name,
            graph,
            mcpgraph_path,
            own_target,
        } => new::new(
            &name,
            graph.as_deref(),
            mcpgraph_path.as_deref(),
            own_target,
        ),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Prints the catalogue's explanation of `code`.
fn explain(code: &str) -> Result<ExitCode, CliError> {
    use mcpgraph_codegen::diag::explain;
    let Some(e) = explain::explain(code) else {
        let hint = explain::closest(code).map_or_else(
            || " (docs/DIAGNOSTICS.md lists the codes)".to_owned(),
            |near| format!(" (did you mean `{near}`?)"),
        );
        return Err(CliError::Usage(format!("unknown code `{code}`{hint}")));
    };
    print!("{e}");
    Ok(ExitCode::SUCCESS)
}

/// Loads and checks a file (through the whole generator, so that what
/// passes here builds).
fn diagnose(file: &Path) -> mcpgraph_codegen::Output {
    generate_file(file, &file.display().to_string(), &options())
}

/// The generator's options on the command line: a graph's path is
/// relative to the current directory, not to a crate's.
fn options() -> ExpandOptions {
    let here = std::env::current_dir()
        .map_or_else(|_| String::new(), |dir| format!(" (`{}`)", dir.display()));
    ExpandOptions {
        relative_to: format!("the current directory{here}").into(),
        ..ExpandOptions::default()
    }
}

/// `--allow` and `--deny`, as the macro's `allow(...)` and `deny(...)`.
fn lint_levels(allow: &[String], deny: &[String]) -> Result<LintLevels, CliError> {
    let mut levels = LintLevels::default();
    let settings = allow
        .iter()
        .map(|name| (name, Level::Allow))
        .chain(deny.iter().map(|name| (name, Level::Deny)));
    for (name, level) in settings {
        levels
            .set(name, level)
            .map_err(|e| CliError::Usage(e.to_string()))?;
    }
    Ok(levels)
}

fn check(files: &[PathBuf], format: Format, deny_warnings: bool, levels: &LintLevels) -> ExitCode {
    // A graph's test file (`<graph>.test.yaml`) is checked with it.
    let all: Vec<Diagnostics> = files
        .iter()
        .flat_map(|f| {
            let output = diagnose(f);
            std::iter::once(output.diagnostics).chain(output.test_diagnostics)
        })
        .map(|mut d| {
            levels.apply(&mut d, |name| format!("denied by `--deny {name}`"));
            d
        })
        .collect();
    let errors: usize = all.iter().map(Diagnostics::error_count).sum();
    let warnings: usize = all.iter().map(Diagnostics::warning_count).sum();
    let failed = errors > 0 || (deny_warnings && warnings > 0);
    let pretty_json = |value: &serde_json::Value| {
        format!(
            "{}\n",
            serde_json::to_string_pretty(value).unwrap_or_default()
        )
    };
    match format {
        Format::Json => {
            let items = all.iter().flat_map(|d| match d.to_json() {
                serde_json::Value::Array(items) => items,
                _ => Vec::new(),
            });
            emit(&pretty_json(&items.collect()));
        }
        Format::Sarif => emit(&pretty_json(&ci::sarif(&all))),
        Format::Github => {
            emit(&all.iter().map(ci::github).collect::<String>());
            eprintln!("{}", summary(files.len(), errors, warnings, failed));
        }
        Format::Human => {
            for d in &all {
                for item in &d.items {
                    eprintln!("{}", d.render(item));
                }
            }
            eprintln!("{}", summary(files.len(), errors, warnings, failed));
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn summary(files: usize, errors: usize, warnings: usize, failed: bool) -> String {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let files = plural(files, "file");
    match (errors, warnings) {
        (0, 0) => format!("checked {files}: no problems"),
        _ => format!(
            "{}checked {files}: {}, {}",
            if failed { "error: " } else { "" },
            plural(errors, "error"),
            plural(warnings, "warning")
        ),
    }
}

fn expand(file: &Path, krate: &str) -> Result<ExitCode, CliError> {
    let krate: syn::Path = syn::parse_str(krate)
        .map_err(|e| CliError::Usage(format!("`--crate {krate}` is not a Rust path: {e}")))?;
    let output = generate_file(
        file,
        &file.display().to_string(),
        &ExpandOptions { krate, ..options() },
    );
    if !output.is_ok() {
        return Err(graph_errors(&output.diagnostics, ""));
    }
    let code = pretty(&output.tokens).map_err(|e| CliError::Internal(e.into()))?;
    emit(&code);
    Ok(ExitCode::SUCCESS)
}

/// `graph`'s pictures: where to write them, and what to draw on them.
struct Pictures {
    html: Option<PathBuf>,
    svg: Option<PathBuf>,
    trace: Option<PathBuf>,
    case: Option<String>,
    coverage: Option<PathBuf>,
}

fn graph(file: &Path, tool: Option<&str>, pictures: &Pictures) -> Result<ExitCode, CliError> {
    let model = load_checked(file)?;
    if pictures.html.is_none() && pictures.svg.is_none() {
        if pictures.trace.is_some() || pictures.coverage.is_some() {
            return Err(CliError::Usage(
                "`--trace` and `--coverage` are drawn on a picture: add `--html OUT` or `--svg OUT`"
                    .to_owned(),
            ));
        }
        return match mcpgraph_codegen::mermaid::flowchart(&model, tool) {
            Some(chart) => {
                emit(&chart);
                Ok(ExitCode::SUCCESS)
            }
            None => {
                let names: Vec<&str> = model.tools.iter().map(|t| t.name.value.as_str()).collect();
                Err(CliError::Usage(format!(
                    "`{}` has no tool `{}`; its tools: {}",
                    file.display(),
                    tool.unwrap_or_default(),
                    names.join(", ")
                )))
            }
        };
    }
    let mut overlay = match &pictures.trace {
        Some(path) => picture::Overlay::trace(&read_json(path)?, pictures.case.as_deref())?,
        None => picture::Overlay::default(),
    };
    if let Some(path) = &pictures.coverage {
        overlay = overlay.coverage(&read_json(path)?)?;
    }
    if let Some(out) = &pictures.svg {
        let svg = picture::svg(&model, tool, &overlay)?;
        std::fs::write(out, svg).map_err(CliError::file("write", out))?;
        eprintln!("wrote {}", out.display());
    }
    if let Some(out) = &pictures.html {
        let html = picture::html(&model, tool, &overlay)?;
        std::fs::write(out, html).map_err(CliError::file("write", out))?;
        eprintln!("wrote {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The graph at `file`, checked through the whole generator (its errors
/// printed), as a model.
fn load_checked(file: &Path) -> Result<mcpgraph_codegen::model::GraphFile, CliError> {
    let output = diagnose(file);
    if !output.is_ok() {
        return Err(graph_errors(&output.diagnostics, ""));
    }
    let source = std::fs::read_to_string(file).map_err(CliError::file("read", file))?;
    mcpgraph_codegen::load_str(&source, &file.display().to_string())
        .map_err(|d| graph_errors(&d, ""))
}

/// The JSON file at `path`.
fn read_json(path: &Path) -> Result<serde_json::Value, CliError> {
    let text = std::fs::read_to_string(path).map_err(CliError::file("read", path))?;
    serde_json::from_str(&text).map_err(CliError::malformed(path))
}

/// Writes to stdout; a reader that went away (`| head`) is not an error.
fn emit(text: &str) {
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
}
