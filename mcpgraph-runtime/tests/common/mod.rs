//! Shared by the conformance runners: where the suites are, how results
//! compare, and the known-failure lists.

#![allow(dead_code)] // each runner uses its own part

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// `testdata/` at the top of the repository (see its README for provenance).
pub(crate) fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// Deep equality of JSON values, numbers equal within a relative tolerance
/// of 1e-10 (the suites' expected values come from JavaScript doubles).
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x == y {
                return true;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => {
                    x == y || (x - y).abs() <= 1e-10 * x.abs().max(y.abs()).max(f64::MIN_POSITIVE)
                }
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Reads a known-failures file: one `case-id  reason` per line, `#`
/// comments and blank lines ignored. Every entry must give a reason.
pub(crate) fn known_failures(path: &Path) -> BTreeMap<String, String> {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut known = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (id, reason) = line
            .split_once(char::is_whitespace)
            .unwrap_or_else(|| panic!("{}:{}: no reason given", path.display(), n + 1));
        assert!(
            known
                .insert(id.to_owned(), reason.trim().to_owned())
                .is_none(),
            "{}:{}: `{id}` listed twice",
            path.display(),
            n + 1
        );
    }
    known
}

/// Fails unless the cases that did not pass are exactly those listed in the
/// known-failures file at `path`: no new failure, no listed case that now
/// passes, no listed case that does not exist.
pub(crate) fn check_against_known_failures(
    results: &BTreeMap<String, Result<(), String>>,
    path: &Path,
) {
    let known = known_failures(path);
    let mut problems = Vec::new();
    for (id, result) in results {
        match (result, known.contains_key(id)) {
            (Err(why), false) => problems.push(format!("FAILS (not listed): {id}: {why}")),
            (Ok(()), true) => problems.push(format!(
                "PASSES but is listed as a known failure, remove it: {id}"
            )),
            _ => {}
        }
    }
    let ids: BTreeSet<&String> = results.keys().collect();
    for id in known.keys().filter(|id| !ids.contains(id)) {
        problems.push(format!("listed but no such case: {id}"));
    }
    for (id, result) in results {
        if let (Err(why), Some(reason)) = (result, known.get(id)) {
            println!("known failure {id} ({reason}): {why}");
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s) against {}:\n{}",
        problems.len(),
        path.display(),
        problems.join("\n")
    );
}
