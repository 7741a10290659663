//! `check`: errors, warnings, the lock, mcpGraph's files, a missing file.

use crate::{FIVE_ERRORS, LOOP, run, text, workspace};

#[test]
fn check_passes_good_files() {
    let out = run(&["check", LOOP, "examples/test_minimal/test_minimal.yaml"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stderr), "checked 2 files: no problems\n");
}

#[test]
fn check_reports_every_error_and_fails() {
    let out = run(&["check", FIVE_ERRORS]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("error[").count(), 5, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error[unknown_key]: unknown key `descripton` in tool `count_files`\n --> {FIVE_ERRORS}:7:5\n  |\n7 |     descripton:"
        )),
        "{stderr}"
    );
    assert!(stderr.ends_with("error: checked 1 file: 5 errors, 0 warnings\n"));

    let out = run(&["check", "--format", "json", FIVE_ERRORS, LOOP]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = json.as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert_eq!(items[0]["severity"], "error");
    assert_eq!(items[0]["file"], FIVE_ERRORS);
    assert_eq!(
        (items[0]["line"].clone(), items[0]["column"].clone()),
        (7.into(), 5.into())
    );
    assert_eq!(items[0]["help"], "did you mean `description`?");
    assert_eq!(items[0]["code"], "unknown_key");
}

#[test]
fn warnings_pass_unless_denied() {
    let file = "mcpgraph-macros/tests/ui/reference_before_run.yaml";
    let out = run(&["check", file]);
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("warning[reference_before_run]: node `list` reads `count`, which cannot have run before it"),
        "{stderr}"
    );
    let out = run(&["check", "--deny-warnings", "--format", "json", file]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json[0]["lint"], "reference_before_run");
}

/// With a lock beside the graph, `check` checks a `parallel` branch's and
/// a `forEach` call's downstream tool as an `mcp` node's: a tool the server
/// lacks, a literal of the wrong type.
#[test]
fn check_holds_branches_and_item_calls_to_the_lock() {
    let files = [
        "mcpgraph-macros/tests/ui/lock_branch_tool_misspelled.yaml",
        "mcpgraph-macros/tests/ui/lock_branch_literal_type.yaml",
        "mcpgraph-macros/tests/ui/lock_foreach_tool_misspelled.yaml",
    ];
    let args: Vec<&str> = ["check", "--format", "json"]
        .into_iter()
        .chain(files)
        .collect();
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["lock_unknown_tool", "invalid_argument", "lock_unknown_tool"]
    );
    let got: Vec<(&str, u64, u64, &str, &str)> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["severity"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                files[0],
                16,
                19,
                "error",
                "node `gather`, branch `now`: server `time` has no tool `get_curent_time`"
            ),
            (
                files[1],
                19,
                15,
                "error",
                "node `gather`, branch `number`: argument `message` of `echo`: 42 is not of type \"string\""
            ),
            (
                files[2],
                16,
                17,
                "error",
                "node `each`, item call: server `filesystem` has no tool `read_txt_file`"
            ),
        ]
    );
    assert_eq!(json[0]["help"], "did you mean `get_current_time`?");
}

/// Files mcpGraph runs that our checks warn about (the fixtures the UI
/// case `mcpgraph_files_compile.rs` compiles): `check` passes them with the
/// same warning, at the same place, as the build shows, and fails them with
/// `--deny-warnings`.
#[test]
fn compat_fixtures_warn_and_pass() {
    for (file, lint, first) in [
        (
            "mcpgraph-macros/tests/compat/entry_nothing.yaml",
            "unknown_input_field",
            "warning[unknown_input_field]: `entry.nothing`: the tool's arguments (its `inputSchema`) cannot have a field `nothing`\n  --> mcpgraph-macros/tests/compat/entry_nothing.yaml:27:67\n",
        ),
        (
            "mcpgraph-macros/tests/compat/substring_before_typo.yaml",
            "unknown_function",
            "warning[unknown_function]: unknown function `$substringBefor`\n  --> mcpgraph-macros/tests/compat/substring_before_typo.yaml:27:42\n",
        ),
    ] {
        let out = run(&["check", file]);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.starts_with(first), "{stderr}");
        assert!(stderr.ends_with("0 errors, 1 warning\n"), "{stderr}");
        let out = run(&["check", "--deny-warnings", "--format", "json", file]);
        assert_eq!(out.status.code(), Some(1));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json[0]["lint"], lint);
        assert_eq!(json[0]["code"], lint);
        assert_eq!(json[0]["severity"], "warning");
        // `--allow` and `--deny`, as in the macro call.
        let out = run(&["check", "--allow", lint, file]);
        assert!(out.status.success());
        assert_eq!(text(&out.stderr), "checked 1 file: no problems\n");
        let out = run(&["check", "--deny", "warnings", "--allow", lint, file]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let out = run(&["check", "--deny", lint, file]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&first.replacen("warning", "error", 1)),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("= note: denied by `--deny {lint}`\n")),
            "{stderr}"
        );
        assert!(stderr.ends_with("1 error, 0 warnings\n"), "{stderr}");
    }
    let out = run(&["check", "--deny", "unknown_input_feild", LOOP]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: unknown lint `unknown_input_feild`: the lints are "),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `unknown_input_field`?"),
        "{stderr}"
    );
}

#[test]
fn check_a_missing_file() {
    let out = run(&["check", "no/such.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let here = std::fs::canonicalize(workspace()).unwrap();
    let abs = here.join("no/such.yaml");
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&abs.display().to_string()), "{stderr}");
    // On the command line a path is relative to the current directory (the
    // macro's is relative to the crate's Cargo.toml).
    assert!(
        stderr.contains(&format!(
            "help: the path is relative to the current directory (`{}`)",
            here.display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("Cargo.toml"), "{stderr}");
    assert!(stderr.starts_with("error[file_unreadable]: "), "{stderr}");
}
