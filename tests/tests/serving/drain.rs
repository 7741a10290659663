//! The drain (issue 27): after the first SIGTERM no new call is admitted,
//! over kept-alive HTTP connections (over stdio: shutdown.rs), so a steady load cannot
//! keep the drain from emptying; the calls already running finish; every
//! response after the signal says `Connection: close`; a second signal
//! ends the process at once.

use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::{Value, json};

use super::keep_alive::{KeepAlive, says_close};
use super::shutdown::{count_of, slow_override, wait_child};

/// Clients calling without a pause, each over its own kept-alive
/// connection and session.
const CLIENTS: usize = 4;
/// How long each downstream call takes.
const CALL_MS: u64 = 1000;
/// The drain the server is given: far longer than a call.
const DRAIN_SECS: u64 = 20;
/// Time after the signal within which the server must be gone: the calls
/// running at the signal end within [`CALL_MS`], so it is far under
/// [`DRAIN_SECS`], which a drain that never empties would take.
const EXIT_LIMIT: Duration = Duration::from_secs(8);

/// What one call on a kept-alive connection came to.
#[derive(Debug)]
struct Call {
    sent: Instant,
    answered: Instant,
    /// The JSON-RPC answer, or why there was none.
    answer: Result<Value, String>,
    close: bool,
}

fn count_body(id: u64) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "count_files", "arguments": { "directory": "/anywhere" } }
    })
    .to_string()
}

/// Calls `count_files` on `connection` in session `sid` until the answer
/// is not a result (a refusal, a closed connection) or `stop` passes.
fn call_in_a_loop(mut connection: KeepAlive, sid: &str, stop: Instant) -> Vec<Call> {
    let mut calls = Vec::new();
    let headers = mcp_post_headers(&[("Mcp-Session-Id", sid)]);
    for id in 100.. {
        let sent = Instant::now();
        let response = connection.request("POST", "/mcp", &headers, Some(&count_body(id)));
        let answered = Instant::now();
        let (answer, close) = match response {
            Ok(r) => {
                let close = says_close(&r);
                let body = String::from_utf8_lossy(&r.body);
                let answer = body
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                    .find(|m| m["id"] == id)
                    .ok_or_else(|| format!("no answer to {id}: {} {body}", r.start_line));
                (answer, close)
            }
            Err(e) => (Err(e), false),
        };
        let result = answer.as_ref().is_ok_and(|a| a.get("result").is_some());
        calls.push(Call {
            sent,
            answered,
            answer,
            close,
        });
        if !result || Instant::now() > stop {
            break;
        }
    }
    calls
}

/// SIGTERM while four clients call without a pause over kept-alive
/// connections: the calls running at the signal complete with their
/// results, the next ones are refused at once (a JSON-RPC error saying the
/// server is shutting down, in a response with `Connection: close`), and
/// the server exits 0 as soon as the running calls are done, long before
/// `--drain-secs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_under_steady_load_refuses_new_calls() {
    let tmp = TempDir::new("drain-load");
    let tag = tmp.path().join("tag");
    let mcp = slow_override(tmp.path(), CALL_MS, &tag);
    let drain = DRAIN_SECS.to_string();
    let mut server =
        HttpServer::start_with_mcp("file_utils", &mcp, &["--drain-secs", &drain]).await;
    let addr = server.addr;
    let mut sessions = Vec::new();
    for _ in 0..CLIENTS {
        sessions.push(open_session(addr).await);
    }
    // Start the downstream child before the load.
    let warm = post_mcp(addr, &[("Mcp-Session-Id", &sessions[0])], &count_body(2)).await;
    assert!(warm.body.contains("\"count\":3"), "{warm:?}");
    wait_child(&tag.to_string_lossy()).await;

    let stop = Instant::now() + Duration::from_secs(30);
    let mut clients = Vec::new();
    for (c, sid) in sessions.into_iter().enumerate() {
        let connection = KeepAlive::connect(addr, None).await.expect("connect");
        // Staggered, so that some call is always running.
        let offset = Duration::from_millis(CALL_MS * c as u64 / CLIENTS as u64);
        clients.push(std::thread::spawn(move || {
            std::thread::sleep(offset);
            call_in_a_loop(connection, &sid, stop)
        }));
    }
    // Steady load: every client is on its second or third call.
    tokio::time::sleep(Duration::from_millis(2 * CALL_MS + CALL_MS / 2)).await;
    server.signal("TERM");
    let signalled = Instant::now();
    let status = server.wait_exit(EXIT_LIMIT).await;
    let took = signalled.elapsed();
    assert!(
        status.is_some_and(|s| s.success()),
        "with {CLIENTS} clients calling over kept-alive connections, the server should exit 0 \
         once the calls running at SIGTERM are done (about {CALL_MS} ms), not after \
         --drain-secs {DRAIN_SECS}; after {took:?}: {status:?}\nstderr:\n{}",
        server.stderr()
    );
    let calls: Vec<Vec<Call>> = clients
        .into_iter()
        .map(|c| c.join().expect("a client thread"))
        .collect();

    let mut completed_at_signal = 0;
    let mut refused = 0;
    for (c, calls) in calls.iter().enumerate() {
        for call in calls {
            let result = call
                .answer
                .as_ref()
                .ok()
                .filter(|a| a.get("result").is_some());
            if call.sent < signalled && call.answered > signalled {
                // In flight at the signal: it must complete.
                let answer = result.unwrap_or_else(|| {
                    panic!("client {c}: a call in flight at SIGTERM did not complete: {call:?}")
                });
                assert_eq!(count_of(&answer["result"]), Some(3.0), "{answer}");
                completed_at_signal += 1;
            }
            if call.sent > signalled + Duration::from_millis(50) {
                // Sent after the signal: refused at once, never run.
                assert!(
                    result.is_none(),
                    "client {c}: a call sent after SIGTERM ran: {call:?}"
                );
                if let Ok(answer) = &call.answer {
                    let message = answer["error"]["message"].as_str().unwrap_or_default();
                    assert!(message.contains("shutting down"), "client {c}: {answer}");
                    assert!(
                        call.close,
                        "client {c}: a refusal without Connection: close"
                    );
                    assert!(
                        call.answered - call.sent < Duration::from_millis(CALL_MS / 2),
                        "client {c}: the refusal took {:?}",
                        call.answered - call.sent
                    );
                    refused += 1;
                }
            }
        }
    }
    eprintln!(
        "SIGTERM under the load of {CLIENTS} clients: exited 0 after {took:.2?}; \
         {completed_at_signal} calls in flight completed, {refused} later calls refused"
    );
    assert!(
        completed_at_signal >= 1,
        "no call was in flight at SIGTERM: {calls:?}"
    );
    assert!(refused >= 1, "no client saw a refusal: {calls:?}");
}

