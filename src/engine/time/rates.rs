//! Step 5 of the time model: FLOPs per step and the rates derived from the step time
//! (tokens/s, TFLOP/s per GPU, MFU/HFU, training time and cost).

use super::breakdown::{FlopsEstimate, Throughput};
use super::compute;
use super::flops;
use crate::engine::shape::Shape;
use crate::scenario::{GpuSpec, Precision, Scenario};

/// Fills `flops` for `s` and `throughput` for a step of `step_s` seconds.
pub(crate) fn fill(
    s: &Scenario,
    gpu: &GpuSpec,
    d: &Shape,
    step_s: f64,
    flops: &mut FlopsEstimate,
    throughput: &mut Throughput,
) {
    let global_batch = s.training.global_batch as f64;
    let recompute = s.training.recompute;
    let layers = flops::LayerFlops::of(d);
    flops.model_flops = flops::model_flops(&layers, global_batch);
    flops.model_flops_causal = flops::model_flops_causal(&layers, global_batch);
    flops.hardware_flops = flops.model_flops
        + flops::recompute_flops(
            &layers,
            global_batch,
            recompute,
            s.recompute_modules(),
            s.recompute_early_stop(),
            crate::engine::memory::activations::SavePolicy::of(s),
        );
    let n_gpus = s.cluster.num_gpus as f64;
    let peak = peak_flops(gpu, s.training.precision);
    let step = step_s;
    if step > 0.0 && step.is_finite() {
        throughput.tokens_per_s = global_batch * d.s / step;
        throughput.samples_per_s = global_batch / step;
        throughput.tflops_per_gpu = flops.model_flops / step / n_gpus.max(1.0) / 1e12;
        throughput.mfu = flops.model_flops / (step * n_gpus.max(1.0) * peak);
        throughput.hfu = flops.hardware_flops / (step * n_gpus.max(1.0) * peak);
        throughput.mfu_causal = flops.model_flops_causal / (step * n_gpus.max(1.0) * peak);
        throughput.tflops_per_gpu_causal = flops.model_flops_causal / step / n_gpus.max(1.0) / 1e12;
        throughput.train_time_s = s
            .training
            .train_tokens
            .map(|tokens| tokens / throughput.tokens_per_s);
        throughput.train_gpu_hours = throughput.train_time_s.map(|ts| ts / 3600.0 * n_gpus);
        throughput.train_cost = match (throughput.train_gpu_hours, s.cluster.price_per_gpu_hour) {
            (Some(hours), Some(price)) => Some(hours * price),
            _ => None,
        };
    } else {
        *throughput = Throughput::default();
    }
}

/// Dense peak FLOP/s used for MFU/HFU: the tensor-core peak of the training precision (FP8 runs
/// use the FP8 peak, as NVIDIA's benchmark pages do) — the same peak the compute model derates
/// ([`compute::peak_tflops`]).
pub fn peak_flops(gpu: &GpuSpec, precision: Precision) -> f64 {
    (compute::peak_tflops(gpu, precision) * 1e12).max(1.0)
}
