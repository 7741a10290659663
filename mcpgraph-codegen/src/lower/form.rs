//! Checks an `elicit` node's `requestedSchema` against what MCP elicitation
//! allows: an object of flat fields, each a string (with `format` `email`,
//! `uri`, `date` or `date-time`, and `minLength`/`maxLength`), a number or
//! integer (`minimum`/`maximum`), a boolean, or one of the enum shapes of
//! SEP-1330 (untitled `enum`, titled `oneOf: [{const, title}]`, the legacy
//! `enumNames`, and the multi-select `type: array` with `items: {enum}` or
//! `items: {anyOf: [{const, title}]}`), each with a `default` of its type
//! (SEP-1034). Any other keyword is an error at its key: what the graph
//! writes is exactly what the client is sent.

use super::Cx;
use super::fields::{Fields, describe};
use crate::diag::codes;
use crate::suggest::{list, suggest};
use crate::yaml::{self, Value};

/// The keys of the schema itself.
const ROOT: &[&str] = &[
    "$schema",
    "type",
    "title",
    "description",
    "properties",
    "required",
];
/// What every field may have.
const COMMON: &[&str] = &["type", "title", "description", "default"];
/// What each shape adds.
const STRING: &[&str] = &["minLength", "maxLength", "format"];
const NUMBER: &[&str] = &["minimum", "maximum"];
const UNTITLED_ENUM: &[&str] = &["enum"];
const LEGACY_ENUM: &[&str] = &["enum", "enumNames"];
const TITLED_ENUM: &[&str] = &["oneOf"];
const ARRAY: &[&str] = &["items", "minItems", "maxItems"];
/// The field types elicitation allows.
const TYPES: &[&str] = &["string", "number", "integer", "boolean", "array"];

impl Cx<'_, '_> {
    /// The schema as JSON, when it is a form elicitation allows (else its
    /// problems are reported).
    pub(super) fn form(&mut self, node: &yaml::Node) -> Option<serde_json::Value> {
        let before = self.diags.error_count();
        self.form_root(node);
        (self.diags.error_count() == before).then(|| node.to_json())
    }

    fn form_root(&mut self, node: &yaml::Node) {
        let what = "`requestedSchema`";
        let Some(f) = self.form_keys(node, what, &[ROOT], " in `requestedSchema`") else {
            return;
        };
        match f.get("type") {
            Some(t) if t.value == Value::String("object".to_owned()) => {}
            Some(t) => {
                self.err(
                    codes::SCHEMA_NOT_OBJECT, t.pos,
                    format!(
                        "the `type` of {what} must be `object` (elicitation asks for an object of fields), found {}",
                        describe(t)
                    ),
                );
            }
            None => {
                self.err(
                    codes::SCHEMA_NOT_OBJECT,
                    f.pos,
                    format!("{what} must have `type: object`"),
                );
            }
        }
        for key in ["$schema", "title", "description"] {
            self.optional_string(&f, key);
        }
        let mut names = Vec::new();
        match f.get("properties") {
            Some(props) => {
                for (k, v) in self.fields_any(props, "`properties`").unwrap_or_default() {
                    let name = k.key_text();
                    self.form_field(&name, v);
                    names.push(name);
                }
            }
            None => self.missing(&f, "properties", &format!(" in {what}")),
        }
        if let Some(required) = f.get("required") {
            self.form_required(required, &names);
        }
    }

    /// `required`: names of properties, each once.
    fn form_required(&mut self, node: &yaml::Node, names: &[String]) {
        let Value::Seq(items) = &node.value else {
            self.wrong_type(node, "`required`", "a sequence of property names");
            return;
        };
        let mut seen = Vec::new();
        for item in items {
            let Some(name) = self.string(item, "an item of `required`") else {
                continue;
            };
            if !names.contains(&name.value) {
                let d = self.err(
                    codes::FORM_REQUIRED,
                    item.pos,
                    format!(
                        "`required` names `{}`, which is not a property of `requestedSchema`",
                        name.value
                    ),
                );
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                if let Some(s) = suggest(&name.value, &names) {
                    d.help(format!("did you mean `{s}`?"));
                }
            } else if seen.contains(&name.value) {
                self.err(
                    codes::FORM_REQUIRED,
                    item.pos,
                    format!("`required` names `{}` twice", name.value),
                );
            }
            seen.push(name.value);
        }
    }

