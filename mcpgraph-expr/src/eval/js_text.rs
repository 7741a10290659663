//! JavaScript's object key order and number spelling, for everything that
//! leaves the evaluator.
//!
//! mcpGraph runs on jsonata-js, so a tool result's keys come out in
//! JavaScript's own order (integer-like keys first, ascending, then the
//! rest in insertion order) and its text content is `JSON.stringify`'s,
//! whose numbers are `Number.prototype.toString`'s (`0.000001`, `1e-7`,
//! `10000000000000000`, `1e+21`). serde_json keeps insertion order and
//! writes `1e-6` and `1e16`; this module does what JavaScript does.

use std::io;

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{CompactFormatter, Formatter};

#[cfg(test)]
use crate::{in_js_order, is_index_key, sort_js_order};

/// `value` with every object's keys in JavaScript's order (in place,
/// without recursion). Values from jsonata-core are already in that order
/// (`to_json`); the tests build theirs from JSON text.
#[cfg(test)]
fn reorder_keys(value: &mut Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if !in_js_order(map.keys().map(String::as_str)) {
                    let mut entries: Vec<(String, Value)> =
                        std::mem::take(map).into_iter().collect();
                    sort_js_order(&mut entries);
                    map.extend(entries);
                }
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// `value` as `JSON.stringify(value)` writes it: compact, numbers spelt
/// as JavaScript spells them. Keys are written in the value's order (see
/// `reorder_keys`).
pub fn to_js_string(value: &Value) -> String {
    let mut out = Vec::with_capacity(128);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, JsFormatter);
    // Writing a `Value` to memory cannot fail: its keys are strings and
    // its numbers finite.
    let _ = value.serialize(&mut serializer);
    String::from_utf8(out).unwrap_or_default()
}

/// A number as JavaScript's `String(n)` writes it (`-0` as `0`).
pub(crate) fn js_number(n: f64) -> String {
    if n == 0.0 {
        return "0".to_owned();
    }
    ryu_js::Buffer::new().format(n).to_owned()
}

/// serde_json's compact formatter with JavaScript's number spelling.
/// Integers beyond 2^53 are written as the double JavaScript would hold.
struct JsFormatter;

const MAX_SAFE: u64 = 9_007_199_254_740_992;

impl Formatter for JsFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(js_number(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }

    fn write_u64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: u64) -> io::Result<()> {
        if value > MAX_SAFE {
            return self.write_f64(writer, value as f64);
        }
        CompactFormatter.write_u64(writer, value)
    }

    fn write_i64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: i64) -> io::Result<()> {
        if value.unsigned_abs() > MAX_SAFE {
            return self.write_f64(writer, value as f64);
        }
        CompactFormatter.write_i64(writer, value)
    }

    fn write_u128<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: u128) -> io::Result<()> {
        self.write_f64(writer, value as f64)
    }

    fn write_i128<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: i128) -> io::Result<()> {
        self.write_f64(writer, value as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn index_keys_are_canonical_integers_up_to_2_pow_32_minus_2() {
        for key in ["0", "1", "42", "4294967294"] {
            assert!(is_index_key(key).is_some(), "{key}");
        }
        for key in [
            "01",
            "-1",
            "1.0",
            "",
            "4294967295",
            "99999999999",
            "a",
            "+1",
            " 1",
        ] {
            assert!(is_index_key(key).is_none(), "{key}");
        }
    }

    /// node -e 'console.log(JSON.stringify({b:1,a:2,"10":3,"2":4,"01":5,"-1":6,"4294967295":7,"4294967294":8}))'
    /// gives {"2":4,"10":3,"4294967294":8,"b":1,"a":2,"01":5,"-1":6,"4294967295":7}
    #[test]
    fn objects_take_javascript_key_order_at_every_depth() {
        let mut value: Value = serde_json::from_str(
            r#"[{"b":1,"a":2,"10":3,"2":4,"01":5,"-1":6,"4294967295":7,"4294967294":8}]"#,
        )
        .unwrap();
        reorder_keys(&mut value);
        assert_eq!(
            to_js_string(&value),
            r#"[{"2":4,"10":3,"4294967294":8,"b":1,"a":2,"01":5,"-1":6,"4294967295":7}]"#
        );
    }

    /// node -e 'console.log(JSON.stringify([0.000001, 1e-7, 1e16, 1e21, -0, 0.1+0.2, 123.456, 2**53+2, -1.5e-10, 1.7976931348623157e308, 5e-324]))'
    #[test]
    fn numbers_are_spelt_as_javascript_spells_them() {
        let value = json!([
            0.000001,
            1e-7,
            1e16,
            1e21,
            -0.0,
            0.1 + 0.2,
            123.456,
            9_007_199_254_740_994u64,
            -1.5e-10,
            1.7976931348623157e308,
            5e-324
        ]);
        assert_eq!(
            to_js_string(&value),
            "[0.000001,1e-7,10000000000000000,1e+21,0,0.30000000000000004,123.456,9007199254740994,-1.5e-10,1.7976931348623157e+308,5e-324]"
        );
    }
}
