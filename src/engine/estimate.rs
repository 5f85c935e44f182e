//! The [`Estimate`] type and the [`estimate`] entry point.

pub use super::time::comm::CommBreakdown;
use crate::scenario::{GpuSpec, Scenario, ScenarioError};
use serde::Serialize;

/// Everything paracalc predicts for one scenario. Every group is a named breakdown whose parts add
/// up to its total (tests check it).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Estimate {
    /// Per-GPU memory for every pipeline stage.
    pub memory: MemoryEstimate,
    /// Step time by component.
    pub time: TimeEstimate,
    /// Tokens/s, samples/s, TFLOP/s per GPU, MFU, HFU.
    pub throughput: Throughput,
    /// FLOPs per step.
    pub flops: FlopsEstimate,
    /// Bytes moved per step per GPU, by kind of communication and link tier.
    pub comm: CommBreakdown,
}

/// Memory of one GPU of one pipeline stage (all its `vp` chunks), in bytes.
/// `total_bytes = weights + gradients + optimizer + activations + other`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StageMemory {
    /// Pipeline rank, from 0.
    pub stage: u64,
    /// Transformer layers on this stage.
    pub layers: u64,
    /// Parameters held by one GPU of this stage (after TP/PP/EP/ZeRO-3 sharding).
    pub params: f64,
    /// Weights (working copies in the training precision, FP8 copies included), bytes.
    pub weights_bytes: f64,
    /// Gradients (incl. fp32 accumulation buffers), bytes.
    pub gradients_bytes: f64,
    /// Optimizer states (fp32 master weights and Adam moments), bytes.
    pub optimizer_bytes: f64,
    /// Activations of all in-flight micro-batches (incl. embedding/logits terms), bytes.
    pub activations_bytes: f64,
    /// Framework overhead: `cuda_context + comm_buffers + allocator_reserve + other_buffers`.
    pub other_bytes: f64,
    /// Part of `other_bytes`: CUDA context.
    pub cuda_context_bytes: f64,
    /// Part of `other_bytes`: NCCL/communication buffers.
    pub comm_buffers_bytes: f64,
    /// Part of `other_bytes`: allocator reserve and fragmentation.
    pub allocator_reserve_bytes: f64,
    /// Part of `other_bytes`: transient buffers (gathered ZeRO-3 parameters, gradient buckets…).
    pub other_buffers_bytes: f64,
    /// Part of `weights_bytes`: the routed experts' weights (0 for a dense model).
    pub expert_weights_bytes: f64,
    /// Part of `gradients_bytes`: the routed experts' gradients.
    pub expert_gradients_bytes: f64,
    /// Part of `optimizer_bytes`: the routed experts' optimizer states.
    pub expert_optimizer_bytes: f64,
    /// Micro-batches whose activations this stage holds at its peak.
    pub in_flight_micro_batches: f64,
    /// Host (CPU) memory this GPU's offloaded optimizer states and activations take, bytes;
    /// not part of `total_bytes` (`training.optimizer_offload`, `training.activation_offload`).
    pub host_bytes: f64,
    /// Sum of the five parts.
    pub total_bytes: f64,
}

impl StageMemory {
    /// What PyTorch's caching allocator reserves (`torch.cuda.max_memory_reserved()`): the total
    /// without the CUDA context and the NCCL buffers, which are allocated outside it.
    pub fn allocator_reserved_bytes(&self) -> f64 {
        self.total_bytes - self.cuda_context_bytes - self.comm_buffers_bytes
    }

    /// `weights + gradients + optimizer`.
    pub fn model_states_bytes(&self) -> f64 {
        self.weights_bytes + self.gradients_bytes + self.optimizer_bytes
    }
}

