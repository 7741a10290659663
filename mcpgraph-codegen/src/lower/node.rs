//! Lowers one node of a tool: its id and type, the fields its type allows
//! (with a pointed message for a field of another type), and the fields of
//! each type (`mcp`, `transform`, `switch` and its conditions).

use super::Cx;
use super::fields::Fields;
use super::logic::PLACEHOLDER_LOGIC;
use crate::diag::codes;
use crate::model::{Arg, Condition, Node, NodeKind, Sp};
use crate::suggest::{list, suggest};
use crate::yaml::{self, Value};

/// The node types, in the order messages list them.
const NODE_TYPES: &[&str] = &[
    "entry",
    "exit",
    "mcp",
    "transform",
    "switch",
    "elicit",
    "parallel",
    "forEach",
];

/// The fields of each node type.
const NODE_FIELDS: &[(&str, &[&str])] = &[
    ("entry", &["id", "type", "next"]),
    ("exit", &["id", "type", "content"]),
    (
        "mcp",
        &[
            "id",
            "type",
            "next",
            "server",
            "tool",
            "args",
            "retry",
            "timeoutMs",
            "onError",
        ],
    ),
    ("transform", &["id", "type", "next", "transform"]),
    ("switch", &["id", "type", "next", "conditions"]),
    (
        "elicit",
        &["id", "type", "message", "requestedSchema", "routes"],
    ),
    (
        "parallel",
        &[
            "id",
            "type",
            "next",
            "branches",
            "maxConcurrency",
            "retry",
            "timeoutMs",
            "onError",
        ],
    ),
    (
        "forEach",
        &[
            "id",
            "type",
            "next",
            "items",
            "call",
            "maxConcurrency",
            "retry",
            "timeoutMs",
            "onError",
        ],
    ),
];

/// The node types that route without `next`.
const WITHOUT_NEXT: &[&str] = &["exit", "elicit"];

