//! A call's history and the functions that read it: `$previousNode`,
//! `$executionCount`, `$nodeExecution` and `$nodeExecutions`, registered in
//! the call's evaluator.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use jsonata_core::evaluator::{Evaluator, EvaluatorError};
use jsonata_core::value::JValue;

/// Every node output of one call, in execution order.
#[derive(Default)]
pub struct History {
    /// The outputs, oldest first.
    pub outputs: Vec<JValue>,
    /// Keyed by the graph's own node ids, so a fast unkeyed hash is safe
    /// (no caller chooses what is stored); SipHash was a few percent of a
    /// loop node's cost.
    by_node: HashMap<&'static str, Vec<usize>, foldhash::fast::FixedState>,
}

impl History {
    /// Records `output` as a run of `node`.
    pub fn push(&mut self, node: &'static str, output: JValue) {
        self.by_node
            .entry(node)
            .or_default()
            .push(self.outputs.len());
        self.outputs.push(output);
    }

    /// Forgets every output, keeping the allocations for the next call
    /// (within reason: a long call's index is not kept).
    pub fn clear(&mut self) {
        self.outputs.clear();
        if self.outputs.capacity() > 4096 {
            self.outputs = Vec::new();
        }
        self.by_node.clear();
    }

    /// How many times `node` has run (`$executionCount`).
    pub fn count(&self, node: &str) -> usize {
        self.runs(node).len()
    }

    fn runs(&self, node: &str) -> &[usize] {
        self.by_node.get(node).map_or(&[], Vec::as_slice)
    }

    /// A recorded output as a JSONata value: a run that yielded nothing
    /// reads as `null` (FORMAT.md).
    fn output(&self, index: usize) -> JValue {
        match &self.outputs[index] {
            JValue::Undefined => JValue::Null,
            other => other.clone(),
        }
    }
}

pub(crate) fn register_history_functions(
    evaluator: &mut Evaluator,
    history: &Rc<RefCell<History>>,
) {
    let h = Rc::clone(history);
    let previous = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let n = match args.first() {
            None | Some(JValue::Undefined) => 1.0,
            Some(JValue::Number(n)) => *n,
            Some(_) => return Err(arg_error("$previousNode", "n must be a number")),
        };
        let h = h.borrow();
        let len = h.outputs.len() as f64;
        Ok(if n >= 1.0 && n <= len && n.fract() == 0.0 {
            h.output(h.outputs.len() - n as usize)
        } else {
            JValue::Null
        })
    };
    let h = Rc::clone(history);
    let count = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let id = node_id_arg("$executionCount", args)?;
        Ok(JValue::from(h.borrow().count(id) as f64))
    };
    let h = Rc::clone(history);
    let nth = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let id = node_id_arg("$nodeExecution", args)?;
        let Some(JValue::Number(i)) = args.get(1) else {
            return Err(arg_error("$nodeExecution", "the index must be a number"));
        };
        let h = h.borrow();
        let runs = h.runs(id);
        let len = runs.len() as f64;
        let i = if *i < 0.0 { len + i } else { *i };
        Ok(if i >= 0.0 && i < len && i.fract() == 0.0 {
            h.output(runs[i as usize])
        } else {
            JValue::Null
        })
    };
    let h = Rc::clone(history);
    let all = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let id = node_id_arg("$nodeExecutions", args)?;
        let h = h.borrow();
        let outputs = h.runs(id).iter().map(|&i| h.output(i)).collect();
        let mut array = JValue::array(outputs);
        array.mark_keep_singleton();
        Ok(array)
    };
    for (name, result) in [
        (
            "previousNode",
            evaluator.register_fn("previousNode", previous),
        ),
        (
            "executionCount",
            evaluator.register_fn("executionCount", count),
        ),
        ("nodeExecution", evaluator.register_fn("nodeExecution", nth)),
        (
            "nodeExecutions",
            evaluator.register_fn("nodeExecutions", all),
        ),
    ] {
        if let Err(e) = result {
            // Only a clash with a JSONata built-in can fail, which a new
            // jsonata-core release could bring; the history tests catch it.
            tracing::error!("cannot register ${name}: {e}");
        }
    }
}

fn node_id_arg<'a>(function: &str, args: &'a [JValue]) -> Result<&'a str, EvaluatorError> {
    args.first()
        .and_then(JValue::as_str)
        .ok_or_else(|| arg_error(function, "the node id must be a string"))
}

fn arg_error(function: &str, message: &str) -> EvaluatorError {
    EvaluatorError::TypeError(format!("T0410: {function}: {message}"))
}
