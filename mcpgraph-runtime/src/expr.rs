//! Pre-parsed expressions: JSONata (`Expr`), `mcp` argument templates
//! (`Args`) and switch rules (`Switch`).
//!
//! Everything here is built once, at start-up, from text the generator has
//! already validated; nothing is parsed on the request path. Evaluation
//! lives in `exec`, which owns the per-call context.

use std::borrow::Cow;
use std::sync::Arc;

use jsonata_core::ast::AstNode;
use jsonata_core::value::JValue;

use crate::error::StartupError;

/// The JSON Logic engine every rule is compiled with and evaluated by. Its
/// default configuration follows json-logic-js (loose equality), which is
/// what FORMAT.md asks for, except for truthiness: see
/// [`json_logic_js_truthy`].
pub(crate) fn logic_engine() -> &'static datalogic_rs::Engine {
    static ENGINE: std::sync::LazyLock<datalogic_rs::Engine> = std::sync::LazyLock::new(|| {
        let config = datalogic_rs::EvaluationConfig::default()
            .with_truthy_evaluator(datalogic_rs::TruthyEvaluator::custom(json_logic_js_truthy));
        datalogic_rs::Engine::builder()
            .with_config(config)
            .add_operator("log", LogOperator)
            .add_operator(MISSING, MissingOperator)
            .add_operator(MISSING_SOME, MissingSomeOperator)
            .build()
    });
    &ENGINE
}

/// json-logic-js's `log`, which FORMAT.md's operator set includes but
/// datalogic-rs does not offer: returns its first argument and writes it to
/// the log (stderr; stdout may be the MCP channel).
struct LogOperator;

impl datalogic_rs::CustomOperator for LogOperator {
    fn evaluate<'a>(
        &self,
        args: &[&'a datalogic_rs::DataValue<'a>],
        _ctx: &mut datalogic_rs::operator::EvalContext<'_, 'a>,
        arena: &'a datalogic_rs::bumpalo::Bump,
    ) -> datalogic_rs::Result<&'a datalogic_rs::DataValue<'a>> {
        use datalogic_rs::ArenaExt;
        let value = args.first().copied().unwrap_or_else(|| arena.null());
        tracing::info!(target: "mcpgraph::json_logic", "log: {value}");
        Ok(value)
    }
}

/// The names json-logic-js's `missing` and `missing_some` are compiled
/// under (datalogic-rs's built-ins of the same name cannot be replaced, and
/// count a key whose value is `null` or `""` as present).
const MISSING: &str = "mcpgraph_missing";
const MISSING_SOME: &str = "mcpgraph_missing_some";

/// Renames `missing`/`missing_some` to [`MISSING`]/[`MISSING_SOME`]
/// wherever they read the root data. Inside the callback of an iterating
/// operator they read the current item, which a custom operator cannot
/// see; there the built-ins stay.
pub(crate) fn use_json_logic_js_missing(rule: &mut serde_json::Value) {
    use serde_json::Value;
    match rule {
        Value::Array(items) => items.iter_mut().for_each(use_json_logic_js_missing),
        Value::Object(map) if map.len() == 1 => {
            let Some((op, _)) = map.iter().next() else {
                return;
            };
            let op = op.clone();
            let renamed = match op.as_str() {
                "missing" => Some(MISSING),
                "missing_some" => Some(MISSING_SOME),
                _ => None,
            };
            let mut args = map.remove(&op).unwrap_or(Value::Null);
            let iterating = matches!(
                op.as_str(),
                "map" | "filter" | "reduce" | "all" | "some" | "none"
            );
            match &mut args {
                Value::Array(items) if iterating => {
                    // The callback (second argument) runs per item.
                    for (i, item) in items.iter_mut().enumerate() {
                        if i != 1 {
                            use_json_logic_js_missing(item);
                        }
                    }
                }
                other => use_json_logic_js_missing(other),
            }
            map.insert(renamed.map_or(op, str::to_owned), args);
        }
        _ => {}
    }
}

/// json-logic-js's `missing`: the keys (the first argument when it is an
/// array, else all arguments) whose value in the data, looked up as `var`
/// does, is absent, `null` or `""`.
struct MissingOperator;

impl datalogic_rs::CustomOperator for MissingOperator {
    fn evaluate<'a>(
        &self,
        args: &[&'a datalogic_rs::DataValue<'a>],
        ctx: &mut datalogic_rs::operator::EvalContext<'_, 'a>,
        arena: &'a datalogic_rs::bumpalo::Bump,
    ) -> datalogic_rs::Result<&'a datalogic_rs::DataValue<'a>> {
        Ok(missing_keys(args, ctx.root_input(), arena))
    }
}