/// Per-GPU memory for every stage, and whether the plan fits.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemoryEstimate {
    /// One row per pipeline rank, in order, kept as runs of ranks and worked out when read
    /// ([`MemoryEstimate::stages`], [`MemoryEstimate::stage`]; serialised as `stages`, the list
    /// of rows).
    #[serde(rename = "stages")]
    pub rows: super::memory::rows::Rows,
    /// Largest stage total, bytes.
    pub peak_bytes: f64,
    /// Which stage has the peak.
    pub peak_stage: u64,
    /// Memory a framework can use on this GPU, bytes.
    pub capacity_bytes: f64,
    /// `capacity − peak`; negative when the plan does not fit.
    pub headroom_bytes: f64,
    /// Whether every stage fits (`peak ≤ capacity`).
    pub fits: bool,
    /// The three-state verdict with the engine's band ([`super::memory::verdict`]) and what
    /// would flip it; [`MemoryEstimate::fit_with`] judges with another band.
    pub fit: super::memory::verdict::Fit,
    /// The layer shape and per-GPU parameter counts the memory model worked out, for the time
    /// model of the same estimate (not serialised).
    #[serde(skip)]
    pub model: Option<(super::shape::Shape, super::memory::params::ShardedParams)>,
    /// The runs of ranks holding the same ([`super::runs`]), in rank order, as the memory model
    /// worked them out, for the time model of the same estimate (not serialised).
    #[serde(skip)]
    pub runs: Vec<super::runs::Run>,
}

impl MemoryEstimate {
    /// Every pipeline rank's row, in order.
    pub fn stages(&self) -> Vec<StageMemory> {
        self.rows.iter().collect()
    }

    /// Pipeline rank `r`'s row.
    pub fn stage(&self, r: u64) -> Option<StageMemory> {
        self.rows.get(r)
    }

    /// The verdict judged with the band `frac` (a fraction of the peak, e.g. the evidence's
    /// memory band for the plan) instead of the engine's default.
    pub fn fit_with(&self, frac: f64) -> super::memory::verdict::Fit {
        let row = self.stage(self.peak_stage).unwrap_or_default();
        super::memory::verdict::Fit::of(&row, self.capacity_bytes, frac)
    }
}

/// Communication time by kind, seconds per step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CommTimes {
    /// Tensor (and sequence) parallel collectives.
    pub tp: f64,
    /// Context-parallel K/V exchange.
    pub cp: f64,
    /// Expert-parallel all-to-all.
    pub ep: f64,
    /// Pipeline point-to-point, and the step-end all-reduce of a tied embedding's gradient
    /// between the first and the last stage.
    pub pp: f64,
    /// Data-parallel / ZeRO gradient reduction and parameter gathers.
    pub dp: f64,
}

impl CommTimes {
    /// Sum over kinds.
    pub fn total(&self) -> f64 {
        self.tp + self.cp + self.ep + self.pp + self.dp
    }
}

/// One optimizer step, seconds.
/// `step_s = compute_s + recompute_s + bubble_s + optimizer_s + offload_s + host_s + exposed_comm_s.total()`,
/// with `compute_s = forward_s + backward_s`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TimeEstimate {
    /// Whole step.
    pub step_s: f64,
    /// Forward + backward compute of the slowest stage over all micro-batches.
    pub compute_s: f64,
    /// Forward part of `compute_s`.
    pub forward_s: f64,
    /// Backward part of `compute_s`.
    pub backward_s: f64,
    /// Recomputed forward work.
    pub recompute_s: f64,
    /// Pipeline bubble (idle time of the slowest stage).
    pub bubble_s: f64,
    /// Optimizer step (and its exposed parameter all-gather, if any, is in `exposed_comm_s.dp`).
    pub optimizer_s: f64,
    /// Communication on the critical path.
    pub exposed_comm_s: CommTimes,
    /// Communication hidden behind compute (for display; not part of `step_s`).
    pub hidden_comm_s: CommTimes,
    /// Micro-batches per pipeline per step `m = B/(b·d)`.
    pub micro_batches: u64,
    /// Part of `backward_s`: the weight-gradient (W) GEMMs, which zero-bubble and DualPipe
    /// schedules run apart from the input-gradient (B) work (Qi et al., ICLR 2024, §2).
    pub weight_grad_s: f64,
    /// Host-link (PCIe / NVLink-C2C) transfers of offloaded optimizer states and activations
    /// that compute does not hide, s.
    pub offload_s: f64,
    /// Time the GPU waits for the host to issue eager PyTorch's operators: per micro-batch and
    /// in the optimizer phase, the host time beyond the GPU time of the same work
    /// ([`crate::engine::time::host`]), s.
    pub host_s: f64,
    /// Gradient bucket of the data-parallel reduction, bytes: `parallel.bucket_mb`, else the
    /// framework default for the DP group `dp·cp` and the reduced gradient type (the bucket-size
    /// chart marks it).
    pub dp_bucket_bytes: f64,
}

