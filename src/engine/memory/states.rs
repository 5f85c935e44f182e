//! Model states per GPU: weights, gradients and optimizer states, by precision and ZeRO stage.
//!
//! Accounting ([states.md](crate::docs::formulas::states) §3, §9, §10). paracalc uses **one convention for both 16-bit
//! formats: fp32 gradient accumulation** (issue #3's specification), as Megatron-LM does for bf16
//! (it forces `accumulate_allreduce_grads_in_fp32` when `main_grads_dtype = fp32`,
//! `arguments.py`) and for fp16 with `--accumulate-allreduce-grads-in-fp32`, and as llm-analysis
//! and DeepSpeed's estimator (since 2024-06) count: 2 (16-bit weights) + 4 (fp32 main grads) + 12
//! (fp32 master 4 + Adam moments 4 + 4) = **18 B/param**, `6 + 12/d` with the distributed
//! optimizer (Megatron `dist_optimizer.md` table, "bf16 param, fp32 grads").
//!
//! Where frameworks differ (the convention is a choice, so it is stated here):
//! - fp16 **without** fp32 accumulation (Megatron's fp16 default; DeepSpeed fp16 ZeRO-1/2, e.g.
//!   BLOOM's pre-bf16 runs) keeps fp16 gradients and an fp32 gradient copy sharded with the
//!   optimizer: 20 B/param, `4 + 16/d` (`dist_optimizer.md` "fp16 param, fp16 grads" row;
//!   DeepSpeed `stage_1_and_2.py`, [states.md](crate::docs::formulas::states) §2). DeepSpeed's
//!   ZeRO-1/2 optimizer is held that way ([`deepspeed_zero_16bit_grads`]: 2 B of gradients; the
//!   step's fp32 partition copy comes after the backward), together with the step's fp64
//!   norm copy that outgrows the activation phase's cached blocks
//!   ([`super::overhead::deepspeed_norm_copy_bytes`]; states.md §10: the 16-bit gradients
//!   alone had left every BLOOM 02-25 row under the measurement).
//! - The ZeRO paper's 16 B/param (16-bit gradients, no copy) is [`zero_paper_bytes`].
//!
//! | precision | weights | gradients | optimizer | source |
//! |---|---|---|---|---|
//! | fp32 | 4 | 4 | 8 (moments) | Megatron `dist_optimizer.md` table: 16 / `8 + 8/d` |
//! | fp16, bf16 | 2 | 4 | 12 | `dist_optimizer.md`: 18 / `6 + 12/d` (16-bit + fp32 grads) |
//! | fp16, bf16 with `training.grad_reduce_in_fp32 = false` | 2 | 2 | 12 | 16 / `4 + 12/d` ([`scenario_bytes_per_param`]) |
//! | fp8 | 2 + 2 (FP8 row- and column-wise copies of the GEMM weights) + amax history (delayed scaling) | 4 | 12 | Transformer Engine |
//!
//! FP8 does **not** halve model-state memory: Transformer Engine keeps the bf16 weights (the
//! optimizer updates them), and caches an FP8 copy of every GEMM weight plus its transpose for
//! the backward GEMMs (Hopper FP8 GEMMs need the "TN" layout) across the micro-batches of a step,
//! plus a delayed-scaling amax history (1024 fp32 entries per FP8 tensor: input, weight and
//! output-gradient of each GEMM; TE `recipe.DelayedScaling(amax_history_len=1024)`).
//!
//! ZeRO (Rajbhandari et al. SC20 §5) shards over the `dp·cp` ranks of the gradient reduction
//! (Megatron's data-parallel-with-context-parallel group; FSDP's `dp_shard × cp` mesh); experts
//! over the expert-data-parallel ranks `dp·cp/ep`:
//! - stage 1 (= Megatron distributed optimizer): optimizer states `/N` → `6 + 12/N`;
//! - stage 2: + gradients `/N` → `2 + 16/N`;
//! - stage 3: + weights `/N` → `18/N`, plus the gathered working copy of the layers in use
//!   (an overhead term, see [`super::overhead`]). The FP8 weight copies then exist only for the
//!   gathered layers.

use super::params::GpuParams;
use crate::scenario::{Fp8Recipe, MasterWeights, Precision, Scenario};

/// Bytes per parameter before ZeRO sharding: `(weights, gradients, optimizer)` (module docs'
/// table). The gradient bytes are also what the data-parallel reduction moves
/// ([`crate::engine::time`]).
/// FP8's extra weight copies are separate ([`FP8_EXTRA_BYTES_PER_MATRIX_PARAM`]).
pub fn bytes_per_param(precision: Precision) -> (f64, f64, f64) {
    match precision {
        Precision::Fp32 => (4.0, 4.0, 8.0),
        Precision::Fp16 | Precision::Bf16 | Precision::Fp8 | Precision::Nvfp4 => (2.0, 4.0, 12.0),
    }
}

/// [`bytes_per_param`] for a scenario: the same, except that
/// - 16-bit training with `training.grad_reduce_in_fp32 = false` keeps its gradients in the
///   16-bit parameter dtype (2 B instead of the fp32 main grads' 4 B). That is Megatron-Core's
///   gradient buffer with `grad_reduce_in_fp32 = False` (`param_and_grad_buffer.py`:
///   `grad_dtype = param.dtype`); the distributed optimizer then upcasts only its own shard for
///   the step (`distrib_optimizer.py`: `shard_main_param.grad = shard_model_grad.float()`, `4/d`
///   B per parameter after the backward pass, when activations are freed, so not at the peak).
///   fp32 training is unaffected. [`crate::scenario::Training::grad_reduce_in_fp32`] cites the
///   recipes.
/// - the optimizer holds [`optimizer_bytes_per_param`] (bf16 moments, remainder master weights).
pub fn scenario_bytes_per_param(s: &Scenario) -> (f64, f64, f64) {
    scenario_bytes_with(s, Master::of(s))
}

