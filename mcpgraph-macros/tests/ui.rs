//! The UI suite: every diagnostic of the `mcpgraph!` macro as rustc shows
//! it, one small `.rs` + `.yaml` pair per case under `tests/ui/`, with the
//! expected output committed beside it (`.stderr`). The graphs that must
//! compile are in the facade's `tests/macro_pass.rs`: with failing cases
//! only, trybuild runs `cargo check`, so its separate build of the
//! dependency tree stays metadata-only. That build takes this crate's
//! dev-dependencies: the facade without its default features but
//! `graph-tests` (no diagnostic depends on a transport), which leaves about
//! a hundred packages of the HTTP, TLS, OAuth and OTLP stacks out of it.
//!
//! trybuild compiles each case in a project of its own under
//! `target/tests/trybuild/mcpgraph-macros/`, which is also `CARGO_MANIFEST_DIR`
//! for the macro. Links there named `ui`, `compat` and `examples` point at
//! this directory's `ui/` and `compat/` and the workspace's `examples/`,
//! so that the cases name their graph files the way a user would
//! (`"ui/unknown_key.yaml"`) and the messages show short paths. Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p mcpgraph-macros --test ui`, then read the diff.

use std::path::{Path, PathBuf};

fn link(target: &Path, link: &Path) {
    if std::fs::read_link(link).is_ok_and(|t| t == target) {
        return;
    }
    let _ = std::fs::remove_file(link);
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, link).expect("cannot link the UI files");
}

#[test]
fn ui() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `CARGO_TARGET_TMPDIR` is `<target dir>/tmp`.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .to_path_buf();
    let project = target.join("tests/trybuild/mcpgraph-macros");
    std::fs::create_dir_all(&project).expect("cannot create the trybuild project directory");
    link(&manifest.join("tests/ui"), &project.join("ui"));
    link(&manifest.join("../examples"), &project.join("examples"));
    link(&manifest.join("tests/compat"), &project.join("compat"));
    link(
        &manifest.join("../testdata/mcpgraph"),
        &project.join("mcpgraph-examples"),
    );

    // trybuild's cargo runs inherit these: its dependency build needs no
    // debug info and no incremental state (the cases are checked once).
    // SAFETY: this test binary has one test, and nothing else runs yet.
    unsafe {
        std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "0");
        std::env::set_var("CARGO_INCREMENTAL", "0");
    }
    every_mcpgraph_example_is_a_case(&manifest.join("../testdata/mcpgraph"));
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

/// `ui/mcpgraph_files_compile.rs` names each of mcpGraph's examples: one
/// added to `testdata/mcpgraph` without it fails here.
fn every_mcpgraph_example_is_a_case(examples: &Path) {
    let case = std::fs::read_to_string("tests/ui/mcpgraph_files_compile.rs")
        .expect("tests/ui/mcpgraph_files_compile.rs");
    let mut found = 0;
    for entry in std::fs::read_dir(examples).expect("testdata/mcpgraph") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let call = format!("mcpgraph::mcpgraph!(\"mcpgraph-examples/{name}\");");
        assert!(
            case.contains(&call),
            "tests/ui/mcpgraph_files_compile.rs does not compile {name}: add `{call}`"
        );
        found += 1;
    }
    assert!(
        found >= 4,
        "mcpGraph's examples: {found} in {}",
        examples.display()
    );
}
