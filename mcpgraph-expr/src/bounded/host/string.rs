//! `$string(value, true)`'s result size, bounded from below before the
//! built-in builds it: pretty-printing indents every line by two spaces
//! per level, so its text grows with the value's size times its depth.

use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::value::JValue;

use super::{Budget, PASS};

/// `$__mcpgraph_string_check($, args...)`: fails when `$string(args...)`
/// would certainly give more than the budget's bytes. What it counts is
/// a lower bound of the text (strings and keys with their quotes, a byte
/// per other scalar, the indentation of each line), so a value it lets
/// through gives at most that plus the length of its numbers' text:
/// linear in the value. Without `prettify` (and with one argument, which
/// the rewrite leaves alone) the text is linear in the value anyway.
pub(super) fn check(args: &[JValue], budget: &Budget) -> Result<JValue, EvaluatorError> {
    let [_, value, JValue::Bool(true)] = args else {
        return PASS;
    };
    let mut size = 0u64;
    // Each value with its depth and the bytes of its key (`"key": `).
    let mut stack = vec![(value, 0u64, 0u64)];
    let mut visited = 0u32;
    while let Some((value, depth, key)) = stack.pop() {
        visited = visited.wrapping_add(1);
        if visited.is_multiple_of(4096) {
            budget.check_time()?;
        }
        // The value's own line: a newline and two spaces per level.
        let line = if depth > 0 { 1 + 2 * depth + key } else { 0 };
        let own = match value {
            JValue::String(s) => s.len() as u64 + 2,
            JValue::Array(items) => {
                stack.extend(items.iter().map(|item| (item, depth + 1, 0)));
                2
            }
            JValue::Object(map) => {
                for (key, item) in map.iter() {
                    stack.push((item, depth + 1, key.len() as u64 + 4));
                }
                2
            }
            JValue::Null | JValue::Bool(_) | JValue::Number(_) => 1,
            // Functions and `undefined` may be left out (a member with
            // its key): not counted.
            _ => continue,
        };
        size = size.saturating_add(line + own);
        if size > budget.max_bytes {
            return Err(budget.over(format!(
                "`$string` would give more than maxValueBytes ({} bytes)",
                budget.max_bytes
            )));
        }
    }
    PASS
}
