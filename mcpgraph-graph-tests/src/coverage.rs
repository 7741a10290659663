//! Which nodes and routes of each tool the cases reached.
//!
//! The generator writes each tool's map (its nodes and the routes a node
//! may take besides its one `next`: switch conditions and defaults,
//! `onError`, `elicit` answers), with their lines, into the binary
//! ([`GraphDef::map`](mcpgraph_runtime::GraphDef::map)); a case's execution record
//! says which nodes ran, in order, so which routes were taken. An `elicit`
//! node's routes are told apart by the answer that took them (two answers
//! may go to the same node): the harness gave the answers, so it knows.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use mcpgraph_runtime::NodeRecord;

/// The graph's map, as the generator writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Map {
    /// The graph file.
    pub(crate) file: String,
    pub(crate) tools: Vec<ToolMap>,
}

/// One tool's nodes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolMap {
    pub(crate) name: String,
    pub(crate) nodes: Vec<NodeMap>,
}

/// One node: where it is, and its routes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NodeMap {
    pub(crate) id: String,
    #[serde(rename = "type")]
    pub(crate) node_type: String,
    pub(crate) line: u32,
    #[serde(default)]
    pub(crate) routes: Vec<Route>,
}

/// A route a node may take: to `to`, written at `line`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Route {
    pub(crate) to: String,
    pub(crate) line: u32,
    /// What it is: `case 1`, `default`, `onError`.
    pub(crate) label: String,
}

/// What the cases reached, per tool.
#[derive(Debug, Default)]
pub(crate) struct Reached {
    tools: BTreeMap<String, ToolReached>,
}

/// What the cases reached in one tool: node ids, routes as (from, to),
/// and `elicit` routes as (node, answer).
#[derive(Debug, Default)]
struct ToolReached {
    nodes: BTreeSet<String>,
    routes: BTreeSet<(String, String)>,
    answers: BTreeSet<(String, String)>,
}

