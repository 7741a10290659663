//! The field helpers every part of lowering uses: a mapping's entries
//! checked for duplicate and unknown keys, required and optional fields,
//! strings, positive integers, string lists and maps, and expressions with
//! the map back to their place in the file.

use std::collections::HashMap;

use super::Cx;
use crate::diag::{Code, codes};
use crate::model::{Expr, Pos, Sp};
use crate::suggest::{list, suggest};
use crate::yaml::{self, Value};

/// The entries of a mapping, checked for duplicate and unknown keys.
pub(super) struct Fields<'n> {
    /// Where the mapping is (for "missing field" errors).
    pub(super) pos: Pos,
    /// First occurrence of each key.
    map: HashMap<String, (&'n yaml::Node, &'n yaml::Node)>,
    /// Allowed keys that an unknown key was reported as a likely typo of:
    /// their absence is not reported again as a missing field.
    suggested: Vec<String>,
}

impl<'n> Fields<'n> {
    /// Whether an unknown key was reported as a misspelling of `key`
    /// (then `key` is not reported missing too).
    pub(super) fn was_suggested(&self, key: &str) -> bool {
        self.suggested.iter().any(|s| s == key)
    }

    pub(super) fn get(&self, key: &str) -> Option<&'n yaml::Node> {
        self.map.get(key).map(|(_, v)| *v)
    }

    /// Where `key` is written, when it is.
    pub(super) fn key_pos(&self, key: &str) -> Option<Pos> {
        self.map.get(key).map(|(k, _)| k.pos)
    }
}

impl Cx<'_, '_> {
    /// Reports an error at `pos`.
    pub(super) fn err(
        &mut self,
        code: Code,
        pos: Pos,
        msg: impl Into<String>,
    ) -> &mut crate::diag::Diagnostic {
        self.diags.error(code, pos, msg)
    }

    /// Reports that `what` is not `expected` (naming what it is).
    pub(super) fn wrong_type(&mut self, node: &yaml::Node, what: &str, expected: &str) {
        let d = self.err(
            codes::WRONG_TYPE,
            node.pos,
            format!("{what} must be {expected}, found {}", node.value.kind()),
        );
        if expected == "a string" && matches!(node.value, Value::Number(_) | Value::Bool(_)) {
            d.help("quote the value to make it a string");
        }
    }

