//! A graph's test cases (`<graph>.test.yaml`): the compiled-in file the
//! generator checked at build time, or one read at run time.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{CaseProblem, GraphTestError};

/// A test file.
#[derive(Debug)]
pub(crate) struct TestFile {
    /// Where it is (the cassette's default place is beside it).
    pub(crate) path: PathBuf,
    pub(crate) cases: Vec<Case>,
}

/// The file's text as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Text {
    cases: Vec<Case>,
}

/// The compiled-in form ([`GraphDef::tests`](mcpgraph_runtime::GraphDef::tests)).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Compiled {
    file: PathBuf,
    cases: Vec<Case>,
}

/// One case: a call and what it must give.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Case {
    pub(crate) name: String,
    pub(crate) tool: String,
    #[serde(default)]
    pub(crate) args: Map<String, Value>,
    pub(crate) expect: Expect,
    /// The user's answers to the graph's `elicit` nodes, by node id.
    #[serde(default)]
    pub(crate) answers: crate::answers::Answers,
    /// Its line in the file (compiled-in files only).
    #[serde(default)]
    pub(crate) line: Option<u32>,
}

/// What a case must give; every key given must hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    /// The output, exactly.
    #[serde(default, deserialize_with = "present")]
    pub(crate) output: Option<Value>,
    /// Values the output holds (objects may have more keys).
    #[serde(default, deserialize_with = "present")]
    pub(crate) subset: Option<Value>,
    /// A JSONata expression over the output (`$`) that must be true.
    #[serde(default, rename = "assert")]
    pub(crate) predicate: Option<String>,
    /// The call fails, its message containing this.
    #[serde(default)]
    pub(crate) error: Option<String>,
}

/// `Some` for any value given, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl TestFile {
    /// The test file compiled into the binary (`tests`: its JSON).
    pub(crate) fn compiled(tests: &str) -> Result<Self, GraphTestError> {
        let compiled: Compiled =
            serde_json::from_str(tests).map_err(|source| GraphTestError::CompiledIn {
                what: "test file",
                source,
            })?;
        Self::checked(compiled.file, compiled.cases)
    }

    /// The test file at `path`, read now (YAML, or JSON).
    pub(crate) fn read(path: &Path) -> Result<Self, GraphTestError> {
        let text = std::fs::read_to_string(path).map_err(GraphTestError::file(
            "read",
            "the test file",
            path,
        ))?;
        let parsed: Text =
            serde_saphyr::from_str(&text).map_err(|source| GraphTestError::TestFile {
                path: path.to_owned(),
                source: Box::new(source),
            })?;
        Self::checked(path.to_owned(), parsed.cases)
    }

    fn checked(path: PathBuf, cases: Vec<Case>) -> Result<Self, GraphTestError> {
        for (i, case) in cases.iter().enumerate() {
            let e = &case.expect;
            let problem = if cases[..i].iter().any(|c| c.name == case.name) {
                CaseProblem::DuplicateName
            } else if e.output.is_none()
                && e.subset.is_none()
                && e.predicate.is_none()
                && e.error.is_none()
            {
                CaseProblem::ExpectsNothing
            } else if e.error.is_some()
                && (e.output.is_some() || e.subset.is_some() || e.predicate.is_some())
            {
                CaseProblem::ErrorAndOutput
            } else {
                continue;
            };
            return Err(GraphTestError::Case {
                path,
                case: case.name.clone(),
                problem,
            });
        }
        Ok(Self { path, cases })
    }

    /// Where its cassette is by default: `graph.test.yaml` →
    /// `graph.cassette.json`.
    pub(crate) fn default_cassette(&self) -> PathBuf {
        let name = self
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("graph.test.yaml");
        let stem = [
            ".test.yaml",
            ".test.yml",
            ".test.json",
            ".yaml",
            ".yml",
            ".json",
        ]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name);
        self.path.with_file_name(format!("{stem}.cassette.json"))
    }
}
