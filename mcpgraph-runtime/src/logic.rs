//! The JSON Logic engine switch rules run in: datalogic-rs configured to
//! behave as json-logic-js, which FORMAT.md prescribes (its truthiness,
//! `log`, and `missing`/`missing_some` as it reads them).
//!
//! Rules are compiled once, at start-up (`expr::Switch`), and applied per
//! call by `exec`.

use std::borrow::Cow;

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
