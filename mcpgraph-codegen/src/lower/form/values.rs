//! The values inside a form field: the choices of an enum, a string's
//! `format`, a pair of bounds, and a `default` of the field's type.

use crate::diag::codes;
use crate::lower::Cx;
use crate::lower::fields::{Fields, describe};
use crate::suggest::{list, suggest};
use crate::yaml::{self, Value};

/// The string formats elicitation allows.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// What a field's `default` must be.
#[derive(Clone, Copy)]
pub(super) enum Default<'a> {
    String,
    Number,
    Integer,
    Boolean,
    /// One of these values.
    OneOf(&'a [String]),
    /// A list of these values.
    SomeOf(&'a [String]),
}

/// What kind of number a bound is.
#[derive(Clone, Copy)]
pub(super) enum Bound {
    /// A length or a count (`u32`).
    Count,
    /// An integer field's bound (`i64`).
    Integer,
    /// A number field's bound.
    Number,
}

impl Cx<'_, '_> {
    /// `key`: a non-empty list of strings.
    pub(super) fn enum_values(&mut self, f: &Fields<'_>, key: &str) -> Vec<String> {
        let Some(node) = f.get(key) else {
            self.missing(f, key, "");
            return Vec::new();
        };
        let values = self.string_list(node, &format!("`{key}`"));
        if matches!(&node.value, Value::Seq(v) if v.is_empty()) {
            self.err(
                codes::FORM_VALUES,
                node.pos,
                format!("`{key}` must list at least one value"),
            );
        }
        values
    }

    /// `key`: a non-empty list of `{const, title}` options. Returns the
    /// consts.
    pub(super) fn titled_values(&mut self, f: &Fields<'_>, key: &str) -> Vec<String> {
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
            self.err(
                codes::FORM_VALUES,
                node.pos,
                format!("`{key}` must list at least one option"),
            );
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
    pub(super) fn string_format(&mut self, node: &yaml::Node) {
        let Some(format) = self.string(node, "`format`") else {
            return;
        };
        if FORMATS.contains(&format.value.as_str()) {
            return;
        }
        let d = self.err(
            codes::FORM_STRING_FORMAT,
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
    pub(super) fn bounds(&mut self, f: &Fields<'_>, keys: [&str; 2], bound: Bound) {
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
                    codes::INVALID_NUMBER,
                    node.pos,
                    format!("`{key}` must be {expected}, found {}", describe(node)),
                );
            }
            value.map(|v| (v, node.pos))
        });
        if let (Some((low, _)), Some((high, at))) = (low, high)
            && low > high
        {
            self.err(
                codes::INVERTED_RANGE,
                at,
                format!("`{}` is below `{}`", keys[1], keys[0]),
            );
        }
    }

    /// A field's `default`: a value of the field's type (SEP-1034).
    pub(super) fn form_default(&mut self, node: &yaml::Node, default: Default<'_>, what: &str) {
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
            codes::FORM_DEFAULT_TYPE,
            node.pos,
            format!(
                "the `default` of {what} must be {expected}, found {}",
                describe(node)
            ),
        );
    }
}

fn quoted(values: &[String]) -> String {
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    list(&values)
}
