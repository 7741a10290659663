//! Sets of UTF-16 units and code points, and how a set is written as a
//! Rust regex class.

use std::fmt::Write;

/// Inclusive ranges of code points, kept sorted and merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CharSet {
    ranges: Vec<(u32, u32)>,
}

const MAX: u32 = 0x10FFFF;

impl CharSet {
    pub(crate) fn single(c: u32) -> Self {
        Self::range(c, c)
    }

    pub(crate) fn range(start: u32, end: u32) -> Self {
        Self {
            ranges: vec![(start, end)],
        }
    }

    pub(crate) fn of(ranges: &[(u32, u32)]) -> Self {
        let mut set = Self::default();
        for &(start, end) in ranges {
            set.add(start, end);
        }
        set
    }

    pub(crate) fn ranges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.ranges.iter().copied()
    }

    pub(crate) fn add(&mut self, start: u32, end: u32) {
        self.ranges.push((start, end));
        self.ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(self.ranges.len());
        for &(s, e) in &self.ranges {
            match merged.last_mut() {
                Some((_, last)) if s <= last.saturating_add(1) => *last = (*last).max(e),
                _ => merged.push((s, e)),
            }
        }
        self.ranges = merged;
    }

    pub(crate) fn union(&mut self, other: &CharSet) {
        for (start, end) in other.ranges() {
            self.add(start, end);
        }
    }

    pub(crate) fn complement(&self) -> CharSet {
        let mut out = CharSet::default();
        let mut next = 0;
        for (start, end) in self.ranges() {
            if start > next {
                out.ranges.push((next, start - 1));
            }
            next = end.saturating_add(1);
        }
        if next <= MAX {
            out.ranges.push((next, MAX));
        }
        out
    }

    /// The set as a Rust regex atom: a class of `\x{..}` ranges, without
    /// the surrogates Rust strings cannot hold. An empty set is a class
    /// that matches nothing.
    pub(crate) fn to_regex(&self) -> String {
        let mut out = String::from("[");
        let mut empty = true;
        for (start, end) in self.ranges() {
            for (s, e) in [(start, end.min(0xD7FF)), (start.max(0xE000), end)] {
                if s <= e {
                    empty = false;
                    let _ = if s == e {
                        write!(out, "\\x{{{s:X}}}")
                    } else {
                        write!(out, "\\x{{{s:X}}}-\\x{{{e:X}}}")
                    };
                }
            }
        }
        if empty {
            return "[^\\x{0}-\\x{10FFFF}]".to_owned();
        }
        out.push(']');
        out
    }
}

/// `\d`: ASCII digits, in JavaScript as in every mode.
pub(crate) fn digits() -> CharSet {
    CharSet::range('0' as u32, '9' as u32)
}

/// `\w`: ASCII word characters (JavaScript without the `u` flag).
pub(crate) fn word() -> CharSet {
    CharSet::of(&[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
}

/// `\s`: JavaScript's WhiteSpace and LineTerminator (not U+0085, which
/// Rust's `\s` includes; U+FEFF, which it does not).
pub(crate) fn space() -> CharSet {
    CharSet::of(&[
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ])
}

/// `.`: anything but a line terminator.
pub(crate) fn dot() -> CharSet {
    CharSet::of(&[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]).complement()
}
