//! `elicit` nodes in a graph's own tests (`<server> test`, issue 43): the
//! cases of `graphs/elicit.test.yaml` answer the user's questions
//! (`answers`), so that an answer, a decline and a cancel each take their
//! route, a node asked in a loop takes its answers in order, and coverage
//! counts each answer's route; a case whose graph asks a question it does
//! not answer fails, naming the node and its message.

use std::path::{Path, PathBuf};

use mcpgraph_tests::*;
use serde_json::Value;

use super::graph_cases::scratch;

/// The compiled `graphs/elicit.yaml`, with `graphs/elicit.test.yaml`.
fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_elicit_fixture"))
}

async fn test(args: &[&str]) -> CliOutput {
    let mut cmd = tokio::process::Command::new(fixture());
    cmd.arg("test")
        .args(args)
        .current_dir(repo_root().join("tests/graphs"))
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    // The fixture is built with this test; the example programs `timed`
    // waits for are not needed.
    let out = tokio::time::timeout(TIMEOUT, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("timed out: elicit_fixture test {args:?}"))
        .unwrap();
    CliOutput {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The coverage of `tool` in `test --json`'s `report`.
fn coverage<'a>(report: &'a Value, tool: &str) -> &'a Value {
    report["coverage"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["tool"] == tool))
        .unwrap_or_else(|| panic!("no coverage of `{tool}`: {report}"))
}

#[tokio::test]
async fn answers_take_each_route_of_an_elicit_node_and_coverage_counts_them() {
    let out = test(&["--json"]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["failed"], 0, "{report:#}");
    assert_eq!(report["passed"], 8, "{report:#}");
    assert_eq!(report["coverage"]["percent"], 100.0, "{report:#}");
    let greet = coverage(&report, "greet");
    assert_eq!(
        (&greet["routes"], &greet["routesTaken"]),
        (&Value::from(3), &Value::from(3)),
        "{greet:#}"
    );
    assert_eq!(greet["missed"], serde_json::json!([]), "{greet:#}");
    // `choose` took its accept and decline routes and its loop.
    let choose = coverage(&report, "choose");
    assert_eq!(choose["missed"], serde_json::json!([]), "{choose:#}");

    let out = test(&[]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.contains("8 passed, 0 failed; coverage 100.0%"),
        "{out:?}"
    );
}

/// A coverage that is missing one answer's route says which.
#[tokio::test]
async fn a_route_no_answer_took_is_reported_as_never_taken() {
    let dir = scratch("elicit-coverage");
    let file = write_cases(
        &dir,
        "  - name: accepts\n    tool: greet\n    args: { greeting: Hi }\n    answers: { user_name: { action: accept, content: { name: Ada } } }\n    expect: { subset: { greeting: \"Hi, Ada\" } }\n  - name: cancels\n    tool: greet\n    args: { greeting: Hi }\n    answers: { user_name: { action: cancel } }\n    expect: { output: { cancelled: true } }\n",
    );
    let out = test(&[file.to_str().unwrap()]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout
            .contains("`user_name` never took its decline route to `sorry`"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout
            .contains("`user_name` never took its accept route")
            && !out
                .stdout
                .contains("`user_name` never took its cancel route"),
        "{}",
        out.stdout
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A case whose graph asks without an answer, or asks once more than it
/// is answered, fails naming the node and the question.
#[tokio::test]
async fn a_question_the_case_does_not_answer_fails_the_case_naming_node_and_message() {
    let dir = scratch("elicit-unanswered");
    let file = write_cases(
        &dir,
        "  - name: gives no answer\n    tool: greet\n    args: { greeting: Hello }\n    expect: { subset: { greeting: \"Hello, Ada\" } }\n  - name: answers once too few\n    tool: choose\n    answers: { pick: { action: accept, content: { colour: red } } }\n    expect: { subset: { colour: blue } }\n  - name: answers a node that never asks\n    tool: ask_age\n    answers:\n      ask: { action: accept, content: { age: 7 } }\n      user_name: { action: cancel }\n    expect: { output: { age: 7 } }\n",
    );
    let out = test(&[file.to_str().unwrap()]).await;
    assert_eq!(out.code, Some(1), "{out:?}");
    for wanted in [
        "FAIL  gives no answer",
        "node `user_name` asked the user \"Hello, what is your name?\", and the case gives no answer for `user_name`",
        "FAIL  answers once too few",
        "node `pick` asked the user \"Pick a colour, not red\", and the case gives `pick` 1 answer(s), and it asked again",
        "ok    answers a node that never asks",
        "note: answers no question took: `user_name` (1)",
        "1 passed, 2 failed",
    ] {
        assert!(out.stdout.contains(wanted), "{wanted}:\n{}", out.stdout);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A test file of elicit.yaml's with `cases` (lines indented by two).
fn write_cases(dir: &Path, cases: &str) -> PathBuf {
    let file = dir.join("elicit.test.yaml");
    std::fs::write(&file, format!("cases:\n{cases}")).unwrap();
    file
}
