//! Every path `$.node.field...` (or `$$.`) of a tool's expressions, and
//! `$.item.field...` inside a `forEach` node's `call.args`, walked down the
//! shape of what it reads ([`Types`]): a field the shape cannot have is an
//! error where the shape is closed (a constructor, the branches of a
//! `parallel` node, an `elicit` form, a schema level with
//! `additionalProperties: false`) and a warning where a schema level is
//! open (`unknown_input_field` in the tool's `inputSchema`,
//! `unknown_output_field` in a called tool's `outputSchema`). A node whose
//! output is not known gets one note saying why.

use serde_json::Value;

use super::lexer::find_name;
use super::reads::{Root, context_paths, tool_exprs, whole_path};
use super::shapes::{Origin, Shape, Types, element, through_arrays};
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::lower::expr_pos;
use crate::model::{Expr, Node, NodeKind, Tool};
use crate::suggest::suggest;

/// How a path fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Checked {
    /// Its first field was checked against a known shape.
    Yes,
    /// The output it reads is not known here.
    No,
}

/// Checks every path of `tool`'s expressions into the outputs whose shape
/// is known; returns how each path into a node fared.
pub(super) fn check_paths<'a>(
    types: &Types<'a>,
    tool: &'a Tool,
    diags: &mut Diagnostics,
) -> Vec<Checked> {
    let mut fared = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for (expr, root) in tool_exprs(tool) {
        let Ok(ast) = jsonata_core::parser::parse(&expr.source) else {
            continue;
        };
        for path in context_paths(&ast) {
            let Some((id, fields)) = path.split_first() else {
                continue;
            };
            if fields.is_empty() || after_failure(tool, id, fields) {
                continue;
            }
            // `$.item` is an element of `items`, not a node's output.
            let (shape, of_node) = match root {
                Root::Item(_) if id == "index" => continue,
                Root::Item(node) if id == "item" => (item_shape(types, tool, node), false),
                _ if tool.nodes.iter().any(|n| n.id.value == *id) => {
                    (types.output_shape(tool, id), true)
                }
                _ => continue,
            };
            if shape == Shape::Unknown {
                fared.push(Checked::No);
                if of_node && !unknown.contains(id) {
                    unknown.push(id.clone());
                    diags.note(
                        codes::UNCHECKED_PATHS,
                        expr.pos,
                        format!(
                            "the paths into the output of `{id}` are not checked: {}",
                            types.why_unknown(tool, id)
                        ),
                    );
                }
                continue;
            }
            fared.push(Checked::Yes);
            if let Walked::Miss(miss) = walk(id, shape, fields) {
                report(&miss, expr, diags);
            }
        }
    }
    fared
}

/// `$.node.error...` of a node with `onError`: after a failure its output is
/// `{"error": {kind, message}}`, which no shape of its success describes.
fn after_failure(tool: &Tool, id: &str, fields: &[String]) -> bool {
    fields[0] == "error"
        && tool
            .nodes
            .iter()
            .any(|n| n.id.value == id && n.kind.resilience().is_some_and(|r| r.on_error.is_some()))
}

/// The shape of `$.item` in the `call.args` of `node` (a `forEach` node):
/// an element of its `items`, when `items` is a plain path into a known
/// shape.
fn item_shape<'a>(types: &Types<'a>, tool: &'a Tool, node: &'a Node) -> Shape<'a> {
    let NodeKind::ForEach { items, .. } = &node.kind else {
        return Shape::Unknown;
    };
    let Some(path) = jsonata_core::parser::parse(&items.source)
        .ok()
        .as_ref()
        .and_then(whole_path)
    else {
        return Shape::Unknown;
    };
    let Some((id, fields)) = path.split_first() else {
        return Shape::Unknown;
    };
    match walk(id, types.output_shape(tool, id), fields) {
        Walked::To(shape) => element(shape),
        Walked::Miss(_) => Shape::Unknown,
    }
}

