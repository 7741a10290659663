//! Lowers the positioned YAML tree into the typed [`model`](crate::model).
//!
//! Every problem of shape is collected, none stops the walk: unknown keys
//! (with a "did you mean" hint), duplicate keys, wrong types, missing
//! required fields, unknown node types and JSON Logic operators, malformed
//! `{expr}` arguments, schemas without `type: object`, limits that are not
//! positive integers. What is left half-built is recorded in [`ToolInfo`] so
//! that `validate` checks the rest without piling errors on top of these.
//! Graph rules (references, reachability, expression syntax) are not
//! checked here.

use std::collections::HashMap;

use crate::diag::Diagnostics;
use crate::model::{
    Arg, Condition, Expr, GraphFile, Limits, Logic, McpServer, Node, NodeKind, Pos, ServerMeta, Sp,
    Tool, Transport,
};
use crate::yaml::{self, LineIndex, Value};

/// The node types, in the order messages list them.
pub(crate) const NODE_TYPES: &[&str] = &["entry", "exit", "mcp", "transform", "switch"];

/// The fields of each node type.
const NODE_FIELDS: &[(&str, &[&str])] = &[
    ("entry", &["id", "type", "next"]),
    ("exit", &["id", "type"]),
    ("mcp", &["id", "type", "next", "server", "tool", "args"]),
    ("transform", &["id", "type", "next", "transform"]),
    ("switch", &["id", "type", "next", "conditions"]),
];

/// The operators of json-logic-js 2.0.
pub(crate) const LOGIC_OPERATORS: &[&str] = &[
    "==",
    "===",
    "!=",
    "!==",
    ">",
    ">=",
    "<",
    "<=",
    "!",
    "!!",
    "or",
    "and",
    "?:",
    "if",
    "in",
    "cat",
    "substr",
    "+",
    "-",
    "*",
    "/",
    "%",
    "max",
    "min",
    "merge",
    "var",
    "missing",
    "missing_some",
    "all",
    "some",
    "none",
    "map",
    "filter",
    "reduce",
    "log",
];

/// Stands for a part of `args` that was reported as wrong. It never reaches
/// the generator: a file with an error is not generated.
const PLACEHOLDER_ARG: Arg = Arg::Literal(serde_json::Value::Null);

/// Stands for a part of a rule that was reported as wrong (see
/// `PLACEHOLDER_ARG`).
const PLACEHOLDER_LOGIC: Logic = Logic::Literal(serde_json::Value::Null);

/// What `parse` could not finish for a tool, so that `validate` does not
/// report consequences of errors already reported.
#[derive(Debug, Default, Clone)]
pub(crate) struct ToolInfo {
    /// The tool's name was missing or not a string (a placeholder is in the
    /// model).
    pub name_missing: bool,
    /// Some node could not be built: the tool's graph is incomplete, so its
    /// shape (entry, exit, reachability) is not checked.
    pub incomplete: bool,
    /// Ids of nodes that were left out of the model because of errors; they
    /// still count as existing for references.
    pub broken_ids: Vec<String>,
    /// The ids of all nodes, built or not, in file order (for messages).
    pub ids: Vec<String>,
}

/// The result of lowering: the model (with placeholders where errors were
/// reported) and what was left unfinished.
#[derive(Debug)]
pub(crate) struct Lowered {
    pub file: GraphFile,
    /// One per entry of `file.tools`.
    pub tools: Vec<ToolInfo>,
    /// Names of servers left out of the model because of errors; they still
    /// count as declared.
    pub broken_servers: Vec<String>,
}

/// Reads and lowers `source`. Returns `None` only when the YAML itself
/// cannot be read; otherwise every problem is in `diags` and the model is as
/// complete as the file allows.
pub(crate) fn parse(source: &str, diags: &mut Diagnostics) -> Option<Lowered> {
    let root = match yaml::read(source) {
        Ok(root) => root,
        Err(e) => {
            let d = diags.error(e.pos, e.message);
            if d.message.contains("multiple YAML documents") {
                d.message =
                    "a graph file holds a single YAML document; found another `---` document"
                        .to_owned();
                d.help("remove the `---` line, or split the file");
            }
            return None;
        }
    };
    let mut cx = Cx {
        diags,
        index: LineIndex::new(source),
    };
    Some(cx.file(&root))
}

/// Maps a byte offset inside an expression's text to its file position.
pub(crate) fn expr_pos(expr: &Expr, offset: usize) -> Pos {
    yaml::expr_offset_pos(&expr.spans, expr.pos, &expr.source, offset)
}

/// The closest candidate to `word` by edit distance, if it is close enough
/// to be a likely typo.
pub(crate) fn suggest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let sorted = |s: &str| {
        let mut v: Vec<char> = s.chars().collect();
        v.sort_unstable();
        v
    };
    let mut best: Option<((usize, bool), &'a str)> = None;
    for &c in candidates {
        let d = if c.to_lowercase() == lower {
            0
        } else {
            edit_distance(&lower, &c.to_lowercase())
        };
        // On a tie, a candidate with the same letters (a transposition) wins.
        let score = (d, sorted(&lower) != sorted(&c.to_lowercase()));
        if best.is_none_or(|(bs, _)| score < bs) {
            best = Some((score, c));
        }
    }
    let ((d, _), c) = best?;
    let limit = (word.chars().count().max(c.chars().count()) / 3).max(1);
    (d <= limit).then_some(c)
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// `a, b or c`-style list of backquoted names.
fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

struct Cx<'d, 's> {
    diags: &'d mut Diagnostics,
    index: LineIndex<'s>,
}

/// The entries of a mapping, checked for duplicate and unknown keys.
struct Fields<'n> {
    /// Where the mapping is (for "missing field" errors).
    pos: Pos,
    /// First occurrence of each key.
    map: HashMap<String, (&'n yaml::Node, &'n yaml::Node)>,
    /// Allowed keys that an unknown key was reported as a likely typo of:
    /// their absence is not reported again as a missing field.
    suggested: Vec<String>,
}

