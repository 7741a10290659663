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
        } else {
            out.push((i, Tok::Punct(c)));
            i += c.len_utf8();
        }
    }
    out
}

/// A token of [`tokens`].
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Var(String),
    Str(String),
    Assign,
    Punct(char),
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
