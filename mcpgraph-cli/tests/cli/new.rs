//! `mcpgraph new`: the crate it writes and where it builds.

use std::process::Command;

use crate::{FIVE_ERRORS, LOOP, run, scratch, text, workspace};

/// The crates `mcpgraph new` makes share a target directory (so the
/// second builds only its own code), unless `--own-target`.
#[test]
fn new_crates_share_a_target_directory() {
    let dir = scratch("shared-target");
    let cache = dir.join("cache");
    let create = |name: &str, extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mcpgraph"))
            .arg("new")
            .arg(dir.join(name))
            .args(extra)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let said = create("first", &[]);
    let shared = cache.join("mcpgraph/target");
    assert!(said.contains(&shared.display().to_string()), "{said}");
    let config = std::fs::read_to_string(dir.join("first/.cargo/config.toml")).unwrap();
    assert!(
        config.contains(&format!("target-dir = \"{}\"", shared.display())),
        "{config}"
    );
    create("second", &["--own-target"]);
    assert!(!dir.join("second/.cargo/config.toml").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn new_creates_a_crate() {
    let dir = scratch("new");
    let target = dir.join("my-server");
    let target_arg = target.display().to_string();
    let checkout = workspace().display().to_string();
    let out = run(&[
        "new",
        &target_arg,
        "--graph",
        LOOP,
        "--mcpgraph-path",
        &checkout,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The checkout given, so nothing said about the one built from.
    assert!(
        !text(&out.stderr).contains("built from"),
        "{}",
        text(&out.stderr)
    );
    let manifest = std::fs::read_to_string(target.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"my-server\""), "{manifest}");
    let facade = std::fs::canonicalize(workspace().join("mcpgraph")).unwrap();
    assert!(
        manifest.contains(&format!("mcpgraph = {{ path = \"{}\" }}", facade.display())),
        "{manifest}"
    );
    let lines = "\n[workspace]\n|\nresolver = \"1\"\n|\n[profile.dev.package.\"*\"]\ndebug = false\n\
        |\n[profile.release.package.jsonschema]\nopt-level = 0\n";
    assert!(lines.split('|').all(|l| manifest.contains(l)), "{manifest}");
    let main = std::fs::read_to_string(target.join("src/main.rs")).unwrap();
    assert!(
        main.contains("mcpgraph::mcpgraph!(\"loop_example.yaml\");"),
        "{main}"
    );
    // The evaluation byte budget counted (a binary's choice: see
    // `mcpgraph::allocator!`).
    assert!(main.contains("\nmcpgraph::allocator!();\n"), "{main}");
    assert_eq!(
        std::fs::read(target.join("loop_example.yaml")).unwrap(),
        std::fs::read(workspace().join(LOOP)).unwrap()
    );
    assert!(target.join("Cargo.lock").exists());
    // Not over an existing crate, not for a broken graph, not a bad name,
    // not with a path that is no checkout.
    let out = run(&["new", &target_arg, "--graph", LOOP]);
    assert_eq!(out.status.code(), Some(1));
    let other = dir.join("other").display().to_string();
    let out = run(&["new", &other, "--graph", FIVE_ERRORS]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!dir.join("other").exists());
    let bad = dir.join("9lives").display().to_string();
    assert_eq!(run(&["new", &bad, "--graph", LOOP]).status.code(), Some(1));
    let out = run(&["new", &other, "--mcpgraph-path", "/"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is not a checkout"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without `--graph`: the starter graph, with the schema line and the
/// schema beside it. Without `--mcpgraph-path`: a dependency on the
/// checkout this command was built from (the crates are not on crates.io),
/// said on stderr, with the checkout's lock file.
#[test]
fn new_writes_a_starter_on_the_checkout_it_was_built_from() {
    let dir = scratch("starter");
    let target = dir.join("hello_server");
    let out = run(&["new", &target.display().to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let manifest = std::fs::read_to_string(target.join("Cargo.toml")).unwrap();
    let checkout = std::fs::canonicalize(workspace()).unwrap();
    let facade = checkout.join("mcpgraph");
    assert!(
        manifest.contains(&format!(
            "\nmcpgraph = {{ path = \"{}\" }}\n",
            facade.display()
        )),
        "{manifest}"
    );
    assert_eq!(
        text(&out.stderr),
        format!(
            "depending on the mcpgraph checkout this command was built from, {} (`--mcpgraph-path CHECKOUT` for another)\n",
            checkout.display()
        )
    );
    assert!(target.join("Cargo.lock").exists());
    let graph = std::fs::read_to_string(target.join("graph.yaml")).unwrap();
    assert!(
        graph.starts_with("# yaml-language-server: $schema=mcpgraph.schema.json\n"),
        "{graph}"
    );
    assert!(graph.contains("name: \"hello_server\""), "{graph}");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(target.join("mcpgraph.schema.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    // The starter checks clean.
    let file = target.join("graph.yaml").display().to_string();
    let out = run(&["check", "--deny-warnings", &file]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}
