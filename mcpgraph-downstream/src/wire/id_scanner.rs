//! Finding the id of a reply too large to keep: the top-level `"id"` of a
//! JSON object read in pieces, so that an oversized reply still fails the
//! request it answers.

use rmcp::model::RequestId;

/// Finds the top-level `"id"` of a JSON object fed to it in pieces, without
/// keeping the object: how an oversized reply is matched to its request
/// while it is being discarded.
#[derive(Default)]
pub(crate) struct IdScanner {
    depth: u32,
    in_string: bool,
    escape: bool,
    state: Top,
    key: Vec<u8>,
    recording: Option<Vec<u8>>,
    id: Option<Vec<u8>>,
    has_method: bool,
}

/// What comes next at the top level of the object.
#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum Top {
    #[default]
    Key,
    Colon,
    Value,
}

impl IdScanner {
    /// Feeds the next bytes of the message.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            // Fast path: the inside of a string that is not being recorded
            // (the bulk of a huge reply) only ends at a quote or backslash.
            if self.in_string && !self.escape && self.recording.is_none() {
                let skip = bytes
                    .iter()
                    .position(|b| matches!(b, b'"' | b'\\'))
                    .unwrap_or(bytes.len());
                let key = self.depth == 1 && self.state == Top::Key;
                if key {
                    let room = 8usize.saturating_sub(self.key.len()).min(skip);
                    self.key.extend_from_slice(&bytes[..room]);
                }
                bytes = &bytes[skip..];
                if bytes.is_empty() {
                    break;
                }
            }
            let b = bytes[0];
            bytes = &bytes[1..];
            if let Some(recording) = self.recording.as_mut()
                && recording.len() < 256
            {
                recording.push(b);
            }
            let top = self.depth == 1;
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if top && self.state == Top::Key {
                        self.state = Top::Colon;
                    }
                } else if top && self.state == Top::Key && self.key.len() < 8 {
                    self.key.push(b);
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    if top && self.state == Top::Key {
                        self.key.clear();
                    }
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.end_value();
                    }
                }
                b':' if top && self.state == Top::Colon => {
                    self.state = Top::Value;
                    match self.key.as_slice() {
                        b"id" => self.recording = Some(Vec::new()),
                        b"method" => self.has_method = true,
                        _ => {}
                    }
                }
                b',' if top => {
                    self.end_value();
                    self.state = Top::Key;
                }
                _ => {}
            }
        }
    }

    fn end_value(&mut self) {
        if let Some(mut recording) = self.recording.take() {
            recording.pop(); // the `,` or `}` that ended it
            self.id = Some(recording);
        }
    }

    /// The id, if the message is a reply (it has an id and no method).
    pub(crate) fn reply_id(&self) -> Option<RequestId> {
        if self.has_method {
            return None;
        }
        serde_json::from_slice(self.id.as_deref()?.trim_ascii()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use rmcp::model::NumberOrString;
    use serde_json::{Map, Value, json};

    /// A random JSON value of at most `depth` levels, whose strings and
    /// keys are chosen to confuse a scanner: quotes, escapes, braces,
    /// commas, colons and keys named `id` and `method` below the top.
    fn value(rng: &mut fastrand::Rng, depth: u32) -> Value {
        const STRINGS: &[&str] = &[
            "",
            "id",
            "method",
            "\"id\":1,",
            "a\\\"}",
            "{[",
            "]}",
            ",",
            ":",
            "é\u{1F600}",
            "\n\t",
        ];
        match rng.usize(..if depth == 0 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => json!(rng.usize(..1000) as i64 - 500),
            2 => json!(STRINGS[rng.usize(..STRINGS.len())]),
            3 => json!(rng.usize(..2) == 0),
            4 => Value::Array((0..rng.usize(..4)).map(|_| value(rng, depth - 1)).collect()),
            _ => {
                let mut map = Map::new();
                for _ in 0..rng.usize(..4) {
                    let key = STRINGS[rng.usize(..STRINGS.len())].to_owned();
                    map.insert(key, value(rng, depth - 1));
                }
                Value::Object(map)
            }
        }
    }

    #[test]
    fn scanner_agrees_with_a_json_parser_on_random_messages_in_random_pieces() {
        let mut rng = fastrand::Rng::with_seed(0x5eed);
        for round in 0..3000 {
            // A reply (or, sometimes, a request) with nested decoys.
            let mut fields: Vec<(String, Value)> = vec![
                ("jsonrpc".into(), json!("2.0")),
                ("result".into(), value(&mut rng, 4)),
            ];
            let id = match rng.usize(..3) {
                0 => json!(rng.usize(..1 << 20)),
                1 => json!(format!("req-{}", rng.usize(..100))),
                _ => Value::Null, // no id at all
            };
            if !id.is_null() {
                fields.push(("id".into(), id.clone()));
            }
            let request = rng.usize(..8) == 0;
            if request {
                fields.push(("method".into(), json!("x/y")));
            }
            // Any order of the top-level keys.
            for i in (1..fields.len()).rev() {
                fields.swap(i, rng.usize(..i + 1));
            }
            let message = Value::Object(fields.into_iter().collect());
            let text = if rng.usize(..2) == 0 {
                serde_json::to_string(&message).unwrap()
            } else {
                serde_json::to_string_pretty(&message).unwrap()
            };
            let mut scanner = IdScanner::default();
            for piece in crate::pieces::pieces(&mut rng, text.as_bytes()) {
                scanner.feed(piece);
            }
            let want = if request || id.is_null() {
                None
            } else {
                serde_json::from_value::<RequestId>(id).ok()
            };
            assert_eq!(scanner.reply_id(), want, "round {round}: {text}");
        }
    }

    fn scan(pieces: &[&str]) -> Option<RequestId> {
        let mut s = IdScanner::default();
        for p in pieces {
            s.feed(p.as_bytes());
        }
        s.reply_id()
    }

    #[test]
    fn scanner_finds_the_top_level_id_anywhere() {
        let n = |i| Some(NumberOrString::Number(i));
        assert_eq!(
            scan(&[r#"{"jsonrpc":"2.0","id":7,"result":{"x":1}}"#]),
            n(7)
        );
        assert_eq!(
            scan(&[r#"{"result":{"id":1,"s":"\"id\":2,"},"#, r#" "id" : 42 }"#]),
            n(42)
        );
        assert_eq!(
            scan(&[r#"{"result":{"content":[{"id":3}]},"jsonrpc":"2.0","id":"a"}"#]),
            Some(NumberOrString::String("a".into()))
        );
        assert_eq!(scan(&[r#"{"id":5,"method":"x","params":{}}"#]), None);
        assert_eq!(scan(&[r#"{"result":{"id":5}}"#]), None);
        // In pieces, split anywhere.
        let text = r#"{"jsonrpc":"2.0","result":{"t":"a\\\"}b"},"id":123}"#;
        for cut in 0..text.len() {
            assert_eq!(scan(&[&text[..cut], &text[cut..]]), n(123), "cut at {cut}");
        }
    }
}