/// Where a walk down a shape ended.
enum Walked<'a> {
    /// Every field fits (or the shape stopped saying): the shape there.
    To(Shape<'a>),
    /// A field the shape cannot have.
    Miss(Miss<'a>),
}

/// A field a shape cannot have.
struct Miss<'a> {
    /// The path up to it (`node.a.b`).
    walked: String,
    field: String,
    /// The fields the shape has there.
    known: Vec<String>,
    closed: bool,
    /// The schema and the path at which it was entered, when the shape
    /// there is one.
    schema: Option<(Origin<'a>, String)>,
}

/// Walks `fields` down `shape`, the output of `id`. A path maps over
/// arrays: it looks through them.
fn walk<'a>(id: &str, mut shape: Shape<'a>, fields: &[String]) -> Walked<'a> {
    let mut walked = id.to_owned();
    let mut entered = id.to_owned();
    for field in fields {
        while let Shape::Array(each) = shape {
            shape = *each;
        }
        let (known, closed, next, schema): (Vec<String>, bool, Option<Shape<'a>>, _) = match shape {
            Shape::Unknown | Shape::Array(_) => return Walked::To(Shape::Unknown),
            Shape::Object(entries) => {
                entered.clone_from(&walked);
                entered.push('.');
                entered.push_str(field);
                let keys = entries.iter().map(|(k, _)| k.clone()).collect();
                let next = entries
                    .into_iter()
                    .find(|(k, _)| k == field)
                    .map(|(_, s)| s);
                (keys, true, next, None)
            }
            Shape::Schema(schema, origin) => {
                let schema = through_arrays(schema);
                let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                    return Walked::To(Shape::Unknown);
                };
                let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
                (
                    properties.keys().cloned().collect(),
                    closed || origin == Origin::Form,
                    properties.get(field).map(|s| Shape::Schema(s, origin)),
                    Some((origin, entered.clone())),
                )
            }
        };
        match next {
            Some(next) => {
                shape = next;
                walked = format!("{walked}.{field}");
            }
            None => {
                return Walked::Miss(Miss {
                    walked,
                    field: field.clone(),
                    known,
                    closed,
                    schema,
                });
            }
        }
    }
    Walked::To(shape)
}

/// Reports `miss`, a path of `expr`, at the field's place in it.
fn report(miss: &Miss<'_>, expr: &Expr, diags: &mut Diagnostics) {
    let Miss {
        walked,
        field,
        known,
        closed,
        schema,
    } = miss;
    let message = match schema {
        Some((Origin::Input, at)) if walked == at && at == "entry" => format!(
            "`{walked}.{field}`: the tool's arguments (its `inputSchema`) cannot have a field `{field}`"
        ),
        Some((Origin::Output(tool), at)) => format!(
            "`{walked}.{field}`: the output of `{at}` (a call to `{tool}`) has no field `{field}`"
        ),
        Some((Origin::Form, at)) => format!(
            "`{walked}.{field}`: the answer to `{at}` (its `requestedSchema`) has no field `{field}`"
        ),
        _ => format!("`{walked}.{field}`: `{walked}` cannot have a field `{field}`"),
    };
    let pos = expr_pos(expr, find_name(&expr.source, field).unwrap_or(0));
    let code = match schema {
        Some((Origin::Input, _)) => codes::UNKNOWN_INPUT_FIELD,
        Some((Origin::Output(_), _)) => codes::UNKNOWN_OUTPUT_FIELD,
        // Always closed: an error.
        Some((Origin::Form, _)) | None => codes::UNKNOWN_FIELD,
    };
    let d = if *closed {
        diags.error(code, pos, message)
    } else {
        diags.warning(code, pos, message).as_lint()
    };
    let listed: Vec<&str> = known.iter().map(String::as_str).collect();
    let by = match schema {
        Some((Origin::Output(_), _)) => ", by its outputSchema",
        Some((Origin::Form, _)) => ", by its requestedSchema",
        _ => "",
    };
    d.note(format!("its fields{by}: {}", listed.join(", ")));
    if let Some(s) = suggest(field, &listed) {
        d.help(format!("did you mean `{s}`?"));
    }
}

#[cfg(test)]
#[path = "paths_tests.rs"]
mod tests;
