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
/// The string formats elicitation allows.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];
/// The field types elicitation allows.
const TYPES: &[&str] = &["string", "number", "integer", "boolean", "array"];

/// What a field's `default` must be.
#[derive(Clone, Copy)]
enum Default<'a> {
    String,
    Number,
    Integer,
    Boolean,
    /// One of these values.
    OneOf(&'a [String]),
    /// A list of these values.
    SomeOf(&'a [String]),
}

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
                    t.pos,
                    format!(
                        "the `type` of {what} must be `object` (elicitation asks for an object of fields), found {}",
                        describe(t)
                    ),
                );
            }
            None => {
                self.err(f.pos, format!("{what} must have `type: object`"));
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
                self.err(item.pos, format!("`required` names `{}` twice", name.value));
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
            self.err(node.pos, format!("{what} has no `type`"))
                .help(format!("a form field has one of the types {}", list(TYPES)));
            return;
        };
        let kind = match &kind.1.value {
            Value::String(t) if TYPES.contains(&t.as_str()) => t.as_str(),
            Value::String(t) => {
                let d = self.err(
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

    /// `key`: a non-empty list of strings.
    fn enum_values(&mut self, f: &Fields<'_>, key: &str) -> Vec<String> {
        let Some(node) = f.get(key) else {
            self.missing(f, key, "");
            return Vec::new();
        };
        let values = self.string_list(node, &format!("`{key}`"));
        if matches!(&node.value, Value::Seq(v) if v.is_empty()) {
            self.err(node.pos, format!("`{key}` must list at least one value"));
        }
        values
    }

    /// `key`: a non-empty list of `{const, title}` options. Returns the
    /// consts.
    fn titled_values(&mut self, f: &Fields<'_>, key: &str) -> Vec<String> {
        let Some(node) = f.get(key) else {
            return Vec::new();
        };
        let Value::Seq(options) = &node.value else {
            self.wrong_type(
                node,
                &format!("`{key}`"),
                "a sequence of `{const, title}` options",
            );
            return Vec::new();
        };
        if options.is_empty() {
            self.err(node.pos, format!("`{key}` must list at least one option"));
        }
        let mut values = Vec::new();
        for option in options {
            let within = format!(" in an option of `{key}`");
            let Some(o) = self.fields(option, "an option", &["const", "title"], &within) else {
                continue;
            };
            let value = self.required_string(&o, "const", &within);
            self.required_string(&o, "title", &within);
            values.extend(value.map(|v| v.value));
        }
        values
    }

    /// A string field's `format`.
    fn string_format(&mut self, node: &yaml::Node) {
        let Some(format) = self.string(node, "`format`") else {
            return;
        };
        if FORMATS.contains(&format.value.as_str()) {
            return;
        }
        let d = self.err(
            node.pos,
            format!(
                "elicitation does not allow the string format `{}` (expected one of {})",
                format.value,
                list(FORMATS)
            ),
        );
        if let Some(s) = suggest(&format.value, FORMATS) {
            d.help(format!("did you mean `{s}`?"));
        }
    }

    /// A pair of bounds (`minLength`/`maxLength`, `minimum`/`maximum`,
    /// `minItems`/`maxItems`): each of its kind, the lower not above the
    /// upper.
    fn bounds(&mut self, f: &Fields<'_>, keys: [&str; 2], bound: Bound) {
        let [low, high] = keys.map(|key| {
            let node = f.get(key)?;
            let value = match (&node.value, bound) {
                (Value::Number(n), Bound::Count) => n
                    .as_u64()
                    .filter(|v| *v <= u64::from(u32::MAX))
                    .map(|v| v as f64),
                (Value::Number(n), Bound::Integer) => n.as_i64().map(|v| v as f64),
                (Value::Number(n), Bound::Number) => n.as_f64(),
                _ => None,
            };
            if value.is_none() {
                let expected = match bound {
                    Bound::Count => "a whole number from 0",
                    Bound::Integer => "an integer",
                    Bound::Number => "a number",
                };
                self.err(
                    node.pos,
                    format!("`{key}` must be {expected}, found {}", describe(node)),
                );
            }
            value.map(|v| (v, node.pos))
        });
        if let (Some((low, _)), Some((high, at))) = (low, high)
            && low > high
        {
            self.err(at, format!("`{}` is below `{}`", keys[1], keys[0]));
        }
    }

    /// A field's `default`: a value of the field's type (SEP-1034).
    fn form_default(&mut self, node: &yaml::Node, default: Default<'_>, what: &str) {
        if matches!(default, Default::OneOf(v) | Default::SomeOf(v) if v.is_empty()) {
            // No values: that is the error already reported.
            return;
        }
        let fits = match (default, &node.value) {
            (Default::String, Value::String(_)) | (Default::Boolean, Value::Bool(_)) => true,
            (Default::Number, Value::Number(_)) => true,
            (Default::Integer, Value::Number(n)) => n.as_i64().is_some(),
            (Default::OneOf(values), Value::String(s)) => values.contains(s),
            (Default::SomeOf(values), Value::Seq(items)) => items
                .iter()
                .all(|i| matches!(&i.value, Value::String(s) if values.contains(s))),
            _ => false,
        };
        if fits {
            return;
        }
        let expected = match default {
            Default::String => "a string".to_owned(),
            Default::Number => "a number".to_owned(),
            Default::Integer => "an integer".to_owned(),
            Default::Boolean => "a boolean".to_owned(),
            Default::OneOf(values) => format!("one of its values ({})", quoted(values)),
            Default::SomeOf(values) => format!("a list of its values ({})", quoted(values)),
        };
        self.err(
            node.pos,
            format!(
                "the `default` of {what} must be {expected}, found {}",
                describe(node)
            ),
        );
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

/// What kind of number a bound is.
#[derive(Clone, Copy)]
enum Bound {
    /// A length or a count (`u32`).
    Count,
    /// An integer field's bound (`i64`).
    Integer,
    /// A number field's bound.
    Number,
}

fn quoted(values: &[String]) -> String {
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    list(&values)
}

#[cfg(test)]
mod tests {
    use crate::test_support::{ENTRY, EXIT, errors, load, with_nodes};

    /// A graph whose elicit node has the form `schema` (lines indented
    /// ten spaces under `requestedSchema:`).
    fn form(schema: &str) -> String {
        with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: elicit\n        message: hi\n        requestedSchema:\n{schema}        routes: {{accept: exit}}\n{EXIT}"
        ))
    }

    /// The errors of `schema`, each with the text at its position.
    fn form_errors(schema: &str) -> Vec<(String, String)> {
        let src = form(schema);
        let lines: Vec<&str> = src.lines().collect();
        errors(&src)
            .into_iter()
            .map(|(line, column, message)| {
                let at: String = lines[line as usize - 1]
                    .chars()
                    .skip(column as usize - 1)
                    .take_while(|c| !matches!(c, ':' | ',' | '}' | ']'))
                    .collect();
                (at, message)
            })
            .collect()
    }

    #[test]
    fn every_allowed_shape_loads() {
        let f = load(&form(
            "          type: object\n          $schema: https://json-schema.org/draft/2020-12/schema\n          title: T\n          description: D\n          properties:\n            name: {type: string, title: Name, description: N, minLength: 1, maxLength: 9, default: Ada}\n            mail: {type: string, format: email}\n            when: {type: string, format: date-time, default: '2024-01-01T00:00:00Z'}\n            height: {type: number, minimum: -1.5, maximum: 3, default: 2}\n            age: {type: integer, minimum: 0, maximum: 150, default: 3}\n            ok: {type: boolean, default: false}\n            pet: {type: string, enum: [cat, dog], default: cat}\n            fish: {type: string, oneOf: [{const: s, title: Salmon}], default: s}\n            old: {type: string, enum: [a, b], enumNames: [A, B], default: b}\n            many: {type: array, minItems: 0, maxItems: 2, items: {type: string, enum: [x, y]}, default: [x, y]}\n            titled: {type: array, items: {anyOf: [{const: x, title: X}]}, default: [x]}\n          required: [name, pet]\n",
        ));
        let crate::model::NodeKind::Elicit { schema, .. } = &f.tools[0].nodes[1].kind else {
            panic!();
        };
        assert_eq!(
            schema["properties"]["titled"]["items"]["anyOf"][0]["title"],
            "X"
        );
        assert_eq!(schema["properties"].as_object().unwrap().len(), 11);
    }

    #[test]
    fn a_form_is_a_flat_object() {
        let e = form_errors(
            "          type: array\n          properties:\n            nested: {type: object, properties: {}}\n            listed: {type: [string, 'null']}\n            none: {title: x}\n            word: {type: strng}\n          additionalProperties: false\n          required: [nested, nme, word, word]\n",
        );
        let e: Vec<(&str, &str)> = e.iter().map(|(a, m)| (a.as_str(), m.as_str())).collect();
        assert_eq!(
            e,
            [
                (
                    "array",
                    "the `type` of `requestedSchema` must be `object` (elicitation asks for an object of fields), found the string `array`"
                ),
                (
                    "object",
                    "the field `nested` of `requestedSchema` has type `object`, which elicitation does not allow: a form is flat"
                ),
                (
                    "[string",
                    "the `type` of the field `listed` of `requestedSchema` must be a string, found a sequence"
                ),
                (
                    "{title",
                    "the field `none` of `requestedSchema` has no `type`"
                ),
                (
                    "strng",
                    "the field `word` of `requestedSchema` has type `strng`, which elicitation does not allow: a form is flat"
                ),
                (
                    "additionalProperties",
                    "elicitation does not allow `additionalProperties` in `requestedSchema`"
                ),
                (
                    "nme",
                    "`required` names `nme`, which is not a property of `requestedSchema`"
                ),
                ("word", "`required` names `word` twice"),
            ]
        );
    }

    #[test]
    fn fields_have_only_their_keywords() {
        let e = form_errors(
            "          type: object\n          properties:\n            a: {type: string, pattern: '^x', format: phone, minLength: -1, maxLength: 2.5}\n            b: {type: integer, minimum: 1.5, maximum: 0, default: 1.5}\n            c: {type: number, minimum: 5, maximum: 1, default: '3'}\n            d: {type: boolean, default: 'yes', enum: [true]}\n            e: {type: string, enum: [], default: z}\n            f: {type: string, enum: [a, b], enumNames: [A], format: email}\n            g: {type: string, oneOf: [{const: a}, {const: b, title: B, x: 1}], default: c}\n            h: {type: array, items: {type: number, enum: [a]}, default: [a, z]}\n            i: {type: array, items: {anyOf: [{const: a, title: A}], type: string}, minItems: x}\n            j: {type: array}\n            k: {type: string, titel: x}\n",
        );
        let e: Vec<(&str, &str)> = e.iter().map(|(a, m)| (a.as_str(), m.as_str())).collect();
        assert_eq!(
            e,
            [
                (
                    "pattern",
                    "elicitation does not allow `pattern` in a field of type `string`"
                ),
                (
                    "phone",
                    "elicitation does not allow the string format `phone` (expected one of `email`, `uri`, `date`, `date-time`)"
                ),
                (
                    "-1",
                    "`minLength` must be a whole number from 0, found `-1`"
                ),
                (
                    "2.5",
                    "`maxLength` must be a whole number from 0, found `2.5`"
                ),
                ("1.5", "`minimum` must be an integer, found `1.5`"),
                (
                    "1.5",
                    "the `default` of the field `b` of `requestedSchema` must be an integer, found `1.5`"
                ),
                ("1", "`maximum` is below `minimum`"),
                (
                    "'3'",
                    "the `default` of the field `c` of `requestedSchema` must be a number, found the string `3`"
                ),
                (
                    "'yes'",
                    "the `default` of the field `d` of `requestedSchema` must be a boolean, found the string `yes`"
                ),
                (
                    "enum",
                    "elicitation does not allow `enum` in a field of type `boolean`"
                ),
                ("[", "`enum` must list at least one value"),
                ("[A", "`enumNames` must have one title per value of `enum`"),
                (
                    "format",
                    "elicitation does not allow `format` in a legacy enum field (`enumNames`)"
                ),
                (
                    "{const",
                    "missing required field `title` in an option of `oneOf`"
                ),
                ("x", "unknown key `x` in an option of `oneOf`"),
                (
                    "c",
                    "the `default` of the field `g` of `requestedSchema` must be one of its values (`a`, `b`), found the string `c`"
                ),
                (
                    "number",
                    "the `type` of `items` must be `string`, found the string `number`"
                ),
                (
                    "[a",
                    "the `default` of the field `h` of `requestedSchema` must be a list of its values (`a`), found a sequence"
                ),
                (
                    "type",
                    "elicitation does not allow `type` in titled `items`"
                ),
                (
                    "x",
                    "`minItems` must be a whole number from 0, found the string `x`"
                ),
                (
                    "{type",
                    "missing required field `items` in the field `j` of `requestedSchema`"
                ),
                (
                    "titel",
                    "unknown key `titel` in the field `k` of `requestedSchema`"
                ),
            ]
        );
    }
}
