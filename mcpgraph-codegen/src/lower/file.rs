//! Lowers the top of the file: `version`, `server`, `executionLimits` and
//! each tool's own fields (its nodes are `node`'s).

use super::{Cx, Lowered, Unfinished};
use crate::diag::codes;
use crate::model::{GraphFile, Limits, NodeKind, Pos, ServerMeta, Sp, Tool, ToolAnnotations};
use crate::yaml::{self, Value};
use mcpgraph_expr::MAX_VALUE_DEPTH_CEILING;

impl Cx<'_, '_> {
    /// The whole file.
    pub(super) fn file(&mut self, root: &yaml::Node) -> Lowered {
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
            self.err(codes::EMPTY_FILE, root.pos, "the graph file is empty")
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
            self.servers = (out.file.mcp_servers.iter().map(|s| s.spec.name.clone()))
                .chain(out.broken_servers.iter().cloned())
                .collect();
        }
        if let Some(n) = f.get("executionLimits") {
            out.file.limits = self.limits(n);
        }
        if let Some(n) = f.get("tools") {
            match &n.value {
                Value::Seq(items) => {
                    for item in items {
                        let (tool, unfinished) = self.tool(item);
                        out.file.tools.push(tool);
                        out.tools.push(unfinished);
                    }
                }
                Value::Null => {}
                _ => self.wrong_type(n, "`tools`", "a sequence"),
            }
        }
        out
    }

    /// `server:`.
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

    /// `executionLimits:`, with defaults for what is not given.
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
            "maxCallDepth",
            "maxQuestions",
            "maxAnswerWaitMs",
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
            &mut limits.max_call_depth,
            &mut limits.max_questions,
            &mut limits.max_answer_wait_ms,
        ];
        for (key, slot) in keys.iter().zip(slots) {
            if let Some(n) = f.get(key)
                && let Some(v) = self.positive_int(n, &format!("`{key}`"))
            {
                *slot = v;
            }
        }
        if limits.max_value_depth > MAX_VALUE_DEPTH_CEILING
            && let Some(n) = f.get("maxValueDepth")
        {
            self.err(
                codes::LIMIT_TOO_LARGE, n.pos,
                format!(
                    "`maxValueDepth` must be at most {MAX_VALUE_DEPTH_CEILING} (the stacks that convert a value \
                     carry no deeper ones), found `{}`",
                    limits.max_value_depth
                ),
            );
            limits.max_value_depth = MAX_VALUE_DEPTH_CEILING;
        }
        limits
    }

    /// One tool, with what could not be finished of it.
    fn tool(&mut self, node: &yaml::Node) -> (Tool, Unfinished) {
        let mut unfinished = Unfinished::default();
        let mut tool = Tool {
            name: Sp::new(String::new(), node.pos),
            description: String::new(),
            input_schema: serde_json::Value::Null,
            output_schema: None,
            nodes: Vec::new(),
            exit_content: None,
            annotations: ToolAnnotations::default(),
            icons: Vec::new(),
            required_scopes: Vec::new(),
            task: mcpgraph_format::TaskSupport::default(),
        };
        let allowed = [
            "name",
            "description",
            "inputSchema",
            "outputSchema",
            "nodes",
            "annotations",
            "icons",
            "requiredScopes",
            "task",
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
            unfinished.name_missing = true;
            unfinished.incomplete = true;
            return (tool, unfinished);
        };
        match self.required_string(&f, "name", &context) {
            Some(n) => tool.name = n,
            None => unfinished.name_missing = true,
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
        if let Some(n) = f.get("annotations") {
            tool.annotations = self.tool_annotations(n, &context);
        }
        if let Some(n) = f.get("icons") {
            tool.icons = self.icons(n, &context);
        }
        if let Some(n) = f.get("requiredScopes") {
            tool.required_scopes = self.required_scopes(n, &context);
        }
        if let Some(n) = f.get("task") {
            tool.task = self.task_support(n, &context);
        }
        match f.get("nodes") {
            Some(n) => match &n.value {
                Value::Seq(items) => {
                    for item in items {
                        match self.node(item) {
                            Ok(node) => {
                                if let (NodeKind::Exit, None, Value::Map(entries)) =
                                    (&node.kind, &tool.exit_content, &item.value)
                                    && let Some((_, content)) =
                                        entries.iter().find(|(k, _)| k.key_text() == "content")
                                {
                                    let at = format!(" in node `{}`", node.id.value);
                                    tool.exit_content = self.exit_content(content, &at);
                                }
                                unfinished.ids.push(node.id.value.clone());
                                tool.nodes.push(node);
                            }
                            Err(id) => {
                                unfinished.incomplete = true;
                                unfinished.ids.extend(id.clone());
                                unfinished.broken_ids.extend(id);
                            }
                        }
                    }
                }
                _ => {
                    self.wrong_type(n, "`nodes`", "a sequence");
                    unfinished.incomplete = true;
                }
            },
            None => {
                self.missing(&f, "nodes", &context);
                unfinished.incomplete = true;
            }
        }
        (tool, unfinished)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Limits;
    use crate::test_support::ENTRY;
    use crate::test_support::EXIT;
    use crate::test_support::load;
    use crate::test_support::with_nodes;
    use crate::test_support::{messages, one_error};

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
            "missing required field `server` in a node: an `mcp` node calls a tool of a downstream server",
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

    /// `maxQuestions` and `maxAnswerWaitMs` (issue 42): read like the
    /// others, with their defaults when not given.
    #[test]
    fn question_limits() {
        let base = with_nodes(&format!("{ENTRY}{EXIT}")).replace("next: a\n", "next: exit\n");
        let l = load(&base).limits;
        assert_eq!((l.max_questions, l.max_answer_wait_ms), (16, 600_000));
        let src = format!("{base}executionLimits:\n  maxQuestions: 3\n  maxAnswerWaitMs: 2000\n");
        let l = load(&src).limits;
        assert_eq!((l.max_questions, l.max_answer_wait_ms), (3, 2000));
        let src = format!("{base}executionLimits:\n  maxQuestions: 0\n  maxAnswerWaitMs: soon\n");
        assert_eq!(
            messages(&src),
            [
                "`maxQuestions` must be a positive integer, found `0`",
                "`maxAnswerWaitMs` must be a positive integer, found the string `soon`",
            ]
        );
    }

    /// A `maxValueDepth` over the ceiling is an error at its value; the
    /// ceiling itself is accepted.
    #[test]
    fn value_depth_has_a_ceiling() {
        let base = with_nodes(&format!("{ENTRY}{EXIT}")).replace("next: a\n", "next: exit\n");
        let at = format!("{base}executionLimits:\n  maxValueDepth: 256\n");
        assert_eq!(load(&at).limits.max_value_depth, 256);
        let over =
            format!("{base}executionLimits:\n  maxNodeExecutions: 5\n  maxValueDepth: 1000000\n");
        let line = over.lines().count() as u32;
        assert_eq!(
            one_error(&over),
            (
                line,
                18,
                "`maxValueDepth` must be at most 256 (the stacks that convert a value carry no deeper ones), \
                 found `1000000`"
                    .to_owned()
            )
        );
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
}
