//! Real downstream servers on the Python MCP SDK, pinned in
//! peers/requirements.txt: `mcp-server-time` and `mcp-server-git`, called
//! over stdio by one graph (`graphs/python_servers.yaml`) on a git
//! repository made for the test. Their tool errors fail the call naming
//! the node; the graph server and both connections go on serving.

use std::path::Path;

use mcpgraph::Engine;
use mcpgraph::{ServerSpec, TransportSpec};
use mcpgraph_tests::{TempDir, engine_call, repo_root};
use serde_json::{Value, json};

mod report {
    mcpgraph::mcpgraph!("graphs/python_servers.yaml");
}

fn venv_bin(name: &str) -> String {
    let path = repo_root().join("peers/.venv/bin").join(name);
    assert!(
        path.is_file(),
        "{} missing: run scripts/install-peers.sh",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

fn stdio(name: &str, command: String, args: &[&str]) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        transport: TransportSpec::Stdio {
            command,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            cwd: None,
            env: Vec::new(),
            inherit_env: Vec::new(),
        },
        timeout_ms: Some(30_000),
        ping_timeout_ms: None,
        auth: None,
    }
}

/// `git` in `dir` with a fixed identity; fails the test on error.
fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository on branch `trunk` with commits `first`, `second`,
/// `third` and an untracked `notes.txt`.
fn repository() -> TempDir {
    let repo = TempDir::new("python-servers-repo");
    let dir = repo.path();
    git(dir, &["init", "-q", "-b", "trunk"]);
    for message in ["first", "second", "third"] {
        std::fs::write(dir.join("file.txt"), message).unwrap();
        git(dir, &["add", "file.txt"]);
        git(dir, &["commit", "-q", "-m", message]);
    }
    std::fs::write(dir.join("notes.txt"), "untracked").unwrap();
    repo
}

async fn report(e: &Engine, repo: &Path, timezone: &str) -> Result<Value, String> {
    let args = json!({"repo_path": repo, "timezone": timezone, "count": 2});
    engine_call(e, "repo_report", args).await
}

#[tokio::test(flavor = "multi_thread")]
async fn time_and_git_servers_in_one_graph() {
    let repo = repository();
    let specs = vec![
        stdio(
            "time",
            venv_bin("mcp-server-time"),
            &["--local-timezone", "UTC"],
        ),
        stdio("git", venv_bin("mcp-server-git"), &[]),
    ];
    let e = Engine::start::<report::Server>(specs, 2).unwrap();

    let out = report(&e, repo.path(), "Asia/Tokyo").await.unwrap();
    // The time server's JSON text, converted to an object.
    assert_eq!(out["now"]["timezone"], "Asia/Tokyo", "{out:#}");
    let datetime = out["now"]["datetime"].as_str().unwrap_or_default();
    assert!(datetime.ends_with("+09:00"), "{out:#}");
    // The git server's plain text, kept as a string.
    let status = out["status"].as_str().unwrap_or_default();
    assert!(
        status.contains("On branch trunk") && status.contains("notes.txt"),
        "{status}"
    );
    let log = out["log"].as_str().unwrap_or_default();
    assert!(
        log.contains("Message: third") && log.contains("Message: second"),
        "{log}"
    );
    assert!(!log.contains("Message: first"), "max_count 2: {log}");

    // A tool error of either server fails the call at its node...
    let err = report(&e, repo.path(), "Mars/Olympus_Mons")
        .await
        .unwrap_err();
    assert!(
        err.contains("node `now`") && err.contains("Mars/Olympus_Mons"),
        "{err}"
    );
    let not_a_repo = TempDir::new("python-servers-not-a-repo");
    let err = report(&e, not_a_repo.path(), "UTC").await.unwrap_err();
    assert!(
        err.contains("node `status`") && err.contains("`git`/`git_status`"),
        "{err}"
    );
    // ...and both connections go on serving.
    let again = report(&e, repo.path(), "UTC").await.unwrap();
    assert_eq!(again["now"]["timezone"], "UTC");
    assert_eq!(again["log"], out["log"]);
    e.shutdown().await;
}
