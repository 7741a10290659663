//! Checks a tool's `inputSchema` and `outputSchema`: a JSON Schema with
//! `type: object` at the root, and the keywords whose shape is easy to get
//! wrong in YAML. The schemas themselves are kept whole, as JSON.

use super::Cx;
use super::fields::describe;
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
                    v.pos,
                    format!(
                        "the `type` of {what} must be `object` (MCP requires it), found {}",
                        describe(v)
                    ),
                );
            }
            None => {
                self.err(node.pos, format!("{what} must have `type: object`"))
                    .help("add `type: object` (MCP requires tool schemas to describe objects)");
            }
        }
        self.json_schema(node, what, 0);
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

#[cfg(test)]
mod tests {
    use crate::test_support::ENTRY;
    use crate::test_support::EXIT;
    use crate::test_support::load;
    use crate::test_support::messages;
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
