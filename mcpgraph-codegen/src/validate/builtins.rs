//! The functions an expression can call without defining them: JSONata's
//! built-ins with the signatures jsonata-js declares for them (jsonata.js
//! 2.x, `staticFrame.bind(...)`, plus `$now` and `$millis`), and the history
//! functions the runtime registers (`mcpgraph-expr`'s `history`, as mcpGraph does).
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

/// One parameter of a signature, as jsonata-js turns it into a regex
/// group: the argument types it takes and how many arguments it matches.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Param {
    /// The type symbols it takes (`s n b l o a f`, `m` for "no value").
    types: String,
    /// `?` (or `-`): it may match no argument.
    optional: bool,
    /// `+`: it matches one or more.
    many: bool,
}

/// A jsonata-js signature's parameters (`signature.js`, `parseSignature`):
/// `s n b l o` take their type or no value, `a` and `x` anything, `j`
/// anything but a function, `f` a function only, `(..)` a choice; `?` and
/// `-` make a parameter optional (`-`: the context is then passed in its
/// place), `+` repeats it.
fn params(sig: &str) -> Vec<Param> {
    let body = sig.strip_prefix('<').unwrap_or(sig);
    let mut out: Vec<Param> = Vec::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        let types = match c {
            ':' | '>' => break,
            's' | 'n' | 'b' | 'l' | 'o' => format!("{c}m"),
            'a' | 'x' => "asnblfom".to_owned(),
            'j' => "asnblom".to_owned(),
            'f' => "f".to_owned(),
            '(' => {
                let mut choice: String = chars.by_ref().take_while(|&d| d != ')').collect();
                choice.push('m');
                choice
            }
            '?' | '-' => {
                if let Some(last) = out.last_mut() {
                    last.optional = true;
                }
                continue;
            }
            '+' => {
                if let Some(last) = out.last_mut() {
                    last.many = true;
                }
                continue;
            }
            '<' => {
                // A subtype (`a<n>`, `f<s:o>`): not checked here.
                let mut depth = 1;
                for d in chars.by_ref() {
                    match d {
                        '<' => depth += 1,
                        '>' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                continue;
            }
            _ => continue,
        };
        out.push(Param {
            types,
            optional: false,
            many: false,
        });
    }
    out
}

/// The argument counts a jsonata-js signature accepts.
fn signature_arity(sig: &str) -> (usize, Option<usize>) {
    let ps = params(sig);
    let min = ps.iter().filter(|p| !p.optional).count();
    let max = (!ps.iter().any(|p| p.many)).then_some(ps.len());
    (min, max)
}

/// Whether arguments of these type symbols (`None`: not known, any type)
/// can match `sig`, as jsonata-js matches them: each parameter matches one
/// argument (none when optional, several when repeated), in order.
pub(super) fn signature_accepts(sig: &str, args: &[Option<char>]) -> bool {
    fn fits(p: &Param, arg: Option<char>) -> bool {
        arg.is_none_or(|c| p.types.contains(c))
    }
    fn from(ps: &[Param], args: &[Option<char>]) -> bool {
        let Some((p, rest)) = ps.split_first() else {
            return args.is_empty();
        };
        if p.optional && from(rest, args) {
            return true;
        }
        let mut taken = 0;
        while taken < args.len() && fits(p, args[taken]) {
            taken += 1;
            if from(rest, &args[taken..]) {
                return true;
            }
            if !p.many {
                break;
            }
        }
        false
    }
    from(&params(sig), args)
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
    fn signatures_match_argument_types() {
        let n = Some('n');
        let s = Some('s');
        assert!(signature_accepts("<s-:s>", &[s]));
        assert!(signature_accepts("<s-:s>", &[None]));
        assert!(!signature_accepts("<s-:s>", &[n]));
        assert!(signature_accepts("<x-b?:s>", &[n, None]));
        assert!(!signature_accepts("<x-b?:s>", &[n, n]));
        assert!(!signature_accepts("<s-nn?:s>", &[s]));
        assert!(signature_accepts("<s-nn?:s>", &[n]));
        assert!(signature_accepts("<s-nn?:s>", &[None, n, None]));
        assert!(signature_accepts("<a+>", &[n, s, None]));
        assert!(!signature_accepts("<a+>", &[]));
        assert!(signature_accepts("<s-(sf)(sf)n?:s>", &[s, Some('f'), s]));
        assert!(!signature_accepts("<af>", &[None, s]));
        for (name, sig) in BUILTINS {
            let (min, max) = signature_arity(sig);
            let unknown = vec![None; max.unwrap_or(min + 3)];
            assert!(signature_accepts(sig, &unknown[..min]), "{name}");
            assert!(signature_accepts(sig, &unknown), "{name}");
        }
    }

    #[test]
    fn table_is_sorted_and_known() {
        assert!(BUILTINS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(arity("lenght"), None);
        assert_eq!(arity("executionCount").map(|a| a.min), Some(1));
    }
}
