//! A task that calls a downstream server as its caller (`grant:
//! token_exchange`) outlives its replica with the caller's token: two
//! replicas of the conformance fixture served with inbound OAuth (a real
//! oidc-provider) share one real Redis and one state key file behind nginx;
//! their `test` server is a protected one (graphs/protected_items.yaml
//! compiled, taking only tokens meant for it) whose `read_slowly` is slow.
//! A caller's task of twenty such calls starts on A; A is killed (SIGKILL)
//! half-way; B takes the task over and exchanges the caller's token, which
//! it read from the sealed journal, for the rest. No key or value in Redis
//! holds the caller's token, a token exchanged for it, or the exchanging
//! client's secret.

use std::time::{Duration, Instant};

use mcpgraph_tests::oidc::{Protected, Provider, ProviderConfig};
use mcpgraph_tests::*;
use serde_json::{Value, json};

use super::task_takeover::{CALL_MS, logged, running_again};
use super::tasks::{Client, shared_state_keys};

const FIXTURE: &str = env!("CARGO_BIN_EXE_conformance_fixture");
const PROTECTED: &str = env!("CARGO_BIN_EXE_protected_items_fixture");
const TEST_SERVER: &str = env!("CARGO_BIN_EXE_mcpgraph-test-server");
const SCOPE: &str = "mcp:tools";
const EXCHANGER_SECRET: &str = "exchanger-secret";

/// The replicas' one public URL (behind the balancer): the audience of the
/// caller's tokens, which both accept.
const FRONT: &str = "https://graph.example/mcp";

/// A replica: the conformance fixture, its `test` server the protected one
/// at `back` (with the caller's identity, by token exchange at
/// `provider`), serving stateless HTTP with inbound OAuth and `extra`.
async fn replica(
    tag: &str,
    provider: &Provider,
    mcp: &std::path::Path,
    extra: &[&str],
) -> HttpServer {
    let flags = [
        "--stateless",
        "--oauth-issuer",
        &provider.issuer,
        "--oauth-resource",
        FRONT,
        "--oauth-scopes",
        SCOPE,
    ];
    let mut cmd = tokio::process::Command::new(FIXTURE);
    cmd.arg("--mcp")
        .arg(mcp)
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(flags)
        .args(extra)
        .env("EXCHANGER_SECRET", EXCHANGER_SECRET)
        .kill_on_drop(true);
    let server = HttpServer::spawn("conformance_fixture", cmd, extra).await;
    eprintln!("replica {tag} at {}", server.addr);
    server
}

/// Every key of the Redis database at `url`, with its name and all its
/// value's bytes (whatever its type).
fn stored(url: &str) -> Vec<(String, Vec<u8>)> {
    fn flatten(value: &::redis::Value, out: &mut Vec<u8>) {
        match value {
            ::redis::Value::BulkString(bytes) => out.extend_from_slice(bytes),
            ::redis::Value::SimpleString(text) => out.extend_from_slice(text.as_bytes()),
            ::redis::Value::Array(values) | ::redis::Value::Set(values) => {
                values.iter().for_each(|v| flatten(v, out));
            }
            ::redis::Value::Map(pairs) => pairs.iter().for_each(|(k, v)| {
                flatten(k, out);
                flatten(v, out);
            }),
            other => out.extend_from_slice(format!("{other:?}").as_bytes()),
        }
        out.push(b'\n');
    }
    let mut redis = ::redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .expect("a plain connection to the test's Redis");
    let keys: Vec<String> = ::redis::cmd("KEYS").arg("*").query(&mut redis).unwrap();
    keys.into_iter()
        .map(|key| {
            let kind: String = ::redis::cmd("TYPE").arg(&key).query(&mut redis).unwrap();
            let read: &[&str] = match kind.as_str() {
                "string" => &["GET"],
                "hash" => &["HGETALL"],
                "list" => &["LRANGE", "0", "-1"],
                "set" => &["SMEMBERS"],
                "zset" => &["ZRANGE", "0", "-1", "WITHSCORES"],
                "stream" => &["XRANGE", "-", "+"],
                "none" => return (key, Vec::new()), // gone meanwhile
                other => panic!("key {key}: a {other} the test cannot read"),
            };
            let mut cmd = ::redis::cmd(read[0]);
            cmd.arg(&key);
            for arg in &read[1..] {
                cmd.arg(*arg);
            }
            let value: ::redis::Value = cmd.query(&mut redis).unwrap();
            let mut bytes = key.as_bytes().to_vec();
            bytes.push(b'\n');
            flatten(&value, &mut bytes);
            (key, bytes)
        })
        .collect()
}

