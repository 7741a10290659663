use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load(path: &Path) -> Option<GraphFile> {
    let source = std::fs::read_to_string(path).unwrap();
    mcpgraph_codegen::load_str(&source, &path.display().to_string()).ok()
}

fn example(name: &str) -> GraphFile {
    load(&repo().join(format!("examples/{name}/{name}.yaml"))).unwrap()
}

/// The opening tag of the element whose tag contains every one of
/// `parts` (each element of a picture starts a line).
fn tag<'a>(svg: &'a str, parts: &[&str]) -> &'a str {
    svg.lines()
        .find(|line| parts.iter().all(|p| line.contains(p)))
        .unwrap_or_else(|| panic!("no element with {parts:?} in\n{svg}"))
}

/// The whole `<g>` of the edge `from` → `to`, up to its `</g>`.
fn edge<'a>(svg: &'a str, from: &str, to: &str) -> &'a str {
    let open = format!("data-from=\"{from}\" data-to=\"{to}\"");
    let at = svg.find(&open).unwrap_or_else(|| panic!("no edge {open}"));
    let start = svg[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = start + svg[start..].find("\n</g>").unwrap();
    &svg[start..end]
}

/// Every graph of the examples and of the tests that loads: each node is
/// an element of its picture, each route an edge, and the page has them
/// all too.
#[test]
fn every_node_and_route_of_every_graph_is_drawn() {
    let mut files: Vec<PathBuf> = ["examples", "tests/graphs"]
        .iter()
        .flat_map(|dir| walk(&repo().join(dir)))
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".yaml") && !name.ends_with(".test.yaml")
        })
        .collect();
    files.sort();
    let mut drawn = 0;
    for file in files {
        let Some(graph) = load(&file) else { continue };
        let svg = svg(&graph, None, &Overlay::default()).unwrap();
        let page = html(&graph, None, &Overlay::default()).unwrap();
        for tool in &graph.tools {
            let alone = svg_of(&graph, &tool.name.value);
            for node in &tool.nodes {
                let id = draw::xml(&node.id.value);
                let attr = format!("data-node=\"{id}\"");
                for picture in [&alone, &svg, &page] {
                    assert!(picture.contains(&attr), "{}: no {attr}", file.display());
                }
                for to in node.kind.targets() {
                    let attr = format!("data-from=\"{id}\" data-to=\"{}\"", draw::xml(&to.value));
                    assert!(alone.contains(&attr), "{}: no {attr}", file.display());
                }
            }
            assert_eq!(
                alone.matches("data-node=").count(),
                tool.nodes.len(),
                "{}",
                file.display()
            );
        }
        drawn += 1;
    }
    assert!(drawn >= 20, "only {drawn} graphs drawn");
}