/// [`scenario_bytes_per_param`] with the master copy `master` resolved.
fn scenario_bytes_with(s: &Scenario, master: Master) -> (f64, f64, f64) {
    let (w, g, _) = bytes_per_param(s.training.precision);
    let o = 2.0 * s.training.optimizer_states().moment_bytes() + master.held_bytes();
    if s.training.precision != Precision::Fp32 && !s.training.grad_reduce_in_fp32() {
        (w, 2.0, o)
    } else {
        (w, g, o)
    }
}

/// [`scenario_bytes_per_param`] by name: what the resolved plan holds
/// ([`crate::engine::plan::Plan::param_bytes`]) and the model states, the buffers, the bucket
/// and the time model read.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ParamBytes {
    /// The working weights (16-bit, or fp32 for fp32 training).
    pub weights: f64,
    /// The main gradients (what the data-parallel reduction of Megatron DDP moves).
    pub main_grads: f64,
    /// The gradients the model states hold between steps: `main_grads`, except under PyTorch
    /// FSDP with no master copy, which keeps each gradient in its 16-bit parameter's dtype
    /// ([`grad_in_param_dtype`]).
    pub held_grads: f64,
    /// The optimizer states (master copy and moments).
    pub optimizer: f64,
    /// What the optimizer step moves through HBM per local parameter
    /// ([`update_bytes_per_param`], read by the time model's optimizer step).
    pub update: f64,
    /// The ZeRO shard degree of the dense parameters' states ([`dense_shard_degree`]).
    pub dense_shard: f64,
    /// The ZeRO shard degree of the routed experts' states ([`expert_shard_degree`]).
    pub expert_shard: f64,
}

impl ParamBytes {
    /// The bytes per parameter of `s` ([`scenario_bytes_per_param`]).
    pub fn of(s: &Scenario) -> ParamBytes {
        // The master copy read once for the states and the update.
        let master = Master::of(s);
        let (weights, main_grads, optimizer) = scenario_bytes_with(s, master);
        ParamBytes {
            weights,
            main_grads,
            held_grads: if grad_in_param_dtype(s) || deepspeed_zero_16bit_grads(s) {
                weights
            } else {
                main_grads
            },
            optimizer,
            update: update_bytes_with(s, master),
            // Resolved once: every run's model states divide by them.
            dense_shard: dense_shard_degree(s),
            expert_shard: expert_shard_degree(s),
        }
    }
}

/// How the optimizer keeps the master weights ([`master_bytes_per_param`],
/// [`update_bytes_per_param`]): the scenario's choices resolved once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Master {
    /// fp32 training: the fp32 weights are the master, updated in place.
    Fp32Training,
    /// No copy: the 16-bit parameters are updated in place ([`no_master_copy`]).
    InPlace,
    /// The low 16 bits beside the bf16 parameters ([`master_as_remainder`]).
    Remainder,
    /// An fp32 copy of the 16-bit parameters.
    Fp32,
}

impl Master {
    /// The master copy of `s`.
    #[inline]
    fn of(s: &Scenario) -> Master {
        let t = &s.training;
        if t.precision == Precision::Fp32 {
            return Master::Fp32Training;
        }
        match t.master_weights() {
            MasterWeights::None => Master::InPlace,
            MasterWeights::Remainder if remainder_precision(s) => Master::Remainder,
            _ => Master::Fp32,
        }
    }

    /// Bytes per parameter the optimizer holds for it ([`master_bytes_per_param`]).
    #[inline]
    fn held_bytes(self) -> f64 {
        match self {
            Master::Fp32Training | Master::InPlace => 0.0,
            Master::Remainder => 2.0,
            Master::Fp32 => 4.0,
        }
    }
}

/// Adam step bytes per local parameter: read fp32 grad (4), read+write fp32 master (8), both
/// moments (16), write the 16-bit copy (2), grad-norm read (4), zero the grad (4) ≈ 38
/// (memory-bound multi-tensor apply; llm-analysis prices the update at model-state bytes / HBM).
pub const OPTIMIZER_BYTES_PER_PARAM: f64 = 38.0;

/// Bytes the optimizer step reads and writes per local parameter (the time model's optimizer
/// step, [`crate::engine::time::optimizer`]): [`OPTIMIZER_BYTES_PER_PARAM`] for the scenario's
/// optimizer states: each moment is read and written at its
/// [`crate::scenario::OptimizerStates::moment_bytes`] (bf16 moments: 16 → 8, so 30), and a master
/// weight kept as a 16-bit remainder ([`master_as_remainder`]) is read and written at 2 B plus a
/// read of the bf16 parameter it completes (8 → 6; TE `FusedAdam` rebuilds the fp32 value from
/// both halves and writes both back, the 16-bit write already counted): 28. With no master copy
/// ([`no_master_copy`]) the update reads the 16-bit parameter itself and writes it back in place
/// (8 → 2, the write already counted): 32 with fp32 moments, 24 with bf16.
pub fn update_bytes_per_param(s: &Scenario) -> f64 {
    update_bytes_with(s, Master::of(s))
}

