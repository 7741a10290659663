//! Lowers the extension keys about what a tool shows its clients: the
//! exit node's `content:` (downstream content blocks returned as they
//! came), and the tool's `annotations:` and `icons:` (FORMAT.md). Only
//! their shape is checked here; which nodes `content.from` may name is
//! `validate`'s.

use super::Cx;
use crate::diag::codes;
use crate::model::{ExitContent, Sp, ToolAnnotations};
use crate::suggest::{list, suggest};
use crate::yaml::{self, Value};
use mcpgraph_format::{TaskMode, TaskSupport};

/// The content block types, as MCP spells them.
const BLOCK_TYPES: &[&str] = &["text", "image", "audio", "resource", "resource_link"];

/// The keys of `annotations:`, as MCP spells them.
const ANNOTATION_KEYS: &[&str] = &[
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

impl Cx<'_, '_> {
    /// An exit node's `content:`.
    pub(super) fn exit_content(&mut self, node: &yaml::Node, context: &str) -> Option<ExitContent> {
        let context = format!(" in `content`{context}");
        let f = self.fields(node, "`content`", &["from", "types", "json"], &context)?;
        let from = match f.get("from") {
            Some(n) => match &n.value {
                Value::String(s) => vec![Sp::new(s.clone(), n.pos)],
                Value::Seq(items) if !items.is_empty() => items
                    .iter()
                    .filter_map(|i| self.string(i, "an item of `content.from`"))
                    .collect(),
                Value::Seq(_) => {
                    self.err(codes::CONTENT_FROM, n.pos, "`content.from` names no node")
                        .help("name the `mcp` nodes whose content blocks the result returns");
                    return None;
                }
                _ => {
                    self.wrong_type(n, "`content.from`", "a node id or a sequence of node ids");
                    return None;
                }
            },
            None => {
                self.missing(&f, "from", &context);
                return None;
            }
        };
        let mut types = Vec::new();
        if let Some(n) = f.get("types") {
            let Value::Seq(items) = &n.value else {
                self.wrong_type(n, "`content.types`", "a sequence of content block types");
                return None;
            };
            for item in items {
                let t = self.string(item, "an item of `content.types`")?;
                if !BLOCK_TYPES.contains(&t.value.as_str()) {
                    let d = self.err(
                        codes::UNKNOWN_CONTENT_TYPE,
                        t.pos,
                        format!(
                            "unknown content block type `{}` (expected one of {})",
                            t.value,
                            list(BLOCK_TYPES)
                        ),
                    );
                    if let Some(s) = suggest(&t.value, BLOCK_TYPES) {
                        d.help(format!("did you mean `{s}`?"));
                    }
                    return None;
                }
                types.push(t.value);
            }
        }
        let json = match f.get("json") {
            Some(n) => Sp::new(self.boolean(n, "`content.json`")?, n.pos),
            None => Sp::new(true, f.pos),
        };
        Some(ExitContent { from, types, json })
    }

    /// A tool's `annotations:`.
    pub(super) fn tool_annotations(&mut self, node: &yaml::Node, context: &str) -> ToolAnnotations {
        let context = format!(" in `annotations`{context}");
        let mut out = ToolAnnotations::default();
        let Some(f) = self.fields(node, "`annotations`", ANNOTATION_KEYS, &context) else {
            return out;
        };
        out.title = self.optional_string(&f, "title").map(|s| s.value);
        let slots = [
            ("readOnlyHint", &mut out.read_only),
            ("destructiveHint", &mut out.destructive),
            ("idempotentHint", &mut out.idempotent),
            ("openWorldHint", &mut out.open_world),
        ];
        for (key, slot) in slots {
            if let Some(n) = f.get(key) {
                *slot = self.boolean(n, &format!("`annotations.{key}`"));
            }
        }
        out
    }

    /// A tool's `requiredScopes:`: OAuth scope tokens (RFC 6749 §3.3).
    pub(super) fn required_scopes(&mut self, node: &yaml::Node, context: &str) -> Vec<String> {
        let what = format!("`requiredScopes`{context}");
        let scopes = self.string_list(node, &what);
        if let Value::Seq(items) = &node.value {
            for item in items {
                if let Value::String(s) = &item.value
                    && !is_scope_token(s)
                {
                    self.err(
                        codes::INVALID_SCOPE,
                        item.pos,
                        format!("`{s}` in `requiredScopes`{context} is not an OAuth scope"),
                    )
                    .help(
                        "a scope is one word of printable ASCII without spaces, `\"` or `\\` \
                         (RFC 6749 §3.3), e.g. `orders.write`",
                    );
                }
            }
        }
        scopes.into_iter().filter(|s| is_scope_token(s)).collect()
    }

    /// A tool's `task:`: `allowed`, `required` or `never`, or a map of
    /// `mode` (one of them) and `askFirst`.
    pub(super) fn task_support(&mut self, node: &yaml::Node, context: &str) -> TaskSupport {
        let mode = |cx: &mut Self, node: &yaml::Node, what: &str| {
            cx.one_of(node, what, &TaskMode::NAMES)
                .and_then(|s| TaskMode::parse(&s))
                .unwrap_or_default()
        };
        let what = format!("`task`{context}");
        if !matches!(node.value, Value::Map(_)) {
            return TaskSupport {
                mode: mode(self, node, &what),
                ask_first: false,
            };
        }
        let mut out = TaskSupport::default();
        let Some(f) = self.fields(
            node,
            "`task`",
            &["mode", "askFirst"],
            &format!(" in `task`{context}"),
        ) else {
            return out;
        };
        if let Some(n) = f.get("mode") {
            out.mode = mode(self, n, &format!("`task.mode`{context}"));
        }
        if let Some(n) = f.get("askFirst") {
            out.ask_first = self
                .boolean(n, &format!("`task.askFirst`{context}"))
                .unwrap_or(false);
        }
        out
    }

    /// A tool's `icons:`: MCP `Icon` objects.
    pub(super) fn icons(&mut self, node: &yaml::Node, context: &str) -> Vec<serde_json::Value> {
        let Value::Seq(items) = &node.value else {
            self.wrong_type(node, "`icons`", "a sequence of icons");
            return Vec::new();
        };
        let context = format!(" in an icon{context}");
        let mut out = Vec::new();
        for item in items {
            let Some(f) = self.fields(
                item,
                "an icon",
                &["src", "mimeType", "sizes", "theme"],
                &context,
            ) else {
                continue;
            };
            let mut ok = true;
            match self.required_string(&f, "src", &context) {
                Some(src) if !icon_uri(&src.value) => {
                    self.err(
                        codes::INVALID_ICON,
                        src.pos,
                        format!(
                            "icon `src` `{}` is not an https:, http: or data: URI",
                            src.value
                        ),
                    )
                    .help(
                        "MCP clients fetch icons from https: (or http:) URLs, or read data: URIs",
                    );
                    ok = false;
                }
                Some(_) => {}
                None => ok = false,
            }
            if let Some(m) = self.optional_string(&f, "mimeType")
                && !is_mime_type(&m.value)
            {
                self.err(
                    codes::INVALID_ICON,
                    m.pos,
                    format!("icon `mimeType` `{}` is not a MIME type", m.value),
                )
                .help("write it as type/subtype, e.g. `image/png`");
                ok = false;
            }
            if let Some(n) = f.get("sizes") {
                let Value::Seq(sizes) = &n.value else {
                    self.wrong_type(n, "icon `sizes`", "a sequence of strings");
                    continue;
                };
                for size in sizes {
                    match self.string(size, "an item of icon `sizes`") {
                        Some(s) if !is_icon_size(&s.value) => {
                            self.err(
                                codes::INVALID_ICON,
                                s.pos,
                                format!("icon size `{}` is neither WxH nor `any`", s.value),
                            )
                            .help("write sizes like `48x48`, or `any` for a scalable format");
                            ok = false;
                        }
                        Some(_) => {}
                        None => ok = false,
                    }
                }
            }
            if let Some(t) = self.optional_string(&f, "theme")
                && !matches!(t.value.as_str(), "light" | "dark")
            {
                self.err(
                    codes::INVALID_ICON,
                    t.pos,
                    format!("icon `theme` `{}` is neither `light` nor `dark`", t.value),
                );
                ok = false;
            }
            if ok {
                out.push(item.to_json());
            }
        }
        out
    }

    /// `node` as a boolean.
    fn boolean(&mut self, node: &yaml::Node, what: &str) -> Option<bool> {
        match &node.value {
            Value::Bool(b) => Some(*b),
            _ => {
                self.wrong_type(node, what, "`true` or `false`");
                None
            }
        }
    }
}

/// Whether `src` is a URI an MCP client may load an icon from.
fn icon_uri(src: &str) -> bool {
    let lower = src.to_ascii_lowercase();
    ["https://", "http://", "data:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme) && lower.len() > scheme.len())
}

/// `type/subtype`, each part a non-empty token.
fn is_mime_type(text: &str) -> bool {
    let token = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c))
    };
    let essence = text.split(';').next().unwrap_or_default().trim();
    matches!(essence.split_once('/'), Some((t, s)) if token(t) && token(s))
}

