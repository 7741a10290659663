//! A tool as the engine serves it: its metadata with the input and output
//! schemas compiled into validators, and the first violation a value has.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::StartupError;
use crate::meta::ToolMeta;

/// A tool with its schemas compiled.
pub(crate) struct ToolRuntime {
    pub(crate) meta: &'static ToolMeta,
    pub(crate) input_schema: Arc<serde_json::Map<String, Value>>,
    pub(crate) output_schema: Option<Arc<serde_json::Map<String, Value>>>,
    pub(super) input: jsonschema::Validator,
    pub(super) output: Option<jsonschema::Validator>,
}

/// The first way `value` breaks the schema, or `None`. The common case, a
/// valid value, takes the validator's fast path, which builds no errors.
pub(super) fn first_violation(validator: &jsonschema::Validator, value: &Value) -> Option<String> {
    if validator.is_valid(value) {
        return None;
    }
    validator.iter_errors(value).next().map(|e| {
        let path = e.instance_path().to_string();
        let path = if path.is_empty() {
            "/".to_owned()
        } else {
            path
        };
        format!("{path}: {e}")
    })
}

pub(super) fn compile_tool(meta: &'static ToolMeta) -> Result<ToolRuntime, StartupError> {
    let schema = |text: &str,
                  which: &str|
     -> Result<(Arc<Map<String, Value>>, jsonschema::Validator), StartupError> {
        let err = |m: String| StartupError(format!("tool `{}` {which}: {m}", meta.name));
        let value: Value = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        let validator = jsonschema::validator_for(&value).map_err(|e| err(e.to_string()))?;
        match value {
            Value::Object(map) => Ok((Arc::new(map), validator)),
            _ => Err(err("not an object".into())),
        }
    };
    let (input_schema, input) = schema(meta.input_schema, "inputSchema")?;
    let (output_schema, output) = match meta.output_schema {
        Some(text) => {
            let (s, v) = schema(text, "outputSchema")?;
            (Some(s), Some(v))
        }
        None => (None, None),
    };
    Ok(ToolRuntime {
        meta,
        input_schema,
        output_schema,
        input,
        output,
    })
}
