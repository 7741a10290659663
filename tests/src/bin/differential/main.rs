//! The differential runner: the same expressions and rules, on the same
//! data, through our node evaluation path and through the reference
//! implementations (jsonata-js 2.2.2; json-logic-js 2.0.5 as mcpGraph
//! 0.1.23 drives it), every disagreement held against
//! `tests/differential/known-differences.json`. See docs/DIFFERENTIAL.md.
//!
//! `differential [--seed N] [--count N] [--bless] [--show N]`

mod compare;
mod corpus;
mod gen_jsonata;
mod gen_logic;
mod known;
mod reference;
mod rng;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use mcpgraph_runtime::standalone::Sandbox;

use compare::{Compared, Disagreement};
use corpus::{Case, Skipped};

/// The graph files' folders (the compat copies are under `testdata/`).
const GRAPH_DIRS: &[&str] = &[
    "examples",
    "tests/graphs",
    "bench/graphs",
    "testdata",
    "mcpgraph/doc",
    "mcpgraph/tests/locked",
    "mcpgraph-cli/templates",
];

struct Options {
    seed: Option<u64>,
    count: Option<usize>,
    bless: bool,
    show: usize,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        seed: None,
        count: None,
        bless: false,
        show: 5,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--seed" => o.seed = Some(number("--seed")?),
            "--count" => o.count = Some(number("--count")? as usize),
            "--show" => o.show = number("--show")? as usize,
            "--bless" => o.bless = true,
            other => {
                return Err(format!(
                    "unknown argument `{other}` (--seed N --count N --bless --show N)"
                ));
            }
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    // Deep values (an expression nesting 200,000 objects) are dropped
    // recursively; the evaluation runs on a thread with room for that.
    let outcome = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(run)
        .map_err(|e| e.to_string())
        .and_then(|t| t.join().map_err(|_| "the runner panicked".to_owned()))
        .and_then(|r| r);
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("differential: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run() -> Result<bool, String> {
    let options = options()?;
    let root = root();
    let known_path = root.join("tests/differential/known-differences.json");
    let file = known::load(&known_path)?;
    let seed = options
        .seed
        .unwrap_or(if file.count == 0 { 1 } else { file.seed });
    let count = options
        .count
        .unwrap_or(if file.count == 0 { 10_000 } else { file.count });
    let started = Instant::now();

    let mut skipped: BTreeMap<&'static str, Skipped> = BTreeMap::new();
    let mut cases = corpus::graphs(&root, GRAPH_DIRS, skipped.entry("graphs").or_default());
    cases.extend(corpus::jsonata_suite(
        &root,
        skipped.entry("jsonata-suite").or_default(),
    ));
    cases.extend(corpus::jsonlogic_suite(&root));
    cases.extend(corpus::generated_logic(seed, count));
    cases.extend(corpus::generated_jsonata(seed, count));

    let mut reference = reference::Reference::start(&root, &cases)?;
    let harness = Sandbox::default();
    let mut stats: BTreeMap<&'static str, Stats> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut ran = HashSet::new();
    for case in &cases {
        let result = reference.next_result()?;
        let compared = compare::compare(&harness, case, &result);
        stats
            .entry(case.corpus)
            .or_default()
            .add(case, &compared, &mut skipped);
        if compared.skipped.is_none() {
            ran.insert(case.key());
        }
        disagreements.extend(compared.disagreements);
    }
    reference.finish()?;

    let blessed_run = seed == file.seed && count == file.count;
    if options.bless {
        let blessed = known::bless(&file, &disagreements, &ran, seed, count)?;
        known::save(&known_path, &blessed)?;
        println!(
            "differential: blessed {} ({} rules, {} cases)",
            known_path.display(),
            blessed.rules.len(),
            blessed.cases.len()
        );
    }
    let file = known::load(&known_path)?;
    let verdict = known::check(&file, &disagreements, &ran, blessed_run || options.bless)?;
    report(&stats, &skipped, &verdict, options.show);
    let totals = Stats::total(stats.values());
    let ok = verdict.new.is_empty() && verdict.stale.is_empty() && verdict.todo == 0;
    println!(
        "differential: seed={seed} count={count} cases={} skipped={} checks={} agree={} known={} new={} stale={} todo={} reference-errors: gen-jsonata={} gen-logic={} time={:.1}s {}",
        totals.cases,
        totals.skipped,
        totals.checks,
        totals.checks - totals.disagree,
        verdict.known.values().sum::<usize>(),
        verdict.new.len(),
        verdict.stale.len(),
        verdict.todo,
        percent(stats.get("gen-jsonata")),
        percent(stats.get("gen-logic")),
        started.elapsed().as_secs_f64(),
        if ok { "PASS" } else { "FAIL" },
    );
    Ok(ok)
}

/// Counts of one corpus.
#[derive(Default)]
struct Stats {
    cases: usize,
    skipped: usize,
    checks: usize,
    disagree: usize,
    reference_errors: usize,
}

impl Stats {
    fn add(
        &mut self,
        case: &Case,
        compared: &Compared,
        skipped: &mut BTreeMap<&'static str, Skipped>,
    ) {
        self.cases += 1;
        if let Some(why) = compared.skipped {
            self.skipped += 1;
            *skipped
                .entry(case.corpus)
                .or_default()
                .entry(why.into())
                .or_default() += 1;
        }
        self.checks += compared.checks;
        self.disagree += compared.disagreements.len();
        self.reference_errors += usize::from(compared.reference_error);
    }

