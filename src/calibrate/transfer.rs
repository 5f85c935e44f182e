//! How well a calibration carries over: fit on one measured run, predict another run of the same
//! source (`paracalc validate --calibrate`, and the calibrated error band of the app).
//!
//! For every ordered pair `(j, i)`, `j ≠ i`, of timed runs in one group (one source table: the
//! same software and people) on the same GPU model (a calibration describes one cluster: its
//! drivers, kernels and fabric; a source that ran H100 and GB200 tables ran two clusters),
//! calibrate the scenario of `i` with the factors fitted on `j` and compare its step time with
//! the one measured for `i`. This is what a user gets who measures one plan on their cluster
//! and asks paracalc about another plan on it.

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
