//! The benchmark harness library (the driver is `bench/src/bin/bench/`,
//! run by `scripts/bench.sh`).
//!
//! - [`rpc`]: a raw JSON-RPC client over a child's stdio (no SDK);
//! - [`http`]: a raw HTTP/1.1 client for stateless streamable HTTP;
//! - [`workloads`]: the calls, their expected values, the reply check;
//! - [`micro`]: micro-benchmarks of JSONata evaluation and a switch decision;
//! - [`buildside`]: synthetic graphs and macro expansion time;
//! - [`report`]: the markdown table and the SVG chart.

pub mod buildside;
pub mod http;
pub mod micro;
pub mod report;
pub mod rpc;
pub mod workloads;

/// Value at quantile `q` (0..=1) of sorted samples (nearest rank).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Median of unsorted samples.
pub fn median(samples: &[f64]) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    quantile(&s, 0.5)
}
