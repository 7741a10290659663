//! A graph's own tests (`<server> test`, issue 31): cases recorded from the
//! real filesystem and everything servers into a cassette, replayed with
//! those servers unavailable; a changed request or output fails with its
//! diff; `--update` records only what changed; a failed call recorded by a
//! running server replays to the same error; secrets never reach a
//! cassette (`graph_failures`: a failed call recorded by a running server,
//! secrets, coverage). `mcpgraph test` and `graph_tests!` in a new crate:
//! scripts/starter-check.sh.

use std::path::{Path, PathBuf};

use mcpgraph_tests::*;
use serde_json::{Value, json};

/// A scratch directory for one test.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpgraph-cases-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// `--mcp` for fan_out: the pinned filesystem and everything servers.
pub(crate) fn fan_out_servers(dir: &Path) -> PathBuf {
    let node = which("node").expect("node on PATH");
    let everything = repo_root()
        .join("peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let path = dir.join("fan_out.mcp.json");
    write_json(
        &path,
        &json!({ "mcpServers": {
            "filesystem": { "command": node, "args": [filesystem_server_js(), counting_dir()] },
            "everything": { "command": node, "args": [everything, "stdio"] },
        }}),
    );
    path
}

/// `--mcp` in which every server of the graph is a program that does not
/// exist: a call that reaches one fails.
pub(crate) fn unavailable(dir: &Path, servers: &[&str]) -> PathBuf {
    let path = dir.join("unavailable.mcp.json");
    let entries: serde_json::Map<String, Value> = servers
        .iter()
        .map(|s| {
            (
                (*s).to_owned(),
                json!({ "command": "/nonexistent/mcp-server" }),
            )
        })
        .collect();
    write_json(&path, &json!({ "mcpServers": entries }));
    path
}

pub(crate) async fn run(name: &str, mcp: &Path, args: &[&str]) -> CliOutput {
    let mut cmd = command_with_mcp(name, mcp);
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = timed(&format!("{name} {args:?}"), cmd.output())
        .await
        .unwrap();
    CliOutput {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[tokio::test]
async fn records_from_server_filesystem_then_replays_without_it() {
    let dir = scratch("filesystem");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let live = mcp_override_file();
    for cassette in [&a, &b] {
        let out = run(
            "file_utils",
            live,
            &["test", "--record", cassette.to_str().unwrap()],
        )
        .await;
        assert_eq!(out.code, Some(0), "{out:?}");
        assert!(
            out.stdout.contains("ok (recorded) counts the files"),
            "{out:?}"
        );
    }
    let recorded = std::fs::read_to_string(&a).unwrap();
    assert!(recorded.contains("\"list_directory_with_sizes\""));
    assert!(
        recorded == std::fs::read_to_string(&b).unwrap(),
        "recording twice differs"
    );

    let gone = unavailable(&dir, &["filesystem"]);
    let out = run(
        "file_utils",
        &gone,
        &["call", "count_files", r#"{"directory":"."}"#],
    )
    .await;
    assert_ne!(
        out.code,
        Some(0),
        "the unavailable server must fail a live call: {out:?}"
    );
    let out = run(
        "file_utils",
        &gone,
        &["test", "--cassette", a.to_str().unwrap()],
    )
    .await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains("3 passed, 0 failed"), "{out:?}");
    assert!(out.stdout.contains("count_files     4/4"), "{out:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// fan_out's cases run a `forEach` over server-filesystem and a `parallel`
/// node over server-everything: recorded twice to the same bytes, then
/// replayed with both servers unavailable.
#[tokio::test]
async fn records_parallel_and_for_each_calls_then_replays_without_the_servers() {
    let dir = scratch("fan-out");
    let live = fan_out_servers(&dir);
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    for cassette in [&a, &b] {
        let out = run(
            "fan_out",
            &live,
            &["test", "--record", cassette.to_str().unwrap()],
        )
        .await;
        assert_eq!(out.code, Some(0), "{out:?}");
    }
    let read = |path: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let (first, second) = (read(&a), read(&b));
    // Which calls a failing branch's siblings got to finish before they
    // were cancelled is a race, recorded as it happened; the other cases
    // record the same bytes.
    for case in [
        "reads every file of a directory",
        "asks three sources at once",
    ] {
        let exchanges = &first["cases"][case];
        assert!(exchanges.as_array().is_some_and(|e| e.len() >= 3), "{case}");
        assert!(
            exchanges == &second["cases"][case],
            "{case}: recording twice differs"
        );
    }
    let recorded = first.to_string();
    assert!(recorded.contains("\"get-sum\"") && recorded.contains("\"read_text_file\""));
    let gone = unavailable(&dir, &["filesystem", "everything"]);
    let out = run(
        "fan_out",
        &gone,
        &["test", "--cassette", a.to_str().unwrap()],
    )
    .await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains("3 passed, 0 failed"), "{out:?}");
    // The committed cassette replays too.
    let out = run("fan_out", &gone, &["test"]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    // `--trace` shows each branch of the parallel node, and each item.
    let args = r#"{"message":"hello","directory":"."}"#;
    let out = run("fan_out", &live, &["call", "--trace", "overview", args]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    for part in ["  lookup/echo ", "  lookup/sum ", "  lookup/files "] {
        assert!(out.stderr.contains(part), "{part}: {}", out.stderr);
    }
    let args = r#"{"directory":"."}"#;
    let out = run(
        "fan_out",
        &live,
        &["call", "--trace", "read_directory", args],
    )
    .await;
    assert_eq!(out.code, Some(0), "{out:?}");
    for part in ["  each/0 ", "  each/6 "] {
        assert!(out.stderr.contains(part), "{part}: {}", out.stderr);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A test file of file_utils's with `case`, and the committed cassette.
fn variant(dir: &Path, case: &str) -> (PathBuf, String) {
    let file = dir.join("variant.test.yaml");
    std::fs::write(&file, format!("cases:\n{case}")).unwrap();
    let cassette = example_dir("file_utils").join("file_utils.cassette.json");
    (file, cassette.to_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_changed_request_fails_with_a_diff_of_the_requests() {
    let dir = scratch("request");
    let case = "  - name: counts the files\n    tool: count_files\n    args: { directory: \"./sub\" }\n    expect: { output: { count: 7 } }\n";
    let (file, cassette) = variant(&dir, case);
    let gone = unavailable(&dir, &["filesystem"]);
    let out = run(
        "file_utils",
        &gone,
        &["test", file.to_str().unwrap(), "--cassette", &cassette],
    )
    .await;
    assert_eq!(out.code, Some(1), "{out:?}");
    for wanted in [
        "FAIL  counts the files",
        "node `list_directory_node`: the request to `filesystem`/`list_directory` differs from the recording",
        "at $.path: expected \".\", got \"./sub\"",
        "record the case again with `file_utils test",
        "0 passed, 1 failed",
    ] {
        assert!(out.stdout.contains(wanted), "{wanted}: {}", out.stdout);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_changed_output_fails_with_a_diff_of_the_outputs() {
    let dir = scratch("output");
    let case = "  - name: counts the files\n    tool: count_files\n    args: { directory: \".\" }\n    expect: { output: { count: 8 } }\n  - name: sums the file sizes\n    tool: sum_file_sizes\n    args: { directory: \".\" }\n    expect: { assert: \"totalSize < 100\" }\n";
    let (file, cassette) = variant(&dir, case);
    let gone = unavailable(&dir, &["filesystem"]);
    let junit = dir.join("junit.xml");
    let out = run(
        "file_utils",
        &gone,
        &[
            "test",
            file.to_str().unwrap(),
            "--cassette",
            &cassette,
            "--github",
            "--junit",
            junit.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(out.code, Some(1), "{out:?}");
    for wanted in [
        "the output is not `expect.output`:\n        at $.count: expected 8, got 7",
        "`expect.assert` is not true: totalSize < 100\n        the output: {\"totalSize\":1387}",
        "::error file=",
    ] {
        assert!(out.stdout.contains(wanted), "{wanted}: {}", out.stdout);
    }
    let junit = std::fs::read_to_string(&junit).unwrap();
    assert!(
        junit.contains("<testsuite name=\"fileUtils\" tests=\"2\" failures=\"2\""),
        "{junit}"
    );
    assert!(junit.contains("expected 8, got 7"), "{junit}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn update_records_only_the_cases_that_changed() {
    let dir = scratch("update");
    let cassette = dir.join("c.json");
    let committed = example_dir("file_utils").join("file_utils.cassette.json");
    std::fs::copy(&committed, &cassette).unwrap();
    let before: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let cases = "  - name: counts the files\n    tool: count_files\n    args: { directory: \".\" }\n    expect: { output: { count: 7 } }\n  - name: lists the files again\n    tool: count_files\n    args: { directory: \"./\" }\n    expect: { output: { count: 7 } }\n";
    let (file, _) = variant(&dir, cases);
    let out = run(
        "file_utils",
        mcp_override_file(),
        &[
            "test",
            file.to_str().unwrap(),
            "--update",
            "--cassette",
            cassette.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains("ok    counts the files"), "{out:?}");
    assert!(
        out.stdout.contains("ok (recorded) lists the files again"),
        "{out:?}"
    );
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    assert_eq!(
        after["cases"]["counts the files"],
        before["cases"]["counts the files"]
    );
    assert_eq!(
        after["cases"]["lists the files again"][0]["arguments"],
        json!({ "path": "./" })
    );
    // Cases no longer in the file leave the cassette.
    assert!(
        after["cases"].get("sums the file sizes").is_none(),
        "{after}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
