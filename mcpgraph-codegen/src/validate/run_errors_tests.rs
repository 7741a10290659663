use std::cell::Cell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::diag::{
    Diagnostic, FUNCTION_SIGNATURE, LITERAL_LOOKS_LIKE_EXPRESSION, OPERAND_TYPE, Severity,
    UNKNOWN_FUNCTION,
};
use crate::test_support::{ENTRY, EXIT, transform, with_nodes};

thread_local! {
    /// How many expressions this thread checked, for the corpus tests.
    pub(super) static CHECKED: Cell<usize> = const { Cell::new(0) };
}

/// Every diagnostic of a one-transform graph whose expression is `expr`.
fn diags(expr: &str) -> Vec<Diagnostic> {
    let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", expr, "exit")));
    let mut items = match crate::load_str_with_warnings(&src, "g.yaml") {
        Ok((_, w)) => w.items,
        Err(d) => d.items,
    };
    // The file's server is unused; the notes say what is not checked.
    items.retain(|d| !d.message.starts_with("server `fs`") && d.severity != Severity::Note);
    items
}

/// The only diagnostic of `expr`: (column, severity, lint, message, help).
#[track_caller]
fn one(expr: &str) -> (u32, Severity, Option<&'static str>, String, Option<String>) {
    let mut d = diags(expr);
    assert_eq!(d.len(), 1, "{expr}: {d:#?}");
    let d = d.remove(0);
    assert_eq!(d.pos.line, 19, "{expr}");
    (d.pos.column, d.severity, d.lint, d.message, d.help)
}

// The expression's first character is at column 18.

#[test]
fn unknown_function_with_did_you_mean() {
    let (col, sev, lint, msg, help) = one("$lenght(\"abc\")");
    assert_eq!((col, sev, lint), (18, Severity::Error, None));
    assert_eq!(msg, "unknown function `$lenght`");
    assert_eq!(help.as_deref(), Some("did you mean `$length`?"));
    let (col, _, _, msg, _) = one("\"abc\" ~> $lenght");
    assert_eq!((col, msg.as_str()), (27, "unknown function `$lenght`"));
    let (col, _, _, _, help) = one("$executionCont(\"a\")");
    assert_eq!(col, 18);
    assert_eq!(help.as_deref(), Some("did you mean `$executionCount`?"));
}

#[test]
fn where_a_call_may_not_run_it_is_a_warning() {
    for expr in [
        "$.entry.x ? $lenght(\"a\") : 1",
        "$.entry.x and $lenght(\"a\")",
        "$map([1], function($v) { $lenght($v) })",
        "$.entry.items.$lenght()",
        "$.entry[$lenght(\"a\") > 1]",
    ] {
        let (_, sev, lint, msg, _) = one(expr);
        assert_eq!(
            (sev, lint),
            (Severity::Warning, Some(UNKNOWN_FUNCTION)),
            "{expr}"
        );
        assert_eq!(msg, "unknown function `$lenght`");
    }
}

#[test]
fn argument_counts() {
    for (expr, col, msg) in [
        (
            "$length(\"a\", \"b\")",
            18,
            "`$length` takes at most 1 argument, but is given 2",
        ),
        (
            "$substring()",
            18,
            "`$substring` takes 1 to 3 arguments, but is given 0",
        ),
        ("$sum()", 18, "`$sum` takes 1 argument, but is given 0"),
        (
            "\"x\" ~> $uppercase(\"y\")",
            25,
            "`$uppercase` takes at most 1 argument, but is given 2",
        ),
        (
            "$zip()",
            18,
            "`$zip` takes at least 1 argument, but is given 0",
        ),
        (
            "$executionCount()",
            18,
            "`$executionCount` takes at least 1 argument, but is given 0",
        ),
        // The second call is the wrong one.
        (
            "$length(\"a\") + $length(\"a\", \"b\")",
            33,
            "`$length` takes at most 1 argument, but is given 2",
        ),
    ] {
        let (c, sev, _, m, _) = one(expr);
        assert_eq!((c, sev, m.as_str()), (col, Severity::Error, msg), "{expr}");
    }
}

