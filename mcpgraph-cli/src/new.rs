//! `mcpgraph new`: a binary crate that serves a graph file, by default the
//! starter graph with its test cases.

use std::path::Path;
use std::process::ExitCode;

use mcpgraph_codegen::ExpandOptions;

use crate::{emit, fail_with};

/// The graph `new` writes when no `--graph` is given.
const STARTER: &str = include_str!("../templates/starter.yaml");

/// The JSON Schema of the graph format, written beside the graph so that
/// the starter's `yaml-language-server` line works offline.
const SCHEMA: &str = include_str!("../mcpgraph.schema.json");

const SCHEMA_FILE: &str = "mcpgraph.schema.json";

/// The starter graph's test cases.
const STARTER_TESTS: &str = include_str!("../templates/starter.test.yaml");

/// Where the crates `mcpgraph new` makes build, shared: the second one
/// builds only its own code. `None` without a home directory.
fn shared_target() -> Option<std::path::PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")))?;
    Some(cache.join("mcpgraph").join("target"))
}

/// `mcpgraph new DIR`: `own_target` keeps the build in `DIR/target`
/// instead of the shared target directory.
pub(crate) fn new(
    dir: &Path,
    graph: Option<&Path>,
    checkout: Option<&Path>,
    own_target: bool,
) -> Result<ExitCode, String> {
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
    // The starter comes with its test cases, run by `cargo test` too.
    let (tests, graph_tests) = match graph {
        None => (
            Some(("graph.test.yaml", STARTER_TESTS.to_owned())),
            format!(
                "// `cargo test` runs the cases of graph.test.yaml.\nmcpgraph::graph_tests!({graph_name:?});\n"
            ),
        ),
        Some(_) => (None, String::new()),
    };
    let files = [
        (
            "Cargo.toml",
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n# Every transport is on by default (mcpgraph's `http-server`, `http-client`\n# and `tls` features); `default-features = false` keeps stdio only, for a\n# smaller binary that builds faster.\n{dependency}\n\n# A workspace of its own, also when created inside another one.\n[workspace]\n"
            ),
        ),
        (
            "src/main.rs",
            format!(
                "// The server compiled from `{graph_name}`: `cargo run -- --help`.\nmcpgraph::mcpgraph!({graph_name:?});\n// One evaluation cannot allocate past maxValueBytes (a program has one\n// global allocator: this declares it).\nmcpgraph::allocator!();\n{graph_tests}\nfn main() -> std::process::ExitCode {{\n    Server::main()\n}}\n"
            ),
        ),
        (".gitignore", "/target\n".to_owned()),
        (graph_name.as_str(), graph_text),
        (SCHEMA_FILE, SCHEMA.to_owned()),
    ]
    .into_iter()
    .chain(tests);
    // Every graph crate builds the same dependency tree: built once in a
    // shared target directory, a second crate's first build is about as
    // quick as a rebuild.
    let target = (!own_target).then(shared_target).flatten();
    let cargo_config = target.as_ref().map(|target| {
        (
            ".cargo/config.toml",
            format!(
                "# Every crate `mcpgraph new` makes builds in this target directory,\n# so a second graph crate compiles only its own code: its dependencies\n# are there already. Delete this file (or create the crate with\n# `mcpgraph new --own-target`) to build in ./target instead.\n[build]\ntarget-dir = {}\n",
                toml_string(&target.display().to_string())
            ),
        )
    });
    let files = files.chain(cargo_config);
    for sub in ["src", ".cargo"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
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
    if let Some(target) = &target {
        emit(&format!(
            "it builds in the target directory shared by the crates `mcpgraph new` makes, {} (.cargo/config.toml): a second graph crate compiles only its own code\n",
            target.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}
