//! Expansion snapshots: the pretty-printed code generated for each example
//! is committed under `tests/expanded/` and compared here (expectorate:
//! `EXPECTORATE=overwrite cargo test -p mcpgraph --test expand` rewrites
//! the files; review the diff). The same files are compiled as modules of
//! this test, so a snapshot that does not compile fails the test's build,
//! and the compiled servers are checked to start.

use mcpgraph::Graph;

// Each snapshot is a module here; most of its public items go unused.

#[allow(dead_code, unreachable_pub)]
mod file_utils {
    include!("expanded/file_utils.rs");
}
#[allow(dead_code, unreachable_pub)]
mod loop_example {
    include!("expanded/loop_example.rs");
}
#[allow(dead_code, unreachable_pub)]
mod switch_example {
    include!("expanded/switch_example.rs");
}
#[allow(dead_code, unreachable_pub)]
mod test_minimal {
    include!("expanded/test_minimal.rs");
}
#[allow(dead_code, unreachable_pub)]
mod build_rs_example {
    include!("expanded/greeter.rs");
}

/// (graph file under `examples/`, snapshot file under `tests/expanded/`).
const EXAMPLES: &[(&str, &str)] = &[
    ("file_utils/file_utils.yaml", "file_utils.rs"),
    ("loop_example/loop_example.yaml", "loop_example.rs"),
    ("switch_example/switch_example.yaml", "switch_example.rs"),
    ("test_minimal/test_minimal.yaml", "test_minimal.rs"),
    ("build_rs_example/greeter.yaml", "greeter.rs"),
];

#[test]
fn snapshots_match_the_generator() {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    for (graph, snapshot) in EXAMPLES {
        let source = std::fs::read_to_string(format!("{examples}{graph}")).unwrap();
        let output = mcpgraph_codegen::generate_str(&source, graph, &Default::default());
        assert!(output.is_ok(), "{}", output.diagnostics);
        let code = mcpgraph_codegen::pretty(&output.tokens).unwrap();
        let text = format!(
            "// @generated from examples/{graph} by `cargo test -p mcpgraph --test expand`\n// with EXPECTORATE=overwrite. Do not edit.\n\n{code}"
        );
        expectorate::assert_contents(format!("tests/expanded/{snapshot}"), &text);
    }
}

#[test]
fn snapshots_compile_and_start() {
    assert!(<file_utils::Server as Graph>::compile().is_ok());
    assert!(<loop_example::Server as Graph>::compile().is_ok());
    assert!(<switch_example::Server as Graph>::compile().is_ok());
    assert!(<test_minimal::Server as Graph>::compile().is_ok());
    assert!(<build_rs_example::Server as Graph>::compile().is_ok());
    assert_eq!(loop_example::sum_to_n::Node::ALL.len(), 5);
    assert_eq!(<file_utils::Server as Graph>::TOOLS.len(), 2);
}

/// The generator rewrites a rule's `var`s into reads under the key where
/// the runtime puts their values (both take it from `mcpgraph-expr`).
#[test]
fn the_switch_slot_key_is_the_runtimes() {
    use mcpgraph_codegen::model::{Expr, Logic, Pos};
    let var = Logic::Var(Expr {
        source: "$.entry.n".into(),
        pos: Pos::default(),
        spans: Vec::new(),
    });
    let rule = mcpgraph_codegen::rewrite_rule(&var);
    let json: serde_json::Value = serde_json::from_str(&rule.json).unwrap();
    assert_eq!(json["val"][0], mcpgraph::__private::SLOT_KEY);
}
