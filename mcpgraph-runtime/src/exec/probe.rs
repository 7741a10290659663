//! One transform node run as a generated server runs it, for the
//! differential runner (random expressions against jsonata-js).

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use super::evaluator::CallEvaluator;
use super::history::History;
use crate::expr::Expr;
use crate::meta::Limits;
use crate::value::{from_json, to_json};

/// What a transform node gives, seen from outside the server.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub struct TransformRun {
    /// The node's output as JSON (`None`: the expression yielded nothing).
    pub output: Option<Value>,
    /// The text content of the tool result if this node ran just before
    /// `exit` (`{}` for nothing or `null`), as `tools/call` would send it.
    pub text: String,
    /// The result's `structuredContent` (objects only).
    pub structured: Option<Value>,
}

/// Runs `source` as a transform node does: parsed as at start-up
/// (`Expr::parse`: regex literals translated, guards added), evaluated on
/// `context` (the call's context object, `{ "<node id>": output }`) by a
/// call's evaluator under the default limits, with an empty history. `Err`
/// is the parse error or the node error's message.
#[doc(hidden)]
pub fn run_transform(source: &str, context: &Value) -> Result<TransformRun, String> {
    let expr = Expr::parse(source.to_owned()).map_err(|e| e.0)?;
    let history = Rc::new(RefCell::new(History::default()));
    let mut evaluator = CallEvaluator::new(Limits::DEFAULT, &history);
    let value = evaluator.eval(&expr, &from_json(context))?;
    let output = to_json(&value);
    let result = match &output {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(value) => value.clone(),
    };
    let result = crate::server::success_result(result);
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    Ok(TransformRun {
        output,
        text,
        structured: result.structured_content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The case of the issue. node (from bench/):
    /// node -e 'require("jsonata")(`{"small": 0.000001, "big": 1e16, "b": $.entry.b, "2": 2, "1": 1}`).evaluate({entry:{b:[1e21,-0]}}).then(r => console.log(JSON.stringify(r)))'
    /// prints {"1":1,"2":2,"small":0.000001,"big":10000000000000000,"b":[1e+21,0]}
    #[test]
    fn text_spells_numbers_and_orders_keys_as_jsonata_js() {
        let run = run_transform(
            r#"{"small": 0.000001, "big": 1e16, "b": $.entry.b, "2": 2, "1": 1}"#,
            &json!({"entry": {"b": [1e21, -0.0]}}),
        )
        .unwrap();
        assert_eq!(
            run.text,
            r#"{"1":1,"2":2,"small":0.000001,"big":10000000000000000,"b":[1e+21,0]}"#
        );
        let structured = run.structured.unwrap();
        let keys: Vec<&str> = structured
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(keys, ["1", "2", "small", "big", "b"]);
        assert_eq!(run.output, Some(structured));
    }

    #[test]
    fn nothing_is_an_empty_object_and_errors_read_as_the_nodes() {
        let run = run_transform("$.missing", &json!({})).unwrap();
        assert_eq!((run.output, run.text.as_str()), (None, "{}"));
        let err = run_transform("$number(\"x\") + {}", &json!({})).unwrap_err();
        assert!(err.starts_with("JSONata error:"), "{err}");
    }
}
