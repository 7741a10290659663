//! mcpGraph's own example graphs and expected results, copied into
//! `testdata/mcpgraph`: locating them and reading them as JSON.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::repo_root;

/// mcpGraph's example graphs, data and expected results, copied into the
/// repository: `testdata/mcpgraph` (provenance in `testdata/README.md`).
pub fn compat_dir() -> PathBuf {
    repo_root().join("testdata/mcpgraph")
}

/// The binary name for a compat file name (`loop_example.yaml` → `loop_example`).
pub fn bin_for_file(file: &str) -> &str {
    file.strip_suffix(".yaml")
        .unwrap_or_else(|| panic!("compat file {file} does not end in .yaml"))
}

/// Parses a YAML file into JSON.
pub fn load_yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    // YAML 1.2 core schema, as mcpGraph's `yaml` package reads it: `n`,
    // `yes`, `off` are strings, not booleans.
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    serde_saphyr::from_str_with_options::<Value>(&text, options)
        .unwrap_or_else(|e| panic!("cannot parse {} as YAML: {e}", path.display()))
}

/// The parsed `testdata/mcpgraph/expected.json`.
pub fn expected() -> Value {
    let path = compat_dir().join("expected.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON in {}: {e}", path.display()))
}

/// Replaces `<this folder>` in every string of `v` with `folder`.
pub fn substitute_this_folder(v: &Value, folder: &Path) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("<this folder>", &folder.to_string_lossy())),
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| substitute_this_folder(x, folder))
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), substitute_this_folder(x, folder)))
                .collect(),
        ),
        other => other.clone(),
    }
}
