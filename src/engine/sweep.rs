//! Sweeps: the same [`estimate`](super::estimate) over a range of one input — GPU count (strong or
//! weak scaling), gradient bucket size, micro-batch size, sequence length.

use super::estimate::{estimate_into, Estimate};
use super::search::{search, SearchSpace};
use super::time::breakdown::FixedCosts;
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
    /// Scaling efficiency, 1 = linear scaling: see [`set_scaling_efficiency`].
    pub scaling_efficiency: f64,
    /// Whether the peak stage fits in GPU memory.
    pub fits: bool,
    /// The step's costs paid once whatever the work per GPU
    /// ([`crate::engine::time::breakdown::FixedCosts`]).
    pub fixed: FixedCosts,
    /// Why this point could not be evaluated (then the numbers are 0).
    pub error: Option<String>,
}

impl GpuPoint {
    /// A point for `num_gpus` GPUs and `global_batch` sequences, not evaluated yet (all zero).
    fn empty(num_gpus: u64, global_batch: u64) -> GpuPoint {
        GpuPoint {
            num_gpus,
            tp: 0,
            pp: 0,
            dp: 0,
            cp: 0,
            global_batch,
            step_s: 0.0,
            tokens_per_s: 0.0,
            mfu: 0.0,
            scaling_efficiency: 0.0,
            fits: false,
            fixed: FixedCosts::default(),
            error: None,
        }
    }
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

/// The reference rate of compared GPU sweeps, tokens/s per GPU: the best per-GPU throughput
/// at the smallest GPU count any of them evaluated (`None` when no point has a throughput).
/// The linear ideal is this rate times the GPU count.
pub fn efficiency_reference<'a>(points: impl IntoIterator<Item = &'a GpuPoint>) -> Option<f64> {
    let mut best: Option<(u64, f64)> = None;
    for p in points {
        let valid = p.error.is_none() && p.num_gpus > 0 && p.tokens_per_s.is_finite();
        if !valid || p.tokens_per_s <= 0.0 {
            continue;
        }
        let rate = p.tokens_per_s / p.num_gpus as f64;
        best = match best {
            Some((n, r)) if n < p.num_gpus || (n == p.num_gpus && r >= rate) => Some((n, r)),
            _ => Some((p.num_gpus, rate)),
        };
    }
    best.map(|(_, r)| r)
}

/// Sets the scaling efficiency of every point of the compared sweeps `series` (one or more
/// strategies): `(tokens/s ÷ GPUs) ÷` [`efficiency_reference`] of all of them, so 1 is linear
/// scaling from the best strategy at the smallest count and the strategies' efficiencies are
/// comparable. The one definition of scaling efficiency (the CLI, the chart, its tooltip and
/// summary all read `scaling_efficiency`). Points without a throughput get 0.
pub fn set_scaling_efficiency(series: &mut [&mut [GpuPoint]]) {
    let reference = efficiency_reference(series.iter().flat_map(|s| s.iter())).unwrap_or(0.0);
    for p in series.iter_mut().flat_map(|s| s.iter_mut()) {
        let ok = p.error.is_none() && p.num_gpus > 0 && reference > 0.0;
        p.scaling_efficiency = if ok {
            p.tokens_per_s / p.num_gpus as f64 / reference
        } else {
            0.0
        };
    }
}

/// Estimates `$work` (into the reused `$est`) and writes what a sweep point reports into
/// `$point`: step time, throughput, MFU and fit, plus the peak bytes where the point has them
/// (`peak_bytes`), or why the plan could not be evaluated. A macro because [`GpuPoint`] and
/// [`ValuePoint`] are distinct structs whose result fields share their names: one place decides
/// what a point reports.
macro_rules! record_estimate {
    ($point:ident, $work:expr, $est:ident $(, $peak:ident)?) => {
        match estimate_into($work, &mut $est) {
            Err(e) => $point.error = Some(e.to_string()),
            Ok(()) => {
                $point.step_s = $est.time.step_s;
                $point.tokens_per_s = $est.throughput.tokens_per_s;
                $point.mfu = $est.throughput.mfu;
                $point.fits = $est.memory.fits;
                $($point.$peak = $est.memory.peak_bytes;)?
            }
        }
    };
}

