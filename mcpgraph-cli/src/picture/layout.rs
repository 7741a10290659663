//! Where each part of a tool's picture goes: every node's box (sized here
//! for its text and parts) and every edge's curve, from `layout-rs`
//! (ranks, crossing reduction, coordinates, Bézier curves, as Graphviz's
//! `dot` does).
//!
//! An edge with text goes through a box of its own, so that `layout-rs`
//! makes room for the text and its curve passes it. The positions are
//! read back through a [`RenderBackend`] that only records what it is told
//! to draw, by the property each element and arrow was given; the SVG
//! itself is `draw`'s.

use std::collections::HashMap;

use layout::adt::dag::NodeHandle;
use layout::core::base::Orientation;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;

use super::scene::{Kind, Scene};

/// The width of a character of the pictures' monospace text (12 px).
pub(super) const CHAR: f64 = 7.3;
/// A line of text.
pub(super) const LINE: f64 = 16.0;
/// The width of a character of an edge's text (11 px).
pub(super) const LABEL_CHAR: f64 = 6.7;
/// A part's row in a group.
pub(super) const PART: f64 = 24.0;
/// Room around the picture.
const MARGIN: f64 = 16.0;

/// A box: its top-left corner and size.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Rect {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) w: f64,
    pub(super) h: f64,
}

/// One curve of an edge, as SVG path data, with where its arrowheads are.
#[derive(Debug)]
pub(super) struct Curve {
    pub(super) d: String,
    pub(super) head_start: bool,
    pub(super) head_end: bool,
}

/// An edge placed: its curves (two when it has a text box between them)
/// and its text's box.
#[derive(Debug, Default)]
pub(super) struct PlacedEdge {
    pub(super) curves: Vec<Curve>,
    pub(super) label: Option<Rect>,
}

/// A tool's picture placed: a box per shape and per edge, in the scene's
/// order, in a picture of `width` × `height`.
#[derive(Debug)]
pub(super) struct Placed {
    pub(super) shapes: Vec<Rect>,
    pub(super) edges: Vec<PlacedEdge>,
    pub(super) width: f64,
    pub(super) height: f64,
}

/// Places `scene`; `None` if `layout-rs` failed (panicked) on it.
pub(super) fn place(scene: &Scene) -> Option<Placed> {
    // layout-rs asserts its invariants; a failure there must not take
    // down the authoring server that draws pictures for a client.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| recorded(scene)))
        .ok()
        .map(|recorder| arrange(scene, &recorder))
}

/// The size of a shape: wide enough for its longest line, tall enough for
/// its lines and parts.
pub(super) fn size(shape: &super::scene::Shape) -> (f64, f64) {
    let longest = std::iter::once(shape.id.chars().count())
        .chain(shape.detail.iter().map(|l| l.chars().count()))
        .chain(shape.parts.iter().map(|p| part_text(p).chars().count() + 2))
        .max()
        .unwrap_or(1) as f64;
    let lines = 1.0 + shape.detail.len() as f64;
    let text_w = longest * CHAR;
    match shape.kind {
        Kind::Switch => (text_w * 1.6 + 48.0, (lines * LINE + 16.0) * 1.8),
        Kind::Entry | Kind::Exit => (text_w + 44.0, lines * LINE + 16.0),
        Kind::Elicit => (text_w + 48.0, lines * LINE + 16.0),
        Kind::Parallel | Kind::ForEach => (
            text_w + 40.0,
            lines * LINE + 16.0 + shape.parts.len() as f64 * (PART + 6.0) + 6.0,
        ),
        Kind::Mcp | Kind::Transform => (text_w + 28.0, lines * LINE + 16.0),
    }
}

/// A part's one line.
pub(super) fn part_text(part: &super::scene::Part) -> String {
    format!("{}: {}", part.name, part.call)
}

