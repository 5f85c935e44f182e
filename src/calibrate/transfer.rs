//! How well a calibration carries over: fit on one measured run, predict another run of the same
//! source (`paracalc validate --calibrate`, and the calibrated error band of the app).
//!
//! For every ordered pair `(j, i)`, `j ≠ i`, of timed runs in one group (one source table: the
//! same software and people) on the same GPU model (a calibration describes one cluster: its
//! drivers, kernels and fabric; a source that ran H100 and GB200 tables ran two clusters),
//! calibrate the scenario of `i` with the factors fitted on `j` and compare its step time with
//! the one measured for `i`. This is what a user gets who measures one plan on their cluster
//! and asks paracalc about another plan on it.
//!
//! # What it can do, measured (issue 31)
//! The acceptance (`cli::validate::calibrated`): calibrated below uncalibrated in a group whose
//! mean error exceeds its spread, else no worse than a pure scale transfer (the other run's
//! measured/predicted). On `tests/data/public.json` it holds in 20 of 22 groups; pooled over
//! 17,512 pairs the calibrated MAPE is 7.02 % against 7.56 % for the scale and 7.39 %
//! uncalibrated (`tests/data/extra.json`: 3.97 / 3.98 / 7.49 %, 7 of 7 groups). It misses in
//! `moe_dgxc_grok1_2505` (2.09 % against the scale's 2.07 %, 32 pairs) and
//! `dgxc_maxtext_llama2_70b` (5.57 against 5.52 %, 132 pairs).
//!
//! **Why, pair by pair.** Every point of both misses is in pairs that cross bf16 and FP8. Same
//! precision, calibration is at or below the scale (grok 0.96 against 0.97 %, 12 pairs; MaxText
//! 4.09 against 4.10 %, 60 pairs); across, it is above (grok 2.77 against 2.73 %, 20 pairs;
//! MaxText 6.80 against 6.71 %, 72 pairs). Both sources' model errors differ by precision: Grok's
//! H100 pair is predicted +2.1 % (bf16) and −16.7 % (FP8); MaxText's bf16 runs −0.5 to −3.3 %,
//! its FP8 runs +2.6 to −11.4 % (the measured FP8 step grows from 4.32 to 5.06 s between 64 and
//! 1024 GPUs while bf16 stays at 7.00-7.15 s, which no rate explains). Fitted on the FP8 run,
//! the factors put its −16.7 % on the kernels (compute 0.818, attention 0.863, network 0.876);
//! the bf16 plan spends more of its step in those kernels (compute share 0.862 against 0.816:
//! its GEMMs are the slower ones), so its correction is larger by the ratio of the scaled
//! shares, 0.1866 / 0.1815 = 1.028 in `ln`: +23.20 % against the scale's +22.50 %. That one
//! pair is 0.020 of the group's 0.022-point gap. MaxText the same way (FP8 compute share
//! 0.84-0.87, bf16 0.90-0.92): its FP8 → bf16 pairs lose 0.146 points each on average, bf16 →
//! FP8 0.038. Neither the unscaled fixed latencies (1 − Σ shares: 0.3-3.4 % of MaxText's step,
//! 4-7 % of Grok's; MaxText's same-precision pairs across 64-2048 GPUs net −0.004 points) nor the
//! network factor (share ≤ 0.06) matters.
//!
//! **No principled fit meets it strictly.** Pooled calibrated MAPE, public / extra: the fit as
//! documented in [`crate::calibrate`] 7.02 / 3.97 %; one factor on every rate (shares no longer
//! matter, close to a scale) 7.54 / 4.05 %; the kernels alone (network at 1) 7.61 / 4.10 %;
//! the split weighted by other spreads, `σ` = 0.3 for all three 7.21 / 4.07 %, `σ_c` = 0.2
//! 7.03 / 4.04 %, `σ_c` = 0.05 (meets MaxText, 5.33 %; Grok still misses, 2.11 %) 8.01 / 3.94 %;
//! the compute factor kept apart between FP8 and bf16 (an earlier trial) extra.json 3.97 →
//! 5.35 %, `moe_dgxc_llama4_2505` 3.18 → 10.21 %. Across precisions the rate factors win
//! elsewhere (`moe_dgxc_grok1_h100_2504` 7.42 against the scale's 8.14 %, Llama 4 3.73 against
//! 4.42 %, `torchtitan_h100` 8.11 against 12.33 %, `hf_docs_memory`'s fp32/fp16 pairs 8.55
//! against 18.59 %), so a rule that met the line in these two groups would trade them away.
//!
//! **Noise.** With `d = |calibrated| − |scale|` per pair, and pairs sharing runs, the standard
//! error of a group's mean `d` is taken by the jackknife over runs (drop one run with all its
//! pairs; `SE² = (n−1)/n·Σ(d̄₍ᵢ₎ − d̄)²`). Grok: +0.022 ± 0.035 points (within noise).
//! MaxText: +0.048 ± 0.016 (about 3 SE: a systematic 0.9 % of the scale's error, all of it the
//! precision crossing above). For comparison `torchtitan_a100`, which holds, −0.014 ± 0.028.
//! So the strict line cannot be met by rate factors where a source's model error differs by
//! precision; the test (`tests/calibrate.rs`) holds the misses to these groups and under
//! 0.25 points.

