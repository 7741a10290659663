//! Switch rules for the runtime: each rule rewritten so that its `var`s
//! read slots the runtime fills from JSONata (`rewrite_rule`), the tree the
//! runtime compiles that into, written out (`tree`), and the rule as
//! written, for the comment the generated code carries beside it.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::{jsonata, lit};
use crate::model::Logic;
use mcpgraph_expr::logic::{self, Args, Node, Op, SLOT_KEY};

/// Operators whose later arguments are evaluated once per item, in a scope
/// of their own: there, a slot must climb back to the root data.
const ITERATING: &[&str] = &["map", "filter", "reduce", "all", "some", "none"];

/// Operators that read the data by path themselves: a rule using them is
/// given the whole context (as mcpGraph gives it) besides the slots.
const READ_DATA: &[&str] = &["missing", "missing_some"];

/// A switch rule rewritten for the runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RewrittenRule {
    /// The rule as JSON text, every `var` replaced by a slot read.
    pub json: String,
    /// The same rule as a value.
    pub value: Value,
    /// The JSONata source of each slot, in slot order.
    pub vars: Vec<String>,
    /// Whether the rule reads the context itself (`missing`,
    /// `missing_some`), so the runtime must pass it as data.
    pub needs_context: bool,
}

/// Rewrites a rule for the runtime: every `{"var": S}` becomes a slot read
/// from the data (`{"val": [SLOT_KEY, "i"]}`, with a scope level inside
/// iterating operators so it still reads the root) and `S` becomes slot `i`.
pub fn rewrite_rule(rule: &Logic) -> RewrittenRule {
    fn walk(
        logic: &Logic,
        depth: u64,
        vars: &mut Vec<String>,
        needs_context: &mut bool,
    ) -> serde_json::Value {
        use serde_json::{Value, json};
        match logic {
            Logic::Var(expr) => {
                let slot = vars.len().to_string();
                vars.push(expr.source.clone());
                if depth == 0 {
                    json!({"val": [SLOT_KEY, slot]})
                } else {
                    json!({"val": [[depth], SLOT_KEY, slot]})
                }
            }
            Logic::Literal(value) => value.clone(),
            Logic::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|i| walk(i, depth, vars, needs_context))
                    .collect(),
            ),
            Logic::Object(entries) => {
                let mut map = serde_json::Map::new();
                for (key, value) in entries {
                    let op = key.value.as_str();
                    *needs_context |= READ_DATA.contains(&op);
                    let rewritten = match value {
                        Logic::Array(args) if ITERATING.contains(&op) => Value::Array(
                            args.iter()
                                .enumerate()
                                .map(|(i, a)| {
                                    let inner = i == 1;
                                    walk(
                                        a,
                                        if inner { depth + 1 } else { depth },
                                        vars,
                                        needs_context,
                                    )
                                })
                                .collect(),
                        ),
                        other => walk(other, depth, vars, needs_context),
                    };
                    map.insert(key.value.clone(), rewritten);
                }
                Value::Object(map)
            }
        }
    }
    let mut vars = Vec::new();
    let mut needs_context = false;
    let value = walk(rule, 0, &mut vars, &mut needs_context);
    RewrittenRule {
        json: value.to_string(),
        value,
        vars,
        needs_context,
    }
}

/// The tree the rule compiles to (`mcpgraph_expr::logic::compile`, the
/// runtime's compiler), as Rust that builds it through `rt::logic`
/// (imported as `l`).
pub(crate) fn tree(rule: &Value) -> TokenStream {
    write(&logic::compile(rule))
}

