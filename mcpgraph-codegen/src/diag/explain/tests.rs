use std::collections::HashSet;
use std::path::PathBuf;

use super::{Beside, explain, explanations};
use crate::diag::{Diagnostics, Severity, codes};
use crate::expand::ExpandOptions;

#[test]
fn every_code_has_one_explanation_in_order() {
    let explained: Vec<_> = explanations().iter().map(|e| e.code).collect();
    assert_eq!(explained, codes::ALL);
    let unique: HashSet<_> = codes::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(unique.len(), codes::ALL.len(), "a code is listed twice");
    for code in codes::ALL {
        assert_eq!(explain(code.as_str()).map(|e| e.code), Some(*code));
    }
    assert!(explain("no_such_code").is_none());
}

#[test]
fn every_lint_is_a_code() {
    for lint in crate::lints::names() {
        assert!(explain(lint).is_some(), "the lint `{lint}` has no code");
    }
}

#[test]
fn codes_are_snake_case() {
    for code in codes::ALL {
        let s = code.as_str();
        let mut words = s.split('_');
        assert!(
            words
                .next()
                .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_lowercase()))
                && s.split('_').all(|w| {
                    !w.is_empty()
                        && w.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                }),
            "{s}"
        );
    }
}

/// A directory of its own for one example.
fn scratch(code: &str, what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcpgraph-explain-{}-{code}-{what}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The diagnostics `mcpgraph check` gives for `graph` (with what is
/// beside it), the graph's and the test file's.
fn check(
    code: &str,
    what: &str,
    graph: &str,
    beside: Beside,
    tests: Option<&str>,
) -> Vec<Diagnostics> {
    let dir = scratch(code, what);
    let path = dir.join("graph.yaml");
    match beside {
        Beside::NoFile => {}
        Beside::Latin1 => {
            let bytes: Vec<u8> = graph
                .chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap())
                .collect();
            std::fs::write(&path, bytes).unwrap();
        }
        _ => std::fs::write(&path, graph).unwrap(),
    }
    if let Beside::Lock(lock) = beside {
        std::fs::write(dir.join("graph.lock.json"), lock).unwrap();
    }
    if let Some(tests) = tests {
        std::fs::write(dir.join("graph.test.yaml"), tests).unwrap();
    }
    let options = ExpandOptions {
        require_lock: beside == Beside::NoRequiredLock,
        ..ExpandOptions::default()
    };
    let output = crate::generate_file(&path, "graph.yaml", &options);
    let _ = std::fs::remove_dir_all(&dir);
    std::iter::once(output.diagnostics)
        .chain(output.test_diagnostics)
        .collect()
}

#[test]
fn every_example_fails_with_its_code_and_its_fix_does_not() {
    let mut wrong = Vec::new();
    for e in explanations() {
        let code = e.code.as_str();
        let tests = match e.beside {
            Beside::Tests(tests) => Some(tests),
            _ => None,
        };
        let found = check(code, "example", e.example, e.beside, tests);
        if !found
            .iter()
            .flat_map(|d| &d.items)
            .any(|d| d.code == e.code)
        {
            let all: String = found.iter().map(ToString::to_string).collect();
            wrong.push(format!("`{code}`: the example does not give it:\n{all}"));
        }
        let Some(fixed) = e.fixed else { continue };
        let (graph, tests) = match e.beside {
            Beside::Tests(_) => (e.example, Some(fixed)),
            _ => (fixed, None),
        };
        let beside = match e.beside {
            Beside::Latin1 => Beside::Nothing,
            other => other,
        };
        let found = check(code, "fixed", graph, beside, tests);
        let left: Vec<String> = found
            .iter()
            .flat_map(|d| d.items.iter().map(move |i| (d, i)))
            .filter(|(_, i)| i.code == e.code || i.severity == Severity::Error)
            .map(|(d, i)| d.render(i))
            .collect();
        if !left.is_empty() {
            wrong.push(format!(
                "`{code}`: the fix still gives:\n{}",
                left.join("\n")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// docs/DIAGNOSTICS.md: every explanation, in the order of the codes.
fn document() -> String {
    let mut out = String::from(
        "# Diagnostics\n\n\
         <!-- Generated from mcpgraph-codegen/src/diag/explain/catalogue.rs: \
         `EXPECTORATE=overwrite cargo test -p mcpgraph-codegen --lib diag::explain` \
         writes it again. -->\n\n\
         Every diagnostic of `mcpgraph check`, the `mcpgraph!` macro and the \
         build.rs builder has a code: the name of its check, stable across \
         releases: after the severity in `mcpgraph check`'s text \
         (`error[unknown_node]: ...`), `code` in its `--format json`, the rule of \
         its GitHub and SARIF output. `mcpgraph explain CODE` \
         prints its section below. The codes of lints are the names `allow(...)` \
         and `deny(...)` take.\n\n",
    );
    for code in codes::ALL {
        out.push_str(&format!("- [`{code}`](#{code})\n"));
    }
    for e in explanations() {
        out.push_str(&format!("\n<a id=\"{}\"></a>\n\n{e}", e.code));
    }
    out
}

#[test]
fn the_document_is_the_catalogue() {
    expectorate::assert_contents("../docs/DIAGNOSTICS.md", &document());
}
