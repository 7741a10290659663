//! The UI cases (`mcpgraph-macros/tests/ui/*.yaml`): those whose error is one of
//! shape are refused by the schema, the others are listed with the reason
//! the schema cannot see their error.

use std::path::Path;

use super::{ROOT, schema_errors, to_json, validator, yaml_files};

/// UI cases (`mcpgraph-macros/tests/ui/*.yaml`) the schema must refuse: their
/// error is one of shape (an unknown key or node type, a wrong type, a
/// missing field, a malformed `{expr}` or JSON Logic object, a bad tool name
/// or schema, a tool without exactly one entry or exit).
const SCHEMA_REJECTS: &[&str] = &[
    "elicit_form_not_flat.yaml",
    "empty_file.yaml",
    "mcp_without_server.yaml",
    "expr_not_a_string.yaml",
    "expr_with_other_keys.yaml",
    "fanout_retry_bad_values.yaml",
    "five_errors.yaml",
    "input_schema_not_object.yaml",
    "invalid_tool_name.yaml",
    "json_schema_unknown_type.yaml",
    "limits_not_positive.yaml",
    "logic_two_operators.yaml",
    "logic_unknown_operator.yaml",
    "logic_var_not_string.yaml",
    "misplaced_field.yaml",
    "missing_fields.yaml",
    "no_entry_node.yaml",
    "not_a_mapping.yaml",
    "retry_bad_values.yaml",
    "tool_icon_bad.yaml",
    "two_exit_nodes.yaml",
    "unknown_key_node.yaml",
    "unknown_key_server.yaml",
    "unknown_key_tool.yaml",
    "unknown_key_top.yaml",
    "unknown_node_type.yaml",
    "unknown_server_type.yaml",
    "value_depth_ceiling.yaml",
    "wrong_type_next.yaml",
    "wrong_type_nodes.yaml",
    "wrong_type_version.yaml",
    "yaml_truncated.yaml",
];

/// Why a UI case's error is out of the schema's sight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blind {
    /// A rule between values (references, uniqueness, reachability) or
    /// inside a string (JSONata syntax, the node ids an expression reads):
    /// the file must match the schema.
    Semantic,
    /// The file is not one YAML document of JSON values (syntax, encoding,
    /// nesting depth, several documents): there is nothing for a schema to
    /// check, and it is not checked.
    Yaml,
}

/// UI cases the schema cannot see the error of.
const SCHEMA_CANNOT_SEE: &[(&str, Blind)] = &[
    // Lost when YAML becomes JSON (the generator reports the second key).
    ("duplicate_key.yaml", Blind::Semantic),
    ("duplicate_node_ids.yaml", Blind::Semantic),
    ("exit_content_not_mcp.yaml", Blind::Semantic),
    ("duplicate_tool_names.yaml", Blind::Semantic),
    ("exit_unreachable.yaml", Blind::Semantic),
    ("fanout_on_error_unknown_node.yaml", Blind::Semantic),
    // Calls of the graph's own tools: rules between tools.
    ("graph_tool_missing_argument.yaml", Blind::Semantic),
    ("graph_tool_unknown_argument.yaml", Blind::Semantic),
    ("recursion_without_bound.yaml", Blind::Semantic),
    ("unknown_branch_tool.yaml", Blind::Semantic),
    ("jsonata_block_scalar.yaml", Blind::Semantic),
    ("jsonata_double_quoted_escapes.yaml", Blind::Semantic),
    ("jsonata_folded_block.yaml", Blind::Semantic),
    ("jsonata_in_mcp_arg.yaml", Blind::Semantic),
    ("jsonata_in_switch_var.yaml", Blind::Semantic),
    ("jsonata_plain_multiline.yaml", Blind::Semantic),
    ("jsonata_s0101_unclosed_string.yaml", Blind::Semantic),
    ("jsonata_s0102_number_out_of_range.yaml", Blind::Semantic),
    ("jsonata_s0103_unknown_escape.yaml", Blind::Semantic),
    ("jsonata_s0105_unclosed_backtick.yaml", Blind::Semantic),
    ("jsonata_s0202_expected.yaml", Blind::Semantic),
    ("jsonata_s0203_unexpected_end.yaml", Blind::Semantic),
    ("jsonata_s0204_unknown_operator.yaml", Blind::Semantic),
    ("jsonata_s0212_index.yaml", Blind::Semantic),
    ("jsonata_s0212_name.yaml", Blind::Semantic),
    ("jsonata_s0212_number.yaml", Blind::Semantic),
    ("jsonata_single_quoted.yaml", Blind::Semantic),
    // Errors of the test file beside the graph (`<graph>.test.yaml`).
    ("test_file_bad_answers.yaml", Blind::Semantic),
    ("test_file_bad_args.yaml", Blind::Semantic),
    ("test_file_bad_expect.yaml", Blind::Semantic),
    ("test_file_unknown_tool.yaml", Blind::Semantic),
    // Checks of what an expression does when evaluated.
    ("jsonata_unknown_function.yaml", Blind::Semantic),
    ("jsonata_unknown_function_maybe.yaml", Blind::Semantic),
    ("jsonata_argument_count.yaml", Blind::Semantic),
    ("jsonata_argument_type.yaml", Blind::Semantic),
    ("jsonata_operand_type.yaml", Blind::Semantic),
    ("literal_looks_like_expression.yaml", Blind::Semantic),
    // Types that flow through the graph.
    ("shape_transform_field.yaml", Blind::Semantic),
    ("shape_input_field.yaml", Blind::Semantic),
    ("shape_exit_value.yaml", Blind::Semantic),
    ("on_error_unknown_node.yaml", Blind::Semantic),
    ("reference_before_run.yaml", Blind::Semantic),
    ("reference_before_run_itself.yaml", Blind::Semantic),
    ("reference_unknown_bare.yaml", Blind::Semantic),
    ("reference_unknown_history.yaml", Blind::Semantic),
    ("reference_unknown_path.yaml", Blind::Semantic),
    ("skeleton_keeps_tool_items.yaml", Blind::Semantic),
    ("undeclared_server.yaml", Blind::Semantic),
    ("unknown_next.yaml", Blind::Semantic),
    ("unknown_switch_target.yaml", Blind::Semantic),
    ("unreachable_node.yaml", Blind::Semantic),
    // Errors against the graph's lock file, which the schema does not see.
    ("lock_branch_literal_type.yaml", Blind::Semantic),
    ("lock_branch_tool_misspelled.yaml", Blind::Semantic),
    ("lock_checks.yaml", Blind::Semantic),
    ("lock_foreach_literal_type.yaml", Blind::Semantic),
    ("lock_foreach_tool_misspelled.yaml", Blind::Semantic),
    ("lock_required.yaml", Blind::Semantic),
    ("lock_unreadable.yaml", Blind::Semantic),
    ("regex_unsupported.yaml", Blind::Semantic),
    ("retry_not_idempotent.yaml", Blind::Semantic),
    // Types through fan-out, `elicit` and block scalars (with the lock).
    ("types_block_scalar_position.yaml", Blind::Semantic),
    ("types_branch_output_path.yaml", Blind::Semantic),
    ("types_clean_locked.yaml", Blind::Semantic),
    ("types_elicit_answer_path.yaml", Blind::Semantic),
    ("types_foreach_item_path.yaml", Blind::Semantic),
    ("retry_not_idempotent_fanout.yaml", Blind::Semantic),
    ("not_utf8.yaml", Blind::Yaml),
    ("yaml_syntax.yaml", Blind::Yaml),
    // Its `properties` is also a sequence, which the schema would refuse;
    // the generator stops at the depth.
    ("yaml_too_deep.yaml", Blind::Yaml),
    ("yaml_two_documents.yaml", Blind::Yaml),
];

