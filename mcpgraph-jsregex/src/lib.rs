//! This crate is internal to mcpgraph and carries no semver promise: use
//! it through the [`mcpgraph`](https://docs.rs/mcpgraph) crate.
//!
//! JSONata regex literals are JavaScript regexes (jsonata-js builds them
//! with `new RegExp(pattern, flags)`, flags `i` and `m` only, never `u`).
//! The runtime's engine is Rust's `regex` crate, whose syntax and meaning
//! differ: its `\d`, `\w`, `\s`, `\b`, `.` and case-insensitive matching
//! are Unicode-aware, JavaScript's are not (or differently), and it has
//! neither backreferences nor lookaround.
//!
//! [`translate`] rewrites a JavaScript pattern into a Rust pattern that
//! matches what JavaScript matches: escapes and `.` become explicit
//! character sets, `\b` the ASCII word boundary, the `i` flag explicit
//! JavaScript case classes (see `case`). What has no exact equivalent is
//! refused with the reason, and the generator reports it at build time.
//! Rust's engine runs in time linear in the input, so a translated regex
//! cannot backtrack catastrophically.

mod case;
mod escape;
mod set;

use escape::{Atom, Escape};
use set::CharSet;

/// A pattern in Rust's syntax, and the flags jsonata-core should build it
/// with (`m` at most: `i` is compiled into the pattern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    /// The pattern in the syntax of the `regex` crate.
    pub pattern: String,
    /// The flags to build it with: `m` or nothing.
    pub flags: String,
}

/// Why a pattern cannot run as JavaScript runs it, and where (a character
/// offset into the pattern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The character offset into the pattern.
    pub offset: usize,
    /// What JavaScript does there that the translation cannot.
    pub reason: String,
}

/// Translates the JavaScript regex `/pattern/flags` (see the crate docs).
pub fn translate(pattern: &str, flags: &str) -> Result<Translated, Unsupported> {
    if let Some(flag) = flags.chars().find(|f| !matches!(f, 'i' | 'm')) {
        return Err(Unsupported {
            offset: pattern.chars().count(),
            reason: format!("flag `{flag}`: jsonata-js regexes take the flags `i` and `m` only"),
        });
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut translator = Translator {
        groups: count_groups(&chars),
        named: has_named_groups(&chars),
        case_insensitive: flags.contains('i'),
        chars,
        pos: 0,
        out: String::new(),
    };
    translator.run()?;
    Ok(Translated {
        pattern: translator.out,
        flags: if flags.contains('m') { "m" } else { "" }.to_owned(),
    })
}

struct Translator {
    chars: Vec<char>,
    pos: usize,
    out: String,
    /// Capturing groups in the pattern (a `\N` up to it is a backreference).
    groups: usize,
    /// Whether the pattern has a named group (then `\k` is a backreference).
    named: bool,
    case_insensitive: bool,
}

fn unsupported<T>(offset: usize, reason: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported {
        offset,
        reason: reason.into(),
    })
}

