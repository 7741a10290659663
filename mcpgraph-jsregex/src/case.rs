//! Case-insensitive matching as JavaScript does it without the `u` flag
//! (ECMA-262 Canonicalize): two UTF-16 units match when their single-unit
//! upper cases are equal, a non-ASCII unit never maps to an ASCII one, and
//! a unit whose upper case is longer than one unit (`ß`) maps to itself.
//! Rust's `(?i)` uses Unicode case folding instead (`ſ` matches `s`, the
//! Kelvin sign matches `k`), so the `i` flag is compiled away into
//! explicit character sets built from this.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::set::CharSet;

/// JavaScript's `Canonicalize(ch)` for a non-`u` regex with the `i` flag.
fn canonicalize(c: u32) -> u32 {
    let Some(ch) = char::from_u32(c).filter(|_| c < 0x10000) else {
        return c;
    };
    let mut upper = ch.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if !(c >= 128 && (u as u32) < 128) && (u as u32) < 0x10000 => u as u32,
        _ => c,
    }
}

/// The units of the Basic Multilingual Plane by their canonical form.
fn classes() -> &'static HashMap<u32, Vec<u32>> {
    static CLASSES: OnceLock<HashMap<u32, Vec<u32>>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let mut classes: HashMap<u32, Vec<u32>> = HashMap::new();
        for c in 0..0x10000 {
            classes.entry(canonicalize(c)).or_default().push(c);
        }
        classes.retain(|_, members| members.len() > 1);
        classes
    })
}

/// Every unit that matches some member of `set` case-insensitively.
pub(crate) fn close(set: &CharSet) -> CharSet {
    let classes = classes();
    let mut out = set.clone();
    for (start, end) in set.ranges() {
        for c in start..=end.min(0xFFFF) {
            if let Some(members) = classes.get(&canonicalize(c)) {
                for &m in members {
                    out.add(m, m);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// node -e 'console.log(["s","S","ſ","k","K","\u212a","ß","ẞ","σ","ς","Σ"].map(c => [c, /s/i.test(c), /k/i.test(c), /σ/i.test(c), /ß/i.test(c)]))'
    #[test]
    fn javascript_case_classes() {
        let members = |c: char| {
            let set = close(&CharSet::single(c as u32));
            let mut v: Vec<char> = set
                .ranges()
                .flat_map(|(a, b)| a..=b)
                .filter_map(char::from_u32)
                .collect();
            v.sort();
            v
        };
        assert_eq!(members('s'), ['S', 's']);
        assert_eq!(members('k'), ['K', 'k']);
        assert_eq!(members('σ'), ['Σ', 'ς', 'σ']);
        assert_eq!(members('ß'), ['ß']);
    }
}
