//! The tools' `inputSchema`s and `outputSchema`s as Rust: one validator
//! module per distinct schema that can reject a value reaching it (see
//! [`plan`]), written at build time by jsonschema's own compile-time
//! generator (`jsonschema-macros-core`, the code behind
//! `#[jsonschema::validator]`), so a server never compiles a schema and
//! does not link jsonschema's schema compiler (about 4 MiB of resident
//! memory and 3 MB of binary that a run-time validator cost).
//!
//! The generator's attribute macro finds the `jsonschema` crate among the
//! *user's* dependencies, which a graph's crate does not have; its
//! `bench` entry point takes the schema as a value and leaves the crate to
//! the scope, where each module imports it from the runtime. The schema was
//! compiled once already by `lower::schema` (with the positions of its
//! errors), so generation does not fail on a schema that got here.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde_json::Value;
use syn::Ident;

use crate::model::Tool;

/// How one schema of a tool is checked.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Check {
    /// The schema accepts every value that reaches it: nothing to run.
    Nothing,
    /// The validator module `module` of the tool module `tool`.
    Validator { tool: Ident, module: Ident },
}

impl Check {
    /// The path of the check function, for `rt::ToolMeta`: a validator's
    /// `check`, or `rt::no_check`.
    pub(super) fn path(&self) -> TokenStream {
        match self {
            Check::Nothing => quote!(rt::no_check),
            Check::Validator { tool, module } => quote!(#tool::#module::check),
        }
    }
}

/// How one tool's schemas are checked, and the validator modules its own
/// module holds.
pub(super) struct ToolSchemas<'t> {
    /// `inputSchema`'s check.
    pub(super) input: Check,
    /// `outputSchema`'s check (a validator), when the tool has one.
    pub(super) output: Option<Check>,
    /// The validators emitted in this tool's module: (module name, schema).
    pub(super) modules: Vec<(Ident, &'t Value)>,
}

/// The checks of every tool (`modules`: the tool modules, in the same
/// order). An `inputSchema` that accepts every object (arguments are one)
/// gets no validator. Any other schema gets one (an `outputSchema` always
/// does: it says `type: object`, and a result need not be one), emitted in
/// the module of the first tool that uses it (`input_schema` or
/// `output_schema`, after that first use), to which later uses of a schema
/// of the same [`meaning`] refer.
pub(super) fn plan<'t>(tools: &[&'t Tool], modules: &[Ident]) -> Vec<ToolSchemas<'t>> {
    let mut emitted: Vec<(String, Check)> = Vec::new();
    let mut plans = Vec::with_capacity(tools.len());
    for (tool, tool_module) in tools.iter().zip(modules) {
        let mut own = Vec::new();
        let mut validator = |schema: &'t Value, name: &str| {
            let text = meaning(schema);
            if let Some((_, check)) = emitted.iter().find(|(t, _)| *t == text) {
                return check.clone();
            }
            let module = Ident::new(name, Span::call_site());
            own.push((module.clone(), schema));
            let check = Check::Validator {
                tool: tool_module.clone(),
                module,
            };
            emitted.push((text, check.clone()));
            check
        };
        let input = if accepts_everything(&tool.input_schema, true) {
            Check::Nothing
        } else {
            validator(&tool.input_schema, "input_schema")
        };
        let output = tool
            .output_schema
            .as_ref()
            .map(|schema| validator(schema, "output_schema"));
        plans.push(ToolSchemas {
            input,
            output,
            modules: own,
        });
    }
    plans
}

