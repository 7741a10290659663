//! Each translated pattern finds what JavaScript finds. The expected
//! matches come from node: `node mcpgraph-jsregex/cases.js` runs
//! `new RegExp(pattern, flags).exec(input)` over its cases and prints
//! the rows of `CASES`.

use super::*;

#[rustfmt::skip]
const CASES: &[(&str, &str, &str, Option<&str>)] = &[
    ("\u{5c}d+", "", "x\u{663}4", Some("4")),
    ("\u{5c}w+", "", "\u{e9}a_1b", Some("a_1b")),
    ("\u{5c}bfoo\u{5c}b", "", "\u{e9}foo", Some("foo")),
    ("\u{5c}bfoo\u{5c}b", "", "a foo", Some("foo")),
    ("\u{5c}s+", "", "a\u{85}b", None),
    ("\u{5c}s", "", "a\u{feff}b", Some("\u{feff}")),
    ("\u{5c}S+", "", "\u{a0}xy ", Some("xy")),
    ("\u{5c}W", "", "a\u{e9}", Some("\u{e9}")),
    ("\u{5c}D+", "", "12ab3", Some("ab")),
    (".+", "", "ab\u{d}cd", Some("ab")),
    (".+", "", "a\u{2028}b", Some("a")),
    ("^b", "m", "a\u{a}b", Some("b")),
    ("a$", "m", "a\u{a}b", Some("a")),
    ("^b", "", "a\u{a}b", None),
    ("s", "i", "\u{17f}S", Some("S")),
    ("k+", "i", "\u{212a}kK", Some("kK")),
    ("\u{df}", "i", "\u{1e9e}\u{df}", Some("\u{df}")),
    ("[a-z]+", "i", "\u{17f}ABC", Some("ABC")),
    ("[^a-z]+", "i", "ABC-\u{17f}", Some("-\u{17f}")),
    ("\u{3c3}+", "i", "\u{3a3}\u{3c2}\u{3c3}X", Some("\u{3a3}\u{3c2}\u{3c3}")),
    ("[\u{5c}d-z]+", "", "1-z", Some("1-z")),
    ("a{2}", "", "aaa", Some("aa")),
    ("a{,2}", "", "a{,2}", Some("a{,2}")),
    ("x{2,}", "", "xxxx", Some("xxxx")),
    ("p{L}", "", "p{L}", Some("p{L}")),
    ("\u{5c}cJ", "", "a\u{a}b", Some("\u{a}")),
    ("[\u{5c}cJ]", "", "a\u{a}b", Some("\u{a}")),
    ("\u{5c}x41\u{5c}u0042", "", "zAB", Some("AB")),
    ("\u{5c}/", "", "a/b", Some("/")),
    ("[^]", "", "\u{a}", Some("\u{a}")),
    ("[]", "", "abc", None),
    ("\u{5c}0", "", "a\u{0}", Some("\u{0}")),
    ("(?<y>a)b", "", "xab", Some("ab")),
    ("\u{5c}k", "", "k", Some("k")),
    ("\u{5c}e\u{5c}z", "", "ez", Some("ez")),
    ("[\u{5c}b]", "", "a\u{8}b", Some("\u{8}")),
    ("a\u{5c}Bb", "", "ab", Some("ab")),
    ("\u{5c}$\u{5c}^\u{5c}.", "", "$^.", Some("$^.")),
    ("]}", "", "]}", Some("]}")),
    ("[\u{5c}]\u{5c}\u{5c}-]+", "", "]\u{5c}-", Some("]\u{5c}-")),
    ("[.&&~]+", "", ".&~", Some(".&~")),
    ("\u{1f600}", "", "a\u{1f600}", Some("\u{1f600}")),
    ("(a)|b", "", "b", Some("b")),
    ("a*?b", "", "aab", Some("aab")),
    ("\u{5c}u00e9", "i", "\u{c9}", Some("\u{c9}")),
    ("[^\u{5c}W]+", "", "ab cd", Some("ab")),
];

fn first_match(pattern: &str, flags: &str, input: &str) -> Option<String> {
    let translated =
        translate(pattern, flags).unwrap_or_else(|e| panic!("/{pattern}/{flags}: {e:?}"));
    let prefix = if translated.flags.contains('m') {
        "(?m)"
    } else {
        ""
    };
    let re = regex::Regex::new(&format!("{prefix}{}", translated.pattern))
        .unwrap_or_else(|e| panic!("/{pattern}/{flags} as {}: {e}", translated.pattern));
    re.find(input).map(|m| m.as_str().to_owned())
}

#[test]
fn translated_patterns_match_what_javascript_matches() {
    for &(pattern, flags, input, want) in CASES {
        assert_eq!(
            first_match(pattern, flags, input).as_deref(),
            want,
            "/{pattern}/{flags} on {input:?}"
        );
    }
}

#[test]
fn what_javascript_reads_differently_is_refused_with_the_reason() {
    for (pattern, flags, reason) in [
        (r"(a)\1", "", "backreferences"),
        (r"(?<n>a)\k<n>", "", "backreferences"),
        (r"a(?=b)", "", "lookahead"),
        (r"a(?!b)", "", "negative lookahead"),
        (r"(?<=a)b", "", "lookbehind"),
        (r"(?<!a)b", "", "negative lookbehind"),
        (r"\u{41}", "", "needs the `u` flag"),
        (r"\101", "", "octal"),
        (r"\8", "", "octal"),
        (r"[\1]", "", "octal"),
        (r"\c1", "", "control letter"),
        (r"\uD83D", "", "surrogate"),
        ("😀+", "", "quantifier"),
        ("[😀]", "", "Basic Multilingual Plane"),
        ("a", "s", "flag `s`"),
        ("a", "y", "flag `y`"),
        ("a", "u", "flag `u`"),
        ("a", "g", "flag `g`"),
        ("[b-a]", "", "out of order"),
        ("[ab", "", "unterminated"),
        ("a\\", "", "end of the pattern"),
    ] {
        let err = translate(pattern, flags).expect_err(pattern);
        assert!(
            err.reason.contains(reason),
            "/{pattern}/{flags}: {}",
            err.reason
        );
    }
}

#[test]
fn the_error_points_at_the_construct() {
    assert_eq!(translate(r"ab(?=c)", "").unwrap_err().offset, 2);
    assert_eq!(translate(r"é(x)\1", "").unwrap_err().offset, 4);
}