/// json-logic-js's `missing_some`: `[]` when at least `need` of `keys` are
/// present, else the missing ones.
struct MissingSomeOperator;

impl datalogic_rs::CustomOperator for MissingSomeOperator {
    fn evaluate<'a>(
        &self,
        args: &[&'a datalogic_rs::DataValue<'a>],
        ctx: &mut datalogic_rs::operator::EvalContext<'_, 'a>,
        arena: &'a datalogic_rs::bumpalo::Bump,
    ) -> datalogic_rs::Result<&'a datalogic_rs::DataValue<'a>> {
        use datalogic_rs::DataValue;
        let need = args.first().and_then(|n| n.as_f64()).unwrap_or(f64::NAN);
        let Some(options @ DataValue::Array(keys)) = args.get(1).copied() else {
            return Err(datalogic_rs::Error::invalid_arguments(
                "missing_some needs a count and an array of keys",
            ));
        };
        let missing = missing_keys(&[options], ctx.root_input(), arena);
        let found = match missing {
            DataValue::Array(m) => m.len(),
            _ => 0,
        };
        if (keys.len() - found) as f64 >= need {
            Ok(arena.alloc(DataValue::Array(&[])))
        } else {
            Ok(missing)
        }
    }
}

fn missing_keys<'a>(
    args: &[&'a datalogic_rs::DataValue<'a>],
    data: &'a datalogic_rs::DataValue<'a>,
    arena: &'a datalogic_rs::bumpalo::Bump,
) -> &'a datalogic_rs::DataValue<'a> {
    use datalogic_rs::DataValue;
    let keys: Vec<&'a DataValue<'a>> = match args.first() {
        Some(DataValue::Array(items)) => items.iter().collect(),
        _ => args.to_vec(),
    };
    let missing: Vec<DataValue<'a>> = keys
        .into_iter()
        .filter(|key| is_missing(data, key))
        .cloned()
        .collect();
    arena.alloc(DataValue::Array(arena.alloc_slice_clone(&missing)))
}

/// Whether json-logic-js's `{"var": key}` gives `undefined`, `null` or
/// `""` on `data`: the path is split at dots and walked through object
/// fields, array and string indices (and their `length`).
fn is_missing(data: &datalogic_rs::DataValue<'_>, key: &datalogic_rs::DataValue<'_>) -> bool {
    use datalogic_rs::DataValue;
    let path = match key {
        DataValue::Null | DataValue::String("") => return is_empty(data),
        DataValue::String(s) => Cow::Borrowed(*s),
        other => Cow::Owned(other.to_string()),
    };
    let mut current = data;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        current = match current {
            DataValue::Object(fields) => match fields.iter().find(|(k, _)| *k == part) {
                Some((_, v)) => v,
                None => return true,
            },
            // A number: present, and nothing can be looked up inside it.
            DataValue::Array(_) if part == "length" => return !last,
            DataValue::Array(items) => {
                match part.parse::<usize>().ok().and_then(|i| items.get(i)) {
                    Some(v) => v,
                    None => return true,
                }
            }
            DataValue::String(text) => {
                // A character or the length: never null or "", and
                // nothing can be looked up inside either.
                let found = part == "length"
                    || part
                        .parse::<usize>()
                        .is_ok_and(|i| i < text.encode_utf16().count());
                return !(found && last);
            }
            _ => return true,
        };
    }
    is_empty(current)
}

fn is_empty(value: &datalogic_rs::DataValue<'_>) -> bool {
    matches!(
        value,
        datalogic_rs::DataValue::Null | datalogic_rs::DataValue::String("")
    )
}

/// `jsonLogic.truthy` of json-logic-js, used by `if`, `!`, `!!`, `and`,
/// `or` and the predicates of `filter`/`all`/`some`/`none`: `[]` is false,
/// everything else as JavaScript's `!!` says, so `{}` is true
/// (datalogic-rs's own "JavaScript" truthiness makes `{}` false).
fn json_logic_js_truthy(value: &datalogic_rs::datavalue::OwnedDataValue) -> bool {
    use datalogic_rs::datavalue::{NumberValue, OwnedDataValue};
    match value {
        OwnedDataValue::Null => false,
        OwnedDataValue::Bool(b) => *b,
        OwnedDataValue::Number(NumberValue::Integer(i)) => *i != 0,
        OwnedDataValue::Number(NumberValue::Float(f)) => *f != 0.0 && !f.is_nan(),
        OwnedDataValue::String(s) => !s.is_empty(),
        OwnedDataValue::Array(items) => !items.is_empty(),
        _ => true,
    }
}

/// A parsed JSONata expression.
#[derive(Debug)]
pub struct Expr {
    pub(crate) source: Cow<'static, str>,
    pub(crate) ast: AstNode,
    /// For a plain path of field names (`$.entry.x`, `node.a.b`, `$`): the
    /// names, so the common case skips the evaluator (see [`Expr::lookup`]).
    path: Option<Box<[Box<str>]>>,
}

