//! `$join`, sized before it allocates.

use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::value::JValue;

use super::over;

/// `$join`, as jsonata-core's built-in (signature `<a<s>s?:s>`), failing
/// before it allocates a result longer than `max` bytes.
pub(super) fn join(args: &[JValue], max: u64) -> Result<JValue, EvaluatorError> {
    let not_strings = || {
        EvaluatorError::TypeError(
            "T0412: Argument 1 of function $join must be an array of String".to_owned(),
        )
    };
    let items = match args.first() {
        None => {
            return Err(EvaluatorError::TypeError(
                "T0410: Argument 1 of function $join does not match function signature".to_owned(),
            ));
        }
        Some(JValue::Undefined) => return Ok(JValue::Undefined),
        Some(JValue::String(s)) => return Ok(JValue::String(s.clone())),
        Some(JValue::Array(items)) => items,
        Some(_) => return Err(not_strings()),
    };
    if args.len() > 2 {
        return Err(EvaluatorError::TypeError(
            "T0410: Argument 3 of function $join does not match function signature".to_owned(),
        ));
    }
    let separator = match args.get(1) {
        None | Some(JValue::Undefined) => "",
        Some(JValue::String(s)) => s,
        Some(_) => {
            return Err(EvaluatorError::TypeError(
                "T0410: Argument 2 of function $join does not match function signature (expected String)"
                    .to_owned(),
            ));
        }
    };
    let mut length = (items.len().saturating_sub(1) as u64).saturating_mul(separator.len() as u64);
    for item in items.iter() {
        let JValue::String(s) = item else {
            return Err(not_strings());
        };
        length = length.saturating_add(s.len() as u64);
    }
    if length > max {
        return Err(over(format!(
            "`$join` would give {length} bytes, more than maxValueBytes ({max} bytes)"
        )));
    }
    let mut out = String::with_capacity(length as usize);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(item.as_str().unwrap_or_default());
    }
    Ok(JValue::from(out))
}
