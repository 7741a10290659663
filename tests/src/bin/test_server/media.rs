//! The media the test server returns: a tiny WAV file as an `audio`
//! content block (server-everything has no audio tool), with annotations
//! and `_meta`, so that a graph passing it through can be checked for
//! every field.

use rmcp::model::CallToolResult;
use serde_json::json;

/// A 52-byte WAV file (8 kHz, mono, 8-bit PCM, eight samples), base64.
pub(super) const WAV_BASE64: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAoIBggKCAYA==";

/// `audio`: the WAV as an audio block, after a text block.
pub(super) fn audio() -> CallToolResult {
    serde_json::from_value(json!({
        "content": [
            {"type": "text", "text": "a short tone"},
            {
                "type": "audio",
                "data": WAV_BASE64,
                "mimeType": "audio/wav",
                "annotations": {"audience": ["user"], "priority": 0.25},
                "_meta": {"example.com/duration-ms": 1}
            }
        ]
    }))
    .expect("an audio result")
}
