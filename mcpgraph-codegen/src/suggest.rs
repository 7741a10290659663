//! "Did you mean" hints: the closest of a list of names to a misspelt one,
//! and lists of names for messages. Used by lowering and validation alike;
//! knows nothing of the graph format.

/// The closest candidate to `word` by edit distance, if it is close enough
/// to be a likely typo.
pub(crate) fn suggest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let sorted = |s: &str| {
        let mut v: Vec<char> = s.chars().collect();
        v.sort_unstable();
        v
    };
    let mut best: Option<((usize, bool), &'a str)> = None;
    for &c in candidates {
        let d = if c.to_lowercase() == lower {
            0
        } else {
            edit_distance(&lower, &c.to_lowercase())
        };
        // On a tie, a candidate with the same letters (a transposition) wins.
        let score = (d, sorted(&lower) != sorted(&c.to_lowercase()));
        if best.is_none_or(|(bs, _)| score < bs) {
            best = Some((score, c));
        }
    }
    let ((d, _), c) = best?;
    let limit = (word.chars().count().max(c.chars().count()) / 3).max(1);
    (d <= limit).then_some(c)
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// `a, b or c`-style list of backquoted names.
pub(crate) fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(suggest("nxt", &["id", "type", "next"]), Some("next"));
        assert_eq!(
            suggest("inputschema", &["inputSchema"]),
            Some("inputSchema")
        );
        assert_eq!(suggest("zzzzzz", &["entry", "exit", "mcp"]), None);
    }
}