use super::{fit, Measurement};
use crate::engine::estimate;
use crate::scenario::{Calibration, Scenario};

/// One measured run.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// Its group (source table); pairs never cross groups.
    pub group: &'a str,
    /// The plan.
    pub scenario: &'a Scenario,
    /// Measured seconds per step.
    pub step_s: f64,
}

/// One calibrated prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfer {
    /// Index of the run the calibration was fitted on.
    pub from: usize,
    /// Index of the run predicted.
    pub to: usize,
    /// `100·(predicted − measured)/measured`, or why there is none.
    pub error_pct: Result<f64, String>,
}

/// Every ordered pair of distinct runs within a group on the same GPU, in input order of `from`, then `to`.
/// A run that cannot be fitted yields an error for each of its pairs (never silently skipped).
pub fn transfers(runs: &[Run<'_>]) -> Vec<Transfer> {
    let mut out = Vec::new();
    for (j, rj) in runs.iter().enumerate() {
        let fitted = fit(rj.scenario, &Measurement::step(rj.step_s))
            .map_err(|e| format!("calibrating on this run failed: {e}"));
        for (i, ri) in runs.iter().enumerate() {
            if i == j || ri.group != rj.group || !same_gpu(ri.scenario, rj.scenario) {
                continue;
            }
            let error_pct = fitted.as_ref().map_err(Clone::clone).and_then(|f| {
                let mut s = ri.scenario.clone();
                s.calibration = Calibration {
                    memory_gib: s.calibration.memory_gib,
                    ..f.calibration
                };
                let e = estimate(&s).map_err(|e| e.to_string())?;
                Ok(100.0 * (e.time.step_s - ri.step_s) / ri.step_s)
            });
            out.push(Transfer {
                from: j,
                to: i,
                error_pct,
            });
        }
    }
    out
}

/// Mean absolute error (percent) and count of the pairs that have one.
pub fn mape(transfers: &[Transfer]) -> (f64, usize) {
    let (sum, n) = transfers
        .iter()
        .filter_map(|t| t.error_pct.as_ref().ok())
        .fold((0.0, 0usize), |(s, n), e| (s + e.abs(), n + 1));
    if n == 0 {
        (0.0, 0)
    } else {
        (sum / n as f64, n)
    }
}

/// Whether two plans run on the same GPU model (a calibration describes one cluster).
fn same_gpu(a: &Scenario, b: &Scenario) -> bool {
    a.cluster.gpu_name() == b.cluster.gpu_name()
}