#[test]
fn literal_argument_types() {
    for (expr, col, msg) in [
        (
            "$uppercase(28)",
            18,
            "the arguments of `$uppercase` do not match its signature `<s-:s>`",
        ),
        (
            "$string(2, 3)",
            18,
            "the arguments of `$string` do not match its signature `<x-b?:s>`",
        ),
        (
            "28 ~> $length()",
            24,
            "the arguments of `$length` do not match its signature `<s-:n>`",
        ),
        (
            "$map([1], \"f\")",
            18,
            "the arguments of `$map` do not match its signature `<af>`",
        ),
    ] {
        let (c, sev, _, m, _) = one(expr);
        assert_eq!((c, sev, m.as_str()), (col, Severity::Error, msg), "{expr}");
    }
    let d = diags("$substring(\"Hello\", \"World\", 5)");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        d[0].notes[0],
        "argument 1 is the string \"Hello\", argument 2 is the string \"World\", argument 3 is a number"
    );
    let (_, sev, lint, _, _) = one("$.entry.x ? $number(null) : 0");
    assert_eq!((sev, lint), (Severity::Warning, Some(FUNCTION_SIGNATURE)));
}

#[test]
fn operand_types() {
    for (expr, col, msg) in [
        (
            "\"a\" + 1",
            22,
            "`+` needs numbers, but its left side is the string \"a\"",
        ),
        (
            "1 * true",
            20,
            "`*` needs numbers, but its right side is `true`",
        ),
        (
            "-\"x\"",
            18,
            "`-` negates numbers, but its operand is the string \"x\"",
        ),
        (
            "\"a\" < 1",
            22,
            "`<` compares values of one type, but one side is a string and the other a number",
        ),
        (
            "null >= $.entry.n",
            23,
            "`>=` compares numbers or strings, but one side is `null`",
        ),
        (
            "[1..2.5]",
            20,
            "`..` needs integers, but its right side is the number 2.5",
        ),
        (
            "1 - 2 - \"x\"",
            24,
            "`-` needs numbers, but its right side is the string \"x\"",
        ),
    ] {
        let (c, sev, _, m, _) = one(expr);
        assert_eq!((c, sev, m.as_str()), (col, Severity::Error, msg), "{expr}");
    }
    let (_, sev, lint, _, _) = one("$.entry.x ? \"a\" + 1 : 0");
    assert_eq!((sev, lint), (Severity::Warning, Some(OPERAND_TYPE)));
    let (_, sev, lint, _, _) = one("$.entry.x or $length(1, 2)");
    assert_eq!((sev, lint), (Severity::Warning, Some(FUNCTION_SIGNATURE)));
}

#[test]
fn no_false_alarms() {
    for expr in [
        "$string()",
        "\"x\" ~> $uppercase()",
        "$substringBefore(\"abc\")",
        "$substring(?, 1)",
        "($f := function($a) { $a }; $f(1, 2, 3))",
        "($length := function($a, $b) { $a }; $length(1, 2))",
        "$map([1, 2], function($v, $i) { $v + $i })",
        "$uppercase ~> $trim",
        "$previousNode()",
        "$nodeExecution(\"entry\", 0, 1)",
        "\"a\" & 1",
        "\"a\" = 1",
        "\"a\" < \"b\"",
        "-1 + $.entry.n",
        "$.entry.n + 1e-5",
        "$.entry.items@$i.($i + 1)",
        "$.entry.items#$p.($p + 1)",
        "$now() & $millis()",
        "string(1)",
        "$substring(\"abc\", 1)",
        "$contains(\"abc\", /b/)",
        "$map([1, 2], $string)",
        "$string(1, true)",
        "$length($.entry.s)",
        "$sum([1, 2])",
        "$sum(1)",
        "$join([\"a\"], \",\")",
        "$formatNumber(-1, \"#\")",
    ] {
        assert_eq!(diags(expr), vec![], "{expr}");
    }
}