/// [`update_bytes_per_param`] with the master copy `master` resolved.
fn update_bytes_with(s: &Scenario, master: Master) -> f64 {
    let moments = 2.0 * 2.0 * s.training.optimizer_states().moment_bytes();
    let master = match master {
        Master::InPlace => 2.0,
        Master::Remainder => 2.0 * 2.0 + 2.0,
        Master::Fp32Training | Master::Fp32 => 8.0,
    };
    OPTIMIZER_BYTES_PER_PARAM - 16.0 - 8.0 + moments + master
}

/// Optimizer-state bytes per parameter before ZeRO sharding: Adam's two moments at
/// [`crate::scenario::OptimizerStates::moment_bytes`] each, plus the master weights of 16-bit
/// training ([`master_bytes_per_param`]; fp32 training updates its fp32 weights in place).
///
/// | precision | moments fp32 | moments bf16 |
/// |---|---|---|
/// | fp32 | 0 + 8 = 8 | 0 + 4 = 4 |
/// | 16-bit (fp32 master) | 4 + 8 = 12 | 4 + 4 = 8 (DeepSeek-V3 §3.3.3) |
/// | bf16 under Megatron-LM (master as 16 remainder bits) | — | 2 + 4 = 6 |
/// | 16-bit, no master (`training.master_weights` none) | 0 + 8 = 8 | 0 + 4 = 4 (NeMo 1 `dtype: bf16`) |
pub fn optimizer_bytes_per_param(s: &Scenario) -> f64 {
    scenario_bytes_per_param(s).2
}

/// Bytes per parameter of the optimizer's master weights: none for fp32 training, else fp32
/// (4 B), except where Megatron-LM's precision-aware optimizer (which bf16 moments switch on)
/// keeps only the low 16 bits of each fp32 master weight, the high 16 being the bf16 parameter
/// itself: 2 B ([`master_as_remainder`]), and where the optimizer updates the 16-bit
/// parameters in place with no copy at all (`training.master_weights` none,
/// [`crate::scenario::MasterWeights::None`]): 0 B.
pub fn master_bytes_per_param(s: &Scenario) -> f64 {
    Master::of(s).held_bytes()
}

/// Whether the fp32 master weights are stored as 16-bit remainders next to bf16 parameters.
///
/// Megatron-Core: `OptimizerConfig.store_param_remainders` defaults to true (with Transformer
/// Engine ≥ 2.1, `optimizer_config.py` @d98e8a6); the precision-aware optimizer then hands the
/// master weights to TE's `FusedAdam` with `store_param_remainders` and `master_weights`
/// (`optimizer/__init__.py`) when `use_precision_aware_optimizer_no_fp8_or_ds_fp8` holds, i.e.
/// fp32 main params and an FP8 recipe that is none or delayed scaling; TE stores an int16
/// remainder only for bf16 parameters (`fused_adam.py` @d0067d0: "Works only when param type is
/// BF16 and master weight type is FP32"; `distrib_optimizer.py` allocates
/// `master_param` as int16 when `store_param_remainders and bf16`). Other FP8 recipes keep
/// Megatron's own fp32 master shard; torchtitan's bf16 states leave the fp32 parameters alone.
///
/// Whether the optimizer runs that way at all is [`crate::scenario::Training::master_weights`]
/// (the scenario's `training.master_weights`, else remainders with bf16 moments under
/// Megatron-LM).
pub fn master_as_remainder(s: &Scenario) -> bool {
    s.training.master_weights() == MasterWeights::Remainder && remainder_precision(s)
}

/// Whether the precision lets [`master_as_remainder`] hold: bf16 parameters, or FP8 with
/// delayed scaling (no FP8 recipe that keeps Megatron's own fp32 master shard).
fn remainder_precision(s: &Scenario) -> bool {
    match s.training.precision {
        Precision::Bf16 => true,
        Precision::Fp8 => s.training.fp8_recipe() == Some(Fp8Recipe::Delayed),
        Precision::Fp32 | Precision::Fp16 | Precision::Nvfp4 => false,
    }
}

/// Whether the optimizer keeps no master copy of the 16-bit parameters and updates them in
/// place (`training.master_weights` none; NeMo 1 `distributed_fused_adam` with the optimizer
/// `dtype` equal to the model's, `megatron_base_model.py` l. 797-801 @579983f: `store_params =
/// False` without remainders). fp32 training has no separate master either way.
pub fn no_master_copy(s: &Scenario) -> bool {
    s.training.precision != Precision::Fp32 && s.training.master_weights() == MasterWeights::None
}

/// Whether the gradients are held in the 16-bit parameters' own dtype although the reduction
/// runs in fp32: PyTorch FSDP (FSDP1 or FSDP2, `parallel.fsdp_style` per block) sharding the
/// gradients (ZeRO ≥ 2) of 16-bit parameters kept with no master copy ([`no_master_copy`]).
/// FSDP2 reduce-scatters in `MixedPrecisionPolicy.reduce_dtype` and casts the result back to
/// the sharded parameter's dtype before it becomes or joins `.grad`
/// (`torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py` `foreach_reduce`:
/// `reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)`), as FSDP1 does
/// (`_runtime_utils.py` `_cast_grad_to_param_dtype`); a parameter FSDP leaves out (an expert
/// in NeMo Automodel's `ignored_params`) keeps autograd's `.grad` in its own dtype. With fp32
/// shards (torchtitan, llm-foundry) the held gradient is fp32 either way. [states.md](crate::docs::formulas::states) §11.
pub fn grad_in_param_dtype(s: &Scenario) -> bool {
    use crate::scenario::FsdpStyle;
    s.parallel.zero_stage >= 2
        && matches!(
            s.fsdp_style(),
            FsdpStyle::PerBlock | FsdpStyle::PerBlockCopy
        )
        && no_master_copy(s)
}

