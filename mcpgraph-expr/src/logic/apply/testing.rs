//! The entry points of the tests, the fuzz targets and the differential
//! runner (the `testing` feature): a rule's value besides its decision,
//! and rules applied to data given as JSON. A server needs none of them.

use jsonata_core::value::JValue;

use super::env::{Bounds, Env, LogicError};
use super::eval;
use super::rule::{Logic, RuleError, check_rule_depth};
use super::value::{SCOPE_KEYS, Val, js_truthy};
use crate::DEFAULT_MAX_VALUE_DEPTH;
use crate::json::from_json;
use crate::logic::tree;
use serde_json::Value as Json;

/// How deeply the data of [`evaluate_logic`] and [`evaluate_lowered`] (and
/// the values they write) may nest: the format's default
/// `maxValueDepth`, which a server applies to every `var` value. Servers
/// bound their values themselves; evaluation never recurses on data.
const MAX_DATA_DEPTH: usize = DEFAULT_MAX_VALUE_DEPTH as usize;

/// The error for data nested deeper than [`MAX_DATA_DEPTH`], if it is;
/// measured without recursion, for values of any depth.
fn check_data_depth(what: &str, value: &JValue) -> Result<(), OutcomeError> {
    let mut stack = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &JValue>> = match value {
            JValue::Array(items) => Box::new(items.iter()),
            JValue::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        if depth >= MAX_DATA_DEPTH {
            return Err(OutcomeError::Input(format!(
                "{what} nests deeper than {MAX_DATA_DEPTH} levels"
            )));
        }
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    Ok(())
}

/// `JSON.stringify` of a rule's value, bounded (see [`Val::to_json`]).
fn value_json(value: &Val<'_>) -> Result<Option<serde_json::Value>, OutcomeError> {
    value.to_json(MAX_DATA_DEPTH).map_err(|TooDeep| {
        OutcomeError::Value("the rule's value nests too deeply to write as JSON".to_owned())
    })
}

/// A rule's value nested too deeply to write as JSON.
struct TooDeep;

impl<'a> Val<'a> {
    /// What `JSON.stringify` makes of the value: `None` for `undefined`,
    /// `null` for `NaN` and `±Infinity`. Built arrays nested more than
    /// `depth` levels are an error (`reduce` can nest one per item; the
    /// data is bounded before it gets here).
    fn to_json(&self, depth: usize) -> Result<Option<Json>, TooDeep> {
        let built = |items: &[Val<'a>]| -> Result<Vec<Option<Json>>, TooDeep> {
            let Some(depth) = depth.checked_sub(1) else {
                return Err(TooDeep);
            };
            items.iter().map(|v| v.to_json(depth)).collect()
        };
        Ok(Some(match self {
            Val::Undefined => return Ok(None),
            Val::Null => Json::Null,
            Val::Bool(b) => Json::Bool(*b),
            Val::Num(n) => number_json(*n),
            Val::Str(_) | Val::Shared(_) | Val::Text(_) => {
                Json::String(self.as_str().unwrap_or_default().to_owned())
            }
            Val::Data(value) => match crate::json::to_json(value) {
                Some(json) => json,
                None => return Ok(None),
            },
            Val::Lit(value) => (*value).clone(),
            Val::List(items) => Json::Array(
                built(items)?
                    .into_iter()
                    .map(|v| v.unwrap_or(Json::Null))
                    .collect(),
            ),
            Val::Scope(pair) => Json::Object(
                SCOPE_KEYS
                    .iter()
                    .zip(built(pair)?)
                    .filter_map(|(k, v)| Some(((*k).to_owned(), v?)))
                    .collect(),
            ),
        }))
    }
}

/// A number as JSON: `null` when not finite, integral ones without a
/// fraction (as JavaScript writes them).
fn number_json(n: f64) -> Json {
    const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
    if !n.is_finite() {
        Json::Null
    } else if n.fract() == 0.0 && n.abs() <= MAX_SAFE {
        Json::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Json::Null, Json::Number)
    }
}

