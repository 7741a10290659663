//! A graph's tools as pictures (`mcpgraph graph --svg`, `--html`, and the
//! authoring server's `draw_graph`): [`svg`] draws one tool, or every
//! tool one under another; [`html`] makes a page of them that needs
//! nothing else (inline CSS and script, no network). An [`Overlay`] draws
//! a call's trace (the path it took, each node's time and output on hover,
//! failed nodes in red, nodes not run dimmed) and a test run's coverage
//! (nodes never run and routes never taken) on them.
//!
//! `scene` says what a tool's picture shows, `layout` where it goes (with
//! `layout-rs`), `draw` writes its SVG, `overlay` reads the trace and
//! coverage JSON. The graph is assumed valid (`load_str`).

mod draw;
mod layout;
mod overlay;
mod scene;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use mcpgraph_codegen::model::{GraphFile, Tool};

pub(crate) use overlay::Overlay;

use crate::error::CliError;
use draw::{Marks, xml};
use scene::Scene;

/// The SVG picture of the tool named `tool` of `graph`, or of every tool
/// (one under another), with `overlay` drawn on it.
pub(crate) fn svg(
    graph: &GraphFile,
    tool: Option<&str>,
    overlay: &Overlay,
) -> Result<String, CliError> {
    let pictures = pictures(graph, tool, overlay)?;
    if let [(_, one)] = pictures.as_slice() {
        return Ok(one.svg(0, true));
    }
    // Several: each picture nested in one, under its tool's name.
    let width = pictures
        .iter()
        .map(|(_, p)| p.placed.width)
        .fold(0.0, f64::max);
    let mut body = String::new();
    let mut y = 0.0;
    for (i, (_, picture)) in pictures.iter().enumerate() {
        let _ = writeln!(
            body,
            "<text class=\"tool-name\" x=\"16\" y=\"{:.1}\" font-weight=\"bold\">tool {}</text>\n<g transform=\"translate(0 {:.1})\">{}</g>",
            y + 20.0,
            xml(&picture.scene.tool),
            y + 28.0,
            picture.svg(i, false)
        );
        y += picture.placed.height + 36.0;
    }
    Ok(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mcpgraph-tools\" width=\"{width:.0}\" height=\"{y:.0}\" viewBox=\"0 0 {width:.0} {y:.0}\">\n<style>{}</style>\n{body}</svg>\n",
        draw::STYLE
    ))
}

/// A self-contained HTML page of the tool named `tool` of `graph`, or of
/// every tool, with `overlay` drawn on them and explained above them.
pub(crate) fn html(
    graph: &GraphFile,
    tool: Option<&str>,
    overlay: &Overlay,
) -> Result<String, CliError> {
    let pictures = pictures(graph, tool, overlay)?;
    let server = &graph.server;
    let title = server
        .title
        .as_ref()
        .map_or(server.name.value.as_str(), |t| t.value.as_str());
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{} — mcpgraph</title>\n<style>{PAGE}{}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n<p class=\"server\">server <code>{}</code> {} · {} tool{}</p>\n",
        xml(title),
        draw::STYLE,
        xml(title),
        xml(&server.name.value),
        xml(&server.version.value),
        graph.tools.len(),
        if graph.tools.len() == 1 { "" } else { "s" },
    );
    if let Some(trace) = &overlay.trace {
        let outcome = match &trace.error {
            Some(e) => format!("<span class=\"bad\">failed</span>: <code>{}</code>", xml(e)),
            None => "<span class=\"good\">succeeded</span>".to_owned(),
        };
        let _ = writeln!(
            out,
            "<p class=\"trace\">trace: {} of tool <a href=\"#tool-{}\"><code>{}</code></a> {outcome} ({} node runs)</p>",
            xml(&trace.source),
            xml(&trace.tool),
            xml(&trace.tool),
            trace.records.iter().filter(|r| r.part.is_none()).count(),
        );
    }
    out.push_str(LEGEND);
    out.push_str("</header>\n<main>\n");
    for (i, (tool, picture)) in pictures.iter().enumerate() {
        let _ = writeln!(
            out,
            "<section class=\"tool\" id=\"tool-{}\" data-tool=\"{}\">\n<h2>{}</h2>\n<p class=\"description\">{}</p>",
            xml(&tool.name.value),
            xml(&tool.name.value),
            xml(&tool.name.value),
            xml(&tool.description),
        );
        if let Some(coverage) = picture.marks.coverage {
            let missed = coverage.nodes.len() + coverage.routes.len();
            let _ = writeln!(
                out,
                "<p class=\"coverage\">coverage <strong>{:.1}%</strong>{}</p>",
                coverage.percent,
                if missed == 0 {
                    String::new()
                } else {
                    format!(
                        " · <span class=\"missed-count\">{} node{} never run, {} route{} never taken</span>",
                        coverage.nodes.len(),
                        if coverage.nodes.len() == 1 { "" } else { "s" },
                        coverage.routes.len(),
                        if coverage.routes.len() == 1 { "" } else { "s" },
                    )
                }
            );
        } else if overlay.coverage.is_some() {
            out.push_str("<p class=\"coverage\">no coverage for this tool</p>\n");
        }
        let _ = writeln!(
            out,
            "<div class=\"picture\">{}</div>\n</section>",
            picture.svg(i, false)
        );
    }
    out.push_str("</main>\n<div id=\"tip\" hidden></div>\n<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    Ok(out)
}