/// Whether DeepSpeed's ZeRO-1/2 optimizer (`DeepSpeedZeroOptimizer`, `stage_1_and_2.py`) holds
/// the gradients as autograd's 16-bit `.grad` of each parameter: 16-bit training under a stack
/// that reduces 16-bit gradients (`Traits::reduces_16bit_grads`, DeepSpeed) at ZeRO stage 1 or 2,
/// unless `BF16_Optimizer` runs the step ([`deepspeed_bf16_lp_grads`]) or the scenario states
/// `training.grad_reduce_in_fp32: true`. By microsoft/DeepSpeed @2151c787a (the BLOOM prequel
/// runs of 2022-02-25): stage 1 runs with `contiguous_gradients` and `overlap_comm` off
/// (`engine.py` `_configure_zero_optimizer`), so no backward hook moves a gradient anywhere;
/// the 16-bit `.grad`s accumulate over the micro-batches and are reduced in place at the
/// boundary (`reduce_gradients` → `buffered_reduce_fallback`, `self.dtype` = the parameters'),
/// and only the step makes an fp32 copy of this rank's partition (`step`: `flatten(…).to(fp32)`,
/// after the backward, when the activations are freed). 2 B per parameter, not the 4 B of the
/// fp32-accumulation convention; the data-parallel reduction already moves the 16-bit
/// gradients ([`crate::engine::bucket::GradBucket::with`]). [states.md](crate::docs::formulas::states) §10.
pub fn deepspeed_zero_16bit_grads(s: &Scenario) -> bool {
    s.training.framework().traits().reduces_16bit_grads
        && matches!(s.training.precision, Precision::Fp16 | Precision::Bf16)
        && matches!(s.parallel.zero_stage, 1 | 2)
        && !deepspeed_bf16_lp_grads(s)
        && s.training.grad_reduce_in_fp32 != Some(true)
}

/// FP8 (Transformer Engine): an FP8 copy of each GEMM weight and of its transpose, 1 B each,
/// cached across the micro-batches of a step.
pub const FP8_EXTRA_BYTES_PER_MATRIX_PARAM: f64 = 2.0;

/// NVFP4 (Transformer Engine `NVFP4BlockScaling`): a row-wise and a column-wise NVFP4 copy of
/// each GEMM weight (the forward and the data-gradient GEMM read it along different axes), each
/// 4-bit E2M1 values with one E4M3 scale byte per 16-element block: 2 × (0.5 + 1/16) B
/// (NVIDIA, "Pretraining Large Language Models with NVFP4", arXiv 2509.25149 §2; TE
/// `NVFP4Quantizer` rowwise/columnwise usages).
pub const NVFP4_EXTRA_BYTES_PER_MATRIX_PARAM: f64 = 2.0 * (0.5 + 1.0 / 16.0);

/// Bytes per GEMM-weight parameter of the quantized weight copies that `precision` caches:
/// [`FP8_EXTRA_BYTES_PER_MATRIX_PARAM`], [`NVFP4_EXTRA_BYTES_PER_MATRIX_PARAM`], else none.
pub fn quantized_copy_bytes(precision: Precision) -> f64 {
    match precision {
        Precision::Fp8 => FP8_EXTRA_BYTES_PER_MATRIX_PARAM,
        Precision::Nvfp4 => NVFP4_EXTRA_BYTES_PER_MATRIX_PARAM,
        _ => 0.0,
    }
}

/// FP8 delayed-scaling amax history per GEMM: 1024 entries × 3 tensors (input, weight,
/// output gradient) × 4 B (TE `DelayedScaling` default `amax_history_len = 1024`).
pub const FP8_AMAX_HISTORY_BYTES_PER_GEMM: f64 = 1024.0 * 3.0 * 4.0;

/// GEMMs per layer that FP8 tracks: QKV, attention output, and the MLP's (2 GELU, 3 SwiGLU; ×
/// experts on this GPU for MoE are ignored — their history is equally small).
fn gemms_per_layer(s: &Scenario) -> f64 {
    2.0 + s.model.ffn_act.num_matrices() as f64
}

/// Model states of one GPU, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ModelStates {
    /// Working weights (16-bit or fp32; FP8 copies and amax history included).
    pub weights: f64,
    /// Gradients (fp32 accumulation buffer).
    pub gradients: f64,
    /// Master weights and Adam moments ([`optimizer_bytes_per_param`]).
    pub optimizer: f64,
}

impl ModelStates {
    /// `weights + gradients + optimizer`.
    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.optimizer
    }
}

/// ZeRO shard degree for dense parameters: `dp·cp` ([states.md](crate::docs::formulas::states) §3: Megatron shards the
/// distributed optimizer over the data-parallel group including context parallelism).
pub fn dense_shard_degree(s: &Scenario) -> f64 {
    (s.parallel.dp.max(1) as f64) * (s.parallel.cp.max(1) as f64)
}

/// ZeRO shard degree for expert parameters: the expert-data-parallel size
/// `tp·cp·dp/(ep·etp)` (Megatron-Core MoE parallel folding; Megatron-LM
/// `theoretical_memory_usage.py` at `d98e8a6`: `expert_data_parallel_size = world /
/// (etp·ep·pp)`), at least 1. With `etp = tp` (the default) this is `dp·cp/ep`.
pub fn expert_shard_degree(s: &Scenario) -> f64 {
    let p = &s.parallel;
    let folded = p.tp.max(1) as f64 * dense_shard_degree(s);
    (folded / (p.ep.max(1) as f64 * p.etp().max(1) as f64)).max(1.0)
}

