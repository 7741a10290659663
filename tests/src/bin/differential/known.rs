//! The known-differences file (`tests/differential/known-differences.json`):
//! every disagreement must be listed there, with its reason, as a single
//! case (by content key and check) or under a rule (regexes on the case's
//! source and on each side's outcome). Checked both ways: an unlisted
//! disagreement fails, and so does an entry that no longer matches one.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::compare::Disagreement;

/// The reason of a new entry, which a person must replace.
pub const TODO: &str = "TODO";

#[derive(Default, Deserialize, Serialize)]
pub struct KnownFile {
    /// The seed and count the file was blessed with: staleness is only
    /// judged on a run of those (another seed meets other cases).
    pub seed: u64,
    pub count: usize,
    /// Groups of disagreements sharing one cause.
    #[serde(default)]
    pub rules: Vec<RuleEntry>,
    /// Single disagreements.
    #[serde(default)]
    pub cases: Vec<CaseEntry>,
}

/// A group: every field given must match (regexes, searched).
#[derive(Clone, Deserialize, Serialize)]
pub struct RuleEntry {
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// A category the runner detects (`key-order`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// On the expression, or the rule as one line of JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// On our outcome (`value: ..`, `undefined`, `error: ..`, or the text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ours: Option<String>,
    /// On the reference's outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// On the case's data, as compact JSON (a cause that only some data
    /// bring out, such as an empty array).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// One disagreement, by the content key of its case and the check. The
/// other fields are there for the reader, not matched.
#[derive(Clone, Deserialize, Serialize)]
pub struct CaseEntry {
    pub key: String,
    pub check: String,
    pub reason: String,
    pub origin: String,
    pub source: String,
    pub ours: String,
    pub reference: String,
}

/// How the run's disagreements stand against the file.
#[derive(Default)]
pub struct Verdict {
    /// Listed disagreements, counted by reason.
    pub known: BTreeMap<String, usize>,
    /// Disagreements the file does not list.
    pub new: Vec<Disagreement>,
    /// Entries (rules, and cases that ran) matching no disagreement.
    pub stale: Vec<String>,
    /// Entries still reading TODO that matched.
    pub todo: usize,
}

pub fn load(path: &Path) -> Result<KnownFile, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KnownFile::default()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

struct Compiled<'a> {
    entry: &'a RuleEntry,
    res: [Option<Regex>; 7],
}

fn compile(rules: &[RuleEntry]) -> Result<Vec<Compiled<'_>>, String> {
    let re = |r: &Option<String>| -> Result<Option<Regex>, String> {
        r.as_deref()
            .map(Regex::new)
            .transpose()
            .map_err(|e| e.to_string())
    };
    rules
        .iter()
        .map(|entry| {
            Ok(Compiled {
                entry,
                res: [
                    re(&entry.corpus)?,
                    re(&entry.check)?,
                    re(&entry.source)?,
                    re(&entry.ours)?,
                    re(&entry.reference)?,
                    re(&entry.category)?,
                    re(&entry.data)?,
                ],
            })
        })
        .collect()
}

impl Compiled<'_> {
    fn matches(&self, d: &Disagreement) -> bool {
        let data = match &self.res[6] {
            Some(_) => d.data.to_string(),
            None => String::new(),
        };
        let fields = [
            d.corpus,
            d.check,
            &d.source,
            &d.ours,
            &d.reference,
            d.category,
            &data,
        ];
        self.res
            .iter()
            .zip(fields)
            .all(|(re, field)| re.as_ref().is_none_or(|re| re.is_match(field)))
    }
}

/// Holds `disagreements` against `file`. `ran` holds the keys of every
/// case that ran; `judge_stale` is whether this run is the blessed one.
pub fn check(
    file: &KnownFile,
    disagreements: &[Disagreement],
    ran: &HashSet<String>,
    judge_stale: bool,
) -> Result<Verdict, String> {
    let rules = compile(&file.rules)?;
    let cases: BTreeMap<(&str, &str), &CaseEntry> = file
        .cases
        .iter()
        .map(|c| ((c.key.as_str(), c.check.as_str()), c))
        .collect();
    let mut verdict = Verdict::default();
    let mut used_rules = vec![false; rules.len()];
    let mut used_cases = HashSet::new();
    for d in disagreements {
        let reason = if let Some(entry) = cases.get(&(d.key.as_str(), d.check)) {
            used_cases.insert((entry.key.as_str(), entry.check.as_str()));
            Some(&entry.reason)
        } else if let Some(i) = rules.iter().position(|r| r.matches(d)) {
            used_rules[i] = true;
            Some(&rules[i].entry.reason)
        } else {
            None
        };
        match reason {
            Some(reason) => {
                *verdict.known.entry(reason.clone()).or_default() += 1;
                verdict.todo += usize::from(reason == TODO);
            }
            None => verdict.new.push(d.clone()),
        }
    }
    if judge_stale {
        for (rule, used) in rules.iter().zip(used_rules) {
            if !used {
                verdict.stale.push(format!("rule: {}", rule.entry.reason));
            }
        }
        for c in &file.cases {
            if ran.contains(&c.key) && !used_cases.contains(&(c.key.as_str(), c.check.as_str())) {
                verdict.stale.push(format!(
                    "case {} {} ({}): {}",
                    c.key, c.check, c.origin, c.reason
                ));
            }
        }
    }
    Ok(verdict)
}

/// The file rewritten for this run: rules that still match kept, case
/// entries kept for disagreements no rule covers (their reasons too) and
/// added, reading TODO, for new ones; entries of cases that did not run
/// are kept as they are.
pub fn bless(
    file: &KnownFile,
    disagreements: &[Disagreement],
    ran: &HashSet<String>,
    seed: u64,
    count: usize,
) -> Result<KnownFile, String> {
    let rules = compile(&file.rules)?;
    let reasons: BTreeMap<(&str, &str), &str> = file
        .cases
        .iter()
        .map(|c| ((c.key.as_str(), c.check.as_str()), c.reason.as_str()))
        .collect();
    let mut used_rules = vec![false; rules.len()];
    let mut cases: Vec<CaseEntry> = file
        .cases
        .iter()
        .filter(|c| !ran.contains(&c.key))
        .cloned()
        .collect();
    for d in disagreements {
        let listed = reasons.get(&(d.key.as_str(), d.check));
        if listed.is_none()
            && let Some(i) = rules.iter().position(|r| r.matches(d))
        {
            used_rules[i] = true;
            continue;
        }
        cases.push(CaseEntry {
            key: d.key.clone(),
            check: d.check.to_owned(),
            reason: listed.map_or(TODO, |r| r).to_owned(),
            origin: d.origin.clone(),
            source: d.source.clone(),
            ours: shorten(&d.ours),
            reference: shorten(&d.reference),
        });
    }
    cases.sort_by(|a, b| (&a.reason, &a.origin, &a.check).cmp(&(&b.reason, &b.origin, &b.check)));
    let rules = rules
        .iter()
        .zip(used_rules)
        .filter(|(_, used)| *used)
        .map(|(r, _)| r.entry.clone())
        .collect();
    Ok(KnownFile {
        seed,
        count,
        rules,
        cases,
    })
}

pub fn save(path: &Path, file: &KnownFile) -> Result<(), String> {
    let text = serde_json::to_string_pretty(file).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
}

/// At most 200 characters, for the file's readers.
pub fn shorten(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
