//! The lint [`codes::LITERAL_LOOKS_LIKE_EXPRESSION`]: a literal string in a
//! call's `args` that reads like an expression (`"$.entry.directory"`).
//! Only `{ expr: ... }` objects are evaluated there, so such a string is
//! passed as it is, which is rarely what was meant (MIGRATING.md warns of
//! it).

use serde_json::Value;

use super::expr::Scope;
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::{Arg, Pos};

/// Reports the literal strings of `arg` that look like expressions, at
/// the key that holds them (`at` for those outside any object: the
/// position of `args`).
pub(super) fn check_literal_args(arg: &Arg, at: Pos, scope: &Scope<'_>, diags: &mut Diagnostics) {
    match arg {
        Arg::Literal(Value::String(s)) if looks_like_expression(s, scope) => {
            let d = diags.warning(
                codes::LITERAL_LOOKS_LIKE_EXPRESSION,
                at,
                format!("the string `{s}` is passed as it is: it is not evaluated"),
            );
            d.help(format!(
                "to pass what the expression reads, write `{{ expr: {} }}`",
                Value::from(s.as_str())
            ));
            d.note("in `args`, only `{ expr: ... }` objects are evaluated; every other string is a literal");
            d.as_lint();
        }
        Arg::Object(entries) => {
            for (key, a) in entries {
                check_literal_args(a, key.pos, scope, diags);
            }
        }
        Arg::Array(items) => {
            for a in items {
                check_literal_args(a, at, scope, diags);
            }
        }
        Arg::Literal(_) | Arg::Expr(_) => {}
    }
}

/// `$.x...`, `$$.x...`, or `$id...` for a node id of the tool.
fn looks_like_expression(s: &str, scope: &Scope<'_>) -> bool {
    let s = s.trim_start();
    if s.starts_with("$.") || s.starts_with("$$.") {
        return s.len() > 2 && !s.contains(char::is_whitespace);
    }
    let Some(rest) = s.strip_prefix('$') else {
        return false;
    };
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    scope.ids.contains(&rest[..end]) && matches!(rest[end..].chars().next(), None | Some('.' | '['))
}

#[cfg(test)]
mod tests {
    use crate::diag::LITERAL_LOOKS_LIKE_EXPRESSION;
    use crate::test_support::{ENTRY, EXIT, with_nodes};

    fn lint_hits(args: &str) -> Vec<(u32, u32, String, Option<String>)> {
        let node = format!(
            "      - id: a\n        type: mcp\n        server: fs\n        tool: read\n        args: {args}\n        next: exit\n"
        );
        let src = with_nodes(&format!("{ENTRY}{node}{EXIT}"));
        let (_, w) =
            crate::load_str_with_warnings(&src, "g.yaml").unwrap_or_else(|d| panic!("{d}"));
        w.items
            .into_iter()
            .filter(|d| d.lint == Some(LITERAL_LOOKS_LIKE_EXPRESSION))
            .map(|d| (d.pos.line, d.pos.column, d.message, d.help))
            .collect()
    }

    #[test]
    fn literal_strings_that_read_like_expressions() {
        let hits = lint_hits("{ path: \"$.entry.directory\", n: 1 }");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!((hits[0].0, hits[0].1), (20, 17));
        assert_eq!(
            hits[0].2,
            "the string `$.entry.directory` is passed as it is: it is not evaluated"
        );
        assert_eq!(
            hits[0].3.as_deref(),
            Some("to pass what the expression reads, write `{ expr: \"$.entry.directory\" }`")
        );
        for args in [
            "{ p: [\"$$.a.x\"] }",
            "{ p: { q: \"$entry.x\" } }",
            "{ p: \"$a\" }",
        ] {
            assert_eq!(lint_hits(args).len(), 1, "{args}");
        }
        for args in [
            "{ p: \"$5.00\" }",
            "{ p: \"$HOME/x\" }",
            "{ p: \"$.\" }",
            "{ p: \"costs $. or more\" }",
            "{ p: \"entry.directory\" }",
            "{ p: { expr: \"$.entry.directory\" } }",
        ] {
            assert_eq!(lint_hits(args), vec![], "{args}");
        }
    }
}