/// Model states of one GPU holding `p` parameters (dense + experts) on a stage with `layers`
/// layers, for the scenario's precision and ZeRO stage.
#[inline]
pub fn model_states(s: &Scenario, bytes: &ParamBytes, p: &GpuParams, layers: u64) -> ModelStates {
    let (w, g, o) = (bytes.weights, bytes.held_grads, bytes.optimizer);
    let zero = s.parallel.zero_stage;
    let (nd, ne) = (bytes.dense_shard, bytes.expert_shard);
    // Parameters per GPU of a state ZeRO shards and of one it does not, each worked out once.
    let (sharded, whole) = (p.dense / nd + p.experts / ne, p.total());
    let shard = |bytes: f64, from_stage: u8| -> f64 {
        bytes * if zero >= from_stage { sharded } else { whole }
    };
    let mut weights = shard(w, 3);
    let mut optimizer = shard(o, 1);
    if fp32_shard_is_master(s) {
        // FSDP/JAX: the shard is the fp32 parameter, which the optimizer updates (no separate
        // 16-bit shard, no separate master): the master's bytes are the weights.
        let m = master_bytes_per_param(s);
        weights = shard(m, 3);
        optimizer = shard(o - m, 1);
    }
    if zero < 3 {
        if s.training.fp8_params() {
            // FP8 primary weights ([`crate::scenario::Training::fp8_params`]): the GEMM
            // weights' FP8 data and transpose are the weights; no 16-bit copy of them is kept.
            weights -= w * p.matrices;
        }
        weights += quantized_copy_bytes(s.training.precision) * p.matrices;
        // Transformer Engine's FP8 amax history, kept by delayed scaling only: the current
        // scaling, block and MX recipes (and NVFP4) scale from the tensor at hand and keep none
        // (NVIDIA/TransformerEngine `docs/api/common.rst`: `amax_history_len` is a parameter of
        // `DelayedScaling` only, not of `Float8CurrentScaling`, `Float8BlockScaling` or
        // `MXFP8BlockScaling`).
        if s.training.fp8_recipe() == Some(Fp8Recipe::Delayed) {
            weights += FP8_AMAX_HISTORY_BYTES_PER_GEMM * gemms_per_layer(s) * layers as f64;
        }
    }
    let mut gradients = shard(g, 2);
    if deepspeed_bf16_lp_grads(s) {
        gradients += BF16_LP_GRAD_BYTES * p.total();
    }
    ModelStates {
        weights,
        gradients,
        optimizer,
    }
}

/// Bytes per parameter of the 16-bit `.grad` tensors DeepSpeed's `BF16_Optimizer` leaves on the
/// parameters beside its fp32 gradient buffer: 2.
pub const BF16_LP_GRAD_BYTES: f64 = 2.0;

/// Whether DeepSpeed's `BF16_Optimizer` runs (bf16 under DeepSpeed without ZeRO-2/3, the
/// BLOOM-era Megatron-DeepSpeed setup): besides the bf16 parameters and its unsharded fp32
/// gradient buffer (`fp32_groups_gradients_flat`, `torch.zeros_like(bf16_groups_flat, fp32)`)
/// it lets autograd write each parameter's bf16 `.grad`, adds it into the fp32 buffer after the
/// backward (`update_hp_grads`, `clear_lp_grads=False` by default) and frees it only at the
/// start of the next micro-batch's backward (`backward` calls `clear_lp_grads()` first), so a
/// full set of bf16 gradients is alive through every backward: 2 B per parameter more than the
/// 18 B convention (`deepspeed/runtime/bf16_optimizer.py` @56c522386, "bf16+pipeline
/// parallelism", the upstreamed BigScience optimizer; [states.md](crate::docs::formulas::states)
/// §8). The data-parallel reduction still moves the fp32 buffer.
pub fn deepspeed_bf16_lp_grads(s: &Scenario) -> bool {
    s.training.framework().traits().bf16_optimizer
        && s.training.precision == Precision::Bf16
        && s.parallel.zero_stage <= 1
}

/// Bytes of the fp32 copy DeepSpeed's `BF16_Optimizer` makes of one parameter's bf16 gradient
/// after each micro-batch's backward, for the largest parameter tensor on the GPU: 0 when
/// [`deepspeed_bf16_lp_grads`] is off. `update_hp_grads` adds the gradients into the fp32
/// buffer one parameter at a time through `lp.grad.data.to(hp_grad.dtype)`, an fp32 copy of
/// the whole tensor (`deepspeed/runtime/bf16_optimizer.py` @56c522386 l. 393, the same line in
/// the BigScience branch of 2022-02-28, @15293139f), while every bf16 and fp32 gradient is
/// alive. The largest tensor is the word-embedding shard `V·h/t` on a rank that holds it (the
/// input embedding, or the tied copy on the last stage), else the larger of a layer's QKV and
/// first MLP weight, `h·(q + 2kv)/t` and `h·(c_ffn − 1)·f/t` (Megatron's fused column-parallel
/// weights: `f` for GELU, gate and up `2f` for SwiGLU). [states.md](crate::docs::formulas::states) §8.
pub fn bf16_hp_upcast_bytes(s: &Scenario, d: &crate::engine::shape::Shape, embedding: f64) -> f64 {
    if !deepspeed_bf16_lp_grads(s) {
        return 0.0;
    }
    let t = s.parallel.tp.max(1) as f64;
    let layer = d.h * (d.q + 2.0 * d.kv).max((d.c_ffn - 1.0) * d.f_dense) / t;
    crate::engine::per_gpu::element_bytes_of(Precision::Fp32) * layer.max(embedding)
}