/// Why a rule given to a testing entry point has no outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutcomeError {
    /// The rule does not compile.
    Rule(RuleError),
    /// The data or the slots given cannot be applied (too deep, too few).
    Input(String),
    /// What the rule threw or ran into.
    Logic(LogicError),
    /// The rule's value nests too deeply to write as JSON.
    Value(String),
}

impl std::fmt::Display for OutcomeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rule(e) => e.fmt(f),
            Self::Logic(e) => e.fmt(f),
            Self::Input(why) | Self::Value(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for OutcomeError {}

/// The outcome of a rule, as the reference reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleOutcome {
    /// `JSON.stringify` of the rule's value: `None` for `undefined`,
    /// `null` for `NaN` and `±Infinity`.
    pub value: Option<serde_json::Value>,
    /// `Boolean(value)`: whether a switch takes this condition.
    pub holds: bool,
}

impl Logic {
    /// The rule's value and decision, as [`evaluate_lowered`] reports them.
    pub fn outcome(&self, slots: &[JValue], context: &JValue) -> Result<RuleOutcome, OutcomeError> {
        if slots.len() < self.slots {
            return Err(OutcomeError::Input(format!(
                "the rule reads {} slots, {} given",
                self.slots,
                slots.len()
            )));
        }
        let env = Env::new(slots, Bounds::NONE);
        let value = eval::eval(&self.root, &env, &Val::data(context));
        let value = env
            .bounded_outcome(value_json(&value))
            .map_err(OutcomeError::Logic)??;
        // As the switch decides (without building the value).
        let holds = self.decide(slots, context).map_err(OutcomeError::Logic)?;
        Ok(RuleOutcome { value, holds })
    }
}

/// Applies a rule exactly as a generated server's switch node does: `rule`
/// is the rule as the generator lowers it (each `{"var": S}` replaced by
/// `{"val": ["\u0000", "i"]}`, or `{"val": [[depth], "\u0000", "i"]}`
/// inside an iterating operator's callback: see
/// `mcpgraph_codegen::expand::rule::rewrite_rule`), `slots[i]` the value
/// JSONata gave `S` against the context (`JValue::Undefined` when it read
/// nothing), and `context` the node's context (what `missing` reads).
///
/// This is the entry point for a differential runner against mcpGraph:
/// lower with `rewrite_rule`, evaluate the `vars` with the runtime's
/// JSONata, call this. It compiles the rule on every call; a server
/// compiles once.
pub fn evaluate_lowered(
    rule: &serde_json::Value,
    slots: &[JValue],
    context: &JValue,
) -> Result<RuleOutcome, OutcomeError> {
    let logic = Logic::compile(rule).map_err(OutcomeError::Rule)?;
    for slot in slots {
        check_data_depth("a slot value", slot)?;
    }
    check_data_depth("the context", context)?;
    logic.outcome(slots, context)
}

/// Applies a plain JSON Logic rule (its `var`s read `data` by path, as in
/// json-logic-js) with the operators switch rules run on; errors are
/// json-logic-js's throws. For the JSON Logic conformance suites. The value
/// is `JSON.stringify`'s (`undefined` as `null`).
pub fn evaluate_logic(
    rule: &serde_json::Value,
    data: &serde_json::Value,
) -> Result<serde_json::Value, OutcomeError> {
    check_rule_depth(rule).map_err(OutcomeError::Rule)?;
    if tree::nesting(data, MAX_DATA_DEPTH).is_none() {
        return Err(OutcomeError::Input(format!(
            "the data nests deeper than {MAX_DATA_DEPTH} levels"
        )));
    }
    let root = tree::compile(rule);
    let data = from_json(data);
    let env = Env::new(&[], Bounds::NONE);
    let value = eval::eval(&root, &env, &Val::data(&data));
    if cfg!(debug_assertions) && !env.thrown() {
        // Switches ask `eval::truth`, which skips building values: the
        // suites run through here, so they check it against the value.
        let again = Env::new(&[], Bounds::NONE);
        let holds = eval::truth(&root, &again, &Val::data(&data));
        assert_eq!(holds, js_truthy(&value), "truth of {rule}");
    }
    let json = env
        .bounded_outcome(value_json(&value))
        .map_err(OutcomeError::Logic)?;
    Ok(json?.unwrap_or(serde_json::Value::Null))
}
