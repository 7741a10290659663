//! The generator never panics, whatever the file holds: every prefix of
//! the examples (a file saved half-way), random bytes, huge files and
//! deeply nested ones all give diagnostics or code, and code that parses.

use mcpgraph_codegen::{ExpandOptions, generate_file, generate_str, pretty};

fn examples() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    [
        "file_utils/file_utils.yaml",
        "loop_example/loop_example.yaml",
        "switch_example/switch_example.yaml",
        "test_minimal/test_minimal.yaml",
        "build_rs_example/greeter.yaml",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(format!("{dir}{f}")).unwrap())
    .collect()
}

/// Generates `source`; the tokens (code or skeleton) must parse as a file.
#[track_caller]
fn generate(source: &str) -> mcpgraph_codegen::Output {
    let out = generate_str(source, "g.yaml", &ExpandOptions::default());
    if let Err(e) = pretty(&out.tokens) {
        panic!("the output does not parse: {e}\n{source}");
    }
    // Rendering never panics either.
    let _ = out.diagnostics.to_string();
    let _ = out.diagnostics.to_json();
    out
}

#[test]
fn truncated_files() {
    for text in examples() {
        let mut cuts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
        cuts.extend((0..text.len()).step_by(13));
        for cut in cuts {
            if text.is_char_boundary(cut) {
                let out = generate(&text[..cut]);
                assert!(out.is_ok() || out.diagnostics.error_count() > 0);
            }
        }
    }
}

#[test]
fn random_bytes() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let dir = std::env::temp_dir().join(format!("mcpgraph-robust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for round in 0..300 {
        let len = (next() % 2000) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let out = generate(&String::from_utf8_lossy(&bytes));
        assert!(!out.is_ok() || len == 0);
        // Mostly YAML punctuation and words, which gets further in.
        const ALPHABET: &[&str] = &[
            "\n", " ", "  ", "- ", ": ", "{", "}", "[", "]", ",", "\"", "'", "|", ">", "&a", "*a",
            "!!str ", "#", "id", "type", "entry", "exit", "next", "tools", "nodes", "expr", "$.",
            "(", ")", "version", "server", "name", "\t", "---", "\\", "é",
        ];
        let text: String = (0..len / 4)
            .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
            .collect();
        generate(&text);
        if round % 30 == 0 {
            let path = dir.join("g.yaml");
            std::fs::write(&path, &bytes).unwrap();
            let out = generate_file(&path, "g.yaml", &ExpandOptions::default());
            assert!(pretty(&out.tokens).is_ok());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

const HEAD: &str = "version: '1'\nserver: {name: s, version: '1'}\ntools:\n  - name: t\n    description: d\n    inputSchema: {type: object}\n    nodes:\n";

#[test]
fn huge_files() {
    // A chain of 10 000 nodes, each reading the one before and the one
    // after (which cannot have run: a warning per node, or the analysis
    // gives up within its budget).
    let n = 10_000;
    let mut text = String::from(HEAD);
    text.push_str("      - {id: entry, type: entry, next: n0}\n");
    for i in 0..n {
        let next = if i + 1 == n {
            "exit".to_owned()
        } else {
            format!("n{}", i + 1)
        };
        let prev = if i == 0 {
            "entry".to_owned()
        } else {
            format!("n{}", i - 1)
        };
        text.push_str(&format!(
            "      - {{id: n{i}, type: transform, transform: {{expr: '$.{prev} & $.{next}'}}, next: {next}}}\n"
        ));
    }
    text.push_str("      - {id: exit, type: exit}\n");
    let started = std::time::Instant::now();
    let out = generate(&text);
    assert!(out.is_ok(), "{}", out.diagnostics.items[0].message);
    assert!(started.elapsed().as_secs() < 120);

    // One expression of a million characters.
    let long = format!(
        "{HEAD}      - {{id: entry, type: entry, next: a}}\n      - {{id: a, type: transform, transform: {{expr: '{}'}}, next: exit}}\n      - {{id: exit, type: exit}}\n",
        vec!["1"; 250_000].join(" + ")
    );
    generate(&long);
    // And a broken one.
    generate(&long.replace("'}, next", " +'}, next"));
}

#[test]
fn deeply_nested_files() {
    for depth in [63, 64, 65, 1000, 100_000] {
        generate(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
        generate(&format!("{}1{}", "{a: ".repeat(depth), "}".repeat(depth)));
        generate(&"- ".repeat(depth));
        let mut indented = String::new();
        for i in 0..depth.min(2000) {
            indented.push_str(&" ".repeat(i));
            indented.push_str("a:\n");
        }
        generate(&indented);
        // Deep expressions and deep JSON Logic rules.
        let expr = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
        generate(&format!(
            "{HEAD}      - {{id: entry, type: entry, next: a}}\n      - {{id: a, type: transform, transform: {{expr: '{expr}'}}, next: exit}}\n      - {{id: exit, type: exit}}\n"
        ));
        let rule = format!("{}true{}", "{\"!\": ".repeat(depth), "}".repeat(depth));
        generate(&format!(
            "{HEAD}      - {{id: entry, type: entry, next: a}}\n      - {{id: a, type: switch, conditions: [{{rule: {rule}, next: exit}}], next: exit}}\n      - {{id: exit, type: exit}}\n"
        ));
    }
    let brackets = format!("[{}1{}]", "[".repeat(5000), "]".repeat(5000));
    generate(&format!(
        "{HEAD}      - {{id: entry, type: entry, next: a}}\n      - {{id: a, type: transform, transform: {{expr: '{brackets}'}}, next: exit}}\n      - {{id: exit, type: exit}}\n"
    ));
}
