//! [`Native::eval`](super::Native::eval): the plain case of each shape,
//! `None` for the rest.

use indexmap::IndexMap;
use jsonata_core::functions;
use jsonata_core::value::{JArray, JValue, flattens_in_step};

use super::{Arithmetic, Builtin, Literal, Node, Order};
use crate::history::History;

/// The value at `names` from `data` (`Some(None)`: nothing), when that is
/// certain to be what jsonata-core gives: fields looked up through
/// objects, a missing one giving nothing, the last value returned as it is
/// (an array too: jsonata-js returns a last step's single array
/// unchanged). `None` (evaluate it) for anything else, such as a step
/// through an array, which maps.
pub(crate) fn lookup<'a>(data: &'a JValue, names: &[Box<str>]) -> Option<Option<&'a JValue>> {
    let mut current = data;
    for (i, name) in names.iter().enumerate() {
        let JValue::Object(map) = current else {
            return None;
        };
        match crate::value::field(map, name) {
            Some(JValue::Array(_)) if i + 1 < names.len() => return None,
            Some(value) => current = value,
            None => return Some(None),
        }
    }
    match current {
        // `$` on an array input is a sequence to jsonata; an array built
        // by the evaluator may unwrap or flatten where an input's does not.
        JValue::Array(_) if names.is_empty() => None,
        JValue::Array(array) if flagged(array) => None,
        value => Some(Some(value)),
    }
}

/// Whether an array carries any of the flags jsonata-core reads.
fn flagged(array: &JArray) -> bool {
    array.sequence
        || array.cons
        || array.keep_singleton
        || array.outer_wrapper
        || array.sorted_tuples
}

/// Whether an array's one flag is `sequence` (a built-in's list of values).
fn only_a_sequence(array: &JArray) -> bool {
    array.sequence
        && !(array.cons || array.keep_singleton || array.outer_wrapper || array.sorted_tuples)
}

fn number(value: &JValue) -> Option<f64> {
    match value {
        JValue::Number(n) if n.is_finite() => Some(*n),
        _ => None,
    }
}

