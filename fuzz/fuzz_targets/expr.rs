//! JSONata and JSON Logic through the node path with the limits on: the
//! first byte picks the language, the rest is the expression (JSONata) or
//! the rule (JSON Logic), evaluated against a small document, which also
//! holds a long string and a long list: the inputs that amplifying
//! built-ins (`$replace`, `$pad`, `$join`, `$string(v, true)`, ranges)
//! and super-linear ones (`$distinct`, nested loops in rules) turn into
//! gigabytes or minutes unless they are bounded (issue 27).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgraph_runtime::testing::jsonata_core::value::JValue;
use mcpgraph_runtime::Expr;
use mcpgraph_runtime::testing::{evaluate_logic, evaluate_standalone};

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let doc = serde_json::json!({
        "entry": {"n": 3, "s": "abc", "list": [1, 2, 3], "o": {"a": null}},
        "node": [{"x": 1}, {"x": "2"}],
        "big": {"text": "a".repeat(20_000), "items": (0..5_000).collect::<Vec<_>>()}
    });
    if which % 2 == 0 {
        let Ok(expr) = Expr::parse(text.to_owned()) else {
            return;
        };
        let data = mcpgraph_runtime::testing::from_json(&doc);
        let _: Result<JValue, _> =
            evaluate_standalone(&expr, &data, &serde_json::Map::new(), Some(200), Some(100));
    } else if let Ok(rule) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = evaluate_logic(&rule, &doc);
    }
});
