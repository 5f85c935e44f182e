//! What the time model fills: the step time by component ([`TimeEstimate`]), communication
//! time by kind ([`CommTimes`]), FLOPs per step ([`FlopsEstimate`]) and the rates derived from the
//! step ([`Throughput`]).

use serde::Serialize;

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
    /// Part of `exposed_comm_s`, by kind: overlap contention, the compute lost while hidden
    /// communication holds SMs beside it ([`crate::engine::time::contention`]), s.
    pub overlap_contention_s: CommTimes,
    /// Micro-batches per pipeline per step `m = B/(b·d)`.
    pub micro_batches: u64,
    /// Part of `backward_s`: the weight-gradient (W) GEMMs, which zero-bubble and DualPipe
    /// schedules run apart from the input-gradient (B) work (Qi et al., ICLR 2024, §2).
    pub weight_grad_s: f64,
    /// Part of `compute_s`: the MoE layers' token bookkeeping, the memory-bound work around
    /// their GEMMs (router kernels, permutation, sorting by local expert, combine), forward and
    /// backward ([`crate::engine::time::moe`]), s.
    pub moe_tokens_s: f64,
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
    /// Part of `optimizer_s`: the scalar all-reduce(s) of the gradient norm the update waits for
    /// ([`crate::engine::time::fixed::grad_norm_s`]), s.
    pub grad_norm_s: f64,
    /// The parts of the step above that are paid once per step whatever the work per GPU
    /// ([`FixedCosts`]): what adding data-parallel GPUs does not shrink.
    pub fixed: FixedCosts,
}

/// The costs of one step that do not shrink with the tokens a GPU processes, each a part (or a
/// part of a part) of [`TimeEstimate::step_s`]; [`FixedCosts::total_s`] is their sum. Strong scaling shrinks the
/// per-GPU compute as `1/N`; these stay, so they take over a small model on many GPUs
/// ([fixed.md](crate::docs::formulas::fixed) §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct FixedCosts {
    /// The optimizer's update pass over the local parameters (`optimizer_s − grad_norm_s`), s.
    pub update_s: f64,
    /// The gradient-norm all-reduce ([`TimeEstimate::grad_norm_s`]), s.
    pub grad_norm_s: f64,
    /// The pipeline's warm-up and drain ([`TimeEstimate::bubble_s`]): `(p−1)` micro-batch
    /// slots per step whatever `m`, s.
    pub bubble_s: f64,
    /// The data-parallel reduction left after the last backward (part of
    /// `exposed_comm_s.dp`): its volume per GPU does not fall with more replicas, s.
    pub dp_tail_s: f64,
    /// The tied embedding's gradient all-reduce between the pipeline's ends (part of
    /// `exposed_comm_s.pp`), s.
    pub tied_s: f64,
    /// The eager host's stall in the optimizer phase (part of `host_s`), s.
    pub host_optimizer_s: f64,
}

impl FixedCosts {
    /// Their sum, s (at most [`TimeEstimate::step_s`]).
    pub fn total_s(&self) -> f64 {
        self.update_s
            + self.grad_norm_s
            + self.bubble_s
            + self.dp_tail_s
            + self.tied_s
            + self.host_optimizer_s
    }
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
