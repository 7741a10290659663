//! `${VAR}` and `${VAR:-default}` in a stdio server's `command`, `args`,
//! `cwd` and `env` (FORMAT.md), through the real `file_utils` binary with a
//! `--mcp` file: expanded from the graph server's environment when the
//! downstream server is first started (lazily, on the first call, once);
//! an unset variable without a default fails that call naming it.

use std::time::{Duration, Instant};

use mcpgraph_tests::rmcp::model::CallToolResult;
use mcpgraph_tests::{
    Client, bin_path, call_params, example_dir, result_text, stdio_client, timed,
};
use serde_json::{Value, json};

const STARTED: &str = "test server: started:";

fn write_config(tag: &str, config: &Value) -> std::path::PathBuf {
    let file = std::env::temp_dir().join(format!("mcpgraph-env-{tag}-{}.json", std::process::id()));
    std::fs::write(&file, config.to_string()).expect("write --mcp file");
    file
}

/// `file_utils --mcp file` with `vars` set in its environment (and the
/// test's variables otherwise unset).
async fn file_utils(
    file: &std::path::Path,
    vars: &[(&str, &str)],
) -> (Client, impl Fn() -> String + use<>) {
    let mut cmd = tokio::process::Command::new(bin_path("file_utils"));
    cmd.arg("--mcp")
        .arg(file)
        .current_dir(example_dir("file_utils"));
    for name in ["MCPGRAPH_TEST_TAG", "MCPGRAPH_TEST_NOT_SET"] {
        cmd.env_remove(name);
    }
    cmd.envs(vars.iter().copied());
    let (client, stderr) = stdio_client(cmd).await;
    let log = move || String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
    (client, log)
}

async fn count(client: &Client) -> CallToolResult {
    timed(
        "count_files",
        client
            .peer()
            .call_tool(call_params("count_files", json!({"directory": "/data"}))),
    )
    .await
    .expect("a tool result")
}

#[tokio::test(flavor = "multi_thread")]
async fn stdio_settings_are_expanded_when_the_server_first_starts() {
    let cwd = std::env::temp_dir().join(format!("mcpgraph-env-cwd-{}", std::process::id()));
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd = cwd.canonicalize().unwrap();
    let file = write_config(
        "set",
        &json!({"mcpServers": {"filesystem": {
            "command": "${MCPGRAPH_TEST_SERVER}",
            "args": ["--describe", "${MCPGRAPH_TEST_TAG:-default-tag}"],
            "cwd": "${MCPGRAPH_TEST_CWD}",
            "env": {"MCPGRAPH_TEST_GREETING": "hello ${MCPGRAPH_TEST_WHO}"},
            "timeoutMs": 10000
        }}}),
    );
    let (client, log) = file_utils(
        &file,
        &[
            (
                "MCPGRAPH_TEST_SERVER",
                env!("CARGO_BIN_EXE_mcpgraph-test-server"),
            ),
            ("MCPGRAPH_TEST_CWD", cwd.to_str().unwrap()),
            // Under four characters: not redacted where it is forwarded.
            ("MCPGRAPH_TEST_WHO", "Ada"),
        ],
    )
    .await;
    // Lazy: nothing is started before the first call needs it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !log().contains(STARTED),
        "started before any call:\n{}",
        log()
    );

    for _ in 0..3 {
        let r = count(&client).await;
        assert_ne!(r.is_error, Some(true), "{}", result_text(&r));
    }
    // The server started in the expanded cwd (it could not start in a
    // directory named `${...}`); its stderr reaches our log with the
    // expanded path redacted, as every value of four characters or more
    // expanded from `${VAR}` is.
    let want = format!("{STARTED} tag=default-tag cwd=${{MCPGRAPH_TEST_CWD}} greeting=hello Ada");
    let started = Instant::now();
    while !log().contains(&want) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "want {want:?} on stderr:\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!log().contains(cwd.to_str().unwrap()), "{}", log());
    // One shared connection: started once for three calls.
    assert_eq!(log().matches(STARTED).count(), 1, "{}", log());
    let _ = timed("close", client.cancel()).await;
    let _ = std::fs::remove_dir_all(&cwd);
    let _ = std::fs::remove_file(&file);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unset_variable_fails_the_call_naming_it() {
    let file = write_config(
        "unset",
        &json!({"mcpServers": {"filesystem": {
            "command": env!("CARGO_BIN_EXE_mcpgraph-test-server"),
            "args": ["--describe", "${MCPGRAPH_TEST_NOT_SET}"]
        }}}),
    );
    let (client, log) = file_utils(&file, &[]).await;
    for _ in 0..2 {
        let r = count(&client).await;
        let text = result_text(&r);
        assert_eq!(r.is_error, Some(true), "{text}");
        assert!(
            text.contains("environment variable `MCPGRAPH_TEST_NOT_SET` is not set")
                && text.contains("node `list_directory_node`"),
            "{text}"
        );
    }
    assert!(!log().contains(STARTED), "{}", log());
    let _ = timed("close", client.cancel()).await;
    let _ = std::fs::remove_file(&file);
}

