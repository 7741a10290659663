//! Lowers the fields of an `elicit` node: its `message` (a string or one
//! `{expr}`), its `requestedSchema` (checked as a flat form by `form`) and
//! its `routes`.

use super::Cx;
use super::fields::Fields;
use crate::model::{Message, NodeKind, Routes};
use crate::yaml::{self, Value};

/// The answers a route may be given for, as the spec names them.
const ANSWERS: &[&str] = &["accept", "decline", "cancel"];

impl Cx<'_, '_> {
    /// The fields of an `elicit` node.
    pub(super) fn elicit(&mut self, f: &Fields<'_>, context: &str) -> Option<NodeKind> {
        let message = match f.get("message") {
            Some(m) => self.message(m),
            None => {
                self.missing(f, "message", context);
                None
            }
        };
        let schema = match f.get("requestedSchema") {
            Some(s) => self.form(s),
            None => {
                self.missing(f, "requestedSchema", context);
                None
            }
        };
        let routes = match f.get("routes") {
            Some(r) => self.routes(r, context),
            None => {
                self.missing(f, "routes", context);
                None
            }
        };
        Some(NodeKind::Elicit {
            message: message?,
            schema: schema?,
            routes: routes?,
        })
    }

    /// `message`: a string, or one `{expr}` object.
    fn message(&mut self, node: &yaml::Node) -> Option<Message> {
        match &node.value {
            Value::String(s) => Some(Message::Text(s.clone())),
            Value::Map(_) => {
                let f = self.fields(node, "`message`", &["expr"], " in `message`")?;
                match f.get("expr") {
                    Some(e) => self.expr(e, "`message.expr`").map(Message::Expr),
                    None => {
                        self.missing(&f, "expr", " in `message`");
                        None
                    }
                }
            }
            _ => {
                self.wrong_type(node, "`message`", "a string or an `{expr}` object");
                None
            }
        }
    }

    /// `routes`: `accept` (required), `decline` and `cancel`, each a node id.
    fn routes(&mut self, node: &yaml::Node, context: &str) -> Option<Routes> {
        let within = format!(" in `routes`{context}");
        let f = self.fields(node, "`routes`", ANSWERS, &within)?;
        let accept = self.required_string(&f, "accept", &within);
        let decline = self.optional_string(&f, "decline");
        let cancel = self.optional_string(&f, "cancel");
        Some(Routes {
            accept: accept?,
            decline,
            cancel,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Message, NodeKind};
    use crate::test_support::{ENTRY, EXIT, errors, load, messages, with_nodes};

    /// A graph of entry → `a` (an elicit node whose lines after `type` are
    /// `body`) → exit, with a transform `no` beside.
    pub(crate) fn elicit_node(body: &str) -> String {
        with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: elicit\n{body}      - id: no\n        type: transform\n        transform: {{expr: '1'}}\n        next: exit\n{EXIT}"
        ))
    }

    const FORM: &str = "        requestedSchema: {type: object, properties: {name: {type: string}}, required: [name]}\n";

    #[test]
    fn an_elicit_node_lowers() {
        let src = elicit_node(&format!(
            "        message: {{expr: '\"Hi \" & $.entry.who'}}\n{FORM}        routes: {{accept: exit, decline: no}}\n"
        ));
        let f = load(&src);
        let NodeKind::Elicit {
            message,
            schema,
            routes,
        } = &f.tools[0].nodes[1].kind
        else {
            panic!("{:?}", f.tools[0].nodes[1]);
        };
        assert!(matches!(message, Message::Expr(e) if e.source == "\"Hi \" & $.entry.who"));
        assert_eq!(
            schema,
            &serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
        );
        let routes: Vec<(&str, &str)> = routes
            .iter()
            .map(|(a, to)| (a, to.value.as_str()))
            .collect();
        assert_eq!(routes, [("accept", "exit"), ("decline", "no")]);
    }

    #[test]
    fn fields_and_routes() {
        let src = elicit_node(&format!(
            "        message: 12\n{FORM}        routes: {{decline: no, accpt: exit}}\n        next: exit\n"
        ));
        let e = errors(&src);
        let got: Vec<(u32, u32, &str)> = e.iter().map(|(l, c, m)| (*l, *c, m.as_str())).collect();
        assert_eq!(
            got,
            [
                (
                    18,
                    18,
                    "`message` must be a string or an `{expr}` object, found a number"
                ),
                (20, 31, "unknown key `accpt` in `routes` in node `a`"),
                (21, 9, "an `elicit` node has no `next` in node `a`"),
            ]
        );
        // An unknown target is the graph's error, at the route.
        let src = elicit_node(&format!(
            "        message: hi\n{FORM}        routes: {{accept: nowhere}}\n"
        ));
        assert_eq!(
            errors(&src),
            [(
                20,
                26,
                "`routes.accept` names `nowhere`, which is not a node of tool `t`".to_owned()
            )]
        );
        let src = elicit_node("        message: {expr: '$.nothere'}\n");
        let m = messages(&src);
        assert!(
            m.contains(&"missing required field `requestedSchema` in node `a`".to_owned()),
            "{m:?}"
        );
        assert!(
            m.contains(&"missing required field `routes` in node `a`".to_owned()),
            "{m:?}"
        );
        let src = elicit_node(&format!(
            "        message: hi\n{FORM}        routes: {{decline: no}}\n"
        ));
        assert_eq!(
            messages(&src),
            ["missing required field `accept` in `routes` in node `a`"]
        );
    }

    /// The message's expression is checked like any other: its references
    /// name nodes of the tool.
    #[test]
    fn the_message_expression_is_checked() {
        let src = elicit_node(&format!(
            "        message: {{expr: '$.nothere.x'}}\n{FORM}        routes: {{accept: exit, decline: no}}\n"
        ));
        let m = messages(&src);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].contains("`nothere`"), "{m:?}");
    }
}
