//! Results: rows of figures for the three peers, the markdown table and the
//! SVG chart.

use std::fmt::Write as _;

/// Whether a smaller or a larger value is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
}

/// One peer's figure.
#[derive(Clone, Debug)]
pub enum Cell {
    Value(f64),
    /// A figure that is not a number (a failure, "n/a").
    Text(String),
}

impl Cell {
    pub fn na() -> Self {
        Cell::Text("n/a".to_owned())
    }

    fn value(&self) -> Option<f64> {
        match self {
            Cell::Value(v) if v.is_finite() => Some(*v),
            _ => None,
        }
    }
}

/// One line of the table.
#[derive(Clone, Debug)]
pub struct Row {
    pub section: &'static str,
    pub workload: String,
    pub figure: String,
    /// `µs`, `ms`, `s`, `calls/s`, `MiB`, `MB`, `ns`.
    pub unit: &'static str,
    pub better: Better,
    pub ours: Cell,
    pub hand: Cell,
    pub mcpgraph: Cell,
    /// A peer of this row only (the physical limit, mcp-proxy): its name
    /// and figure.
    pub other: Option<(&'static str, Cell)>,
    /// The same graph server built from an earlier commit
    /// (`MCPGRAPH_BENCH_BASELINE`), when the run has one.
    pub baseline: Option<Cell>,
}

impl Row {
    /// How many times better ours is than `peer` (peer ÷ ours for costs,
    /// ours ÷ peer for throughput); `None` when either is not a number.
    pub fn ratio(&self, peer: &Cell) -> Option<f64> {
        let (ours, peer) = (self.ours.value()?, peer.value()?);
        if ours <= 0.0 || peer <= 0.0 {
            return None;
        }
        Some(match self.better {
            Better::Lower => peer / ours,
            Better::Higher => ours / peer,
        })
    }
}

/// Three significant digits, no exponent.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1000.0 {
        let s = format!("{:.0}", v);
        // Thousands separators for readability.
        let (sign, digits) = s.strip_prefix('-').map_or(("", s.as_str()), |d| ("-", d));
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        format!("{sign}{out}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn fmt_cell(cell: &Cell, unit: &str) -> String {
    match cell {
        Cell::Value(v) => format!("{} {unit}", fmt_num(*v)),
        Cell::Text(t) => t.clone(),
    }
}

fn fmt_ratio(r: Option<f64>) -> String {
    match r {
        Some(r) if r >= 10.0 => format!("**{}×**", fmt_num(r)),
        Some(r) => format!("{}×", fmt_num(r)),
        None => "—".to_owned(),
    }
}

/// The markdown table; with rows that have a peer of their own, three more
/// columns: its name, its figure and how many times better ours is; with a
/// baseline peer in the run, two more: its figure and how many times
/// better ours is than it.
pub fn table(rows: &[Row]) -> String {
    let with_other = rows.iter().any(|r| r.other.is_some());
    let with_baseline = rows.iter().any(|r| r.baseline.is_some());
    let mut out = String::new();
    let mut rule = "|---|---|---|---:|---:|---:|---:|---:|".to_owned();
    out.push_str(
        "| section | workload | figure | ours (generated) | hand-written rmcp | ours vs hand-written | mcpGraph 0.1.23 | ours vs mcpGraph |",
    );
    if with_other {
        out.push_str(" other peer | its figure | ours vs it |");
        rule.push_str("---|---:|---:|");
    }
    if with_baseline {
        out.push_str(" baseline (before) | ours vs baseline |");
        rule.push_str("---:|---:|");
    }
    let _ = write!(out, "\n{rule}\n");
    for row in rows {
        let _ = write!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            row.section,
            row.workload,
            row.figure,
            fmt_cell(&row.ours, row.unit),
            fmt_cell(&row.hand, row.unit),
            fmt_ratio(row.ratio(&row.hand)),
            fmt_cell(&row.mcpgraph, row.unit),
            fmt_ratio(row.ratio(&row.mcpgraph)),
        );
        if with_other {
            match &row.other {
                Some((peer, cell)) => {
                    let _ = write!(
                        out,
                        " {peer} | {} | {} |",
                        fmt_cell(cell, row.unit),
                        fmt_ratio(row.ratio(cell))
                    );
                }
                None => out.push_str(" | | |"),
            }
        }
        if with_baseline {
            let base = row.baseline.clone().unwrap_or_else(Cell::na);
            let _ = write!(
                out,
                " {} | {} |",
                fmt_cell(&base, row.unit),
                fmt_ratio(row.ratio(&base))
            );
        }
        out.push('\n');
    }
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A horizontal bar chart of the ratios on a log scale: for each row with
/// a number, how many times better ours is than each peer (1× = equal,
/// left of it the peer is better).
pub fn svg(rows: &[Row], title: &str) -> String {
    let rows: Vec<(&Row, Option<f64>, Option<f64>)> = rows
        .iter()
        .map(|r| (r, r.ratio(&r.hand), r.ratio(&r.mcpgraph)))
        .filter(|(_, h, m)| h.is_some() || m.is_some())
        .collect();
    let max = rows
        .iter()
        .flat_map(|(_, h, m)| [*h, *m])
        .flatten()
        .fold(10.0f64, f64::max);
    let min = rows
        .iter()
        .flat_map(|(_, h, m)| [*h, *m])
        .flatten()
        .fold(1.0f64, f64::min);
    let lo = min.log10().floor().min(-1.0);
    let hi = max.log10().ceil().max(1.0);
    let (label_w, bar_w, row_h, top) = (430.0, 520.0, 26.0, 70.0);
    let width = label_w + bar_w + 40.0;
    let height = top + row_h * rows.len() as f64 + 40.0;
    let x = |ratio: f64| label_w + (ratio.log10() - lo) / (hi - lo) * bar_w;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r##"<rect width="100%" height="100%" fill="#ffffff"/><text x="10" y="20" font-size="15" font-weight="bold">{}</text>"##,
        xml_escape(title)
    );
    let _ = writeln!(
        s,
        r##"<text x="10" y="40">How many times better the generated server is (log scale; right of 1× = ours better).</text><rect x="{}" y="30" width="12" height="10" fill="#e8710a"/><text x="{}" y="40">vs mcpGraph</text><rect x="{}" y="30" width="12" height="10" fill="#5f6368"/><text x="{}" y="40">vs hand-written rmcp</text>"##,
        label_w + 130.0,
        label_w + 146.0,
        label_w + 240.0,
        label_w + 256.0
    );
    let mut p = lo as i32;
    while p <= hi as i32 {
        let px = x(10f64.powi(p));
        let label = if p >= 0 {
            format!("{}×", fmt_num(10f64.powi(p)))
        } else {
            format!("{}×", 10f64.powi(p))
        };
        let stroke = if p == 0 { "#000000" } else { "#dddddd" };
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" y1="{}" x2="{px:.1}" y2="{}" stroke="{stroke}"/><text x="{px:.1}" y="{}" text-anchor="middle" fill="#555555">{label}</text>"##,
            top - 8.0,
            height - 30.0,
            height - 14.0
        );
        p += 1;
    }
    for (i, (row, hand, ts)) in rows.iter().enumerate() {
        let y = top + row_h * i as f64;
        let label = format!("{} · {} · {}", row.section, row.workload, row.figure);
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_w - 8.0,
            y + 16.0,
            xml_escape(&label)
        );
        let one = x(1.0);
        for (k, (ratio, color)) in [(*ts, "#e8710a"), (*hand, "#5f6368")].iter().enumerate() {
            if let Some(r) = ratio {
                let end = x(*r);
                let (x0, w) = if end >= one {
                    (one, end - one)
                } else {
                    (end, one - end)
                };
                let by = y + 4.0 + 9.0 * k as f64;
                let _ = writeln!(
                    s,
                    r#"<rect x="{x0:.1}" y="{by:.1}" width="{:.1}" height="8" fill="{color}"><title>{}×</title></rect><text x="{:.1}" y="{:.1}" font-size="9" fill="{color}">{}×</text>"#,
                    w.max(0.5),
                    fmt_num(*r),
                    end.max(one) + 3.0,
                    by + 8.0,
                    fmt_num(*r)
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
