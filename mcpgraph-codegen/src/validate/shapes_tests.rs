use super::Types;
use crate::diag::{Severity, UNKNOWN_INPUT_FIELD};
use crate::test_support::{ENTRY, EXIT, transform};
use crate::validate::paths::{Checked, check_paths};

/// The errors and warnings of a tool whose input schema is `schema` and
/// whose transforms `a` and `b` are `a` and `b`.
fn diags(schema: &str, a: &str, b: &str) -> Vec<crate::diag::Diagnostic> {
    let mut d = all(schema, "", a, b);
    d.retain(|d| d.severity != Severity::Note);
    d
}

/// Every diagnostic of such a tool, with `more` after its input schema.
fn all(schema: &str, more: &str, a: &str, b: &str) -> Vec<crate::diag::Diagnostic> {
    let src = format!(
        "version: \"1.0\"\nserver:\n  name: s\n  version: \"1.0\"\ntools:\n  - name: t\n    description: d\n    inputSchema: {schema}\n{more}    nodes:\n{ENTRY}{}{}{EXIT}",
        transform("a", a, "b"),
        transform("b", b, "exit")
    );
    match crate::load_str_with_warnings(&src, "g.yaml") {
        Ok((_, w)) => w.items,
        Err(d) => d.items,
    }
}

const SCHEMA: &str = "{type: object, properties: {directory: {type: string}, opts: {type: object, properties: {depth: {type: number}}, additionalProperties: false}}}";

#[test]
fn paths_into_transform_outputs() {
    let mut d = diags(
        SCHEMA,
        "{ \"count\": 1, \"list\": { \"n\": 2 } }",
        "$.a.cuont + $.a.list.m",
    );
    assert_eq!(d.len(), 2, "{d:#?}");
    d.sort_by(|x, y| x.message.cmp(&y.message));
    assert_eq!(d[0].severity, Severity::Error);
    assert_eq!(d[0].message, "`a.cuont`: `a` cannot have a field `cuont`");
    assert_eq!(d[0].help.as_deref(), Some("did you mean `count`?"));
    assert_eq!(d[0].notes, vec!["its fields: count, list".to_owned()]);
    assert_eq!(d[1].message, "`a.list.m`: `a.list` cannot have a field `m`");
    // Blocks and conditionals ending in constructors; reads that fit.
    let d = diags(
        SCHEMA,
        "($x := 1; $.entry.directory ? { \"p\": $x } : { \"q\": 2 })",
        "$.a.p & $.a.q & $.a.p.deeper",
    );
    assert_eq!(d, vec![]);
}

#[test]
fn paths_into_the_arguments() {
    let d = diags(SCHEMA, "$.entry.directry", "$.entry.opts.dept");
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(
        (d[0].severity, d[0].lint),
        (Severity::Warning, Some(UNKNOWN_INPUT_FIELD))
    );
    assert_eq!(
        d[0].message,
        "`entry.directry`: the tool's arguments (its `inputSchema`) cannot have a field `directry`"
    );
    assert_eq!(d[0].help.as_deref(), Some("did you mean `directory`?"));
    assert_eq!((d[1].severity, d[1].lint), (Severity::Error, None));
    // A schema without properties says nothing.
    assert_eq!(diags("{type: object}", "$.entry.x", "1"), vec![]);
}

#[test]
fn what_is_not_inferred_is_a_note() {
    let d = all("{type: object}", "", "$.entry.x", "$sum([1]) ~> $string()");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].severity, Severity::Note);
    assert_eq!(
        d[0].message,
        "the paths into the output of `entry` are not checked: the tool's `inputSchema` lists no `properties`"
    );
    let d = all(SCHEMA, "", "$sum([1])", "$.a.x");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        d[0].message
            .ends_with("its expression is not an object constructor with literal keys")
    );
}

#[test]
fn the_exit_value_against_the_output_schema() {
    let out = "    outputSchema: {type: object, properties: {count: {type: number}}, required: [count], additionalProperties: false}\n";
    let d = all(SCHEMA, out, "1", "{ \"cuont\": 1 }");
    let msgs: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        msgs,
        vec![
            "the tool's result lacks `count`, which its `outputSchema` requires: `b` goes to the exit with an object without it",
            "the tool's result has `cuont`, which its `outputSchema` does not allow (`additionalProperties: false`)",
        ]
    );
    assert!(d.iter().all(|d| d.severity == Severity::Error));
    assert_eq!(d[1].help.as_deref(), Some("did you mean `count`?"));
    assert_eq!(all(SCHEMA, out, "1", "{ \"count\": $.a }"), vec![]);
    assert_eq!(
        all(SCHEMA, out, "1", "$.a ? { \"count\": 1 } : $.a"),
        vec![]
    );
}

/// How many paths into nodes the repository's graphs hold, and how many
/// of them these checks see into; none gives a diagnostic.
#[test]
fn repository_paths_are_counted() {
    let (mut total, mut checked) = (0, 0);
    for path in crate::validate::run_errors::tests::repository_graphs() {
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(file) = crate::load_str(&src, "g.yaml") else {
            continue;
        };
        for tool in &file.tools {
            let mut d = crate::diag::Diagnostics::new("g.yaml", &src);
            let types = Types {
                tools: &file.tools,
                lock: None,
            };
            let fared = check_paths(&types, tool, &mut d);
            d.items.retain(|i| i.severity != Severity::Note);
            assert!(d.is_empty(), "{}: {d}", path.display());
            total += fared.len();
            checked += fared.iter().filter(|f| **f == Checked::Yes).count();
        }
    }
    eprintln!("paths into nodes: {total}, checked against a known shape: {checked}");
    assert!(checked > 0 && total >= checked);
}
