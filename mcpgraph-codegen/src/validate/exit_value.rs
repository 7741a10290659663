//! The value a tool hands to its exit, against the tool's `outputSchema`:
//! the object constructors of the transforms that go to the exit.

use serde_json::Value;

use super::lexer::find_string;
use super::shapes::{Shape, Types};
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::lower::expr_pos;
use crate::model::{NodeKind, Tool};
use crate::suggest::suggest;

/// The value of the transforms that go to the exit against the tool's
/// `outputSchema`: a required property no constructor writes is surely
/// missing (an error); a key the schema does not list is an error when
/// it is closed.
pub(super) fn check_exit_value<'a>(types: &Types<'a>, tool: &'a Tool, diags: &mut Diagnostics) {
    // Content blocks returned as they came are another result.
    let (Some(schema), None) = (&tool.output_schema, &tool.exit_content) else {
        return;
    };
    let Some(exit) = tool.nodes.iter().find(|n| matches!(n.kind, NodeKind::Exit)) else {
        return;
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for node in &tool.nodes {
        let NodeKind::Transform { expr, .. } = &node.kind else {
            continue;
        };
        if !node.kind.targets().iter().any(|t| t.value == exit.id.value) {
            continue;
        }
        let Shape::Object(fields) = types.output_shape(tool, &node.id.value) else {
            continue;
        };
        let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
        for r in &required {
            if !keys.contains(r) {
                diags
                    .error(
                        codes::OUTPUT_SCHEMA_MISMATCH, expr.pos,
                        format!(
                            "the tool's result lacks `{r}`, which its `outputSchema` requires: `{}` goes to the exit with an object without it",
                            node.id.value
                        ),
                    )
                    .note(format!("the object's keys: {}", keys.join(", ")));
            }
        }
        if let (Some(properties), true) = (properties, closed) {
            for key in &keys {
                if !properties.contains_key(*key) {
                    let listed: Vec<&str> = properties.keys().map(String::as_str).collect();
                    let pos = expr_pos(expr, find_string(&expr.source, key).unwrap_or(0));
                    let d = diags.error(
                        codes::OUTPUT_SCHEMA_MISMATCH, pos,
                        format!(
                            "the tool's result has `{key}`, which its `outputSchema` does not allow (`additionalProperties: false`)"
                        ),
                    );
                    d.note(format!("its properties: {}", listed.join(", ")));
                    if let Some(s) = suggest(key, &listed) {
                        d.help(format!("did you mean `{s}`?"));
                    }
                }
            }
        }
    }
}
