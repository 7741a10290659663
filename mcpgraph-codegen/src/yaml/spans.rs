//! Maps a scalar's value back to the file, character by character, so
//! that a place inside an expression (a syntax error, a node it reads) can
//! be shown at its line and column, whatever the quoting style.

use super::LineIndex;
use crate::model::Pos;

/// How a scalar is written, as far as mapping its text back goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    DoubleQuoted,
    SingleQuoted,
    /// Plain or block: the text is the file's, with line breaks folded and
    /// indentation removed. `indent` is how many columns of a continuation
    /// line are indentation when known (block scalars), else all of its
    /// leading blanks are.
    Unquoted {
        indent: Option<usize>,
    },
}

/// Maps a scalar's value back to the file: `(byte offset in value, file
/// position)` at the start of every run that is copied verbatim from one line
/// of the file (see `model::Expr::spans`). `start` is the byte offset of the
/// scalar's first character. Returns an empty list if the value does not
/// match the text there (it never should).
pub(crate) fn scalar_spans(index: &LineIndex<'_>, start: usize, value: &str) -> Vec<(usize, Pos)> {
    let text = index.text;
    let Some(src) = text.get(start..) else {
        return Vec::new();
    };
    let style = if src.starts_with('"') {
        Style::DoubleQuoted
    } else if src.starts_with('\'') {
        Style::SingleQuoted
    } else if is_block_content_start(text, start) {
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        Style::Unquoted {
            indent: Some(start - line_start),
        }
    } else {
        Style::Unquoted { indent: None }
    };
    let first = match style {
        Style::DoubleQuoted | Style::SingleQuoted => 1,
        Style::Unquoted { .. } => 0,
    };
    match map_chars(src, first, value, style) {
        Some(offsets) => runs(index, start, src, value, &offsets),
        None => Vec::new(),
    }
}

/// Whether `start` is the first content character of a block scalar: it
/// begins a line (after indentation) and the nearest non-blank line above
/// ends with a block header (`|` or `>`, indicators, an optional comment).
fn is_block_content_start(text: &str, start: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..start]
        .chars()
        .all(|c| c == ' ' || c == '\t')
    {
        return false;
    }
    let Some(header) = text[..line_start]
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
    else {
        return false;
    };
    let header = match header.find(" #") {
        Some(i) => &header[..i],
        None => header,
    };
    let header = header
        .trim_end()
        .trim_end_matches(|c: char| c == '+' || c == '-' || c.is_ascii_digit());
    header.ends_with('|') || header.ends_with('>')
}

/// For each character of `value`, the byte offset in `src` of the text it
/// comes from.
fn map_chars(src: &str, first: usize, value: &str, style: Style) -> Option<Vec<usize>> {
    let s = src.as_bytes();
    let mut i = first;
    let mut out = Vec::with_capacity(value.len());
    let is_blank = |b: u8| b == b' ' || b == b'\t';
    // After a line break: skip the next line's indentation.
    let skip_indent = |mut i: usize| {
        let mut n = 0;
        while i < s.len() && is_blank(s[i]) {
            if let Style::Unquoted { indent: Some(k) } = style
                && n >= k
            {
                break;
            }
            i += 1;
            n += 1;
        }
        i
    };
    for c in value.chars() {
        loop {
            let here = src.get(i..)?;
            let sc = here.chars().next()?;
            if style == Style::DoubleQuoted && sc == '\\' {
                let next = here[1..].chars().next()?;
                if next == '\n' || next == '\r' {
                    // An escaped line break: nothing in the value.
                    i += 1 + if here[1..].starts_with("\r\n") { 2 } else { 1 };
                    i = skip_indent(i);
                    continue;
                }
                let len = match next {
                    'x' => 4,
                    'u' => 6,
                    'U' => 10,
                    _ => 1 + next.len_utf8(),
                };
                out.push(i);
                i += len;
                break;
            }
            if style == Style::SingleQuoted && c == '\'' && here.starts_with("''") {
                out.push(i);
                i += 2;
                break;
            }
            if sc == c {
                out.push(i);
                i += sc.len_utf8();
                if c == '\n' {
                    i = skip_indent(i);
                }
                break;
            }
            if (c == ' ' || c == '\n') && (sc == '\n' || sc == '\r') {
                // A folded line break.
                out.push(i);
                i += if here.starts_with("\r\n") { 2 } else { 1 };
                i = skip_indent(i);
                break;
            }
            if sc == ' ' || sc == '\t' || sc == '\n' || sc == '\r' {
                // Blanks the folding removed.
                i += 1;
                continue;
            }
            return None;
        }
    }
    Some(out)
}

/// Turns per-character offsets into runs.
fn runs(
    index: &LineIndex<'_>,
    start: usize,
    src: &str,
    value: &str,
    offsets: &[usize],
) -> Vec<(usize, Pos)> {
    let mut out = Vec::new();
    let mut expected: Option<usize> = None;
    for ((vb, c), &sb) in value.char_indices().zip(offsets) {
        let verbatim = src[sb..].starts_with(c) && c != '\n';
        if expected != Some(sb) || !verbatim {
            out.push((vb, index.pos(start + sb)));
        }
        expected = verbatim.then(|| sb + c.len_utf8());
    }
    if out.is_empty() {
        out.push((0, index.pos(start)));
    }
    out
}

/// The file position of byte `offset` of an expression's text (clamped to
/// the text).
pub(crate) fn expr_offset_pos(
    spans: &[(usize, Pos)],
    fallback: Pos,
    source: &str,
    offset: usize,
) -> Pos {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let i = spans.partition_point(|(o, _)| *o <= offset);
    let Some((base, pos)) = i.checked_sub(1).and_then(|i| spans.get(i)) else {
        return fallback;
    };
    let gap = &source[*base..offset];
    if gap.contains('\n') {
        // Only possible past the last run (a trailing line break).
        return *pos;
    }
    Pos {
        line: pos.line,
        column: pos.column + u32::try_from(gap.chars().count()).unwrap_or(0),
        offset: pos.offset + gap.len(),
    }
}