/// A token exchanged at `provider` for `caller`'s, meant for `resource`:
/// what a replica gets (another `jti` and signature, the same header and
/// first claims).
async fn exchange(provider: &Provider, caller: &str, resource: &str) -> String {
    let form = [
        (
            "grant_type",
            "urn:ietf:params:oauth:grant-type:token-exchange",
        ),
        ("subject_token", caller),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:access_token",
        ),
        ("resource", resource),
        ("scope", SCOPE),
        ("client_id", "exchanger"),
        ("client_secret", EXCHANGER_SECRET),
    ];
    let r = provider.token_request(&form, None).await;
    assert_eq!(r.status, 200, "token exchange: {r:?}");
    let v: Value = serde_json::from_str(&r.body).expect("token response JSON");
    v["access_token"].as_str().expect("access_token").to_owned()
}

/// The caller's access token survives its task's takeover, and the task
/// store never holds it in the clear: after A is killed, B exchanges the
/// caller's token (the provider logs an exchange for `sub=full` after the
/// kill) and makes the remaining calls, which the protected server takes
/// only with a token exchanged for the caller's (without it B's calls
/// would fail: the graph's own identity is never used in its place), and
/// the task completes with all twenty items, no tool error. Every key and
/// value in Redis is then read back: none contains the caller's token or
/// any part of it, the header and leading claims of the tokens exchanged
/// for it, or the exchanging client's secret.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_taken_over_calls_on_with_the_callers_token() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let back_port = free_port();
    let back = format!("http://127.0.0.1:{back_port}/mcp");
    let provider = Provider::start(ProviderConfig {
        resources: vec![FRONT.to_owned(), back.clone()],
        scopes: vec![SCOPE.into()],
        ..ProviderConfig::default()
    })
    .await;

    // The protected server, its own `test` server the built test server.
    let backend = dir.path().join("backend.json");
    let servers = json!({ "mcpServers": { "test": { "command": TEST_SERVER } } });
    std::fs::write(&backend, servers.to_string()).unwrap();
    let _protected = Protected::start_with(
        std::path::Path::new(PROTECTED),
        &[std::ffi::OsStr::new("--mcp"), backend.as_os_str()],
        &provider,
        back_port,
        SCOPE,
    )
    .await;

    // Two replicas whose `test` server is the protected one, called with
    // the caller's identity.
    let mcp = dir.path().join("mcp.json");
    let entry = json!({"mcpServers": {"test": {"type": "http", "url": back,
        "auth": {"grant": "token_exchange", "issuer": provider.issuer, "clientId": "exchanger",
                 "clientSecret": "${EXCHANGER_SECRET}", "scopes": [SCOPE]}}}});
    std::fs::write(&mcp, entry.to_string()).unwrap();
    let keys = shared_state_keys(dir.path());
    let store = redis.url(2);
    let extra = [
        "--task-store",
        store.as_str(),
        "--state-key-file",
        keys.to_str().unwrap(),
    ];
    let a = replica("a", &provider, &mcp, &extra).await;
    let b = replica("b", &provider, &mcp, &extra).await;
    let upstreams = [a.addr, b.addr];
    let nginx = Nginx::start("task-exchange", |_, port| {
        super::replicas::nginx_servers(port, &upstreams)
    })
    .await;
    let nginx_addr = std::net::SocketAddr::from(([127, 0, 0, 1], nginx.port()));

    // The caller (client `full`): a token meant for the replicas.
    let caller = provider.token("full", FRONT, SCOPE).await;
    let mut on_a = Client::new(&a, true, Some(&caller));
    let mut via_nginx = Client::at(nginx_addr, true, Some(&caller));
    let log = dir.path().join("calls.log");
    let id = on_a
        .start(
            "read_items",
            json!({ "log": log.to_str().unwrap(), "ms": CALL_MS }),
        )
        .await;
    let end = Instant::now() + Duration::from_secs(20);
    while logged(&log).len() < 6 {
        assert!(
            Instant::now() < end,
            "the calls did not start: {:?}\nA:\n{}",
            on_a.get(&id).await,
            a.stderr()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A exchanged the caller's token once, and keeps what it got.
    let exchanged = format!("exchanged sub=full for resource={back}");
    let before = provider.stderr().matches(&exchanged).count();
    assert_eq!(before, 1, "{}", provider.stderr());

    drop(a); // SIGKILL (kill_on_drop)
    let killed = Instant::now();
    let made = logged(&log).len();
    // Running again on B: a call A did not make, through nginx all along.
    running_again(&mut via_nginx, &id, &log, killed, "token exchange").await;
    eprintln!("running on B {:?} after A was killed", killed.elapsed());
    let task = via_nginx
        .wait_for(&id, "completed", Duration::from_secs(20))
        .await;
    eprintln!("completed on B {:?} after A was killed", killed.elapsed());

    // All twenty items, no tool error: B's calls after the kill went as
    // the caller.
    let result = &task["result"];
    assert_ne!(result["isError"], json!(true), "{task}\nB:\n{}", b.stderr());
    let text = result["content"][0]["text"].as_str().unwrap_or("null");
    let items: Vec<u64> = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .map(|a| a.iter().filter_map(|v| v["item"].as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(items, (1..=20).collect::<Vec<u64>>(), "{task}");
    let log = logged(&log);
    assert!(log.len() > made, "B made no call: {log:?}");
    let after = provider.stderr().matches(&exchanged).count();
    assert!(
        after > before,
        "B did not exchange the caller's token:\n{}",
        provider.stderr()
    );

    // Nothing in the store is a token or the client's secret in the
    // clear. The tokens exchanged for the caller's: one more exchange shows
    // what all share (the header, and the claims before `iat`, whole
    // base64 groups of them).
    let sample = exchange(&provider, &caller, &back).await;
    let parts: Vec<&str> = sample.split('.').collect();
    let claims = {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(parts[1])
            .expect("the claims are base64url")
    };
    let before_iat = String::from_utf8_lossy(&claims)
        .find(",\"iat\":")
        .unwrap_or_else(|| panic!("no iat: {}", String::from_utf8_lossy(&claims)));
    let shared_claims = parts[1][..before_iat / 3 * 4].to_owned();
    assert!(shared_claims.len() > 40, "{sample}");
    let mut secrets: Vec<(&str, String)> = caller
        .split('.')
        .map(|s| ("a segment of the caller's token", s.to_owned()))
        .collect();
    secrets.push(("the exchanged tokens' header", parts[0].to_owned()));
    secrets.push(("the exchanged tokens' first claims", shared_claims));
    secrets.push((
        "the exchanging client's secret",
        EXCHANGER_SECRET.to_owned(),
    ));
    let stored = stored(&store);
    let journal = format!("mcpgraph:task:{{{id}}}:journal");
    assert!(
        stored
            .iter()
            .any(|(key, bytes)| key == &journal
                && String::from_utf8_lossy(bytes).contains("\"sealed\"")),
        "the task's sealed journal is not in the store: {:?}",
        stored.iter().map(|(k, _)| k).collect::<Vec<_>>()
    );
    for (key, bytes) in &stored {
        let text = String::from_utf8_lossy(bytes);
        for (what, secret) in &secrets {
            assert!(
                !text.contains(secret.as_str()),
                "{what} is in {key}: {text}"
            );
        }
    }
    drop(b);
}