fn write(node: &Node) -> TokenStream {
    let op = |op: &Op| syn::Ident::new(&format!("{op:?}"), proc_macro2::Span::call_site());
    match node {
        Node::Num(n) => {
            let n = jsonata::number(*n);
            quote!(l::num(#n))
        }
        Node::Str(s) => {
            let s = lit::string(s);
            quote!(l::text(#s))
        }
        Node::Lit(value) => {
            let value = json(value);
            quote!(l::lit(#value))
        }
        Node::Array(items) => {
            let items = items.iter().map(write);
            quote!(l::array([#(#items),*]))
        }
        Node::Slot(i) => {
            let i = lit::index(*i);
            quote!(l::slot(#i))
        }
        Node::Binary(o, pair) => {
            let (o, lhs, rhs) = (op(o), write(&pair[0]), write(&pair[1]));
            quote!(l::binary(l::Op::#o, #lhs, #rhs))
        }
        Node::Apply(o, Args::List(args)) => {
            let (o, args) = (op(o), args.iter().map(write));
            quote!(l::apply(l::Op::#o, [#(#args),*]))
        }
        Node::Apply(o, Args::Spread(i)) => {
            let (o, i) = (op(o), lit::index(*i));
            quote!(l::spread(l::Op::#o, #i))
        }
        Node::Unknown(name) => {
            let name = lit::string(name);
            quote!(l::unknown(#name))
        }
    }
}

/// A JSON value as Rust that builds it (`l::null()`, `l::map([...])`),
/// numbers in the representation parsing their text gives.
fn json(value: &Value) -> TokenStream {
    match value {
        Value::Null => quote!(l::null()),
        Value::Bool(b) => quote!(l::bool(#b)),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => {
                let u = lit::int(u);
                quote!(l::uint(#u))
            }
            (None, Some(i)) => {
                let i = proc_macro2::Literal::i64_unsuffixed(i);
                quote!(l::int(#i))
            }
            (None, None) => {
                let f = jsonata::number(n.as_f64().unwrap_or(f64::NAN));
                quote!(l::float(#f))
            }
        },
        Value::String(s) => {
            let s = lit::string(s);
            quote!(l::string(#s))
        }
        Value::Array(items) => {
            let items = items.iter().map(json);
            quote!(l::list([#(#items),*]))
        }
        Value::Object(map) => {
            let entries = map.iter().map(|(k, v)| {
                let (k, v) = (lit::string(k), json(v));
                quote!((#k, #v))
            });
            quote!(l::map([#(#entries),*]))
        }
    }
}

/// The rule as written in the graph file, as one line of JSON (`var`s with
/// their JSONata), for the comment beside the switch's branch.
pub(crate) fn written(rule: &Logic) -> String {
    fn value(logic: &Logic) -> serde_json::Value {
        match logic {
            Logic::Var(expr) => serde_json::json!({ "var": expr.source }),
            Logic::Literal(value) => value.clone(),
            Logic::Array(items) => items.iter().map(value).collect(),
            Logic::Object(entries) => entries
                .iter()
                .map(|(key, v)| (key.value.clone(), value(v)))
                .collect(),
        }
    }
    let text = value(rule).to_string();
    // One space after `:` and `,` between tokens, as people write JSON.
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        out.push(c);
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ':' || c == ',' {
            out.push(' ');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Expr, Pos, Sp};

    #[test]
    fn a_rule_is_shown_as_written() {
        let rule = op(
            "<",
            vec![
                var("$.a.n"),
                Logic::Literal(serde_json::json!("x: y, \"z\"")),
            ],
        );
        assert_eq!(
            written(&rule),
            r#"{"<": [{"var": "$.a.n"}, "x: y, \"z\""]}"#
        );
    }

    fn var(s: &str) -> Logic {
        Logic::Var(Expr {
            source: s.into(),
            pos: Pos::default(),
            spans: Vec::new(),
        })
    }

    fn op(name: &str, args: Vec<Logic>) -> Logic {
        Logic::Object(vec![(
            Sp::new(name.into(), Pos::default()),
            Logic::Array(args),
        )])
    }

    #[test]
    fn vars_become_slots_that_reach_the_root() {
        let rule = op(
            "all",
            vec![
                var("$.a.items"),
                op(">", vec![var("$.b.min"), Logic::Literal(0.into())]),
            ],
        );
        let rewritten = rewrite_rule(&rule);
        assert_eq!(
            rewritten.json,
            r#"{"all":[{"val":["\u0000","0"]},{">":[{"val":[[1],"\u0000","1"]},0]}]}"#
        );
        assert_eq!(rewritten.vars, ["$.a.items", "$.b.min"]);
        assert!(!rewritten.needs_context);
        let missing = op("missing", vec![Logic::Literal("entry.a".into())]);
        assert!(rewrite_rule(&missing).needs_context);
    }
}
