//! `mcpgraph`: the command-line front door to the generator.
//!
//! `check` reports every problem of graph files (the macro's diagnostics,
//! with warnings kept as warnings), `lock` records (or checks) the tools
//! of a graph's servers, `auth` logs in to them, `expand` prints the
//! generated Rust, `graph` draws a tool as a Mermaid flowchart, and `new`
//! starts a binary crate for a graph file. All the work is `mcpgraph-codegen`'s; this file
//! only parses the command line and prints.

mod auth;
mod ci;
mod lock;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use mcpgraph_codegen::diag::Diagnostics;
use mcpgraph_codegen::{ExpandOptions, generate_file, pretty};

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
        /// Treat warnings as errors.
        #[arg(long)]
        deny_warnings: bool,
        /// Graph files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
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
    /// Print the Rust code generated for a graph file, pretty-printed.
    Expand {
        /// The path of the mcpgraph crate in the code.
        #[arg(long = "crate", default_value = "::mcpgraph")]
        krate: String,
        /// Graph file.
        file: PathBuf,
    },
    /// Print a Mermaid flowchart of each tool of a graph file.
    Graph {
        /// Only this tool.
        #[arg(long)]
        tool: Option<String>,
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
        /// repository (a path dependency) instead of the published version.
        #[arg(long, value_name = "CHECKOUT")]
        mcpgraph_path: Option<PathBuf>,
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
            files,
        } => Ok(check(&files, format, deny_warnings)),
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
        Command::Expand { krate, file } => expand(&file, &krate),
        Command::Graph { tool, file } => graph(&file, tool.as_deref()),
        Command::New {
            name,
            graph,
            mcpgraph_path,
        } => new(&name, graph.as_deref(), mcpgraph_path.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
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

fn check(files: &[PathBuf], format: Format, deny_warnings: bool) -> ExitCode {
    let all: Vec<Diagnostics> = files.iter().map(|f| diagnose(f).diagnostics).collect();
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

/// Prints `d` and turns it into the command's failure.
fn fail_with(d: &Diagnostics) -> Result<ExitCode, String> {
    for item in &d.items {
        eprintln!("{}", d.render(item));
    }
    Err(format!(
        "`{}` has {} error{}",
        d.path,
        d.error_count(),
        if d.error_count() == 1 { "" } else { "s" }
    ))
}

fn expand(file: &Path, krate: &str) -> Result<ExitCode, String> {
    let krate: syn::Path =
        syn::parse_str(krate).map_err(|e| format!("`--crate {krate}` is not a Rust path: {e}"))?;
    let output = generate_file(
        file,
        &file.display().to_string(),
        &ExpandOptions { krate, ..options() },
    );
    if !output.is_ok() {
        return fail_with(&output.diagnostics);
    }
    let code = pretty(&output.tokens).map_err(|e| format!("internal error: {e}"))?;
    emit(&code);
    Ok(ExitCode::SUCCESS)
}

fn graph(file: &Path, tool: Option<&str>) -> Result<ExitCode, String> {
    let output = diagnose(file);
    if !output.is_ok() {
        return fail_with(&output.diagnostics);
    }
    let source = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let model = mcpgraph_codegen::load_str(&source, &file.display().to_string())
        .map_err(|d| d.to_string())?;
    match mcpgraph_codegen::mermaid::flowchart(&model, tool) {
        Some(chart) => {
            emit(&chart);
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let names: Vec<&str> = model.tools.iter().map(|t| t.name.value.as_str()).collect();
            Err(format!(
                "`{}` has no tool `{}`; its tools: {}",
                file.display(),
                tool.unwrap_or_default(),
                names.join(", ")
            ))
        }
    }
}

/// The graph `new` writes when no `--graph` is given.
const STARTER: &str = include_str!("../templates/starter.yaml");

/// The JSON Schema of the graph format, written beside the graph so that
/// the starter's `yaml-language-server` line works offline.
const SCHEMA: &str = include_str!("../mcpgraph.schema.json");

const SCHEMA_FILE: &str = "mcpgraph.schema.json";

fn new(dir: &Path, graph: Option<&Path>, checkout: Option<&Path>) -> Result<ExitCode, String> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(format!(
            "`{name}` is not a valid package name (letters, digits, `_` and `-`, not starting with a digit)"
        ));
    }
    if dir.exists() && dir.read_dir().map_or(true, |mut d| d.next().is_some()) {
        return Err(format!("`{}` exists and is not empty", dir.display()));
    }
    let (graph_name, graph_text) = match graph {
        Some(graph) => (
            graph
                .file_name()
                .map_or("graph.yaml".into(), |n| n.to_string_lossy().into_owned()),
            std::fs::read_to_string(graph)
                .map_err(|e| format!("cannot read `{}`: {e}", graph.display()))?,
        ),
        None => ("graph.yaml".to_owned(), STARTER.replace("{{name}}", &name)),
    };
    let output = mcpgraph_codegen::generate_str(
        &graph_text,
        &graph.map_or(graph_name.clone(), |g| g.display().to_string()),
        &ExpandOptions::default(),
    );
    if !output.is_ok() {
        return fail_with(&output.diagnostics);
    }
    let (dependency, lock) = match checkout {
        None => (
            format!("mcpgraph = \"{}\"", env!("CARGO_PKG_VERSION")),
            None,
        ),
        Some(checkout) => {
            let checkout = std::fs::canonicalize(checkout).map_err(|e| {
                format!(
                    "cannot find the mcpgraph checkout `{}`: {e}",
                    checkout.display()
                )
            })?;
            let facade = checkout.join("mcpgraph");
            if !facade.join("Cargo.toml").exists() {
                return Err(format!(
                    "`{}` is not a checkout of the mcpgraph repository (no `mcpgraph/Cargo.toml`)",
                    checkout.display()
                ));
            }
            // The checkout's lock file, so the new crate builds with the
            // dependency versions the checkout was tested with (cargo drops
            // what it does not need).
            (
                format!(
                    "mcpgraph = {{ path = {} }}",
                    toml_string(&facade.display().to_string())
                ),
                Some(checkout.join("Cargo.lock")).filter(|lock| lock.exists()),
            )
        }
    };
    let files = [
        (
            "Cargo.toml",
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n# HTTPS to downstream servers is mcpgraph's `tls` feature, on by default;\n# `default-features = false` drops it for a binary about 2 MB smaller.\n{dependency}\n\n# A workspace of its own, also when created inside another one.\n[workspace]\n"
            ),
        ),
        (
            "src/main.rs",
            format!(
                "// The server compiled from `{graph_name}`: `cargo run -- --help`.\nmcpgraph::mcpgraph!({graph_name:?});\n// One evaluation cannot allocate past maxValueBytes (a program has one\n// global allocator: this declares it).\nmcpgraph::allocator!();\n\nfn main() -> std::process::ExitCode {{\n    Server::main()\n}}\n"
            ),
        ),
        (".gitignore", "/target\n".to_owned()),
        (graph_name.as_str(), graph_text),
        (SCHEMA_FILE, SCHEMA.to_owned()),
    ];
    std::fs::create_dir_all(dir.join("src")).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(lock) = lock {
        std::fs::copy(&lock, dir.join("Cargo.lock"))
            .map_err(|e| format!("cannot copy `{}`: {e}", lock.display()))?;
    }
    for item in &output.diagnostics.items {
        eprintln!("{}", output.diagnostics.render(item));
    }
    emit(&format!(
        "created `{}`: `cd {} && cargo run -- tools` lists its tools\n",
        dir.display(),
        dir.display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// Writes to stdout; a reader that went away (`| head`) is not an error.
fn emit(text: &str) {
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}
