//! The command line of a compiled server:
//!   `<bin> [--mcp FILE] call TOOL 'JSON'` → result JSON on stdout, exit 0;
//!                                           failure: message on stderr, exit 1
//!   `<bin> [--mcp FILE] tools`            → lists the tool names

use mcpgraph_tests::*;
use serde_json::{Value, json};

fn stdout_json(out: &CliOutput, what: &str) -> Value {
    serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("{what}: stdout is not one JSON value ({e}): {out:?}"))
}

#[tokio::test]
async fn call_prints_result_json() {
    let out = run_cli("loop_example", &["call", "sum_to_n", r#"{"n":10}"#]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(
        stdout_json(&out, "sum_to_n"),
        json!({ "sum": 55 }),
        "{out:?}"
    );
}

/// `call` prints the text the tool result carries (`JSON.stringify`'s
/// number spelling, as an MCP client and mcpGraph see it), not serde_json's
/// (`1e-6`, `1e+16`).
#[tokio::test]
async fn call_prints_the_result_text_with_javascript_numbers() {
    let args = r#"{"a":0.000001,"b":1e16,"c":1e21,"d":1e-7,"e":-0.0}"#;
    let out = run_cli("test_minimal", &["call", "test_tool", args]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(
        out.stdout.trim(),
        r#"{"a":0.000001,"b":10000000000000000,"c":1e+21,"d":1e-7,"e":0}"#,
        "{out:?}"
    );
}

#[tokio::test]
async fn call_every_example() {
    let out = run_cli(
        "switch_example",
        &["call", "test_switch", r#"{"value":15}"#],
    )
    .await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(
        stdout_json(&out, "test_switch"),
        json!({ "result": "high" })
    );

    let out = run_cli("test_minimal", &["call", "test_tool", r#"{"a":1}"#]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(stdout_json(&out, "test_tool"), json!({ "a": 1 }));

    let dir = counting_dir();
    let args = json!({ "directory": dir }).to_string();
    let out = run_cli("file_utils", &["call", "count_files", &args]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(stdout_json(&out, "count_files"), json!({ "count": 7 }));

    let out = run_cli("file_utils", &["call", "sum_file_sizes", &args]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(
        stdout_json(&out, "sum_file_sizes"),
        json!({ "totalSize": 1387 })
    );
}

#[tokio::test]
async fn failing_call_exits_1_with_message_on_stderr() {
    let out = run_cli(
        "switch_example",
        &["call", "test_switch", r#"{"value":"11"}"#],
    )
    .await;
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stdout.trim().is_empty(),
        "nothing expected on stdout: {out:?}"
    );
    assert!(
        out.stderr.contains("/value"),
        "stderr should name /value: {out:?}"
    );
}

#[tokio::test]
async fn unknown_tool_exits_1() {
    let out = run_cli("loop_example", &["call", "no_such_tool", "{}"]).await;
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stdout.trim().is_empty(),
        "nothing expected on stdout: {out:?}"
    );
    assert!(
        !out.stderr.trim().is_empty(),
        "an error message expected on stderr: {out:?}"
    );
}

/// A misspelt tool gets the closest name and the list of tools.
#[tokio::test]
async fn unknown_tool_suggests_the_closest_name() {
    let out = run_cli("loop_example", &["call", "sum_to", r#"{"n":1}"#]).await;
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr.trim_end(),
        "error: unknown tool `sum_to` (the server's tools: sum_to_n; did you mean `sum_to_n`?)",
        "{out:?}"
    );
    let out = run_cli("loop_example", &["call", "count_files"]).await;
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("unknown tool `count_files` (the server's tools: sum_to_n)"),
        "{out:?}"
    );
}

/// `call TOOL @FILE` reads the arguments from a file; a missing file or
/// one that is not a JSON object is an error naming it.
#[tokio::test]
async fn call_reads_arguments_from_a_file() {
    let dir = TempDir::new("call-args");
    let file = dir.path().join("args.json");
    std::fs::write(&file, "{\n  \"n\": 10\n}\n").unwrap();
    let at = format!("@{}", file.display());
    let out = run_cli("loop_example", &["call", "sum_to_n", &at]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(stdout_json(&out, "sum_to_n"), json!({ "sum": 55 }));

    std::fs::write(&file, "[10]").unwrap();
    let out = run_cli("loop_example", &["call", "sum_to_n", &at]).await;
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains(&format!(
            "the arguments (from `{}`) must be a JSON object",
            file.display()
        )),
        "{out:?}"
    );
    let missing = format!("@{}", dir.path().join("nope.json").display());
    let out = run_cli("loop_example", &["call", "sum_to_n", &missing]).await;
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains("cannot read the arguments from `") && out.stderr.contains("nope.json"),
        "{out:?}"
    );
}

/// `call TOOL -` reads the arguments from stdin.
#[tokio::test]
async fn call_reads_arguments_from_stdin() {
    use tokio::io::AsyncWriteExt;
    let mut child = command("loop_example")
        .args(["call", "sum_to_n", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run loop_example");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(br#"{"n": 4}"#).await.unwrap();
    drop(stdin);
    let out = timed("call sum_to_n -", child.wait_with_output())
        .await
        .expect("loop_example ran");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.trim(), r#"{"sum":10}"#);
}

#[tokio::test]
async fn tools_lists_tool_names() {
    for name in EXAMPLES {
        let out = run_cli(name, &["tools"]).await;
        assert_eq!(out.code, Some(0), "{name} tools: {out:?}");
        let doc = load_yaml(&example_yaml(name));
        for tool in doc["tools"].as_array().expect("tools[]") {
            let tool = tool["name"].as_str().expect("tool name");
            assert!(
                out.stdout.contains(tool),
                "{name} tools: `{tool}` not listed in stdout: {out:?}"
            );
        }
    }
}

/// `--version` names the graph's server and version and the mcpgraph
/// version the binary was built with.
#[tokio::test]
async fn version_names_the_graph_and_mcpgraph() {
    let out = run_cli("loop_example", &["--version"]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(
        out.stdout,
        format!(
            "loopExample 1.0.0 (mcpgraph {})\n",
            env!("CARGO_PKG_VERSION")
        ),
        "{out:?}"
    );
}

/// The filesystem server writes its start-up banner on stderr. `call`
/// keeps it off the terminal when the call succeeds, shows it when the call
/// fails (before the error) and at `--log-level info`.
#[tokio::test]
async fn downstream_stderr_shows_only_when_a_call_fails() {
    let banner = "[filesystem] ";
    let args = json!({ "directory": counting_dir() }).to_string();
    let out = run_cli("file_utils", &["call", "count_files", &args]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(!out.stderr.contains(banner), "{out:?}");

    let out = run_cli(
        "file_utils",
        &["--log-level", "info", "call", "count_files", &args],
    )
    .await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains(banner), "{out:?}");

    // Outside the server's allowed directories: the server refuses.
    let outside = json!({ "directory": "/" }).to_string();
    let out = run_cli("file_utils", &["call", "count_files", &outside]).await;
    assert_eq!(out.code, Some(1), "{out:?}");
    let (held, error) = (out.stderr.find(banner), out.stderr.find("error: "));
    assert!(
        matches!((held, error), (Some(h), Some(e)) if h < e),
        "the server's stderr, then the error: {out:?}"
    );
}

/// A failed call shows the downstream servers' held-back stderr through
/// the same redaction as its error, with the secrets known when it is
/// shown: `first` prints a value it inherits (not a secret yet), then
/// `second` starts with the same value expanded from `${VAR}` into its
/// `env` (a secret from then on), and its call fails. Both lines read
/// `${VAR}`.
#[tokio::test]
async fn held_back_stderr_is_redacted() {
    let secret = "held-s3cret-value";
    let server = env!("CARGO_BIN_EXE_mcpgraph-test-server");
    let config = json!({ "mcpServers": {
        "first": {
            "command": server,
            "args": ["--describe", "first"],
            "inheritEnv": ["MCPGRAPH_TEST_GREETING"],
        },
        "second": {
            "command": server,
            "args": ["--describe", "second"],
            "env": { "MCPGRAPH_TEST_GREETING": "${MCPGRAPH_TEST_HELD_SECRET}" },
        },
    } });
    let dir = TempDir::new("held-secret");
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_held_stderr_fixture"))
        .arg("--mcp")
        .arg(&mcp)
        .args(["call", "both"])
        .env("MCPGRAPH_TEST_HELD_SECRET", secret)
        .env("MCPGRAPH_TEST_GREETING", secret)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = timed("held_stderr_fixture call both", out)
        .await
        .expect("held_stderr_fixture ran");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for server in ["first", "second"] {
        let line = stderr
            .lines()
            .find(|l| l.starts_with(&format!("[{server}] ")) && l.contains("tag="))
            .unwrap_or_else(|| panic!("no line of `{server}`: {stderr}"));
        assert!(
            line.ends_with("greeting=${MCPGRAPH_TEST_HELD_SECRET}"),
            "{line}"
        );
    }
    assert!(
        stderr.contains("error: node `two`"),
        "the error, after the held-back stderr: {stderr}"
    );
    assert!(
        !stdout.contains(secret) && !stderr.contains(secret),
        "{stdout}\n{stderr}"
    );
}
