//! The functions an expression can call without defining them: JSONata's
//! built-ins with the signatures jsonata-js declares for them (jsonata.js
//! 2.x, `staticFrame.bind(...)`, plus `$now` and `$millis`), and the history
//! functions the runtime registers (`exec/history.rs`, as mcpGraph does).
//! The host functions of `mcpgraph-expr`'s rewrites (`__mcpgraph_…`) are
//! not here: they are called only by rewritten trees, never by a user's
//! expression.

/// JSONata's built-ins and their jsonata-js signatures.
const BUILTINS: &[(&str, &str)] = &[
    ("abs", "<n-:n>"),
    ("append", "<xx:a>"),
    ("assert", "<bs?:x>"),
    ("average", "<a<n>:n>"),
    ("base64decode", "<s-:s>"),
    ("base64encode", "<s-:s>"),
    ("boolean", "<x-:b>"),
    ("ceil", "<n-:n>"),
    ("clone", "<(oa)-:o>"),
    ("contains", "<s-(sf):b>"),
    ("count", "<a:n>"),
    ("decodeUrl", "<s-:s>"),
    ("decodeUrlComponent", "<s-:s>"),
    ("distinct", "<x:x>"),
    ("each", "<o-f:a>"),
    ("encodeUrl", "<s-:s>"),
    ("encodeUrlComponent", "<s-:s>"),
    ("error", "<s?:x>"),
    ("eval", "<sx?:x>"),
    ("exists", "<x:b>"),
    ("filter", "<af>"),
    ("floor", "<n-:n>"),
    ("formatBase", "<n-n?:s>"),
    ("formatInteger", "<n-s:s>"),
    ("formatNumber", "<n-so?:s>"),
    ("fromMillis", "<n-s?s?:s>"),
    ("join", "<a<s>s?:s>"),
    ("keys", "<x-:a<s>>"),
    ("length", "<s-:n>"),
    ("lookup", "<x-s:x>"),
    ("lowercase", "<s-:s>"),
    ("map", "<af>"),
    ("match", "<s-f<s:o>n?:a<o>>"),
    ("max", "<a<n>:n>"),
    ("merge", "<a<o>:o>"),
    ("millis", "<:n>"),
    ("min", "<a<n>:n>"),
    ("not", "<x-:b>"),
    ("now", "<s?s?:s>"),
    ("number", "<(nsb)-:n>"),
    ("pad", "<s-ns?:s>"),
    ("parseInteger", "<s-s:n>"),
    ("power", "<n-n:n>"),
    ("random", "<:n>"),
    ("reduce", "<afj?:j>"),
    ("replace", "<s-(sf)(sf)n?:s>"),
    ("reverse", "<a:a>"),
    ("round", "<n-n?:n>"),
    ("shuffle", "<a:a>"),
    ("sift", "<o-f?:o>"),
    ("single", "<af?>"),
    ("sort", "<af?:a>"),
    ("split", "<s-(sf)n?:a<s>>"),
    ("spread", "<x-:a<o>>"),
    ("sqrt", "<n-:n>"),
    ("string", "<x-b?:s>"),
    ("substring", "<s-nn?:s>"),
    ("substringAfter", "<s-s:s>"),
    ("substringBefore", "<s-s:s>"),
    ("sum", "<a<n>:n>"),
    ("toMillis", "<s-s?:n>"),
    ("trim", "<s-:s>"),
    ("type", "<x:s>"),
    ("uppercase", "<s-:s>"),
    ("zip", "<a+>"),
];

/// The history functions and how many arguments each needs at least (the
/// runtime fails a call with fewer; it ignores extra ones, as mcpGraph's
/// JavaScript functions do).
const HISTORY: &[(&str, usize)] = &[
    ("previousNode", 0),
    ("executionCount", 1),
    ("nodeExecution", 2),
    ("nodeExecutions", 1),
];

/// How many arguments a function takes: at least `min`, at most `max`
/// (`None`: no bound).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Arity {
    pub(super) min: usize,
    pub(super) max: Option<usize>,
    /// jsonata-js's signature, for messages (`None` for history functions).
    pub(super) signature: Option<&'static str>,
}

/// The arity of the function `name` an expression can call without
/// binding it; `None` when there is no such function.
pub(super) fn arity(name: &str) -> Option<Arity> {
    if let Some((_, sig)) = BUILTINS.iter().find(|(n, _)| *n == name) {
        let (min, max) = signature_arity(sig);
        return Some(Arity {
            min,
            max,
            signature: Some(sig),
        });
    }
    HISTORY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, min)| Arity {
            min: *min,
            max: None,
            signature: None,
        })
}

/// Every such function's name, for did-you-mean.
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS
        .iter()
        .map(|(n, _)| *n)
        .chain(HISTORY.iter().map(|(n, _)| *n))
}

/// The argument counts a jsonata-js signature accepts. jsonata-js matches
/// the arguments' types against a regex with one group per parameter, each
/// matching one argument: a parameter marked `?` may be left out, one
/// marked `-` too (the context is then passed in its place), one marked
/// `+` takes one or more.
fn signature_arity(sig: &str) -> (usize, Option<usize>) {
    let params = sig
        .strip_prefix('<')
        .and_then(|s| s.strip_suffix('>'))
        .unwrap_or(sig);
    // The return type follows the `:` at depth 0.
    let mut depth = 0usize;
    let mut end = params.len();
    for (i, c) in params.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let (mut min, mut max, mut unbounded) = (0usize, 0usize, false);
    let mut chars = params[..end].chars().peekable();
    while let Some(c) = chars.next() {
        // One parameter: a type letter or a `(...)` choice, then an
        // optional `<...>` subtype, then optional modifiers.
        let close = match c {
            '(' => Some((')', '(')),
            _ => None,
        };
        if let Some((close, open)) = close {
            let mut d = 1;
            for n in chars.by_ref() {
                if n == open {
                    d += 1;
                } else if n == close {
                    d -= 1;
                    if d == 0 {
                        break;
                    }
                }
            }
        }
        if chars.peek() == Some(&'<') {
            let mut d = 0;
            for n in chars.by_ref() {
                match n {
                    '<' => d += 1,
                    '>' => {
                        d -= 1;
                        if d == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut optional = false;
        while let Some(&m) = chars.peek() {
            match m {
                '?' | '-' => optional = true,
                '+' => unbounded = true,
                _ => break,
            }
            chars.next();
        }
        max += 1;
        if !optional {
            min += 1;
        }
    }
    (min, (!unbounded).then_some(max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_give_argument_counts() {
        let cases = [
            ("<s-:n>", (0, Some(1))),
            ("<x-b?:s>", (0, Some(2))),
            ("<s-nn?:s>", (1, Some(3))),
            ("<a<n>:n>", (1, Some(1))),
            ("<s-f<s:o>n?:a<o>>", (1, Some(3))),
            ("<s-(sf)(sf)n?:s>", (2, Some(4))),
            ("<afj?:j>", (2, Some(3))),
            ("<a+>", (1, None)),
            ("<:n>", (0, Some(0))),
            ("<(oa)-:o>", (0, Some(1))),
            ("<af>", (2, Some(2))),
        ];
        for (sig, want) in cases {
            assert_eq!(signature_arity(sig), want, "{sig}");
        }
    }

    #[test]
    fn table_is_sorted_and_known() {
        assert!(BUILTINS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(arity("lenght"), None);
        assert_eq!(arity("executionCount").map(|a| a.min), Some(1));
    }
}