    /// Checks that `node` is a mapping whose keys are among `allowed`
    /// (`context` names it in messages: "in node `x`"). Reports duplicates
    /// and unknown keys; returns the first occurrence of each key.
    pub(super) fn fields<'n>(
        &mut self,
        node: &'n yaml::Node,
        what: &str,
        allowed: &[&str],
        context: &str,
    ) -> Option<Fields<'n>> {
        self.fields_with(node, what, allowed, context, |_| None)
    }

    /// Like `fields`, with `explain` giving the message and help for an
    /// unknown key that is known elsewhere.
    pub(super) fn fields_with<'n>(
        &mut self,
        node: &'n yaml::Node,
        what: &str,
        allowed: &[&str],
        context: &str,
        explain: impl Fn(&str) -> Option<(String, String)>,
    ) -> Option<Fields<'n>> {
        let Value::Map(entries) = &node.value else {
            self.wrong_type(node, what, "a mapping");
            return None;
        };
        let mut map: HashMap<String, (&yaml::Node, &yaml::Node)> = HashMap::new();
        let mut suggested = Vec::new();
        for (k, v) in entries {
            let key = k.key_text();
            if let Some((first, _)) = map.get(&key) {
                let first = first.pos;
                self.err(
                    codes::DUPLICATE_KEY,
                    k.pos,
                    format!("duplicate key `{key}`{context}"),
                )
                .note(format!(
                    "first defined at line {}, column {}",
                    first.line, first.column
                ));
                continue;
            }
            if !allowed.contains(&key.as_str())
                && let Some((message, help)) = explain(&key)
            {
                self.err(codes::UNKNOWN_KEY, k.pos, message).help(help);
            } else if !allowed.contains(&key.as_str()) {
                let d = self.err(
                    codes::UNKNOWN_KEY,
                    k.pos,
                    format!("unknown key `{key}`{context}"),
                );
                match suggest(&key, allowed) {
                    Some(s) => {
                        suggested.push(s.to_owned());
                        d.help(format!("did you mean `{s}`?"))
                    }
                    None if allowed.is_empty() => d.help("no keys are allowed here"),
                    None => d.help(format!("expected one of {}", list(allowed))),
                };
            }
            map.insert(key, (k, v));
        }
        Some(Fields {
            pos: node.pos,
            map,
            suggested,
        })
    }

    /// Reports a missing required field, unless an unknown key was already
    /// reported as a likely typo of it.
    pub(super) fn missing(&mut self, f: &Fields<'_>, key: &str, context: &str) {
        if !f.was_suggested(key) {
            self.err(
                codes::MISSING_FIELD,
                f.pos,
                format!("missing required field `{key}`{context}"),
            );
        }
    }

    /// `node` as one of `choices`, reported otherwise.
    pub(super) fn one_of(
        &mut self,
        node: &yaml::Node,
        what: &str,
        choices: &[&str],
    ) -> Option<String> {
        let value = self.string(node, what)?;
        if choices.contains(&value.value.as_str()) {
            return Some(value.value);
        }
        let found = match &node.value {
            Value::String(s) => format!("`{s}`"),
            _ => describe(node),
        };
        self.err(
            codes::INVALID_CHOICE,
            node.pos,
            format!(
                "{what} must be one of {}, found {found}",
                choices.join(", ")
            ),
        );
        None
    }

    /// `node` as a string.
    pub(super) fn string(&mut self, node: &yaml::Node, what: &str) -> Option<Sp<String>> {
        match &node.value {
            Value::String(s) => Some(Sp::new(s.clone(), node.pos)),
            _ => {
                self.wrong_type(node, what, "a string");
                None
            }
        }
    }

    /// The string field `key`, reported when missing.
    pub(super) fn required_string(
        &mut self,
        f: &Fields<'_>,
        key: &str,
        context: &str,
    ) -> Option<Sp<String>> {
        match f.get(key) {
            Some(n) => self.string(n, &format!("`{key}`")),
            None => {
                self.missing(f, key, context);
                None
            }
        }
    }

    /// The string field `key`, if present.
    pub(super) fn optional_string(&mut self, f: &Fields<'_>, key: &str) -> Option<Sp<String>> {
        f.get(key).and_then(|n| self.string(n, &format!("`{key}`")))
    }

    /// `node` as an integer greater than zero.
    pub(super) fn positive_int(&mut self, node: &yaml::Node, what: &str) -> Option<u64> {
        match &node.value {
            Value::Number(n) if n.as_u64().is_some_and(|v| v > 0) => n.as_u64(),
            _ => {
                self.err(
                    codes::INVALID_NUMBER,
                    node.pos,
                    format!(
                        "{what} must be a positive integer, found {}",
                        describe(node)
                    ),
                );
                None
            }
        }
    }

    /// `node` as a sequence of strings; items that are not strings are
    /// reported and left out.
    pub(super) fn string_list(&mut self, node: &yaml::Node, what: &str) -> Vec<String> {
        match &node.value {
            Value::Seq(items) => items
                .iter()
                .filter_map(|i| self.string(i, &format!("an item of {what}")))
                .map(|s| s.value)
                .collect(),
            _ => {
                self.wrong_type(node, what, "a sequence of strings");
                Vec::new()
            }
        }
    }

    /// `node` as a mapping of strings to strings (`env`, `headers`), in
    /// file order.
    pub(super) fn string_map(&mut self, node: &yaml::Node, what: &str) -> Vec<(String, String)> {
        let Some(f) = self.fields_any(node, what) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, v) in f {
            if let Some(v) = self.string(v, &format!("the value of `{}` in {what}", k.key_text())) {
                out.push((k.key_text(), v.value));
            }
        }
        out
    }

    /// A mapping with arbitrary keys; duplicates are reported and skipped.
    pub(super) fn fields_any<'n>(
        &mut self,
        node: &'n yaml::Node,
        what: &str,
    ) -> Option<Vec<(&'n yaml::Node, &'n yaml::Node)>> {
        let Value::Map(entries) = &node.value else {
            self.wrong_type(node, what, "a mapping");
            return None;
        };
        let mut seen: HashMap<String, Pos> = HashMap::new();
        let mut out = Vec::new();
        for (k, v) in entries {
            let key = k.key_text();
            if let Some(first) = seen.get(&key) {
                let first = *first;
                self.err(
                    codes::DUPLICATE_KEY,
                    k.pos,
                    format!("duplicate key `{key}` in {what}"),
                )
                .note(format!(
                    "first defined at line {}, column {}",
                    first.line, first.column
                ));
                continue;
            }
            seen.insert(key, k.pos);
            out.push((k, v));
        }
        Some(out)
    }

    /// `node` as a JSONata expression, with the map of its text back to
    /// the file.
    pub(super) fn expr(&mut self, node: &yaml::Node, what: &str) -> Option<Expr> {
        let Value::String(s) = &node.value else {
            self.wrong_type(node, what, "a string (a JSONata expression)");
            return None;
        };
        let spans = yaml::scalar_spans(&self.index, node.defined.offset, s);
        Some(Expr {
            source: s.clone(),
            pos: node.defined,
            spans,
        })
    }
}

