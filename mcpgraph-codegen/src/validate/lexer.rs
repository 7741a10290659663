//! A cheap lexer over an expression, for finding where something the
//! parser's tree holds (a name, a string, a bad `:=`) is written: the tree
//! keeps no positions.

/// A cheap lexer over an expression: yields `(offset, token)` for names
/// (plain or backquoted), variables, string literals (with their text) and
/// single punctuation, skipping comments and whitespace.
fn tokens(text: &str) -> Vec<(usize, Tok)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    while i < b.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
        } else if let Some(comment) = rest.strip_prefix("/*") {
            i = comment.find("*/").map_or(text.len(), |e| i + 2 + e + 2);
        } else if c == '"' || c == '\'' {
            let mut s = String::new();
            let mut j = i + 1;
            let mut chars = text[j..].chars();
            while let Some(d) = chars.next() {
                j += d.len_utf8();
                if d == c {
                    break;
                }
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        j += e.len_utf8();
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                    }
                    continue;
                }
                s.push(d);
            }
            out.push((i, Tok::Str(s)));
            i = j;
        } else if c == '`' {
            let end = rest[1..].find('`').map_or(text.len(), |e| i + 1 + e);
            out.push((i, Tok::Name(text[i + 1..end].to_owned())));
            i = (end + 1).min(text.len());
        } else if c == '$' {
            let len = rest[1..]
                .char_indices()
                .find(|(_, d)| !(word(*d) || *d == '$'))
                .map_or(rest.len(), |(k, _)| k + 1);
            out.push((i, Tok::Var(rest[..len].to_owned())));
            i += len;
        } else if c.is_ascii_digit() {
            out.push((i, Tok::Num));
            i += number_len(rest);
        } else if word(c) {
            let len = rest
                .char_indices()
                .find(|(_, d)| !word(*d))
                .map_or(rest.len(), |(k, _)| k);
            out.push((i, Tok::Name(rest[..len].to_owned())));
            i += len;
        } else if rest.starts_with(":=") {
            out.push((i, Tok::Assign));
            i += 2;
        } else if let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) {
            out.push((i, Tok::Op(op)));
            i += op.len();
        } else {
            out.push((i, Tok::Punct(c)));
            i += c.len_utf8();
        }
    }
    out
}

/// The operators of two characters, lexed as one token.
const OPERATORS: &[&str] = &["!=", "<=", ">=", "..", "**", "~>", "??", "?:"];

/// The length of the number literal `rest` starts with: digits, a
/// fraction, an exponent.
fn number_len(rest: &str) -> usize {
    let b = rest.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = digits(0);
    if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
        i = digits(i + 1);
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let sign = usize::from(i + 1 < b.len() && (b[i + 1] == b'+' || b[i + 1] == b'-'));
        if i + 1 + sign < b.len() && b[i + 1 + sign].is_ascii_digit() {
            i = digits(i + 1 + sign);
        }
    }
    i
}

/// A token of [`tokens`].
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Var(String),
    Str(String),
    Num,
    Assign,
    Op(&'static str),
    Punct(char),
}

/// Where the variable `$name` is written, each time, in order.
pub(super) fn var_offsets(text: &str, name: &str) -> Vec<usize> {
    tokens(text)
        .into_iter()
        .filter(|(_, t)| matches!(t, Tok::Var(v) if v.strip_prefix('$') == Some(name)))
        .map(|(o, _)| o)
        .collect()
}

/// Where the operator `op` (one character, or one of [`OPERATORS`]) is
/// written, each time, in order.
pub(super) fn op_offsets(text: &str, op: &str) -> Vec<usize> {
    tokens(text)
        .into_iter()
        .filter(|(_, t)| match t {
            Tok::Op(o) => *o == op,
            Tok::Punct(c) => op.len() == c.len_utf8() && op.starts_with(*c),
            _ => false,
        })
        .map(|(o, _)| o)
        .collect()
}

/// The first place `name` is written as a name.
pub(super) fn find_name(text: &str, name: &str) -> Option<usize> {
    tokens(text)
        .into_iter()
        .find(|(_, t)| matches!(t, Tok::Name(n) if n == name))
        .map(|(o, _)| o)
}

/// The first string literal whose text is `value`.
pub(super) fn find_string(text: &str, value: &str) -> Option<usize> {
    tokens(text)
        .into_iter()
        .find(|(_, t)| matches!(t, Tok::Str(s) if s == value))
        .map(|(o, _)| o)
}

/// The first `:=` whose left side is not a variable token.
pub(super) fn find_bad_assignment(text: &str) -> Option<usize> {
    let toks = tokens(text);
    toks.iter().enumerate().find_map(|(i, (o, t))| {
        let bad =
            *t == Tok::Assign && !matches!(i.checked_sub(1).map(|p| &toks[p].1), Some(Tok::Var(_)));
        bad.then_some(*o)
    })
}
