//! Pre-parsed expressions: JSONata (`Expr`), `mcp` argument templates
//! (`Args`) and switch rules (`Switch`).
//!
//! Everything here is built once, at start-up, from text the generator has
//! already validated (JSONata from the trees it parsed, see
//! [`Expr::from_ast`]); nothing is parsed on the request path. Evaluation
//! is the `evaluator`'s, under the per-call context the runtime owns; the
//! JSON Logic engine rules are compiled with is `logic`'s.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use crate::error::BuildError;
use crate::logic::{Logic, RuleError};
use crate::native::Native;
use crate::{Helpers, is_plain_step};
use jsonata_core::ast::AstNode;
use jsonata_core::value::JValue;

/// A parsed JSONata expression.
#[derive(Debug)]
pub struct Expr {
    pub(crate) source: Cow<'static, str>,
    pub(crate) ast: AstNode,
    /// For a plain path of field names (`$.entry.x`, `node.a.b`, `$`): the
    /// names, so the common case skips the evaluator (see [`Expr::lookup`]).
    path: Option<Box<[Box<str>]>>,
    /// Any other expression in the shapes the runtime evaluates itself
    /// (see `native`), compiled from `ast` on first use: a tree walk,
    /// no parsing, which start-up need not pay for every expression.
    native: OnceLock<Option<Native>>,
    /// The host functions the rewrite to jsonata-js's behaviour calls
    /// (see `compat`), which the evaluator registers before
    /// running it.
    pub(crate) helpers: Helpers,
}

impl Expr {
    /// Parses `source` and applies the rewrites ([`crate::prepare`]). The
    /// error message starts with the JSONata error code (`S0201: ...`)
    /// after the expression.
    pub fn parse(source: impl Into<Cow<'static, str>>) -> Result<Self, BuildError> {
        let source = source.into();
        let mut ast = jsonata_core::parser::parse(&source).map_err(|e| BuildError::Syntax {
            source: source.to_string(),
            message: crate::syntax_error::message(&e),
        })?;
        let helpers = crate::prepare(&mut ast).map_err(|regex| BuildError::Regex {
            source: source.to_string(),
            regex,
        })?;
        Ok(Self::new(source, ast, helpers))
    }

    /// `source` from the tree the generator wrote out as Rust: the tree
    /// `jsonata_core::parser::parse` gives for it, rewritten by
    /// [`crate::prepare`], which said the expression calls
    /// `helpers`. So start-up neither parses nor rewrites. Debug builds do
    /// both and check that the trees and the helpers are equal.
    pub fn from_ast(source: &'static str, ast: AstNode, helpers: Helpers) -> Self {
        if cfg!(debug_assertions) {
            let prepared = jsonata_core::parser::parse(source)
                .ok()
                .and_then(|mut tree| {
                    let helpers = crate::prepare(&mut tree).ok()?;
                    Some((tree, helpers))
                });
            assert!(
                prepared.as_ref() == Some(&(ast.clone(), helpers)),
                "the generated tree of `{source}` is not the parser's, rewritten:\n{ast:?}\n{prepared:?}"
            );
        }
        Self::new(Cow::Borrowed(source), ast, helpers)
    }

    fn new(source: Cow<'static, str>, ast: AstNode, helpers: Helpers) -> Self {
        Self {
            path: plain_path(&ast),
            source,
            ast,
            native: OnceLock::new(),
            helpers,
        }
    }

    /// The value of a plain path expression on `data` without the
    /// evaluator, when that is certain to be what the evaluator gives
    /// (see `native::lookup`); `None` to evaluate it.
    pub fn lookup(&self, data: &JValue) -> Option<JValue> {
        let found = crate::native::lookup(data, self.path.as_deref()?)?;
        Some(found.cloned().unwrap_or(JValue::Undefined))
    }

    /// The expression in the shapes the runtime evaluates itself, if it
    /// is one (a plain path is [`Expr::lookup`]'s).
    pub(crate) fn native(&self) -> Option<&Native> {
        self.native
            .get_or_init(|| match self.path {
                Some(_) => None,
                None => Native::compile(&self.ast),
            })
            .as_ref()
    }

