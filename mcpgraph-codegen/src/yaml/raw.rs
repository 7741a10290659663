//! The deserializer serde-saphyr drives: every value with its span, and a
//! guard against nesting deeper than [`MAX_DEPTH`] (our own recursion must
//! not run out of stack).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::{LineIndex, MAX_DEPTH, Node, Value};

thread_local! {
    /// How deep the reader is in the value being read.
    pub(super) static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One level of nesting, counted in [`DEPTH`] while it lives.
struct DepthGuard;

impl DepthGuard {
    fn enter<E: de::Error>() -> Result<Self, E> {
        let depth = DEPTH.with(|d| {
            let n = d.get() + 1;
            d.set(n);
            n
        });
        let guard = DepthGuard;
        if depth > MAX_DEPTH + 1 {
            return Err(E::custom(format_args!(
                "YAML nesting is deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(guard)
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// What serde-saphyr hands over, before positions are converted.
pub(super) enum RawValue {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Seq(Vec<Spanned<RawValue>>),
    Map(Vec<(Spanned<RawValue>, Spanned<RawValue>)>),
}

/// The tree with positions, from what serde-saphyr handed over.
pub(super) fn convert(raw: Spanned<RawValue>, index: &LineIndex<'_>) -> Node {
    let pos = index.location_pos(&raw.referenced);
    let defined = if raw.defined == raw.referenced {
        pos
    } else {
        index.location_pos(&raw.defined)
    };
    let value = match raw.value {
        RawValue::Null => Value::Null,
        RawValue::Bool(b) => Value::Bool(b),
        RawValue::Number(n) => Value::Number(n),
        RawValue::String(s) => Value::String(s),
        RawValue::Seq(items) => Value::Seq(items.into_iter().map(|i| convert(i, index)).collect()),
        RawValue::Map(entries) => Value::Map(
            entries
                .into_iter()
                .map(|(k, v)| (convert(k, index), convert(v, index)))
                .collect(),
        ),
    };
    Node {
        value,
        pos,
        defined,
    }
}

impl<'de> Deserialize<'de> for RawValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let _guard = DepthGuard::enter::<D::Error>()?;
        deserializer.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<RawValue, E> {
        Ok(RawValue::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<RawValue, E> {
        Ok(RawValue::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<RawValue, E> {
        Ok(RawValue::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<RawValue, E> {
        match i64::try_from(v) {
            Ok(v) => Ok(RawValue::Number(v.into())),
            Err(_) => u64::try_from(v)
                .map(|v| RawValue::Number(v.into()))
                .map_err(|_| E::custom("integer out of range")),
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<RawValue, E> {
        u64::try_from(v)
            .map(|v| RawValue::Number(v.into()))
            .map_err(|_| E::custom("integer out of range"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawValue, E> {
        serde_json::Number::from_f64(v)
            .map(RawValue::Number)
            .ok_or_else(|| E::custom("a number that is not finite cannot be represented in JSON"))
    }

    fn visit_str<E>(self, v: &str) -> Result<RawValue, E> {
        Ok(RawValue::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<RawValue, E> {
        Ok(RawValue::String(v))
    }

    fn visit_bytes<E: de::Error>(self, _v: &[u8]) -> Result<RawValue, E> {
        Err(E::custom("binary values are not supported"))
    }

    fn visit_unit<E>(self) -> Result<RawValue, E> {
        Ok(RawValue::Null)
    }

    fn visit_none<E>(self) -> Result<RawValue, E> {
        Ok(RawValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawValue, D::Error> {
        RawValue::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<RawValue>>()? {
            items.push(item);
        }
        Ok(RawValue::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawValue, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<RawValue>>()? {
            let value = map.next_value::<Spanned<RawValue>>()?;
            entries.push((key, value));
        }
        Ok(RawValue::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::read;

    #[test]
    fn deep_nesting_is_refused() {
        for text in [
            "[".repeat(100_000),
            format!(
                "{}1{}",
                "[".repeat(MAX_DEPTH + 5),
                "]".repeat(MAX_DEPTH + 5)
            ),
            (0..MAX_DEPTH + 5)
                .map(|i| format!("{}a:\n", " ".repeat(i)))
                .collect(),
            "- ".repeat(10_000) + "x",
        ] {
            let e = read(&text).unwrap_err();
            assert!(
                e.message.contains("deeper") || e.message.starts_with("invalid YAML"),
                "{}",
                e.message
            );
        }
        let ok = format!(
            "{}1{}",
            "[".repeat(MAX_DEPTH - 2),
            "]".repeat(MAX_DEPTH - 2)
        );
        read(&ok).unwrap();
    }
}
