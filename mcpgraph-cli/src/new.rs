//! `mcpgraph new`: a binary crate that serves a graph file, by default the
//! starter graph with its test cases.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpgraph_codegen::ExpandOptions;

use crate::emit;
use crate::error::{CliError, graph_errors};

/// The graph `new` writes when no `--graph` is given.
const STARTER: &str = include_str!("../templates/starter.yaml");

/// The JSON Schema of the graph format, written beside the graph so that
/// the starter's `yaml-language-server` line works offline.
const SCHEMA: &str = include_str!("../mcpgraph.schema.json");

const SCHEMA_FILE: &str = "mcpgraph.schema.json";

/// The new crate's manifest: `{name}` and `{dependency}` are filled in.
const CARGO_TOML: &str = include_str!("../templates/Cargo.toml.in");

/// The starter graph's test cases.
const STARTER_TESTS: &str = include_str!("../templates/starter.test.yaml");

/// Where the crates `mcpgraph new` makes build, shared: the second one
/// builds only its own code. `None` without a home directory.
fn shared_target() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
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
) -> Result<ExitCode, CliError> {
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
        return Err(CliError::Usage(format!(
            "`{name}` is not a valid package name (letters, digits, `_` and `-`, not starting with a digit)"
        )));
    }
    if dir.exists() && dir.read_dir().map_or(true, |mut d| d.next().is_some()) {
        return Err(CliError::Usage(format!(
            "`{}` exists and is not empty",
            dir.display()
        )));
    }
    let (graph_name, graph_text) = match graph {
        Some(graph) => (
            graph
                .file_name()
                .map_or("graph.yaml".into(), |n| n.to_string_lossy().into_owned()),
            std::fs::read_to_string(graph).map_err(CliError::file("read", graph))?,
        ),
        None => ("graph.yaml".to_owned(), STARTER.replace("{{name}}", &name)),
    };
    let output = mcpgraph_codegen::generate_str(
        &graph_text,
        &graph.map_or(graph_name.clone(), |g| g.display().to_string()),
        &ExpandOptions::default(),
    );
    if !output.is_ok() {
        return Err(graph_errors(&output.diagnostics, ""));
    }
    let checkout = match checkout {
        Some(checkout) => checkout.to_path_buf(),
        None => {
            let built_from = built_from().ok_or_else(|| CliError::Usage(no_checkout()))?;
            eprintln!(
                "depending on the mcpgraph checkout this command was built from, {} (`--mcpgraph-path CHECKOUT` for another)",
                built_from.display()
            );
            built_from
        }
    };
    let checkout = std::fs::canonicalize(&checkout)
        .map_err(CliError::file("find the mcpgraph checkout", &checkout))?;
    let facade = checkout.join("mcpgraph");
    if !is_checkout(&checkout) {
        return Err(CliError::Usage(format!(
            "`{}` is not a checkout of the mcpgraph repository (no `mcpgraph/Cargo.toml`)",
            checkout.display()
        )));
    }
    let dependency = format!(
        "mcpgraph = {{ path = {} }}",
        toml_string(&facade.display().to_string())
    );
    // The checkout's lock file, so the new crate builds with the
    // dependency versions the checkout was tested with (cargo drops what
    // it does not need).
    let lock = Some(checkout.join("Cargo.lock")).filter(|lock| lock.exists());
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
            CARGO_TOML
                .replace("{name}", &name)
                .replace("{dependency}", &dependency),
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
        let sub = dir.join(sub);
        std::fs::create_dir_all(&sub).map_err(CliError::file("create", &sub))?;
    }
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::write(&path, text).map_err(CliError::file("write", &path))?;
    }
    if let Some(lock) = lock {
        std::fs::copy(&lock, dir.join("Cargo.lock")).map_err(CliError::file("copy", &lock))?;
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

/// The checkout of the mcpgraph repository this command was built from,
/// if it is still there: `cargo install --path mcpgraph-cli` and
/// `cargo run -p mcpgraph-cli` build in one, a crates.io download does not
/// sit in one.
fn built_from() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    is_checkout(dir).then(|| dir.to_path_buf())
}

/// Whether `dir` is a checkout of the mcpgraph repository: it holds the
/// facade crate `mcpgraph`.
fn is_checkout(dir: &Path) -> bool {
    dir.join("mcpgraph/Cargo.toml").is_file()
}

/// Why `new` writes nothing when no checkout is known.
fn no_checkout() -> String {
    format!(
        "the `mcpgraph` crate is not on crates.io yet, and this command was not built from a checkout of the mcpgraph repository that still exists (built from `{}`): give `--mcpgraph-path CHECKOUT`, a clone of https://github.com/mcpgraph/mcpgraph, or install this command from one (`cargo install --path mcpgraph-cli`)",
        Path::new(env!("CARGO_MANIFEST_DIR")).display()
    )
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Built in this workspace, `new` finds it; a directory without the
    /// facade crate is no checkout.
    #[test]
    fn finds_the_checkout_it_was_built_from() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        assert_eq!(built_from().as_deref(), Some(workspace));
        assert!(!is_checkout(&workspace.join("mcpgraph-cli")));
        assert!(no_checkout().contains("give `--mcpgraph-path CHECKOUT`"));
    }
}
