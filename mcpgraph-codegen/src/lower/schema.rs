//! Checks a tool's `inputSchema` and `outputSchema`: a JSON Schema with
//! `type: object` at the root, the keywords whose shape is easy to get
//! wrong in YAML, then the whole schema as jsonschema compiles it (its
//! draft's meta-schema, `$ref`s, patterns), so the runtime, which compiles
//! it again, never meets a schema that fails. The schemas themselves are
//! kept whole, as JSON.

use super::Cx;
use super::fields::describe;
use crate::diag::codes;
use crate::suggest::suggest;
use crate::yaml::{self, Value};

impl Cx<'_, '_> {
    /// A tool's schema must be a JSON Schema object schema.
    pub(super) fn schema(&mut self, node: &yaml::Node, what: &str) {
        let Value::Map(entries) = &node.value else {
            self.wrong_type(node, what, "a mapping (a JSON Schema with `type: object`)");
            return;
        };
        match entries.iter().find(|(k, _)| k.key_text() == "type") {
            Some((_, v)) if v.value == Value::String("object".to_owned()) => {}
            Some((_, v)) => {
                self.err(
                    codes::SCHEMA_NOT_OBJECT,
                    v.pos,
                    format!(
                        "the `type` of {what} must be `object` (MCP requires it), found {}",
                        describe(v)
                    ),
                );
            }
            None => {
                self.err(
                    codes::SCHEMA_NOT_OBJECT,
                    node.pos,
                    format!("{what} must have `type: object`"),
                )
                .help("add `type: object` (MCP requires tool schemas to describe objects)");
            }
        }
        let before = self.diags.error_count();
        self.json_schema(node, what, 0);
        if self.diags.error_count() == before {
            self.compile_schema(node, what);
        }
    }

    /// Compiles the schema as the runtime will; an error is reported at
    /// the part of the schema it names.
    fn compile_schema(&mut self, node: &yaml::Node, what: &str) {
        let Err(e) = jsonschema::validator_for(&node.to_json()) else {
            return;
        };
        let pointer = e.instance_path().to_string();
        let at = locate(node, &pointer);
        let path = if pointer.is_empty() { "/" } else { &pointer };
        self.err(
            codes::INVALID_SCHEMA,
            at.pos,
            format!("{what} is not a valid JSON Schema at `{path}`: {e}"),
        );
    }

    /// A light check of JSON Schema keywords whose shape is easy to get
    /// wrong in YAML.
    fn json_schema(&mut self, node: &yaml::Node, what: &str, depth: usize) {
        const TYPES: &[&str] = &[
            "object", "array", "string", "number", "integer", "boolean", "null",
        ];
        let Value::Map(entries) = &node.value else {
            if !matches!(node.value, Value::Bool(_)) {
                self.wrong_type(node, &format!("a schema in {what}"), "a mapping");
            }
            return;
        };
        if depth > yaml::MAX_DEPTH {
            return;
        }
        for (k, v) in entries {
            match (k.key_text().as_str(), &v.value) {
                // The root's `type` is checked by `schema`.
                ("type", _) if depth == 0 => {}
                ("type", Value::String(t)) => self.schema_type(v, t, TYPES),
                ("type", Value::Seq(items)) => {
                    for i in items {
                        match &i.value {
                            Value::String(t) => self.schema_type(i, t, TYPES),
                            _ => self.wrong_type(i, "an item of `type`", "a string"),
                        }
                    }
                }
                ("type", _) => self.wrong_type(v, "`type`", "a string or a sequence of strings"),
                (
                    "properties" | "patternProperties" | "$defs" | "definitions",
                    Value::Map(props),
                ) => {
                    for (_, p) in props {
                        self.json_schema(p, what, depth + 1);
                    }
                }
                ("properties" | "patternProperties" | "$defs" | "definitions", _) => {
                    self.wrong_type(v, &format!("`{}`", k.key_text()), "a mapping")
                }
                ("items" | "additionalProperties" | "not", Value::Map(_)) => {
                    self.json_schema(v, what, depth + 1)
                }
                ("items" | "additionalProperties" | "not", Value::Bool(_)) => {}
                ("items" | "additionalProperties" | "not", _) => {
                    self.wrong_type(v, &format!("`{}`", k.key_text()), "a schema (a mapping)")
                }
                ("allOf" | "anyOf" | "oneOf", Value::Seq(items)) => {
                    for i in items {
                        self.json_schema(i, what, depth + 1);
                    }
                }
                ("allOf" | "anyOf" | "oneOf", _) => {
                    self.wrong_type(v, &format!("`{}`", k.key_text()), "a sequence of schemas")
                }
                ("required", Value::Seq(items)) => {
                    for i in items {
                        self.string(i, "an item of `required`");
                    }
                }
                ("required", _) => self.wrong_type(v, "`required`", "a sequence of strings"),
                ("enum", Value::Seq(_)) => {}
                ("enum", _) => self.wrong_type(v, "`enum`", "a sequence"),
                _ => {}
            }
        }
    }

