//! `$replace`'s result size, computed exactly before the built-in builds
//! it: a replacement string repeated at every match can make a result as
//! large as the product of the two strings.

use std::borrow::Cow;

use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::functions::string::{
    RegexMatches, build_regex, extract_regex, substitute_capture_groups,
};
use jsonata_core::value::JValue;

use super::{Budget, PASS};

/// `$__mcpgraph_replace_check($, args...)`: fails when `$replace(args...)`
/// (evaluated on the context `$`) would give more than the budget's bytes;
/// otherwise gives nothing, and the built-in runs as it would have. Any
/// call the built-in refuses (wrong types, an empty pattern, a negative
/// limit, a zero-length regex match) passes here, so its own error is the
/// one raised. A replacement function is called per match by the
/// evaluator, which stops at the time limit between calls: not sized here.
pub(super) fn check(args: &[JValue], budget: &Budget) -> Result<JValue, EvaluatorError> {
    let Some((context, call)) = args.split_first() else {
        return PASS;
    };
    // As jsonata-core reads the signature `<s-(sf)(sf)n?:s>`: the string
    // comes from the context when it is left out.
    let (s, pattern, replacement, limit) = match call {
        [s, p, r, l] => (s, p, r, Some(l)),
        [s, p, r] if !matches!(r, JValue::Number(_)) => (s, p, r, None),
        [p, r, l] => (context, p, r, Some(l)),
        [p, r] => (context, p, r, None),
        _ => return PASS,
    };
    let (JValue::String(s), JValue::String(replacement)) = (s, replacement) else {
        return PASS;
    };
    let limit = match limit {
        None | Some(JValue::Undefined) => usize::MAX,
        Some(JValue::Number(n)) if *n >= 0.0 => n.ceil() as usize,
        Some(_) => return PASS,
    };
    let size = match pattern {
        JValue::String(p) if p.is_empty() => return PASS,
        JValue::String(p) => {
            let count = s.matches(&**p).take(limit).count() as u64;
            let replaced = count.saturating_mul(replacement.len() as u64);
            (s.len() as u64 - count * p.len() as u64).saturating_add(replaced)
        }
        other => match regex_size(s, other, replacement, limit, budget) {
            Some(size) => size?,
            None => return PASS,
        },
    };
    if size > budget.max_bytes {
        return Err(budget.over(format!(
            "`$replace` would give {size} bytes, more than maxValueBytes ({} bytes)",
            budget.max_bytes
        )));
    }
    PASS
}

/// The size of a regex replacement, matching as the built-in does; `None`
/// where the built-in fails (or takes another path), so it reports that.
fn regex_size(
    s: &str,
    pattern: &JValue,
    replacement: &str,
    limit: usize,
    budget: &Budget,
) -> Option<Result<u64, EvaluatorError>> {
    let (pattern, flags) = extract_regex(pattern)?;
    let re = build_regex(&pattern, &flags).ok()?;
    let mut matches = RegexMatches::new(&re, s);
    let mut size = s.len() as u64;
    let mut template: Option<Template> = None;
    let mut count = 0;
    while let Some(found) = matches.next_match().ok()? {
        if count >= limit {
            break;
        }
        if count.is_multiple_of(1024)
            && let Err(e) = budget.check_time()
        {
            return Some(Err(e));
        }
        let template =
            template.get_or_insert_with(|| Template::new(replacement, found.groups.len()));
        let groups = template
            .groups
            .iter()
            .map(|&i| found.groups.get(i).copied().flatten().map_or(0, str::len) as u64)
            .sum::<u64>();
        let whole = template.whole.saturating_mul(found.text.len() as u64);
        size = (size - found.text.len() as u64)
            .saturating_add(template.literal)
            .saturating_add(whole)
            .saturating_add(groups);
        if size > budget.max_bytes {
            // Over already: the rest can only add.
            return Some(Ok(size));
        }
        count += 1;
    }
    Some(Ok(size))
}

/// What one match's replacement is made of, read by the built-in's own
/// substitution: its literal bytes, how many `$0` it holds, and the
/// groups it quotes (each time it quotes them).
struct Template {
    literal: u64,
    whole: u64,
    groups: Vec<usize>,
}

impl Template {
    fn new(replacement: &str, group_count: usize) -> Self {
        let mut groups = Vec::new();
        let substitute = |full: &str, record: bool, groups: &mut Vec<usize>| {
            let mut out = String::new();
            let _ = substitute_capture_groups(&mut out, replacement, full, group_count, |i| {
                if record {
                    groups.push(i);
                }
                Ok::<_, ()>(Some(Cow::Borrowed("")))
            });
            out.len() as u64
        };
        let literal = substitute("", true, &mut groups);
        let whole = substitute("x", false, &mut groups) - literal;
        Template {
            literal,
            whole,
            groups,
        }
    }
}