#[test]
fn ui_cases_are_classified() {
    let validator = validator();
    let files = yaml_files("mcpgraph-macros/tests/ui");
    assert!(!files.is_empty());
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    let mut failures = String::new();
    for name in &names {
        let rejects = SCHEMA_REJECTS.contains(&name.as_str());
        let blind = SCHEMA_CANNOT_SEE.iter().find(|(n, _)| n == name);
        match (rejects, blind) {
            (false, None) => failures.push_str(&format!(
                "{name}: a new UI case: add it to SCHEMA_REJECTS (the schema must refuse it) or SCHEMA_CANNOT_SEE\n"
            )),
            (true, Some(_)) => {
                failures.push_str(&format!("{name}: in both SCHEMA_REJECTS and SCHEMA_CANNOT_SEE\n"))
            }
            _ => {}
        }
    }
    for listed in SCHEMA_REJECTS
        .iter()
        .copied()
        .chain(SCHEMA_CANNOT_SEE.iter().map(|(n, _)| *n))
    {
        if !names.iter().any(|n| n == listed) {
            failures.push_str(&format!("{listed}: listed, but there is no such UI case\n"));
        }
    }

    let ui = Path::new(ROOT).join("mcpgraph-macros/tests/ui");
    for name in SCHEMA_REJECTS {
        let Ok(text) = std::fs::read_to_string(ui.join(name)) else {
            continue;
        };
        assert!(
            mcpgraph_codegen::load_str(&text, name).is_err(),
            "{name} loads"
        );
        match to_json(&text) {
            Err(e) => failures.push_str(&format!("{name}: not readable as JSON: {e}\n")),
            Ok(instance) => {
                if validator.is_valid(&instance) {
                    failures.push_str(&format!("{name}: matches the schema, but should not\n"));
                }
            }
        }
    }
    for (name, blind) in SCHEMA_CANNOT_SEE {
        if *blind != Blind::Semantic {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(ui.join(name)) else {
            continue;
        };
        match to_json(&text) {
            Err(e) => failures.push_str(&format!("{name}: not readable as JSON: {e}\n")),
            Ok(instance) => {
                let errors = schema_errors(&validator, &instance);
                if !errors.is_empty() {
                    failures.push_str(&format!(
                        "{name}: the schema refuses it, so it belongs in SCHEMA_REJECTS:\n{errors}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}
