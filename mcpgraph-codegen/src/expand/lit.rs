//! Literals as a person would write them: integers without a type suffix,
//! strings with quotes as raw strings, multi-line text as a raw string with
//! its line breaks (a multi-line JSONata expression reads as it stands in
//! the YAML), and `Option`s through the runtime contract's `rt::Some` /
//! `rt::None`.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote};

/// An integer literal without a suffix (`1000`, not `1000u64`): the type
/// comes from where it is used.
pub(crate) fn int(n: impl Into<u64>) -> Literal {
    Literal::u64_unsuffixed(n.into())
}

/// A `usize` literal without a suffix.
pub(crate) fn index(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

/// A string literal. Text of several lines (two or more not blank) is a
/// raw string with its line breaks, so it reads as it stands in the YAML.
/// Other text is raw (`r#"{ "a": 1 }"#`) when the plain form would escape
/// quotes or backslashes on one line, and plain otherwise: a lone line
/// break stays an escape (`"a\n"`). Text a raw string cannot hold (a
/// carriage return, other control characters) stays a plain, escaped
/// string.
pub(crate) fn string(text: &str) -> Literal {
    let raw = if text.contains('\n') {
        text.lines().filter(|line| !line.trim().is_empty()).count() > 1
    } else {
        text.contains(['"', '\\'])
    };
    let raw_safe = !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t');
    if !raw || !raw_safe {
        return Literal::string(text);
    }
    let mut hashes = String::new();
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
        .parse()
        .unwrap_or_else(|_| Literal::string(text))
}

/// `rt::Some(value)` or `rt::None`.
pub(crate) fn option(value: Option<impl ToTokens>) -> TokenStream {
    match value {
        Some(value) => quote!(rt::Some(#value)),
        None => quote!(rt::None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_raw_only_for_quotes_on_one_line_or_for_several_lines() {
        assert_eq!(string("$.a.b").to_string(), r#""$.a.b""#);
        assert_eq!(
            string(r#"{ "a": 1 }"#).to_string(),
            r###"r#"{ "a": 1 }"#"###
        );
        assert_eq!(string("a\nb").to_string(), "r\"a\nb\"");
        assert_eq!(string("\n").to_string(), r#""\n""#);
        assert_eq!(string("a\n\n").to_string(), r#""a\n\n""#);
        assert_eq!(string("\"a\"\n").to_string(), r#""\"a\"\n""#);
        assert_eq!(string(" \n  ").to_string(), r#"" \n  ""#);
        assert_eq!(string("x \"# y").to_string(), "r##\"x \"# y\"##");
        assert_eq!(string("a\r\nb").to_string(), r#""a\r\nb""#);
        assert_eq!(int(1000u64).to_string(), "1000");
        assert_eq!(index(2).to_string(), "2");
        assert_eq!(option(None::<Literal>).to_string(), "rt :: None");
        assert_eq!(option(Some(int(1u64))).to_string(), "rt :: Some (1)");
    }
}
