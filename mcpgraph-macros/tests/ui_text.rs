//! The words of the UI suite's messages (`tests/ui/*.stderr`, see
//! `ui.rs`): no message shows a value or a token in Rust's debug
//! formatting (`String("size: ")`, `Some(..)`, `Number(1.0)`,
//! `RightParen`), which a user of the macro or of `mcpgraph check` would
//! read as it is. The quoted source lines of the graph and of the `.rs`
//! file (` 20 | ...`) are the user's own text and are not checked.

use std::path::Path;

/// Debug forms of values and options: `Name(` anywhere in a message.
const DEBUG_CALLS: &[&str] = &[
    "String",
    "Number",
    "Bool",
    "Some",
    "None",
    "Ok",
    "Err",
    "Object",
    "Array",
    "Identifier",
    "Variable",
    "ParentVariable",
    "Function",
    "Regex",
    "Value",
];

/// Debug names of values and of the JSONata lexer's tokens, as whole
/// words.
const DEBUG_WORDS: &[&str] = &[
    "None",
    "Null",
    "True",
    "False",
    "Undefined",
    "Eof",
    "LeftParen",
    "RightParen",
    "LeftBracket",
    "RightBracket",
    "LeftBrace",
    "RightBrace",
    "Comma",
    "Colon",
    "ColonEqual",
    "Semicolon",
    "Plus",
    "Minus",
    "Star",
    "StarStar",
    "Slash",
    "Percent",
    "Equal",
    "NotEqual",
    "LessThan",
    "LessThanOrEqual",
    "GreaterThan",
    "GreaterThanOrEqual",
    "Ampersand",
    "Dot",
    "DotDot",
    "Question",
    "QuestionQuestion",
    "QuestionColon",
    "TildeArrow",
    "Caret",
    "Pipe",
    "Hash",
    "At",
];

/// Whether `line` quotes source (`  20 |  ...`, ` |`, `  |   ^^^`).
fn is_source_line(line: &str) -> bool {
    let rest = line
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit());
    rest.trim_start().starts_with('|') || line.trim_start().starts_with("-->")
}

/// The debug forms in `line`.
fn debug_forms(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let word_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
        match (start, word_char(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                words.push((s, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    for (start, word) in words {
        let next = line[start + word.len()..].chars().next();
        if next == Some('(') && DEBUG_CALLS.contains(&word) {
            found.push(format!("{word}("));
        } else if DEBUG_WORDS.contains(&word) {
            found.push(word.to_owned());
        }
    }
    found
}

#[test]
fn no_message_shows_rust_debug_formatting() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut cases = 0;
    let mut bad = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/ui") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "stderr") {
            continue;
        }
        cases += 1;
        let text = std::fs::read_to_string(&path).expect("a .stderr file");
        for (i, line) in text.lines().enumerate() {
            if is_source_line(line) {
                continue;
            }
            let forms = debug_forms(line);
            if !forms.is_empty() {
                bad.push(format!(
                    "{}:{}: {} in: {line}",
                    path.file_name().unwrap_or_default().to_string_lossy(),
                    i + 1,
                    forms.join(", ")
                ));
            }
        }
    }
    assert!(
        cases > 50,
        "only {cases} UI cases found in {}",
        dir.display()
    );
    assert!(bad.is_empty(), "Rust debug formatting:\n{}", bad.join("\n"));
}

#[test]
fn the_check_finds_debug_forms() {
    for (line, want) in [
        (
            "error: invalid JSONata expression: S0202: Expected `}`, got Number(1.0)",
            &["Number("][..],
        ),
        (
            "error: S0202: Expected RightParen, got Eof",
            &["RightParen", "Eof"],
        ),
        ("note: got Some(\"x\") and None", &["Some(", "None"]),
        ("error: S0202: Expected `)`, got `\"size: \"`", &[]),
        ("error: the value is null, not a String", &[]),
    ] {
        assert_eq!(debug_forms(line), want, "{line}");
    }
    assert!(is_source_line(
        "       20 |           expr: '{ \"count\": $count($.list.content) +* 1 }'"
    ));
    assert!(is_source_line("  |                     ^^^^^^"));
    assert!(!is_source_line("error: invalid JSONata expression"));
}