/// What `layout-rs` was told to draw, by the property of each shape (`n3`,
/// a node; `l3`, an edge's text) and arrow (`e3.0`, `e3.1`).
#[derive(Default)]
struct Recorder {
    boxes: HashMap<String, Rect>,
    arrows: HashMap<String, Recorded>,
}

/// An arrow as `layout-rs` draws it: its curve (a point and a control
/// point per step) and whether it has a head at its start and its end.
struct Recorded {
    path: Vec<(Point, Point)>,
    heads: (bool, bool),
}

impl RenderBackend for Recorder {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        _look: &StyleAttr,
        properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        if let Some(key) = properties {
            self.boxes.insert(
                key,
                Rect {
                    x: xy.x,
                    y: xy.y,
                    w: size.x,
                    h: size.y,
                },
            );
        }
    }

    fn draw_line(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_circle(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_text(&mut self, _: Point, _: &str, _: &StyleAttr) {}

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        _dashed: bool,
        head: (bool, bool),
        _look: &StyleAttr,
        properties: Option<String>,
        _text: &str,
    ) {
        if let Some(key) = properties {
            self.arrows.insert(
                key,
                Recorded {
                    path: path.to_vec(),
                    heads: head,
                },
            );
        }
    }

    fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
        0
    }
}

/// Runs `layout-rs` on `scene` (top to bottom) and records what it drew.
fn recorded(scene: &Scene) -> Recorder {
    let down = Orientation::TopToBottom;
    let mut graph = VisualGraph::new(down);
    let look = StyleAttr::simple();
    for (i, shape) in scene.shapes.iter().enumerate() {
        let (w, h) = size(shape);
        graph.add_node(Element::create_with_properties(
            ShapeKind::Box(String::new()),
            look.clone(),
            down,
            Point::new(w, h),
            format!("n{i}"),
        ));
    }
    let arrow = |key: String, head: bool| {
        let end = if head {
            LineEndKind::Arrow
        } else {
            LineEndKind::None
        };
        let mut arrow = Arrow::new(
            LineEndKind::None,
            end,
            LineStyleKind::Normal,
            "",
            &look,
            &None,
            &None,
        );
        arrow.properties = Some(key);
        arrow
    };
    let mut edges = Vec::new();
    for (k, edge) in scene.edges.iter().enumerate() {
        if edge.text.is_empty() {
            edges.push((edge.from, edge.to, arrow(format!("e{k}.0"), true)));
        } else {
            let w = edge.text.chars().count() as f64 * LABEL_CHAR + 12.0;
            let label = graph
                .add_node(Element::create_with_properties(
                    ShapeKind::Box(String::new()),
                    look.clone(),
                    down,
                    Point::new(w, 18.0),
                    format!("l{k}"),
                ))
                .get_index();
            edges.push((edge.from, label, arrow(format!("e{k}.0"), false)));
            edges.push((label, edge.to, arrow(format!("e{k}.1"), true)));
        }
    }
    // layout-rs checks each edge it is given for a cycle, and its DAG
    // after each, by searching every path: exponential in a chain of
    // switches (a tool of tests/graphs/switch_semantics.yaml took minutes).
    // Given the edges already acyclic, sources in topological order, with
    // its checks off, each search ends at once.
    graph.dag.set_validate(false);
    for (from, to, arrow) in acyclic(graph.num_nodes(), edges) {
        graph.add_edge(arrow, NodeHandle::from(from), NodeHandle::from(to));
    }
    let mut recorder = Recorder::default();
    graph.do_it(false, false, false, &mut recorder);
    recorder
}

