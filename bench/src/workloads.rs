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

/// How long each server of the fan-out rows waits before it answers, ms.
pub const FAN_OUT_MS: u64 = 50;
/// How long the server of the forEach row waits before it answers, ms.
pub const FOR_EACH_MS: u64 = 20;
/// Items of the forEach row.
pub const FOR_EACH_ITEMS: u64 = 100;

/// The fan-out graph's workloads (`bench/graphs/fanout.yaml`): `fan_out`
/// (four servers at once), `fan_out_sequential` (ours only: the same node
/// with `maxConcurrency: 1`) and `for_each` (100 items, 8 at a time).
pub fn fan_out() -> [Workload; 3] {
    let expected = json!({
        "s1": {"value": "bench/s1"},
        "s2": {"value": "bench/s2"},
        "s3": {"value": "bench/s3"},
        "s4": {"value": "bench/s4"},
    });
    let args = json!({"q": "bench", "ms": FAN_OUT_MS});
    let items: Vec<u64> = (0..FOR_EACH_ITEMS).collect();
    [
        Workload::new("fan-out", "fan_out", args.clone(), expected.clone()),
        Workload::new(
            "fan-out, one call at a time",
            "fan_out_sequential",
            args,
            expected,
        ),
        Workload::new(
            "forEach",
            "for_each",
            json!({"items": items, "ms": FOR_EACH_MS}),
            json!({ "values": items }),
        ),
    ]
}