fn svg_of(graph: &GraphFile, tool: &str) -> String {
    svg(graph, Some(tool), &Overlay::default()).unwrap()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A switch's edges carry their rules in infix form and `default`, named
/// as the coverage map names them.
#[test]
fn a_switch_has_its_rules_on_its_edges() {
    let svg = svg_of(&example("switch_example"), "test_switch");
    let high = edge(&svg, "switch_node", "high_path");
    assert!(high.contains("data-route=\"condition 1\""), "{high}");
    assert!(high.contains(">entry.value &gt; 10</text>"), "{high}");
    let low = edge(&svg, "switch_node", "low_path");
    assert!(low.contains(">entry.value &gt; 0</text>"), "{low}");
    let default = edge(&svg, "switch_node", "zero_path");
    assert!(default.contains("class=\"edge default\""), "{default}");
    assert!(default.contains(">default</text>"), "{default}");
    assert!(tag(&svg, &["data-node=\"switch_node\""]).contains("node switch"));
    assert!(svg.contains("<polygon"), "a switch is a diamond");
}

/// `onError` routes and groups: the parallel node's branches are parts of
/// it, its `onError` edge has a class of its own.
#[test]
fn error_routes_and_groups_are_drawn_apart() {
    let svg = svg_of(&example("fan_out"), "overview");
    let route = edge(&svg, "lookup", "unavailable");
    assert!(route.contains("class=\"edge on-error\""), "{route}");
    assert!(route.contains(">onError</text>"), "{route}");
    for branch in ["echo", "sum", "files"] {
        tag(
            &svg,
            &["class=\"part\"", &format!("data-part=\"{branch}\"")],
        );
    }
    let svg = svg_of(&example("fan_out"), "read_directory");
    assert!(tag(&svg, &["data-node=\"each\""]).contains("node forEach"));
    tag(&svg, &["class=\"part\"", "data-part=\"item\""]);
}

/// A failed call of `read_directory`, as `call --trace --json` prints it.
fn failed_call() -> serde_json::Value {
    json!({
        "tool": "read_directory",
        "error": "node `list`: cannot start downstream server `filesystem`",
        "trace": [
            { "index": 0, "node": "entry", "type": "entry", "startMs": 0.02, "durationMs": 0.01, "output": { "directory": "." } },
            { "index": 1, "node": "list", "type": "mcp", "startMs": 0.07, "durationMs": 4.2, "error": "cannot start downstream server `filesystem`" }
        ]
    })
}

/// The failed node is `failed`, with its error and time on hover; the
/// node that ran is `ran`, the path it took `taken`, the rest `not-run`.
#[test]
fn a_traced_failed_node_is_marked_failed() {
    let graph = example("fan_out");
    let overlay = Overlay::trace(&failed_call(), None).unwrap();
    let svg = svg(&graph, Some("read_directory"), &overlay).unwrap();
    let list = tag(&svg, &["data-node=\"list\""]);
    assert!(list.contains("class=\"node mcp failed\""), "{list}");
    assert!(
        list.contains("error: cannot start downstream server `filesystem`"),
        "{list}"
    );
    assert!(list.contains("#1 +0.1 ms, 4.200 ms"), "{list}");
    let entry = tag(&svg, &["data-node=\"entry\""]);
    assert!(entry.contains("node entry ran"), "{entry}");
    assert!(entry.contains("output: {&#10;  &quot;directory&quot;: &quot;.&quot;&#10;}"));
    for node in ["each", "texts", "exit"] {
        assert!(tag(&svg, &[&format!("data-node=\"{node}\"")]).contains("not-run"));
    }
    assert!(tag(&svg, &["data-from=\"entry\""]).contains("taken"));
    assert!(!tag(&svg, &["data-from=\"list\""]).contains("taken"));
    // The other tool is drawn without the trace; the page says what failed.
    let page = html(&graph, None, &overlay).unwrap();
    assert!(!tag(&page, &["data-node=\"lookup\""]).contains("not-run"));
    assert!(page.contains("<span class=\"bad\">failed</span>"));
}

/// A test report: by default its first failed case is drawn; `--case`
/// chooses another; a case it does not have is an error naming its cases.
#[test]
fn a_test_report_gives_the_trace_of_a_case() {
    let mut failed = failed_call();
    failed["name"] = json!("reads a directory");
    failed["passed"] = json!(false);
    let report = json!({ "graph": "fan_out.yaml", "cases": [
        { "name": "asks", "tool": "overview", "passed": true, "trace": [
            { "index": 0, "node": "entry", "type": "entry", "startMs": 0.0, "durationMs": 0.0 }
        ] },
        failed,
    ] });
    let chosen = Overlay::trace(&report, None).unwrap();
    assert_eq!(chosen.trace.as_ref().unwrap().tool, "read_directory");
    let asks = Overlay::trace(&report, Some("asks")).unwrap();
    assert_eq!(asks.trace.as_ref().unwrap().tool, "overview");
    let err = Overlay::trace(&report, Some("nope"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no case `nope`; its cases: asks, reads a directory"),
        "{err}"
    );
    let err = Overlay::trace(&json!({ "tool": "t", "result": 1 }), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("call --trace --json"), "{err}");
    let graph = example("switch_example");
    let err = svg(&graph, None, &chosen).unwrap_err().to_string();
    assert!(
        err.contains("tool `read_directory`, which the graph does not have"),
        "{err}"
    );
}

/// Coverage: the nodes never run and the routes never taken (and the
/// `next` of a node never run) are `missed`; the rest are not.
#[test]
fn missed_coverage_is_marked() {
    let report = json!({ "coverage": { "percent": 60.0, "tools": [
        { "tool": "overview", "nodes": 4, "nodesReached": 3, "routes": 1, "routesTaken": 0, "missed": [
            { "line": 83, "what": "`lookup` never took its onError route to `unavailable`", "from": "lookup", "to": "unavailable", "label": "onError" },
            { "line": 87, "what": "transform node `unavailable` never ran", "node": "unavailable" }
        ] }
    ] } });
    let overlay = Overlay::default().coverage(&report).unwrap();
    let graph = example("fan_out");
    let svg = svg(&graph, Some("overview"), &overlay).unwrap();
    assert!(svg.contains("data-coverage=\"60.0\""));
    assert!(tag(&svg, &["data-node=\"unavailable\""]).contains("missed"));
    assert!(!tag(&svg, &["data-node=\"lookup\""]).contains("missed"));
    assert!(tag(&svg, &["data-from=\"lookup\" data-to=\"unavailable\""]).contains("missed"));
    assert!(tag(&svg, &["data-from=\"unavailable\" data-to=\"exit\""]).contains("missed"));
    assert!(!tag(&svg, &["data-from=\"lookup\" data-to=\"exit\""]).contains("missed"));
    let page = html(&graph, None, &overlay).unwrap();
    assert!(page.contains("coverage <strong>60.0%</strong>"), "{page}");
    let old = json!({ "coverage": { "tools": [
        { "tool": "overview", "missed": [{ "line": 87, "what": "never ran" }] }
    ] } });
    let err = Overlay::default().coverage(&old).unwrap_err().to_string();
    assert!(err.contains("names no node or route"), "{err}");
}

/// An unknown tool is an error that names the graph's tools.
#[test]
fn an_unknown_tool_names_the_tools() {
    let err = svg(&example("fan_out"), Some("nope"), &Overlay::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "the graph has no tool `nope`; its tools: read_directory, overview"
    );
}

/// The page needs nothing from elsewhere: no address, no external
/// script, style or font, and a policy that allows none.
#[test]
fn the_page_stands_alone() {
    let page = html(&example("fan_out"), None, &Overlay::default()).unwrap();
    // The SVG namespace is a name, not an address anything loads.
    let page = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for outside in [
        "http:",
        "https:",
        "src=",
        "href=\"/",
        "@import",
        "url(http",
        "@font-face",
    ] {
        assert!(!page.contains(outside), "the page has {outside}");
    }
    assert!(page.contains("default-src 'none'"));
}
