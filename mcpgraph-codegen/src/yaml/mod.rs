//! Reads YAML text into a tree of values that each know where they were
//! written.
//!
//! serde-saphyr does the YAML work; a hand-written `Deserialize` for
//! [`Value`] wraps every child in `Spanned`, so positions survive at every
//! depth (they would be lost through serde's tagged or untagged enums).
//! Duplicate keys are passed through and kept, so that lowering can report
//! each of them. This module knows nothing of the graph format.
//!
//! This module holds the tree and the entry point; `raw` is the
//! deserializer, `spans` maps a scalar's text back to the file.

mod raw;
mod spans;

pub(crate) use spans::{expr_offset_pos, scalar_spans};

use serde_saphyr::{DuplicateKeyPolicy, Options, Spanned};

use raw::{DEPTH, RawValue, convert};

use crate::model::Pos;

/// How deep collections may nest. Deeper input is refused with a clear
/// error rather than risking the stack. The runtime refuses switch rules
/// nested deeper than the same bound, so every rule of a graph compiles.
pub(crate) const MAX_DEPTH: usize = mcpgraph_expr::logic::MAX_RULE_DEPTH;

/// The stack of the thread that reads YAML. Unoptimised builds (the usual
/// case for proc macros) take tens of kilobytes per nesting level, more than
/// a caller's thread (2 MiB for spawned threads) may have left.
const READER_STACK: usize = 64 << 20;

/// A YAML value with its position.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub value: Value,
    /// Where the value is used (for an alias, the alias).
    pub pos: Pos,
    /// Where the value's text is (for an alias, the anchored value). Scalars'
    /// text is read from here to map offsets inside them.
    pub defined: Pos,
}

/// The kinds of YAML values a graph file may hold.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    /// A number in JSON's sense; non-finite floats cannot occur (serde-saphyr
    /// refuses them by default).
    Number(serde_json::Number),
    String(String),
    Seq(Vec<Node>),
    /// Entries in file order, duplicates included.
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// A short name for messages: "a string", "a mapping", …
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Seq(_) => "a sequence",
            Value::Map(_) => "a mapping",
        }
    }
}

impl Node {
    /// The value as JSON (keys that are not strings are written as text).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::Value::Number(n.clone()),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Seq(items) => items.iter().map(Node::to_json).collect(),
            Value::Map(entries) => entries
                .iter()
                .map(|(k, v)| (k.key_text(), v.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }

    /// A mapping key as text, whatever its YAML type.
    pub(crate) fn key_text(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            Value::Null => "null".to_owned(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            Value::Seq(_) | Value::Map(_) => self.to_json().to_string(),
        }
    }
}

/// A YAML error: where and what.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct YamlError {
    pub pos: Pos,
    pub message: String,
}

/// Maps byte offsets of a text to lines and columns.
#[derive(Debug, Clone)]
pub(crate) struct LineIndex<'a> {
    /// The text.
    text: &'a str,
    /// Byte offset of each line's start.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { text, starts }
    }

    /// The position of a byte offset (clamped to the text, moved back to a
    /// character boundary).
    pub(crate) fn pos(&self, offset: usize) -> Pos {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let column = self.text[self.starts[line]..offset].chars().count() + 1;
        Pos {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
            offset,
        }
    }

    /// The position of a 1-based line and character column, as serde-saphyr
    /// reports them.
    fn pos_at(&self, line: u64, column: u64) -> Pos {
        let Some(start) = usize::try_from(line)
            .ok()
            .and_then(|l| l.checked_sub(1))
            .and_then(|l| self.starts.get(l))
        else {
            return self.pos(self.text.len());
        };
        let rest = &self.text[*start..];
        let skip = usize::try_from(column.saturating_sub(1)).unwrap_or(usize::MAX);
        let offset = rest
            .char_indices()
            .nth(skip)
            .map_or(self.text.len(), |(i, _)| start + i);
        self.pos(offset)
    }

    fn location_pos(&self, loc: &serde_saphyr::Location) -> Pos {
        if let Some(b) = loc.span().byte_offset() {
            return self.pos(usize::try_from(b).unwrap_or(usize::MAX));
        }
        self.pos_at(loc.line(), loc.column())
    }
}

/// Reads one YAML document. Positions are computed against `text`.
pub(crate) fn read(text: &str) -> Result<Node, YamlError> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("mcpgraph-yaml".to_owned())
            .stack_size(READER_STACK)
            .spawn_scoped(scope, || read_here(text))
            .map_or_else(
                |_| read_here(text),
                |handle| {
                    handle.join().unwrap_or_else(|_| {
                        Err(YamlError {
                            pos: Pos::default(),
                            message: "internal error: the YAML reader panicked".to_owned(),
                        })
                    })
                },
            )
    })
}

fn read_here(text: &str) -> Result<Node, YamlError> {
    let index = LineIndex::new(text);
    let mut options = Options::default();
    options.duplicate_keys = DuplicateKeyPolicy::PassThrough;
    options.with_snippet = false;
    // YAML 1.2, as js-yaml reads mcpGraph's files: `n`, `yes`, `off` are strings.
    options.strict_booleans = true;
    if let Some(budget) = options.budget.as_mut() {
        budget.max_depth = MAX_DEPTH;
    }
    // Guard against deep nesting the budget does not see (it is our own
    // recursion that must not run out of stack).
    DEPTH.with(|d| d.set(0));
    let raw: Spanned<RawValue> =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| yaml_error(&e, &index))?;
    Ok(convert(raw, &index))
}

