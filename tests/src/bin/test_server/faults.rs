//! The test server's misbehaviours on request: a raw line beside rmcp's
//! replies, a crash with stderr lines, a call that hangs until cancelled, a
//! malformed reply, a huge one, a flood of pings while not reading stdin,
//! a tool that fails its first N calls (counted in a file, since a crash
//! ends the process that counts); and its environment written to a file.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::{RequestContext, RoleServer};

/// `hang` calls whose cancellation arrived.
pub(crate) static CANCELLED: AtomicU64 = AtomicU64::new(0);

/// Writes one raw line on stdout (beside rmcp's own writes, which happen
/// only when a handler returns).
pub(crate) fn raw_stdout(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(format!("{line}\n").as_bytes());
    let _ = out.flush();
}

pub(crate) fn crash(lines: u64) -> ! {
    for i in 1..=lines {
        eprintln!("test server: stderr line {i} of {lines}");
    }
    eprintln!("test server: crashing on request");
    std::process::exit(3)
}

pub(crate) async fn hang(context: &RequestContext<RoleServer>) -> CallToolResult {
    // Tests of cancellation wait for the first line before they cancel and
    // for the second to see that the cancel reached this server.
    eprintln!("test server: hang started");
    context.ct.cancelled().await;
    CANCELLED.fetch_add(1, Ordering::SeqCst);
    eprintln!("test server: hang cancelled");
    CallToolResult::error(vec![ContentBlock::text("cancelled")])
}

pub(crate) async fn malformed(context: &RequestContext<RoleServer>) -> CallToolResult {
    let id = serde_json::to_string(&context.id).unwrap_or_else(|_| "0".into());
    raw_stdout(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":7}},"error":"both"}}"#
    ));
    // The real answer never comes (until the client gives up).
    let _ = tokio::time::timeout(Duration::from_secs(30), context.ct.cancelled()).await;
    CallToolResult::error(vec![ContentBlock::text("late")])
}

/// `flaky`: the call numbered in the file `counter` (1, 2, ... across
/// processes) fails while it is at most `failures`: `how` is `crash` (the
/// process exits), `hang` (never answers) or `error` (an `isError`
/// result). Later calls answer `{"call": n}`.
pub(crate) async fn flaky(
    counter: &str,
    failures: u64,
    how: &str,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    let n = std::fs::read_to_string(counter)
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok())
        .unwrap_or(0)
        + 1;
    if let Err(e) = std::fs::write(counter, n.to_string()) {
        return CallToolResult::error(vec![ContentBlock::text(format!("{counter}: {e}"))]);
    }
    if n <= failures {
        match how {
            "crash" => crash(1),
            "hang" => return hang(context).await,
            _ => return CallToolResult::error(vec![ContentBlock::text(format!("call {n} fails"))]),
        }
    }
    let mut r = CallToolResult::success(vec![]);
    r.structured_content = Some(serde_json::json!({"call": n}));
    r
}

pub(crate) fn huge(bytes: u64) -> CallToolResult {
    let bytes = usize::try_from(bytes).unwrap_or(usize::MAX).min(256 << 20);
    CallToolResult::success(vec![ContentBlock::text("x".repeat(bytes))])
}

/// Set by `--stop-reading-and-ping-flood`; cleared when the flood starts.
pub(crate) static FLOOD: AtomicBool = AtomicBool::new(false);

/// With `--stop-reading-and-ping-flood`, on the first tool call: shortly
/// after its answer went out, this process stops reading stdin for good
/// (its only runtime thread blocks) and another thread writes `ping`
/// requests on stdout as fast as they are read, forever.
pub(crate) fn flood_soon() {
    if !FLOOD.swap(false, Ordering::SeqCst) {
        return;
    }
    tokio::spawn(async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        std::thread::spawn(|| {
            let mut out = std::io::stdout().lock();
            for id in 1_000_000u64.. {
                let ping = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
                if out.write_all(ping.as_bytes()).is_err() || out.write_all(b"\n").is_err() {
                    return;
                }
            }
        });
        eprintln!("test server: stopped reading stdin, flooding pings");
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    });
}

/// `--env-file PATH`: this process's environment, `NAME=value` per line.
pub(crate) fn write_env(path: &str) {
    let text: String = std::env::vars()
        .map(|(name, value)| format!("{name}={value}\n"))
        .collect();
    if let Err(e) = std::fs::write(path, text) {
        eprintln!("test server: cannot write {path}: {e}");
        std::process::exit(2);
    }
}