    fn total<'a>(all: impl Iterator<Item = &'a Stats>) -> Stats {
        all.fold(Stats::default(), |mut t, s| {
            t.cases += s.cases;
            t.skipped += s.skipped;
            t.checks += s.checks;
            t.disagree += s.disagree;
            t.reference_errors += s.reference_errors;
            t
        })
    }
}

/// The share of a corpus's run cases the reference rejected.
fn percent(stats: Option<&Stats>) -> String {
    match stats {
        Some(s) if s.cases > s.skipped => {
            format!(
                "{:.1}%",
                100.0 * s.reference_errors as f64 / (s.cases - s.skipped) as f64
            )
        }
        _ => "-".into(),
    }
}

fn report(
    stats: &BTreeMap<&'static str, Stats>,
    skipped: &BTreeMap<&'static str, Skipped>,
    verdict: &known::Verdict,
    show: usize,
) {
    for (corpus, s) in stats {
        println!(
            "{corpus:>16}: {} cases ({} skipped), {} checks, {} agree, {} differ; reference errors on {} cases",
            s.cases,
            s.skipped,
            s.checks,
            s.checks - s.disagree,
            s.disagree,
            s.reference_errors
        );
    }
    for (corpus, reasons) in skipped {
        for (why, n) in reasons {
            println!("  skipped in {corpus}: {n} × {why}");
        }
    }
    println!("known differences by reason:");
    for (reason, n) in &verdict.known {
        println!("  {n:>6}  {reason}");
    }
    for stale in &verdict.stale {
        println!("STALE entry (matches no disagreement; remove it or --bless): {stale}");
    }
    if verdict.todo > 0 {
        println!(
            "{} listed disagreements still read reason \"TODO\": give each its cause",
            verdict.todo
        );
    }
    if !verdict.new.is_empty() {
        println!(
            "NEW disagreements: {} (first {show} shown; --bless lists them all)",
            verdict.new.len()
        );
        verdict.new.iter().take(show).for_each(print_example);
    }
}

fn print_example(d: &Disagreement) {
    println!("--- {} [{}] {} ({})", d.corpus, d.check, d.origin, d.key);
    println!("    source:    {}", d.source);
    println!("    data:      {}", known::shorten(&d.data.to_string()));
    println!("    ours:      {}", known::shorten(&d.ours));
    println!("    reference: {}", known::shorten(&d.reference));
}