/// The graph files of the repository, but for the UI cases (which are
/// wrong on purpose) and the compat fixtures (`mcpgraph-macros/tests/compat/`,
/// files mcpGraph runs that warn on purpose).
pub(crate) fn repository_graphs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                let skip = [
                    "target",
                    "node_modules",
                    ".git",
                    "ui",
                    "compat",
                    "peers",
                    "fuzz",
                ];
                if !skip.contains(&name.as_str()) && !name.starts_with('.') {
                    dirs.push(p);
                }
            } else if name.ends_with(".yaml") || name.ends_with(".yml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The repository's graphs (examples, test graphs, mcpGraph's own, the
/// documentation's, the benchmarks') give none of these diagnostics (nor
/// `literal_looks_like_expression`).
#[test]
fn repository_graphs_have_no_findings() {
    let lints = [
        UNKNOWN_FUNCTION,
        FUNCTION_SIGNATURE,
        OPERAND_TYPE,
        LITERAL_LOOKS_LIKE_EXPRESSION,
    ];
    let (mut files, mut checked, mut on_purpose) = (0, 0, 0);
    for path in repository_graphs() {
        let src = std::fs::read_to_string(&path).unwrap();
        if !src.contains("tools:") {
            continue; // Not a graph (a workflow, a lock, ...).
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // Literal `$.` strings on purpose: the benchmark's graphs for
        // mcpGraph's TypeScript engine (which evaluates them), and the test
        // that they are passed as they are.
        let literal_on_purpose = name.ends_with(".mcpgraph.yaml") || name == "semantics.yaml";
        let before = CHECKED.with(Cell::get);
        let items = match crate::load_str_with_warnings(&src, "g.yaml") {
            Ok((_, w)) => w.items,
            Err(d) => d.items,
        };
        files += 1;
        checked += CHECKED.with(Cell::get) - before;
        for d in items {
            if literal_on_purpose && d.lint == Some(LITERAL_LOOKS_LIKE_EXPRESSION) {
                on_purpose += 1;
                continue;
            }
            let ours = d.lint.is_some_and(|l| lints.contains(&l))
                || d.notes.iter().any(|n| n.contains("fails with"));
            assert!(!ours, "{}: {d:#?}", path.display());
        }
    }
    eprintln!("{files} graph files, {checked} expressions checked");
    // bench.mcpgraph.yaml and semantics.yaml: 1 each; fanout.mcpgraph.yaml: 6.
    assert_eq!(on_purpose, 8, "the literals written on purpose are found");
    assert!(
        files >= 40 && checked >= 300,
        "{files} files, {checked} expressions"
    );
}

/// The official JSONata suite: no case that evaluates without an error is
/// flagged as failing; the cases that fail with the errors these checks
/// know are counted.
#[test]
fn jsonata_suite_has_no_false_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/jsonata/groups");
    let caught_codes = [
        "T1006", "T2006", "T0410", "T2001", "T2002", "T2003", "T2004", "T2009", "T2010", "D1002",
    ];
    let (mut passing, mut warned, mut failing, mut caught) = (0, 0, 0, 0);
    let mut false_errors = Vec::new();
    let mut groups: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    groups.sort();
    for group in groups {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&group)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            // A few cases hold text serde_json refuses (lone surrogates).
            let Ok(json) =
                serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&file).unwrap())
            else {
                continue;
            };
            let cases = match json {
                serde_json::Value::Array(v) => v,
                one => vec![one],
            };
            for case in cases {
                let text = match (case.get("expr"), case.get("expr-file")) {
                    (Some(e), _) => e.as_str().unwrap().to_owned(),
                    (None, Some(f)) => {
                        std::fs::read_to_string(group.join(f.as_str().unwrap())).unwrap()
                    }
                    _ => continue,
                };
                let Ok(ast) = jsonata_core::parser::parse(&text) else {
                    continue;
                };
                let mut bound: HashSet<String> = HashSet::new();
                crate::validate::tree::bound_names(&ast, &mut bound);
                if let Some(b) = case.get("bindings").and_then(|b| b.as_object()) {
                    bound.extend(b.keys().cloned());
                }
                let walk = super::walk(&ast, &bound);
                let sure = walk.found.iter().any(|f| f.surely);
                let code = case
                    .get("code")
                    .or_else(|| case.get("error").and_then(|e| e.get("code")))
                    .and_then(|c| c.as_str());
                match code {
                    None => {
                        passing += 1;
                        warned += usize::from(!walk.found.is_empty());
                        if sure {
                            false_errors.push(format!("{}: {text}", file.display()));
                        }
                    }
                    Some(code) if caught_codes.contains(&code) => {
                        failing += 1;
                        caught += usize::from(!walk.found.is_empty());
                    }
                    Some(_) => {}
                }
            }
        }
    }
    eprintln!(
        "JSONata suite: {passing} passing cases, none flagged as failing, {warned} with a warning; {caught} of {failing} failing with these errors caught"
    );
    assert!(false_errors.is_empty(), "{false_errors:#?}");
    assert_eq!(warned, 0, "passing cases with a warning");
    assert!(passing > 1000, "{passing}");
}