/// `edges` among `n` nodes with those that close a loop (back edges of a
/// depth-first search from node 0, then from each node not yet seen)
/// reversed, as layout-rs would reverse them, sorted by their source's
/// place in a topological order.
fn acyclic(n: usize, edges: Vec<(usize, usize, Arrow)>) -> Vec<(usize, usize, Arrow)> {
    let pairs: Vec<(usize, usize)> = edges.iter().map(|(from, to, _)| (*from, *to)).collect();
    let back = mcpgraph_codegen::mermaid::loop_edges(n, None, &pairs);
    let mut forward: Vec<(usize, usize, Arrow)> = edges
        .into_iter()
        .zip(back)
        .map(|((from, to, arrow), back)| {
            if back {
                (to, from, arrow.reverse())
            } else {
                (from, to, arrow)
            }
        })
        .collect();
    // Kahn's order; a self-loop (never reversed) does not hold its node back.
    let mut incoming = vec![0usize; n];
    for (from, to, _) in &forward {
        if from != to {
            incoming[*to] += 1;
        }
    }
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (from, to, _) in &forward {
        if from != to {
            successors[*from].push(*to);
        }
    }
    let mut ready: Vec<usize> = (0..n).rev().filter(|&i| incoming[i] == 0).collect();
    let mut place = vec![usize::MAX; n];
    let mut next = 0;
    while let Some(node) = ready.pop() {
        place[node] = next;
        next += 1;
        for &to in successors[node].iter().rev() {
            incoming[to] -= 1;
            if incoming[to] == 0 {
                ready.push(to);
            }
        }
    }
    forward.sort_by_key(|(from, _, _)| place[*from]);
    forward
}

/// The recorded boxes and curves, moved so that the picture starts at
/// (`MARGIN`, `MARGIN`).
fn arrange(scene: &Scene, recorder: &Recorder) -> Placed {
    let mut min = (f64::INFINITY, f64::INFINITY);
    let mut max = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let mut grow = |x: f64, y: f64| {
        min = (min.0.min(x), min.1.min(y));
        max = (max.0.max(x), max.1.max(y));
    };
    for r in recorder.boxes.values() {
        grow(r.x, r.y);
        grow(r.x + r.w, r.y + r.h);
    }
    for arrow in recorder.arrows.values() {
        for (a, b) in &arrow.path {
            grow(a.x, a.y);
            grow(b.x, b.y);
        }
    }
    if !min.0.is_finite() {
        min = (0.0, 0.0);
        max = (0.0, 0.0);
    }
    let dx = MARGIN - min.0;
    let dy = MARGIN - min.1;
    let moved = |r: Rect| Rect {
        x: r.x + dx,
        y: r.y + dy,
        ..r
    };
    let curve = |key: String| {
        recorder.arrows.get(&key).map(|arrow| Curve {
            d: path_data(&arrow.path, dx, dy),
            head_start: arrow.heads.0,
            head_end: arrow.heads.1,
        })
    };
    Placed {
        shapes: (0..scene.shapes.len())
            .map(|i| {
                recorder
                    .boxes
                    .get(&format!("n{i}"))
                    .copied()
                    .map(moved)
                    .unwrap_or_default()
            })
            .collect(),
        edges: (0..scene.edges.len())
            .map(|k| PlacedEdge {
                curves: [curve(format!("e{k}.0")), curve(format!("e{k}.1"))]
                    .into_iter()
                    .flatten()
                    .collect(),
                label: recorder.boxes.get(&format!("l{k}")).copied().map(moved),
            })
            .collect(),
        width: max.0 - min.0 + 2.0 * MARGIN,
        height: max.1 - min.1 + 2.0 * MARGIN,
    }
}

/// SVG path data for `layout-rs`'s curve: the first point and its exit
/// control, then each point with its entry control (a cubic Bézier, then
/// smooth ones), moved by (`dx`, `dy`).
fn path_data(path: &[(Point, Point)], dx: f64, dy: f64) -> String {
    let p = |q: Point| format!("{:.1} {:.1}", q.x + dx, q.y + dy);
    let mut d = String::new();
    if let [(start, exit), (entry, end), rest @ ..] = path {
        d = format!("M {} C {}, {}, {}", p(*start), p(*exit), p(*entry), p(*end));
        for (entry, end) in rest {
            d.push_str(&format!(" S {}, {}", p(*entry), p(*end)));
        }
    }
    d
}