/// Evaluates `s` at each GPU count in `gpus`, keeping its `tp`, `pp` and `cp` and changing `dp`
/// (`dp = N / (tp·pp·cp)`). Strong scaling keeps the global batch; weak scaling keeps the batch
/// per data-parallel replica (`global_batch / dp` of `s`). A GPU count the layout cannot use, or
/// a batch that no longer splits, gives a point with `error` set. Scaling efficiency is
/// [`set_scaling_efficiency`] of this one sweep.
///
/// Never fails: a point that cannot be evaluated carries its reason in `error`.
pub fn sweep_gpus(s: &Scenario, gpus: &[u64], scaling: Scaling) -> Vec<GpuPoint> {
    let p = &s.parallel;
    let model_parallel = p.tp.saturating_mul(p.pp).saturating_mul(p.cp).max(1);
    let per_replica = s.training.global_batch / p.dp.max(1);
    let mut work = s.clone();
    let mut est = Estimate::default();
    let mut out = Vec::with_capacity(gpus.len());
    for &n in gpus {
        let mut point = GpuPoint::empty(n, s.training.global_batch);
        (point.tp, point.pp, point.cp) = (p.tp, p.pp, p.cp);
        if n == 0 || n % model_parallel != 0 {
            point.error = Some(format!(
                "{n} GPUs is not a multiple of tp·pp·cp = {model_parallel}"
            ));
            out.push(point);
            continue;
        }
        let dp = n / model_parallel;
        point.dp = dp;
        if let Scaling::Weak = scaling {
            point.global_batch = per_replica.saturating_mul(dp);
        }
        work.cluster.num_gpus = n;
        work.parallel.dp = dp;
        if p.ep > 1 && dp % p.ep != 0 {
            work.parallel.ep = 1;
        }
        work.training.global_batch = point.global_batch;
        record_estimate!(point, &work, est);
        point.fixed = est.time.fixed;
        out.push(point);
    }
    set_scaling_efficiency(&mut [&mut out]);
    out
}

/// Like [`sweep_gpus`], but with the best layout at every point: the [`search`] over `space`
/// (its `num_gpus` is replaced by each count) picks the layout with the highest throughput that
/// fits. Strong scaling keeps the global batch; weak scaling scales it with the GPU count
/// (`global_batch · N / cluster.num_gpus` of `s`, rounded down). A point where nothing fits (or
/// nothing is valid) carries the reason in `error`. Costs one search per point.
pub fn sweep_gpus_best(
    s: &Scenario,
    gpus: &[u64],
    scaling: Scaling,
    space: &SearchSpace,
) -> Vec<GpuPoint> {
    let base_gpus = s.cluster.num_gpus.max(1);
    let mut work = s.clone();
    let mut est = Estimate::default();
    let mut out = Vec::with_capacity(gpus.len());
    for &n in gpus {
        let mut point = GpuPoint::empty(n, s.training.global_batch);
        if let Scaling::Weak = scaling {
            point.global_batch = ((s.training.global_batch as u128 * n as u128) / base_gpus as u128)
                .min(u64::MAX as u128) as u64;
        }
        if n == 0 || point.global_batch == 0 {
            point.error = Some(format!("{n} GPUs cannot take a share of the batch"));
            out.push(point);
            continue;
        }
        work.training.global_batch = point.global_batch;
        let report = search(
            &work,
            &SearchSpace {
                num_gpus: Some(n),
                top: 1,
                ..space.clone()
            },
        );
        match report.best.first() {
            None => {
                point.error = Some(format!(
                    "no layout of the {} evaluated fits in memory",
                    report.evaluated
                ))
            }
            Some(best) => {
                let l = &best.layout;
                (point.tp, point.pp, point.dp, point.cp) = (l.tp, l.pp, l.dp, l.cp);
                point.step_s = best.step_s;
                point.tokens_per_s = best.tokens_per_s;
                point.mfu = best.mfu;
                point.fits = best.fits;
                // The search keeps no breakdown: the chosen layout's fixed costs, estimated once.
                let mut chosen = work.clone();
                l.apply(&mut chosen);
                chosen.cluster.num_gpus = n;
                if estimate_into(&chosen, &mut est).is_ok() {
                    point.fixed = est.time.fixed;
                }
            }
        }
        out.push(point);
    }
    set_scaling_efficiency(&mut [&mut out]);
    out
}

