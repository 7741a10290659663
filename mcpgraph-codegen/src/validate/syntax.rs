//! Says where in an expression a JSONata syntax error is, and what it is in
//! words a user reads: the parser reports neither well (see
//! [`locate_syntax_error`]).

use jsonata_core::parser::ParserError;

/// How many bytes of prefixes the search for a syntax error's place may
/// parse one by one; past that (long expressions), it bisects instead.
const LINEAR_SEARCH_BUDGET: usize = 4 << 20;

/// The parser's message from its error code on, its tokens written as the
/// source text they stand for (see `mcpgraph_expr::syntax_error`).
pub(super) fn error_text(e: &ParserError) -> String {
    mcpgraph_expr::syntax_error::message(e)
}

/// Errors that a prefix of a valid expression may give: the text just
/// stops too early.
fn is_end_error(e: &ParserError) -> bool {
    match e {
        ParserError::UnexpectedEnd
        | ParserError::UnclosedString
        | ParserError::UnclosedComment
        | ParserError::UnclosedBacktick => true,
        ParserError::UnexpectedToken(t) => t == "Eof",
        ParserError::Expected { found, .. } => found == "Eof",
        _ => false,
    }
}

/// Where a syntax error is: the start of the token that makes the shortest
/// failing prefix (cut at token boundaries) fail with something other than
/// running out of text. Returns the byte offset and whether it was found.
pub(super) fn locate_syntax_error(text: &str, error: &ParserError) -> (usize, bool) {
    if matches!(error, ParserError::UnclosedString)
        && let Some(o) = unclosed_quote(text)
    {
        return (o, true);
    }
    let cuts = cut_points(text);
    let fails =
        |cut: usize| jsonata_core::parser::parse(&text[..cut]).is_err_and(|e| !is_end_error(&e));
    let work: usize = cuts.iter().sum();
    let first_failing = if work <= LINEAR_SEARCH_BUDGET {
        cuts.iter().position(|&c| fails(c))
    } else {
        // Assumes that once a prefix fails, longer ones do too: true of
        // almost every error, and the expression is long.
        let i = cuts.partition_point(|&c| !fails(c));
        (i < cuts.len()).then_some(i)
    };
    match first_failing {
        Some(i) => {
            let from = i.checked_sub(1).map_or(0, |p| cuts[p]);
            let token = text[from..cuts[i]]
                .char_indices()
                .find(|(_, c)| !c.is_whitespace())
                .map_or(from, |(o, _)| from + o);
            (token, true)
        }
        // Every prefix parses or just stops early: the text ends too soon.
        None => (text.trim_end().len(), is_end_error(error)),
    }
}

/// Byte offsets where the text may be cut without splitting a token (as far
/// as a cheap look at the characters can tell), in order, the end included.
fn cut_points(text: &str) -> Vec<usize> {
    const PAIRS: &[&str] = &[
        ":=", "!=", "<=", ">=", "..", "**", "~>", "??", "?:", "/*", "*/",
    ];
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut out = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        if let Some(p) = prev {
            let joined = (word(p) && word(c))
                || (p.is_ascii_digit() && c == '.')
                || (p == '.' && c.is_ascii_digit())
                || PAIRS.iter().any(|pair| {
                    text[..i].ends_with(&pair[..1]) && text[i..].starts_with(&pair[1..])
                })
                || c.is_whitespace();
            if !joined {
                out.push(i);
            }
        }
        prev = Some(c);
    }
    out.push(text.len());
    out
}

/// The offset of the quote that opens a string never closed.
fn unclosed_quote(text: &str) -> Option<usize> {
    let mut open: Option<(usize, char)> = None;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match open {
            Some((_, q)) if c == '\\' => {
                let _ = q;
                chars.next();
            }
            Some((_, q)) if c == q => open = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => open = Some((i, c)),
            None if c == '/' && text[i..].starts_with("/*") => {
                // Skip a comment.
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(text.len(), |e| i + 2 + e + 2);
                while chars.clone().next().is_some_and(|(j, _)| j < end) {
                    chars.next();
                }
            }
            None => {}
        }
    }
    open.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use crate::test_support::{ENTRY, EXIT, errors, one_error, transform, with_nodes};

    #[test]
    fn jsonata_syntax_error_position() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "1 +* 2", "exit")
        ));
        let (line, col, msg) = one_error(&src);
        assert!(
            msg.starts_with("invalid JSONata expression: S0201"),
            "{msg}"
        );
        // `expr: '1 +* 2'` with the quote at column 17: `2` is at 23.
        assert_eq!((line, col), (19, 23));
    }

    #[test]
    fn jsonata_error_in_block_scalar() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: transform\n        transform:\n          expr: |\n            (\n              $x := 1;\n              $x ]\n            )\n        next: exit\n{EXIT}"
        ));
        let (line, col, msg) = one_error(&src);
        assert!(msg.starts_with("invalid JSONata expression"), "{msg}");
        assert_eq!((line, col), (22, 18));
    }

    #[test]
    fn jsonata_error_in_double_quoted_with_escapes() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: transform\n        transform:\n          expr: \"$split(\\\"a\\\\nb\\\", \\\"\\\\n\\\") ]\"\n        next: exit\n{EXIT}"
        ));
        let (line, col, msg) = one_error(&src);
        assert!(msg.starts_with("invalid JSONata expression"), "{msg}");
        let text = src.lines().nth(line as usize - 1).unwrap();
        assert_eq!(text.chars().nth(col as usize - 1), Some(']'), "{text}");
    }

    #[test]
    fn jsonata_unexpected_end() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "($.entry", "exit")
        ));
        let (line, col, msg) = one_error(&src);
        assert!(msg.contains("S0203") || msg.contains("S0207"), "{msg}");
        // Just past the last character: `'($.entry'` starts at 17.
        assert_eq!((line, col), (19, 26));
    }

    #[test]
    fn jsonata_unclosed_string() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "1 & \"abc", "exit")
        ));
        let (line, col, msg) = one_error(&src);
        assert!(msg.contains("S0101"), "{msg}");
        assert_eq!((line, col), (19, 22));
    }

    #[test]
    fn deeply_nested_expression() {
        let deep = format!("{}1{}", "(".repeat(1500), ")".repeat(1500));
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", &deep, "exit")));
        let (line, col, msg) = one_error(&src);
        assert!(msg.contains("U1002"), "{msg}");
        assert_eq!(line, 19);
        assert!(col > 900 && col < 1100, "{col}");
    }

    #[test]
    fn crlf_files() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "1 +* 2", "exit")
        ))
        .replace('\n', "\r\n");
        assert_eq!(one_error(&src).0, 19);
        assert_eq!(one_error(&src).1, 23);
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/mcpgraph/");
        let src = std::fs::read_to_string(format!("{dir}loop_example.yaml")).unwrap();
        assert_eq!(errors(&src.replace('\n', "\r\n")), vec![]);
    }
}
