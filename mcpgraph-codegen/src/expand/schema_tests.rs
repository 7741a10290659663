//! The tests of `schema`.

use serde_json::json;

use super::*;
use crate::test_support::load;

/// A value of each JSON type; objects only where they stand for a
/// tool's arguments.
fn samples(arguments: bool) -> Vec<Value> {
    let all = [
        json!(null),
        json!(true),
        json!(0),
        json!(1.5),
        json!("s"),
        json!([1]),
        json!({}),
        json!({ "a": 1, "b": [null] }),
    ];
    all.into_iter()
        .filter(|v| !arguments || v.is_object())
        .collect()
}

/// A skipped schema accepts every sample that can reach it (as
/// jsonschema decides); a kept one rejects some sample.
#[test]
fn only_schemas_that_accept_everything_reaching_them_are_skipped() {
    let skipped = [
        (json!(true), false),
        (json!({}), false),
        (
            json!({ "title": "t", "description": "d", "default": 1 }),
            false,
        ),
        (json!({ "properties": { "a": {}, "b": true } }), false),
        (json!({ "type": "object" }), true),
        (
            json!({ "type": ["object", "null"], "properties": { "a": {} },
                    "required": [], "additionalProperties": true }),
            true,
        ),
    ];
    let kept = [
        (json!(false), false),
        (json!({ "type": "object" }), false),
        (json!({ "type": "string" }), true),
        (json!({ "required": ["a"] }), true),
        (json!({ "properties": { "a": { "type": "string" } } }), true),
        (
            json!({ "type": "object", "additionalProperties": false }),
            true,
        ),
        (json!({ "not": {} }), true),
        (json!({ "minProperties": 1 }), true),
    ];
    for (schema, arguments) in skipped {
        assert!(accepts_everything(&schema, arguments), "{schema}");
        let validator = jsonschema::validator_for(&schema).unwrap();
        for value in samples(arguments) {
            assert!(validator.is_valid(&value), "{schema} rejects {value}");
        }
    }
    for (schema, arguments) in kept {
        assert!(!accepts_everything(&schema, arguments), "{schema}");
        let validator = jsonschema::validator_for(&schema).unwrap();
        let rejects = samples(arguments).iter().any(|v| !validator.is_valid(v));
        assert!(rejects, "{schema} rejects no sample");
    }
}

/// Schemas that differ only in annotations share a validator; the same
/// words as data (a property's name, a `const`, an `enum`) or as the
/// target of a reference still tell schemas apart.
#[test]
fn schemas_differing_only_in_annotations_share_a_validator() {
    let same = [
        (
            json!({ "type": "object", "description": "one",
                    "properties": { "a": { "type": "string", "title": "A" } } }),
            json!({ "type": "object", "description": "two", "$comment": "c",
                    "properties": { "a": { "type": "string", "examples": ["x"] } } }),
        ),
        (
            json!({ "anyOf": [{ "type": "string", "default": "x" }],
                    "items": { "deprecated": true }, "$defs": { "d": { "readOnly": true } } }),
            json!({ "anyOf": [{ "type": "string" }], "items": {}, "$defs": { "d": {} } }),
        ),
    ];
    let different = [
        (
            json!({ "properties": { "title": { "type": "string" } } }),
            json!({ "properties": {} }),
        ),
        (
            json!({ "const": { "description": "a" } }),
            json!({ "const": { "description": "b" } }),
        ),
        (json!({ "enum": ["title"] }), json!({ "enum": ["default"] })),
        (
            json!({ "required": ["description"] }),
            json!({ "required": [] }),
        ),
        (
            json!({ "default": 1, "const": { "$ref": "#/default" } }),
            json!({ "default": 2, "const": { "$ref": "#/default" } }),
        ),
    ];
    for (a, b) in same {
        assert_eq!(meaning(&a), meaning(&b), "{a} vs {b}");
    }
    for (a, b) in different {
        assert_ne!(meaning(&a), meaning(&b), "{a} vs {b}");
    }
    let tool = |name: &str, input: &str| {
        format!(
            "  - name: {name}\n    description: d\n    inputSchema: {input}\n    nodes:\n      - {{ id: entry, type: entry, next: exit }}\n      - {{ id: exit, type: exit }}\n"
        )
    };
    let file = load(&format!(
        "version: \"1.0\"\nserver: {{ name: s, version: \"1\" }}\ntools:\n{}{}",
        tool(
            "a",
            "{ type: object, required: [x], description: the first }"
        ),
        tool(
            "b",
            "{ type: object, required: [x], description: the second }"
        ),
    ));
    let tools: Vec<&Tool> = file.tools.iter().collect();
    let ident = |name: &str| Ident::new(name, Span::call_site());
    let plans = plan(&tools, &[ident("a"), ident("b")]);
    let shared = Check::Validator {
        tool: ident("a"),
        module: ident("input_schema"),
    };
    assert_eq!(plans[0].input, shared);
    assert_eq!(plans[1].input, shared);
    assert!(plans[1].modules.is_empty());
}

/// Each distinct schema that can reject a value gets one validator, in
/// the tool that uses it first; later uses refer to it.
#[test]
fn each_distinct_schema_has_one_validator() {
    let tool = |name: &str, input: &str, output: &str| {
        format!(
            "  - name: {name}\n    description: d\n    inputSchema: {input}\n    outputSchema: {output}\n    nodes:\n      - {{ id: entry, type: entry, next: exit }}\n      - {{ id: exit, type: exit }}\n"
        )
    };
    let named = "{ type: object, required: [x] }";
    let file = load(&format!(
        "version: \"1.0\"\nserver: {{ name: s, version: \"1\" }}\ntools:\n{}{}{}",
        tool("a", "{ type: object }", "{ type: object }"),
        tool("b", named, named),
        tool("c", "{ type: object, title: c }", "{ type: object }"),
    ));
    let tools: Vec<&Tool> = file.tools.iter().collect();
    let ident = |name: &str| Ident::new(name, Span::call_site());
    let modules = [ident("a"), ident("b"), ident("c")];
    let plans = plan(&tools, &modules);
    let validator = |tool: &str, module: &str| Check::Validator {
        tool: ident(tool),
        module: ident(module),
    };
    let got: Vec<(Check, Option<Check>, Vec<Ident>)> = plans
        .into_iter()
        .map(|p| {
            let own = p.modules.into_iter().map(|(m, _)| m).collect();
            (p.input, p.output, own)
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                Check::Nothing,
                Some(validator("a", "output_schema")),
                vec![ident("output_schema")],
            ),
            (
                validator("b", "input_schema"),
                Some(validator("b", "input_schema")),
                vec![ident("input_schema")],
            ),
            (
                Check::Nothing,
                Some(validator("a", "output_schema")),
                vec![]
            ),
        ]
    );
}
