//! OTLP export (feature `otel`): the CLI of a generated server, run with
//! `--otlp-endpoint`, sends its `tool_call` and `node` spans to an OTLP/HTTP
//! receiver. The receiver here is a small one written for the test: it
//! accepts the exporter's POSTs and keeps their paths and protobuf bodies,
//! in which span names, attribute keys and string values appear verbatim.
//!
//! The test crate's `otel` feature (on by default) turns on the facade's
//! `otel`; without it this binary is not built.

use std::io::{BufReader, Write};
use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use mcpgraph_tests::http1;

mod loop_example {
    mcpgraph::mcpgraph!("../examples/loop_example/loop_example.yaml");
}

mod file_utils {
    mcpgraph::mcpgraph!("../examples/file_utils/file_utils.yaml");
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
                while let Ok(Some(request)) = http1::read_request(&mut reader) {
                    log.lock().unwrap().push((request.start_line, request.body));
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

/// One field of a protobuf message: its number and its value (a varint or
/// fixed-width number, or the bytes of a length-delimited field).
enum Field<'a> {
    Number(u64),
    Bytes(&'a [u8]),
}

/// The fields of one protobuf message, in order; enough of the wire format
/// to read OTLP spans without a protobuf library.
fn fields(mut buf: &[u8]) -> Vec<(u64, Field<'_>)> {
    fn varint(buf: &mut &[u8]) -> u64 {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = buf.split_first().expect("truncated varint");
            *buf = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                break;
            }
        }
        value
    }
    let mut out = Vec::new();
    while !buf.is_empty() {
        let key = varint(&mut buf);
        let field = match key & 7 {
            0 => Field::Number(varint(&mut buf)),
            1 | 5 => {
                let width = if key & 7 == 1 { 8 } else { 4 };
                let (bytes, rest) = buf.split_at(width);
                buf = rest;
                let mut raw = [0u8; 8];
                raw[..width].copy_from_slice(bytes);
                Field::Number(u64::from_le_bytes(raw))
            }
            2 => {
                let len = usize::try_from(varint(&mut buf)).unwrap();
                let (bytes, rest) = buf.split_at(len);
                buf = rest;
                Field::Bytes(bytes)
            }
            other => panic!("unexpected protobuf wire type {other}"),
        };
        out.push((key >> 3, field));
    }
    out
}

/// The length-delimited fields number `n` of `message`.
fn messages(message: &[u8], n: u64) -> Vec<&[u8]> {
    fields(message)
        .into_iter()
        .filter_map(|(number, field)| match field {
            Field::Bytes(bytes) if number == n => Some(bytes),
            _ => None,
        })
        .collect()
}

/// A span as exported: ids, name and attributes (values as text).
#[derive(Debug)]
struct Span {
    trace_id: Vec<u8>,
    span_id: Vec<u8>,
    parent_span_id: Vec<u8>,
    name: String,
    attributes: std::collections::BTreeMap<String, String>,
}