    /// One field of the form.
    fn form_field(&mut self, name: &str, node: &yaml::Node) {
        let what = format!("the field `{name}` of `requestedSchema`");
        let Value::Map(entries) = &node.value else {
            self.wrong_type(node, &what, "a mapping");
            return;
        };
        let has = |key: &str| entries.iter().any(|(k, _)| k.key_text() == key);
        let Some(kind) = entries.iter().find(|(k, _)| k.key_text() == "type") else {
            self.err(
                codes::FORM_FIELD_TYPE,
                node.pos,
                format!("{what} has no `type`"),
            )
            .help(format!("a form field has one of the types {}", list(TYPES)));
            return;
        };
        let kind = match &kind.1.value {
            Value::String(t) if TYPES.contains(&t.as_str()) => t.as_str(),
            Value::String(t) => {
                let d = self.err(
                    codes::FORM_FIELD_TYPE,
                    kind.1.pos,
                    format!(
                        "{what} has type `{t}`, which elicitation does not allow: a form is flat"
                    ),
                );
                match suggest(t, TYPES) {
                    Some(s) if s != "array" => d.help(format!("did you mean `{s}`?")),
                    _ => d.help(format!("a form field has one of the types {}", list(TYPES))),
                };
                return;
            }
            _ => {
                self.wrong_type(&kind.1, &format!("the `type` of {what}"), "a string");
                return;
            }
        };
        let shape = match kind {
            "string" if has("enumNames") => Shape::LegacyEnum,
            "string" if has("enum") => Shape::Enum,
            "string" if has("oneOf") => Shape::TitledEnum,
            "array" => Shape::MultiSelect,
            _ => Shape::Plain,
        };
        let (label, keys): (String, &[&str]) = match shape {
            Shape::LegacyEnum => ("a legacy enum field (`enumNames`)".to_owned(), LEGACY_ENUM),
            Shape::Enum => ("an enum field (`enum`)".to_owned(), UNTITLED_ENUM),
            Shape::TitledEnum => ("a titled enum field (`oneOf`)".to_owned(), TITLED_ENUM),
            Shape::MultiSelect => ("a multi-select field (`type: array`)".to_owned(), ARRAY),
            Shape::Plain => (
                format!("a field of type `{kind}`"),
                match kind {
                    "string" => STRING,
                    "number" | "integer" => NUMBER,
                    _ => &[],
                },
            ),
        };
        let Some(f) = self.form_keys(node, &label, &[COMMON, keys], &format!(" in {what}")) else {
            return;
        };
        for key in ["title", "description"] {
            self.optional_string(&f, key);
        }
        let values: Vec<String>;
        let default = match (shape, kind) {
            (Shape::LegacyEnum | Shape::Enum, _) => {
                values = self.enum_values(&f, "enum");
                if let (Some(names), Some(n)) = (f.get("enumNames"), f.get("enum")) {
                    let titles = self.string_list(names, "`enumNames`");
                    if matches!(&n.value, Value::Seq(v) if v.len() != titles.len()) {
                        self.err(
                            codes::FORM_VALUES,
                            names.pos,
                            "`enumNames` must have one title per value of `enum`",
                        );
                    }
                }
                Default::OneOf(&values)
            }
            (Shape::TitledEnum, _) => {
                values = self.titled_values(&f, "oneOf");
                Default::OneOf(&values)
            }
            (Shape::MultiSelect, _) => {
                self.bounds(&f, ["minItems", "maxItems"], Bound::Count);
                values = match f.get("items") {
                    Some(items) => self.items(items),
                    None => {
                        self.missing(&f, "items", &format!(" in {what}"));
                        Vec::new()
                    }
                };
                Default::SomeOf(&values)
            }
            (Shape::Plain, "string") => {
                self.bounds(&f, ["minLength", "maxLength"], Bound::Count);
                if let Some(format) = f.get("format") {
                    self.string_format(format);
                }
                Default::String
            }
            (Shape::Plain, "number") => {
                self.bounds(&f, ["minimum", "maximum"], Bound::Number);
                Default::Number
            }
            (Shape::Plain, "integer") => {
                self.bounds(&f, ["minimum", "maximum"], Bound::Integer);
                Default::Integer
            }
            _ => Default::Boolean,
        };
        if let Some(d) = f.get("default") {
            self.form_default(d, default, &what);
        }
    }

    /// A multi-select field's `items`: `{type: string, enum}` or
    /// `{anyOf: [{const, title}]}`. Returns the values.
    fn items(&mut self, node: &yaml::Node) -> Vec<String> {
        let titled =
            matches!(&node.value, Value::Map(e) if e.iter().any(|(k, _)| k.key_text() == "anyOf"));
        if titled {
            let Some(f) = self.form_keys(node, "titled `items`", &[&["anyOf"]], " in `items`")
            else {
                return Vec::new();
            };
            return self.titled_values(&f, "anyOf");
        }
        let Some(f) = self.form_keys(node, "`items`", &[&["type", "enum"]], " in `items`") else {
            return Vec::new();
        };
        match f.get("type") {
            Some(t) if t.value == Value::String("string".to_owned()) => {}
            Some(t) => {
                self.err(
                    codes::FORM_FIELD_TYPE,
                    t.pos,
                    format!(
                        "the `type` of `items` must be `string`, found {}",
                        describe(t)
                    ),
                );
            }
            None => self.missing(&f, "type", " in `items`"),
        }
        self.enum_values(&f, "enum")
    }

    /// `node` as a mapping whose keys are those of `shapes`; an unknown key
    /// is reported as one elicitation does not allow (with a "did you
    /// mean" when it looks like a typo of an allowed one).
    fn form_keys<'n>(
        &mut self,
        node: &'n yaml::Node,
        what: &str,
        shapes: &[&[&str]],
        context: &str,
    ) -> Option<Fields<'n>> {
        let allowed: Vec<&str> = shapes.iter().flat_map(|s| s.iter().copied()).collect();
        let explain = |key: &str| {
            suggest(key, &allowed).is_none().then(|| {
                (
                    format!("elicitation does not allow `{key}` in {what}"),
                    format!("{what} may have {}", list(&allowed)),
                )
            })
        };
        self.fields_with(node, what, &allowed, context, explain)
    }
}

/// Which of elicitation's shapes a field has.
#[derive(Clone, Copy)]
enum Shape {
    /// A string, number, integer or boolean.
    Plain,
    /// `type: string` with `enum`.
    Enum,
    /// `type: string` with `enum` and `enumNames`.
    LegacyEnum,
    /// `type: string` with `oneOf: [{const, title}]`.
    TitledEnum,
    /// `type: array` with `items`.
    MultiSelect,
}

#[cfg(test)]
mod tests;
mod values;

use values::{Bound, Default};
