//! The workloads (tool, arguments, expected value) and the reply check
//! every peer's every reply goes through.

use serde_json::{Value, json};

/// One workload: a call of one tool with fixed arguments.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Short name used in the table.
    pub name: &'static str,
    pub tool: &'static str,
    pub args: Value,
    /// Arguments as JSON text, ready for the wire.
    pub args_json: String,
    pub expected: Value,
}

impl Workload {
    fn new(name: &'static str, tool: &'static str, args: Value, expected: Value) -> Self {
        Self {
            name,
            tool,
            args_json: args.to_string(),
            args,
            expected,
        }
    }
}

/// The wide fan's input.
pub fn wide_args() -> Value {
    json!({"a": 7, "s": "bench", "items": [1, 2, 3, 4, 5]})
}

fn loop_n(name: &'static str, n: u64) -> Workload {
    Workload::new(
        name,
        "loop",
        json!({ "n": n }),
        json!({"sum": n * (n + 1) / 2, "n": n}),
    )
}

/// Every workload; `directory` is the folder `count_files` counts (and the
/// count it must find).
pub fn all(directory: &str, files: usize) -> Vec<Workload> {
    vec![
        Workload::new(
            "transform-only",
            "echo",
            json!({"name": "bench", "n": 21}),
            json!({"greeting": "hello bench", "n": 21, "twice": 42, "tags": ["a", "b"]}),
        ),
        loop_n("loop N=10", 10),
        loop_n("loop N=100", 100),
        loop_n("loop N=1000", 1000),
        Workload::new(
            "count_files (filesystem server)",
            "count_files",
            json!({ "directory": directory }),
            json!({ "count": files }),
        ),
        Workload::new(
            "wide fan (50 fields, 20 conditions)",
            "wide",
            wide_args(),
            json!({"route": "hit", "f01": 8, "f25": "BENCH-5", "fields": 50}),
        ),
    ]
}

/// JSON equality with numbers compared as numbers (`42` equals `42.0`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Checks a `tools/call` JSON-RPC reply: a result, not an error, whose
/// first text content is the expected value as JSON.
pub fn check_reply(reply: &Value, expected: &Value) -> Result<(), String> {
    if let Some(error) = reply.get("error") {
        return Err(format!("JSON-RPC error: {error}"));
    }
    let result = reply
        .get("result")
        .ok_or_else(|| format!("no result: {reply}"))?;
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(format!("tool error: {}", result["content"]));
    }
    let text = result["content"][0]["text"]
        .as_str()
        .ok_or_else(|| format!("no text content: {result}"))?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("{e}: {text}"))?;
    if json_eq(&value, expected) {
        Ok(())
    } else {
        Err(format!("got {value}, expected {expected}"))
    }
}
