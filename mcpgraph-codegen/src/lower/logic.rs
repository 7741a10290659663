//! Lowers JSON Logic rules (a switch's conditions): one operator per
//! object, operators of json-logic-js 2.0, and every `{"var": S}` lifted
//! out as a JSONata expression.

use super::Cx;
use crate::diag::codes;
use crate::model::{Logic, Sp};
use crate::suggest::suggest;
use crate::yaml::{self, Value};

/// The operators of json-logic-js 2.0.
const LOGIC_OPERATORS: &[&str] = &[
    "==",
    "===",
    "!=",
    "!==",
    ">",
    ">=",
    "<",
    "<=",
    "!",
    "!!",
    "or",
    "and",
    "?:",
    "if",
    "in",
    "cat",
    "substr",
    "+",
    "-",
    "*",
    "/",
    "%",
    "max",
    "min",
    "merge",
    "var",
    "missing",
    "missing_some",
    "all",
    "some",
    "none",
    "map",
    "filter",
    "reduce",
    "log",
];

/// Stands for a part of a rule that was reported as wrong (see
/// `args::PLACEHOLDER_ARG`).
pub(super) const PLACEHOLDER_LOGIC: Logic = Logic::Literal(serde_json::Value::Null);

impl Cx<'_, '_> {
    /// A JSON Logic rule. In JSON Logic every object is an operator
    /// application with exactly one key, so any other object is an error.
    /// Errors are reported and the bad part replaced by a placeholder.
    pub(super) fn logic(&mut self, node: &yaml::Node) -> Logic {
        match &node.value {
            Value::Map(entries) => {
                if entries.len() != 1 {
                    let found = if entries.is_empty() {
                        "an empty object".to_owned()
                    } else {
                        format!(
                            "{} keys ({})",
                            entries.len(),
                            entries
                                .iter()
                                .map(|(k, _)| format!("`{}`", k.key_text()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    self.err(
                        codes::LOGIC_OBJECT_KEYS, node.pos,
                        format!("a JSON Logic object must have exactly one key, its operator; found {found}"),
                    )
                    .help("write each operation as its own `{operator: [arguments]}` object");
                    return PLACEHOLDER_LOGIC;
                }
                let (k, v) = &entries[0];
                let op = k.key_text();
                if op == "var" {
                    return match &v.value {
                        Value::String(s) if s.trim().is_empty() => {
                            self.err(codes::LOGIC_VAR, v.pos, "a `var` must not be empty")
                                .help("it is a JSONata expression: use `$` for the whole context");
                            PLACEHOLDER_LOGIC
                        }
                        Value::String(_) => {
                            self.expr(v, "`var`").map_or(PLACEHOLDER_LOGIC, Logic::Var)
                        }
                        _ => {
                            self.err(
                                codes::LOGIC_VAR, v.pos,
                                format!(
                                    "a `var` must be a string (a JSONata expression), found {}",
                                    v.value.kind()
                                ),
                            )
                            .help("write the path as a string, e.g. `{var: \"entry.value\"}`; a default can be given with JSONata's `??`");
                            PLACEHOLDER_LOGIC
                        }
                    };
                }
                if !LOGIC_OPERATORS.contains(&op.as_str()) {
                    let d = self.err(
                        codes::UNKNOWN_LOGIC_OPERATOR,
                        k.pos,
                        format!("unknown JSON Logic operator `{op}`"),
                    );
                    match suggest(&op, LOGIC_OPERATORS) {
                        Some(s) => d.help(format!("did you mean `{s}`?")),
                        None => d.help(format!("expected one of {}", LOGIC_OPERATORS.join(" "))),
                    };
                    // The arguments are still checked.
                    self.logic(v);
                    return PLACEHOLDER_LOGIC;
                }
                let args = self.logic(v);
                Logic::Object(vec![(Sp::new(op, k.pos), args)])
            }
            Value::Seq(items) => Logic::Array(items.iter().map(|i| self.logic(i)).collect()),
            _ => Logic::Literal(node.to_json()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeKind;
    use crate::test_support::load_errors;
    use crate::test_support::{a_node, load, messages};

    fn rule(r: &str) -> String {
        a_node(&format!(
            "        type: switch\n        conditions:\n          - rule: {r}\n            next: exit\n        next: exit\n"
        ))
    }

    #[test]
    fn operator_suggestions() {
        assert_eq!(crate::suggest::suggest("=<", LOGIC_OPERATORS), Some("<="));
    }

    #[test]
    fn switch_rules() {
        let f = load(&rule(
            "{\"and\": [{\">\": [{var: \"entry.v\"}, 1]}, {\"!\": {var: \"$.entry.w\"}}]}",
        ));
        let NodeKind::Switch { conditions, .. } = &f.tools[0].nodes[1].kind else {
            panic!()
        };
        let Logic::Object(ops) = &conditions[0].rule else {
            panic!()
        };
        assert_eq!(ops[0].0.value, "and");
        let Logic::Array(args) = &ops[0].1 else {
            panic!()
        };
        let Logic::Object(gt) = &args[0] else {
            panic!()
        };
        let Logic::Array(gt_args) = &gt[0].1 else {
            panic!()
        };
        assert!(matches!(&gt_args[0], Logic::Var(e) if e.source == "entry.v"));
        assert_eq!(gt_args[1], Logic::Literal(1.into()));
        let Logic::Object(not) = &args[1] else {
            panic!()
        };
        assert!(matches!(&not[0].1, Logic::Var(e) if e.source == "$.entry.w"));

        let d = load_errors(&rule("{\"=<\": [1, 2]}"));
        assert_eq!(d.items.len(), 1, "{d}");
        assert_eq!(d.items[0].message, "unknown JSON Logic operator `=<`");
        assert_eq!(d.items[0].help.as_deref(), Some("did you mean `<=`?"));
        assert_eq!(
            messages(&rule("{\"==\": [{var: 1}, 1]}")),
            ["a `var` must be a string (a JSONata expression), found a number"]
        );
        assert_eq!(
            messages(&rule("{\"==\": [{var: [\"a\", 1]}, 1]}")),
            ["a `var` must be a string (a JSONata expression), found a sequence"]
        );
        assert_eq!(
            messages(&rule("{\"==\": [1, 1], \"!=\": [1, 2]}")),
            [
                "a JSON Logic object must have exactly one key, its operator; found 2 keys (`==`, `!=`)"
            ]
        );
        assert_eq!(
            messages(&rule("{\"in\": [\"a\", {}]}")),
            ["a JSON Logic object must have exactly one key, its operator; found an empty object"]
        );
        assert_eq!(
            messages(&rule("{\"==\": [{foo: 1}, 1]}")),
            ["unknown JSON Logic operator `foo`"]
        );
        assert_eq!(
            messages(&rule("{var: \"\"}")),
            ["a `var` must not be empty"]
        );
        // Scalars and arrays of scalars are fine as rules.
        load(&rule("true"));
        load(&rule("{\"in\": [\"a\", [\"a\", \"b\"]]}"));
    }
}