/// `WxH` (positive integers) or `any`.
fn is_icon_size(text: &str) -> bool {
    let number =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0');
    text == "any" || matches!(text.split_once('x'), Some((w, h)) if number(w) && number(h))
}

/// Whether `text` is an RFC 6749 `scope-token`: `1*( %x21 / %x23-5B /
/// %x5D-7E )`.
fn is_scope_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

#[cfg(test)]
mod tests {
    use super::{TaskMode, TaskSupport, icon_uri, is_icon_size, is_mime_type, is_scope_token};
    use crate::test_support::{ENTRY, EXIT, errors, load, transform, with_nodes};

    /// The one-tool file with `extra` tool-level lines before `nodes:`.
    fn tool_with(extra: &str) -> String {
        with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exit")))
            .replace("    nodes:\n", &format!("{extra}    nodes:\n"))
    }

    #[test]
    fn annotations_and_icons_are_lowered() {
        let src = tool_with(
            "    annotations: {title: T, readOnlyHint: true}\n    icons:\n      - {src: 'https://e.com/i.png', mimeType: image/png, sizes: [48x48, any], theme: dark}\n",
        );
        let tool = load(&src).tools.remove(0);
        assert_eq!(tool.annotations.title.as_deref(), Some("T"));
        assert_eq!(tool.annotations.read_only, Some(true));
        assert_eq!(tool.annotations.destructive, None);
        assert_eq!(
            tool.icons,
            [
                serde_json::json!({"src": "https://e.com/i.png", "mimeType": "image/png",
                                "sizes": ["48x48", "any"], "theme": "dark"})
            ]
        );
    }

