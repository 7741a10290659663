//! OTLP export (feature `otel`): the CLI of a generated server, run with
//! `--otlp-endpoint`, sends its `tool_call` and `node` spans to an OTLP/HTTP
//! receiver. The receiver here is a small one written for the test: it
//! accepts the exporter's POSTs and keeps their paths and protobuf bodies,
//! in which span names, attribute keys and string values appear verbatim.
//!
//! Run with `cargo test -p mcpgraph --features otel --test otlp`.
#![cfg(feature = "otel")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

mod loop_example {
    mcpgraph::mcpgraph!("../../examples/loop_example/loop_example.yaml");
}

/// (request line, body) of every request received.
type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// An OTLP/HTTP receiver on a loopback port: answers every request 200
/// with an empty protobuf body (an empty ExportTraceServiceResponse).
fn receiver() -> (u16, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let received: Received = Arc::default();
    let log = Arc::clone(&received);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                loop {
                    let mut request_line = String::new();
                    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut length = 0usize;
                    loop {
                        let mut header = String::new();
                        if reader.read_line(&mut header).unwrap_or(0) == 0 {
                            return;
                        }
                        let header = header.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        if let Some((name, value)) = header.split_once(':')
                            && name.eq_ignore_ascii_case("content-length")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    log.lock()
                        .unwrap()
                        .push((request_line.trim_end().to_owned(), body));
                    let answer = b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
                    if reader.get_mut().write_all(answer).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (port, received)
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn spans_reach_an_otlp_http_receiver() {
    let (port, received) = receiver();
    let endpoint = format!("http://127.0.0.1:{port}/v1/traces");
    let code = mcpgraph::runtime::cli::main_from::<loop_example::Server, _, _>([
        "loop_example",
        "--otlp-endpoint",
        &endpoint,
        "call",
        "sum_to_n",
        r#"{"n": 3}"#,
    ]);
    assert_eq!(code, ExitCode::SUCCESS);
    // The exporter flushes when the CLI returns (the provider is shut down).
    let received = received.lock().unwrap().clone();
    assert!(!received.is_empty(), "nothing was exported");
    for (line, _) in &received {
        assert!(line.starts_with("POST /v1/traces "), "{line}");
    }
    let body: Vec<u8> = received.into_iter().flat_map(|(_, b)| b).collect();
    for want in [
        "loopExample", // service.name
        "tool_call",
        "sum_to_n",
        "node",
        "entry_sum",
        "increment_node",
        "check_condition",
        "exit_sum",
        "transform",
        "switch",
        "duration_ms",
    ] {
        assert!(
            contains(&body, want),
            "`{want}` is not in the exported spans ({} bytes)",
            body.len()
        );
    }
}
