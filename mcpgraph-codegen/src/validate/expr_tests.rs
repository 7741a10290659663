use crate::test_support::{ENTRY, EXIT, errors, one_error, transform, with_nodes};

#[test]
fn s0212_assignments() {
    for (expr, col) in [("x := 1", 20), ("2 := 1", 20), ("$a[1] := 3", 24)] {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", expr, "exit")));
        let (line, c, msg) = one_error(&src);
        assert!(msg.contains("S0212"), "{msg}");
        assert_eq!((line, c), (19, col), "{expr}");
    }
    let src = with_nodes(&format!(
        "{ENTRY}{}{EXIT}",
        transform("a", "($a := 1; $a)", "exit")
    ));
    assert_eq!(errors(&src), vec![]);
}

#[test]
fn node_references() {
    for (expr, bad, col) in [
        ("$.nope.x", "nope", 20),
        ("$$.nope", "nope", 21),
        ("nope.value", "nope", 18),
        ("{\"a\": $.entry.x, \"b\": nope}", "nope", 40),
        ("$executionCount(\"nope\")", "nope", 34),
        ("$nodeExecution(\"nope\", -1)", "nope", 33),
        ("$nodeExecutions(\"nope\")", "nope", 34),
        ("$.`nope`", "nope", 20),
    ] {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", expr, "exit")));
        let (line, c, msg) = one_error(&src);
        assert!(
            msg.contains(&format!("`{bad}`, which is not a node of tool `t`")),
            "{msg}"
        );
        assert_eq!((line, c), (19, col), "{expr}");
    }
    // Not references to the context: items inside paths and predicates,
    // variables, `$` inside a path step.
    for expr in [
        "$.entry.items[price > 1].name",
        "$.entry.items.$.name",
        "$x := 1",
        "$map($.entry.xs, function($v) { $v.y })",
        "$.entry.xs.(foo)",
        "$previousNode().count",
        "$$.a.b",
        "$executionCount(\"a\")",
        "a.b",
    ] {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", expr, "exit")));
        assert_eq!(errors(&src), vec![], "{expr}");
    }
}

#[test]
fn references_in_args_and_vars() {
    let src = with_nodes(&format!(
        "{ENTRY}      - id: a\n        type: mcp\n        server: fs\n        tool: x\n        args:\n          path: {{expr: \"$.nope\"}}\n          list: [{{expr: \"$.entry\"}}, 2]\n        next: sw\n      - id: sw\n        type: switch\n        conditions:\n          - rule: {{\">\": [{{var: \"other.value\"}}, 10]}}\n            next: exit\n        next: exit\n{EXIT}"
    ));
    let errs = errors(&src);
    let msgs: Vec<&str> = errs.iter().map(|e| e.2.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "the expression reads `nope`, which is not a node of tool `t`",
            "the expression reads `other`, which is not a node of tool `t`",
        ]
    );
    assert_eq!((errs[0].0, errs[0].1), (21, 27));
    assert_eq!((errs[1].0, errs[1].1), (27, 33));
}
