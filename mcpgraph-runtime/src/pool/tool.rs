//! A tool as the engine serves it: its metadata with the input and output
//! schemas, their validators, and the first violation a value has.
//!
//! Validators are compiled off the start-up path: jsonschema checks every
//! schema against its draft's meta-schema first, and compiling that
//! meta-schema once per process was the largest part of start-up spent in
//! our own code. The schemas were checked at build time (the generator
//! compiles each one), so a thread compiles them once the server has
//! answered (`warm`: after `initialize`, or when HTTP starts serving); a
//! call that needs one sooner compiles it itself or waits for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::error::StartupError;
use crate::meta::ToolMeta;

/// A tool with its schemas parsed.
pub(crate) struct ToolRuntime {
    pub(crate) meta: &'static ToolMeta,
    pub(crate) input_schema: Arc<serde_json::Map<String, Value>>,
    pub(crate) output_schema: Option<Arc<serde_json::Map<String, Value>>>,
    pub(super) input: Validator,
    pub(super) output: Option<Validator>,
}

/// A schema's validator, compiled on first use.
#[derive(Clone)]
pub(super) struct Validator(Arc<Lazy>);

struct Lazy {
    /// The schema, shared with [`ToolRuntime`]'s copy for `tools/list`.
    schema: Arc<Map<String, Value>>,
    compiled: OnceLock<Result<jsonschema::Validator, String>>,
    /// Handed to a warming thread already.
    claimed: AtomicBool,
}

impl Validator {
    fn new(schema: Arc<Map<String, Value>>) -> Self {
        Self(Arc::new(Lazy {
            schema,
            compiled: OnceLock::new(),
            claimed: AtomicBool::new(false),
        }))
    }

    fn get(&self) -> &Result<jsonschema::Validator, String> {
        self.0.compiled.get_or_init(|| {
            let schema = Value::Object(Map::clone(&self.0.schema));
            jsonschema::validator_for(&schema).map_err(|e| e.to_string())
        })
    }
}

/// The first way `value` breaks the schema, or `None`. The common case, a
/// valid value, takes the validator's fast path, which builds no errors.
pub(super) fn first_violation(validator: &Validator, value: &Value) -> Option<String> {
    let validator = match validator.get() {
        Ok(validator) => validator,
        // The generator compiled this schema: only a jsonschema release
        // that disagrees with it gets here.
        Err(e) => return Some(format!("the schema does not compile: {e}")),
    };
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

/// Every tool of `metas` with its schemas parsed (validators compiled
/// later: see [`warm`]).
pub(super) fn compile_tools(metas: &'static [ToolMeta]) -> Result<Vec<ToolRuntime>, StartupError> {
    metas.iter().map(compile_tool).collect()
}

/// Compiles the validators of `tools` on a thread of its own, each at most
/// once however often this is called. If the thread cannot start, each is
/// compiled by the first call that needs it.
pub(super) fn warm(tools: &[ToolRuntime]) {
    let validators: Vec<Validator> = tools
        .iter()
        .flat_map(|t| std::iter::once(&t.input).chain(&t.output))
        .filter(|v| !v.0.claimed.swap(true, Ordering::Relaxed))
        .cloned()
        .collect();
    if validators.is_empty() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("mcpgraph-schemas".into())
        .spawn(move || {
            for validator in validators {
                let _ = validator.get();
            }
        });
}

fn compile_tool(meta: &'static ToolMeta) -> Result<ToolRuntime, StartupError> {
    let schema =
        |text: &str, which: &str| -> Result<(Arc<Map<String, Value>>, Validator), StartupError> {
            let err = |m: String| StartupError(format!("tool `{}` {which}: {m}", meta.name));
            let value: Value = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
            match value {
                Value::Object(map) => {
                    let map = Arc::new(map);
                    Ok((Arc::clone(&map), Validator::new(map)))
                }
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
