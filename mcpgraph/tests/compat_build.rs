//! Files written for mcpGraph compile through `mcpgraph!` unchanged, with
//! warnings at most: mcpGraph's own examples (`testdata/mcpgraph/*.yaml`)
//! and the fixtures of `tests/compat/`, graphs mcpGraph runs that our
//! checks warn about (a transform reading `$.entry.nothing`, a misspelled
//! function in a filter predicate).
//!
//! A real build, because a warning is only visible there: the test writes a
//! small crate calling the macro once per graph, runs `cargo check` on it
//! with JSON messages, and asserts that there is no error and that each
//! fixture's warning is rustc's, at the macro call, with the graph file's
//! position, message and lint name in its text. It shares trybuild's
//! target directory (`tests/ui.rs`), so the dependencies are checked once
//! for both.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Each fixture, and what its one warning must say.
const FIXTURES: &[(&str, &[&str])] = &[
    (
        "entry_nothing",
        &[
            "compat/entry_nothing.yaml:27:67",
            "the tool's arguments (its `inputSchema`) cannot have a field `nothing`",
            "unknown_input_field",
            "= note: its fields: message",
        ],
    ),
    (
        "substring_before_typo",
        &[
            "compat/substring_before_typo.yaml:27:42",
            "unknown function `$substringBefor`",
            "unknown_function",
            "= help: did you mean `$substringBefore`?",
        ],
    ),
];

fn link(target: &Path, link: &Path) {
    if std::fs::read_link(link).is_ok_and(|t| t == target) {
        return;
    }
    let _ = std::fs::remove_file(link);
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, link).expect("cannot link the graph files");
}

/// mcpGraph's example graphs, by file stem.
fn examples(testdata: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(testdata)
        .expect("testdata/mcpgraph")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            p.file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// Writes the crate: one module per graph, each a plain `mcpgraph!` call.
fn write_crate(project: &Path, manifest: &Path, examples: &[String]) {
    let workspace = manifest.parent().expect("the workspace directory");
    std::fs::create_dir_all(project.join("src")).expect("cannot create the crate");
    link(
        &workspace.join("testdata/mcpgraph"),
        &project.join("mcpgraph"),
    );
    link(&manifest.join("tests/compat"), &project.join("compat"));
    std::fs::write(
        project.join("Cargo.toml"),
        format!(
            "[package]\nname = \"mcpgraph-compat-build\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\nmcpgraph = {{ path = {:?} }}\n\n[workspace]\n",
            manifest.display().to_string()
        ),
    )
    .expect("cannot write Cargo.toml");
    std::fs::copy(workspace.join("Cargo.lock"), project.join("Cargo.lock"))
        .expect("cannot copy Cargo.lock");
    let mut lib = String::from("#![allow(dead_code)]\n");
    let graphs = examples
        .iter()
        .map(|name| (name.as_str(), format!("mcpgraph/{name}.yaml")))
        .chain(
            FIXTURES
                .iter()
                .map(|(name, _)| (*name, format!("compat/{name}.yaml"))),
        );
    for (name, path) in graphs {
        lib.push_str(&format!(
            "mod {name} {{\n    mcpgraph::mcpgraph!({path:?});\n}}\n"
        ));
    }
    std::fs::write(project.join("src/lib.rs"), lib).expect("cannot write src/lib.rs");
}

/// rustc's messages for the crate: (level, rendered text).
fn messages(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| {
            m["reason"] == "compiler-message"
                && m["target"]["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("mcpgraph_compat_build"))
        })
        .map(|m| {
            let message = &m["message"];
            (
                message["level"].as_str().unwrap_or_default().to_owned(),
                message["rendered"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn mcpgraph_files_compile_with_warnings_at_most() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `CARGO_TARGET_TMPDIR` is `<target dir>/tmp`.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .join("tests/trybuild");
    let project = target.join("compat-build");
    let examples = examples(&manifest.join("../testdata/mcpgraph"));
    assert!(examples.len() >= 4, "mcpGraph's examples: {examples:?}");
    write_crate(&project, manifest, &examples);

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "check",
            "--offline",
            "--message-format=json",
            "--manifest-path",
        ])
        .arg(project.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cannot run cargo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let messages = messages(&stdout);
    let all = messages
        .iter()
        .map(|(_, text)| text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let errors: Vec<&str> = messages
        .iter()
        .filter(|(level, _)| level == "error")
        .map(|(_, text)| text.as_str())
        .collect();
    assert!(
        errors.is_empty(),
        "errors:\n{}\nstderr:\n{}",
        errors.join("\n"),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "cargo check failed:\n{}\n{all}",
        String::from_utf8_lossy(&output.stderr)
    );
    for (name, wants) in FIXTURES {
        let found: Vec<&str> = messages
            .iter()
            .filter(|(level, text)| level == "warning" && text.contains(&format!("{name}.yaml:")))
            .map(|(_, text)| text.as_str())
            .collect();
        let [warning] = found[..] else {
            panic!(
                "{name}: expected one warning, found {}:\n{all}",
                found.len()
            );
        };
        for want in *wants {
            assert!(warning.contains(want), "{name}: no `{want}` in:\n{warning}");
        }
        // rustc's own location: the path literal of the macro call.
        assert!(
            warning.contains(&format!("mcpgraph::mcpgraph!(\"compat/{name}.yaml\")")),
            "{name}: not at the macro call:\n{warning}"
        );
    }
    let example_warnings: Vec<&str> = messages
        .iter()
        .map(|(_, text)| text.as_str())
        .filter(|text| text.contains("mcpgraph/") && !text.contains("compat/"))
        .collect();
    assert!(
        example_warnings.is_empty(),
        "mcpGraph's examples warn:\n{}",
        example_warnings.join("\n")
    );
}