/// One point of a sweep over a whole-number input (micro-batch size, sequence length).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValuePoint {
    /// The input's value at this point.
    pub value: u64,
    /// Step time, s.
    pub step_s: f64,
    /// Cluster tokens per second.
    pub tokens_per_s: f64,
    /// Model FLOPs utilisation.
    pub mfu: f64,
    /// Peak per-GPU memory over stages, bytes.
    pub peak_bytes: f64,
    /// Whether it fits in GPU memory.
    pub fits: bool,
    /// Why this point could not be evaluated (then the numbers are 0).
    pub error: Option<String>,
}

/// Which input a [`sweep_values`] varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    /// `training.micro_batch` (the global batch stays; fewer, larger micro-batches).
    MicroBatch,
    /// `model.seq_len` (tokens per sequence; the global batch in sequences stays).
    SeqLen,
}

/// Evaluates `s` with `knob` set to each of `values`. Never fails: a value the scenario cannot
/// take (a micro-batch that does not divide the batch per replica…) gives a point with `error`.
pub fn sweep_values(s: &Scenario, knob: Knob, values: &[u64]) -> Vec<ValuePoint> {
    let mut work = s.clone();
    let mut est = Estimate::default();
    values
        .iter()
        .map(|&v| {
            match knob {
                Knob::MicroBatch => work.training.micro_batch = v,
                Knob::SeqLen => work.model.seq_len = v,
            }
            let mut point = ValuePoint {
                value: v,
                step_s: 0.0,
                tokens_per_s: 0.0,
                mfu: 0.0,
                peak_bytes: 0.0,
                fits: false,
                error: None,
            };
            record_estimate!(point, &work, est, peak_bytes);
            point
        })
        .collect()
}

/// GPU counts for a scaling curve: powers of two from one node (or the smallest count the
/// layout can use) up to at least `s`'s GPU count, at most 20 points.
pub fn default_gpu_counts(s: &Scenario) -> Vec<u64> {
    let p = &s.parallel;
    let unit = p.tp.saturating_mul(p.pp).saturating_mul(p.cp).max(1);
    let target = s.cluster.num_gpus.max(unit).saturating_mul(4);
    let mut n = unit;
    let mut out = Vec::new();
    while n <= target && out.len() < 20 {
        out.push(n);
        n = n.saturating_mul(2);
    }
    out
}

/// Named layout families for the scaling chart, each a copy of `s` with its layout changed:
/// the scenario's own layout, DP only (ZeRO-3 to fit), TP within a node + DP, and PP + DP. The
/// ones the model cannot use (TP not dividing the heads, too few layers) are left out.
pub fn strategy_variants(s: &Scenario) -> Vec<(&'static str, Scenario)> {
    let mut out = vec![("current", s.clone())];
    let node = s.cluster.gpus_per_node.max(1);
    let m = &s.model;
    let mk = |tp: u64, pp: u64, zero: u8| {
        let mut v = s.clone();
        v.parallel.tp = tp;
        v.parallel.pp = pp;
        v.parallel.cp = 1;
        v.parallel.vp = 1;
        v.parallel.ep = 1;
        v.parallel.sp = tp > 1;
        v.parallel.zero_stage = zero;
        v.parallel.layers_per_stage = None;
        v.parallel.schedule = None;
        v.parallel.dp = (s.cluster.num_gpus / (tp * pp)).max(1);
        v.cluster.num_gpus = tp * pp * v.parallel.dp;
        v
    };
    out.push(("DP + ZeRO-3", mk(1, 1, 3)));
    let tp = (1..=node)
        .rev()
        .find(|t| node % t == 0 && m.heads % t == 0 && m.kv_heads() % t == 0)
        .unwrap_or(1);
    if tp > 1 {
        out.push(("TP + DP", mk(tp, 1, 1)));
    }
    let pp = [8u64, 4, 2]
        .into_iter()
        .find(|p| m.layers % p == 0)
        .unwrap_or(1);
    if pp > 1 {
        out.push(("PP + DP", mk(1, pp, 1)));
    }
    out
}
