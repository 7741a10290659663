//! `mcpgraph check` on the types that flow through `parallel`, `forEach`
//! and `elicit` nodes (the lock beside the graph gives the calls'
//! outputs), positions inside block scalars, and the notes on what is not
//! checked: none on a clean locked file.

use std::process::Output;

use mcpgraph_tests::{bin_path, repo_root};

fn check(file: &str) -> Output {
    std::process::Command::new(bin_path("mcpgraph"))
        .arg("check")
        .arg(format!("mcpgraph-macros/tests/ui/{file}.yaml"))
        .current_dir(repo_root())
        .output()
        .expect("run mcpgraph")
}

/// `file` is rejected with `errors` errors, each of `lines` in its output.
#[track_caller]
fn fails_with(file: &str, errors: usize, lines: &[&str]) {
    let out = check(file);
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for line in lines {
        assert!(text.contains(line), "{line:?} not in:\n{text}");
    }
    assert!(
        text.ends_with(&format!(
            "error: checked 1 file: {errors} error{}, 0 warnings\n",
            if errors == 1 { "" } else { "s" }
        )),
        "{text}"
    );
}

#[test]
fn paths_into_parallel_branches() {
    fails_with(
        "types_branch_output_path",
        3,
        &[
            "error[unknown_output_field]: `gather.now.datetim`: the output of `gather.now` (a call to `get_current_time`) has no field `datetim`\n  --> mcpgraph-macros/tests/ui/types_branch_output_path.yaml:27:50\n",
            "= help: did you mean `datetime`?",
            "error[unknown_output_field]: `gather.notes.cont`: the output of `gather.notes` (a call to `notes`) has no field `cont`\n  --> mcpgraph-macros/tests/ui/types_branch_output_path.yaml:27:83\n",
            "error[unknown_field]: `gather.later`: `gather` cannot have a field `later`\n",
        ],
    );
}

#[test]
fn paths_into_an_elicit_answer() {
    fails_with(
        "types_elicit_answer_path",
        1,
        &[
            "error[unknown_field]: `ask.timezon`: the answer to `ask` (its `requestedSchema`) has no field `timezon`\n  --> mcpgraph-macros/tests/ui/types_elicit_answer_path.yaml:18:76\n",
        ],
    );
}

#[test]
fn paths_into_for_each_items_and_outputs() {
    fails_with(
        "types_foreach_item_path",
        2,
        &[
            "error[unknown_input_field]: `item.pth`: `item` cannot have a field `pth`\n  --> mcpgraph-macros/tests/ui/types_foreach_item_path.yaml:25:63\n",
            "error[unknown_output_field]: `each.contnt`: the output of `each` (a call to `read_one`) has no field `contnt`\n",
        ],
    );
}

#[test]
fn a_typo_in_a_block_scalar_is_reported_at_its_line() {
    fails_with(
        "types_block_scalar_position",
        1,
        &[
            "error[unknown_output_field]: `list.contnet`: the output of `list` (a call to `list_directory`) has no field `contnet`\n  --> mcpgraph-macros/tests/ui/types_block_scalar_position.yaml:17:29\n",
        ],
    );
}

/// Every path of the file is checked, none is wrong: no note, no problem.
#[test]
fn a_clean_locked_file_has_no_notes() {
    let out = check("types_clean_locked");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("are not checked"), "{text}");
    assert_eq!(text, "checked 1 file: no problems\n");
}