/// A call on a session of `server` whose downstream child (which writes
/// `tag` when it starts) never answers; returns once it is in flight. Its
/// answer, if any, is not looked at.
async fn call_in_flight(server: &HttpServer, tag: &std::path::Path) {
    let addr = server.addr;
    let sid = open_session(addr).await;
    tokio::spawn(async move { post_mcp(addr, &[("Mcp-Session-Id", &sid)], &count_body(2)).await });
    wait_child(&tag.to_string_lossy()).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
}

/// A second SIGTERM during a drain ends the process at once, with a
/// non-zero status (128 + the signal's number), whatever still runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn second_signal_exits_at_once() {
    let tmp = TempDir::new("drain-twice");
    let tag = tmp.path().join("tag");
    let mcp = slow_override(tmp.path(), 600_000, &tag);
    let mut server = HttpServer::start_with_mcp("file_utils", &mcp, &["--drain-secs", "60"]).await;
    call_in_flight(&server, &tag).await;
    server.signal("TERM");
    assert!(
        server.wait_exit(Duration::from_millis(700)).await.is_none(),
        "the first signal starts a drain (a call is running)"
    );
    server.signal("TERM");
    let signalled = Instant::now();
    let status = server.wait_exit(Duration::from_secs(3)).await;
    let took = signalled.elapsed();
    let stderr = server.stderr();
    let status = status.unwrap_or_else(|| {
        panic!("still running {took:?} after a second SIGTERM during the drain\nstderr:\n{stderr}")
    });
    assert_eq!(
        status.code(),
        Some(128 + 15),
        "{status:?}\nstderr:\n{stderr}"
    );
    eprintln!("a second SIGTERM during the drain: exited ({status}) after {took:.2?}");
}

/// The whole shutdown is bounded by `--drain-secs` plus 5 s, even when
/// what follows the drain would wait longer: here a downstream server that
/// never answers `initialize` (`timeoutMs` 120000), connected to when the
/// signal comes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_is_bounded_by_drain_secs_plus_slack() {
    let tmp = TempDir::new("drain-bound");
    let tag = tmp.path().join("silent-tag");
    let script = std::path::Path::new("sleep 600; :");
    let mcp = super::shutdown::write_override(
        tmp.path(),
        std::path::Path::new("sh"),
        &[std::path::Path::new("-c"), script, &tag],
    );
    let mut server = HttpServer::start_with_mcp("file_utils", &mcp, &["--drain-secs", "2"]).await;
    call_in_flight(&server, &tag).await;
    server.signal("TERM");
    let signalled = Instant::now();
    let status = server.wait_exit(Duration::from_secs(8)).await;
    let took = signalled.elapsed();
    assert!(
        status.is_some(),
        "still running {took:?} after SIGTERM with --drain-secs 2\nstderr:\n{}",
        server.stderr()
    );
    eprintln!("a silent downstream, --drain-secs 2: exited ({status:?}) after {took:.2?}");
}
