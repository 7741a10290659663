//! `mcpgraph mcp` (issue 47) driven by the official Python SDK through a whole
//! authoring session on a copy of the file_utils example (a crate made by
//! `mcpgraph new`): a broken graph checked (the error at its line, then
//! explained), fixed, locked against the real filesystem server, an
//! expression and a rule evaluated, a tool run with its trace (and a call
//! that fails), the test cases recorded from the server then replayed
//! without it, the graph drawn, the guide read. Every structured result is
//! validated against its tool's `outputSchema`. A path outside the working
//! directory is refused, and a crate that does not compile comes back as
//! the compiler's diagnostics, the server still serving.
//!
//! A target of its own: scripts/test.sh runs it after the starter check,
//! whose crate has the same manifest and profile in the same target
//! directory, so the session's builds find their dependencies built.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use mcpgraph_runtime::standalone::Sandbox;
use mcpgraph_tests::*;
use serde_json::{Value, json};

/// The scratch working directory, with the crate `fu` in it.
fn workspace() -> PathBuf {
    let work = std::env::temp_dir().join(format!("mcpgraph-authoring-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let out = std::process::Command::new(bin_path("mcpgraph"))
        .arg("new")
        .arg(work.join("fu"))
        .arg("--graph")
        .arg(example_yaml("file_utils"))
        .arg("--own-target")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::copy(
        example_dir("file_utils").join("file_utils.test.yaml"),
        work.join("fu/file_utils.test.yaml"),
    )
    .unwrap();
    // The profile of scripts/starter-check.sh's crate, in the same target
    // directory: the two builds share every dependency.
    std::fs::create_dir_all(work.join("fu/.cargo")).unwrap();
    std::fs::write(
        work.join("fu/.cargo/config.toml"),
        "[profile.dev]\ndebug = \"line-tables-only\"\n[profile.dev.package.\"*\"]\ndebug = false\n[profile.dev.package.jsonata-core]\nopt-level = 2\n[profile.dev.package.datalogic-rs]\nopt-level = 2\n",
    )
    .unwrap();
    let node = which("node").expect("node on PATH");
    std::fs::write(
        work.join("servers.json"),
        json!({ "mcpServers": { "filesystem": {
            "command": node, "args": [filesystem_server_js(), counting_dir()] } } })
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        work.parent().unwrap().join("outside.yaml"),
        "version: '1'\n",
    )
    .unwrap();
    work
}

/// The workspace's target directory (where the tests' binaries are).
fn target_dir() -> PathBuf {
    let cli = bin_path("mcpgraph");
    cli.parent().and_then(Path::parent).unwrap().to_owned()
}

/// Runs the session's `steps` through the Python SDK against `mcpgraph
/// mcp` started in `work`; the printed lines.
async fn session(work: &Path, steps: &Value) -> Vec<Value> {
    let mut cmd = tokio::process::Command::new(peers_python());
    cmd.arg(repo_root().join("tests/clients/python_session.py"))
        .arg("--steps")
        .arg(steps.to_string())
        .arg("--cwd")
        .arg(work)
        .arg("--stdio")
        .arg(bin_path("mcpgraph"))
        .arg("mcp")
        .kill_on_drop(true);
    // The environment of a shell, not of a test: `cargo test` sets
    // `LD_LIBRARY_PATH` and `CARGO_*` variables that build scripts track
    // (ring's), and rustup sets `RUSTUP_TOOLCHAIN` (this repository's
    // pinned toolchain, where a crate outside it, as the starter check's,
    // gets the default one). With them the crate's builds would rebuild
    // what the starter check built, and it what they built.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let keep = ["CARGO_HOME", "CARGO_INCREMENTAL"];
        let tracked = name == "LD_LIBRARY_PATH"
            || name.starts_with("RUSTUP_TOOLCHAIN")
            || name == "RUST_RECURSION_COUNT";
        if tracked || (name.starts_with("CARGO") && !keep.contains(&name.as_ref())) {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd.env("CARGO_TARGET_DIR", target_dir());
    // Two builds of a new crate (its dependencies are shared with the
    // starter check's) and the filesystem server's start-ups.
    let out = tokio::time::timeout(std::time::Duration::from_secs(900), cmd.output())
        .await
        .expect("the session finished within 15 minutes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "session failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for line in lines.iter().filter(|l| l["seconds"].is_number()) {
        eprintln!(
            "step {:>2} {:<20} {:>6.1} s",
            line["step"],
            line["name"]
                .as_str()
                .or(line["uri"].as_str())
                .unwrap_or("write"),
            line["seconds"].as_f64().unwrap_or_default()
        );
    }
    lines
}

/// The line of step `n`, checked to be a call whose structured result
/// matches its output schema; its structured content.
fn structured(lines: &[Value], n: usize) -> &Value {
    let line = lines
        .iter()
        .find(|l| l["step"] == n)
        .unwrap_or_else(|| panic!("no line for step {n}"));
    assert_eq!(line["schemaErrors"], json!([]), "step {n}: {line:#}");
    assert_ne!(line["result"]["isError"], true, "step {n}: {line:#}");
    &line["result"]["structuredContent"]
}

/// The text of a tool error at step `n`.
fn tool_error(lines: &[Value], n: usize) -> String {
    let line = lines.iter().find(|l| l["step"] == n).unwrap();
    assert_eq!(line["result"]["isError"], true, "step {n}: {line:#}");
    line["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_writes_checks_locks_runs_tests_and_draws_a_graph() {
    let work = workspace();
    let graph = "fu/file_utils.yaml";
    let good = std::fs::read_to_string(work.join(graph)).unwrap();
    // A typo in the first tool's last `next`: `exti`.
    let broken = good.replacen("next: \"exit\"", "next: \"exti\"", 1);
    let typo_line = broken.lines().position(|l| l.contains("\"exti\"")).unwrap() + 1;
    let main_rs = std::fs::read_to_string(work.join("fu/src/main.rs")).unwrap();
    let counting = counting_dir().display().to_string();
    let steps = json!([
        { "write": graph, "text": broken },
        { "call": "check_graph", "arguments": { "path": graph } },
        { "write": graph, "text": good },
        { "call": "check_graph", "arguments": { "path": graph } },
        { "call": "lock_graph", "arguments": { "path": graph, "mcp": "servers.json" } },
        { "call": "lock_graph", "arguments": { "path": graph, "mcp": "servers.json", "check": true } },
        { "call": "list_server_tools", "arguments": { "path": graph } },
        { "call": "eval_jsonata", "arguments": {
            "expression": "{ \"count\": $count($split($.list.content, \"\\n\")), \"tiny\": 0.000001 }",
            "input": { "list": { "content": "a\nb\nc" } } } },
        { "call": "eval_jsonata", "arguments": { "expression": "$.a +\n  (1", "input": {} } },
        { "call": "eval_json_logic", "arguments": {
            "rule": { "and": [{ ">": [{ "var": "entry.n" }, 3] }, { "in": ["x", { "var": "entry.s" }] }] },
            "data": { "entry": { "n": 5, "s": "xyz" } } } },
        { "call": "run_tool", "arguments": {
            "path": graph, "tool": "count_files", "arguments": { "directory": counting },
            "trace": true, "mcp": "servers.json" } },
        { "call": "run_tool", "arguments": {
            "path": "fu", "tool": "count_files", "arguments": { "directory": "/" },
            "trace": true, "mcp": "servers.json" } },
        { "call": "test_graph", "arguments": { "path": graph, "record": true, "mcp": "servers.json" } },
        { "call": "test_graph", "arguments": { "path": graph } },
        { "call": "draw_graph", "arguments": { "path": graph } },
        { "read": "mcpgraph://docs/AUTHORING.md" },
        { "call": "check_graph", "arguments": { "path": "../outside.yaml" } },
        { "write": "fu/src/main.rs", "text": format!("{main_rs}\nfn broken() -> u32 {{ \"text\" }}\n") },
        { "call": "run_tool", "arguments": { "path": "fu", "tool": "count_files", "arguments": {} } },
        { "write": "fu/src/main.rs", "text": main_rs },
        { "call": "check_graph", "arguments": { "path": graph } },
        { "call": "explain_diagnostic", "arguments": { "code": "unknown_node" } },
        { "call": "explain_diagnostic", "arguments": { "code": "unknwn_node" } },
    ]);
    let lines = session(&work, &steps).await;
    assert_eq!(lines.last().unwrap()["event"], "done", "{lines:#?}");

    // Every tool, each with an output schema.
    let tools = &lines[0]["tools"];
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "check_graph",
            "explain_diagnostic",
            "lock_graph",
            "list_server_tools",
            "eval_jsonata",
            "eval_json_logic",
            "run_tool",
            "test_graph",
            "draw_graph"
        ]
    );
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["outputSchema"]["type"] == "object")
    );
    let resources: Vec<&str> = lines[1]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    for uri in [
        "mcpgraph://docs/AUTHORING.md",
        "mcpgraph://docs/FORMAT.md",
        "mcpgraph://docs/TESTING.md",
        "mcpgraph://schema/mcpgraph.schema.json",
        "mcpgraph://examples/file_utils/file_utils.yaml",
    ] {
        assert!(resources.contains(&uri), "{uri} not in {resources:?}");
    }

    // The typo, at its line, with its code and the fix.
    let checked = structured(&lines, 1);
    assert_eq!(checked["ok"], false);
    let typo = checked["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["severity"] == "error")
        .unwrap();
    assert_eq!(typo["file"], graph, "{typo:#}");
    assert_eq!(typo["line"], typo_line, "{typo:#}");
    assert!(
        typo["message"].as_str().unwrap().contains("exti"),
        "{typo:#}"
    );
    assert!(
        typo["help"].as_str().unwrap().contains("`exit`"),
        "{typo:#}"
    );
    assert_eq!(typo["code"], "unknown_node", "{typo:#}");
    let explained = structured(&lines, 21);
    assert_eq!(explained["code"], "unknown_node");
    assert!(explained["example"].as_str().unwrap().contains("nodes:"));
    assert!(!explained["fix"].as_str().unwrap().is_empty());
    assert!(tool_error(&lines, 22).contains("did you mean `unknown_node`?"));
    assert_eq!(structured(&lines, 3)["ok"], true);

    // Locked, then checked against the servers: nothing changed.
    let locked = structured(&lines, 4);
    assert_eq!(
        (&locked["ok"], &locked["wrote"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(locked["lock"], "fu/file_utils.lock.json");
    assert!(work.join("fu/file_utils.lock.json").is_file());
    let check = structured(&lines, 5);
    assert_eq!(
        (&check["stale"], &check["changes"]),
        (&json!(false), &json!([]))
    );
    let listed = structured(&lines, 6);
    assert_eq!(listed["servers"][0]["source"], "lock");
    assert!(
        listed["servers"][0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "list_directory")
    );

    // The expression as the server's transform node gives it.
    let evaluated = structured(&lines, 7);
    let input = json!({ "list": { "content": "a\nb\nc" } });
    let expression = steps[7]["arguments"]["expression"]
        .as_str()
        .unwrap()
        .to_owned();
    // The evaluator runs a runtime of its own: off the test's.
    let expected =
        tokio::task::spawn_blocking(move || Sandbox::default().transform(&expression, &input))
            .await
            .unwrap();
    assert_eq!(evaluated["result"], expected.value.unwrap().unwrap());
    assert_eq!(evaluated["text"], expected.text.unwrap());
    assert_eq!(evaluated["text"], r#"{"count":3,"tiny":0.000001}"#);
    let syntax = structured(&lines, 8);
    assert_eq!(syntax["ok"], false);
    assert_eq!(
        (&syntax["error"]["line"], &syntax["error"]["column"]),
        (&json!(2), &json!(5))
    );
    let rule = structured(&lines, 9);
    assert_eq!(
        (&rule["result"], &rule["decision"]),
        (&json!(true), &json!(true))
    );

    // A call with its trace: entry, the server's call, the count, exit.
    let ran = structured(&lines, 10);
    assert_eq!(
        (&ran["ok"], &ran["result"]),
        (&json!(true), &json!({ "count": 7 })),
        "{ran:#}"
    );
    let nodes: Vec<&str> = ran["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["node"].as_str().unwrap())
        .collect();
    assert_eq!(
        nodes,
        ["entry", "list_directory_node", "count_files_node", "exit"]
    );
    assert!(ran["trace"][1]["output"].is_object(), "{ran:#}");
    assert_eq!(
        ran["trace"][1]["input"],
        json!({ "path": counting }),
        "{ran:#}"
    );
    // A call the server refuses: the error and the node it failed at.
    let refused = structured(&lines, 11);
    assert_eq!(refused["ok"], false);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("list_directory_node"),
        "{refused:#}"
    );
    let last = refused["trace"].as_array().unwrap().last().unwrap();
    assert_eq!(last["node"], "list_directory_node");
    assert!(last["error"].is_string(), "{refused:#}");

    // Recorded from the server, then replayed without it.
    for step in [12, 13] {
        let tested = structured(&lines, step);
        assert_eq!(tested["ok"], true, "step {step}: {tested:#}");
        assert!(tested["passed"].as_u64().unwrap() >= 3, "{tested:#}");
        assert!(tested["coverage"]["percent"].as_f64().unwrap() > 50.0);
    }
    assert!(work.join("fu/file_utils.cassette.json").is_file());

    // The picture: an SVG naming every node, and the Mermaid text.
    let drawn = lines.iter().find(|l| l["step"] == 14).unwrap();
    assert_eq!(drawn["schemaErrors"], json!([]));
    let content = drawn["result"]["content"].as_array().unwrap();
    assert_eq!(content[0]["type"], "image");
    assert_eq!(content[0]["mimeType"], "image/svg+xml");
    let svg = base64::engine::general_purpose::STANDARD
        .decode(content[0]["data"].as_str().unwrap())
        .unwrap();
    let svg = String::from_utf8(svg).unwrap();
    for node in ["list_directory_node", "count_files_node", "sum_sizes_node"] {
        assert!(svg.contains(node), "{node} not in the SVG");
    }
    assert!(
        content[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("flowchart")
    );

    let guide = lines.iter().find(|l| l["step"] == 15).unwrap();
    assert!(guide["text"].as_str().unwrap().contains("check_graph"));
    assert!(tool_error(&lines, 16).contains("outside the working directory"));

    // A crate that does not compile: the compiler's error at its place.
    let failed = structured(&lines, 18);
    assert_eq!(
        (&failed["ok"], &failed["built"]),
        (&json!(false), &json!(false))
    );
    let error = failed["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["severity"] == "error")
        .unwrap();
    assert_eq!(
        (&error["code"], &error["file"]),
        (&json!("E0308"), &json!("src/main.rs")),
        "{error:#}"
    );
    // And the server goes on.
    assert_eq!(structured(&lines, 20)["ok"], true);
    let _ = std::fs::remove_dir_all(&work);
}

/// Over streamable HTTP (`--http`) the same tools answer a client of the
/// Python SDK; an address beyond loopback is refused before anything is
/// served.
#[tokio::test(flavor = "multi_thread")]
async fn serves_streamable_http_on_loopback_only() {
    let work = std::env::temp_dir().join(format!("mcpgraph-authoring-http-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    std::fs::copy(example_yaml("test_minimal"), work.join("g.yaml")).unwrap();
    let mut cmd = tokio::process::Command::new(bin_path("mcpgraph"));
    cmd.args(["mcp", "--http", "127.0.0.1:0"])
        .current_dir(&work);
    let server = HttpServer::spawn("mcpgraph mcp", cmd, &[]).await;
    let target = Target::Http {
        url: server.url(),
        headers: vec![],
    };
    let calls = json!([
        { "name": "eval_jsonata", "arguments": { "expression": "$.a * 2", "input": { "a": 21 } } },
        { "name": "check_graph", "arguments": { "path": "g.yaml" } },
    ]);
    let run = run_sdk_client(Sdk::Python, &target, &calls).await;
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(run.tools().len(), 9, "{run:#?}");
    let results: Vec<&Value> = run
        .calls()
        .iter()
        .map(|c| &c["result"]["structuredContent"])
        .collect();
    assert_eq!(results[0]["result"], 42, "{run:#?}");
    assert_eq!(results[1]["ok"], true, "{run:#?}");

    let refused = std::process::Command::new(bin_path("mcpgraph"))
        .args(["mcp", "--http", "0.0.0.0:0"])
        .current_dir(&work)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("loopback addresses only"), "{said}");
    let _ = std::fs::remove_dir_all(&work);
}