pub(super) fn eval(node: &Node, data: &JValue, history: &History) -> Option<JValue> {
    Some(match node {
        Node::Value(literal) => literal.value(),
        Node::Path(names) => lookup(data, names)?.cloned().unwrap_or(JValue::Undefined),
        Node::Index(names, i) => match lookup(data, names)? {
            None => JValue::Undefined,
            Some(JValue::Array(items)) => {
                if items.iter().any(|item| matches!(item, JValue::Array(_))) {
                    return None;
                }
                let at = if *i < 0.0 { items.len() as f64 + i } else { *i };
                if at >= 0.0 && at < items.len() as f64 {
                    items[at as usize].clone()
                } else {
                    JValue::Undefined
                }
            }
            Some(value) if *i == 0.0 || *i == -1.0 => value.clone(),
            Some(_) => JValue::Undefined,
        },
        Node::Object(fields) => {
            if matches!(data, JValue::Array(_)) {
                return None;
            }
            let mut object = IndexMap::with_capacity(fields.len());
            for (key, value) in fields.iter() {
                let value = eval(value, data, history)?;
                if !value.is_undefined() {
                    object.insert(key.to_string(), value);
                }
            }
            JValue::object(object)
        }
        Node::Array(items) => {
            let mut values = Vec::with_capacity(items.len());
            let mut flat = true;
            for (item, kept) in items.iter() {
                match eval(item, data, history)? {
                    JValue::Undefined => {}
                    JValue::Array(array) if !kept => {
                        flat &= array.is_flat();
                        values.extend(array.iter().cloned());
                    }
                    value => {
                        flat &= !flattens_in_step(&value);
                        values.push(value);
                    }
                }
            }
            JValue::Array(JArray::new_flat(values, flat))
        }
        Node::Arithmetic(op, operands) => {
            let lhs = eval(&operands[0], data, history)?;
            let rhs = eval(&operands[1], data, history)?;
            match (&lhs, &rhs) {
                (JValue::Number(_), JValue::Number(_)) => {
                    let (a, b) = (number(&lhs)?, number(&rhs)?);
                    JValue::Number(match op {
                        Arithmetic::Add => a + b,
                        Arithmetic::Subtract => a - b,
                        Arithmetic::Multiply => a * b,
                        Arithmetic::Divide => a / b,
                        Arithmetic::Modulo => a % b,
                    })
                }
                (JValue::Undefined, JValue::Undefined) => JValue::Undefined,
                (JValue::Undefined, other) | (other, JValue::Undefined) => {
                    number(other)?;
                    JValue::Undefined
                }
                _ => return None,
            }
        }
        Node::Order(op, operands) => {
            let lhs = eval(&operands[0], data, history)?;
            let rhs = eval(&operands[1], data, history)?;
            let ordering = match (&lhs, &rhs) {
                (JValue::Number(a), JValue::Number(b)) => a.partial_cmp(b),
                (JValue::String(a), JValue::String(b)) => Some(a.cmp(b)),
                (JValue::Undefined, JValue::Undefined | JValue::Number(_) | JValue::String(_))
                | (JValue::Number(_) | JValue::String(_), JValue::Undefined) => {
                    return Some(JValue::Undefined);
                }
                _ => return None,
            };
            let Some(ordering) = ordering else {
                // NaN: every comparison is false.
                return Some(JValue::Bool(false));
            };
            JValue::Bool(match op {
                Order::Less => ordering.is_lt(),
                Order::LessOrEqual => ordering.is_le(),
                Order::Greater => ordering.is_gt(),
                Order::GreaterOrEqual => ordering.is_ge(),
            })
        }
        Node::Equal(negated, operands) => {
            let lhs = eval(&operands[0], data, history)?;
            let rhs = eval(&operands[1], data, history)?;
            if *negated && (lhs.is_undefined() || rhs.is_undefined()) {
                return Some(JValue::Bool(false));
            }
            JValue::Bool(functions::array::values_equal(&lhs, &rhs) != *negated)
        }
        Node::Concat(operands) => {
            let mut text = String::new();
            for operand in operands.iter() {
                // A literal's text is copied as it is, with no value built.
                if let Node::Value(Literal::String(s)) = operand {
                    text.push_str(s);
                    continue;
                }
                let value = eval(operand, data, history)?;
                match &value {
                    JValue::String(s) => text.push_str(s),
                    JValue::Undefined => {}
                    JValue::Null
                    | JValue::Number(_)
                    | JValue::Bool(_)
                    | JValue::Array(_)
                    | JValue::Object(_) => match functions::string::string(&value, None) {
                        Ok(JValue::String(s)) => text.push_str(&s),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            JValue::string(text)
        }
        Node::And(operands) => {
            let lhs = eval(&operands[0], data, history)?;
            JValue::Bool(truthy(&lhs)? && truthy(&eval(&operands[1], data, history)?)?)
        }
        Node::Or(operands) => {
            let lhs = eval(&operands[0], data, history)?;
            JValue::Bool(truthy(&lhs)? || truthy(&eval(&operands[1], data, history)?)?)
        }
        Node::Negate(operand) => match eval(operand, data, history)? {
            JValue::Undefined => JValue::Undefined,
            value => JValue::Number(-number(&value)?),
        },
        Node::Conditional(parts) => {
            let (condition, then, otherwise) = &**parts;
            if truthy(&eval(condition, data, history)?)? {
                eval(then, data, history)?
            } else if let Some(otherwise) = otherwise {
                eval(otherwise, data, history)?
            } else {
                JValue::Undefined
            }
        }
        Node::Call(builtin, args) => {
            // Three arguments at most (`Builtin::of`): no allocation.
            let mut values: [JValue; 3] = [JValue::Undefined, JValue::Undefined, JValue::Undefined];
            for (value, arg) in values.iter_mut().zip(args.iter()) {
                *value = eval(arg, data, history)?;
            }
            call(*builtin, &values[..args.len()])?
        }
        Node::ExecutionCount(id) => JValue::Number(history.count(id) as f64),
        Node::Finite(value, truth) => match eval(value, data, history)? {
            JValue::Number(n) if n.is_nan() && *truth => JValue::Bool(false),
            JValue::Number(n) if !n.is_finite() => return None,
            value => value,
        },
    })
}

/// jsonata's truth of a value, for the values whose truth needs no
/// recursion (an array's depends on its items: jsonata-core's to say).
fn truthy(value: &JValue) -> Option<bool> {
    Some(match value {
        JValue::Null | JValue::Undefined => false,
        JValue::Bool(b) => *b,
        JValue::Number(_) => number(value)? != 0.0,
        JValue::String(s) => !s.is_empty(),
        JValue::Object(object) => !object.is_empty(),
        _ => return None,
    })
}

/// A built-in on evaluated arguments, in the plain case of each: an
/// undefined first argument gives nothing (or 0, or false, as the
/// built-in says), and the rest have the types the built-in wants.
fn call(builtin: Builtin, args: &[JValue]) -> Option<JValue> {
    let first = &args[0];
    let text = || match first {
        JValue::String(s) => Some(&**s),
        _ => None,
    };
    let whole = |value: &JValue| number(value).filter(|n| n.fract() == 0.0 && n.abs() < 1e15);
    if first.is_undefined() {
        // The other arguments are checked first.
        for arg in &args[1..] {
            match builtin {
                Builtin::Split => matches!(arg, JValue::String(_)).then_some(())?,
                _ => whole(arg).map(drop)?,
            }
        }
        return Some(match builtin {
            Builtin::Count => JValue::Number(0.0),
            Builtin::Exists => JValue::Bool(false),
            _ => JValue::Undefined,
        });
    }
    Some(match builtin {
        Builtin::Count => match first {
            JValue::Array(items) if !flagged(items) || only_a_sequence(items) => {
                JValue::Number(items.len() as f64)
            }
            JValue::Array(_) | JValue::Null => return None,
            _ => JValue::Number(1.0),
        },
        Builtin::Sum => match first {
            JValue::Number(_) => JValue::Number(number(first)?),
            JValue::Array(items) if !flagged(items) => {
                let mut total = 0.0;
                for item in items.iter() {
                    total += number(item)?;
                }
                JValue::Number(total)
            }
            _ => return None,
        },
        Builtin::String => match first {
            JValue::String(_) | JValue::Null | JValue::Bool(_) | JValue::Number(_) => {
                functions::string::string(first, None).ok()?
            }
            _ => return None,
        },
        Builtin::Uppercase => functions::string::uppercase(text()?).ok()?,
        Builtin::Lowercase => functions::string::lowercase(text()?).ok()?,
        Builtin::Trim => functions::string::trim(text()?).ok()?,
        Builtin::Length => functions::string::length(text()?).ok()?,
        Builtin::Substring => {
            let start = whole(&args[1])? as i64;
            let length = match args.get(2) {
                Some(length) => Some(whole(length)? as i64),
                None => None,
            };
            functions::string::substring(text()?, start, length).ok()?
        }
        Builtin::Split => match &args[1] {
            JValue::String(separator) if !separator.is_empty() => {
                functions::string::split(text()?, &args[1], None).ok()?
            }
            _ => return None,
        },
        // A sequence of the keys, unwrapped as every call's value is: no
        // keys give nothing, one key that key.
        Builtin::Keys => match first {
            JValue::Object(object) => match object.len() {
                0 => JValue::Undefined,
                1 => JValue::string(object.keys().next()?.as_str()),
                _ => JValue::sequence(object.keys().map(|k| JValue::string(k.as_str())).collect()),
            },
            _ => return None,
        },
        Builtin::Exists => JValue::Bool(true),
        Builtin::Boolean => JValue::Bool(truthy(first)?),
        Builtin::Not => JValue::Bool(!truthy(first)?),
    })
}