/// Whether ZeRO-3 keeps the fp32 parameters themselves as each rank's shard and casts to 16
/// bits only when it gathers them, so the shard holds no separate 16-bit copy and the
/// optimizer no separate master: PyTorch FSDP (`pytorch`, `torchtitan`) and JAX (`jax`) with
/// 16-bit compute and a master copy. Per parameter and ÷ the shard degree: fp32 parameter 4 +
/// fp32 gradient 4 + moments, 16 B with fp32 Adam, where the 16-bit shard plus the master of
/// [`model_states`]' other stacks count 18.
/// - FSDP1 (llm-foundry, Composer): `FlatParamHandle` keeps the sharded flat parameter in its
///   original dtype and all-gathers a `param_dtype` copy for compute
///   (`torch/distributed/fsdp/_flat_param.py`, `_use_low_precision_shard`, "the local shard is
///   the full-precision parameter"; the reduced gradient is cast back to the parameter dtype,
///   `_runtime_utils.py` `_cast_grad_to_param_dtype`).
/// - FSDP2 (torchtitan): `FSDPParam.sharded_param` is the original fp32 DTensor and
///   `MixedPrecisionPolicy.param_dtype` applies to the unsharded all-gather output only
///   (`torch/distributed/fsdp/_fully_shard/_fsdp_param.py`).
/// - JAX/MaxText: `weight_dtype: float32` (the default, `MaxText/configs/base.yml`) with the
///   parameters sharded over the `fsdp` mesh axis and cast to `dtype: bfloat16` in each layer.
///
/// DeepSpeed ZeRO-3 and Megatron keep a 16-bit shard beside an fp32 master (unchanged).
pub fn fp32_shard_is_master(s: &Scenario) -> bool {
    s.parallel.zero_stage >= 3
        && s.training.precision != Precision::Fp32
        && !no_master_copy(s)
        && !s.training.fp8_params()
        && s.training.framework().traits().fp32_shard_is_master
}

/// The routed experts' part of [`model_states`] (the same bytes per parameter and ZeRO sharding
/// over the expert-data-parallel ranks; FP8 weight copies are left in the total only, except
/// that FP8 primary weights are the experts' weights): what the memory chart shows as expert
/// states.
#[inline]
pub fn expert_states(s: &Scenario, bytes: &ParamBytes, p: &GpuParams) -> ModelStates {
    if p.experts <= 0.0 {
        return ModelStates::default();
    }
    let (w, g, o) = (bytes.weights, bytes.held_grads, bytes.optimizer);
    let zero = s.parallel.zero_stage;
    let ne = bytes.expert_shard;
    let shard = |bytes: f64, from_stage: u8| -> f64 {
        if zero >= from_stage {
            bytes * p.experts / ne
        } else {
            bytes * p.experts
        }
    };
    let weights = if s.training.fp8_params() && zero < 3 {
        quantized_copy_bytes(s.training.precision) * p.experts
    } else {
        shard(w, 3)
    };
    if fp32_shard_is_master(s) {
        let m = master_bytes_per_param(s);
        return ModelStates {
            weights: shard(m, 3),
            gradients: shard(g, 2),
            optimizer: shard(o - m, 1),
        };
    }
    ModelStates {
        weights,
        gradients: shard(g, 2),
        optimizer: shard(o, 1),
    }
}

/// Megatron-LM bytes per parameter (`theoretical_memory_usage.py`,
/// `compute_weight_and_optimizer_memory`): 18 without the distributed optimizer, `6 + 12/d` with
/// it (bf16 params and fp32 grads replicated, fp32 master + Adam sharded over `d`).
pub fn megatron_bytes_per_param(distributed_optimizer: bool, d: f64) -> f64 {
    if distributed_optimizer {
        6.0 + 12.0 / d.max(1.0)
    } else {
        18.0
    }
}

/// The ZeRO paper's model states per GPU (Rajbhandari et al. SC20 §5, mixed-precision Adam with
/// K = 12 and 16-bit gradients): stage 0 `16Ψ`, 1 `4Ψ + 12Ψ/N`, 2 `2Ψ + 14Ψ/N`, 3 `16Ψ/N`.
pub fn zero_paper_bytes(stage: u8, psi: f64, n: f64) -> f64 {
    let n = n.max(1.0);
    match stage {
        0 => 16.0 * psi,
        1 => 4.0 * psi + 12.0 * psi / n,
        2 => 2.0 * psi + 14.0 * psi / n,
        _ => 16.0 * psi / n,
    }
}

/// DeepSpeed `estimate_zero2_model_states_mem_needs` GPU bytes (`stage_1_and_2.py`, HEAD
/// `38327e0`, [states.md](crate::docs::formulas::states) §2), `g` GPUs: `2P` with CPU offload, else `2P + 18P/g`.
pub fn deepspeed_zero2_gpu_bytes(p: f64, g: f64, cpu_offload: bool) -> f64 {
    if cpu_offload {
        2.0 * p
    } else {
        2.0 * p + 18.0 * p / g.max(1.0)
    }
}

