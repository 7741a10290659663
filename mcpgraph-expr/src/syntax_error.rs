//! A JSONata syntax error in words a user reads. jsonata-core writes the
//! tokens of its messages with Rust's debug formatting
//! (``Expected RightParen, got String("size: ")``); this writes them as
//! the text they stand for, in backticks (``Expected `)`, got `"size: "` ``),
//! and keeps the message from its error code on.

use jsonata_core::parser::ParserError;

/// The message of a parse error from its code on (`S0202: ...`), without
/// prefixes such as "Invalid syntax: ", each token written as the source
/// text it stands for.
pub fn message(e: &ParserError) -> String {
    let text = match e {
        ParserError::Expected { expected, found } if expected != "parameter name" => {
            if found == "Eof" {
                format!(
                    "S0203: Expected {} before end of expression",
                    token(expected)
                )
            } else {
                format!("S0202: Expected {}, got {}", token(expected), token(found))
            }
        }
        ParserError::UnexpectedToken(t) if t != "Eof" => {
            if let Some(t) = t.strip_prefix("Unexpected token in signature: ") {
                // jsonata-core's code for it.
                format!("S0211: Unexpected {} in a function signature", token(t))
            } else if t.starts_with(char::is_alphabetic) {
                format!(
                    "S0211: The symbol {} cannot be used as a unary operator",
                    token(t)
                )
            } else {
                format!("S0204: Unknown operator: `{t}`")
            }
        }
        ParserError::InvalidSyntax(s) => match s.strip_prefix("S0201: Syntax error: ") {
            Some(t) => format!("S0201: Syntax error: {}", token(t)),
            None => s.clone(),
        },
        _ => e.to_string(),
    };
    from_code(&text).to_owned()
}

/// `text` from its JSONata error code (`S` and four digits) on, if it has
/// one.
fn from_code(text: &str) -> &str {
    let bytes = text.as_bytes();
    let code = (0..bytes.len()).find(|&i| {
        let rest = &bytes[i..];
        rest.len() >= 5
            && rest[0] == b'S'
            && rest[1..5].iter().all(u8::is_ascii_digit)
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
    });
    let text = &text[code.unwrap_or(0)..];
    text.strip_prefix("Invalid syntax: ").unwrap_or(text)
}

/// The symbols of the lexer's tokens without a value.
const SYMBOLS: &[(&str, &str)] = &[
    ("Plus", "+"),
    ("Minus", "-"),
    ("Star", "*"),
    ("StarStar", "**"),
    ("Slash", "/"),
    ("Percent", "%"),
    ("Equal", "="),
    ("NotEqual", "!="),
    ("LessThan", "<"),
    ("LessThanOrEqual", "<="),
    ("GreaterThan", ">"),
    ("GreaterThanOrEqual", ">="),
    ("And", "and"),
    ("Or", "or"),
    ("In", "in"),
    ("Ampersand", "&"),
    ("Dot", "."),
    ("DotDot", ".."),
    ("Question", "?"),
    ("QuestionQuestion", "??"),
    ("QuestionColon", "?:"),
    ("Colon", ":"),
    ("ColonEqual", ":="),
    ("TildeArrow", "~>"),
    ("LeftParen", "("),
    ("RightParen", ")"),
    ("LeftBracket", "["),
    ("RightBracket", "]"),
    ("LeftBrace", "{"),
    ("RightBrace", "}"),
    ("Comma", ","),
    ("Semicolon", ";"),
    ("Caret", "^"),
    ("Pipe", "|"),
    ("Hash", "#"),
    ("At", "@"),
    ("True", "true"),
    ("False", "false"),
    ("Null", "null"),
    ("Undefined", "undefined"),
];

/// A token as jsonata-core's message holds it (its `Debug` text, or a
/// bare character), written as the source text it stands for, in
/// backticks; the end of the expression as "the end".
fn token(debug: &str) -> String {
    if debug == "Eof" {
        return "the end".to_owned();
    }
    let inner = |variant: &str| {
        debug
            .strip_prefix(variant)
            .and_then(|rest| rest.strip_prefix('('))
            .and_then(|rest| rest.strip_suffix(')'))
    };
    let text = if let Some(s) = inner("String") {
        // A debug string literal: quoted and escaped as the user would.
        s.to_owned()
    } else if let Some(n) = inner("Number") {
        n.parse::<f64>()
            .map_or_else(|_| n.to_owned(), |n| n.to_string())
    } else if let Some(name) = inner("Identifier").or_else(|| inner("Function")) {
        unquote(name)
    } else if let Some(name) = inner("Variable") {
        format!("${}", unquote(name))
    } else if let Some(name) = inner("ParentVariable") {
        format!("$${}", unquote(name))
    } else if let Some(regex) = debug.strip_prefix("Regex { pattern: ") {
        match regex
            .strip_suffix(" }")
            .and_then(|r| r.split_once(", flags: "))
        {
            Some((pattern, flags)) => format!("/{}/{}", unquote(pattern), unquote(flags)),
            None => debug.to_owned(),
        }
    } else if let Some((_, symbol)) = SYMBOLS.iter().find(|(name, _)| *name == debug) {
        (*symbol).to_owned()
    } else {
        debug.to_owned()
    };
    format!("`{text}`")
}

/// The text of a debug string literal (`"a\"b"` → `a"b`).
fn unquote(literal: &str) -> String {
    let Some(body) = literal.strip_prefix('"').and_then(|l| l.strip_suffix('"')) else {
        return literal.to_owned();
    };
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('0') => out.push('\0'),
            Some('u') => {
                let hex: String = chars.by_ref().skip(1).take_while(|&c| c != '}').collect();
                if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(c);
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
#[path = "syntax_error_tests.rs"]
mod tests;