    fn schema_type(&mut self, node: &yaml::Node, t: &str, types: &[&str]) {
        if types.contains(&t) {
            return;
        }
        let d = self.err(
            codes::UNKNOWN_SCHEMA_TYPE,
            node.pos,
            format!(
                "unknown JSON Schema type `{t}` (expected one of {})",
                types.join(", ")
            ),
        );
        if let Some(s) = suggest(t, types) {
            d.help(format!("did you mean `{s}`?"));
        }
    }
}

/// The node a JSON pointer (RFC 6901) names inside `node`, or the deepest
/// one it reaches.
pub(crate) fn locate<'a>(node: &'a yaml::Node, pointer: &str) -> &'a yaml::Node {
    let mut at = node;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let next = match &at.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.key_text() == token)
                .map(|(_, v)| v),
            Value::Seq(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        match next {
            Some(next) => at = next,
            None => break,
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use crate::test_support::ENTRY;
    use crate::test_support::EXIT;
    use crate::test_support::load;
    use crate::test_support::messages;
    use crate::test_support::one_error;
    use crate::test_support::with_nodes;

    #[test]
    fn schemas() {
        let base = with_nodes(&format!("{ENTRY}{EXIT}")).replace("next: a\n", "next: exit\n");
        let src = base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {properties: {}}",
        );
        assert_eq!(messages(&src), ["`inputSchema` must have `type: object`"]);
        let src = base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {type: object}\n    outputSchema: {type: array}",
        );
        assert_eq!(
            messages(&src),
            [
                "the `type` of `outputSchema` must be `object` (MCP requires it), found the string `array`"
            ]
        );
        let src = base.replace("inputSchema: {type: object}", "inputSchema: [1]");
        assert_eq!(
            messages(&src),
            [
                "`inputSchema` must be a mapping (a JSON Schema with `type: object`), found a sequence"
            ]
        );
        let src = base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {type: object, properties: {a: {type: strng}}, required: a}",
        );
        assert_eq!(
            messages(&src),
            [
                "unknown JSON Schema type `strng` (expected one of object, array, string, number, integer, boolean, null)",
                "`required` must be a sequence of strings, found a string",
            ]
        );
        // What only compiling the schema finds, at the keyword at fault.
        let src = base.replace(
            "inputSchema: {type: object}",
            "inputSchema:\n      type: object\n      properties:\n        n: {minimum: \"zero\"}",
        );
        let (line, column, message) = one_error(&src);
        let at = src.find("\"zero\"").unwrap();
        let want_line = src[..at].matches('\n').count() + 1;
        assert_eq!(line as usize, want_line, "{message}");
        assert_eq!(
            column as usize,
            at - src[..at].rfind('\n').unwrap(),
            "{message}"
        );
        assert!(
            message.starts_with(
                "`inputSchema` is not a valid JSON Schema at `/properties/n/minimum`: "
            ),
            "{message}"
        );
        let src = base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {type: object, properties: {s: {type: string, pattern: \"(\"}}}",
        );
        assert!(
            one_error(&src)
                .2
                .contains("is not a valid JSON Schema at `/properties/s/pattern`"),
            "{:?}",
            one_error(&src)
        );
        let f = load(&base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {type: object, properties: {n: {type: number}}}",
        ));
        assert_eq!(
            f.tools[0].input_schema,
            serde_json::json!({"type": "object", "properties": {"n": {"type": "number"}}})
        );
    }
}
