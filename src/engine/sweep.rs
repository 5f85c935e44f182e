//! Sweeps: the same [`estimate`](super::estimate) over a range of one input — GPU count (strong or
//! weak scaling), gradient bucket size, micro-batch size, sequence length.

use super::estimate::{estimate_into, Estimate};
use crate::scenario::{Scenario, ScenarioError};
use serde::Serialize;

/// How the batch changes when GPUs are added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scaling {
    /// Fixed global batch: more GPUs split the same work (fewer micro-batches per pipeline).
    Strong,
    /// Fixed batch per data-parallel replica: the global batch grows with `dp`.
    Weak,
}

/// One point of a GPU-count sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GpuPoint {
    /// GPUs in the run.
    pub num_gpus: u64,
    /// Layout used at this point (`tp`, `pp`, `dp`, `cp`).
    pub tp: u64,
    /// Pipeline degree at this point.
    pub pp: u64,
    /// Data-parallel degree at this point.
    pub dp: u64,
    /// Context-parallel degree at this point.
    pub cp: u64,
    /// Global batch at this point (changes under weak scaling).
    pub global_batch: u64,
    /// Step time, s.
    pub step_s: f64,
    /// Cluster tokens per second.
    pub tokens_per_s: f64,
    /// Model FLOPs utilisation.
    pub mfu: f64,
    /// `(tokens/s ÷ GPUs) ÷ (tokens/s ÷ GPUs at the first point)`: 1 = linear scaling.
    pub scaling_efficiency: f64,
    /// Whether the peak stage fits in GPU memory.
    pub fits: bool,
    /// Why this point could not be evaluated (then the numbers are 0).
    pub error: Option<String>,
}

/// One point of a gradient-bucket-size sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BucketPoint {
    /// Bucket size, MB (10⁶ bytes).
    pub bucket_mb: f64,
    /// Exposed data-parallel communication per step, s.
    pub exposed_dp_s: f64,
    /// Hidden (overlapped) data-parallel communication per step, s.
    pub hidden_dp_s: f64,
    /// Step time, s.
    pub step_s: f64,
}

/// Evaluates `s` with its bucket size set to each of `sizes_mb`.
///
/// # Errors
/// When `s` itself is invalid.
pub fn sweep_bucket_size(
    s: &Scenario,
    sizes_mb: &[f64],
) -> Result<Vec<BucketPoint>, ScenarioError> {
    let mut work = s.clone();
    let mut est = Estimate::default();
    let mut out = Vec::with_capacity(sizes_mb.len());
    for &mb in sizes_mb {
        work.parallel.bucket_mb = Some(mb);
        estimate_into(&work, &mut est)?;
        out.push(BucketPoint {
            bucket_mb: mb,
            exposed_dp_s: est.time.exposed_comm_s.dp,
            hidden_dp_s: est.time.hidden_comm_s.dp,
            step_s: est.time.step_s,
        });
    }
    Ok(out)
}

/// Default bucket sizes for the bucket curve: 1 MB … 4 GB in factors of 2 (log axis).
pub fn default_bucket_sizes_mb() -> Vec<f64> {
    (0..13).map(|i| f64::from(1u32 << i)).collect()
}
