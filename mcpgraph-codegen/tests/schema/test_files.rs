//! `docs/mcpgraph.test.schema.json`, the editor schema of a graph's test
//! file, agrees with the generator: every test file of the examples and the
//! starter matches it, and a UI case the generator refuses for its shape
//! does not.

use std::path::Path;

use super::{ROOT, schema_errors, to_json};

fn validator() -> jsonschema::Validator {
    let path = Path::new(ROOT).join("docs/mcpgraph.test.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema = serde_json::from_str(&text).unwrap();
    jsonschema::draft7::new(&schema).unwrap_or_else(|e| panic!("the test schema: {e}"))
}

#[test]
fn every_test_file_of_the_examples_and_the_starter_matches() {
    let validator = validator();
    let mut files: Vec<_> = std::fs::read_dir(Path::new(ROOT).join("examples"))
        .unwrap()
        .flat_map(|dir| std::fs::read_dir(dir.unwrap().path()).into_iter().flatten())
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.yaml"))
        .collect();
    assert!(files.len() >= 6, "{files:?}");
    files.push(Path::new(ROOT).join("mcpgraph-cli/templates/starter.test.yaml"));
    files.push(Path::new(ROOT).join("tests/graphs/elicit.test.yaml"));
    for file in files {
        let instance = to_json(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let errors = schema_errors(&validator, &instance);
        assert!(errors.is_empty(), "{}:\n{errors}", file.display());
    }
}

/// A case's `answers` of the wrong shape: an unknown action, `content`
/// with a decline, an answer that is not a mapping, an empty list.
#[test]
fn answers_of_the_wrong_shape_do_not_match() {
    let validator = validator();
    let case = |answers: &str| {
        let text = format!(
            "cases:\n  - {{ name: c, tool: t, answers: {answers}, expect: {{ output: 1 }} }}\n"
        );
        validator.is_valid(&to_json(&text).unwrap())
    };
    assert!(case(
        "{ ask: { action: accept, content: { timezone: UTC } } }"
    ));
    assert!(case("{ ask: [{ action: decline }, { action: cancel }] }"));
    for wrong in [
        "{ ask: { action: acept } }",
        "{ ask: { action: decline, content: {} } }",
        "{ ask: accept }",
        "{ ask: [] }",
        "{ ask: { content: {} } }",
    ] {
        assert!(!case(wrong), "{wrong}");
    }
}

#[test]
fn a_test_file_of_the_wrong_shape_does_not_match() {
    let path = Path::new(ROOT).join("mcpgraph-macros/tests/ui/test_file_bad_expect.test.yaml");
    let instance = to_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(!validator().is_valid(&instance));
}