impl Reached {
    /// Adds a call of `tool` whose execution record is `records`, in which
    /// the `elicit` nodes `elicited` went on with their answers.
    pub(crate) fn add(
        &mut self,
        tool: &str,
        records: &[NodeRecord],
        elicited: &[(String, &'static str)],
    ) {
        let ToolReached {
            nodes,
            routes,
            answers,
        } = self.tools.entry(tool.to_owned()).or_default();
        for (node, answer) in elicited {
            answers.insert((node.clone(), (*answer).to_owned()));
        }
        // A fan-out node's calls are covered with it.
        let records: Vec<&NodeRecord> = records.iter().filter(|r| r.part.is_none()).collect();
        for record in &records {
            nodes.insert(record.node.clone());
        }
        for pair in records.windows(2) {
            routes.insert((pair[0].node.clone(), pair[1].node.clone()));
        }
    }
}

/// One tool's coverage.
#[derive(Debug, Serialize)]
pub(crate) struct ToolCoverage {
    pub(crate) tool: String,
    pub(crate) nodes: usize,
    #[serde(rename = "nodesReached")]
    pub(crate) nodes_reached: usize,
    pub(crate) routes: usize,
    #[serde(rename = "routesTaken")]
    pub(crate) routes_taken: usize,
    /// What was never reached.
    pub(crate) missed: Vec<Missed>,
}

/// A node never reached or a route never taken.
#[derive(Debug, Serialize)]
pub(crate) struct Missed {
    pub(crate) line: u32,
    pub(crate) what: String,
    /// Which node or route, for tools that draw it.
    #[serde(flatten)]
    pub(crate) untaken: Untaken,
}

/// What [`Missed`] names, as JSON: `{"node"}` or `{"from", "to",
/// "label"}` (the map's label: `condition 1`, `default`, `onError`, an
/// answer).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Untaken {
    Node {
        node: String,
    },
    Route {
        from: String,
        to: String,
        label: String,
    },
}

impl ToolCoverage {
    /// Reached and taken over all, from 0 to 100 (100 for nothing to reach).
    pub(crate) fn percent(&self) -> f64 {
        percent(
            self.nodes_reached + self.routes_taken,
            self.nodes + self.routes,
        )
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// The coverage of every tool of `map` by `reached`.
pub(crate) fn coverage(map: &Map, reached: &Reached) -> Vec<ToolCoverage> {
    let empty = ToolReached::default();
    map.tools
        .iter()
        .map(|tool| {
            let ToolReached {
                nodes,
                routes,
                answers,
            } = reached.tools.get(&tool.name).unwrap_or(&empty);
            let mut c = ToolCoverage {
                tool: tool.name.clone(),
                nodes: tool.nodes.len(),
                nodes_reached: 0,
                routes: 0,
                routes_taken: 0,
                missed: Vec::new(),
            };
            for node in &tool.nodes {
                if nodes.contains(&node.id) {
                    c.nodes_reached += 1;
                } else {
                    c.missed.push(Missed {
                        line: node.line,
                        what: format!("{} node `{}` never ran", node.node_type, node.id),
                        untaken: Untaken::Node {
                            node: node.id.clone(),
                        },
                    });
                }
                for route in &node.routes {
                    c.routes += 1;
                    let taken = if node.node_type == "elicit" {
                        answers.contains(&(node.id.clone(), route.label.clone()))
                    } else {
                        routes.contains(&(node.id.clone(), route.to.clone()))
                    };
                    if taken {
                        c.routes_taken += 1;
                    } else {
                        c.missed.push(Missed {
                            line: route.line,
                            what: format!(
                                "`{}` never took its {} route to `{}`",
                                node.id, route.label, route.to
                            ),
                            untaken: Untaken::Route {
                                from: node.id.clone(),
                                to: route.to.clone(),
                                label: route.label.clone(),
                            },
                        });
                    }
                }
            }
            c.missed.sort_by_key(|m| m.line);
            c
        })
        .collect()
}

/// Everything's coverage, from 0 to 100.
pub(crate) fn total(tools: &[ToolCoverage]) -> f64 {
    let part = tools.iter().map(|t| t.nodes_reached + t.routes_taken).sum();
    let whole = tools.iter().map(|t| t.nodes + t.routes).sum();
    percent(part, whole)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use mcpgraph_runtime::NodeType;

    fn record(index: usize, node: &str, node_type: NodeType) -> NodeRecord {
        NodeRecord {
            index,
            node: node.to_owned(),
            node_type,
            start: Duration::ZERO,
            duration: Duration::ZERO,
            input: None,
            outcome: Ok(None),
            part: None,
        }
    }

    /// An `elicit` node whose decline and cancel both go to `sorry`: a
    /// cancel takes the cancel route only.
    #[test]
    fn an_elicit_route_is_taken_by_its_own_answer_only() {
        let map: Map = serde_json::from_value(serde_json::json!({
            "file": "g.yaml",
            "tools": [{ "name": "t", "nodes": [
                { "id": "entry", "type": "entry", "line": 1 },
                { "id": "ask", "type": "elicit", "line": 2, "routes": [
                    { "to": "exit", "line": 3, "label": "accept" },
                    { "to": "sorry", "line": 4, "label": "decline" },
                    { "to": "sorry", "line": 5, "label": "cancel" }
                ] },
                { "id": "sorry", "type": "transform", "line": 6 },
                { "id": "exit", "type": "exit", "line": 7 }
            ] }]
        }))
        .unwrap();
        let records = [
            record(0, "entry", NodeType::Entry),
            record(1, "ask", NodeType::Elicit),
            record(2, "sorry", NodeType::Transform),
            record(3, "exit", NodeType::Exit),
        ];
        let mut reached = Reached::default();
        reached.add("t", &records, &[("ask".to_owned(), "cancel")]);
        let tools = coverage(&map, &reached);
        assert_eq!((tools[0].routes, tools[0].routes_taken), (3, 1));
        let missed: Vec<&str> = tools[0].missed.iter().map(|m| m.what.as_str()).collect();
        assert_eq!(
            missed,
            [
                "`ask` never took its accept route to `exit`",
                "`ask` never took its decline route to `sorry`"
            ]
        );
        assert_eq!(
            serde_json::to_value(&tools[0].missed[0]).unwrap(),
            serde_json::json!({
                "line": 3,
                "what": "`ask` never took its accept route to `exit`",
                "from": "ask", "to": "exit", "label": "accept"
            })
        );
        let unrun = coverage(&map, &Reached::default());
        assert_eq!(
            serde_json::to_value(&unrun[0].missed[0]).unwrap(),
            serde_json::json!({ "line": 1, "what": "entry node `entry` never ran", "node": "entry" })
        );
    }
}
