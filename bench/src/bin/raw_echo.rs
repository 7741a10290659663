//! The physical limit of a call over stdio: the benchmark's `echo` tool
//! with no MCP SDK and no async runtime. One thread reads a JSON-RPC line,
//! parses it with serde_json, builds the reply and writes it (the replies
//! to every request already read in one write); what is left is what a
//! pipe, a JSON parser and a JSON writer cost. The benchmark
//! measures the generated server and the hand-written one beside it, for
//! how far each is from this floor under the floor.
//!
//! It speaks only what the benchmark sends: `initialize` (answered with
//! the version asked for), notifications (ignored), `ping`, `tools/list`
//! and `tools/call` of `echo`, whose reply is the one the other servers
//! give (the value as JSON text and as `structuredContent`).

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::fd::AsFd;

use serde_json::{Value, json};

fn main() {
    // Read straight from the descriptor, so that the buffer tells whether
    // more requests are already here.
    let fd = std::io::stdin().as_fd().try_clone_to_owned();
    let Ok(fd) = fd else { return };
    let mut stdin = BufReader::with_capacity(64 * 1024, std::fs::File::from(fd));
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        match stdin.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // A notification wants no reply.
        let Some(id) = request.get("id") else {
            continue;
        };
        let params = &request["params"];
        let reply = match request["method"].as_str().unwrap_or_default() {
            "initialize" => Ok(json!({
                "protocolVersion": params["protocolVersion"],
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "raw-echo", "version": "0.0.0" },
            })),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({ "tools": [{
                "name": "echo",
                "description": "Transform only: builds an object from the arguments",
                "inputSchema": {
                    "type": "object",
                    "properties": { "name": { "type": "string" }, "n": { "type": "number" } },
                    "required": ["name", "n"],
                },
            }]})),
            "tools/call" if params["name"] == "echo" => echo(&params["arguments"]),
            "tools/call" => Err((-32602, "unknown tool".to_owned())),
            _ => Err((-32601, "method not found".to_owned())),
        };
        let message = match reply {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err((code, message)) => json!({
                "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message },
            }),
        };
        let mut written = serde_json::to_writer(&mut out, &message).map_err(std::io::Error::from);
        written = written.and_then(|()| out.write_all(b"\n"));
        // Replies to the requests already read go out in one write.
        if stdin.buffer().is_empty() {
            written = written.and_then(|()| out.flush());
        }
        if written.is_err() {
            break;
        }
    }
}

/// The `echo` tool's result, as the other servers give it.
fn echo(arguments: &Value) -> Result<Value, (i64, String)> {
    let (Some(name), Some(n)) = (arguments["name"].as_str(), arguments["n"].as_f64()) else {
        return Err((
            -32602,
            "invalid arguments: `name` and `n` are required".to_owned(),
        ));
    };
    let value = json!({
        "greeting": format!("hello {name}"),
        "n": number(n),
        "twice": number(n * 2.0),
        "tags": ["a", "b"],
    });
    Ok(json!({
        "content": [{ "type": "text", "text": value.to_string() }],
        "structuredContent": value,
        "isError": false,
    }))
}

/// `n` as JSON: an integer when it is one, as JavaScript writes it.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        json!(n as i64)
    } else {
        json!(n)
    }
}
