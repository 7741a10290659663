//! The values a switch rule computes with, as JavaScript sees them when
//! json-logic-js runs: `undefined`, `NaN` and `±Infinity` included.
//!
//! Values borrow from the rule (literals) and from the data (slot values,
//! the context) wherever they can, so reading and comparing allocates
//! nothing; only what an operator builds (`cat`, `map`, ...) is owned.

use std::rc::Rc;

use jsonata_core::value::JValue;
use serde_json::Value as Json;

/// A JavaScript value during a rule's evaluation.
///
/// Two words: the tag (a whole word, so that payloads are aligned and a
/// copy does not load across the tag's byte store, which stalls) and one
/// word of payload (strings and lists are reached through thin pointers).
/// Values are moved as little as possible all the same: copying them
/// cost more than the operators (see `eval::truth`).
#[derive(Clone, Debug)]
#[repr(u64)]
pub(super) enum Val<'a> {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    /// A string of the rule.
    Str(&'a String),
    /// A string of the data.
    Shared(&'a Rc<str>),
    /// A string an operator built.
    Text(Rc<String>),
    /// An array or object of the data (never a scalar: see [`Val::data`]).
    Data(&'a JValue),
    /// An array or object written in the rule (a constant).
    Lit(&'a Json),
    /// An array an operator built.
    List(Built<'a>),
    /// The object `reduce` gives its callback: `{current, accumulator}`.
    Scope(Built<'a>),
}

/// The items of an array or `reduce` scope an operator built.
///
/// `reduce` can nest such values once per item of the data (a callback
/// returning `[accumulator]`), deeper than a recursive drop could go: the
/// last owner takes nested ones apart in a loop instead.
#[derive(Clone, Debug)]
pub(super) struct Built<'a>(Rc<Vec<Val<'a>>>);

impl<'a> Built<'a> {
    pub(super) fn new(items: Vec<Val<'a>>) -> Self {
        Built(Rc::new(items))
    }

    pub(super) fn ptr_eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    /// The items of nested built values this is the last owner of, moved out.
    fn take_nested(&mut self, into: &mut Vec<Val<'a>>) {
        if let Some(items) = Rc::get_mut(&mut self.0) {
            for item in items.iter_mut() {
                if matches!(item, Val::List(_) | Val::Scope(_)) {
                    into.push(std::mem::replace(item, Val::Undefined));
                }
            }
        }
    }
}

impl<'a> std::ops::Deref for Built<'a> {
    type Target = [Val<'a>];

    fn deref(&self) -> &[Val<'a>] {
        &self.0
    }
}

impl Drop for Built<'_> {
    fn drop(&mut self) {
        let nested = Rc::get_mut(&mut self.0).is_some_and(|items| {
            items
                .iter()
                .any(|v| matches!(v, Val::List(_) | Val::Scope(_)))
        });
        if !nested {
            return;
        }
        let mut pending = Vec::new();
        self.take_nested(&mut pending);
        while let Some(mut value) = pending.pop() {
            if let Val::List(built) | Val::Scope(built) = &mut value {
                built.take_nested(&mut pending);
            }
        }
    }
}

/// The keys of [`Val::Scope`], in order.
pub(super) const SCOPE_KEYS: [&str; 2] = ["current", "accumulator"];

/// An array's items, wherever the array lives.
#[derive(Clone, Copy)]
pub(super) enum Items<'v, 'a> {
    Data(&'a [JValue]),
    Lit(&'a [Json]),
    List(&'v [Val<'a>]),
}

impl<'v, 'a> Items<'v, 'a> {
    pub(super) fn len(self) -> usize {
        match self {
            Items::Data(items) => items.len(),
            Items::Lit(items) => items.len(),
            Items::List(items) => items.len(),
        }
    }

    pub(super) fn get(self, i: usize) -> Option<Val<'a>> {
        match self {
            Items::Data(items) => items.get(i).map(Val::data),
            Items::Lit(items) => items.get(i).map(Val::lit),
            Items::List(items) => items.get(i).cloned(),
        }
    }

    pub(super) fn iter(self) -> impl Iterator<Item = Val<'a>> + 'v {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

impl<'a> Val<'a> {
    /// A value of the data (a slot's value, the context, an item).
    pub(super) fn data(value: &'a JValue) -> Self {
        match value {
            JValue::Undefined => Val::Undefined,
            JValue::Bool(b) => Val::Bool(*b),
            JValue::Number(n) => Val::Num(*n),
            JValue::String(s) => Val::Shared(s),
            JValue::Array(_) | JValue::Object(_) => Val::Data(value),
            // Functions and regexes: what JSON makes of them.
            _ => Val::Null,
        }
    }

    /// A literal of the rule.
    pub(super) fn lit(value: &'a Json) -> Self {
        match value {
            Json::Null => Val::Null,
            Json::Bool(b) => Val::Bool(*b),
            Json::Number(n) => Val::Num(n.as_f64().unwrap_or(f64::NAN)),
            Json::String(s) => Val::Str(s),
            Json::Array(_) | Json::Object(_) => Val::Lit(value),
        }
    }

    /// A string an operator built.
    pub(super) fn text(s: impl Into<String>) -> Self {
        Val::Text(Rc::new(s.into()))
    }

    #[inline]
    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            Val::Shared(s) => Some(s),
            Val::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The items, if this is an array (`Array.isArray`).
    pub(super) fn items(&self) -> Option<Items<'_, 'a>> {
        match self {
            Val::Data(JValue::Array(items)) => Some(Items::Data(items)),
            Val::Lit(Json::Array(items)) => Some(Items::Lit(items)),
            Val::List(items) => Some(Items::List(items)),
            _ => None,
        }
    }

    /// Whether this is an array or an object.
    pub(super) fn is_container(&self) -> bool {
        matches!(
            self,
            Val::Data(_) | Val::Lit(_) | Val::List(_) | Val::Scope(_)
        )
    }

    pub(super) fn is_nullish(&self) -> bool {
        matches!(self, Val::Undefined | Val::Null)
    }

    /// JavaScript's `value[key]` for a key that is a string: object fields,
    /// array and string indices and their `length`. `None` is `undefined`.
    pub(super) fn get(&self, key: &str) -> Option<Val<'a>> {
        if let Some(items) = self.items() {
            return if key == "length" {
                Some(Val::Num(items.len() as f64))
            } else {
                array_index(key).and_then(|i| items.get(i))
            };
        }
        match self {
            Val::Data(JValue::Object(map)) => map.get(key).map(Val::data),
            Val::Lit(Json::Object(map)) => map.get(key).map(Val::lit),
            Val::Scope(pair) => SCOPE_KEYS
                .iter()
                .position(|k| *k == key)
                .and_then(|i| pair.get(i).cloned()),
            Val::Str(_) | Val::Shared(_) | Val::Text(_) => {
                let s = self.as_str().unwrap_or_default();
                if key == "length" {
                    return Some(Val::Num(s.encode_utf16().count() as f64));
                }
                let unit = s.encode_utf16().nth(array_index(key)?)?;
                Some(Val::text(String::from_utf16_lossy(&[unit])))
            }
            _ => None,
        }
    }
}

/// The index a property key names on an array (a canonical integer:
/// `"01"` names no index).
fn array_index(key: &str) -> Option<usize> {
    let i: usize = key.parse().ok()?;
    (key == "0" || !key.starts_with('0')).then_some(i)
}

/// JavaScript's truthiness (`Boolean(value)`), which decides a switch.
pub(super) fn js_truthy(value: &Val<'_>) -> bool {
    match value {
        Val::Undefined | Val::Null => false,
        Val::Bool(b) => *b,
        Val::Num(n) => *n != 0.0 && !n.is_nan(),
        Val::Str(_) | Val::Shared(_) | Val::Text(_) => {
            value.as_str().is_some_and(|s| !s.is_empty())
        }
        _ => true,
    }
}

/// `jsonLogic.truthy`: as JavaScript, except that `[]` is false. Used by
/// `if`, `and`, `or`, `!`, `!!` and the iterating operators.
pub(super) fn logic_truthy(value: &Val<'_>) -> bool {
    match value.items() {
        Some(items) => items.len() != 0,
        None => js_truthy(value),
    }
}
