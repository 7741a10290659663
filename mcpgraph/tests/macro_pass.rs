//! The graphs that must compile through `mcpgraph!`: every example, a
//! graph with an allowed check, and a renamed dependency without the
//! prelude. They compile here, in the workspace's own build, rather than as
//! trybuild `pass` cases (which would build and link the whole dependency
//! tree a second time); the failing cases are `mcpgraph-macros`'s UI suite
//! (its `tests/ui.rs`). Paths are relative to this crate's directory, as for
//! any user of the macro.

#![allow(dead_code)] // each module's items are checked, not all used

extern crate mcpgraph as renamed;

use mcpgraph::Graph;

mod file_utils {
    mcpgraph::mcpgraph!("../examples/file_utils/file_utils.yaml");
}
mod loop_example {
    mcpgraph::mcpgraph!("../examples/loop_example/loop_example.yaml");
}
mod switch_example {
    mcpgraph::mcpgraph!("../examples/switch_example/switch_example.yaml");
}
mod test_minimal {
    mcpgraph::mcpgraph!("../examples/test_minimal/test_minimal.yaml");
}
/// An expression that reads a node which cannot have run yet is a warning;
/// allowed, the macro emits nothing for it (this crate's clippy runs with
/// `-D warnings`). The file is the one of the UI case
/// `reference_before_run`, which denies it.
mod allowed {
    mcpgraph::mcpgraph!(
        "../mcpgraph-macros/tests/ui/reference_before_run.yaml",
        allow(reference_before_run)
    );
}
/// Expressions with every kind of parsed tree (`tests/jsonata/graph.yaml`).
mod jsonata_trees {
    mcpgraph::mcpgraph!("tests/jsonata/graph.yaml");
}
/// Switch rules with every kind of compiled tree (`tests/logic/graph.yaml`).
mod logic_trees {
    mcpgraph::mcpgraph!("tests/logic/graph.yaml");
}
/// A graph checked against its lock (`tests/locked/graph.lock.json`) with
/// a warning, allowed.
mod locked {
    mcpgraph::mcpgraph!("tests/locked/graph.yaml", allow(unknown_argument));
}
/// The generated code reaches the runtime only through the path it is
/// given, so it compiles after a rename of the dependency and without the
/// prelude.
#[no_implicit_prelude]
mod renamed_crate {
    ::renamed::mcpgraph!(
        "../examples/test_minimal/test_minimal.yaml",
        crate = ::renamed
    );
    /// Generated schema validators included (`tests/schemas/graph.yaml`).
    pub(crate) mod schemas {
        ::renamed::mcpgraph!("tests/schemas/graph.yaml", crate = ::renamed);
    }
}

#[test]
fn examples_compile_with_their_state_machines() {
    assert_eq!(
        file_utils::count_files::Node::ListDirectoryNode.id(),
        "list_directory_node"
    );
    assert_eq!(file_utils::sum_file_sizes::Node::ALL.len(), 4);
    assert_eq!(<file_utils::Server as Graph>::TOOLS.len(), 2);
    assert_eq!(loop_example::sum_to_n::Node::ALL.len(), 5);
    assert_eq!(<loop_example::Server as Graph>::SERVER.name, "loopExample");
    assert_eq!(
        switch_example::test_switch::Node::SwitchNode.id(),
        "switch_node"
    );
    assert_eq!(
        test_minimal::test_tool::Node::ALL,
        [
            test_minimal::test_tool::Node::Entry,
            test_minimal::test_tool::Node::Exit
        ]
    );
    assert!(<file_utils::Server as Graph>::compile().is_ok());
    assert!(<loop_example::Server as Graph>::compile().is_ok());
    assert!(<switch_example::Server as Graph>::compile().is_ok());
    assert!(<test_minimal::Server as Graph>::compile().is_ok());
}

#[test]
fn an_allowed_check_compiles() {
    assert_eq!(allowed::count_files::Node::ALL.len(), 4);
    assert!(<allowed::Server as Graph>::compile().is_ok());
}

#[test]
fn a_renamed_crate_compiles_without_the_prelude() {
    assert_eq!(renamed_crate::test_tool::Node::Entry.id(), "entry");
    assert!(<renamed_crate::Server as Graph>::compile().is_ok());
}

