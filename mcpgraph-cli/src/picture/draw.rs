//! A tool's picture as SVG: each node a `<g data-node="ID">` drawn for its
//! kind, each edge a `<g data-from data-to>` with its text, and the
//! overlay's marks as classes (`ran`, `failed`, `not-run`, `taken`,
//! `missed`) with what a node did in its `<title>`. How the classes look
//! is [`STYLE`]'s.

use std::fmt::Write as _;

use serde_json::Value;

use super::layout::{LINE, PART, Placed, Rect, part_text};
use super::overlay::{ToolCoverage, Trace};
use super::scene::{Kind, Route, Scene};

/// The pictures' CSS: node kinds, edge kinds, and the overlay's marks.
pub(super) const STYLE: &str = r#"
svg.mcpgraph { background: #fff; }
svg.mcpgraph text { font: 12px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; fill: #1a1a1a; }
svg.mcpgraph .node .id { font-weight: bold; }
svg.mcpgraph .shape { fill: #fff; stroke: #37474f; stroke-width: 1.5; }
svg.mcpgraph .entry .shape, svg.mcpgraph .exit .shape { fill: #e8f5e9; stroke: #2e7d32; }
svg.mcpgraph .exit .shape { fill: #eceff1; stroke: #263238; stroke-width: 2.5; }
svg.mcpgraph .mcp .shape { fill: #e3f2fd; stroke: #1565c0; }
svg.mcpgraph .transform .shape { fill: #fffde7; stroke: #9e9d24; }
svg.mcpgraph .switch .shape { fill: #fff3e0; stroke: #ef6c00; }
svg.mcpgraph .elicit .shape { fill: #f3e5f5; stroke: #6a1b9a; }
svg.mcpgraph .parallel > .shape, svg.mcpgraph .forEach > .shape { fill: #f5f5f5; stroke: #455a64; stroke-dasharray: 6 3; }
svg.mcpgraph .part .shape { fill: #e3f2fd; stroke: #1565c0; }
svg.mcpgraph .edge path { fill: none; stroke: #607d8b; stroke-width: 1.5; }
svg.mcpgraph .edge.on-error path { stroke: #e65100; stroke-dasharray: 7 4; }
svg.mcpgraph .edge-label rect { fill: #fff; stroke: none; opacity: .9; }
svg.mcpgraph .edge-label text { font-size: 11px; fill: #37474f; }
svg.mcpgraph .edge.on-error .edge-label text { fill: #e65100; }
/* A trace's marks win over coverage's: they are of the call shown. */
svg.mcpgraph .node.missed > .shape { fill: #fdf4ff; stroke: #c026d3; stroke-width: 3; stroke-dasharray: 5 3; }
svg.mcpgraph .edge.missed path { stroke: #c026d3; stroke-width: 2.5; stroke-dasharray: 5 3; }
svg.mcpgraph .edge.missed .edge-label text { fill: #a21caf; font-weight: bold; }
svg.mcpgraph .node.ran > .shape, svg.mcpgraph .part.ran .shape { stroke: #1769e0; stroke-width: 3; }
svg.mcpgraph .edge.taken path { stroke: #1769e0; stroke-width: 3.5; stroke-dasharray: none; }
svg.mcpgraph .node.failed > .shape, svg.mcpgraph .part.failed .shape { fill: #ffebee; stroke: #d50000; stroke-width: 4; stroke-dasharray: none; }
svg.mcpgraph .node.failed .id { fill: #b71c1c; }
svg.mcpgraph .not-run { opacity: .35; }
svg.mcpgraph marker path { fill: #607d8b; }
svg.mcpgraph marker.taken path { fill: #1769e0; }
svg.mcpgraph marker.missed path { fill: #c026d3; }
"#;

/// What to draw over one tool: its trace (if the trace is of this tool)
/// and its coverage.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Marks<'a> {
    pub(super) trace: Option<&'a Trace>,
    pub(super) coverage: Option<&'a ToolCoverage>,
}

/// The SVG of `scene` placed as `placed`; `number` tells its markers from
/// those of other pictures on the same page; `style`: with [`STYLE`]
/// inside (a file of its own).
pub(super) fn svg(
    scene: &Scene,
    placed: &Placed,
    marks: Marks<'_>,
    number: usize,
    style: bool,
) -> String {
    let mut out = String::new();
    let coverage = marks
        .coverage
        .map(|c| format!(" data-coverage=\"{:.1}\"", c.percent))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mcpgraph\" data-tool=\"{}\"{coverage} width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"tool {}\">",
        xml(&scene.tool),
        xml(&scene.tool),
        w = placed.width,
        h = placed.height,
    );
    if style {
        let _ = writeln!(out, "<style>{STYLE}</style>");
    }
    out.push_str("<defs>");
    for class in ["plain", "taken", "missed"] {
        let _ = write!(
            out,
            "<marker id=\"mg{number}-{class}\" class=\"{class}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"11\" markerHeight=\"11\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\"/></marker>"
        );
    }
    out.push_str("</defs>\n<g class=\"edges\">\n");
    for (edge, at) in scene.edges.iter().zip(&placed.edges) {
        let from = &scene.shapes[edge.from].id;
        let to = &scene.shapes[edge.to].id;
        let taken = marks.trace.is_some_and(|t| t.took(from, to));
        let missed = marks.coverage.is_some_and(|c| {
            c.routes
                .contains(&(from.clone(), to.clone(), edge.label.clone()))
                || (edge.route == Route::Next && c.nodes.contains(from))
        });
        let mut class = format!("edge {}", edge.route.class());
        let marker = if taken {
            class.push_str(" taken");
            "taken"
        } else if missed {
            class.push_str(" missed");
            "missed"
        } else {
            "plain"
        };
        let label = if edge.label.is_empty() {
            String::new()
        } else {
            format!(" data-route=\"{}\"", xml(&edge.label))
        };
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-from=\"{}\" data-to=\"{}\"{label}><title>{}</title>",
            xml(from),
            xml(to),
            xml(&edge_title(
                from,
                to,
                &edge.label,
                &edge.text,
                taken,
                missed
            )),
        );
        for curve in &at.curves {
            let url = format!("url(#mg{number}-{marker})");
            let _ = writeln!(
                out,
                "<path d=\"{}\"{}{}/>",
                curve.d,
                if curve.head_start {
                    format!(" marker-start=\"{url}\"")
                } else {
                    String::new()
                },
                if curve.head_end {
                    format!(" marker-end=\"{url}\"")
                } else {
                    String::new()
                },
            );
        }
        if let Some(r) = at.label {
            let _ = writeln!(
                out,
                "<g class=\"edge-label\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text></g>",
                r.x,
                r.y,
                r.w,
                r.h,
                r.x + r.w / 2.0,
                r.y + r.h / 2.0,
                xml(&edge.text)
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</g>\n<g class=\"nodes\">\n");
    for (shape, r) in scene.shapes.iter().zip(&placed.shapes) {
        let mut class = format!("node {}", shape.kind.as_str());
        let mut tip = format!("{} ({})", shape.id, shape.kind.as_str());
        for line in &shape.detail {
            let _ = write!(tip, "\n{line}");
        }
        if let Some(trace) = marks.trace {
            let runs: Vec<_> = trace.runs(&shape.id).collect();
            if runs.is_empty() {
                class.push_str(" not-run");
                tip.push_str("\nnot run");
            } else {
                class.push_str(if runs.iter().any(|r| r.error.is_some()) {
                    " failed"
                } else {
                    " ran"
                });
            }
            for run in runs.iter().take(5) {
                let _ = write!(tip, "\n{}", run_text(run));
            }
            if runs.len() > 5 {
                let _ = write!(tip, "\n… {} more runs", runs.len() - 5);
            }
        }
        if marks.coverage.is_some_and(|c| c.nodes.contains(&shape.id)) {
            class.push_str(" missed");
            tip.push_str("\nnever run by the test cases");
        }
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-node=\"{}\" data-type=\"{}\"><title>{}</title>",
            xml(&shape.id),
            shape.kind.as_str(),
            xml(&tip)
        );
        outline(&mut out, shape.kind, *r);
        let grouped = !shape.parts.is_empty();
        let lines = std::iter::once(&shape.id).chain(&shape.detail);
        let top = if grouped {
            r.y + 8.0
        } else {
            r.y + (r.h - (1.0 + shape.detail.len() as f64) * LINE) / 2.0
        };
        for (i, line) in lines.enumerate() {
            let _ = writeln!(
                out,
                "<text{} x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text>",
                if i == 0 { " class=\"id\"" } else { "" },
                r.x + r.w / 2.0,
                top + (i as f64 + 0.5) * LINE,
                xml(line)
            );
        }
        let mut y = top + (1.0 + shape.detail.len() as f64) * LINE + 8.0;
        for part in &shape.parts {
            let part_name = (shape.kind == Kind::Parallel).then_some(part.name.as_str());
            let mut part_class = String::from("part");
            let mut part_tip = part_text(part);
            if let Some(trace) = marks.trace {
                let calls: Vec<_> = trace.parts(&shape.id, part_name).collect();
                if calls.iter().any(|c| c.error.is_some()) {
                    part_class.push_str(" failed");
                } else if !calls.is_empty() {
                    part_class.push_str(" ran");
                }
                for call in calls.iter().take(5) {
                    let _ = write!(part_tip, "\n{}", run_text(call));
                }
                if calls.len() > 5 {
                    let _ = write!(part_tip, "\n… {} more calls", calls.len() - 5);
                }
            }
            let _ = writeln!(
                out,
                "<g class=\"{part_class}\" data-part=\"{}\"><title>{}</title><rect class=\"shape\" x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{PART:.1}\" rx=\"3\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text></g>",
                xml(&part.name),
                xml(&part_tip),
                r.x + 10.0,
                r.w - 20.0,
                r.x + r.w / 2.0,
                y + PART / 2.0,
                xml(&part_text(part)),
            );
            y += PART + 6.0;
        }
        out.push_str("</g>\n");
    }
    out.push_str("</g>\n</svg>\n");
    out
}

/// The node's outline, for its kind.
fn outline(out: &mut String, kind: Kind, r: Rect) {
    let Rect { x, y, w, h } = r;
    let _ = match kind {
        Kind::Entry | Kind::Exit => writeln!(
            out,
            "<rect class=\"shape\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"{:.1}\"/>",
            h / 2.0
        ),
        Kind::Mcp => writeln!(
            out,
            "<rect class=\"shape\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\"/><path class=\"shape\" d=\"M {a:.1} {y:.1} V {b:.1} M {c:.1} {y:.1} V {b:.1}\"/>",
            a = x + 7.0,
            b = y + h,
            c = x + w - 7.0,
        ),
        Kind::Transform => writeln!(
            out,
            "<rect class=\"shape\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"5\"/>"
        ),
        Kind::Switch => writeln!(
            out,
            "<polygon class=\"shape\" points=\"{:.1},{y:.1} {:.1},{:.1} {:.1},{:.1} {x:.1},{:.1}\"/>",
            x + w / 2.0,
            x + w,
            y + h / 2.0,
            x + w / 2.0,
            y + h,
            y + h / 2.0,
        ),
        Kind::Elicit => writeln!(
            out,
            "<polygon class=\"shape\" points=\"{:.1},{y:.1} {:.1},{y:.1} {:.1},{:.1} {x:.1},{:.1}\"/>",
            x + 14.0,
            x + w,
            x + w - 14.0,
            y + h,
            y + h,
        ),
        Kind::ForEach => writeln!(
            out,
            "<rect class=\"shape\" x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\"/><rect class=\"shape\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\"/>",
            x + 5.0,
            y - 5.0,
        ),
        Kind::Parallel => writeln!(
            out,
            "<rect class=\"shape\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\"/>"
        ),
    };
}

/// One run of a node (or call of a part) for its tooltip: number, start,
/// time, then the output or error.
fn run_text(run: &super::overlay::Record) -> String {
    let part = run
        .part
        .as_ref()
        .map(|p| format!(" [{p}]"))
        .unwrap_or_default();
    let what = match (&run.error, &run.output) {
        (Some(e), _) => format!("error: {}", cut(e, 600)),
        (None, Some(output)) => format!("output: {}", cut(&pretty(output), 600)),
        (None, None) => "(no output)".to_owned(),
    };
    format!(
        "#{}{part} +{:.1} ms, {:.3} ms\n{what}",
        run.index, run.start_ms, run.duration_ms
    )
}

fn edge_title(from: &str, to: &str, label: &str, text: &str, taken: bool, missed: bool) -> String {
    let mut title = format!("{from} → {to}");
    if !label.is_empty() {
        let _ = write!(title, " ({label})");
    }
    if !text.is_empty() && text != label {
        let _ = write!(title, "\n{text}");
    }
    if taken {
        title.push_str("\ntaken by the call");
    }
    if missed {
        title.push_str("\nnever taken by the test cases");
    }
    title
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// `text`, at most `max` characters.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() > max {
        text.chars().take(max - 1).collect::<String>() + "…"
    } else {
        text.to_owned()
    }
}

/// Text for XML content and attribute values, on one line.
pub(super) fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Kept in attributes too, and each element on one line.
            '\n' => out.push_str("&#10;"),
            '\t' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