impl Cx<'_, '_> {
    /// One node. On error, returns the node's id if it has one.
    pub(super) fn node(&mut self, node: &yaml::Node) -> Result<Node, Option<String>> {
        let Value::Map(entries) = &node.value else {
            self.wrong_type(node, "a node", "a mapping");
            return Err(None);
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
        let kind = find("type").and_then(|v| self.node_type(v));
        let f = self.node_fields(node, kind, &context).ok_or(None)?;
        let id_checked = self.node_id(&f, &context);
        let fail = |id: &Option<Sp<String>>| Err(id.as_ref().map(|s| s.value.clone()));
        if f.get("type").is_none() {
            self.missing(&f, "type", &context);
            if f.get("next").is_some() {
                self.required_string(&f, "next", &context);
            }
            return fail(&id);
        }
        let next = if kind.is_none_or(|k| WITHOUT_NEXT.contains(&k)) {
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
            Some("mcp") => self.mcp(&f, &context, next),
            Some("transform") => self.transform(&f, &context, next),
            Some("switch") => self.switch(&f, &context, next),
            Some("elicit") => self.elicit(&f, &context),
            Some("parallel") => self.parallel(&f, &context, next),
            Some("forEach") => self.for_each(&f, &context, next),
            _ => None,
        };
        match (id_checked, built) {
            (Some(id), Some(kind)) => Ok(Node { id, kind }),
            _ => fail(&id),
        }
    }

    /// The node's `type`, if it is a known one (else it is reported).
    fn node_type<'n>(&mut self, v: &'n yaml::Node) -> Option<&'n str> {
        match &v.value {
            Value::String(s) if NODE_TYPES.contains(&s.as_str()) => Some(s.as_str()),
            Value::String(s) => {
                let d = self.err(
                    codes::UNKNOWN_NODE_TYPE,
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
        }
    }

    /// The node's fields, checked against those of its type (of any type
    /// when the type is unknown). A field of another type gets a message
    /// that says so.
    fn node_fields<'n>(
        &mut self,
        node: &'n yaml::Node,
        kind: Option<&str>,
        context: &str,
    ) -> Option<Fields<'n>> {
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
                format!("an `{kind}` node has no `next`{context}")
            } else {
                format!("`{key}` is not a field of a `{kind}` node{context}")
            };
            let help = match (key, kind) {
                ("next", "elicit") => {
                    "route each answer with `routes: { accept, decline, cancel }`".to_owned()
                }
                ("next", _) => "remove it: the call ends at the exit node".to_owned(),
                _ => format!("`{key}` belongs to {} nodes", list(&owners)),
            };
            Some((message, help))
        };
        self.fields_with(node, "a node", &allowed, context, explain)
    }

    /// The node's `id`: a string, not empty.
    fn node_id(&mut self, f: &Fields<'_>, context: &str) -> Option<Sp<String>> {
        match f.get("id") {
            Some(v) => match self.string(v, "`id`") {
                Some(s) if s.value.is_empty() => {
                    self.err(codes::EMPTY_NAME, v.pos, "a node id must not be empty");
                    None
                }
                other => other,
            },
            None => {
                self.missing(f, "id", context);
                None
            }
        }
    }

    /// The fields of an `mcp` node.
    fn mcp(&mut self, f: &Fields<'_>, context: &str, next: Option<Sp<String>>) -> Option<NodeKind> {
        let server = match f.get("server") {
            Some(n) => self.string(n, "`server`"),
            None => {
                self.missing_server(f, context);
                None
            }
        };
        let tool = self.required_string(f, "tool", context);
        let args = match f.get("args") {
            Some(n) => self.top_args(n),
            None => Arg::Object(Vec::new()),
        };
        let resilience = self.resilience(f, context);
        Some(NodeKind::Mcp {
            server: server?,
            tool: tool?,
            args,
            args_pos: f.key_pos("args").unwrap_or(f.pos),
            next: next?,
            resilience,
        })
    }

    /// An `mcp` node without `server`: it calls a downstream server's
    /// tool; a tool of this graph is called from a branch or an item.
    fn missing_server(&mut self, f: &Fields<'_>, context: &str) {
        let servers = match self.servers.as_slice() {
            [] => "the file declares no `mcpServers`".to_owned(),
            names => format!(
                "name one of the servers of `mcpServers`: {}",
                names.join(", ")
            ),
        };
        let tool = match f.get("tool").map(|t| &t.value) {
            Some(Value::String(tool)) => tool.clone(),
            _ => "TOOL".to_owned(),
        };
        if !f.was_suggested("server") {
            self.err(
                codes::MISSING_FIELD, f.pos,
                format!("missing required field `server`{context}: an `mcp` node calls a tool of a downstream server"),
            )
            .help(format!(
                "{servers}; a tool of this graph is called without `server`, from a `parallel` branch or a `forEach` call (`branches: {{ {tool}: {{ tool: {tool} }} }}`, its output under `{tool}`)"
            ));
        }
    }

    /// The fields of a `transform` node.
    fn transform(
        &mut self,
        f: &Fields<'_>,
        context: &str,
        next: Option<Sp<String>>,
    ) -> Option<NodeKind> {
        let expr = match f.get("transform") {
            Some(t) => self
                .fields(t, "`transform`", &["expr"], context)
                .and_then(|tf| match tf.get("expr") {
                    Some(e) => self.expr(e, "`transform.expr`"),
                    None => {
                        self.missing(&tf, "expr", &format!(" in `transform`{context}"));
                        None
                    }
                }),
            None => {
                self.missing(f, "transform", context);
                None
            }
        };
        Some(NodeKind::Transform {
            expr: expr?,
            next: next?,
        })
    }

    /// The fields of a `switch` node.
    fn switch(
        &mut self,
        f: &Fields<'_>,
        context: &str,
        next: Option<Sp<String>>,
    ) -> Option<NodeKind> {
        let conditions = match f.get("conditions") {
            Some(c) => self.conditions(c, context),
            None => {
                self.missing(f, "conditions", context);
                None
            }
        };
        Some(NodeKind::Switch {
            conditions: conditions?,
            next: next?,
        })
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
}

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