/// Each tool schema becomes a validator generated at build time; it must
/// judge every value as jsonschema's run-time validator does, and report
/// the same first error.
#[test]
fn generated_schema_validators_agree_with_the_run_time_validator() {
    use serde_json::{Value, json};
    let tool = &<renamed_crate::schemas::Server as Graph>::TOOLS[0];
    let run_time = |schema: &str, value: &Value| {
        let schema: Value = serde_json::from_str(schema).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        mcpgraph_runtime::schema_violation(validator.validate(value))
    };
    let inputs = [
        (json!({"code": "AB123", "word": "good"}), None),
        (
            json!({"code": "AB123", "word": "good", "kind": "b", "when": "not a date",
                   "tree": {"name": "r", "children": [{"name": "c"}]}}),
            None,
        ),
        (json!({"code": "ab", "word": "good"}), Some("/code")),
        (json!({"code": "AB123", "word": "badly"}), Some("/word")),
        (json!({"code": "AB123"}), Some("/")),
        (
            json!({"code": "AB123", "word": "w", "tree": {"name": "r", "children": [{}]}}),
            Some("/tree/children/0"),
        ),
        (
            json!({"code": "AB123", "word": "w", "tree": {"name": "r", "children": [
                {"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]}}),
            Some("/tree/children"),
        ),
        (
            json!({"code": "AB123", "word": "w", "kind": "a"}),
            Some("/"),
        ),
        (
            json!({"code": "AB123", "word": "w", "kind": "c"}),
            Some("/kind"),
        ),
        (json!({"code": "AB123", "word": "w", "n": 3}), Some("/n")),
        (json!({"code": "AB123", "word": "w", "n": 0}), Some("/n")),
        (
            json!({"code": "AB123", "word": "w", "n": 2, "tags": ["x", "x"]}),
            Some("/tags"),
        ),
        (
            json!({"code": "AB123", "word": "w", "n": 2, "tags": ["y"]}),
            Some("/tags"),
        ),
        (
            json!({"code": "AB123", "word": "w", "tags": ["x"]}),
            Some("/"),
        ),
        (json!({"code": "AB123", "word": "w", "extra": 1}), Some("/")),
        (json!("not an object"), Some("/")),
    ];
    for (value, path) in &inputs {
        let generated = (tool.input_check)(value);
        assert_eq!(generated, run_time(tool.input_schema, value), "{value}");
        match path {
            None => assert_eq!(generated, None, "{value}"),
            Some(path) => {
                let message = generated.unwrap_or_default();
                assert!(
                    message.starts_with(&format!("{path}: ")),
                    "{value}: {message}"
                );
            }
        }
    }
    let output_check = tool.output_check.unwrap();
    let output_schema = tool.output_schema.unwrap();
    let outputs = [
        (json!({"total": 99.5, "items": ["a"], "ok": true}), true),
        (json!({"total": 100}), false),
        (json!({"total": 1, "items": []}), false),
        (json!({"total": 1, "items": [1]}), false),
        (json!({"total": 1, "flag": "yes"}), false),
        (json!({}), false),
    ];
    for (value, valid) in &outputs {
        let generated = output_check(value);
        assert_eq!(generated, run_time(output_schema, value), "{value}");
        assert_eq!(generated.is_none(), *valid, "{value}: {generated:?}");
    }
}

/// A schema repeated across tools is checked by the validator of its
/// first use, and an input schema that accepts every object has no
/// validator to run; each still judges as jsonschema's run-time validator
/// does.
#[test]
fn shared_and_trivial_schemas_judge_as_the_run_time_validator() {
    use serde_json::{Value, json};
    let tools = <renamed_crate::schemas::Server as Graph>::TOOLS;
    let [rich, shared] = tools else {
        panic!("two tools expected, found {}", tools.len());
    };
    let run_time = |schema: &str, value: &Value| {
        let schema: Value = serde_json::from_str(schema).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        mcpgraph_runtime::schema_violation(validator.validate(value))
    };
    let values = [
        json!({}),
        json!({"a": 1, "total": 99.5, "items": ["a"], "ok": true}),
        json!({"total": 100}),
        json!({"total": 1, "flag": "yes"}),
        json!(7),
    ];
    assert_eq!(shared.output_schema, rich.output_schema);
    let output_check = shared.output_check.unwrap();
    for value in &values {
        let expected = run_time(shared.output_schema.unwrap(), value);
        assert_eq!(output_check(value), expected, "{value}");
        if value.is_object() {
            assert_eq!(run_time(shared.input_schema, value), None, "{value}");
            assert_eq!((shared.input_check)(value), None, "{value}");
        }
    }
}

/// The generator writes each expression's parsed tree out as Rust; in this
/// debug build, starting the graph checks every tree against a parse of its
/// source (`Expr::from_ast`), for trees with every kind of node.
#[test]
fn generated_expression_trees_are_the_parsers() {
    assert!(<jsonata_trees::Server as Graph>::compile().is_ok());
}

/// The generator writes each switch rule's compiled tree out as Rust; in
/// this debug build, starting the graph checks every tree against the
/// runtime's compilation of the rule's JSON (`Switch::compiled`), for
/// rules with every kind of node.
#[test]
fn generated_rule_trees_are_the_runtimes() {
    assert!(<logic_trees::Server as Graph>::compile().is_ok());
}
