//! Lowers an `mcp` node's `args`: objects, arrays and scalars as written,
//! and `{expr: ...}` objects as expressions.

use super::Cx;
use crate::diag::codes;
use crate::model::{Arg, Sp};
use crate::yaml::{self, Value};

/// Stands for a part of `args` that was reported as wrong. It never reaches
/// the generator: a file with an error is not generated.
const PLACEHOLDER_ARG: Arg = Arg::Literal(serde_json::Value::Null);

impl Cx<'_, '_> {
    /// An `mcp` node's `args`: an object, or one `{expr}` object.
    pub(super) fn top_args(&mut self, node: &yaml::Node) -> Arg {
        match &node.value {
            Value::Map(_) => self.arg(node),
            Value::Null => Arg::Object(Vec::new()),
            _ => {
                self.wrong_type(node, "`args`", "a mapping");
                Arg::Object(Vec::new())
            }
        }
    }

    /// One value of `args`. Errors are reported and the bad part replaced
    /// by a placeholder, so that the rest is still checked.
    fn arg(&mut self, node: &yaml::Node) -> Arg {
        match &node.value {
            Value::Map(entries) => {
                let expr_key = entries.iter().find(|(k, _)| k.key_text() == "expr");
                if let Some((k, v)) = expr_key {
                    let others: Vec<String> = entries
                        .iter()
                        .map(|(k, _)| k.key_text())
                        .filter(|k| k != "expr")
                        .map(|k| format!("`{k}`"))
                        .collect();
                    if entries.len() > 1 && others.is_empty() {
                        // Only repeats of `expr`: reported as duplicates.
                        self.fields_any(node, "`args`");
                    } else if entries.len() > 1 {
                        self.err(
                            codes::EXPR_OBJECT_KEYS, k.pos,
                            format!(
                                "an `expr` object must have no other keys; found {} beside `expr`",
                                others.join(", ")
                            ),
                        )
                        .help("put the expression one level down, or build the whole object in the expression");
                    }
                    // The expression is still checked.
                    return self.expr(v, "`expr`").map_or(PLACEHOLDER_ARG, Arg::Expr);
                }
                let entries = self.fields_any(node, "`args`").unwrap_or_default();
                Arg::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (Sp::new(k.key_text(), k.pos), self.arg(v)))
                        .collect(),
                )
            }
            Value::Seq(items) => Arg::Array(items.iter().map(|i| self.arg(i)).collect()),
            _ => Arg::Literal(node.to_json()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Arg;
    use crate::model::NodeKind;
    use crate::test_support::{a_node, load, messages};

    #[test]
    fn mcp_args() {
        let src = a_node(
            "        type: mcp\n        server: fs\n        tool: x\n        args:\n          path: {expr: \"$.entry.dir\"}\n          lit: \"$.entry\"\n          n: [1, {expr: \"2\"}, {a: null}]\n        next: exit\n",
        );
        let f = load(&src);
        let NodeKind::Mcp { args, .. } = &f.tools[0].nodes[1].kind else {
            panic!()
        };
        let Arg::Object(entries) = args else { panic!() };
        assert!(
            matches!(&entries[0], (k, Arg::Expr(e)) if k.value == "path" && e.source == "$.entry.dir")
        );
        assert_eq!(entries[1].0.value, "lit");
        assert_eq!(entries[1].1, Arg::Literal("$.entry".into()));
        let Arg::Array(items) = &entries[2].1 else {
            panic!()
        };
        assert!(matches!(items[1], Arg::Expr(_)));
        let Arg::Object(inner) = &items[2] else {
            panic!()
        };
        assert_eq!(inner[0].0.value, "a");
        assert_eq!(inner[0].1, Arg::Literal(serde_json::Value::Null));

        let src =
            a_node("        type: mcp\n        server: fs\n        tool: x\n        next: exit\n");
        let f = load(&src);
        assert!(
            matches!(&f.tools[0].nodes[1].kind, NodeKind::Mcp { args: Arg::Object(a), .. } if a.is_empty())
        );

        let src = a_node(
            "        type: mcp\n        server: fs\n        tool: x\n        args:\n          a: {expr: \"1\", other: 2}\n          b: {expr: 3}\n        next: exit\n",
        );
        assert_eq!(
            messages(&src),
            [
                "an `expr` object must have no other keys; found `other` beside `expr`",
                "`expr` must be a string (a JSONata expression), found a number",
            ]
        );
        let src = a_node(
            "        type: mcp\n        server: fs\n        tool: x\n        args: [1]\n        next: exit\n",
        );
        assert_eq!(
            messages(&src),
            ["`args` must be a mapping, found a sequence"]
        );
    }
}