/// The spans of an ExportTraceServiceRequest body (resource_spans = 1,
/// scope_spans = 2, spans = 2; Span: trace_id 1, span_id 2,
/// parent_span_id 4, name 5, attributes 9; KeyValue: key 1, value 2;
/// AnyValue: string 1, bool 2, int 3, double 4).
fn spans(body: &[u8]) -> Vec<Span> {
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("UTF-8");
    let mut out = Vec::new();
    for resource in messages(body, 1) {
        for scope in messages(resource, 2) {
            for span in messages(scope, 2) {
                let one = |n| messages(span, n).first().map_or(Vec::new(), |b| b.to_vec());
                let attributes = messages(span, 9)
                    .into_iter()
                    .map(|kv| {
                        let key = text(messages(kv, 1)[0]);
                        let value = fields(messages(kv, 2)[0])
                            .into_iter()
                            .map(|(n, v)| match (n, v) {
                                (1, Field::Bytes(s)) => text(s),
                                (4, Field::Number(bits)) => f64::from_bits(bits).to_string(),
                                (_, Field::Number(n)) => n.to_string(),
                                (_, Field::Bytes(b)) => format!("{b:?}"),
                            })
                            .collect::<String>();
                        (key, value)
                    })
                    .collect();
                out.push(Span {
                    trace_id: one(1),
                    span_id: one(2),
                    parent_span_id: one(4),
                    name: text(&one(5)),
                    attributes,
                });
            }
        }
    }
    out
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
    let code = mcpgraph::__private::cli::main_from::<loop_example::Server, _, _>([
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
    // Each POST is one ExportTraceServiceRequest.
    let exported: Vec<Span> = received.iter().flat_map(|(_, b)| spans(b)).collect();
    let body: Vec<u8> = received.into_iter().flat_map(|(_, b)| b).collect();
    let calls: Vec<&Span> = exported.iter().filter(|s| s.name == "tool_call").collect();
    assert_eq!(calls.len(), 1, "{exported:#?}");
    let call = calls[0];
    assert_eq!(
        call.attributes.get("tool").map(String::as_str),
        Some("sum_to_n")
    );
    let nodes: Vec<&Span> = exported.iter().filter(|s| s.name == "node").collect();
    // entry, 3 × (increment, check), exit_sum, exit_sum_final
    let ids: Vec<&str> = nodes.iter().map(|s| s.attributes["id"].as_str()).collect();
    assert_eq!(ids.len(), 9, "{exported:#?}");
    for want in [
        "entry_sum",
        "increment_node",
        "check_condition",
        "exit_sum_final",
    ] {
        assert!(ids.contains(&want), "no node span for {want}: {ids:?}");
    }
    for node in &nodes {
        assert_eq!(
            node.parent_span_id, call.span_id,
            "a child of tool_call: {node:?}"
        );
        assert_eq!(node.trace_id, call.trace_id, "{node:?}");
        for key in ["type", "index", "duration_ms"] {
            assert!(node.attributes.contains_key(key), "no {key}: {node:?}");
        }
    }
    let mut indexes: Vec<u64> = nodes
        .iter()
        .map(|s| s.attributes["index"].parse().unwrap())
        .collect();
    indexes.sort_unstable();
    assert_eq!(indexes, (0..9).collect::<Vec<_>>());
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

/// The secret of [`exported_spans_hold_no_secret`], in the environment of
/// the process that exports.
const SECRET_VAR: &str = "MCPGRAPH_OTLP_SECRET";
const SECRET: &str = mcpgraph_tests::ENCODED_SECRET;

/// A secret expanded into a downstream URL, which the connection error
/// quotes percent-encoded, reaches no exported span in any form: the node
/// span's `error` attribute carries `${VAR}` instead. Run in a process of
/// its own (the subscriber is global): this test re-runs this binary for
/// [`export_with_a_secret`].
#[test]
fn exported_spans_hold_no_secret() {
    let (port, received) = receiver();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "export_with_a_secret",
            "--nocapture",
        ])
        .env(SECRET_VAR, SECRET)
        .env("MCPGRAPH_OTLP_PORT", port.to_string())
        .output()
        .unwrap();
    let output =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{output}");
    let received = received.lock().unwrap().clone();
    let body: Vec<u8> = received.into_iter().flat_map(|(_, b)| b).collect();
    assert!(
        contains(&body, "${MCPGRAPH_OTLP_SECRET}"),
        "the connection error is not in the exported spans ({} bytes)",
        body.len()
    );
    for form in mcpgraph_tests::ENCODED_SECRET_FORMS {
        assert!(!contains(&body, form), "`{form}` was exported");
        assert!(!output.contains(form), "`{form}` was logged:\n{output}");
    }
}

/// The exporting side of [`exported_spans_hold_no_secret`] (ignored: it
/// only runs in the process that test starts).
#[test]
#[ignore = "run by exported_spans_hold_no_secret in a process of its own"]
fn export_with_a_secret() {
    let port = std::env::var("MCPGRAPH_OTLP_PORT").expect("run by exported_spans_hold_no_secret");
    let config = std::env::temp_dir().join(format!("mcpgraph-otlp-{}.json", std::process::id()));
    let url = format!("http://127.0.0.1:1/mcp/${{{SECRET_VAR}}}?key=${{{SECRET_VAR}}}");
    let servers = serde_json::json!({"mcpServers": {"filesystem": {"type": "http", "url": url, "timeoutMs": 3000}}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let endpoint = format!("http://127.0.0.1:{port}/v1/traces");
    let code = mcpgraph::__private::cli::main_from::<file_utils::Server, _, _>([
        "file_utils",
        "--otlp-endpoint",
        &endpoint,
        "--log-level",
        "debug",
        "--mcp",
        config.to_str().unwrap(),
        "call",
        "count_files",
        r#"{"directory": "/data"}"#,
    ]);
    let _ = std::fs::remove_file(&config);
    assert_ne!(code, ExitCode::SUCCESS, "the call cannot succeed");
}

/// A caller's W3C trace context (`traceparent` in the request's `_meta`)
/// parents the call's `tool_call` span: the exported span has the caller's
/// trace id, and the caller's span as its parent. Run in a process of its
/// own (the subscriber is global, and the server stops on SIGTERM): this
/// test re-runs this binary for [`serve_with_otlp`].
#[test]
fn a_callers_trace_context_parents_the_call() {
    const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
    const SPAN_ID: &str = "00f067aa0ba902b7";
    let (port, received) = receiver();
    let http_port = mcpgraph_tests::free_port();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "serve_with_otlp", "--nocapture"])
        .env("MCPGRAPH_OTLP_PORT", port.to_string())
        .env("MCPGRAPH_HTTP_PORT", http_port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{http_port}").parse().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not listen"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "sum_to_n", "arguments": {"n": 3},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "traceparent": format!("00-{TRACE_ID}-{SPAN_ID}-01")
            }
        }
    });
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let reply = runtime.block_on(mcpgraph_tests::post_mcp(
        addr,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "sum_to_n"),
        ],
        &body.to_string(),
    ));
    assert!(reply.body.contains("\"sum\""), "{reply:?}");
    // SIGTERM: the server drains and stops, and its exporter flushes.
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    assert!(child.wait().unwrap().success());
    let received = received.lock().unwrap().clone();
    let exported: Vec<Span> = received.iter().flat_map(|(_, b)| spans(b)).collect();
    let call = exported
        .iter()
        .find(|s| s.name == "tool_call")
        .unwrap_or_else(|| panic!("no tool_call span: {exported:#?}"));
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_eq!(hex(&call.trace_id), TRACE_ID, "{call:?}");
    assert_eq!(hex(&call.parent_span_id), SPAN_ID, "{call:?}");
}

/// The serving side of [`a_callers_trace_context_parents_the_call`]
/// (ignored: it only runs in the process that test starts).
#[test]
#[ignore = "run by a_callers_trace_context_parents_the_call in a process of its own"]
fn serve_with_otlp() {
    let port = std::env::var("MCPGRAPH_OTLP_PORT").expect("run by the parent test");
    let http_port = std::env::var("MCPGRAPH_HTTP_PORT").expect("run by the parent test");
    let endpoint = format!("http://127.0.0.1:{port}/v1/traces");
    let listen = format!("127.0.0.1:{http_port}");
    let code = mcpgraph::__private::cli::main_from::<loop_example::Server, _, _>([
        "loop_example",
        "--otlp-endpoint",
        &endpoint,
        "serve",
        "--http",
        &listen,
    ]);
    assert_eq!(code, ExitCode::SUCCESS);
}