impl<'n> Fields<'n> {
    fn get(&self, key: &str) -> Option<&'n yaml::Node> {
        self.map.get(key).map(|(_, v)| *v)
    }
}

impl Cx<'_, '_> {
    fn err(&mut self, pos: Pos, msg: impl Into<String>) -> &mut crate::diag::Diagnostic {
        self.diags.error(pos, msg)
    }

    fn wrong_type(&mut self, node: &yaml::Node, what: &str, expected: &str) {
        let d = self.err(
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
    fn fields<'n>(
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
    fn fields_with<'n>(
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
                self.err(k.pos, format!("duplicate key `{key}`{context}"))
                    .note(format!(
                        "first defined at line {}, column {}",
                        first.line, first.column
                    ));
                continue;
            }
            if !allowed.contains(&key.as_str())
                && let Some((message, help)) = explain(&key)
            {
                self.err(k.pos, message).help(help);
            } else if !allowed.contains(&key.as_str()) {
                let d = self.err(k.pos, format!("unknown key `{key}`{context}"));
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

    fn missing(&mut self, f: &Fields<'_>, key: &str, context: &str) {
        if f.suggested.iter().any(|s| s == key) {
            return;
        }
        self.err(f.pos, format!("missing required field `{key}`{context}"));
    }

    fn string(&mut self, node: &yaml::Node, what: &str) -> Option<Sp<String>> {
        match &node.value {
            Value::String(s) => Some(Sp::new(s.clone(), node.pos)),
            _ => {
                self.wrong_type(node, what, "a string");
                None
            }
        }
    }

    fn required_string(&mut self, f: &Fields<'_>, key: &str, context: &str) -> Option<Sp<String>> {
        match f.get(key) {
            Some(n) => self.string(n, &format!("`{key}`")),
            None => {
                self.missing(f, key, context);
                None
            }
        }
    }

    fn optional_string(&mut self, f: &Fields<'_>, key: &str) -> Option<Sp<String>> {
        f.get(key).and_then(|n| self.string(n, &format!("`{key}`")))
    }

    fn positive_int(&mut self, node: &yaml::Node, what: &str) -> Option<u64> {
        match &node.value {
            Value::Number(n) if n.as_u64().is_some_and(|v| v > 0) => n.as_u64(),
            _ => {
                self.err(
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

    fn string_list(&mut self, node: &yaml::Node, what: &str) -> Vec<String> {
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

    fn string_map(&mut self, node: &yaml::Node, what: &str) -> Vec<(String, String)> {
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
    fn fields_any<'n>(
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
                self.err(k.pos, format!("duplicate key `{key}` in {what}"))
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

    fn expr(&mut self, node: &yaml::Node, what: &str) -> Option<Expr> {
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

    fn file(&mut self, root: &yaml::Node) -> Lowered {
        let placeholder = |pos: Pos| Sp::new(String::new(), pos);
        let mut out = Lowered {
            file: GraphFile {
                version: placeholder(root.pos),
                server: ServerMeta {
                    name: placeholder(root.pos),
                    version: placeholder(root.pos),
                    title: None,
                    instructions: None,
                },
                mcp_servers: Vec::new(),
                limits: Limits::default(),
                tools: Vec::new(),
            },
            tools: Vec::new(),
            broken_servers: Vec::new(),
        };
        if root.value == Value::Null {
            self.err(root.pos, "the graph file is empty")
                .help("a graph file is a mapping with `version`, `server` and `tools`");
            return out;
        }
        let allowed = [
            "version",
            "server",
            "mcpServers",
            "executionLimits",
            "tools",
        ];
        let Some(f) = self.fields(
            root,
            "the top level of the file",
            &allowed,
            " at the top level",
        ) else {
            return out;
        };
        if let Some(v) = self.required_string(&f, "version", " at the top level") {
            out.file.version = v;
        }
        match f.get("server") {
            Some(n) => {
                if let Some(s) = self.server(n) {
                    out.file.server = s;
                }
            }
            None => self.missing(&f, "server", " at the top level"),
        }
        if let Some(n) = f.get("mcpServers") {
            (out.file.mcp_servers, out.broken_servers) = self.mcp_servers(n);
        }
        if let Some(n) = f.get("executionLimits") {
            out.file.limits = self.limits(n);
        }
        if let Some(n) = f.get("tools") {
            match &n.value {
                Value::Seq(items) => {
                    for item in items {
                        let (tool, info) = self.tool(item);
                        out.file.tools.push(tool);
                        out.tools.push(info);
                    }
                }
                Value::Null => {}
                _ => self.wrong_type(n, "`tools`", "a sequence"),
            }
        }
        out
    }

    fn server(&mut self, node: &yaml::Node) -> Option<ServerMeta> {
        let allowed = ["name", "version", "title", "instructions"];
        let f = self.fields(node, "`server`", &allowed, " in `server`")?;
        let name = self.required_string(&f, "name", " in `server`");
        let version = self.required_string(&f, "version", " in `server`");
        let title = self.optional_string(&f, "title");
        let instructions = self.optional_string(&f, "instructions");
        Some(ServerMeta {
            name: name.unwrap_or_else(|| Sp::new(String::new(), f.pos)),
            version: version.unwrap_or_else(|| Sp::new(String::new(), f.pos)),
            title,
            instructions,
        })
    }

    fn limits(&mut self, node: &yaml::Node) -> Limits {
        let mut limits = Limits::default();
        let keys = [
            "maxNodeExecutions",
            "maxExecutionTimeMs",
            "maxExpressionDepth",
            "maxExpressionTimeMs",
            "maxValueBytes",
            "maxHistoryBytes",
            "maxValueDepth",
        ];
        let Some(f) = self.fields(node, "`executionLimits`", &keys, " in `executionLimits`") else {
            return limits;
        };
        let slots = [
            &mut limits.max_node_executions,
            &mut limits.max_execution_time_ms,
            &mut limits.max_expression_depth,
            &mut limits.max_expression_time_ms,
            &mut limits.max_value_bytes,
            &mut limits.max_history_bytes,
            &mut limits.max_value_depth,
        ];
        for (key, slot) in keys.iter().zip(slots) {
            if let Some(n) = f.get(key)
                && let Some(v) = self.positive_int(n, &format!("`{key}`"))
            {
                *slot = v;
            }
        }
        limits
    }

    /// The servers that could be built, and the names of those that could
    /// not.
    fn mcp_servers(&mut self, node: &yaml::Node) -> (Vec<McpServer>, Vec<String>) {
        if node.value == Value::Null {
            return (Vec::new(), Vec::new());
        }
        let Some(entries) = self.fields_any(node, "`mcpServers`") else {
            return (Vec::new(), Vec::new());
        };
        let mut broken = Vec::new();
        let servers = entries
            .into_iter()
            .filter_map(|(k, v)| {
                let server = self.mcp_server(k, v);
                if server.is_none() {
                    broken.push(k.key_text());
                }
                server
            })
            .collect();
        (servers, broken)
    }

    fn mcp_server(&mut self, key: &yaml::Node, node: &yaml::Node) -> Option<McpServer> {
        let name = Sp::new(key.key_text(), key.pos);
        let context = format!(" in server `{}`", name.value);
        let kind = match &node.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.key_text() == "type")
                .map(|(_, v)| v),
            _ => None,
        };
        const TYPES: &[&str] = &["stdio", "sse", "streamableHttp", "http", "streamable-http"];
        let kind = match kind {
            None => "stdio",
            Some(v) => match &v.value {
                Value::String(s) if TYPES.contains(&s.as_str()) => s.as_str(),
                Value::String(s) => {
                    let d = self.err(
                        v.pos,
                        format!(
                            "unknown server type `{s}` (expected one of stdio, sse, streamableHttp, http, streamable-http)"
                        ),
                    );
                    if let Some(sug) = suggest(s, TYPES) {
                        d.help(format!("did you mean `{sug}`?"));
                    }
                    ""
                }
                _ => {
                    self.wrong_type(v, "`type`", "a string");
                    ""
                }
            },
        };
        let allowed: &[&str] = match kind {
            "stdio" => &[
                "type",
                "command",
                "args",
                "cwd",
                "env",
                "timeoutMs",
                "pingTimeoutMs",
            ],
            "" => &[
                "type",
                "command",
                "args",
                "cwd",
                "env",
                "url",
                "headers",
                "timeoutMs",
                "pingTimeoutMs",
            ],
            _ => &["type", "url", "headers", "timeoutMs", "pingTimeoutMs"],
        };
        let f = self.fields(node, &format!("server `{}`", name.value), allowed, &context)?;
        let timeout_ms = f
            .get("timeoutMs")
            .and_then(|n| self.positive_int(n, "`timeoutMs`"));
        let ping_timeout_ms = f
            .get("pingTimeoutMs")
            .and_then(|n| self.positive_int(n, "`pingTimeoutMs`"));
        let transport = match kind {
            "stdio" => {
                let command = self.required_string(&f, "command", &context);
                let args = f
                    .get("args")
                    .map(|n| self.string_list(n, "`args`"))
                    .unwrap_or_default();
                let cwd = self.optional_string(&f, "cwd").map(|s| s.value);
                let env = f
                    .get("env")
                    .map(|n| self.string_map(n, "`env`"))
                    .unwrap_or_default();
                Transport::Stdio {
                    command: command?.value,
                    args,
                    cwd,
                    env,
                }
            }
            "" => return None,
            http => {
                let url = self.required_string(&f, "url", &context);
                let headers = f
                    .get("headers")
                    .map(|n| self.string_map(n, "`headers`"))
                    .unwrap_or_default();
                let url = url?.value;
                if http == "sse" {
                    Transport::Sse { url, headers }
                } else {
                    Transport::StreamableHttp { url, headers }
                }
            }
        };
        Some(McpServer {
            name,
            transport,
            timeout_ms,
            ping_timeout_ms,
        })
    }

    fn tool(&mut self, node: &yaml::Node) -> (Tool, ToolInfo) {
        let mut info = ToolInfo::default();
        let mut tool = Tool {
            name: Sp::new(String::new(), node.pos),
            description: String::new(),
            input_schema: serde_json::Value::Null,
            output_schema: None,
            nodes: Vec::new(),
        };
        let allowed = [
            "name",
            "description",
            "inputSchema",
            "outputSchema",
            "nodes",
        ];
        // The name, when there is one, makes the other messages clearer.
        let named = match &node.value {
            Value::Map(entries) => entries.iter().find_map(|(k, v)| match &v.value {
                Value::String(s) if k.key_text() == "name" => Some(s.clone()),
                _ => None,
            }),
            _ => None,
        };
        let context = match &named {
            Some(n) => format!(" in tool `{n}`"),
            None => " in a tool".to_owned(),
        };
        let Some(f) = self.fields(node, "a tool", &allowed, &context) else {
            info.name_missing = true;
            info.incomplete = true;
            return (tool, info);
        };
        match self.required_string(&f, "name", &context) {
            Some(n) => tool.name = n,
            None => info.name_missing = true,
        }
        if let Some(d) = self.required_string(&f, "description", &context) {
            tool.description = d.value;
        }
        match f.get("inputSchema") {
            Some(n) => {
                self.schema(n, "`inputSchema`");
                tool.input_schema = n.to_json();
            }
            None => self.missing(&f, "inputSchema", &context),
        }
        if let Some(n) = f.get("outputSchema") {
            self.schema(n, "`outputSchema`");
            tool.output_schema = Some(n.to_json());
        }
        match f.get("nodes") {
            Some(n) => match &n.value {
                Value::Seq(items) => {
                    for item in items {
                        match self.node(item) {
                            Ok(node) => {
                                info.ids.push(node.id.value.clone());
                                tool.nodes.push(node);
                            }
                            Err(id) => {
                                info.incomplete = true;
                                info.ids.extend(id.clone());
                                info.broken_ids.extend(id);
                            }
                        }
                    }
                }
                _ => {
                    self.wrong_type(n, "`nodes`", "a sequence");
                    info.incomplete = true;
                }
            },
            None => {
                self.missing(&f, "nodes", &context);
                info.incomplete = true;
            }
        }
        (tool, info)
    }

    /// A tool's schema must be a JSON Schema object schema.
    fn schema(&mut self, node: &yaml::Node, what: &str) {
        let Value::Map(entries) = &node.value else {
            self.wrong_type(node, what, "a mapping (a JSON Schema with `type: object`)");
            return;
        };
        match entries.iter().find(|(k, _)| k.key_text() == "type") {
            Some((_, v)) if v.value == Value::String("object".to_owned()) => {}
            Some((_, v)) => {
                self.err(
                    v.pos,
                    format!(
                        "the `type` of {what} must be `object` (MCP requires it), found {}",
                        describe(v)
                    ),
                );
            }
            None => {
                self.err(node.pos, format!("{what} must have `type: object`"))
                    .help("add `type: object` (MCP requires tool schemas to describe objects)");
            }
        }
        self.json_schema(node, what, 0);
    }

    /// A light check of JSON Schema keywords whose shape is easy to get
    /// wrong in YAML.
    fn json_schema(&mut self, node: &yaml::Node, what: &str, depth: usize) {
        const TYPES: &[&str] = &[
            "object", "array", "string", "number", "integer", "boolean", "null",
        ];
        let Value::Map(entries) = &node.value else {
            if !matches!(node.value, Value::Bool(_)) {
                self.wrong_type(node, &format!("a schema in {what}"), "a mapping");
            }
            return;
        };
        if depth > yaml::MAX_DEPTH {
            return;
        }
        for (k, v) in entries {
            match (k.key_text().as_str(), &v.value) {
                // The root's `type` is checked by `schema`.
                ("type", _) if depth == 0 => {}
                ("type", Value::String(t)) => self.schema_type(v, t, TYPES),
                ("type", Value::Seq(items)) => {
                    for i in items {
                        match &i.value {
                            Value::String(t) => self.schema_type(i, t, TYPES),
                            _ => self.wrong_type(i, "an item of `type`", "a string"),
                        }
                    }
                }
                ("type", _) => self.wrong_type(v, "`type`", "a string or a sequence of strings"),
                (
                    "properties" | "patternProperties" | "$defs" | "definitions",
                    Value::Map(props),
                ) => {
                    for (_, p) in props {
                        self.json_schema(p, what, depth + 1);
                    }
                }
                ("properties" | "patternProperties" | "$defs" | "definitions", _) => {
                    self.wrong_type(v, &format!("`{}`", k.key_text()), "a mapping")
                }
                ("items" | "additionalProperties" | "not", Value::Map(_)) => {
                    self.json_schema(v, what, depth + 1)
                }
                ("items" | "additionalProperties" | "not", Value::Bool(_)) => {}
                ("items" | "additionalProperties" | "not", _) => {
                    self.wrong_type(v, &format!("`{}`", k.key_text()), "a schema (a mapping)")
                }
                ("allOf" | "anyOf" | "oneOf", Value::Seq(items)) => {
                    for i in items {
                        self.json_schema(i, what, depth + 1);
                    }
                }
                ("allOf" | "anyOf" | "oneOf", _) => {
                    self.wrong_type(v, &format!("`{}`", k.key_text()), "a sequence of schemas")
                }
                ("required", Value::Seq(items)) => {
                    for i in items {
                        self.string(i, "an item of `required`");
                    }
                }
                ("required", _) => self.wrong_type(v, "`required`", "a sequence of strings"),
                ("enum", Value::Seq(_)) => {}
                ("enum", _) => self.wrong_type(v, "`enum`", "a sequence"),
                _ => {}
            }
        }
    }

    fn schema_type(&mut self, node: &yaml::Node, t: &str, types: &[&str]) {
        if types.contains(&t) {
            return;
        }
        let d = self.err(
            node.pos,
            format!(
                "unknown JSON Schema type `{t}` (expected one of {})",
                types.join(", ")
            ),
        );
        if let Some(s) = suggest(t, types) {
            d.help(format!("did you mean `{s}`?"));
        }
    }

    /// One node. On error, returns the node's id if it has one.
    fn node(&mut self, node: &yaml::Node) -> Result<Node, Option<String>> {
        let entries = match &node.value {
            Value::Map(entries) => entries,
            _ => {
                self.wrong_type(node, "a node", "a mapping");
                return Err(None);
            }
        };
        let find = |key: &str| {
            entries
                .iter()
                .find(|(k, _)| k.key_text() == key)
                .map(|(_, v)| v)
        };
        let id = find("id").and_then(|v| match &v.value {
            Value::String(s) => Some(Sp::new(s.clone(), v.pos)),
            _ => None,
        });
        let context = match &id {
            Some(id) => format!(" in node `{}`", id.value),
            None => " in a node".to_owned(),
        };
        let kind = match find("type") {
            Some(v) => match &v.value {
                Value::String(s) if NODE_TYPES.contains(&s.as_str()) => Some(s.as_str()),
                Value::String(s) => {
                    let d = self.err(
                        v.pos,
                        format!(
                            "unknown node type `{s}` (expected one of {})",
                            NODE_TYPES.join(", ")
                        ),
                    );
                    if let Some(sug) = suggest(s, NODE_TYPES) {
                        d.help(format!("did you mean `{sug}`?"));
                    }
                    None
                }
                _ => {
                    self.wrong_type(v, "`type`", "a string");
                    None
                }
            },
            None => None,
        };
        let allowed: Vec<&str> = match NODE_FIELDS.iter().find(|(t, _)| Some(*t) == kind) {
            Some((_, fields)) => fields.to_vec(),
            None => {
                let mut all: Vec<&str> =
                    NODE_FIELDS.iter().flat_map(|(_, f)| *f).copied().collect();
                all.sort_unstable();
                all.dedup();
                all
            }
        };
        let explain = |key: &str| {
            let kind = kind?;
            let owners: Vec<&str> = NODE_FIELDS
                .iter()
                .filter(|(_, fields)| fields.contains(&key))
                .map(|(t, _)| *t)
                .collect();
            if owners.is_empty() {
                return None;
            }
            let message = if key == "next" {
                format!("an `exit` node has no `next`{context}")
            } else {
                format!("`{key}` is not a field of a `{kind}` node{context}")
            };
            let help = if key == "next" {
                "remove it: the call ends at the exit node".to_owned()
            } else {
                format!("`{key}` belongs to {} nodes", list(&owners))
            };
            Some((message, help))
        };
        let f = self
            .fields_with(node, "a node", &allowed, &context, explain)
            .ok_or(None)?;
        let id_checked = match f.get("id") {
            Some(v) => match self.string(v, "`id`") {
                Some(s) if s.value.is_empty() => {
                    self.err(v.pos, "a node id must not be empty");
                    None
                }
                other => other,
            },
            None => {
                self.missing(&f, "id", &context);
                None
            }
        };
        let fail = |id: &Option<Sp<String>>| Err(id.as_ref().map(|s| s.value.clone()));
        if f.get("type").is_none() {
            self.missing(&f, "type", &context);
            if f.get("next").is_some() {
                self.required_string(&f, "next", &context);
            }
            return fail(&id);
        }
        let next = if kind == Some("exit") || kind.is_none() {
            if kind.is_none() && f.get("next").is_some() {
                self.required_string(&f, "next", &context);
            }
            None
        } else {
            self.required_string(&f, "next", &context)
        };
        let built = match kind {
            Some("entry") => next.map(|next| NodeKind::Entry { next }),
            Some("exit") => Some(NodeKind::Exit),
            Some("mcp") => {
                let server = self.required_string(&f, "server", &context);
                let tool = self.required_string(&f, "tool", &context);
                let args = match f.get("args") {
                    Some(n) => self.top_args(n),
                    None => Arg::Object(Vec::new()),
                };
                match (server, tool, next) {
                    (Some(server), Some(tool), Some(next)) => Some(NodeKind::Mcp {
                        server,
                        tool,
                        args,
                        next,
                    }),
                    _ => None,
                }
            }
            Some("transform") => {
                let expr = match f.get("transform") {
                    Some(t) => self
                        .fields(t, "`transform`", &["expr"], &context)
                        .and_then(|tf| match tf.get("expr") {
                            Some(e) => self.expr(e, "`transform.expr`"),
                            None => {
                                self.missing(&tf, "expr", &format!(" in `transform`{context}"));
                                None
                            }
                        }),
                    None => {
                        self.missing(&f, "transform", &context);
                        None
                    }
                };
                match (expr, next) {
                    (Some(expr), Some(next)) => Some(NodeKind::Transform { expr, next }),
                    _ => None,
                }
            }
            Some("switch") => {
                let conditions = match f.get("conditions") {
                    Some(c) => self.conditions(c, &context),
                    None => {
                        self.missing(&f, "conditions", &context);
                        None
                    }
                };
                match (conditions, next) {
                    (Some(conditions), Some(next)) => Some(NodeKind::Switch { conditions, next }),
                    _ => None,
                }
            }
            _ => None,
        };
        match (id_checked, built) {
            (Some(id), Some(kind)) => Ok(Node { id, kind }),
            _ => fail(&id),
        }
    }

    /// The conditions of a switch. A condition without a `next` makes the
    /// node unusable (`None`); a bad rule is reported and replaced, so that
    /// the graph is still checked.
    fn conditions(&mut self, node: &yaml::Node, context: &str) -> Option<Vec<Condition>> {
        let Value::Seq(items) = &node.value else {
            self.wrong_type(node, "`conditions`", "a sequence");
            return None;
        };
        let mut out = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(f) = self.fields(item, "a condition", &["rule", "next"], context) else {
                ok = false;
                continue;
            };
            let rule = match f.get("rule") {
                Some(r) => self.logic(r),
                None => {
                    self.missing(&f, "rule", &format!(" in a condition{context}"));
                    PLACEHOLDER_LOGIC
                }
            };
            match self.required_string(&f, "next", &format!(" in a condition{context}")) {
                Some(next) => out.push(Condition { rule, next }),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// An `mcp` node's `args`: an object, or one `{expr}` object.
    fn top_args(&mut self, node: &yaml::Node) -> Arg {
        match &node.value {
            Value::Map(_) => self.arg(node),
            Value::Null => Arg::Object(Vec::new()),
            _ => {
                self.wrong_type(node, "`args`", "a mapping");
                Arg::Object(Vec::new())
            }
        }
    }

    /// One value of `args`. Errors are reported and the bad part replaced
    /// by a placeholder, so that the rest is still checked.
    fn arg(&mut self, node: &yaml::Node) -> Arg {
        match &node.value {
            Value::Map(entries) => {
                let expr_key = entries.iter().find(|(k, _)| k.key_text() == "expr");
                if let Some((k, v)) = expr_key {
                    let others: Vec<String> = entries
                        .iter()
                        .map(|(k, _)| k.key_text())
                        .filter(|k| k != "expr")
                        .map(|k| format!("`{k}`"))
                        .collect();
                    if entries.len() > 1 && others.is_empty() {
                        // Only repeats of `expr`: reported as duplicates.
                        self.fields_any(node, "`args`");
                    } else if entries.len() > 1 {
                        self.err(
                            k.pos,
                            format!(
                                "an `expr` object must have no other keys; found {} beside `expr`",
                                others.join(", ")
                            ),
                        )
                        .help("put the expression one level down, or build the whole object in the expression");
                    }
                    // The expression is still checked.
                    return self.expr(v, "`expr`").map_or(PLACEHOLDER_ARG, Arg::Expr);
                }
                let entries = self.fields_any(node, "`args`").unwrap_or_default();
                Arg::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.key_text(), self.arg(v)))
                        .collect(),
                )
            }
            Value::Seq(items) => Arg::Array(items.iter().map(|i| self.arg(i)).collect()),
            _ => Arg::Literal(node.to_json()),
        }
    }

    /// A JSON Logic rule. In JSON Logic every object is an operator
    /// application with exactly one key, so any other object is an error.
    /// Errors are reported and the bad part replaced by a placeholder.
    fn logic(&mut self, node: &yaml::Node) -> Logic {
        match &node.value {
            Value::Map(entries) => {
                if entries.len() != 1 {
                    let found = if entries.is_empty() {
                        "an empty object".to_owned()
                    } else {
                        format!(
                            "{} keys ({})",
                            entries.len(),
                            entries
                                .iter()
                                .map(|(k, _)| format!("`{}`", k.key_text()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    self.err(
                        node.pos,
                        format!("a JSON Logic object must have exactly one key, its operator; found {found}"),
                    )
                    .help("write each operation as its own `{operator: [arguments]}` object");
                    return PLACEHOLDER_LOGIC;
                }
                let (k, v) = &entries[0];
                let op = k.key_text();
                if op == "var" {
                    return match &v.value {
                        Value::String(s) if s.trim().is_empty() => {
                            self.err(v.pos, "a `var` must not be empty")
                                .help("it is a JSONata expression: use `$` for the whole context");
                            PLACEHOLDER_LOGIC
                        }
                        Value::String(_) => {
                            self.expr(v, "`var`").map_or(PLACEHOLDER_LOGIC, Logic::Var)
                        }
                        _ => {
                            self.err(
                                v.pos,
                                format!(
                                    "a `var` must be a string (a JSONata expression), found {}",
                                    v.value.kind()
                                ),
                            )
                            .help("write the path as a string, e.g. `{var: \"entry.value\"}`; a default can be given with JSONata's `??`");
                            PLACEHOLDER_LOGIC
                        }
                    };
                }
                if !LOGIC_OPERATORS.contains(&op.as_str()) {
                    let d = self.err(k.pos, format!("unknown JSON Logic operator `{op}`"));
                    match suggest(&op, LOGIC_OPERATORS) {
                        Some(s) => d.help(format!("did you mean `{s}`?")),
                        None => d.help(format!("expected one of {}", LOGIC_OPERATORS.join(" "))),
                    };
                    // The arguments are still checked.
                    self.logic(v);
                    return PLACEHOLDER_LOGIC;
                }
                let args = self.logic(v);
                Logic::Object(vec![(Sp::new(op, k.pos), args)])
            }
            Value::Seq(items) => Logic::Array(items.iter().map(|i| self.logic(i)).collect()),
            _ => Logic::Literal(node.to_json()),
        }
    }
}

/// A value for messages: the value itself when it is short.
fn describe(node: &yaml::Node) -> String {
    match &node.value {
        Value::Number(n) => format!("`{n}`"),
        Value::String(s) if s.chars().count() <= 40 => format!("the string `{s}`"),
        Value::Bool(b) => format!("`{b}`"),
        other => other.kind().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::{errors, load_errors, one_error, with_nodes};

    const ENTRY: &str = "      - id: entry\n        type: entry\n        next: a\n";
    const EXIT: &str = "      - id: exit\n        type: exit\n";

    fn load(src: &str) -> GraphFile {
        crate::load_str(src, "g.yaml").unwrap_or_else(|d| panic!("{d}"))
    }

    fn messages(src: &str) -> Vec<String> {
        errors(src).into_iter().map(|e| e.2).collect()
    }

    fn a_node(body: &str) -> String {
        with_nodes(&format!("{ENTRY}      - id: a\n{body}{EXIT}"))
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("tranform", NODE_TYPES), Some("transform"));
        assert_eq!(suggest("nxt", &["id", "type", "next"]), Some("next"));
        assert_eq!(
            suggest("inputschema", &["inputSchema"]),
            Some("inputSchema")
        );
        assert_eq!(suggest("zzzzzz", NODE_TYPES), None);
        assert_eq!(suggest("=<", LOGIC_OPERATORS), Some("<="));
    }

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
    fn misplaced_node_fields() {
        let src = with_nodes(&format!(
            "{ENTRY}{}",
            "      - id: a\n        type: transform\n        transform: {expr: '1'}\n        server: fs\n        next: exit\n      - id: exit\n        type: exit\n        next: a\n"
        ));
        let d = load_errors(&src);
        let m: Vec<(&str, Option<&str>)> = d
            .items
            .iter()
            .map(|i| (i.message.as_str(), i.help.as_deref()))
            .collect();
        assert_eq!(
            m,
            [
                (
                    "`server` is not a field of a `transform` node in node `a`",
                    Some("`server` belongs to `mcp` nodes")
                ),
                (
                    "an `exit` node has no `next` in node `exit`",
                    Some("remove it: the call ends at the exit node")
                ),
            ]
        );
    }

    #[test]
    fn node_type_errors() {
        let src = a_node("        type: \"tranform\"\n        next: exit\n");
        let d = load_errors(&src);
        assert_eq!(d.items.len(), 1, "{d}");
        assert_eq!(
            d.items[0].message,
            "unknown node type `tranform` (expected one of entry, exit, mcp, transform, switch)"
        );
        assert_eq!(
            d.items[0].help.as_deref(),
            Some("did you mean `transform`?")
        );
        assert_eq!((d.items[0].pos.line, d.items[0].pos.column), (17, 15));
        let rendered = d.to_string();
        assert!(rendered.contains("  --> g.yaml:17:15\n   |\n17 |         type: \"tranform\"\n   |               ^\n   = help: did you mean `transform`?"), "{rendered}");
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
    fn missing_required_fields() {
        let src = "tools:\n  - inputSchema: {type: object}\n    nodes:\n      - {type: mcp}\n      - {id: x}\n      - id: s\n        type: switch\n        next: x\n        conditions:\n          - {}\n      - id: t\n        type: transform\n        transform: {}\n        next: x\n";
        let mut m = messages(src);
        m.sort();
        let mut expected = vec![
            "missing required field `version` at the top level",
            "missing required field `server` at the top level",
            "missing required field `name` in a tool",
            "missing required field `description` in a tool",
            "missing required field `id` in a node",
            "missing required field `next` in a node",
            "missing required field `server` in a node",
            "missing required field `tool` in a node",
            "missing required field `type` in node `x`",
            "missing required field `rule` in a condition in node `s`",
            "missing required field `next` in a condition in node `s`",
            "missing required field `expr` in `transform` in node `t`",
        ];
        expected.sort();
        assert_eq!(m, expected);
        let src = "version: '1'\nserver: {}\n";
        assert_eq!(
            messages(src),
            [
                "missing required field `name` in `server`",
                "missing required field `version` in `server`"
            ]
        );
        let src =
            "version: '1'\nserver: {name: a, version: b}\ntools:\n  - {name: t, description: d}\n";
        assert_eq!(
            messages(src),
            [
                "missing required field `inputSchema` in tool `t`",
                "missing required field `nodes` in tool `t`"
            ]
        );
        assert_eq!(messages(""), ["the graph file is empty"]);
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
    fn servers() {
        let src = with_nodes(&format!("{ENTRY}{EXIT}")).replace(
            "  fs:\n    command: npx\n",
            "  fs:\n    command: npx\n    args: [-y, pkg]\n    env: {A: b}\n    cwd: .\n    timeoutMs: 5\n    pingTimeoutMs: 6\n  a: {type: sse, url: 'http://x'}\n  b: {type: streamableHttp, url: u, headers: {H: v}}\n  c: {type: http, url: u}\n  d: {type: streamable-http, url: u}\n",
        );
        let src = src.replace("next: a\n", "next: exit\n");
        let f = load(&src);
        assert_eq!(f.mcp_servers.len(), 5);
        assert_eq!(
            f.mcp_servers[0].transport,
            Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "pkg".into()],
                cwd: Some(".".into()),
                env: vec![("A".into(), "b".into())],
            }
        );
        assert_eq!(f.mcp_servers[0].timeout_ms, Some(5));
        assert_eq!(f.mcp_servers[0].ping_timeout_ms, Some(6));
        assert!(matches!(f.mcp_servers[1].transport, Transport::Sse { .. }));
        for s in &f.mcp_servers[2..] {
            assert!(matches!(s.transport, Transport::StreamableHttp { .. }));
        }

        let bad = with_nodes(&format!("{ENTRY}{EXIT}"))
            .replace("next: a\n", "next: exit\n")
            .replace(
                "  fs:\n    command: npx\n",
                "  fs:\n    url: x\n  h: {type: htp, url: u}\n  i: {type: sse}\n",
            );
        assert_eq!(
            messages(&bad),
            [
                "unknown key `url` in server `fs`",
                "missing required field `command` in server `fs`",
                "unknown server type `htp` (expected one of stdio, sse, streamableHttp, http, streamable-http)",
                "missing required field `url` in server `i`",
            ]
        );
    }

    #[test]
    fn limits() {
        let base = with_nodes(&format!("{ENTRY}{EXIT}")).replace("next: a\n", "next: exit\n");
        assert_eq!(load(&base).limits, Limits::default());
        let src = format!(
            "{base}executionLimits:\n  maxNodeExecutions: 5\n  maxExpressionTimeMs: 7\n  maxValueBytes: 8\n  maxHistoryBytes: 9\n  maxValueDepth: 10\n"
        );
        let l = load(&src).limits;
        assert_eq!(
            (
                l.max_node_executions,
                l.max_expression_time_ms,
                l.max_execution_time_ms
            ),
            (5, 7, 300_000)
        );
        assert_eq!(
            (l.max_value_bytes, l.max_history_bytes, l.max_value_depth),
            (8, 9, 10)
        );
        let src = format!(
            "{base}executionLimits:\n  maxNodeExecutions: 0\n  maxExecutionTimeMs: -1\n  maxExpressionDepth: 1.5\n  maxExpressionTimeMs: '10'\n  maxThings: 1\n"
        );
        assert_eq!(
            messages(&src),
            [
                "`maxNodeExecutions` must be a positive integer, found `0`",
                "`maxExecutionTimeMs` must be a positive integer, found `-1`",
                "`maxExpressionDepth` must be a positive integer, found `1.5`",
                "`maxExpressionTimeMs` must be a positive integer, found the string `10`",
                "unknown key `maxThings` in `executionLimits`",
            ]
        );
    }

    #[test]
    fn schemas() {
        let base = with_nodes(&format!("{ENTRY}{EXIT}")).replace("next: a\n", "next: exit\n");
        let src = base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {properties: {}}",
        );
        assert_eq!(messages(&src), ["`inputSchema` must have `type: object`"]);
        let src = base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {type: object}\n    outputSchema: {type: array}",
        );
        assert_eq!(
            messages(&src),
            [
                "the `type` of `outputSchema` must be `object` (MCP requires it), found the string `array`"
            ]
        );
        let src = base.replace("inputSchema: {type: object}", "inputSchema: [1]");
        assert_eq!(
            messages(&src),
            [
                "`inputSchema` must be a mapping (a JSON Schema with `type: object`), found a sequence"
            ]
        );
        let src = base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {type: object, properties: {a: {type: strng}}, required: a}",
        );
        assert_eq!(
            messages(&src),
            [
                "unknown JSON Schema type `strng` (expected one of object, array, string, number, integer, boolean, null)",
                "`required` must be a sequence of strings, found a string",
            ]
        );
        let f = load(&base.replace(
            "inputSchema: {type: object}",
            "inputSchema: {type: object, properties: {n: {type: number}}}",
        ));
        assert_eq!(
            f.tools[0].input_schema,
            serde_json::json!({"type": "object", "properties": {"n": {"type": "number"}}})
        );
    }

    #[test]
    fn mcp_args() {
        let src = a_node(
            "        type: mcp\n        server: fs\n        tool: x\n        args:\n          path: {expr: \"$.entry.dir\"}\n          lit: \"$.entry\"\n          n: [1, {expr: \"2\"}, {a: null}]\n        next: exit\n",
        );
        let f = load(&src);
        let NodeKind::Mcp { args, .. } = &f.tools[0].nodes[1].kind else {
            panic!()
        };
        let Arg::Object(entries) = args else { panic!() };
        assert!(
            matches!(&entries[0], (k, Arg::Expr(e)) if k == "path" && e.source == "$.entry.dir")
        );
        assert_eq!(entries[1], ("lit".into(), Arg::Literal("$.entry".into())));
        let Arg::Array(items) = &entries[2].1 else {
            panic!()
        };
        assert!(matches!(items[1], Arg::Expr(_)));
        assert_eq!(
            items[2],
            Arg::Object(vec![("a".into(), Arg::Literal(serde_json::Value::Null))])
        );

        let src =
            a_node("        type: mcp\n        server: fs\n        tool: x\n        next: exit\n");
        let f = load(&src);
        assert!(
            matches!(&f.tools[0].nodes[1].kind, NodeKind::Mcp { args: Arg::Object(a), .. } if a.is_empty())
        );

        let src = a_node(
            "        type: mcp\n        server: fs\n        tool: x\n        args:\n          a: {expr: \"1\", other: 2}\n          b: {expr: 3}\n        next: exit\n",
        );
        assert_eq!(
            messages(&src),
            [
                "an `expr` object must have no other keys; found `other` beside `expr`",
                "`expr` must be a string (a JSONata expression), found a number",
            ]
        );
        let src = a_node(
            "        type: mcp\n        server: fs\n        tool: x\n        args: [1]\n        next: exit\n",
        );
        assert_eq!(
            messages(&src),
            ["`args` must be a mapping, found a sequence"]
        );
    }

    fn rule(r: &str) -> String {
        a_node(&format!(
            "        type: switch\n        conditions:\n          - rule: {r}\n            next: exit\n        next: exit\n"
        ))
    }

    #[test]
    fn switch_rules() {
        let f = load(&rule(
            "{\"and\": [{\">\": [{var: \"entry.v\"}, 1]}, {\"!\": {var: \"$.entry.w\"}}]}",
        ));
        let NodeKind::Switch { conditions, .. } = &f.tools[0].nodes[1].kind else {
            panic!()
        };
        let Logic::Object(ops) = &conditions[0].rule else {
            panic!()
        };
        assert_eq!(ops[0].0.value, "and");
        let Logic::Array(args) = &ops[0].1 else {
            panic!()
        };
        let Logic::Object(gt) = &args[0] else {
            panic!()
        };
        let Logic::Array(gt_args) = &gt[0].1 else {
            panic!()
        };
        assert!(matches!(&gt_args[0], Logic::Var(e) if e.source == "entry.v"));
        assert_eq!(gt_args[1], Logic::Literal(1.into()));
        let Logic::Object(not) = &args[1] else {
            panic!()
        };
        assert!(matches!(&not[0].1, Logic::Var(e) if e.source == "$.entry.w"));

        let d = load_errors(&rule("{\"=<\": [1, 2]}"));
        assert_eq!(d.items.len(), 1, "{d}");
        assert_eq!(d.items[0].message, "unknown JSON Logic operator `=<`");
        assert_eq!(d.items[0].help.as_deref(), Some("did you mean `<=`?"));
        assert_eq!(
            messages(&rule("{\"==\": [{var: 1}, 1]}")),
            ["a `var` must be a string (a JSONata expression), found a number"]
        );
        assert_eq!(
            messages(&rule("{\"==\": [{var: [\"a\", 1]}, 1]}")),
            ["a `var` must be a string (a JSONata expression), found a sequence"]
        );
        assert_eq!(
            messages(&rule("{\"==\": [1, 1], \"!=\": [1, 2]}")),
            [
                "a JSON Logic object must have exactly one key, its operator; found 2 keys (`==`, `!=`)"
            ]
        );
        assert_eq!(
            messages(&rule("{\"in\": [\"a\", {}]}")),
            ["a JSON Logic object must have exactly one key, its operator; found an empty object"]
        );
        assert_eq!(
            messages(&rule("{\"==\": [{foo: 1}, 1]}")),
            ["unknown JSON Logic operator `foo`"]
        );
        assert_eq!(
            messages(&rule("{var: \"\"}")),
            ["a `var` must not be empty"]
        );
        // Scalars and arrays of scalars are fine as rules.
        load(&rule("true"));
        load(&rule("{\"in\": [\"a\", [\"a\", \"b\"]]}"));
    }

    #[test]
    fn yaml_errors_have_positions() {
        let (line, col, msg) = one_error("version: '1'\nserver: [a, b\n");
        assert!(msg.starts_with("invalid YAML"), "{msg}");
        assert_eq!((line, col), (2, 9));
        let (_, _, msg) = one_error("a: 1\n---\nb: 2\n");
        assert_eq!(
            msg,
            "a graph file holds a single YAML document; found another `---` document"
        );
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
