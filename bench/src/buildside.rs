//! Build side: synthetic graphs of N nodes in both dialects, and the time
//! the generator takes to expand them (`mcpgraph_codegen::generate_file`,
//! the whole work of the `mcpgraph!` macro: read, parse, validate, emit).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Writes a tool of `nodes` nodes (entry, a chain of transforms with a
/// two-condition switch every tenth node, exit) in both dialects; returns
/// the paths (ours, mcpGraph's).
pub fn write_synthetic(dir: &Path, nodes: usize) -> Result<(PathBuf, PathBuf), String> {
    let mut paths = Vec::new();
    for ts in [false, true] {
        let mut y = String::new();
        let _ = writeln!(
            y,
            "version: \"1.0\"\nserver: {{ name: \"synth{nodes}\", version: \"1.0.0\" }}\nexecutionLimits: {{ maxNodeExecutions: 5000 }}\ntools:\n  - name: \"chain\"\n    description: \"synthetic chain of {nodes} nodes\"\n    inputSchema: {{ type: object, properties: {{ s: {{ type: string }}, v: {{ type: number }} }} }}\n    outputSchema: {{ type: object }}\n    nodes:"
        );
        let middle = nodes.saturating_sub(2);
        let id = |j: usize| {
            if j == 0 {
                "entry".to_owned()
            } else if j > middle {
                "exit".to_owned()
            } else if j.is_multiple_of(10) {
                format!("s{j}")
            } else {
                format!("t{j}")
            }
        };
        let _ = writeln!(
            y,
            "      - {{ id: \"entry\", type: \"entry\", next: \"{}\" }}",
            id(1)
        );
        let mut last_transform = "entry".to_owned();
        for j in 1..=middle {
            let next = id(j + 1);
            if j.is_multiple_of(10) {
                let key = if ts { "target" } else { "next" };
                let _ = writeln!(
                    y,
                    "      - id: \"s{j}\"\n        type: \"switch\"\n        conditions:\n          - rule: {{ \">\": [{{ \"var\": \"$.{last_transform}.v\" }}, 1000000] }}\n            {key}: \"{next}\"\n          - rule: {{ \"==\": [{{ \"var\": \"$.entry.s\" }}, \"never\"] }}\n            {key}: \"{next}\""
                );
                if ts {
                    let _ = writeln!(y, "          - target: \"{next}\"");
                } else {
                    let _ = writeln!(y, "        next: \"{next}\"");
                }
            } else {
                let _ = writeln!(
                    y,
                    "      - id: \"t{j}\"\n        type: \"transform\"\n        transform:\n          expr: '{{ \"v\": $.{last_transform}.v + {j}, \"s\": $uppercase($.entry.s) & \"-{j}\" }}'\n        next: \"{next}\""
                );
                last_transform = format!("t{j}");
            }
        }
        let _ = writeln!(y, "      - {{ id: \"exit\", type: \"exit\" }}");
        let name = if ts {
            format!("synth_{nodes}.mcpgraph.yaml")
        } else {
            format!("synth_{nodes}.yaml")
        };
        let path = dir.join(name);
        std::fs::write(&path, y).map_err(|e| format!("{}: {e}", path.display()))?;
        paths.push(path);
    }
    Ok((paths[0].clone(), paths[1].clone()))
}

/// Median milliseconds of `generate_file` over `runs` runs (after one
/// warm-up), and the size of the generated code in characters.
pub fn expansion_ms(path: &Path, runs: usize) -> Result<(f64, usize), String> {
    let display = path.display().to_string();
    let options = mcpgraph_codegen::ExpandOptions {
        track_path: Some(display.clone()),
        ..Default::default()
    };
    let first = mcpgraph_codegen::generate_file(path, &display, &options);
    if !first.is_ok() {
        return Err(first.diagnostics.to_string());
    }
    let size = first.tokens.to_string().len();
    let mut samples: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t0 = Instant::now();
            let out = mcpgraph_codegen::generate_file(path, &display, &options);
            std::hint::black_box(&out.tokens);
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    Ok((samples[samples.len() / 2], size))
}
