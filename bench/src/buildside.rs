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

/// Nodes in each tool of [`write_tools_crate`]'s graphs.
pub const NODES_PER_TOOL: usize = 12;

/// The graph of `tools` tools of [`NODES_PER_TOOL`] nodes each, in
/// mcpgraph's dialect: entry, transforms building JSONata objects, a switch
/// with JSON Logic rules, two `mcp` nodes calling the `echo` server, exit.
/// `edit` changes one constant of the first tool's first transform, as a
/// person editing one tool does.
pub fn tools_graph(tools: usize, edit: u32) -> String {
    let mut y = String::new();
    let _ = writeln!(
        y,
        "version: \"1.0\"\nserver: {{ name: \"scale{tools}\", version: \"1.0.0\" }}\nmcpServers:\n  echo: {{ command: \"bench-raw-echo\" }}\ntools:"
    );
    for t in 0..tools {
        let k = if t == 0 { edit } else { 0 };
        let _ = write!(
            y,
            r#"  - name: "tool_{t}"
    description: "Generated tool {t} of {tools}"
    inputSchema: {{ type: object, properties: {{ s: {{ type: string }}, v: {{ type: number }} }}, required: [s, v] }}
    nodes:
      - {{ id: entry, type: entry, next: shape }}
      - id: shape
        type: transform
        transform: {{ expr: '{{ "v": $.entry.v + {t} + {k}, "s": $uppercase($.entry.s), "tags": ["a", "b", $string($.entry.v)] }}' }}
        next: route
      - id: route
        type: switch
        conditions:
          - rule: {{ ">": [{{ "var": "$.shape.v" }}, 1000000] }}
            next: big
          - rule: {{ "and": [{{ "==": [{{ "var": "$.shape.s" }}, "X"] }}, {{ "<": [{{ "var": "$.entry.v" }}, 0] }}] }}
            next: big
        next: small
      - id: big
        type: transform
        transform: {{ expr: '{{ "name": $.shape.s & "-big", "n": $.shape.v / 2 }}' }}
        next: ask
      - id: small
        type: transform
        transform: {{ expr: '{{ "name": $lowercase($.shape.s) & "-small", "n": $.shape.v * 2 }}' }}
        next: ask
      - id: ask
        type: mcp
        server: echo
        tool: echo
        args: {{ name: {{ expr: "$.shape.s" }}, n: {{ expr: "$.shape.v" }} }}
        next: merge
      - id: merge
        type: transform
        transform: {{ expr: '{{ "first": $.ask, "count": $count($.shape.tags), "t": {t} }}' }}
        next: again
      - id: again
        type: mcp
        server: echo
        tool: echo
        args: {{ name: {{ expr: '$.shape.s & "-2"' }}, n: {{ expr: "$.merge.count" }} }}
        next: sum
      - id: sum
        type: transform
        transform: {{ expr: '{{ "total": $sum([$.shape.v, $.merge.count]), "tags": $join($.shape.tags, ",") }}' }}
        next: check
      - id: check
        type: switch
        conditions:
          - rule: {{ "in": [{{ "var": "$.entry.s" }}, ["stop", "halt"]] }}
            next: done
        next: done
      - id: done
        type: transform
        transform: {{ expr: '{{ "result": $.sum, "again": $.again, "tool": "tool_{t}" }}' }}
        next: exit
      - {{ id: exit, type: exit }}
"#
        );
    }
    y
}

/// Writes a crate at `dir` serving [`tools_graph`]`(tools, edit)`: a
/// package of its own (its own `[workspace]`), on the mcpgraph facade at
/// `facade` with its default features, as a user's crate is. Rewrites only
/// the files whose text changed, so that a rebuild sees one edit.
pub fn write_tools_crate(dir: &Path, facade: &Path, tools: usize, edit: u32) -> Result<(), String> {
    let write = |path: PathBuf, text: String| -> Result<(), String> {
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            return Ok(());
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    std::fs::create_dir_all(dir.join("src")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let manifest = format!(
        "[package]\nname = \"scale-{tools}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nmcpgraph = {{ path = {:?} }}\n\n[workspace]\n",
        facade.display().to_string()
    );
    write(dir.join("Cargo.toml"), manifest)?;
    write(
        dir.join("src/main.rs"),
        "mcpgraph::mcpgraph!(\"graph.yaml\");\nmcpgraph::allocator!();\n\nfn main() -> std::process::ExitCode {\n    Server::main()\n}\n"
            .to_owned(),
    )?;
    write(dir.join("graph.yaml"), tools_graph(tools, edit))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated graphs are valid (no diagnostics at all), with the
    /// nodes they claim, and the edit changes the first tool alone.
    #[test]
    fn generated_tool_graphs_expand_cleanly() {
        let dir = std::env::temp_dir().join(format!("mcpgraph-bench-tools-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("graph.yaml");
        std::fs::write(&path, tools_graph(3, 0)).unwrap();
        let display = path.display().to_string();
        let out = mcpgraph_codegen::generate_file(&path, &display, &Default::default());
        assert!(out.is_ok(), "{}", out.diagnostics);
        assert!(
            out.diagnostics.to_string().is_empty(),
            "{}",
            out.diagnostics
        );
        let graph = tools_graph(3, 0);
        assert_eq!(graph.matches("\n      - ").count(), 3 * NODES_PER_TOOL);
        let edited = tools_graph(3, 1);
        let differ = graph
            .lines()
            .zip(edited.lines())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differ, 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