/// A value expanded from `${VAR}` (here a secret passed as an argument,
/// which the crashing server then writes on its stderr) reaches neither the
/// client (which gets the exit status, not the stderr) nor our log (where
/// the child's stderr is forwarded with the value as `${VAR}`).
#[tokio::test(flavor = "multi_thread")]
async fn expanded_secrets_are_redacted_from_errors_and_the_log() {
    let secret = "sekrit-value-42";
    let file = write_config(
        "redact",
        &json!({"mcpServers": {"filesystem": {
            "command": env!("CARGO_BIN_EXE_mcpgraph-test-server"),
            "args": ["--describe", "${MCPGRAPH_TEST_TAG}"]
        }}}),
    );
    let (client, log) = file_utils(&file, &[("MCPGRAPH_TEST_TAG", secret)]).await;
    let r = timed(
        "count_files",
        client
            .peer()
            .call_tool(call_params("count_files", json!({"directory": "@crash"}))),
    )
    .await
    .expect("a tool result");
    let text = result_text(&r);
    assert_eq!(r.is_error, Some(true), "{text}");
    assert!(!text.contains(secret), "{text}");
    assert!(
        text.contains("exit status") && !text.contains("crashing on request"),
        "{text}"
    );
    // The forwarded stderr reaches our log (give the forwarding a moment).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !log().contains("crashing on request") && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let log = log();
    assert!(
        log.contains("tag=${MCPGRAPH_TEST_TAG}") && log.contains("crashing on request"),
        "{log}"
    );
    assert!(!log.contains(secret), "the secret reached the log:\n{log}");
    let _ = timed("close", client.cancel()).await;
    let _ = std::fs::remove_file(&file);
}

/// A secret expanded into an HTTP server's URL comes back from the URL
/// parser percent-encoded (`a b` as `a%20b`): it is redacted in that form
/// too, from the caller's error and from our log.
#[tokio::test(flavor = "multi_thread")]
async fn secrets_are_redacted_in_their_encoded_forms() {
    let secret = mcpgraph_tests::ENCODED_SECRET;
    let file = write_config(
        "encoded",
        &json!({"mcpServers": {"filesystem": {
            "type": "http",
            "url": "http://127.0.0.1:1/mcp/${MCPGRAPH_TEST_TAG}?key=${MCPGRAPH_TEST_TAG}",
            "timeoutMs": 3000
        }}}),
    );
    let (client, log) = file_utils(
        &file,
        &[("MCPGRAPH_TEST_TAG", secret), ("RUST_LOG", "debug")],
    )
    .await;
    let r = count(&client).await;
    let text = result_text(&r);
    assert_eq!(r.is_error, Some(true), "{text}");
    let forms = mcpgraph_tests::ENCODED_SECRET_FORMS;
    for form in forms {
        assert!(!text.contains(form), "`{form}` reached the caller: {text}");
    }
    let _ = timed("close", client.cancel()).await;
    let log = log();
    for form in forms {
        assert!(!log.contains(form), "`{form}` reached the log:\n{log}");
    }
    let _ = std::fs::remove_file(&file);
}
