//! `mcpgraph check` on the build-time checks of expressions (unknown
//! functions, built-ins' arguments, operand types), of literal `args` that
//! read like expressions and of paths against the shapes that flow through
//! the graph: the message at the expression's position, the
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

const UI: &str = "mcpgraph-macros/tests/ui/";

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
            "error[unknown_function]: unknown function `$lenght`\n  --> mcpgraph-macros/tests/ui/jsonata_unknown_function.yaml:20:74\n",
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
            "error[function_signature]: `$uppercase` takes at most 1 argument, but is given 2\n  --> mcpgraph-macros/tests/ui/jsonata_argument_count.yaml:20:74\n",
            "its signature is `<s-:s>`",
        ],
    );
}

#[test]
fn literal_argument_of_another_type_is_an_error() {
    fails_with(
        "jsonata_argument_type",
        &[
            "error[function_signature]: the arguments of `$substring` do not match its signature `<s-nn?:s>`\n  --> mcpgraph-macros/tests/ui/jsonata_argument_type.yaml:20:74\n",
            "= note: argument 2 is the string \"1\"",
        ],
    );
}

#[test]
fn operand_type_is_an_error() {
    fails_with(
        "jsonata_operand_type",
        &[
            "error[operand_type]: `+` needs numbers, but its right side is the string \"1\"\n  --> mcpgraph-macros/tests/ui/jsonata_operand_type.yaml:20:66\n",
            "every evaluation fails with T2002",
        ],
    );
}

/// A warning: the file passes, unless warnings are denied; the lint is in
/// every machine-readable format. (The notes beside it say which outputs
/// are not inferred.)
#[track_caller]
fn warns(case: &str, lint: &str, first_line: &str) {
    let file = format!("{UI}{case}.yaml");
    let out = check(&[&file]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(first_line), "{}", stderr(&out));
    let out = check(&["--deny-warnings", "--format", "json", &file]);
    assert_eq!(out.status.code(), Some(1));
    let items = json(&out);
    let warnings: Vec<&Value> = items
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["severity"] != "note")
        .collect();
    assert_eq!(warnings.len(), 1, "{items}");
    assert_eq!(warnings[0]["severity"], "warning");
    assert_eq!(warnings[0]["lint"], lint);
    assert_eq!(warnings[0]["code"], lint);
    let out = check(&["--format", "sarif", &file]);
    let sarif = json(&out);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == lint && r["level"] == "warning"),
        "{sarif}"
    );
    let out = check(&["--format", "github", &file]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains(&format!(
            "::warning file=mcpgraph-macros/tests/ui/{case}.yaml,"
        )),
        "{text}"
    );
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
        "warning[unknown_function]: unknown function `$lenght`\n  --> mcpgraph-macros/tests/ui/jsonata_unknown_function_maybe.yaml:20:88\n",
    );
}

#[test]
fn literal_that_looks_like_an_expression_is_a_warning() {
    warns(
        "literal_looks_like_expression",
        "literal_looks_like_expression",
        "warning[literal_looks_like_expression]: the string `$.entry.directory` is passed as it is: it is not evaluated\n  --> mcpgraph-macros/tests/ui/literal_looks_like_expression.yaml:15:17\n",
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

#[test]
fn path_into_a_transform_output_is_checked() {
    fails_with(
        "shape_transform_field",
        &[
            "error[unknown_field]: `sum.totl`: `sum` cannot have a field `totl`\n  --> mcpgraph-macros/tests/ui/shape_transform_field.yaml:18:35\n",
            "= help: did you mean `total`?",
        ],
    );
}

#[test]
fn path_into_the_arguments_is_checked() {
    warns(
        "shape_input_field",
        "unknown_input_field",
        "warning[unknown_input_field]: `entry.size`: the tool's arguments (its `inputSchema`) cannot have a field `size`\n  --> mcpgraph-macros/tests/ui/shape_input_field.yaml:13:42\n",
    );
}

#[test]
fn exit_value_is_checked_against_the_output_schema() {
    let file = format!("{UI}shape_exit_value.yaml");
    let out = check(&[&file]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains("error[output_schema_mismatch]: the tool's result lacks `total`, which its `outputSchema` requires: `report` goes to the exit with an object without it\n"),
        "{text}"
    );
    assert!(
        text.contains("error[output_schema_mismatch]: the tool's result has `sum`, which its `outputSchema` does not allow (`additionalProperties: false`)\n  --> mcpgraph-macros/tests/ui/shape_exit_value.yaml:18:20\n"),
        "{text}"
    );
}

/// What could not be inferred is a note, which fails nothing.
#[test]
fn what_is_not_inferred_is_a_note() {
    let out = check(&["examples/file_utils/file_utils.yaml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.starts_with("note[unchecked_paths]: the paths into the output of `list_directory_node` are not checked: the output of `filesystem`/`list_directory` is known from its `outputSchema` in a lock, and there is none (`mcpgraph lock` writes it)\n"),
        "{text}"
    );
    assert!(text.ends_with("checked 1 file: no problems\n"), "{text}");
}