impl Translator {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn starts_with(&self, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(i, c)| self.peek(i) == Some(c))
    }

    fn run(&mut self) -> Result<(), Unsupported> {
        while let Some(c) = self.peek(0) {
            let at = self.pos;
            self.pos += 1;
            match c {
                '\\' => match escape::read(&self.chars, &mut self.pos, false, self.groups)? {
                    Escape::Atom(Atom::Set(set)) => self.emit_set(&set),
                    Escape::Atom(Atom::Char(c)) => self.emit_char(c, at)?,
                    Escape::WordBoundary(negated) => {
                        self.out
                            .push_str(if negated { "(?-u:\\B)" } else { "(?-u:\\b)" })
                    }
                    Escape::Backreference => {
                        return unsupported(at, "backreferences (`\\1`...) are not supported");
                    }
                    Escape::NamedBackreference if self.named => {
                        return unsupported(at, "backreferences (`\\k<name>`) are not supported");
                    }
                    Escape::NamedBackreference => self.emit_char('k', at)?,
                },
                '[' => {
                    let set =
                        escape::read_class(&self.chars, &mut self.pos, at, self.case_insensitive)?;
                    // Already closed under `i` (before its negation).
                    self.emit_exact(&set);
                }
                '.' => self.emit_set(&set::dot()),
                '(' => self.open_group(at)?,
                ')' | '|' | '^' | '$' | '*' | '+' | '?' => self.out.push(c),
                '{' => match self.quantifier() {
                    Some(q) => self.out.push_str(&q),
                    None => self.emit_char('{', at)?,
                },
                c => self.emit_char(c, at)?,
            }
        }
        Ok(())
    }

    /// `(`, `(?:`, `(?<name>` (a plain group: names matter only to `\k`);
    /// lookaround is refused.
    fn open_group(&mut self, at: usize) -> Result<(), Unsupported> {
        if self.peek(0) != Some('?') {
            self.out.push('(');
            return Ok(());
        }
        for (prefix, what) in [
            ("?=", "lookahead `(?=...)`"),
            ("?!", "negative lookahead `(?!...)`"),
            ("?<=", "lookbehind `(?<=...)`"),
            ("?<!", "negative lookbehind `(?<!...)`"),
        ] {
            if self.starts_with(prefix) {
                return unsupported(at, format!("{what} is not supported"));
            }
        }
        if self.starts_with("?:") {
            self.pos += 2;
            self.out.push_str("(?:");
            return Ok(());
        }
        if self.starts_with("?<") {
            let close = self.chars[self.pos..].iter().position(|&c| c == '>');
            if let Some(close) = close.filter(|&n| n > 2) {
                self.pos += close + 1;
                self.out.push('(');
                return Ok(());
            }
        }
        unsupported(
            at,
            "invalid group: JavaScript reads `(?` only as `(?:`, `(?<name>` or lookaround",
        )
    }

    /// A `{n}`, `{n,}` or `{n,m}` quantifier at the cursor (just past the
    /// `{`), consumed; `None` when the brace is a literal (Annex B).
    fn quantifier(&mut self) -> Option<String> {
        let rest: String = self.chars[self.pos..]
            .iter()
            .take_while(|&&c| c != '}')
            .collect();
        if self.pos + rest.chars().count() >= self.chars.len() {
            return None;
        }
        let (min, max) = match rest.split_once(',') {
            Some((min, max)) => (min, Some(max)),
            None => (rest.as_str(), None),
        };
        let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
        if !digits(min) || max.is_some_and(|m| !m.is_empty() && !digits(m)) {
            return None;
        }
        self.pos += rest.chars().count() + 1;
        Some(format!("{{{rest}}}"))
    }

    /// One pattern character, as its case class under `i`. A character
    /// outside the Basic Multilingual Plane is two UTF-16 units to
    /// JavaScript: the same match in sequence, but not under a quantifier.
    fn emit_char(&mut self, c: char, at: usize) -> Result<(), Unsupported> {
        if (c as u32) > 0xFFFF && matches!(self.peek(0), Some('*' | '+' | '?' | '{')) {
            return unsupported(
                at,
                format!(
                    "a quantifier after `{c}`, outside the Basic Multilingual Plane: JavaScript (no `u` flag) repeats only its second UTF-16 unit"
                ),
            );
        }
        if self.case_insensitive {
            return {
                self.emit_set(&CharSet::single(c as u32));
                Ok(())
            };
        }
        self.out.push_str(&escape::literal(c));
        Ok(())
    }

    fn emit_set(&mut self, set: &CharSet) {
        if self.case_insensitive {
            self.emit_exact(&case::close(set));
        } else {
            self.emit_exact(set);
        }
    }

    fn emit_exact(&mut self, set: &CharSet) {
        match set.ranges().collect::<Vec<_>>()[..] {
            [(a, b)] if a == b && char::from_u32(a).is_some() => self
                .out
                .push_str(&escape::literal(char::from_u32(a).unwrap_or('\0'))),
            _ => self.out.push_str(&set.to_regex()),
        }
    }
}

/// Capturing groups: `(` not followed by `?`, or `(?<name>`; escaped and
/// in-class parentheses skipped.
fn count_groups(chars: &[char]) -> usize {
    let mut count = 0;
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                let next = chars.get(i + 1);
                let named = next == Some(&'?')
                    && chars.get(i + 2) == Some(&'<')
                    && !matches!(chars.get(i + 3), Some('=' | '!'));
                if next != Some(&'?') || named {
                    count += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    count
}

fn has_named_groups(chars: &[char]) -> bool {
    chars
        .windows(4)
        .any(|w| w[0] == '(' && w[1] == '?' && w[2] == '<' && !matches!(w[3], '=' | '!'))
}

#[cfg(test)]
mod tests;