/// The keywords that only annotate a schema: they change no value's
/// validity, so two schemas that differ only in them share a validator.
const ANNOTATIONS: [&str; 8] = [
    "title",
    "description",
    "$comment",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// What `schema` accepts, as text: the schema with its [`ANNOTATIONS`]
/// removed wherever they are keywords (not where they are data: a property
/// named `title`, a `const` or `enum` value). A schema with a reference
/// into one of them (`$ref: "#/properties/a/default"`) keeps them all.
fn meaning(schema: &Value) -> String {
    if refers_to_an_annotation(schema) {
        return schema.to_string();
    }
    without_annotations(schema).to_string()
}

/// `schema` without its annotations (see [`meaning`]).
fn without_annotations(schema: &Value) -> Value {
    let Value::Object(keywords) = schema else {
        return schema.clone();
    };
    let each = |value: &Value, f: fn(&Value) -> Value| match value {
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), f(v))).collect()),
        other => other.clone(),
    };
    let items = |value: &Value| match value {
        Value::Array(schemas) => Value::Array(schemas.iter().map(without_annotations).collect()),
        other => without_annotations(other),
    };
    let kept = keywords
        .iter()
        .filter(|(keyword, _)| !ANNOTATIONS.contains(&keyword.as_str()))
        .map(|(keyword, value)| {
            let value = match keyword.as_str() {
                "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "additionalProperties"
                | "additionalItems"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema" => without_annotations(value),
                "items" | "allOf" | "anyOf" | "oneOf" | "prefixItems" => items(value),
                "properties" | "patternProperties" | "definitions" | "$defs"
                | "dependentSchemas" => each(value, without_annotations),
                // A schema, or an array of property names.
                "dependencies" => each(value, items),
                _ => value.clone(),
            };
            (keyword.clone(), value)
        });
    Value::Object(kept.collect())
}

/// Whether a reference anywhere in `schema` has an annotation keyword
/// among its pointer's segments.
fn refers_to_an_annotation(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(keyword, value)| {
            let pointer = matches!(keyword.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef")
                .then(|| value.as_str())
                .flatten();
            pointer.is_some_and(|p| p.split('/').any(|segment| ANNOTATIONS.contains(&segment)))
                || refers_to_an_annotation(value)
        }),
        Value::Array(values) => values.iter().any(refers_to_an_annotation),
        _ => false,
    }
}

/// Whether `schema` accepts every value that can reach it, so that no
/// validator need run; `arguments`: the values are a tool's arguments,
/// always a JSON object. Deliberately narrow: `true`, and objects of
/// annotations (`title`, `description`, ...), a `type` naming `object` (for
/// arguments only), `properties` whose schemas accept everything, an empty
/// `required` and an `additionalProperties` that accepts everything. Any
/// other keyword gets a validator.
fn accepts_everything(schema: &Value, arguments: bool) -> bool {
    let Value::Object(keywords) = schema else {
        return *schema == Value::Bool(true);
    };
    keywords
        .iter()
        .all(|(keyword, value)| match keyword.as_str() {
            annotation if ANNOTATIONS.contains(&annotation) => true,
            "type" => arguments && names_object(value),
            "properties" => value
                .as_object()
                .is_some_and(|p| p.values().all(|s| accepts_everything(s, false))),
            "required" => value.as_array().is_some_and(Vec::is_empty),
            "additionalProperties" => accepts_everything(value, false),
            _ => false,
        })
}

/// Whether a `type` keyword's value allows objects.
fn names_object(types: &Value) -> bool {
    match types {
        Value::String(t) => t == "object",
        Value::Array(ts) => ts.iter().any(|t| t == "object"),
        _ => false,
    }
}

/// `pub mod <module>` holding `struct Validator` for `schema` and
/// `fn check(&Value) -> Option<String>`, the first way a value breaks it
/// (`rt::schema_violation`'s wording). Expects `rt` in the parent scope.
pub(super) fn validator_module(
    schema: &serde_json::Value,
    module: &Ident,
    krate: &syn::Path,
) -> TokenStream {
    let input = jsonschema_macros_core::bench::prepare(schema.clone());
    let body = jsonschema_macros_core::bench::generate(&input);
    quote! {
        #[doc(hidden)]
        #[allow(unused_imports, unused_qualifications, clippy::all, clippy::pedantic)]
        pub mod #module {
            // The generated code is written against the standard prelude
            // and a `jsonschema` in scope.
            use ::std::prelude::rust_2021::*;
            use ::std::{self as std, matches, vec};
            use #krate::__private as rt;
            use rt::jsonschema;

            /// The schema's validator.
            pub struct Validator;

            #body

            /// The first way `value` breaks the schema, or `None`.
            pub fn check(value: &rt::serde_json::Value) -> rt::Option<rt::String> {
                if Validator::is_valid(value) {
                    return rt::None;
                }
                rt::schema_violation(Validator::validate(value))
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
}