/// DeepSpeed `estimate_zero3_model_states_mem_needs` GPU bytes (`stage3.py`, HEAD `38327e0`,
/// [states.md](crate::docs::formulas::states) §2), with `largest_layer_memory = 4·P_ℓ` (gathered 16-bit params + grads of the
/// largest module): no offload `4P_ℓ + 18P/g`; optimizer offload `4P_ℓ + 2P/g`; params and
/// optimizer offloaded `4P_ℓ`.
pub fn deepspeed_zero3_gpu_bytes(
    p: f64,
    largest_layer: f64,
    g: f64,
    offload_optimizer: bool,
    offload_params: bool,
) -> f64 {
    let g = g.max(1.0);
    let base = 4.0 * largest_layer;
    match (offload_optimizer, offload_params) {
        (_, true) => base,
        (true, false) => base + 2.0 * p / g,
        (false, false) => base + 18.0 * p / g,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_paper_7_5b_on_64_gpus() {
        // ZeRO paper Fig. 1: Ψ = 7.5 B, N_d = 64: 120 GB, 31.4 GB, 16.6 GB, 1.9 GB.
        let psi = 7.5e9;
        assert_eq!(zero_paper_bytes(0, psi, 64.0), 120e9);
        assert!((zero_paper_bytes(1, psi, 64.0) / 1e9 - 31.4).abs() < 0.05);
        assert!((zero_paper_bytes(2, psi, 64.0) / 1e9 - 16.6).abs() < 0.05);
        assert!((zero_paper_bytes(3, psi, 64.0) / 1e9 - 1.875).abs() < 1e-9);
    }

    /// The default preset under ZeRO-1 with `dp` data-parallel and `ep` expert-parallel ranks
    /// (tp = cp = 1) and the default gradient-reduction precision.
    fn zero1_scenario(dp: u64, ep: u64) -> crate::scenario::Scenario {
        let mut s = crate::presets::default_model_preset().scenario();
        (s.parallel.tp, s.parallel.cp, s.parallel.dp, s.parallel.ep) = (1, 1, dp, ep);
        s.parallel.zero_stage = 1;
        s.training.grad_reduce_in_fp32 = None;
        s
    }

    /// A GPU's parameter counts with only dense and expert parameters.
    fn gpu_params(dense: f64, experts: f64) -> GpuParams {
        GpuParams {
            dense,
            experts,
            matrices: 0.0,
            largest_module: 0.0,
        }
    }

    /// DeepSeek-V3 §3.3.3's states (bf16 moments, fp32 master and gradients) on a GPU with
    /// 1e9 dense and 2e9 expert parameters, dp·cp = 32 and ep = 8 (expert shard 4), ZeRO-1:
    /// moments 2·2 B, master 4 B.
    #[test]
    fn bf16_moments_by_hand() {
        use crate::scenario::{Fp8Recipe, Framework, OptimizerStates};
        let mut s = zero1_scenario(32, 8);
        s.parallel.etp = None;
        s.training.precision = Precision::Fp8;
        s.training.fp8_recipe = Some(Fp8Recipe::Blockwise);
        let p = gpu_params(1e9, 2e9);
        // fp32 moments: 12 B sharded: 12·(1e9/32 + 2e9/4) = 6.375e9.
        assert_eq!(
            model_states(&s, &ParamBytes::of(&s), &p, 0).optimizer,
            6.375e9
        );
        s.training.optimizer_states = Some(OptimizerStates::Bf16);
        // 4 + 2 + 2 = 8 B: 8·(1e9/32 + 2e9/4) = 4.25e9; weights 2·3e9 and fp32 grads 4·3e9
        // unchanged.
        let st = model_states(&s, &ParamBytes::of(&s), &p, 0);
        assert_eq!(st.optimizer, 4.25e9);
        assert_eq!((st.weights, st.gradients), (6e9, 12e9));
        assert_eq!(
            expert_states(&s, &ParamBytes::of(&s), &p).optimizer,
            8.0 * 2e9 / 4.0
        );
        // bf16 training under Megatron-LM: the precision-aware optimizer keeps the master as a
        // 16-bit remainder: 2 + 2 + 2 = 6 B: 6·5.3125e8 = 3.1875e9.
        s.training.precision = Precision::Bf16;
        s.training.fp8_recipe = None;
        assert_eq!(optimizer_bytes_per_param(&s), 6.0);
        assert_eq!(
            model_states(&s, &ParamBytes::of(&s), &p, 0).optimizer,
            3.1875e9
        );
        // ... and with FP8 delayed scaling (TE's FusedAdam casts in the kernel).
        s.training.precision = Precision::Fp8;
        assert_eq!(optimizer_bytes_per_param(&s), 6.0);
        // torchtitan's bf16 states leave the fp32 master: 8 B.
        s.training.precision = Precision::Bf16;
        s.training.framework = Some(Framework::Torchtitan);
        assert_eq!(optimizer_bytes_per_param(&s), 8.0);
        // fp32 training: the weights are the master; bf16 moments only: 4 B.
        s.training.precision = Precision::Fp32;
        assert_eq!(optimizer_bytes_per_param(&s), 4.0);
        assert_eq!(scenario_bytes_per_param(&s), (4.0, 4.0, 4.0));
        // NeMo's performance scripts: the precision-aware optimizer with fp32 moments, bf16
        // parameters: master remainder 2 + moments 8 = 10 B; Megatron-LM with bf16 moments but
        // whole fp32 masters: 4 + 4 = 8 B.
        s.training.framework = None;
        s.training.precision = Precision::Bf16;
        s.training.optimizer_states = None;
        s.training.master_weights = Some(crate::scenario::MasterWeights::Remainder);
        assert_eq!(optimizer_bytes_per_param(&s), 10.0);
        assert_eq!(
            model_states(&s, &ParamBytes::of(&s), &p, 0).optimizer,
            10.0 * 5.3125e8
        );
        s.training.optimizer_states = Some(OptimizerStates::Bf16);
        s.training.master_weights = Some(crate::scenario::MasterWeights::Fp32);
        assert_eq!(optimizer_bytes_per_param(&s), 8.0);
        s.training.master_weights = None;
        s.training.framework = Some(Framework::Torchtitan);
        s.training.precision = Precision::Fp32;
        // ZeRO-0 replicates (torchtitan allows it): 4 B × 3e9.
        s.parallel.zero_stage = 0;
        assert_eq!(model_states(&s, &ParamBytes::of(&s), &p, 0).optimizer, 12e9);
    }

    /// No master copy (`training.master_weights` none): the optimizer shard holds only the
    /// moments. A GPU with 1e9 dense parameters, dp·cp = 8, ZeRO-1, bf16 moments (NeMo 1's
    /// `dtype: bf16`, which sets both): 2·2 = 4 B per parameter against 6 with the 16-bit
    /// remainder and 8 with a whole fp32 master.
    #[test]
    fn no_master_copy_by_hand() {
        use crate::scenario::{Fp8Recipe, MasterWeights as M, OptimizerStates};
        let mut s = zero1_scenario(8, 1);
        s.training.precision = Precision::Bf16;
        s.training.optimizer_states = Some(OptimizerStates::Bf16);
        let p = gpu_params(1e9, 0.0);
        // 1e9/8 = 1.25e8 parameters in the shard: × 0 + 4, × 2 + 4, × 4 + 4.
        for (m, bytes) in [(M::None, 4.0), (M::Remainder, 6.0), (M::Fp32, 8.0)] {
            s.training.master_weights = Some(m);
            assert_eq!(optimizer_bytes_per_param(&s), bytes, "{m:?}");
            assert_eq!(
                model_states(&s, &ParamBytes::of(&s), &p, 0).optimizer,
                bytes * 1.25e8,
                "{m:?}"
            );
        }
        // fp32 moments: 0 + 8 = 8 B; the 16-bit weights stay 2 B and the gradients 4 B.
        s.training.master_weights = Some(M::None);
        s.training.optimizer_states = None;
        assert_eq!(scenario_bytes_per_param(&s), (2.0, 4.0, 8.0));
        // FP8 GEMMs on bf16 parameters (delayed scaling): the same 0 B master.
        s.training.precision = Precision::Fp8;
        s.training.fp8_recipe = Some(Fp8Recipe::Delayed);
        assert_eq!(master_bytes_per_param(&s), 0.0);
        // fp32 training has no separate master whatever the field says.
        s.training.precision = Precision::Fp32;
        s.training.fp8_recipe = None;
        assert!(!no_master_copy(&s));
        assert_eq!(master_bytes_per_param(&s), 0.0);
    }

    /// PyTorch FSDP with bf16 parameters and no master copy (NeMo Automodel's benchmarks) holds
    /// each gradient in bf16, though it reduces in fp32: a GPU with 1e9 dense and 2e9 expert
    /// parameters, dp 8, ep 8 (expert shard 1), ZeRO-3, bf16 moments: gradients 2·(1e9/8 + 2e9)
    /// = 4.25e9 B, not 4·… = 8.5e9; the reduction still moves fp32 (`main_grads` 4). With an
    /// fp32 master torchtitan's fp32 shard holds fp32 gradients, and Megatron's buffer is fp32
    /// with or without a master.
    #[test]
    fn fsdp_gradient_in_param_dtype_by_hand() {
        use crate::scenario::{Framework, MasterWeights as M, OptimizerStates};
        let mut s = zero1_scenario(8, 8);
        s.parallel.etp = None;
        s.parallel.zero_stage = 3;
        s.training.precision = Precision::Bf16;
        s.training.optimizer_states = Some(OptimizerStates::Bf16);
        s.training.master_weights = Some(M::None);
        s.training.framework = Some(Framework::Torchtitan);
        let p = gpu_params(1e9, 2e9);
        let b = ParamBytes::of(&s);
        assert!(grad_in_param_dtype(&s));
        assert_eq!((b.main_grads, b.held_grads), (4.0, 2.0));
        let m = model_states(&s, &b, &p, 0);
        assert_eq!(m.gradients, 2.0 * (1.25e8 + 2e9));
        assert_eq!(m.weights, 2.0 * (1.25e8 + 2e9));
        assert_eq!(m.optimizer, 4.0 * (1.25e8 + 2e9));
        assert_eq!(expert_states(&s, &b, &p).gradients, 2.0 * 2e9);
        // An fp32 master: the fp32 shard's gradient, 4 B.
        s.training.master_weights = Some(M::Fp32);
        assert!(!grad_in_param_dtype(&s));
        assert_eq!(
            model_states(&s, &ParamBytes::of(&s), &p, 0).gradients,
            4.0 * (1.25e8 + 2e9)
        );
        // Megatron-LM keeps its fp32 gradient buffer with no master copy too.
        s.training.master_weights = Some(M::None);
        s.training.framework = Some(Framework::Megatron);
        s.parallel.zero_stage = 1;
        assert!(!grad_in_param_dtype(&s));
        assert_eq!(ParamBytes::of(&s).held_grads, 4.0);
    }

    #[test]
    fn megatron_bytes() {
        assert_eq!(megatron_bytes_per_param(false, 8.0), 18.0);
        assert_eq!(megatron_bytes_per_param(true, 8.0), 7.5);
    }
}
