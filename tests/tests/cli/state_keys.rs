//! `serve --state-key-file PATH` and `--state-key-env VAR`: the keys that
//! seal the state a waiting call hands its client. A bad key stops the
//! server at start-up with a message naming the place and the line, never
//! the key; good keys let it serve; `--stateless` without a key warns.

use std::path::PathBuf;

use mcpgraph_tests::*;

/// 32 bytes (1..=32) in base64.
const KEY_A: &str = "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=";
/// 32 other bytes (101..=132) in base64.
const KEY_B: &str = "ZWZnaGlqa2xtbm9wcXJzdHV2d3h5ent8fX5/gIGCg4Q=";
/// 16 bytes in base64: too short for a key.
const SHORT: &str = "AQIDBAUGBwgJCgsMDQ4PEA==";

/// A key file holding `text` with `mode`, in a folder of this test's own.
fn key_file(tag: &str, text: &str, mode: u32) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("mcpgraph-state-keys-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("state.keys");
    std::fs::write(&path, text).expect("write key file");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .expect("chmod key file");
    }
    path
}

/// Runs `serve` with `args` (over stdio, stdin closed: a good start ends at
/// once at end of input; HTTP stays up, so a test of it must fail to start)
/// and asserts it failed with `want` on stderr and no key text.
async fn fails_to_start(args: &[&str], env: &[(&str, Option<&str>)], want: &str) {
    let out = run_cli_with_env("loop_example", args, env).await;
    assert_eq!(out.code, Some(1), "{args:?}: {out:?}");
    assert!(
        out.stderr.contains(want),
        "{args:?}: want {want:?}: {}",
        out.stderr
    );
    for key in [KEY_A, KEY_B, SHORT] {
        assert!(
            !out.stderr.contains(key),
            "{args:?} shows a key: {}",
            out.stderr
        );
    }
    assert!(
        !out.stderr.contains("serving MCP on"),
        "{args:?} served: {}",
        out.stderr
    );
}

#[tokio::test]
async fn a_bad_key_file_stops_the_server_with_a_clear_message() {
    let short = key_file("short", &format!("# keys\nk1={SHORT}\n"), 0o600);
    let twice = key_file("twice", &format!("k1={KEY_A}\nk1={KEY_B}\n"), 0o600);
    let bare = key_file("bare", &format!("{KEY_A}\n"), 0o600);
    let empty = key_file("empty", "# no key yet\n", 0o600);
    let writable = key_file("writable", &format!("k1={KEY_A}\n"), 0o666);
    let missing = short.with_file_name("missing.keys");
    for (path, want) in [
        (&short, "line 2: key `k1` is 16 bytes, not 32"),
        (&twice, "line 2: key id `k1` is given twice"),
        (&bare, "line 1: expected `kid=<key in base64>`"),
        (&empty, "no key (expected lines `kid=<key in base64>`"),
        (
            &writable,
            "other users than its owner can write it (mode 666)",
        ),
        (&missing, "cannot read it"),
    ] {
        let path_text = path.to_str().expect("UTF-8 path");
        let want = format!("--state-key-file {path_text}: {want}");
        for http in [&[][..], &["--http", "127.0.0.1:0"]] {
            let mut args = vec!["serve", "--state-key-file", path_text];
            args.extend_from_slice(http);
            fails_to_start(&args, &[], &want).await;
        }
    }
}

#[tokio::test]
async fn a_bad_key_variable_stops_the_server_with_a_clear_message() {
    let var = "MCPGRAPH_TEST_STATE_KEYS";
    let args = ["serve", "--http", "127.0.0.1:0", "--state-key-env", var];
    fails_to_start(
        &args,
        &[(var, None)],
        "--state-key-env MCPGRAPH_TEST_STATE_KEYS: environment variable \
         `MCPGRAPH_TEST_STATE_KEYS` is not set",
    )
    .await;
    for (value, want) in [
        (String::new(), "no key"),
        (
            format!("k1={SHORT}"),
            "line 1: key `k1` is 16 bytes, not 32",
        ),
        (
            format!("k1={KEY_A},k1={KEY_B}"),
            "line 1: key id `k1` is given twice",
        ),
        ("k1=@@@@".to_owned(), "line 1: key `k1` is not base64"),
    ] {
        let want = format!("--state-key-env {var}: {want}");
        fails_to_start(&args, &[(var, Some(value.as_str()))], &want).await;
    }
    let out = run_cli(
        "loop_example",
        &["serve", "--state-key-env", var, "--state-key-file", "x"],
    )
    .await;
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(out.stderr.contains("cannot be used with"), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn good_keys_serve_and_stateless_without_a_key_warns() {
    let file = key_file(
        "good",
        &format!("# new first\nk2={KEY_B}\nk1={KEY_A}\n"),
        0o600,
    );
    let file = file.to_str().expect("UTF-8 path");
    let var = "MCPGRAPH_TEST_STATE_KEYS_GOOD";
    let value = format!("k2={KEY_B},k1={KEY_A}");
    let warning = "--stateless without --state-key-file or --state-key-env";
    for (extra, env) in [
        (vec!["--stateless", "--state-key-file", file], vec![]),
        (
            vec!["--stateless", "--state-key-env", var],
            vec![(var, value.as_str())],
        ),
    ] {
        let mut args = extra.clone();
        args.extend(["--log-level", "info"]);
        let server = HttpServer::start("loop_example", &args, &env).await;
        let client = server.rmcp_client(1).await;
        let result = timed(
            "sum_to_n",
            client.call_tool(call_params("sum_to_n", serde_json::json!({ "n": 4 }))),
        )
        .await
        .expect("the call");
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({ "sum": 10 })),
            "{extra:?}"
        );
        let _ = timed("close", client.cancel()).await;
        let stderr = server.stderr();
        assert!(stderr.contains("state keys loaded"), "{extra:?}: {stderr}");
        assert!(!stderr.contains(warning), "{extra:?}: {stderr}");
        for key in [KEY_A, KEY_B] {
            assert!(!stderr.contains(key), "{extra:?} logs a key: {stderr}");
        }
        server.stop().await;
    }
    // Every user may read it: served, with a warning.
    let readable = key_file("readable", &format!("k1={KEY_A}\n"), 0o644);
    let readable = readable.to_str().expect("UTF-8 path");
    let server = HttpServer::start("loop_example", &["--state-key-file", readable], &[]).await;
    let stderr = logged(&server, "every user can read it (mode 644)").await;
    assert!(
        stderr.contains("every user can read it (mode 644)"),
        "{stderr}"
    );
    server.stop().await;
    // No key under --stateless: a warning that resume needs this replica.
    let server = HttpServer::start("loop_example", &["--stateless"], &[]).await;
    let stderr = logged(&server, warning).await;
    assert!(stderr.contains(warning), "{stderr}");
    server.stop().await;
}

/// `server`'s stderr once it holds `text` (a log line can follow the
/// serving line by a moment), or after 10 s.
async fn logged(server: &HttpServer, text: &str) -> String {
    for _ in 0..200 {
        let stderr = server.stderr();
        if stderr.contains(text) {
            return stderr;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    server.stderr()
}
