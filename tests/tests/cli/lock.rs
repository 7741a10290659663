//! `mcpgraph lock` against real servers (server-filesystem,
//! server-everything, mcp-server-time) and the purpose-built test server:
//! the lock is stable byte for byte, `--check` passes on an unchanged
//! server and fails on one whose tools changed, pointing at the calls that
//! break, and a server that cannot be listed leaves the lock untouched.

use std::path::{Path, PathBuf};
use std::process::Output;

use mcpgraph_tests::{TempDir, bin_path, counting_dir, filesystem_server_js, repo_root};
use serde_json::Value;

fn mcpgraph(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(bin_path("mcpgraph"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run mcpgraph")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn node() -> String {
    let path = std::env::var_os("PATH").expect("PATH");
    std::env::split_paths(&path)
        .map(|d| d.join("node"))
        .find(|p| p.is_file())
        .expect("node on PATH")
        .display()
        .to_string()
}

fn peer(relative: &str) -> String {
    let path = repo_root().join("peers").join(relative);
    assert!(
        path.is_file(),
        "{} missing: run scripts/install-peers.sh",
        path.display()
    );
    path.display().to_string()
}

/// Writes `graph.yaml` into `dir` and returns its path.
fn write_graph(dir: &Path, servers: &str, nodes: &str) -> PathBuf {
    let graph = format!(
        r#"version: "1.0"
server: {{ name: "locked", version: "0.0.1" }}
mcpServers:
{servers}
tools:
  - name: "t"
    description: "Calls the servers"
    inputSchema: {{ type: object }}
    nodes:
      - {{ id: entry, type: entry, next: n0 }}
{nodes}
      - {{ id: exit, type: exit }}
"#
    );
    let path = dir.join("graph.yaml");
    std::fs::write(&path, graph).expect("write the graph");
    path
}

#[test]
fn real_servers_lock_byte_identically_and_check_clean() {
    let dir = TempDir::new("lock-real");
    let servers = format!(
        "  filesystem: {{ command: {node:?}, args: [{fs:?}, {data:?}] }}\n\
         \x20 everything: {{ command: {node:?}, args: [{everything:?}, \"stdio\"] }}\n\
         \x20 time: {{ command: {time:?}, args: [\"--local-timezone\", \"UTC\"] }}",
        node = node(),
        fs = filesystem_server_js().display().to_string(),
        data = counting_dir().display().to_string(),
        everything = peer("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        time = peer(".venv/bin/mcp-server-time"),
    );
    let nodes = format!(
        "      - {{ id: n0, type: mcp, server: filesystem, tool: list_directory, args: {{ path: {data:?} }}, next: n1 }}\n\
         \x20     - {{ id: n1, type: mcp, server: everything, tool: echo, args: {{ message: hi }}, next: n2 }}\n\
         \x20     - {{ id: n2, type: mcp, server: time, tool: get_current_time, args: {{ timezone: UTC }}, next: exit }}",
        data = counting_dir().display().to_string(),
    );
    let graph = write_graph(dir.path(), &servers, &nodes);
    let before = std::fs::metadata(&graph).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));

    let first = mcpgraph(dir.path(), &["lock", "graph.yaml"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let lock_path = dir.path().join("graph.lock.json");
    let locked = std::fs::read_to_string(&lock_path).expect("the lock was written");
    let lock: Value = serde_json::from_str(&locked).unwrap();
    for (server, tool) in [
        ("filesystem", "list_directory"),
        ("everything", "echo"),
        ("time", "get_current_time"),
    ] {
        let entry = &lock["servers"][server];
        assert!(
            entry["tools"][tool]["inputSchema"].is_object(),
            "{server}: {entry:#}"
        );
        assert!(
            entry["serverInfo"]["name"].is_string(),
            "{server}: {entry:#}"
        );
        assert!(entry["protocolVersion"].is_string(), "{server}: {entry:#}");
    }
    // The graph was touched, so that cargo re-runs the macro.
    assert!(std::fs::metadata(&graph).unwrap().modified().unwrap() > before);

    let second = mcpgraph(dir.path(), &["lock", "graph.yaml"]);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(
        text(&second.stderr).contains("is up to date"),
        "{}",
        text(&second.stderr)
    );
    assert_eq!(std::fs::read_to_string(&lock_path).unwrap(), locked);

    let check = mcpgraph(dir.path(), &["lock", "--check", "--strict", "graph.yaml"]);
    assert!(
        check.status.success(),
        "{}\n{}",
        text(&check.stdout),
        text(&check.stderr)
    );
    assert_eq!(text(&check.stdout), "");
}

#[test]
fn drift_fails_the_check_and_names_the_broken_calls() {
    let dir = TempDir::new("lock-drift");
    let server = env!("CARGO_BIN_EXE_mcpgraph-test-server");
    let servers = format!("  test: {{ command: {server:?} }}");
    let nodes = "      - { id: n0, type: mcp, server: test, tool: text, args: { text: hi }, next: n1 }\n\
                 \x20     - { id: n1, type: mcp, server: test, tool: image, next: exit }";
    write_graph(dir.path(), &servers, nodes);
    let locked = mcpgraph(dir.path(), &["lock", "graph.yaml"]);
    assert!(locked.status.success(), "{}", text(&locked.stderr));
    let lock = std::fs::read_to_string(dir.path().join("graph.lock.json")).unwrap();

    let same = mcpgraph(dir.path(), &["lock", "--check", "graph.yaml"]);
    assert!(same.status.success(), "{}", text(&same.stderr));

    let newer = dir.path().join("newer.json");
    let config =
        serde_json::json!({"mcpServers": {"test": {"command": server, "args": ["--drift"]}}});
    std::fs::write(&newer, config.to_string()).unwrap();
    let check = mcpgraph(
        dir.path(),
        &["lock", "--check", "graph.yaml", "--mcp", "newer.json"],
    );
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));
    let report = text(&check.stdout);
    for line in [
        "server `test`:",
        "! tool `image`: removed (breaks t/n1)",
        "! tool `text`: `lang` is now required (breaks t/n0)",
        "! tool `text`: `text` is now required\n",
        "~ tool `text`: input property `lang` added",
    ] {
        assert!(report.contains(line), "{line:?} not in:\n{report}");
    }
    assert!(
        text(&check.stderr).contains("the lock is stale"),
        "{}",
        text(&check.stderr)
    );

    // A server that cannot start, and an unknown --server, leave the lock
    // as it was and say why.
    let broken = dir.path().join("broken.json");
    let config = serde_json::json!({"mcpServers": {"test": {"command": "/nonexistent/server"}}});
    std::fs::write(&broken, config.to_string()).unwrap();
    let failed = mcpgraph(dir.path(), &["lock", "graph.yaml", "--mcp", "broken.json"]);
    assert_eq!(failed.status.code(), Some(1));
    let stderr = text(&failed.stderr);
    assert!(
        stderr.contains("error: server `test`: ") && stderr.contains("/nonexistent/server"),
        "{stderr}"
    );
    let unknown = mcpgraph(dir.path(), &["lock", "graph.yaml", "--server", "nope"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("the graph has no server `nope` (it has: test)"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("graph.lock.json")).unwrap(),
        lock
    );
}

/// A server that dropped or changed tools no node calls (`image` and
/// `text` under `--drift`; the graph calls only `json_text`): `--check` prints
/// the changes as cosmetic (`~`) and exits 0; `--strict` fails on them.
#[test]
fn drift_of_tools_no_node_calls_is_cosmetic_unless_strict() {
    let dir = TempDir::new("lock-unused");
    let server = env!("CARGO_BIN_EXE_mcpgraph-test-server");
    let servers = format!("  test: {{ command: {server:?} }}");
    let nodes = "      - { id: n0, type: mcp, server: test, tool: json_text, args: { value: 7 }, next: exit }";
    write_graph(dir.path(), &servers, nodes);
    let locked = mcpgraph(dir.path(), &["lock", "graph.yaml"]);
    assert!(locked.status.success(), "{}", text(&locked.stderr));

    let newer = dir.path().join("newer.json");
    let config =
        serde_json::json!({"mcpServers": {"test": {"command": server, "args": ["--drift"]}}});
    std::fs::write(&newer, config.to_string()).unwrap();
    let check = mcpgraph(
        dir.path(),
        &["lock", "--check", "graph.yaml", "--mcp", "newer.json"],
    );
    let report = text(&check.stdout);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{report}\n{}",
        text(&check.stderr)
    );
    for line in [
        "~ tool `image`: removed (no node calls it)\n",
        "~ tool `text`: `lang` is now required (no node calls it)\n",
    ] {
        assert!(report.contains(line), "{line:?} not in:\n{report}");
    }
    assert!(!report.contains('!'), "{report}");
    assert!(
        text(&check.stderr).contains("0 change(s) that matter"),
        "{}",
        text(&check.stderr)
    );

    let strict = mcpgraph(
        dir.path(),
        &[
            "lock",
            "--check",
            "--strict",
            "graph.yaml",
            "--mcp",
            "newer.json",
        ],
    );
    assert_eq!(strict.status.code(), Some(1), "{}", text(&strict.stderr));
    assert!(text(&strict.stderr).contains("the lock is stale"));
}

/// A tool only a `parallel` branch calls (`image`, gone under `--drift`)
/// and one only a `forEach` call calls (`text`, which now requires `lang`)
/// are called all the same: `--check` fails on them, naming the branch
/// and the item call.
#[test]
fn drift_of_a_tool_only_a_branch_or_item_calls_matters() {
    let dir = TempDir::new("lock-fanout");
    let server = env!("CARGO_BIN_EXE_mcpgraph-test-server");
    let servers = format!("  test: {{ command: {server:?} }}");
    let nodes = "      - id: n0\n\
                 \x20       type: parallel\n\
                 \x20       branches:\n\
                 \x20         pic: { server: test, tool: image }\n\
                 \x20         seven: { server: test, tool: json_text, args: { value: 7 } }\n\
                 \x20       next: n1\n\
                 \x20     - id: n1\n\
                 \x20       type: forEach\n\
                 \x20       items: { expr: '[\"hi\"]' }\n\
                 \x20       call: { server: test, tool: text, args: { text: { expr: \"$.item\" } } }\n\
                 \x20       next: exit";
    write_graph(dir.path(), &servers, nodes);
    let locked = mcpgraph(dir.path(), &["lock", "graph.yaml"]);
    assert!(locked.status.success(), "{}", text(&locked.stderr));
    let same = mcpgraph(dir.path(), &["lock", "--check", "graph.yaml"]);
    assert!(same.status.success(), "{}", text(&same.stderr));

    let newer = dir.path().join("newer.json");
    let config =
        serde_json::json!({"mcpServers": {"test": {"command": server, "args": ["--drift"]}}});
    std::fs::write(&newer, config.to_string()).unwrap();
    let check = mcpgraph(
        dir.path(),
        &["lock", "--check", "graph.yaml", "--mcp", "newer.json"],
    );
    let report = text(&check.stdout);
    assert_eq!(
        check.status.code(),
        Some(1),
        "{report}\n{}",
        text(&check.stderr)
    );
    for line in [
        "! tool `image`: removed (breaks t/n0 (branch `pic`))\n",
        "! tool `text`: `lang` is now required (breaks t/n1 (item call))\n",
    ] {
        assert!(report.contains(line), "{line:?} not in:\n{report}");
    }
    assert!(!report.contains("no node calls it"), "{report}");
    let stderr = text(&check.stderr);
    assert!(
        stderr.contains("the lock is stale") && !stderr.contains(" 0 change(s) that matter"),
        "{stderr}"
    );
}

mod drift {
    mcpgraph::mcpgraph!("graphs/drift.yaml");
}

/// A binary built against a lock (`graphs/drift.lock.json`, written by
/// `mcpgraph lock` from the test server) compares its server's tools on
/// the first call: against a server whose `text` tool changed, calls still
/// go through by default, and under `--strict-lock` the calls to `text`
/// fail with the reason while those to unchanged tools go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runtime_drift_and_strict_lock() {
    use mcpgraph::Engine;
    use mcpgraph_tests::{engine_call, test_server_spec};
    use serde_json::json;

    let server = env!("CARGO_BIN_EXE_mcpgraph-test-server");
    assert!(<drift::Server as mcpgraph::Graph>::LOCK.is_some());
    for (args, strict, say_ok) in [
        (&[][..], true, true),
        (&["--drift"][..], false, true),
        (&["--drift"][..], true, false),
    ] {
        let engine = Engine::start::<drift::Server>(test_server_spec(server, 10_000, args), 1)
            .expect("engine starts")
            .with_strict_lock(strict);
        let said = engine_call(&engine, "say", json!({})).await;
        if say_ok {
            assert!(said.is_ok(), "{args:?} strict={strict}: {said:?}");
        } else {
            assert_eq!(
                said.unwrap_err(),
                "node `text`: downstream server `test` tool `text` changed since the graph's lock \
                 (its input schema changed); refused under --strict-lock: re-run `mcpgraph lock` and rebuild"
            );
        }
        let echoed = engine_call(&engine, "echo", json!({})).await;
        assert_eq!(echoed, Ok(json!(7)), "{args:?} strict={strict}");
        engine.shutdown().await;
    }
}

/// A server over streamable HTTP locks like a stdio one (the same client
/// manager reaches it), and the lock records the same tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_locks_too() {
    let server = env!("CARGO_BIN_EXE_mcpgraph-test-server");
    let port = mcpgraph_tests::free_port();
    let _child = mcpgraph_tests::test_server_http(server, port).await;
    let dir = TempDir::new("lock-http");
    let servers =
        format!("  test: {{ type: streamableHttp, url: \"http://127.0.0.1:{port}/mcp\" }}");
    let nodes =
        "      - { id: n0, type: mcp, server: test, tool: text, args: { text: hi }, next: exit }";
    write_graph(dir.path(), &servers, nodes);
    let dir_path = dir.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || mcpgraph(&dir_path, &["lock", "graph.yaml"]))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("graph.lock.json")).unwrap())
            .unwrap();
    let tools = lock["servers"]["test"]["tools"].as_object().expect("tools");
    assert!(
        tools.contains_key("text") && tools.contains_key("hang"),
        "{lock:#}"
    );
}