    /// The expression's text.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// The field names of `$.a.b`, `a.b` or `$` (no names); `None` for any
/// other expression (predicates, `[]`, bindings, `$$`, wildcards...).
fn plain_path(ast: &AstNode) -> Option<Box<[Box<str>]>> {
    let steps = match ast {
        AstNode::Variable(name) if name.is_empty() => return Some(Box::default()),
        AstNode::Path { steps } => steps,
        _ => return None,
    };
    let mut names = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        if !is_plain_step(step) {
            return None;
        }
        match &step.node {
            AstNode::Variable(name) if name.is_empty() && i == 0 => {}
            AstNode::Name(name) => names.push(name.as_str().into()),
            _ => return None,
        }
    }
    Some(names.into_boxed_slice())
}

/// An `mcp` node's `args`, walked as FORMAT.md says.
#[derive(Debug)]
pub enum Args {
    /// `{expr: "..."}`.
    Expr(Expr),
    /// An object; keys in file order.
    Object(Vec<(&'static str, Args)>),
    /// An array.
    Array(Vec<Args>),
    /// A literal passed as it is.
    Literal(serde_json::Value),
}

impl Args {
    /// `{expr: source}`.
    pub fn expr(source: &'static str) -> Result<Self, BuildError> {
        Expr::parse(source).map(Args::Expr)
    }

    /// `{expr: source}` with its prepared tree (see [`Expr::from_ast`]).
    pub fn expr_ast(source: &'static str, ast: AstNode, helpers: Helpers) -> Self {
        Args::Expr(Expr::from_ast(source, ast, helpers))
    }

    /// A literal given as JSON text.
    pub fn literal(json: &'static str) -> Result<Self, BuildError> {
        serde_json::from_str(json)
            .map(Args::Literal)
            .map_err(|e| BuildError::Literal {
                json: json.to_owned(),
                message: e.to_string(),
            })
    }
}

/// A switch node: its rules, each with the JSONata expressions of its
/// `var`s lifted out into slots.
#[derive(Debug)]
pub struct Switch {
    conditions: Vec<CompiledRule>,
}

/// One switch condition as text, for [`Switch::new`] to parse (the
/// generator writes a [`Condition`] instead): the rule rewritten so
/// that each `{"var": S}` reads slot `i` of the data (`{"val": [SLOT_KEY,
/// "i"]}`, with a scope level inside iterating operators so it still reads
/// the root), `S` as `vars[i]`, and whether the rule reads the context
/// itself (`missing`, `missing_some`).
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The rewritten rule as JSON text.
    pub json: &'static str,
    /// JSONata sources of the slots.
    pub vars: &'static [&'static str],
    /// Whether the whole context must be passed as data.
    pub needs_context: bool,
}

/// One switch condition as the generator writes it out
/// ([`Switch::compiled`]): nothing left to parse.
#[derive(Debug)]
pub struct Condition {
    /// The rewritten rule as JSON text, as in [`Rule::json`]: for messages,
    /// and for debug builds to check `tree` against.
    pub json: &'static str,
    /// The rule's tree, as the runtime's rule compiler makes it of `json`.
    pub tree: crate::logic::Node,
    /// The expressions whose values fill the rule's slots, in slot order.
    pub slots: Vec<Expr>,
    /// Whether the whole context must be passed as data.
    pub needs_context: bool,
}

/// A compiled [`Rule`].
#[derive(Debug)]
pub struct CompiledRule {
    /// The rule, its `var`s reading slots.
    pub logic: Arc<Logic>,
    /// The expressions whose values fill the slots, in slot order.
    pub vars: Vec<Expr>,
    /// Whether the whole context must be passed as data.
    pub needs_context: bool,
}

impl Switch {
    /// Compiles a switch's conditions, in order.
    pub fn new(conditions: &[Rule]) -> Result<Self, BuildError> {
        let conditions = conditions
            .iter()
            .map(|rule| {
                let vars = rule
                    .vars
                    .iter()
                    .map(|source| Expr::parse(*source))
                    .collect::<Result<_, _>>()?;
                let logic = serde_json::from_str(rule.json)
                    .map_err(|e| RuleError::Json(e.to_string()))
                    .and_then(|json| Logic::compile(&json));
                CompiledRule::new(rule.json, logic, vars, rule.needs_context)
            })
            .collect::<Result<_, BuildError>>()?;
        Ok(Self { conditions })
    }

    /// The same, with each rule's slots already built (the generator's
    /// [`Expr::from_ast`]) and its tree written out (`codegen::logic`):
    /// nothing is parsed.
    #[doc(hidden)]
    pub fn compiled(conditions: Vec<Condition>) -> Result<Self, BuildError> {
        let conditions = conditions
            .into_iter()
            .map(|c| {
                let logic = Logic::from_tree(c.json, c.tree);
                CompiledRule::new(c.json, logic, c.slots, c.needs_context)
            })
            .collect::<Result<_, BuildError>>()?;
        Ok(Self { conditions })
    }