/// One tool's picture, placed and marked.
struct Picture<'a> {
    scene: Scene,
    placed: layout::Placed,
    marks: Marks<'a>,
}

impl Picture<'_> {
    /// Its SVG; `number` tells its markers from those of the other
    /// pictures of a page; `style`: with the CSS inside.
    fn svg(&self, number: usize, style: bool) -> String {
        draw::svg(&self.scene, &self.placed, self.marks, number, style)
    }
}

/// The tools asked for, each with its picture.
fn pictures<'a>(
    graph: &'a GraphFile,
    tool: Option<&str>,
    overlay: &'a Overlay,
) -> Result<Vec<(&'a Tool, Picture<'a>)>, CliError> {
    let tools: Vec<&Tool> = match tool {
        Some(name) => match graph.tools.iter().find(|t| t.name.value == name) {
            Some(t) => vec![t],
            None => {
                return Err(CliError::Usage(format!(
                    "the graph has no tool `{name}`; its tools: {}",
                    tool_names(graph)
                )));
            }
        },
        None => graph.tools.iter().collect(),
    };
    if let Some(trace) = &overlay.trace
        && !graph.tools.iter().any(|t| t.name.value == trace.tool)
    {
        return Err(CliError::Overlay {
            what: "trace",
            why: format!(
                "it is a call of tool `{}`, which the graph does not have (its tools: {})",
                trace.tool,
                tool_names(graph)
            ),
        });
    }
    tools
        .into_iter()
        .map(|tool| {
            let scene = Scene::of(tool);
            let placed = layout::place(&scene).ok_or_else(|| {
                CliError::Internal(format!("the layout of tool `{}` failed", scene.tool).into())
            })?;
            let name = tool.name.value.as_str();
            let marks = Marks {
                trace: overlay.trace.as_ref().filter(|t| t.tool == name),
                coverage: overlay.coverage.as_ref().and_then(|c| c.tools.get(name)),
            };
            Ok((
                tool,
                Picture {
                    scene,
                    placed,
                    marks,
                },
            ))
        })
        .collect()
}

fn tool_names(graph: &GraphFile) -> String {
    graph
        .tools
        .iter()
        .map(|t| t.name.value.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The page's own CSS (the pictures' is [`draw::STYLE`]).
const PAGE: &str = r#"
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1a1a1a; background: #f6f7f9; }
header { padding: 16px 24px 8px; background: #fff; border-bottom: 1px solid #dde1e6; }
h1 { margin: 0 0 4px; font-size: 20px; }
h2 { margin: 0 0 2px; font-size: 17px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
header p { margin: 2px 0; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; background: #f0f2f5; padding: 0 3px; border-radius: 3px; }
.bad { color: #d50000; font-weight: bold; }
.good { color: #2e7d32; font-weight: bold; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 8px 0 4px; padding: 0; list-style: none; font-size: 12px; color: #455a64; }
.legend span { display: inline-block; width: 14px; height: 10px; margin-right: 4px; vertical-align: middle; border: 2px solid; border-radius: 2px; }
main { padding: 12px 24px 32px; }
section.tool { margin: 0 0 20px; padding: 12px 16px; background: #fff; border: 1px solid #dde1e6; border-radius: 6px; }
.description { margin: 0 0 4px; color: #455a64; }
.coverage { margin: 0 0 6px; }
.missed-count { color: #a21caf; }
.picture { overflow-x: auto; }
#tip { position: fixed; z-index: 10; max-width: 560px; max-height: 60vh; overflow: hidden; padding: 6px 9px; background: #263238; color: #fff; border-radius: 4px; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; white-space: pre-wrap; pointer-events: none; box-shadow: 0 2px 8px rgba(0,0,0,.3); }
"#;

/// What the marks mean.
const LEGEND: &str = r#"<ul class="legend">
<li><span style="border-color:#1565c0;background:#e3f2fd"></span>mcp call</li>
<li><span style="border-color:#9e9d24;background:#fffde7"></span>transform</li>
<li><span style="border-color:#ef6c00;background:#fff3e0"></span>switch</li>
<li><span style="border-color:#6a1b9a;background:#f3e5f5"></span>elicit</li>
<li><span style="border-color:#455a64;border-style:dashed"></span>parallel / forEach</li>
<li><span style="border-color:#e65100;border-style:dashed;height:0"></span>onError route</li>
<li><span style="border-color:#1769e0"></span>ran (trace)</li>
<li><span style="border-color:#d50000;background:#ffebee"></span>failed (trace)</li>
<li><span style="border-color:#c026d3;border-style:dashed"></span>never run / taken (coverage)</li>
</ul>
"#;

/// The tooltip: a node's, a part's or an edge's `<title>`, beside the
/// pointer.
const SCRIPT: &str = r#"
(function () {
  var tip = document.getElementById('tip');
  function target(e) { return e.target.closest ? e.target.closest('.part, .node, .edge') : null; }
  document.addEventListener('mousemove', function (e) {
    var t = target(e);
    var title = t && t.querySelector(':scope > title');
    if (!title) { tip.hidden = true; return; }
    tip.textContent = title.textContent;
    tip.hidden = false;
    var x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > innerWidth) x = Math.max(0, e.clientX - tip.offsetWidth - 14);
    if (y + tip.offsetHeight > innerHeight) y = Math.max(0, e.clientY - tip.offsetHeight - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });
})();
"#;
