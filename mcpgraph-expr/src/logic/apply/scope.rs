//! The operators that read the data json-logic-js is given (`var`,
//! `missing`, `missing_some`) and those that run a callback per item with
//! the item as data (`map`, `filter`, `reduce`, `all`, `some`, `none`).
//! Inside a callback `missing` reads the item, as in json-logic-js; the
//! generator's slots still read the root (mcpGraph evaluates every `var`
//! against the context before json-logic-js runs).

use super::coerce::{less_than, to_string};
use super::env::{Env, Operands};
use super::value::{Built, Val, logic_truthy};
use crate::logic::tree::Op;

/// `map`, `filter`, `reduce`, `all`, `some`, `none`.
pub(super) fn iterate<'a>(
    op: Op,
    argv: &impl Operands<'a>,
    env: &Env<'a>,
    data: &Val<'a>,
) -> Val<'a> {
    let scoped = argv.eval(0, env, data);
    let items = scoped.items();
    let run = |item: &Val<'a>| argv.eval(1, env, item);
    match op {
        Op::Map | Op::Filter => {
            let Some(items) = items else {
                return Val::List(Built::new(Vec::new()));
            };
            if !env.spend(2 * items.len() as u64) {
                return Val::Undefined;
            }
            let mut out = Vec::with_capacity(items.len());
            for item in items.iter() {
                let value = run(&item);
                if !env.step() {
                    break;
                }
                if op == Op::Map {
                    out.push(value);
                } else if logic_truthy(&value) {
                    out.push(item);
                }
            }
            Val::List(Built::new(out))
        }
        Op::Reduce => {
            // An `undefined` initial value (absent, or a `var` that read
            // nothing) is `null`.
            let mut acc = match argv.eval(2, env, data) {
                Val::Undefined => Val::Null,
                initial => initial,
            };
            let Some(items) = items else {
                return acc;
            };
            for item in items.iter() {
                if !env.step() {
                    break;
                }
                acc = run(&Val::Scope(Built::new(vec![item, acc])));
            }
            acc
        }
        _ => {
            // `all` of nothing is false, `some` of nothing false, `none`
            // of nothing true.
            let Some(items) = items.filter(|i| i.len() > 0) else {
                return Val::Bool(op == Op::None);
            };
            for item in items.iter() {
                let hit = logic_truthy(&run(&item));
                match op {
                    _ if !env.step() => break,
                    Op::All if !hit => return Val::Bool(false),
                    Op::Some if hit => return Val::Bool(true),
                    Op::None if hit => return Val::Bool(false),
                    _ => {}
                }
            }
            Val::Bool(op != Op::Some)
        }
    }
}

/// json-logic-js's `var`: `path` split at dots and walked through `data`;
/// `default` (else `null`) where a step finds nothing. An empty path is
/// the data itself.
pub(super) fn var<'a>(data: &Val<'a>, path: &Val<'a>, default: Val<'a>) -> Val<'a> {
    let not_found = match default {
        Val::Undefined => Val::Null,
        other => other,
    };
    if path.is_nullish() || path.as_str() == Some("") {
        return data.clone();
    }
    let path = to_string(path);
    let mut current = data.clone();
    for part in path.split('.') {
        if current.is_nullish() {
            return not_found;
        }
        match current.get(part) {
            Some(next) => current = next,
            None => return not_found,
        }
    }
    current
}

/// `missing`: the keys (the first argument if it is an array, else all
/// arguments) whose `var` on `data` is `null` or `""`, absent included.
pub(super) fn missing<'a>(args: &[Val<'a>], data: &Val<'a>) -> Val<'a> {
    let from_first;
    let keys: Box<dyn Iterator<Item = Val<'a>> + '_> = match args.first().and_then(Val::items) {
        Some(items) => {
            from_first = items;
            Box::new(from_first.iter())
        }
        None => Box::new(args.iter().cloned()),
    };
    let mut out = Vec::new();
    for key in keys {
        // `{"var": key}`: an array key is the path and its default.
        let value = match key.items() {
            Some(items) => var(
                data,
                &items.get(0).unwrap_or(Val::Undefined),
                items.get(1).unwrap_or(Val::Undefined),
            ),
            None => var(data, &key, Val::Undefined),
        };
        if matches!(value, Val::Null) || value.as_str() == Some("") {
            out.push(key);
        }
    }
    Val::List(Built::new(out))
}

/// `missing_some`: `[]` when at least `need` of the keys in `options` are
/// present, else the missing ones.
pub(super) fn missing_some<'a>(
    need: &Val<'a>,
    options: &Val<'a>,
    env: &Env<'a>,
    data: &Val<'a>,
) -> Val<'a> {
    let length = match options {
        Val::Undefined | Val::Null => {
            return env.throw(format!(
                "Cannot read properties of {} (reading 'length')",
                to_string(options)
            ));
        }
        other => other.get("length").unwrap_or(Val::Undefined),
    };
    // `{"missing": options}`: an array is the argument list.
    let missing_keys = match options.items() {
        Some(items) => missing(&items.iter().collect::<Vec<_>>(), data),
        None => missing(std::slice::from_ref(options), data),
    };
    let found = missing_keys.items().map_or(0, |i| i.len());
    let present = match length {
        Val::Num(n) => Val::Num(n - found as f64),
        _ => Val::Num(f64::NAN),
    };
    // `present >= need`
    if less_than(&present, need) == Some(false) {
        Val::List(Built::new(Vec::new()))
    } else {
        missing_keys
    }
}