fn yaml_error(e: &serde_saphyr::Error, index: &LineIndex<'_>) -> YamlError {
    let pos = e
        .location()
        .map_or_else(|| index.pos(index.text.len()), |l| index.location_pos(&l));
    let message = match e {
        serde_saphyr::Error::Budget {
            breach: serde_saphyr::budget::BudgetBreach::Depth { .. },
            ..
        } => format!("YAML nesting is deeper than {MAX_DEPTH} levels"),
        _ => {
            let text = e.without_snippet().to_string();
            clean_message(&text)
        }
    };
    YamlError { pos, message }
}

/// serde-saphyr's messages may end with " at line X, column Y"; the
/// position is shown separately.
fn clean_message(text: &str) -> String {
    let first = text.lines().next().unwrap_or(text).trim();
    let first = match first.rfind(" at line ") {
        Some(i) if first[i..].contains("column") => &first[..i],
        _ => first,
    };
    let first = first.trim_end_matches(['.', ':', ' ']);
    if first.is_empty() {
        "invalid YAML".to_owned()
    } else {
        format!("invalid YAML: {first}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compat(name: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/mcpgraph/");
        std::fs::read_to_string(format!("{dir}{name}")).unwrap()
    }

    #[test]
    fn positions_and_kinds() {
        let text = "a: 1\nb: \"1\"\nc: |\n  x\nd: &x [true, {g: ~}]\ne: *x\nf: n\n";
        let root = read(text).unwrap();
        let Value::Map(entries) = &root.value else {
            panic!()
        };
        let at = |i: usize| &entries[i].1;
        assert_eq!(at(0).value, Value::Number(1.into()));
        assert_eq!(at(1).value, Value::String("1".into()));
        assert_eq!(
            (at(1).pos.line, at(1).pos.column, at(1).pos.offset),
            (2, 4, 8)
        );
        // A block scalar starts at its first content character.
        assert_eq!((at(2).pos.line, at(2).pos.column), (4, 3));
        // An alias is used at the alias, defined at the anchor.
        assert_eq!((at(4).pos.line, at(4).pos.column), (6, 4));
        assert_eq!((at(4).defined.line, at(4).defined.column), (5, 7));
        assert_eq!(at(4).to_json(), serde_json::json!([true, {"g": null}]));
        // YAML 1.2 booleans only.
        assert_eq!(at(5).value, Value::String("n".into()));
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let root = read("a: 1\na: 2\n").unwrap();
        let Value::Map(entries) = &root.value else {
            panic!()
        };
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].0.pos.line, 2);
    }

    #[test]
    fn errors_have_positions() {
        let e = read("a:\n  - b\n c: d").unwrap_err();
        assert_eq!((e.pos.line, e.pos.column), (3, 2));
        assert!(e.message.starts_with("invalid YAML: "), "{}", e.message);
        let e = read("a: .inf").unwrap_err();
        assert_eq!((e.pos.line, e.pos.column), (1, 4));
    }

    /// Whatever the input, loading returns; it never panics.
    #[test]
    fn no_panics() {
        let mut inputs: Vec<String> = Vec::new();
        for f in [
            "file_utils.yaml",
            "loop_example.yaml",
            "switch_example.yaml",
            "test_minimal.yaml",
        ] {
            let text = compat(f);
            let mut cut = 0;
            while cut < text.len() {
                if text.is_char_boundary(cut) {
                    inputs.push(text[..cut].to_owned());
                }
                cut += 3;
            }
            // Also damaged in the middle.
            for i in (0..text.len()).step_by(97) {
                let mut bytes = text.clone().into_bytes();
                bytes[i] = b"{}[]:'\"|>&*!%@`-#,?\t\n"[i % 21];
                inputs.push(String::from_utf8_lossy(&bytes).into_owned());
            }
        }
        let binary: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        inputs.push(String::from_utf8_lossy(&binary).into_owned());
        inputs.push("\0\u{1}\u{feff}a: \u{fffd}".to_owned());
        inputs.push("a: &a [*a]".to_owned());
        inputs.push(
            "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
                .to_owned(),
        );
        inputs.push("x".repeat(1 << 20));
        inputs.push("{".repeat(5000));
        inputs.push(
            "tools:\n  - nodes:\n      - transform: {expr: 1}\n        type: transform\n"
                .to_owned(),
        );
        let deep_expr = format!("{}1{}", "(".repeat(3000), ")".repeat(3000));
        inputs.push(format!(
            "version: '1'\nserver: {{name: a, version: b}}\ntools:\n  - name: t\n    description: d\n    inputSchema: {{type: object}}\n    nodes:\n      - {{id: e, type: entry, next: a}}\n      - {{id: a, type: transform, transform: {{expr: '{deep_expr}'}}, next: x}}\n      - {{id: x, type: exit}}\n"
        ));
        for input in &inputs {
            let _ = crate::load_str(input, "g.yaml").map_err(|d| d.to_string());
        }
    }
}
