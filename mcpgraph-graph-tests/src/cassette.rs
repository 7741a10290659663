//! A cassette: every downstream request a test file's cases made, with its
//! reply, in order, per case; one readable, diffable JSON file
//! (`graph.cassette.json` beside `graph.test.yaml`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::GraphTestError;

/// The format's version, written into every cassette.
pub(crate) const VERSION: u32 = 1;

/// A cassette file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Cassette {
    version: u32,
    /// The failed call, in a cassette `serve --record-failures` wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) failure: Option<Failure>,
    /// Each case's exchanges, by case name.
    pub(crate) cases: BTreeMap<String, Vec<Exchange>>,
}

/// The case name of a failed call's exchanges.
pub(crate) const FAILURE_CASE: &str = "failure";

/// A failed call, as `serve --record-failures` saw it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Failure {
    pub(crate) tool: String,
    pub(crate) arguments: Map<String, Value>,
    /// `{kind, node, message}`.
    pub(crate) error: Value,
    /// When, in milliseconds since the Unix epoch.
    pub(crate) at_unix_ms: u64,
    /// What the record left out, past its budget (`maxValueBytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cut: Option<String>,
}

/// One downstream request and its reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Exchange {
    pub(crate) server: String,
    pub(crate) tool: String,
    pub(crate) arguments: Map<String, Value>,
    #[serde(flatten)]
    pub(crate) reply: Reply,
}

/// How a recorded request was answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Reply {
    /// The server's `CallToolResult` (an `isError` result included).
    Result(Value),
    /// The call failed: a typed error's kind and message.
    Error { kind: String, message: String },
    /// The call was cancelled before it ended (another call of its node
    /// failed first, or the node's time ran out): why, in words. Replayed,
    /// such a call waits until it is cancelled again.
    Cancelled(String),
    /// Not recorded: the call's record had reached its budget
    /// (`serve --record-failures`). Replayed, such a call fails.
    Cut(String),
}

/// What a cancelled call's [`Reply::Cancelled`] says.
pub(crate) const CANCELLED: &str = "cancelled before it ended";

impl Cassette {
    /// Reads the cassette at `path`; `Ok(None)` when there is none.
    pub(crate) fn load(path: &Path) -> Result<Option<Self>, GraphTestError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(GraphTestError::file("read", "the cassette", path)(e)),
        };
        let cassette: Self =
            serde_json::from_str(&text).map_err(|source| GraphTestError::Cassette {
                path: path.to_owned(),
                source,
            })?;
        if cassette.version != VERSION {
            return Err(GraphTestError::CassetteVersion {
                path: path.to_owned(),
                version: cassette.version,
                reads: VERSION,
            });
        }
        Ok(Some(cassette))
    }

    /// Writes the cassette to `path` (through a temporary file and a
    /// rename): pretty JSON, secrets redacted. The same cassette always
    /// gives the same bytes.
    pub(crate) fn save(&mut self, path: &Path) -> Result<(), GraphTestError> {
        let text = self.text()?;
        let temporary = temporary_beside(path);
        std::fs::write(&temporary, text)
            .and_then(|()| std::fs::rename(&temporary, path))
            .map_err(GraphTestError::file("write", "the cassette", path))
    }

    /// [`Cassette::save`] into a file only its owner may read (0600),
    /// refused when it would be larger than `max_bytes`.
    pub(crate) fn save_private(
        &mut self,
        path: &Path,
        max_bytes: usize,
    ) -> Result<(), GraphTestError> {
        use std::io::Write as _;
        let text = self.text()?;
        if text.len() > max_bytes {
            return Err(GraphTestError::TooLarge {
                bytes: text.len(),
                max: max_bytes,
            });
        }
        let temporary = temporary_beside(path);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        // A temporary file left by a crash would keep its own mode.
        let _ = std::fs::remove_file(&temporary);
        options
            .open(&temporary)
            .and_then(|mut file| file.write_all(text.as_bytes()))
            .and_then(|()| std::fs::rename(&temporary, path))
            .map_err(GraphTestError::file("write", "the cassette", path))
    }

    /// The file's text: pretty JSON, secrets redacted.
    fn text(&mut self) -> Result<String, GraphTestError> {
        self.version = VERSION;
        let text = serde_json::to_string_pretty(self).map_err(GraphTestError::CassetteText)?;
        Ok(format!("{}\n", mcpgraph_runtime::host::redact(&text)))
    }
}

fn temporary_beside(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// `value` as a cassette holds it: every secret replaced by `${NAME}`.
pub(crate) fn redacted(value: &Map<String, Value>) -> Map<String, Value> {
    let text = serde_json::to_string(value).unwrap_or_default();
    match mcpgraph_runtime::host::redact(&text) {
        std::borrow::Cow::Borrowed(_) => value.clone(),
        std::borrow::Cow::Owned(text) => serde_json::from_str(&text).unwrap_or_default(),
    }
}