    #[test]
    fn annotation_and_icon_errors() {
        let src = tool_with(
            "    annotations: {readOnly: true, openWorldHint: 'no'}\n    icons:\n      - {src: 'file:///i.png', sizes: [big], theme: blue, mimeType: png}\n      - {sizes: [any]}\n",
        );
        let got: Vec<(u32, u32, String)> = errors(&src);
        let msgs: Vec<&str> = got.iter().map(|e| e.2.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "unknown key `readOnly` in `annotations` in tool `t`",
                "`annotations.openWorldHint` must be `true` or `false`, found a string",
                "icon `src` `file:///i.png` is not an https:, http: or data: URI",
                "icon size `big` is neither WxH nor `any`",
                "icon `theme` `blue` is neither `light` nor `dark`",
                "icon `mimeType` `png` is not a MIME type",
                "missing required field `src` in an icon in tool `t`",
            ]
        );
        assert_eq!((got[0].0, got[0].1), (12, 19));
    }

    #[test]
    fn task_is_lowered_and_checked() {
        let tool = |text: &str| load(&tool_with(text)).tools.remove(0).task;
        let mode = |mode, ask_first| TaskSupport { mode, ask_first };
        assert_eq!(tool(""), mode(TaskMode::Allowed, false));
        assert_eq!(
            tool("    task: required\n"),
            mode(TaskMode::Required, false)
        );
        assert_eq!(tool("    task: never\n"), mode(TaskMode::Never, false));
        assert_eq!(
            tool("    task: { mode: required, askFirst: true }\n"),
            mode(TaskMode::Required, true)
        );
        assert_eq!(
            tool("    task: { askFirst: true }\n"),
            mode(TaskMode::Allowed, true)
        );
        let got = errors(&tool_with("    task: always\n"));
        let msgs: Vec<&str> = got.iter().map(|e| e.2.as_str()).collect();
        assert_eq!(
            msgs,
            ["`task` in tool `t` must be one of allowed, required, never, found `always`"]
        );
        let got = errors(&tool_with(
            "    task: { mode: never, askFirst: yes, when: now }\n",
        ));
        let msgs: Vec<&str> = got.iter().map(|e| e.2.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "`task.askFirst` in tool `t` must be `true` or `false`, found a string",
                "unknown key `when` in `task` in tool `t`",
            ]
        );
    }

    #[test]
    fn required_scopes_are_lowered_and_checked() {
        let tool = load(&tool_with(
            "    requiredScopes: [orders.write, 'mcp:tools']\n",
        ))
        .tools
        .remove(0);
        assert_eq!(tool.required_scopes, ["orders.write", "mcp:tools"]);
        let got = errors(&tool_with("    requiredScopes: [a, 3, 'two words']\n"));
        let msgs: Vec<&str> = got.iter().map(|e| e.2.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "an item of `requiredScopes` in tool `t` must be a string, found a number",
                "`two words` in `requiredScopes` in tool `t` is not an OAuth scope",
            ]
        );
        assert_eq!((got[0].0, got[0].1), (12, 25));
        let got = errors(&tool_with("    requiredScopes: orders.write\n"));
        assert_eq!(
            got[0].2,
            "`requiredScopes` in tool `t` must be a sequence of strings, found a string"
        );
        assert!(is_scope_token("a:b/c") && !is_scope_token("") && !is_scope_token("a\"b"));
    }

    #[test]
    fn icon_fields() {
        assert!(icon_uri("https://example.com/i.png") && icon_uri("data:image/png;base64,AA"));
        assert!(!icon_uri("file:///i.png") && !icon_uri("https://") && !icon_uri("i.png"));
        assert!(is_mime_type("image/png") && is_mime_type("image/svg+xml"));
        assert!(!is_mime_type("png") && !is_mime_type("image/"));
        assert!(is_icon_size("48x48") && is_icon_size("any"));
        assert!(!is_icon_size("48") && !is_icon_size("0x4") && !is_icon_size("48X48"));
    }
}
