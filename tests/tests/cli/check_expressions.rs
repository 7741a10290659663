//! `mcpgraph check` on the build-time checks of expressions (unknown
//! functions, built-ins' arguments, operand types) and of literal `args` that
//! read like expressions: the message at the expression's position, the
//! lint name in JSON, GitHub and SARIF output, and the exit status.

use std::process::Output;

use mcpgraph_tests::{bin_path, repo_root};
use serde_json::Value;

fn check(args: &[&str]) -> Output {
    std::process::Command::new(bin_path("mcpgraph"))
        .arg("check")
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("run mcpgraph")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

const UI: &str = "mcpgraph/tests/ui/";

/// The file is rejected, with `lines` in its text output.
#[track_caller]
fn fails_with(case: &str, lines: &[&str]) {
    let file = format!("{UI}{case}.yaml");
    let out = check(&[&file]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stderr(&out);
    for line in lines {
        assert!(text.contains(line), "{line:?} not in:\n{text}");
    }
    assert!(
        text.ends_with("error: checked 1 file: 1 error, 0 warnings\n"),
        "{text}"
    );
}

#[test]
fn unknown_function_is_an_error_with_did_you_mean() {
    fails_with(
        "jsonata_unknown_function",
        &[
            "error: unknown function `$lenght`\n  --> mcpgraph/tests/ui/jsonata_unknown_function.yaml:20:74\n",
            "every evaluation fails with T1006",
            "= help: did you mean `$length`?",
        ],
    );
}

#[test]
fn argument_count_is_an_error() {
    fails_with(
        "jsonata_argument_count",
        &[
            "error: `$uppercase` takes at most 1 argument, but is given 2\n  --> mcpgraph/tests/ui/jsonata_argument_count.yaml:20:74\n",
            "its signature is `<s-:s>`",
        ],
    );
}

#[test]
fn literal_argument_of_another_type_is_an_error() {
    fails_with(
        "jsonata_argument_type",
        &[
            "error: the arguments of `$substring` do not match its signature `<s-nn?:s>`\n  --> mcpgraph/tests/ui/jsonata_argument_type.yaml:20:74\n",
            "= note: argument 2 is the string \"1\"",
        ],
    );
}

#[test]
fn operand_type_is_an_error() {
    fails_with(
        "jsonata_operand_type",
        &[
            "error: `+` needs numbers, but its right side is the string \"1\"\n  --> mcpgraph/tests/ui/jsonata_operand_type.yaml:20:66\n",
            "every evaluation fails with T2002",
        ],
    );
}

/// A warning: the file passes, unless warnings are denied; the lint is in
/// every machine-readable format.
#[track_caller]
fn warns(case: &str, lint: &str, first_line: &str) {
    let file = format!("{UI}{case}.yaml");
    let out = check(&[&file]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).starts_with(first_line), "{}", stderr(&out));
    let out = check(&["--deny-warnings", "--format", "json", &file]);
    assert_eq!(out.status.code(), Some(1));
    let items = json(&out);
    assert_eq!(items.as_array().map(Vec::len), Some(1), "{items}");
    assert_eq!(items[0]["severity"], "warning");
    assert_eq!(items[0]["lint"], lint);
    let out = check(&["--format", "sarif", &file]);
    assert_eq!(json(&out)["runs"][0]["results"][0]["ruleId"], lint);
    let out = check(&["--format", "github", &file]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with("::warning file="), "{text}");
    assert!(
        text.contains(&format!("title=mcpgraph%3A {lint}::")),
        "{text}"
    );
}

#[test]
fn unknown_function_in_a_branch_is_a_warning() {
    warns(
        "jsonata_unknown_function_maybe",
        "unknown_function",
        "warning: unknown function `$lenght`\n  --> mcpgraph/tests/ui/jsonata_unknown_function_maybe.yaml:20:88\n",
    );
}

#[test]
fn literal_that_looks_like_an_expression_is_a_warning() {
    warns(
        "literal_looks_like_expression",
        "literal_looks_like_expression",
        "warning: the string `$.entry.directory` is passed as it is: it is not evaluated\n  --> mcpgraph/tests/ui/literal_looks_like_expression.yaml:15:17\n",
    );
    let out = check(&[&format!("{UI}literal_looks_like_expression.yaml")]);
    assert!(
        stderr(&out).contains(
            "= help: to pass what the expression reads, write `{ expr: \"$.entry.directory\" }`"
        ),
        "{}",
        stderr(&out)
    );
}
