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
#[path = "schema_tests.rs"]
mod tests;
