use super::*;

/// Trees are written out up to `MAX_DEPTH` deep; deeper ones are left to
/// the runtime's parse, since the Rust would nest as deep.
#[test]
fn deep_trees_are_left_to_a_parse_at_start_up() {
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    assert!(tree(&nested(MAX_DEPTH - 2)).is_some());
    assert!(tree(&nested(MAX_DEPTH + 1)).is_none());
    assert!(
        expr(&nested(MAX_DEPTH + 1))
            .to_string()
            .contains("Expr :: parse")
    );
    assert!(
        expr("$.entry.a + 1")
            .to_string()
            .contains("Expr :: from_ast")
    );
    assert!(tree("1 +").is_none());
}

/// The tree written out is the rewritten one, with the helpers the
/// rewrite says it calls; an expression the rewrites refuse (a regex
/// with no JavaScript meaning in Rust's engine, which validation
/// reports) is left to the runtime.
#[test]
fn trees_are_written_out_rewritten() {
    let divides = expr("$.entry.a / $.entry.b + 1").to_string();
    assert!(divides.contains("__mcpgraph_operand"), "{divides}");
    assert!(divides.contains("Helpers :: from_bits (1)"), "{divides}");
    let padded = expr("$pad($.entry.s, 4)").to_string();
    assert!(padded.contains("__mcpgraph_pad_arg"), "{padded}");
    assert!(padded.contains("Helpers :: NONE"), "{padded}");
    assert!(tree(r"$match($.entry.s, /(a)\1/)").is_none());
}

/// Numbers read back exactly, whatever their form.
#[test]
fn numbers_are_written_exactly() {
    for n in [
        0.0,
        -0.0,
        1.5,
        1e300,
        5e-324,
        -2.25,
        f64::NAN,
        f64::INFINITY,
    ] {
        let written = number(n).to_string();
        let back: f64 = match written.strip_prefix("< f64 > :: from_bits (") {
            Some(bits) => f64::from_bits(
                bits.trim_end_matches(')')
                    .trim()
                    .trim_end_matches("u64")
                    .parse()
                    .unwrap(),
            ),
            None => written.replace(' ', "").parse().unwrap(),
        };
        assert_eq!(back.to_bits(), n.to_bits(), "{n} written as {written}");
    }
}