/// A value for messages: the value itself when it is short.
pub(super) fn describe(node: &yaml::Node) -> String {
    match &node.value {
        Value::Number(n) => format!("`{n}`"),
        Value::String(s) if s.chars().count() <= 40 => format!("the string `{s}`"),
        Value::Bool(b) => format!("`{b}`"),
        other => other.kind().to_owned(),
    }
}

/// Maps a byte offset inside an expression's text to its file position.
pub(crate) fn expr_pos(expr: &Expr, offset: usize) -> Pos {
    yaml::expr_offset_pos(&expr.spans, expr.pos, &expr.source, offset)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeKind;
    use crate::test_support::a_node;
    use crate::test_support::{ENTRY, EXIT, load, load_errors, messages, with_nodes};

    #[test]
    fn unknown_keys_with_hint() {
        let src =
            a_node("        type: transform\n        transform: {expr: '1'}\n        nxt: exit\n");
        let d = load_errors(&src);
        let unknown = d
            .items
            .iter()
            .find(|i| i.message == "unknown key `nxt` in node `a`")
            .unwrap_or_else(|| panic!("{d}"));
        assert_eq!(unknown.help.as_deref(), Some("did you mean `next`?"));
        assert_eq!((unknown.pos.line, unknown.pos.column), (19, 9));
        // The typo is the one error: the field it misspells is not also
        // reported as missing.
        assert_eq!(d.items.len(), 1, "{d}");

        let src = with_nodes(&format!("{ENTRY}{EXIT}")).replace("tools:", "toolz:");
        let m = messages(&src);
        assert_eq!(m, ["unknown key `toolz` at the top level"]);
    }

    #[test]
    fn wrong_types() {
        let src = with_nodes(&format!("{ENTRY}{EXIT}"))
            .replace("version: \"1.0\"\nserver", "version: 1.0\nserver");
        let d = load_errors(&src);
        assert!(
            d.items.iter().any(
                |i| i.message == "`version` must be a string, found a number"
                    && i.help.as_deref() == Some("quote the value to make it a string")
            ),
            "{d}"
        );
        let src =
            a_node("        type: transform\n        transform: {expr: 12}\n        next: exit\n");
        assert_eq!(
            messages(&src),
            ["`transform.expr` must be a string (a JSONata expression), found a number"]
        );
        let src = with_nodes("      - 12\n");
        assert_eq!(messages(&src), ["a node must be a mapping, found a number"]);
        let src = with_nodes("        {}\n");
        assert_eq!(
            messages(&src),
            ["`nodes` must be a sequence, found a mapping"]
        );
    }

    #[test]
    fn duplicate_keys() {
        let src = a_node(
            "        type: transform\n        transform: {expr: '1'}\n        next: exit\n        next: exit\n",
        );
        let d = load_errors(&src);
        assert_eq!(d.items.len(), 1, "{d}");
        assert_eq!(d.items[0].message, "duplicate key `next` in node `a`");
        assert_eq!(d.items[0].notes, ["first defined at line 19, column 9"]);
        assert_eq!(d.items[0].pos.line, 20);
    }

    #[test]
    fn expression_positions() {
        let exprs = |src: &str| -> Vec<Expr> {
            let f = load(src);
            f.tools[0]
                .nodes
                .iter()
                .filter_map(|n| match &n.kind {
                    NodeKind::Transform { expr, .. } => Some(expr.clone()),
                    _ => None,
                })
                .collect()
        };
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: transform\n        transform:\n          expr: |\n            $.entry\n              .x\n        next: b\n      - id: b\n        type: transform\n        transform: {{expr: \"$.a\\n  & \\\"\\u00e9\\\" &\\t $.entry\"}}\n        next: c\n      - id: c\n        type: transform\n        transform:\n          expr: '$.b &\n            ''x'' & $.a'\n        next: d\n      - id: d\n        type: transform\n        transform:\n          expr: $.c &\n            $.b\n        next: e\n      - id: e\n        type: transform\n        transform:\n          expr: >-\n            $.d &\n            $.c\n        next: exit\n{EXIT}"
        ));
        let e = exprs(&src);
        let lines: Vec<&str> = src.lines().collect();
        // The character in the file at the position mapped from each
        // character of each expression must be that character (escapes and
        // folded line breaks excepted).
        for expr in &e {
            for (o, c) in expr.source.char_indices() {
                let p = expr_pos(expr, o);
                let line = lines[p.line as usize - 1];
                let at = line.chars().nth(p.column as usize - 1);
                assert_eq!(
                    &src[p.offset..p.offset + at.map_or(0, char::len_utf8)],
                    at.map(String::from).unwrap_or_default()
                );
                let ok = at == Some(c)
                    || matches!(
                        (c, at),
                        ('\n' | ' ', None) | (_, Some('\\')) | ('\'', Some('\''))
                    );
                assert!(ok, "{:?} offset {o} ({c:?}) -> {p:?} {at:?}", expr.source);
            }
        }
        // Block scalar: `pos` is the first content character.
        assert_eq!((e[0].pos.line, e[0].pos.column), (20, 13));
        assert_eq!(e[0].source, "$.entry\n  .x\n");
        let p = expr_pos(&e[0], e[0].source.find(".x").unwrap());
        assert_eq!((p.line, p.column), (21, 15));
        // Double-quoted with escapes: `$.entry` after `\t `.
        let p = expr_pos(&e[1], e[1].source.rfind("$.entry").unwrap());
        let line = lines[p.line as usize - 1];
        assert_eq!(&line[p.column as usize - 1..][..7], "$.entry");
        // Single-quoted over two lines.
        let p = expr_pos(&e[2], e[2].source.find("$.a").unwrap());
        assert_eq!((p.line, p.column), (31, 21));
        // Plain over two lines, folded block.
        let p = expr_pos(&e[3], e[3].source.find("$.b").unwrap());
        assert_eq!((p.line, p.column), (37, 13));
        let p = expr_pos(&e[4], e[4].source.find("$.c").unwrap());
        assert_eq!((p.line, p.column), (44, 13));
    }
}