impl Expr {
    /// Parses `source`. The error message starts with the JSONata error
    /// code (`S0201: ...`) after the expression.
    pub fn parse(source: impl Into<Cow<'static, str>>) -> Result<Self, StartupError> {
        let source = source.into();
        let mut ast = jsonata_core::parser::parse(&source).map_err(|e| {
            StartupError(format!("JSONata expression `{source}` does not parse: {e}"))
        })?;
        crate::bounded::guard(&mut ast);
        let path = plain_path(&ast);
        Ok(Self { source, ast, path })
    }

    /// The value of a plain path expression on `data` without the
    /// evaluator, when that is certain to be what the evaluator gives:
    /// fields looked up through objects, a missing one giving nothing, the
    /// last value returned as it is (an array too: jsonata-js returns a
    /// last step's single array unchanged). `None` (evaluate it) for
    /// anything else, such as a step through an array, which maps.
    pub(crate) fn lookup(&self, data: &JValue) -> Option<JValue> {
        let names = self.path.as_deref()?;
        let mut current = data;
        for (i, name) in names.iter().enumerate() {
            let JValue::Object(map) = current else {
                return None;
            };
            match map.get(&**name) {
                Some(JValue::Array(_)) if i + 1 < names.len() => return None,
                Some(value) => current = value,
                None => return Some(JValue::Undefined),
            }
        }
        match current {
            // `$` on an array input: jsonata-js wraps it as a sequence.
            JValue::Array(_) if names.is_empty() => None,
            value => Some(value.clone()),
        }
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
        let plain = step.stages.is_empty()
            && step.focus.is_none()
            && step.index_var.is_none()
            && step.ancestor_label.is_none()
            && !step.is_tuple
            && !step.inner_tuple;
        if !plain {
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
    pub fn expr(source: &'static str) -> Result<Self, StartupError> {
        Expr::parse(source).map(Args::Expr)
    }

    /// A literal given as JSON text.
    pub fn literal(json: &'static str) -> Result<Self, StartupError> {
        serde_json::from_str(json)
            .map(Args::Literal)
            .map_err(|e| StartupError(format!("literal argument `{json}`: {e}")))
    }
}

/// A switch node: its rules, each with the JSONata expressions of its
/// `var`s lifted out into slots.
#[derive(Debug)]
pub struct Switch {
    pub(crate) conditions: Vec<CompiledRule>,
}

pub(crate) use crate::codegen::SLOT_KEY;

/// One switch condition as the generator emits it: the rule rewritten so
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

/// A compiled [`Rule`].
#[derive(Debug)]
pub(crate) struct CompiledRule {
    pub(crate) logic: Arc<datalogic_rs::Logic>,
    pub(crate) vars: Vec<Expr>,
    pub(crate) needs_context: bool,
}

/// Applies a plain JSON Logic rule to `data` with the engine and
/// configuration switch nodes use. For the conformance runner.
#[doc(hidden)]
pub fn evaluate_logic(
    rule: &serde_json::Value,
    data: &serde_json::Value,
) -> Result<serde_json::Value, String> {
    let engine = logic_engine();
    let mut rule = rule.clone();
    use_json_logic_js_missing(&mut rule);
    let logic = engine.compile(&rule).map_err(|e| e.to_string())?;
    let arena = datalogic_rs::bumpalo::Bump::new();
    let value = engine
        .evaluate(&logic, data, &arena)
        .map_err(|e| e.to_string())?;
    serde_json::to_value(value.to_owned()).map_err(|e| e.to_string())
}

impl Switch {
    /// Compiles a switch's conditions, in order.
    pub fn new(conditions: &[Rule]) -> Result<Self, StartupError> {
        let engine = logic_engine();
        let conditions = conditions
            .iter()
            .map(|rule| {
                let Rule {
                    json: rule,
                    vars,
                    needs_context,
                } = *rule;
                let mut json: serde_json::Value = serde_json::from_str(rule)
                    .map_err(|e| StartupError(format!("rule `{rule}`: {e}")))?;
                use_json_logic_js_missing(&mut json);
                let logic = engine
                    .compile(&json)
                    .map_err(|e| StartupError(format!("rule `{rule}`: {e}")))?;
                let vars = vars
                    .iter()
                    .map(|source| Expr::parse(*source))
                    .collect::<Result<_, _>>()?;
                Ok(CompiledRule {
                    logic: Arc::new(logic),
                    vars,
                    needs_context,
                })
            })
            .collect::<Result<_, StartupError>>()?;
        Ok(Self { conditions })
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
}
