//! The pinned peers in `peers/` (install with `scripts/install-peers.sh`)
//! and the purpose-built test server: the filesystem server, the Python and
//! TypeScript SDKs, server-everything, nginx's executable.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use crate::{repo_root, which};

/// Version of `@modelcontextprotocol/server-filesystem` pinned in `peers/`.
pub const FILESYSTEM_SERVER_VERSION: &str = "2026.8.31";

/// `peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`
/// (its package `bin` entry), checking that the pinned version is installed.
pub fn filesystem_server_js() -> PathBuf {
    let pkg = repo_root().join("peers/node_modules/@modelcontextprotocol/server-filesystem");
    let manifest = pkg.join("package.json");
    let text = std::fs::read_to_string(&manifest).unwrap_or_else(|e| {
        panic!(
            "{} not readable ({e}): install the pinned test peers with \
             `scripts/install-peers.sh` (or `npm ci --prefix peers`)",
            manifest.display()
        )
    });
    let v: Value = serde_json::from_str(&text).expect("server-filesystem package.json is JSON");
    assert_eq!(
        v["version"], FILESYSTEM_SERVER_VERSION,
        "peers/ has the wrong server-filesystem version; run scripts/install-peers.sh"
    );
    let bin = match &v["bin"] {
        Value::String(s) => s.clone(),
        Value::Object(m) => m
            .get("mcp-server-filesystem")
            .or_else(|| m.values().next())
            .and_then(Value::as_str)
            .expect("server-filesystem bin entry")
            .to_string(),
        other => panic!("unexpected bin entry in server-filesystem package.json: {other}"),
    };
    installed(pkg.join(bin), "the pinned test peers")
}

/// `file`, failing the test (naming `what` to install, and how) if it is
/// not there.
fn installed(file: PathBuf, what: &str) -> PathBuf {
    assert!(
        file.is_file(),
        "{} missing: install {what} with `scripts/install-peers.sh`",
        file.display()
    );
    file
}

/// The Python of peers/.venv, which has the pinned `mcp` SDK.
pub fn peers_python() -> PathBuf {
    installed(
        repo_root().join("peers/.venv/bin/python"),
        "the pinned Python MCP SDK",
    )
}

/// `node`, with the pinned TypeScript SDK present in peers/node_modules.
pub fn peers_node() -> PathBuf {
    installed(
        repo_root().join("peers/node_modules/@modelcontextprotocol/sdk/package.json"),
        "the pinned TypeScript MCP SDK",
    );
    which("node").expect("`node` not found on PATH (needed by the TypeScript SDK client)")
}

/// `chromium` (Debian's package, on PATH) for the pages the tests open;
/// fails naming the install step.
pub fn chromium_exe() -> PathBuf {
    which("chromium").unwrap_or_else(|| {
        panic!(
            "chromium not found on PATH: install it with `scripts/install-peers.sh` \
             (as root: apt-get install -y chromium)"
        )
    })
}

/// `target/artifacts/<name>` (created): what a test leaves for people to
/// look at, which `.ci/run` keeps after a CI run (`$CARGO_TARGET_DIR`
/// stands for `target`).
pub fn artifacts_dir(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"));
    let dir = target.join("artifacts").join(name);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// `nginx` (PATH, else /usr/sbin/nginx); fails naming the install step.
pub fn nginx_exe() -> PathBuf {
    which("nginx")
        .or_else(|| {
            let p = PathBuf::from("/usr/sbin/nginx");
            p.is_file().then_some(p)
        })
        .unwrap_or_else(|| {
            panic!(
                "nginx not found (PATH or /usr/sbin/nginx): install it with \
                 `scripts/install-peers.sh` (as root: apt-get install -y nginx)"
            )
        })
}

/// `@modelcontextprotocol/server-everything` (pinned in `peers/`) serving
/// `mode` (`sse` or `streamableHttp`) on `127.0.0.1:port`; killed on drop.
pub struct Everything {
    child: tokio::process::Child,
}

impl Everything {
    pub async fn start(mode: &str, port: u16) -> Everything {
        use tokio::io::AsyncBufReadExt;
        const LIMIT: Duration = Duration::from_secs(10);
        let js = installed(
            repo_root()
                .join("peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
            "the pinned test peers",
        );
        let mut child = tokio::process::Command::new("node")
            .arg(&js)
            .arg(mode)
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs");
        let mut lines =
            tokio::io::BufReader::new(child.stderr.take().expect("stderr piped")).lines();
        let ready = tokio::time::timeout(LIMIT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("port") {
                    return line;
                }
            }
            panic!("server-everything {mode} exited before listening");
        })
        .await
        .unwrap_or_else(|_| panic!("server-everything {mode} did not start within {LIMIT:?}"));
        assert!(!ready.contains("Failed"), "{ready}");
        // Keep draining its log so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Everything { child }
    }

    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// The purpose-built test server (`bin`: pass
/// `env!("CARGO_BIN_EXE_mcpgraph-test-server")`) serving streamable HTTP on
/// `127.0.0.1:port/mcp`; ready once the port accepts connections; killed
/// on drop.
pub async fn test_server_http(bin: &str, port: u16) -> tokio::process::Child {
    test_server_http_with(bin, port, &[]).await
}

/// [`test_server_http`] with `flags` before `--http` (such as
/// `--http-busy`).
pub async fn test_server_http_with(bin: &str, port: u16, flags: &[&str]) -> tokio::process::Child {
    const LIMIT: Duration = Duration::from_secs(10);
    let mut child = tokio::process::Command::new(bin)
        .args(flags)
        .args(["--http", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn {bin}: {e}"));
    let deadline = tokio::time::Instant::now() + LIMIT;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the test server exited with {status} before listening on {port}");
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the test server did not listen on {port} within {LIMIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child
}

/// Writes a `--mcp` file that points `file_utils`' `filesystem` server at
/// the test server binary `test_server` with `timeoutMs`; `tag` keeps the
/// files of different tests apart.
pub fn test_server_override(test_server: &str, timeout_ms: u64, tag: &str) -> PathBuf {
    let config = json!({
        "mcpServers": {
            "filesystem": { "command": test_server, "timeoutMs": timeout_ms }
        }
    });
    let file = std::env::temp_dir().join(format!("mcpgraph-{tag}-{}.json", std::process::id()));
    std::fs::write(&file, config.to_string()).expect("write --mcp file");
    file
}
