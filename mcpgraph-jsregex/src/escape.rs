//! Escapes and character classes, read as JavaScript reads them without
//! the `u` flag (ECMA-262 Annex B: an unknown escape is the character
//! itself, `\c` and `\u` fall back to literals).

use crate::set::{self, CharSet};
use crate::{Unsupported, unsupported};

/// A character or a set of them.
pub(crate) enum Atom {
    Char(char),
    Set(CharSet),
}

/// What an escape outside a class means.
pub(crate) enum Escape {
    Atom(Atom),
    /// `\b` (false) or `\B` (true).
    WordBoundary(bool),
    /// `\1`...: a group's text.
    Backreference,
    /// `\k`: a backreference when the pattern names groups, else `k`.
    NamedBackreference,
}

/// Reads the escape after a `\` (the cursor is past it).
pub(crate) fn read(
    chars: &[char],
    pos: &mut usize,
    in_class: bool,
    groups: usize,
) -> Result<Escape, Unsupported> {
    let at = *pos - 1;
    let Some(&c) = chars.get(*pos) else {
        return unsupported(at, "a `\\` at the end of the pattern");
    };
    *pos += 1;
    let set = |s: CharSet| Ok(Escape::Atom(Atom::Set(s)));
    let char = |c: char| Ok(Escape::Atom(Atom::Char(c)));
    match c {
        'd' => set(set::digits()),
        'D' => set(set::digits().complement()),
        'w' => set(set::word()),
        'W' => set(set::word().complement()),
        's' => set(set::space()),
        'S' => set(set::space().complement()),
        'b' if in_class => char('\u{8}'),
        'b' => Ok(Escape::WordBoundary(false)),
        'B' if !in_class => Ok(Escape::WordBoundary(true)),
        't' => char('\t'),
        'n' => char('\n'),
        'r' => char('\r'),
        'v' => char('\u{B}'),
        'f' => char('\u{C}'),
        '0' if !chars.get(*pos).is_some_and(char::is_ascii_digit) => char('\0'),
        '0'..='9' => {
            let digits: String = chars[*pos - 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            let n: usize = digits.parse().unwrap_or(usize::MAX);
            if !in_class && n >= 1 && n <= groups {
                return Ok(Escape::Backreference);
            }
            unsupported(
                at,
                format!(
                    "`\\{digits}` is a legacy octal or identity escape in JavaScript; write the character as `\\xHH` or `\\uHHHH`"
                ),
            )
        }
        'c' => {
            let letter = chars.get(*pos).copied().filter(|c| {
                c.is_ascii_alphabetic() || (in_class && (c.is_ascii_digit() || *c == '_'))
            });
            match letter {
                Some(l) => {
                    *pos += 1;
                    char(char::from(l as u8 % 32))
                }
                None => unsupported(
                    at,
                    "`\\c` without a control letter (JavaScript reads it as `\\c` literally)",
                ),
            }
        }
        'x' => match hex(chars, *pos, 2) {
            Some(code) => {
                *pos += 2;
                char(char::from_u32(code).unwrap_or('\0'))
            }
            None => char('x'),
        },
        'u' if chars.get(*pos) == Some(&'{') => unsupported(
            at,
            "`\\u{...}` needs the `u` flag, which jsonata-js regexes cannot have (without it JavaScript reads `u` repeated)",
        ),
        'u' => match hex(chars, *pos, 4) {
            Some(code) if (0xD800..0xE000).contains(&code) => unsupported(
                at,
                "a `\\u` escape of a UTF-16 surrogate (strings here hold whole characters)",
            ),
            Some(code) => {
                *pos += 4;
                char(char::from_u32(code).unwrap_or('\0'))
            }
            None => char('u'),
        },
        'k' if !in_class => Ok(Escape::NamedBackreference),
        other => char(other),
    }
}

fn hex(chars: &[char], from: usize, len: usize) -> Option<u32> {
    let digits: String = chars.get(from..from + len)?.iter().collect();
    if digits.chars().all(|c| c.is_ascii_hexdigit()) {
        u32::from_str_radix(&digits, 16).ok()
    } else {
        None
    }
}

/// Reads a class after its `[` (the cursor is past it; `at` is the `[`):
/// the set it matches, negation applied. `[]` matches nothing and `[^]`
/// anything, as in JavaScript. A class escape next to `-` makes the `-`
/// literal (Annex B).
pub(crate) fn read_class(
    chars: &[char],
    pos: &mut usize,
    at: usize,
    case_insensitive: bool,
) -> Result<CharSet, Unsupported> {
    let negated = chars.get(*pos) == Some(&'^');
    if negated {
        *pos += 1;
    }
    let mut set = CharSet::default();
    loop {
        let Some(&c) = chars.get(*pos) else {
            return unsupported(at, "an unterminated character class");
        };
        if c == ']' {
            *pos += 1;
            break;
        }
        let start_at = *pos;
        let start = class_atom(chars, pos)?;
        let is_range =
            chars.get(*pos) == Some(&'-') && chars.get(*pos + 1).is_some_and(|&c| c != ']');
        if !is_range {
            add(&mut set, start, start_at)?;
            continue;
        }
        *pos += 1;
        let end_at = *pos;
        let end = class_atom(chars, pos)?;
        match (start, end) {
            (Atom::Char(a), Atom::Char(b)) if a > b => {
                return unsupported(start_at, "a class range out of order");
            }
            (Atom::Char(a), Atom::Char(b)) => {
                for (c, i) in [(a, start_at), (b, end_at)] {
                    astral_in_class(c, i)?;
                }
                set.add(a as u32, b as u32);
            }
            (start, end) => {
                add(&mut set, start, start_at)?;
                set.add('-' as u32, '-' as u32);
                add(&mut set, end, end_at)?;
            }
        }
    }
    // JavaScript applies `i` to the members, then negates.
    let set = if case_insensitive {
        crate::case::close(&set)
    } else {
        set
    };
    Ok(if negated { set.complement() } else { set })
}

fn add(set: &mut CharSet, atom: Atom, at: usize) -> Result<(), Unsupported> {
    match atom {
        Atom::Char(c) => {
            astral_in_class(c, at)?;
            set.add(c as u32, c as u32);
        }
        Atom::Set(s) => set.union(&s),
    }
    Ok(())
}

fn astral_in_class(c: char, at: usize) -> Result<(), Unsupported> {
    if (c as u32) > 0xFFFF {
        return unsupported(
            at,
            format!(
                "`{c}` in a class: it is outside the Basic Multilingual Plane, two UTF-16 units to JavaScript (no `u` flag), each a member on its own"
            ),
        );
    }
    Ok(())
}

fn class_atom(chars: &[char], pos: &mut usize) -> Result<Atom, Unsupported> {
    let c = chars[*pos];
    *pos += 1;
    if c != '\\' {
        return Ok(Atom::Char(c));
    }
    match read(chars, pos, true, 0)? {
        Escape::Atom(atom) => Ok(atom),
        // Not produced inside a class: `\B` and `\k` are literal there.
        Escape::WordBoundary(_) => Ok(Atom::Char('B')),
        Escape::Backreference | Escape::NamedBackreference => Ok(Atom::Char('k')),
    }
}

/// `c` as a Rust regex literal.
pub(crate) fn literal(c: char) -> String {
    if c.is_ascii_alphanumeric() || c == '_' || c == ' ' {
        c.to_string()
    } else {
        format!("\\x{{{:X}}}", c as u32)
    }
}