    /// Its compiled conditions, in order.
    pub fn conditions(&self) -> &[CompiledRule] {
        &self.conditions
    }
}

impl CompiledRule {
    /// The rule written as `json` with its compiled `logic` (or why it
    /// does not compile) and its `var`s.
    fn new(
        json: &str,
        logic: Result<Logic, impl std::fmt::Display>,
        vars: Vec<Expr>,
        needs_context: bool,
    ) -> Result<Self, BuildError> {
        let logic = logic.map_err(|e| BuildError::Rule {
            json: json.to_owned(),
            message: e.to_string(),
        })?;
        Ok(Self {
            logic: Arc::new(logic),
            vars,
            needs_context,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonata_core::evaluator::Evaluator;

    /// The shortcut gives what the evaluator gives, or stands aside.
    #[test]
    fn plain_path_lookup_agrees_with_the_evaluator() {
        let data = [
            r#"{"a": {"b": [1]}, "n": null, "s": "x", "e": {}, "z": 0}"#,
            r#"{"a": [{"b": 1}, {"b": 2}], "entry": {"x": {"y": [[1], 2]}}}"#,
            r#"[{"a": 1}]"#,
            r#"{"a": {"b": {"c": false}}}"#,
        ];
        let exprs = [
            "$",
            "a",
            "a.b",
            "$.a.b",
            "$.a.b.c",
            "n",
            "n.x",
            "s",
            "s.x",
            "e.x",
            "z",
            "missing",
            "entry.x.y",
            "$.entry.x",
            "a.b[0]",
            "$$.a",
        ];
        let mut shortcut = 0;
        for data in data {
            let data = JValue::from_json_str(data).unwrap();
            for source in exprs {
                let expr = Expr::parse(source).unwrap();
                let want = Evaluator::new().evaluate(&expr.ast, &data).unwrap();
                if let Some(got) = expr.lookup(&data) {
                    shortcut += 1;
                    assert_eq!(got, want, "`{source}` on {data:?}");
                }
            }
        }
        assert!(shortcut > 20, "the shortcut was taken {shortcut} times");
        assert!(Expr::parse("a.b[0]").unwrap().path.is_none());
        assert!(Expr::parse("$$.a").unwrap().path.is_none());
        assert!(Expr::parse("a.b[]").unwrap().path.is_none());
    }

    /// A generated tree that is not the parser's is caught in debug builds.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "is not the parser's")]
    fn a_tree_that_is_not_the_parsers_is_caught() {
        let _ = Expr::from_ast("1 + 2", AstNode::Number(3.0), Helpers::default());
    }

    /// A generated tree that was not rewritten is caught in debug builds,
    /// as are helpers other than the rewrite's.
    #[test]
    #[cfg(debug_assertions)]
    fn a_tree_or_helpers_not_rewritten_are_caught() {
        let source = "$pad(a, 10) & $string(a / b + 1)";
        let parsed = jsonata_core::parser::parse(source).unwrap();
        let unrewritten = std::panic::catch_unwind(|| {
            Expr::from_ast("$pad(a, 10) & $string(a / b + 1)", parsed, Helpers::FINITE)
        });
        assert!(unrewritten.is_err());
        let mut rewritten = jsonata_core::parser::parse(source).unwrap();
        let helpers = crate::prepare(&mut rewritten).unwrap();
        assert_eq!(helpers, Helpers::FINITE);
        let wrong = std::panic::catch_unwind(|| {
            Expr::from_ast("$pad(a, 10) & $string(a / b + 1)", rewritten, Helpers::KEYS)
        });
        assert!(wrong.is_err());
    }

    /// The tree the generator writes gives the parser's expression.
    #[test]
    fn a_tree_from_the_generator_is_prepared_like_a_parse() {
        let source = "$.entry.items[price > 1].name & $pad(x, 3)";
        let mut ast = jsonata_core::parser::parse(source).unwrap();
        let helpers = crate::prepare(&mut ast).unwrap();
        let built = Expr::from_ast(source, ast, helpers);
        let parsed = Expr::parse(source).unwrap();
        assert_eq!(built.ast, parsed.ast);
        assert_eq!(built.helpers, parsed.helpers);
        assert_eq!(built.source(), parsed.source());
    }
}
