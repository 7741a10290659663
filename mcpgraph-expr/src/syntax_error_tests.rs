use super::*;

fn parse_error(source: &str) -> String {
    match jsonata_core::parser::parse(source) {
        Ok(_) => panic!("`{source}` parses"),
        Err(e) => message(&e),
    }
}

#[test]
fn tokens_read_as_the_source_text() {
    for (source, want) in [
        (
            r#"$string($count(x) "size: ")"#,
            r#"S0202: Expected `)`, got `"size: "`"#,
        ),
        (
            r#"{ "count": $count(x) +* 1 }"#,
            "S0202: Expected `}`, got `1`",
        ),
        ("[1, 2)", "S0202: Expected `]`, got `)`"),
        ("($.entry", "S0203: Expected `)` before end of expression"),
        ("f(1 2.5)", "S0202: Expected `)`, got `2.5`"),
        ("f(1 $x)", "S0202: Expected `)`, got `$x`"),
        ("f(1 `a b`)", "S0202: Expected `)`, got `a b`"),
        ("f(1 $$)", "S0202: Expected `)`, got `$$`"),
        ("f(1 true)", "S0202: Expected `)`, got `true`"),
    ] {
        assert_eq!(parse_error(source), want, "{source}");
    }
}

#[test]
fn no_message_shows_a_debug_form() {
    for source in [
        "1 +* 2",
        "a ]",
        "(1",
        "{ 'a': }",
        "$x := ",
        "f(1 'x')",
        "f(1 null)",
        "a.b c",
        "1 2",
        "function($x) <n!> { $x }",
        "[1,2] ~> ",
        "\"abc",
        "1 ! 2",
        "=1",
    ] {
        let text = parse_error(source);
        for debug in [
            "String(",
            "Number(",
            "Identifier(",
            "Variable(",
            "Some(",
            "Eof",
            "Null",
            "True",
            "Right",
            "Left",
            "Star",
            "Comma",
            "Colon",
        ] {
            assert!(!text.contains(debug), "`{source}`: {text}");
        }
    }
}

#[test]
fn codes_come_first() {
    assert_eq!(
        parse_error("\"abc"),
        "S0101: String literal must be terminated by a matching quote"
    );
    assert!(
        parse_error("1 2").starts_with("S0201: Syntax error: `2`"),
        "{}",
        parse_error("1 2")
    );
}