impl TimeEstimate {
    /// The bubble fraction: the share of the step the slowest stage idles in the pipeline
    /// bubble, `bubble_s / step_s` (0 for an empty step). The one definition the app shows; with
    /// uniform stages and no other time it is `(p−1)/(m+p−1)`, `((p−1)/v)/(m+(p−1)/v)`
    /// interleaved (Narayanan et al. 2021 §2.2).
    pub fn bubble_fraction(&self) -> f64 {
        if self.step_s > 0.0 && self.step_s.is_finite() {
            self.bubble_s / self.step_s
        } else {
            0.0
        }
    }
}

/// FLOPs per optimizer step, whole cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlopsEstimate {
    /// Model FLOPs (no recomputation, full `s²` attention as in Korthikanti et al. 2022 eq. 7,
    /// PaLM and NVIDIA's benchmark pages), the MFU numerator.
    pub model_flops: f64,
    /// Model FLOPs with the causal attention term halved (Megatron-LM since 2025-03); shown for
    /// comparison, not used for MFU.
    pub model_flops_causal: f64,
    /// Hardware FLOPs (with recomputation), the HFU numerator.
    pub hardware_flops: f64,
}

/// Rates derived from the step time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Throughput {
    /// Tokens per second, whole cluster.
    pub tokens_per_s: f64,
    /// Sequences per second, whole cluster.
    pub samples_per_s: f64,
    /// Model TFLOP/s achieved per GPU.
    pub tflops_per_gpu: f64,
    /// Model FLOPs utilisation (0..1).
    pub mfu: f64,
    /// Hardware FLOPs utilisation (0..1).
    pub hfu: f64,
    /// MFU with the causal convention: [`FlopsEstimate::model_flops_causal`] over the same
    /// time and peak (0..1). `mfu` (full `s²` attention) is the default; the two differ most for
    /// long sequences (Llama 3 70B at 128K tokens: about 0.64×).
    pub mfu_causal: f64,
    /// Model TFLOP/s per GPU with the causal convention.
    pub tflops_per_gpu_causal: f64,
    /// Time to train `training.train_tokens` tokens, seconds (when given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_time_s: Option<f64>,
    /// GPU-hours to train `training.train_tokens` tokens (when given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_gpu_hours: Option<f64>,
    /// Cost to train: GPU-hours × `cluster.price_per_gpu_hour` (when both are given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_cost: Option<f64>,
}

/// Estimates memory, time and throughput for `scenario`.
///
/// # Errors
/// Every invalid value, each naming its field. Not fitting in memory is not an error.
pub fn estimate(scenario: &Scenario) -> Result<Estimate, ScenarioError> {
    let mut out = Estimate::default();
    estimate_into(scenario, &mut out)?;
    Ok(out)
}

/// Like [`estimate`], but writes into `out`, reusing its buffers (the search calls this in a loop
/// without allocating).
pub fn estimate_into(scenario: &Scenario, out: &mut Estimate) -> Result<(), ScenarioError> {
    let gpu = memory_into(scenario, out)?;
    time_into(scenario, &gpu, out);
    Ok(())
}

/// The first half of [`estimate_into`]: validates `scenario` and fills `out.memory` only;
/// returns the GPU for [`time_into`]. The search stops here for a layout that does not fit and
/// whose time it does not need.
#[inline]
pub(crate) fn memory_into(
    scenario: &Scenario,
    out: &mut Estimate,
) -> Result<GpuSpec, ScenarioError> {
    let gpu = scenario.validated_gpu()?;
    super::memory::fill(scenario, &gpu, &mut out.memory);
    Ok(gpu)
}

/// The second half of [`estimate_into`]: time, FLOPs, throughput and communication, after
/// [`memory_into`] filled `out.memory` for the same scenario.
#[inline]
pub(crate) fn time_into(scenario: &Scenario, gpu: &GpuSpec, out: &mut Estimate) {
    super::time::fill(
        scenario,
        &super::calibration::links(gpu, &scenario.calibration),
        &out.memory,
        &mut out.time,
        &mut out.flops,
        &mut out.throughput,
        &mut out.comm,
    );
}
