//! How a downstream `tools/call` result becomes an `mcp` node's output
//! (FORMAT.md, "mcp"): an error result fails the node; otherwise
//! `structuredContent` as is; otherwise the first content item (text parsed
//! as JSON when it is JSON, the raw string when not; any other item as its
//! object); no content gives no output.
//!
//! A downstream server's error text reaches the caller, the log and spans
//! cut to [`MAX_ERROR_BYTES`] ([`cut`]).

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// The text of a downstream server's `isError` result: its text items
/// joined by newlines and [`cut`], or `(no message)` when it has none. Data
/// the node's `downstream.tool_error` quotes, not a failure of ours.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolErrorText(pub String);

impl std::fmt::Display for ToolErrorText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The node output for `result`: `Ok(None)` is "no output", `Err` carries
/// the text of an `isError` result.
#[doc(hidden)]
pub fn output_of_result(result: CallToolResult) -> Result<Option<Value>, ToolErrorText> {
    if result.is_error == Some(true) {
        let text: Vec<&str> = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
            .collect();
        return Err(ToolErrorText(if text.is_empty() {
            "(no message)".to_owned()
        } else {
            cut(text.join("\n"))
        }));
    }
    if let Some(structured) = result.structured_content {
        return Ok(Some(structured));
    }
    let Some(first) = result.content.into_iter().next() else {
        return Ok(None);
    };
    Ok(Some(match first {
        ContentBlock::Text(text) => {
            serde_json::from_str(&text.text).unwrap_or(Value::String(text.text))
        }
        other => serde_json::to_value(&other).unwrap_or(Value::Null),
    }))
}

/// The most bytes of a downstream server's error message that reach the
/// caller, the log or a span.
#[doc(hidden)]
pub const MAX_ERROR_BYTES: usize = 8 << 10;

/// `message`, cut to [`MAX_ERROR_BYTES`] on a char boundary, with the
/// number of bytes left out: `… [N bytes left out]`.
#[doc(hidden)]
pub fn cut(message: String) -> String {
    cut_to(message, MAX_ERROR_BYTES)
}

/// `message`, cut to `max` bytes as [`cut`] cuts.
#[doc(hidden)]
pub fn cut_to(mut message: String, max: usize) -> String {
    if message.len() <= max {
        return message;
    }
    let mut end = max;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    let left_out = message.len() - end;
    message.truncate(end);
    message.push_str(&format!("… [{left_out} bytes left out]"));
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).expect("a CallToolResult")
    }

    #[test]
    fn structured_content_wins() {
        let r = result(
            json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1}}),
        );
        assert_eq!(output_of_result(r), Ok(Some(json!({"a": 1}))));
    }

    #[test]
    fn text_is_parsed_as_json_or_kept_raw() {
        let r = result(json!({"content": [{"type": "text", "text": "{\"n\": 2}"}]}));
        assert_eq!(output_of_result(r), Ok(Some(json!({"n": 2}))));
        let r = result(
            json!({"content": [{"type": "text", "text": "not json"}, {"type": "text", "text": "2nd"}]}),
        );
        assert_eq!(output_of_result(r), Ok(Some(json!("not json"))));
        let r = result(json!({"content": [{"type": "text", "text": "42"}]}));
        assert_eq!(output_of_result(r), Ok(Some(json!(42))));
    }

    #[test]
    fn images_pass_as_the_item_object() {
        let r = result(
            json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}),
        );
        assert_eq!(
            output_of_result(r),
            Ok(Some(
                json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})
            ))
        );
    }

    #[test]
    fn empty_content_is_no_output() {
        let r = result(json!({"content": []}));
        assert_eq!(output_of_result(r), Ok(None));
    }

    #[test]
    fn a_long_error_is_cut_on_a_char_boundary_with_the_count() {
        let long = format!("a{}", "é".repeat(MAX_ERROR_BYTES));
        let r = result(json!({"content": [{"type": "text", "text": long}], "isError": true}));
        let ToolErrorText(text) = output_of_result(r).unwrap_err();
        let kept = MAX_ERROR_BYTES - 1;
        assert_eq!(
            text,
            format!(
                "a{}… [{} bytes left out]",
                "é".repeat(kept / 2),
                long.len() - kept
            )
        );
        assert_eq!(cut("short".to_owned()), "short");
    }

    #[test]
    fn is_error_fails_with_the_text() {
        let r = result(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        assert_eq!(output_of_result(r), Err(ToolErrorText("boom".to_owned())));
    }
}
