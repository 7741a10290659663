//! A tool as the engine serves it: its metadata with the input and output
//! schemas parsed for `tools/list`, and the `default`s of its input's
//! top-level properties, filled into a call's arguments that lack them
//! before they are checked. Validating a value against the schemas is the
//! generated code's (`ToolMeta::input_check`, `output_check`): the schemas
//! became Rust at build time, so nothing compiles a schema here.

use std::sync::Arc;

use rmcp::model::{Icon, ToolAnnotations};
use serde_json::{Map, Value};

use crate::error::StartupError;
use crate::meta::ToolMeta;

/// A tool with its schemas, annotations and icons parsed.
pub(crate) struct ToolRuntime {
    pub(crate) meta: &'static ToolMeta,
    pub(crate) input_schema: Arc<serde_json::Map<String, Value>>,
    pub(crate) output_schema: Option<Arc<serde_json::Map<String, Value>>>,
    pub(crate) annotations: Option<ToolAnnotations>,
    pub(crate) icons: Option<Vec<Icon>>,
    /// The input schema's top-level properties that have a `default`,
    /// with it.
    defaults: Vec<(String, Value)>,
}

impl ToolRuntime {
    /// Fills in the `default` of each top-level property of the input
    /// schema that `arguments` (an object) lacks. A property given, `null`
    /// included, is left as it is; nested defaults are not applied.
    pub(crate) fn apply_defaults(&self, arguments: &mut Value) {
        let Value::Object(arguments) = arguments else {
            return;
        };
        for (name, default) in &self.defaults {
            if !arguments.contains_key(name) {
                arguments.insert(name.clone(), default.clone());
            }
        }
    }
}

/// [`ToolRuntime::apply_defaults`] of the tool at `index` of `tools`.
pub(super) fn apply_defaults(tools: &[ToolRuntime], index: usize, arguments: &mut Value) {
    if let Some(tool) = tools.get(index) {
        tool.apply_defaults(arguments);
    }
}

/// The top-level properties of `schema` with a `default`, and it.
fn defaults(schema: &Map<String, Value>) -> Vec<(String, Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
        .collect()
}

/// Every tool of `metas` with its schemas parsed.
pub(super) fn compile_tools(metas: &'static [ToolMeta]) -> Result<Vec<ToolRuntime>, StartupError> {
    metas.iter().map(compile_tool).collect()
}

fn compile_tool(meta: &'static ToolMeta) -> Result<ToolRuntime, StartupError> {
    let schema = |text: &str, which: &str| -> Result<Arc<Map<String, Value>>, StartupError> {
        let err = |m: String| StartupError(format!("tool `{}` {which}: {m}", meta.name));
        match serde_json::from_str(text).map_err(|e| err(e.to_string()))? {
            Value::Object(map) => Ok(Arc::new(map)),
            _ => Err(err("not an object".into())),
        }
    };
    // The generator wrote and checked these: an error is a mismatch
    // between generator and runtime.
    fn parsed<T: serde::de::DeserializeOwned>(
        meta: &ToolMeta,
        text: Option<&str>,
        which: &str,
    ) -> Result<Option<T>, StartupError> {
        text.map(|text| {
            serde_json::from_str(text)
                .map_err(|e| StartupError(format!("tool `{}` {which}: {e}", meta.name)))
        })
        .transpose()
    }
    let input_schema = schema(meta.input_schema, "inputSchema")?;
    Ok(ToolRuntime {
        meta,
        defaults: defaults(&input_schema),
        input_schema,
        output_schema: meta
            .output_schema
            .map(|text| schema(text, "outputSchema"))
            .transpose()?,
        annotations: parsed(meta, meta.annotations, "annotations")?,
        icons: parsed(meta, meta.icons, "icons")?,
    })
}

/// How the caller reads a validator's first error: the path of the value
/// that breaks the schema (`/` for the value itself), then jsonschema's
/// message. Generated validators call it through `rt::schema_violation`.
pub fn schema_violation(result: Result<(), jsonschema::ValidationError<'_>>) -> Option<String> {
    let error = result.err()?;
    let path = error.instance_path().to_string();
    let path = if path.is_empty() { "/" } else { &path };
    Some(format!("{path}: {error}"))
}
