//! `paracalc bench [FILE.json]`: engine speed figures (not a timed test). Reports nanoseconds per
//! `estimate` call and search layouts per second for a scenario (default: GPT-3 175B on 1024
//! A100s, tp 8 × pp 16 × dp 8).

use super::args::{load_scenario, Args};
use super::error::CliError;
use crate::engine::estimate::{estimate_into, Estimate};
use crate::engine::search::{search, SearchSpace};
use crate::scenario::Scenario;
use std::time::Instant;

/// The reference scenario of the speed targets (issue: ≤ 2 µs per estimate, ≥ 500 000 layouts/s).
pub const GPT3_175B_1024: &str = r#"{
  "model": {"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96, "ffn_hidden": 49152,
            "vocab": 51200, "seq_len": 2048, "tied_embeddings": true},
  "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "recompute": "selective"},
  "parallel": {"tp": 8, "pp": 16, "dp": 8, "sp": true, "zero_stage": 1},
  "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024}
}"#;

/// Timed batches of `estimate` calls (the report gives the fastest and the median).
const BATCHES: usize = 10;

/// Runs `paracalc bench`.
pub fn run(args: &[String]) -> Result<String, CliError> {
    let a = Args::parse(args, &[], &["--iters"])?;
    let s: Scenario = match a.positional.first() {
        Some(path) => load_scenario(path)?,
        None => {
            crate::scenario::parse(GPT3_175B_1024).map_err(|e| CliError::internal(e.to_string()))?
        }
    };
    let iters: u64 = a
        .value("--iters")
        .map_or(Ok(2_000_000), str::parse)
        .map_err(|_| CliError::input("--iters: not a whole number"))?;
    let mut est = Estimate::default();
    estimate_into(&s, &mut est).map_err(|e| CliError::input(e.to_string()))?;
    // Ten batches: on a shared machine a batch that another process interrupts runs slow, so the
    // fastest batch is the engine's own speed and the median what a busy machine gives.
    let mut sink = 0.0;
    let mut batches = [0.0_f64; BATCHES];
    let per_batch = (iters / BATCHES as u64).max(1);
    for b in &mut batches {
        let t = Instant::now();
        for _ in 0..per_batch {
            // A failure here cannot happen (the same scenario passed above); count it anyway.
            if estimate_into(std::hint::black_box(&s), &mut est).is_err() {
                sink += 1.0;
            }
            sink += est.time.step_s;
        }
        *b = t.elapsed().as_secs_f64() / per_batch as f64;
    }
    crate::sort::sort_by(&mut batches, f64::total_cmp);
    let (fastest, median) = (batches[0], batches[BATCHES / 2]);
    // The validation every estimate starts with (the field table's range pass and the rules).
    let t = Instant::now();
    for _ in 0..iters {
        if std::hint::black_box(&s).validate().is_err() {
            sink += 1.0;
        }
    }
    let validate_call = t.elapsed().as_secs_f64() / iters.max(1) as f64;
    let t = Instant::now();
    let report = search(&s, &SearchSpace::default());
    let search_s = t.elapsed().as_secs_f64();
    // The same search without the schedule dimension and the split refinement, for comparison.
    let plain = SearchSpace {
        schedules: vec![None],
        refine_splits: false,
        ..SearchSpace::default()
    };
    let t = Instant::now();
    let base = search(&s, &plain);
    let base_s = t.elapsed().as_secs_f64();
    Ok(format!(
        "estimate: {:.0} ns per call, fastest of {} batches ({:.0} ns median; {} calls; checksum {:.3e}), of which validate {:.0} ns\nsearch: {} layouts in {:.3} s = {:.0} layouts/s ({} feasible)\nsearch without schedules and split refinement: {} layouts in {:.3} s = {:.0} layouts/s\n",
        fastest * 1e9,
        BATCHES,
        median * 1e9,
        per_batch * BATCHES as u64,
        sink,
        validate_call * 1e9,
        report.evaluated,
        search_s,
        report.evaluated as f64 / search_s.max(1e-12),
        report.feasible,
        base.evaluated,
        base_s,
        base.evaluated as f64 / base_s.max(1e-12)
    ))
}
