//! Activation memory: per layer, per pipeline stage, with in-flight micro-batches.
//!
//! **Per layer** — Korthikanti et al. 2022, *Reducing Activation Recomputation in Large
//! Transformer Models*, Table 2 and its breakdown (§4.1), written per token in its general form
//! ([activations.md](crate::docs::formulas::activations) §1). With `e` bytes per activation element (2 for 16-bit training, 4 for fp32)
//! and 1-byte dropout masks, one layer stores per token:
//!
//! | tensor | bytes | TP |
//! |---|---|---|
//! | two norm inputs | `2·e·h` | replicated (÷t with SP) |
//! | QKV-GEMM input, FC1 input | `2·e·h` | replicated (÷t with SP) |
//! | attention and MLP dropout masks | `2·h` | replicated (÷t with SP) |
//! | Q, K, V | `e·(q + 2·kv)` (GQA/MQA: `kv = g·d_h`) | ÷t |
//! | attention output (out-proj input) | `e·q` | ÷t |
//! | MLP: GELU input + output / SwiGLU gate, up, product | `c_ffn·e·f` | ÷t |
//! | softmax output, its dropout mask and output | `(2e + 1)·a·s` | ÷t |
//!
//! For MHA, GELU, `f = 4h`, `e = 2` this is Table 2 exactly: `sbh·(10 + 24/t + 5as/(ht))`
//! without SP and `sbh·(34/t + 5as/(ht))` with SP. MoE: the FC1 input and the MLP tensors are
//! stored for each of the `k` routed copies of a token, with the expert size `f_e`.
//!
//! - **Selective recompute** without FlashAttention (Korthikanti §4.3, Megatron's attention-core
//!   recompute) drops the `(2e + 1)·a·s` score terms. With FlashAttention there are no score
//!   terms to drop, and `selective` means per-operator selective checkpointing (PyTorch SAC with
//!   torchtitan's policy: every other GEMM output and the attention output saved, the rest
//!   recomputed; [`op_sac_saves_gemm`]). The time half recomputes exactly what is not stored.
//! - **FlashAttention** never stores them either; it keeps the softmax log-sum-exp (fp32,
//!   `4·a` bytes per token, ÷t) instead.
//! - **Autocast** (eager PyTorch 16-bit training without flash attention): the softmax runs in
//!   fp32, so the scores keep `(4 + 1 + e)·a·s` ([`autocast_score_bytes`]).
//! - **Full recompute** stores only each layer's input, `e·h` per token (÷t with SP, as Megatron
//!   stores the sequence-parallel shard; Korthikanti Table 2 `2sbh`).
//! - Any recomputation needs, once per stage, the rest of one layer's activations while that
//!   layer is recomputed and back-propagated ([`recompute_working_bytes`]). So recomputing never
//!   raises a stage's activations, and with one layer and one micro-batch it saves nothing.
//! - **Context parallelism** splits every activation along the sequence: `s → s/c`
//!   (Megatron `docs/user-guide/features/context_parallel.md`).
//!
//! **Per stage**: layers from [`crate::engine::layout`], times the micro-batches in flight
//! ([`in_flight_micro_batches`], [pipeline.md](crate::docs::formulas::pipeline) §2), plus the embedding terms on stage 0 and the
//! output layer and logits on the last stage (Megatron `compute_activation_memory`).

use crate::engine::num::min_num;
use crate::engine::per_gpu::PerGpu;
use crate::engine::shape::Shape;
use crate::scenario::{
    FfnAct, LossKernel, Precision, Recompute, RecomputeModules, RematSaved, Scenario, Schedule,
};

/// Activation bytes of one layer for one micro-batch, split by how tensor parallelism treats them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerActivations {
    /// Tensors every TP rank holds whole unless sequence parallelism shards them (norm inputs,
    /// QKV and FC1 inputs, dropout masks), bytes on one GPU (already ÷t with SP).
    pub replicated: f64,
    /// Tensors split by TP (Q, K, V, attention output, MLP intermediates), bytes on one GPU.
    pub sharded: f64,
    /// Attention scores (softmax, dropout) or FlashAttention's log-sum-exp, bytes on one GPU.
    pub scores: f64,
}

impl LayerActivations {
    /// Sum of the parts.
    pub fn total(&self) -> f64 {
        self.replicated + self.sharded + self.scores
    }
}

/// One layer's activations for one micro-batch on one GPU **without any recomputation**
/// (Korthikanti Table 2 general form; module docs), for the model's characteristic layer
/// ([`Shape::of`]: the MoE layer of an MoE model). `flash_attention` is honoured.
pub fn layer_activations_full(s: &Scenario) -> LayerActivations {
    layer_activations_full_of(s, &PerGpu::of(s), &Shape::of(&s.model))
}

/// [`layer_activations_full`] for a layer of shape `d` (a dense or an MoE layer,
/// [`Shape::dense_layer`]). Per token:
/// - attention: Q, K, V `e·(q + 2kv)/t` and the attention output `e·o/t`; with MLA also the
///   query and key/value latents `e·(q_lora + kv_lora + d_rope)` that the up projections read
///   (the down projections are not split by TP);
/// - dense MLP: FC1 input `e·h` (replicated, ÷t with SP) and `c_ffn·e·f/t`;
/// - MoE MLP ([`super::experts`]): the router and shared experts' input `e·h` (as the dense
///   FC1 input), the router's outputs, the shared experts' `c_ffn·e·f_shared/t`, and the routed
///   rows this GPU computes with their FC1 inputs and intermediates.
pub fn layer_activations_full_of(s: &Scenario, g: &PerGpu, d: &Shape) -> LayerActivations {
    let p = &s.parallel;
    let (tok, e, t, sp_div) = (g.tokens, g.element_bytes, g.tp, g.sp_div);
    let Shape {
        h,
        q,
        o,
        heads: a,
        c_ffn: c,
        ..
    } = *d;
    let s_local = s.model.seq_len as f64 / p.cp.max(1) as f64;
    // norm inputs 2eh, QKV input eh, MLP input (FC1 / router + shared experts) eh, two
    // dropout masks 2h (none without dropout).
    let masks = if dropout(s) { 2.0 * h } else { 0.0 };
    let replicated = tok * (2.0 * e * h + e * h + e * h + masks) / sp_div;
    let latents = tok * e * (d.q_lora + d.kv_lora + d.k_rope);
    // Megatron-LM with more TP ranks than KV heads: each rank keeps one whole K and V head.
    let kv_rank = d.kv_rank(t, s.tp_replicates_kv_heads());
    let attention = tok * e * ((q + o) / t + 2.0 * kv_rank) + latents;
    let mlp = if d.is_moe() {
        super::experts::moe_mlp_bytes(s, g, d)
    } else {
        tok * c * e * d.f_dense / t
    };
    let scores = if s.training.flash_attention {
        tok * 4.0 * a / t
    } else if autocast_scores(s, g) {
        tok * autocast_score_bytes(s, g) * a * s_local / t
    } else if dropout(s) {
        tok * (2.0 * e + 1.0) * a * s_local / t
    } else {
        // Without dropout the softmax output is the only score tensor kept.
        tok * e * a * s_local / t
    };
    // Transformer Engine keeps each linear layer's input quantized for its backward.
    let (rep_q, shard_q) = quantized_inputs_saving(s, g, d);
    LayerActivations {
        replicated: replicated - rep_q,
        sharded: attention + mlp - shard_q - swiglu_fp8_saving(s, g, d),
        scores,
    }
}

/// Whether the unfused attention's scores go through PyTorch autocast's fp32 softmax: an eager
/// stack whose 16-bit training is `torch.autocast` (the Hugging Face Trainer and Composer,
/// [`crate::engine::framework::Traits::autocast_softmax`]) without flash attention.
fn autocast_scores(s: &Scenario, g: &PerGpu) -> bool {
    s.training.framework().traits().autocast_softmax && g.element_bytes == 2.0
}

/// Bytes kept per attention score under autocast ([`autocast_scores`]), as Hugging Face's eager
/// attention writes it (transformers v4.16 `models/bert/modeling_bert.py`,
/// `BertSelfAttention.forward`: `softmax`, `dropout`, `matmul(attention_probs, value_layer)`):
/// `softmax` is on autocast's float32 list (PyTorch `torch.amp` docs, "CUDA Ops that can
/// autocast to float32"), so its saved output is fp32 (4 B); the dropout, on no list, runs in
/// fp32 on it and keeps its 1-byte mask; the probabilities·V matmul, on the 16-bit list, saves
/// the 16-bit copy autocast casts its input to (`e`). `4 + 1 + e` = 7 against the fused
/// kernel's `2e + 1` = 5; without dropout `4 + e` = 6 against `e`.
fn autocast_score_bytes(s: &Scenario, g: &PerGpu) -> f64 {
    let mask = if dropout(s) { 1.0 } else { 0.0 };
    crate::engine::per_gpu::element_bytes_of(Precision::Fp32) + mask + g.element_bytes
}

/// Bytes of one element of the SwiGLU input (gate and up projections' output) as kept for the
/// activation's backward: 1 with `training.swiglu_fp8_input` (an `e4m3` cast, no scales:
/// [`crate::scenario::Training::swiglu_fp8_input`]), else the activation element.
fn activation_input_bytes(s: &Scenario, g: &PerGpu) -> f64 {
    if s.training.swiglu_fp8_input() {
        1.0
    } else {
        g.element_bytes
    }
}

/// SwiGLU input elements per token that the MLP stores (sharded): gate and up, `2·f/t` dense,
/// and in an MoE layer `2·f_e/etp` per routed row plus the shared experts' `2·f_shared/t`.
fn swiglu_input_elements(s: &Scenario, d: &Shape) -> f64 {
    let p = &s.parallel;
    let t = p.tp.max(1) as f64;
    if d.is_moe() {
        let etp = p.etp().max(1) as f64;
        2.0 * (super::experts::rows_per_token(s, d) * d.f_expert / etp + d.f_shared / t)
    } else {
        2.0 * d.f_dense / t
    }
}

/// What storing the SwiGLU input in FP8 saves per layer and micro-batch: `(e − 1)` per element
/// of [`swiglu_input_elements`]; zero when off.
fn swiglu_fp8_saving(s: &Scenario, g: &PerGpu, d: &Shape) -> f64 {
    g.tokens * (g.element_bytes - activation_input_bytes(s, g)) * swiglu_input_elements(s, d)
}

/// Bytes of one element of a linear layer's input as kept for its backward: under Transformer
/// Engine's FP8 and NVFP4 recipes (the Megatron-LM stack) the quantized copy the GEMM already
/// made, not the 16-bit tensor — TE `module/linear.py` (`_Linear.forward`, "Prepare backward
/// state": `saved_inputmat = inputmat`, the quantizer's output with only its column-wise data
/// kept, NVIDIA/TransformerEngine @d0067d0): 1 B for per-tensor scaling (delayed, tensorwise,
/// rowwise), plus the block scales for blockwise (one fp32 per 128) and MXFP8 (one byte per 32),
/// NVFP4 0.5625 B ([`crate::engine::time::fp8`]). Other stacks and precisions: the activation
/// element ([`element_bytes`]).
pub fn linear_input_bytes_per_gpu(s: &Scenario, g: &PerGpu) -> f64 {
    use crate::engine::framework::LayerLibrary;
    use crate::engine::time::fp8::{BLOCKWISE_BYTES, MXFP8_BYTES, NVFP4_BYTES};
    use crate::scenario::Fp8Recipe;
    if s.training.framework().traits().layers != LayerLibrary::TransformerEngine {
        return g.element_bytes;
    }
    match (s.training.precision, s.training.fp8_recipe()) {
        (Precision::Fp8, Some(Fp8Recipe::Blockwise)) => BLOCKWISE_BYTES,
        (Precision::Fp8, Some(Fp8Recipe::Mxfp8)) => MXFP8_BYTES,
        (Precision::Fp8, _) => 1.0,
        (Precision::Nvfp4, _) => NVFP4_BYTES,
        _ => g.element_bytes,
    }
}

/// What [`linear_input_bytes`] saves per layer and micro-batch against 16-bit inputs,
/// `(replicated, sharded)` bytes: `(e − l)` per element of every linear input the layer stores —
/// the QKV input and a dense layer's FC1 input (replicated; an MoE layer's MLP input stays 16-bit,
/// the router keeps it), the output projection's input `o/t`, MLA's query and key/value latents,
/// the second MLP GEMM's input (`f/t` dense, `f_shared/t` shared experts) and each routed row's
/// FC1 and FC2 inputs (`h + f_e/etp`). Zero unless the inputs are quantized.
fn quantized_inputs_saving(s: &Scenario, g: &PerGpu, d: &Shape) -> (f64, f64) {
    let dl = quantized_saving_per_element(s, g);
    if dl <= 0.0 {
        return (0.0, 0.0);
    }
    let (tok, t, sp_div) = (g.tokens, g.tp, g.sp_div);
    let fc1_inputs = if d.is_moe() { 1.0 } else { 2.0 };
    let replicated = tok * dl * fc1_inputs * d.h / sp_div;
    let sharded = tok * dl * (d.o / t + d.q_lora + d.kv_lora) + tok * dl * mlp_linear_inputs(s, d);
    (replicated, sharded)
}

/// Bytes a quantized linear input saves per element against the 16-bit tensor, `e − l`
/// ([`linear_input_bytes`]; 0 unless the inputs are quantized).
fn quantized_saving_per_element(s: &Scenario, g: &PerGpu) -> f64 {
    (g.element_bytes - linear_input_bytes_per_gpu(s, g)).max(0.0)
}

/// The MLP's linear-input elements per token that [`quantized_inputs_saving`] counts (sharded):
/// the second GEMM's input and, in an MoE layer, each routed row's FC1 input.
fn mlp_linear_inputs(s: &Scenario, d: &Shape) -> f64 {
    let p = &s.parallel;
    let t = p.tp.max(1) as f64;
    if d.is_moe() {
        let etp = p.etp().max(1) as f64;
        super::experts::rows_per_token(s, d) * (d.h + d.f_expert / etp) + d.f_shared / t
    } else {
        d.f_dense / t
    }
}

/// The MLP's part of [`quantized_inputs_saving`], bytes per micro-batch.
fn quantized_mlp_saving(s: &Scenario, g: &PerGpu, d: &Shape) -> f64 {
    g.tokens * quantized_saving_per_element(s, g) * mlp_linear_inputs(s, d)
}

/// One layer's stored activations for one micro-batch on one GPU, for the scenario's
/// recomputation: none → [`layer_activations_full`]; selective → without the score terms
/// (Korthikanti §4.3), or with FlashAttention the per-op checkpointing described at
/// `selective_flash` below; full → the layer input only, `e·h` per token (÷t with SP).
pub fn layer_activations(s: &Scenario) -> LayerActivations {
    layer_activations_of(s, &Shape::of(&s.model))
}

/// [`layer_activations`] for a layer of shape `d`.
pub fn layer_activations_of(s: &Scenario, d: &Shape) -> LayerActivations {
    layer_activations_per_gpu(s, &PerGpu::of(s), d)
}

/// [`layer_activations_of`] with the per-GPU facts `g` resolved.
pub fn layer_activations_per_gpu(s: &Scenario, g: &PerGpu, d: &Shape) -> LayerActivations {
    stored_of(s, g, d, layer_activations_full_of(s, g, d))
}

/// [`layer_activations_of`] from the layer's activations without recomputation, `full`.
fn stored_of(s: &Scenario, g: &PerGpu, d: &Shape, full: LayerActivations) -> LayerActivations {
    match s.training.recompute {
        Recompute::None => full,
        Recompute::Selective => match s.recompute_modules() {
            Some(m) => by_module(s, g, d, full, m),
            None => selective_flash(s, g, d, full),
        },
        Recompute::Full => LayerActivations {
            replicated: g.tokens * g.element_bytes * s.model.hidden as f64 / g.sp_div,
            sharded: 0.0,
            scores: 0.0,
        },
    }
}

/// Megatron-LM's selective recomputation by module ([`RecomputeModules`], whose docs cite what
/// each module discards): the layer's activations without recomputation `full`, less, per
/// token, what the modules in `m` free:
/// - `core_attn`: the `scores` term (Korthikanti §4.3; with flash attention its log-sum-exp,
///   the checkpoint keeping Q, K and V as its inputs);
/// - `mla_up_proj` (MLA layers): the full-width Q, K and V, `e·(q + 2kv)/t`;
/// - `layernorm`: the two norm outputs (QKV and MLP inputs), `2·e·h` (÷t with SP);
/// - `moe_act` (MoE layers): each routed row's activation output `e·f_e/etp`
///   ([`super::experts::rows_per_token`] rows), and with the probabilities applied inside the
///   activation what their multiplication keeps, which the checkpointed function holds
///   ([`super::experts::combine_bytes_per_row`]);
/// - `mlp` (dense layers): the MLP's intermediates `c_ffn·e·f/t`;
/// - `shared_experts` (MoE layers): theirs, `c_ffn·e·f_shared/t`;
/// - `moe` (MoE layers): the whole MoE MLP's stored activations
///   ([`super::experts::moe_mlp_bytes`]), which include the two above.
fn by_module(
    s: &Scenario,
    g: &PerGpu,
    d: &Shape,
    full: LayerActivations,
    m: RecomputeModules,
) -> LayerActivations {
    let (tok, e, t, sp_div) = (g.tokens, g.element_bytes, g.tp, g.sp_div);
    let mut a = full;
    if m.has(RecomputeModules::CORE_ATTN) {
        a.scores = 0.0;
    }
    if m.has(RecomputeModules::MLA_UP_PROJ) && d.is_mla() {
        a.sharded -= tok * e * (d.q + 2.0 * d.kv) / t;
    }
    let l = linear_input_bytes_per_gpu(s, g);
    if m.has(RecomputeModules::LAYERNORM) {
        // The norm outputs are the QKV input and the MLP input (the router's 16-bit copy in an
        // MoE layer), kept as the linear layers keep them.
        let mlp_in = if d.is_moe() { e } else { l };
        a.replicated -= tok * (l + mlp_in) * d.h / sp_div;
    }
    // The activation's input (GELU's, or SwiGLU's gate and up) as the layer keeps it.
    let act_in = activation_input_bytes(s, g);
    if d.is_moe() && m.has(RecomputeModules::MOE) {
        // The whole block: everything the MoE MLP stores but its input (the pre-MLP norm's
        // output, counted with the layer), which covers moe_act and shared_experts.
        a.sharded -= super::experts::moe_mlp_bytes(s, g, d)
            - quantized_mlp_saving(s, g, d)
            - swiglu_fp8_saving(s, g, d);
    } else if d.is_moe() {
        if m.has(RecomputeModules::MOE_ACT) {
            let etp = s.parallel.etp().max(1) as f64;
            let weighting = if s.training.moe_probs_in_experts() {
                super::experts::combine_bytes_per_row(s, g, d)
            } else {
                0.0
            };
            a.sharded -=
                tok * super::experts::rows_per_token(s, d) * (l * d.f_expert / etp + weighting);
        }
        if m.has(RecomputeModules::SHARED_EXPERTS) {
            a.sharded -= tok * ((d.c_ffn - 1.0) * act_in + l) * d.f_shared / t;
        }
    } else if m.has(RecomputeModules::MLP) {
        a.sharded -= tok * ((d.c_ffn - 1.0) * act_in + l) * d.f_dense / t;
    }
    a
}

/// Whether per-op selective activation checkpointing saves the output of the layer's
/// `index`-th weight GEMM (0-based, forward order of [`Shape::layer_gemms`]): it saves every
/// other matmul, the 1st, 3rd, 5th and 7th, and recomputes the rest. torchtitan
/// `torchtitan/distributed/activation_checkpoint.py` (`selective_ac_option = "op"`, its Llama
/// default): "Saves output of all compute ops, except every second mm" — the `mm` counter
/// starts at 1 for each checkpointed block and outputs with an even count are recomputed.
/// The time half prices the recomputed GEMMs with the same predicate.
pub fn op_sac_saves_gemm(index: usize) -> bool {
    index % 2 == 0
}

/// What selective checkpointing without Megatron-LM's modules keeps of a layer (with flash
/// attention): torchtitan's per-op policy ([`op_sac_saves_gemm`]), or JAX's named policy
/// (`training.remat_saved`, [`RematSaved`]). The memory half stores what it saves, the time
/// half reruns what it does not ([`SavePolicy::reruns_gemm`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SavePolicy {
    /// PyTorch per-op selective checkpointing with torchtitan's policy.
    EveryOtherGemm,
    /// JAX `save_only_these_names` over MaxText's checkpoint names.
    Named(RematSaved),
}

impl SavePolicy {
    /// The policy of `s`: the named one when `training.remat_saved` is set.
    #[inline]
    pub fn of(s: &Scenario) -> SavePolicy {
        s.training
            .remat_saved
            .map_or(SavePolicy::EveryOtherGemm, SavePolicy::Named)
    }

    /// Whether the output of the `index`-th weight GEMM of a layer of shape `d` is kept
    /// ([`Shape::layer_gemms`] order: the input projections, the attention output projection,
    /// the MLP's input projections, its output projection).
    #[inline]
    pub fn saves_gemm(self, d: &Shape, index: usize) -> bool {
        match self {
            SavePolicy::EveryOtherGemm => op_sac_saves_gemm(index),
            SavePolicy::Named(n) => n.has(Self::name_of(d, index)),
        }
    }

    /// MaxText's name of the `index`-th weight GEMM's output.
    #[inline]
    fn name_of(d: &Shape, index: usize) -> RematSaved {
        let a = d.attention_gemms();
        if index + 1 < a {
            RematSaved::QKV_PROJ
        } else if index + 1 == a {
            RematSaved::OUT_PROJ
        } else if index + 1 < a + d.mlp_gemms().1 {
            RematSaved::MLPWI
        } else {
            RematSaved::MLPWO
        }
    }

    /// Whether the backward reruns the `index`-th weight GEMM: the ones not saved, except, under
    /// JAX, the MLP's output projection, whose output only the next layer's input reads (kept as
    /// the scan carry), so the rematerialized forward drops it as dead code.
    #[inline]
    pub fn reruns_gemm(self, d: &Shape, index: usize) -> bool {
        let dead =
            matches!(self, SavePolicy::Named(_)) && Self::name_of(d, index) == RematSaved::MLPWO;
        !(self.saves_gemm(d, index) || dead)
    }

    /// Whether the attention kernel's output and softmax statistics are kept; if not, the
    /// backward reruns the kernel's forward (MaxText's `context: remat`).
    #[inline]
    pub fn saves_attention_output(self) -> bool {
        match self {
            SavePolicy::EveryOtherGemm => true,
            SavePolicy::Named(n) => n.has(RematSaved::CONTEXT),
        }
    }
}

/// Selective recompute with FlashAttention: per-operator selective activation checkpointing
/// (PyTorch `torch.utils.checkpoint.create_selective_checkpoint_contexts` with torchtitan's
/// op policy, see [`op_sac_saves_gemm`]). Attention-core recompute in Megatron's sense has
/// nothing left to save once FlashAttention stores no score matrix, so `selective` with flash
/// attention means the per-op policy. Stored per token:
/// - the block's input, `e·h` (replicated, ÷t with SP): the checkpoint keeps it to recompute;
/// - the outputs of the saved GEMMs (every other one; for Llama Q, V, FC1-gate and FC2):
///   column-parallel outputs `e·n/t`, row-parallel outputs `e·n` (each TP rank's partial sums
///   of the full width);
/// - the attention kernel's output `e·q/t` and its log-sum-exp (the flash `scores` term).
///
/// Norms, activation functions, residual adds and the other GEMMs are recomputed in backward.
/// Under JAX's named policy ([`SavePolicy::Named`], MaxText's `remat_policy: custom`) the saved
/// GEMM outputs are the named ones, and the attention kernel's output and statistics only with
/// `context` ([activations.md](crate::docs::formulas::activations) §13).
fn selective_flash(
    s: &Scenario,
    g: &PerGpu,
    d: &Shape,
    full: LayerActivations,
) -> LayerActivations {
    let (tok, e, t, sp_div) = (g.tokens, g.element_bytes, g.tp, g.sp_div);
    let (gemms, n) = d.layer_gemms();
    let attn = d.attention_gemms();
    let policy = SavePolicy::of(s);
    // Saved GEMM outputs per token: column-parallel (÷t) and row-parallel (whole width). The MLP
    // GEMMs (after the attention ones) run once per routed copy of a token (`k` for MoE, 1
    // dense).
    let (mut col, mut row) = (0.0, 0.0);
    for (i, g) in gemms.iter().take(n).enumerate() {
        if policy.saves_gemm(d, i) {
            let copies = if i >= attn { d.k } else { 1.0 };
            if g.row_parallel {
                row += copies * g.n;
            } else {
                col += copies * g.n;
            }
        }
    }
    // The attention kernel's output and statistics, unless a named policy recomputes them.
    let (attn_out, scores) = if policy.saves_attention_output() {
        (d.o, full.scores)
    } else {
        (0.0, 0.0)
    };
    let stored = LayerActivations {
        replicated: tok * e * (d.h / sp_div + row),
        sharded: tok * e * (col + attn_out) / t,
        scores,
    };
    // Checkpointing never stores more than running without it (possible only for odd shapes
    // with TP, where the row-parallel partial sums are wider than the sharded tensors).
    if stored.total() > full.total() {
        full
    } else {
        stored
    }
}

/// Bytes per layer per micro-batch stored for the scenario's recomputation (total of
/// [`layer_activations`]), for the model's characteristic layer. This is what multiplies
/// layers × in-flight micro-batches; [`LayerBytes`] has both kinds of an MoE model.
pub fn layer_bytes(s: &Scenario) -> f64 {
    layer_activations(s).total()
}

/// Working memory while one layer is recomputed and back-propagated: the part of its full
/// activations that was not stored, `full − stored` (0 without recomputation). Under full
/// recompute this is the whole layer except its saved input (Calculon adds the same working
/// block, [activations.md](crate::docs::formulas::activations) §10); under selective recompute the recomputed attention core (score
/// matrix) or, with per-op checkpointing, the recomputed GEMM and element-wise outputs of that
/// one layer. Only one layer is being recomputed at a
/// time, so this is added once per stage.
pub fn recompute_working_bytes(s: &Scenario) -> f64 {
    (layer_activations_full(s).total() - layer_bytes(s)).max(0.0)
}

/// Stored bytes per layer per micro-batch of both kinds of layer, and the recompute working set
/// of each ([`crate::engine::layers`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerBytes {
    /// A dense-MLP layer's stored activations.
    pub dense: f64,
    /// An MoE layer's stored activations (0 for a dense model).
    pub moe: f64,
    /// A dense layer's recompute working set.
    pub dense_working: f64,
    /// An MoE layer's recompute working set.
    pub moe_working: f64,
}

impl LayerBytes {
    /// Both kinds for `s`.
    pub fn new(s: &Scenario) -> LayerBytes {
        LayerBytes::with_shape(s, &PerGpu::of(s), &Shape::of(&s.model))
    }

    /// [`LayerBytes::new`] from the model's already resolved [`Shape`] `d` and per-GPU facts
    /// `g` (an estimate resolves them once, [`crate::engine::plan::Plan`]).
    pub fn with_shape(s: &Scenario, g: &PerGpu, d: &Shape) -> LayerBytes {
        // Stored bytes and the recompute working set (what recomputation brings back) of a
        // layer of shape `d`.
        let kind = |d: &Shape| {
            let full = layer_activations_full_of(s, g, d);
            let stored = stored_of(s, g, d, full).total();
            (stored, (full.total() - stored).max(0.0))
        };
        let (dense, dense_working) = kind(&d.dense_layer());
        let (moe, moe_working) = if d.is_moe() { kind(d) } else { (0.0, 0.0) };
        LayerBytes {
            dense,
            moe,
            dense_working,
            moe_working,
        }
    }

    /// Stored bytes of the layers `mix` (MTP modules' layers included) for one micro-batch.
    pub fn of_mix(&self, mix: &crate::engine::layers::LayerMix) -> f64 {
        mix.dense_with_mtp() as f64 * self.dense + mix.moe_with_mtp() as f64 * self.moe
    }

    /// The recompute working set of a stage holding `mix`: the larger of its kinds' (one layer
    /// is recomputed at a time).
    pub fn working(&self, mix: &crate::engine::layers::LayerMix) -> f64 {
        let d = if mix.dense_with_mtp() > 0 {
            self.dense_working
        } else {
            0.0
        };
        let m = if mix.moe_with_mtp() > 0 {
            self.moe_working
        } else {
            0.0
        };
        d.max(m)
    }
}

/// Stage 0's embedding activations per micro-batch: the token ids (int64, 8 B per token, every
/// TP rank) and, with [`dropout`], the embedding-dropout mask (1 B per element, ÷t with SP). Megatron
/// `compute_activation_memory`: `8·s·b·p + s·b·h·p`.
///
/// With an embedding LayerNorm (`model.embedding_norm`, BLOOM) its input too, `e·h` per token
/// (÷t with SP): the norm runs on the all-reduced embedding output inside
/// `VocabParallelEmbedding` and saves its input for backward, and no recomputation covers it —
/// DeepSpeed's pipeline checkpoints only the transformer layers of `GPTModelPipe`
/// (`PipelineModule._is_checkpointable`), Megatron's full recompute only the transformer block
/// (bigscience-workshop/Megatron-DeepSpeed @49d21af2 `megatron/mpu/layers.py`,
/// `megatron/model/gpt_model.py`; [activations.md](crate::docs::formulas::activations) §15).
pub fn embedding_bytes_per_gpu(s: &Scenario, g: &PerGpu) -> f64 {
    let (tok, sp_div) = (g.tokens, g.sp_div);
    let mask = if dropout(s) { 1.0 } else { 0.0 };
    let norm = if s.model.embedding_norm() {
        g.element_bytes
    } else {
        0.0
    };
    tok * 8.0 + (mask + norm) * tok * s.model.hidden as f64 / sp_div
}

/// Whether the layers keep dropout masks: `training.dropout`, else the recipe's default
/// ([activations.md](crate::docs::formulas::activations) §12).
///
/// A dropout with `p = 0` keeps nothing: PyTorch's `dropout` returns its input when `p == 0`
/// (`aten/src/ATen/native/Dropout.cpp`, `_dropout_impl`; the fused `native_dropout`, which
/// returns a mask, runs only for `0 < p < 1`, `is_fused_kernel_acceptable`), so Megatron-LM's
/// bias-dropout-add and its attention dropout store no mask; FlashAttention stores none at any
/// `p` (the [`layer_activations_full_of`] flash path has no mask term either way).
///
/// The default, `None`:
/// - off for a gated-MLP (SwiGLU) model: its recipes train without dropout — Meta's Llama
///   reference model has no dropout module, Hugging Face's `LlamaConfig` defaults
///   `attention_dropout` to 0.0 and its decoder layer has no hidden dropout; NeMo's
///   `Llama3Config` and `DeepSeekConfig` set `hidden_dropout = attention_dropout = 0.0`
///   (`nemo/collections/llm/gpt/model/llama.py`, `deepseek.py`); Megatron-LM's
///   `examples/llama/train_llama3_8b_h100_fp8.sh` and
///   `examples/mixtral/train_mixtral_8x7b_distributed.sh` pass `--attention-dropout 0.0
///   --hidden-dropout 0.0`;
/// - else the stack's ([`crate::engine::framework::Traits::dropout`]): on for Megatron-LM
///   and Megatron-DeepSpeed (`--hidden-dropout` and `--attention-dropout` default 0.1,
///   `megatron/arguments.py`; BLOOM's `tr11-176B-ml.slurm` sets neither) and eager PyTorch
///   (the Hugging Face GPT-2, BERT and OPT configs' 0.1); off for torchtitan (its models
///   define no dropout) and JAX (MaxText `configs/base.yml` `dropout_rate: 0`).
pub fn dropout(s: &Scenario) -> bool {
    s.training.dropout.unwrap_or_else(|| {
        s.model.ffn_act != FfnAct::Swiglu
            && crate::engine::framework::traits(s.training.framework()).dropout
    })
}

/// The last stage's output-layer activations per micro-batch: final-norm input and output-GEMM
/// input (`e·h` each, ÷t with SP; the GEMM input whole under torchtitan's DTensor SP,
/// [`super::gathered_input`]) and the fp32 log-softmax the cross-entropy keeps for
/// backward (`4·V/t` per token, vocab-parallel). Megatron `compute_activation_memory` (p = 1):
/// `4·s·b·h·(1 + V/h)`.
///
/// What the loss keeps depends on its kernel ([`crate::scenario::LossKernel`]): the fp32
/// (log-)softmax, `4·V/t`, for PyTorch's unfused `cross_entropy` and Megatron-LM's
/// vocab-parallel one; the 16-bit log-softmax, `e·V/t`, for the unfused `cross_entropy` on
/// 16-bit logits (`_log_softmax` saves its output in the input's dtype, pytorch
/// `tools/autograd/derivatives.yaml`: `_log_softmax_backward_data(grad, result, dim,
/// self.scalar_type())`; `nll_loss` saves the same tensor); the 16-bit logits and a per-token fp32 log-sum-exp, `e·V/t + 4`, for a
/// fused kernel (flash-attn `ops/triton/cross_entropy.py` @0251105a:
/// `ctx.save_for_backward(logits, lse, labels)`).
///
/// With the output layer and loss run in `n` sequence chunks, each chunk's forward and backward
/// before the next (`training.loss_chunks`, torchtitan's `ChunkedLossWrapper`), one chunk's
/// loss tensors exist at a time: the loss term is `1/n` of the whole (the chunks' gathered
/// input gradient, `e·h` per token, is the output GEMM's input gradient an unchunked backward
/// writes too).
pub fn output_bytes_per_gpu(s: &Scenario, g: &PerGpu) -> f64 {
    let (tok, t, sp_div) = (g.tokens, g.tp, g.sp_div);
    let chunk = tok / s.training.loss_chunks() as f64;
    let loss = match s.training.loss_kernel() {
        LossKernel::Fused => chunk * (g.element_bytes * s.model.vocab as f64 / t + 4.0),
        LossKernel::Unfused | LossKernel::VocabParallel => chunk * 4.0 * s.model.vocab as f64 / t,
        LossKernel::Unfused16 => chunk * g.element_bytes * s.model.vocab as f64 / t,
    };
    // Final-norm input, and the output GEMM's input as its backward keeps it (the shard, or
    // under DTensor TP the sequence-gathered tensor, `super::gathered_input`).
    let h = s.model.hidden as f64;
    let e = g.element_bytes;
    tok * e * h / sp_div + tok * e * h / super::gathered_input::output_input_div(s) + loss
}

/// Transient at the loss, once per stage, on top of the saved fp32 softmax, per the stack's
/// cross-entropy:
/// - PyTorch's unfused `cross_entropy` on fp32 logits (the Hugging Face Trainer, torchtitan,
///   DeepSpeed's default stacks): when the loss backward starts, the incoming fp32 gradient of
///   the log-probabilities and the log-softmax's input gradient (4 B each, `8·V/t` per token)
///   coexist with it (in forward the 16-bit logits and their fp32 upcast take `(e + 4)·V/t`, no
///   more); under torchtitan with TP the vocabulary-sharded logits go through DTensor's loss
///   parallel, whose fused backward holds three, `12·V/t` ([`super::loss_parallel`]);
/// - Megatron-LM's vocab-parallel cross-entropy: its backward turns the saved softmax into the
///   gradient in place (`grad_input = softmax`, then `mul_`), so the peak is the forward's, the
///   16-bit logits beside their fp32 copy, `2·V/t` (`megatron/core/tensor_parallel/
///   cross_entropy.py`: `vocab_parallel_logits.float()`, `save_for_backward(exp_logits, …)`,
///   NVIDIA/Megatron-LM @d98e8a64);
/// - PyTorch's unfused `cross_entropy` on the 16-bit logits (no upcast): the same two gradients
///   in the logits' dtype, `2e·V/t` (NeMo Automodel `components/loss/masked_ce.py` @89e3a9fdd
///   l.73-82: `logits.float()` only with `fp32_upcast`, then `F.cross_entropy`);
/// - a fused kernel on the 16-bit logits writes one gradient of their size, `e·V/t`
///   (flash-attn `ops/triton/cross_entropy.py` @0251105a: `dlogits = torch.empty_like(logits)`
///   unless `inplace_backward`, default off).
///
/// The kernel is the scenario's [`crate::scenario::Training::loss_kernel`] (by default
/// vocab-parallel under Megatron-LM, unfused elsewhere); with the loss in `n` chunks
/// ([`crate::scenario::Training::loss_chunks`]) one chunk's, `1/n`.
pub fn logits_transient_bytes_per_gpu(s: &Scenario, g: &PerGpu) -> f64 {
    let per_token = match s.training.loss_kernel() {
        LossKernel::VocabParallel => 2.0,
        LossKernel::Unfused => super::loss_parallel::unfused_transient_bytes(s),
        LossKernel::Fused => g.element_bytes,
        LossKernel::Unfused16 => 2.0 * g.element_bytes,
    };
    g.tokens / s.training.loss_chunks() as f64 * per_token * s.model.vocab as f64 / g.tp
}

/// The 16-bit logits' block that PyTorch's caching allocator holds, unused, at the unfused
/// loss's backward, bytes per GPU: `e·V/t` per token for [`LossKernel::Unfused`] on 16-bit
/// logits without pipelining, else 0. Reserved, never allocated: it is part of the allocator
/// reserve, not of the activations ([activations.md](crate::docs::formulas::activations) §7).
///
/// The forward allocates the 16-bit logits `pred` (`e·V/t` per token), their fp32 upcast
/// (`pred.flatten(0, 1).float()`, torchtitan `train.py` `loss_fn` @9dec370) and the fp32
/// log-softmax (4 each; under loss parallel also `shifted`, whose block `result` reuses,
/// [`super::loss_parallel`]); the upcast is freed once the log-softmax is written, and torchtitan
/// frees `pred` before `loss.backward()` (`del pred`). The backward then asks for two (loss
/// parallel: three) fp32 blocks of `4·V/t` per token at once. The caching allocator serves a
/// request only from one free block at least its size (best fit; blocks split and coalesce only
/// inside their segment, and an expandable segment grows only at its end), so the upcast's
/// block (or `shifted`'s) serves one and the rest are new memory, while `pred`'s block — half
/// their size — stays free beside them (pytorch `c10/cuda/CUDACachingAllocator.cpp`
/// `get_free_block`, `alloc_block`). Had `pred` stayed alive it would be allocated instead: the
/// reserved bytes are the same. With fp32 logits there is no upcast and `pred`'s block serves a
/// request. Reserved memory is never returned without `torch.cuda.empty_cache()`, so every later
/// step reuses these blocks and `max_memory_reserved` keeps them.
///
/// Under pipelining the stage runs other micro-batches' work between a micro-batch's loss
/// forward and backward; not read, not priced. JAX has no caching allocator (XLA assigns a
/// compiled program's buffers ahead of the run): 0.
pub fn logits_block_bytes_per_gpu(s: &Scenario, g: &PerGpu) -> f64 {
    let upcast = crate::engine::per_gpu::element_bytes_of(Precision::Fp32);
    if s.parallel.pp > 1
        || g.element_bytes >= upcast
        || s.training.loss_kernel() != LossKernel::Unfused
        || !s.training.framework().traits().caching_allocator
    {
        return 0.0;
    }
    // One chunk's logits with the loss in chunks (`training.loss_chunks`).
    g.tokens / s.training.loss_chunks() as f64 * g.element_bytes * s.model.vocab as f64 / g.tp
}

/// [`embedding_bytes_per_gpu`] of `s` (its per-GPU facts resolved here).
pub fn embedding_bytes(s: &Scenario) -> f64 {
    embedding_bytes_per_gpu(s, &PerGpu::of(s))
}

/// [`output_bytes_per_gpu`] of `s` (its per-GPU facts resolved here).
pub fn output_bytes(s: &Scenario) -> f64 {
    output_bytes_per_gpu(s, &PerGpu::of(s))
}

/// [`logits_transient_bytes_per_gpu`] of `s` (its per-GPU facts resolved here).
pub fn logits_transient_bytes(s: &Scenario) -> f64 {
    logits_transient_bytes_per_gpu(s, &PerGpu::of(s))
}

/// [`linear_input_bytes_per_gpu`] of `s` (its per-GPU facts resolved here).
pub fn linear_input_bytes(s: &Scenario) -> f64 {
    linear_input_bytes_per_gpu(s, &PerGpu::of(s))
}

/// Micro-batches whose activations pipeline stage `stage` holds at its peak ([pipeline.md](crate::docs::formulas::pipeline) §2):
/// - no pipeline (`p = 1`): 1 (gradient accumulation runs each micro-batch's backward first);
/// - 1F1B (PipeDream-Flush): `min(p − r, m)` on stage `r` (Megatron warm-up `p − r − 1`, + 1);
/// - interleaved with `v` chunks: `min(2(p − r − 1) + (v − 1)·p + 1, m·v)` chunk-forwards of
///   `1/v` of the stage's layers each (Megatron `schedules.py` warm-up); on stage 0 with `m ≥ p`
///   that is `p·(1 + (p − 1)/(p·v))`, Korthikanti §4.2.3;
/// - GPipe: all `m`;
/// - ZB-H1: as 1F1B, `min(p − r, m)` (Qi et al., ICLR 2024, Table 2: peak `p·M_B`, "the same
///   as 1F1B");
/// - ZB-V: `min(p, m)` on every rank (sail-sg/zero-bubble-pipeline-parallelism README table:
///   activation memory "1x" of 1F1B, balanced over the ranks by the V);
/// - DualPipe: `PP + 1` chunk activations per rank (deepseek-ai/DualPipe README, "Pipeline
///   Bubbles and Memory Usage Comparison", commit 3da1bbe), a chunk being one stage of
///   `L/p` layers; the rank holds two stages, so `(p + 1)/2` micro-batches of its layers when
///   its two stages are alike. The memory rows weigh each stage by its own count
///   ([`InFlight::dualpipe_counts`]: `p − r` for stage `r`, `r + 1` for stage `p − 1 − r`);
///   this is their mean;
/// - DualPipeV: `PP + 1` with `PP = 2p` chunks of `L/(2p)` layers: `(2p + 1)/2` micro-batches
///   of the rank's `L/p` layers.
#[inline]
pub fn in_flight_micro_batches(s: &Scenario, stage: u64) -> f64 {
    InFlight::of(s).at(stage)
}

/// [`in_flight_micro_batches`] for every stage of one scenario: the pipeline's degrees, the
/// micro-batches and the schedule read once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InFlight {
    p: u64,
    v: u64,
    m: u64,
    schedule: Schedule,
}

impl InFlight {
    /// The pipeline of `s`.
    #[inline]
    pub fn of(s: &Scenario) -> InFlight {
        InFlight::with(s, &PerGpu::of(s))
    }

    /// [`InFlight::of`] with the per-GPU facts `g` (its micro-batches) resolved: those of one
    /// pipeline round ([`PerGpu::round_micro_batches`]), which the schedule fills and drains.
    #[inline]
    pub fn with(s: &Scenario, g: &PerGpu) -> InFlight {
        InFlight {
            p: s.parallel.pp.max(1),
            v: s.parallel.vp.max(1),
            m: g.round_micro_batches(),
            schedule: s.parallel.schedule(),
        }
    }

    /// [`InFlight::at`] for the consecutive ranks `ranks`, in order: an affine count per rank,
    /// `min(a − step·k, cap) / div` for the `k`-th of them, in exact float arithmetic (every
    /// count is a whole number far below 2⁵³), so a run of ranks reads no schedule per rank.
    #[inline]
    pub fn over(&self, ranks: std::ops::Range<u64>) -> impl Iterator<Item = (u64, f64)> {
        let (p, v, m) = (self.p, self.v, self.m);
        let first = ranks.start.min(p - 1);
        // (a, step, cap, div) of rank `first`.
        let (a, step, cap, div) = if p == 1 {
            (1.0, 0.0, f64::INFINITY, 1.0)
        } else {
            match self.schedule {
                Schedule::Gpipe => (m as f64, 0.0, f64::INFINITY, 1.0),
                Schedule::Interleaved if v > 1 => {
                    let chunks = (p - first - 1)
                        .saturating_mul(2)
                        .saturating_add((v - 1).saturating_mul(p))
                        .saturating_add(1);
                    (chunks as f64, 2.0, m.saturating_mul(v) as f64, v as f64)
                }
                Schedule::ZbV => (p.min(m) as f64, 0.0, f64::INFINITY, 1.0),
                Schedule::DualPipe => (p as f64 + 1.0, 0.0, f64::INFINITY, 2.0),
                Schedule::DualPipeV => (2.0 * p as f64 + 1.0, 0.0, f64::INFINITY, 2.0),
                // Through `i64`: one conversion instruction each, where `u64` needs a branch
                // (the counts of a validated scenario are far below 2⁶³).
                _ => ((p - first) as i64 as f64, 1.0, m as i64 as f64, 1.0),
            }
        };
        let mut next = a;
        ranks.map(move |r| {
            let n = min_num(next, cap) / div;
            next -= step;
            (r, n)
        })
    }

    /// Whether the output layer (and the loss) holds one micro-batch at a time on the rank that
    /// owns it, whatever that rank's in-flight count: where the last chunk shares its rank with
    /// earlier chunks, its backward follows its forward at once, as on 1F1B's last stage.
    /// - DualPipe's two directions, and the V of zb-v and dualpipev (rank 0 ends the V);
    /// - interleaved 1F1B with `v > 1`: the last rank's warm-up, `(v − 1)·G` chunk-forwards
    ///   (`G` micro-batches per group), runs only its earlier chunks, and each steady 1F1B step
    ///   pairs the last chunk's forward of a micro-batch with that micro-batch's backward
    ///   (Megatron-LM `schedules.py` @d98e8a64: `get_pp_rank_microbatches` warm-up
    ///   `(p − r − 1)·2 + (v − 1)·G`, `get_model_chunk_id` reverses the chunk order for backward;
    ///   PyTorch `ScheduleInterleaved1F1B._calculate_single_rank_operations`, the schedule
    ///   torchtitan @9dec370 builds: warm-up `(v − 1)·microbatches_per_round + 2·(p − 1 − r)`,
    ///   backward stage `(v − 1) − ⌊(op − warm-up)/microbatches_per_round⌋ mod v`). The rank's
    ///   other chunks keep the counts of [`InFlight::at`].
    #[inline]
    pub fn output_once(&self) -> bool {
        self.schedule.v_shape()
            || self.schedule == Schedule::DualPipe
            || (self.schedule == Schedule::Interleaved && self.v > 1 && self.p > 1)
    }

    /// DualPipe: the micro-batches rank `stage` holds at its peak for each of its two model
    /// stages, `(stage stage, stage pp − 1 − stage)`; `None` for other schedules. Model stage `s`
    /// holds `min(pp − s, m/2)`, as 1F1B's stage `s` would, whichever rank it is on:
    /// deepseek-ai/DualPipe `dualpipe.py` (@3da1bbe, `DualPipe.step`), on a rank `r` of the first
    /// half (`half_rank = r`, phase 0 = model stage `r`, phase 1 = stage `pp − 1 − r`) runs
    /// `2(pp/2 − r − 1)` forwards of phase 0 (step 1), then `r + 1` pairs of a phase-0 and a
    /// phase-1 forward (step 2), then `pp/2 − r − 1` rounds of one phase-1 backward and forward
    /// (step 3), and its main step opens with a phase-0 forward beside a phase-1 backward
    /// (step 4): `pp − r` chunks of stage `r` and `r + 1` of stage `pp − 1 − r` are alive, `pp + 1`
    /// in all (the README's "PP+1"); the second half mirrors it (`phase ^= is_in_second_half`).
    /// Rank 0 thus holds `pp` micro-batches of stage 0 (the embedding and the first layers) and
    /// one of stage `pp − 1` (the last layers, the MTP modules, the head); each direction runs
    /// `m/2` micro-batches.
    #[inline]
    pub fn dualpipe_counts(&self, stage: u64) -> Option<(f64, f64)> {
        if self.schedule != Schedule::DualPipe {
            return None;
        }
        let half = (self.m / 2).max(1);
        let r = stage.min(self.p - 1);
        Some(((self.p - r).min(half) as f64, (r + 1).min(half) as f64))
    }

    /// These counts under DualPipe, whose ranks each hold two stages with counts of their own
    /// ([`InFlight::dualpipe_counts`]); `None` for other schedules.
    #[inline]
    pub fn under_dualpipe(self) -> Option<InFlight> {
        (self.schedule == Schedule::DualPipe).then_some(self)
    }

    /// Micro-batches whose activations stage `stage` holds at its peak.
    #[inline]
    pub fn at(&self, stage: u64) -> f64 {
        let r = stage.min(self.p - 1);
        self.over(r..r + 1).next().map_or(1.0, |(_, n)| n)
    }
}

#[cfg(test)]
mod swiglu_fp8_tests {
    use super::*;

    /// [`super::super::experts::tests::deepseek_v3_tp2`] with the SwiGLU input in FP8 or not.
    fn deepseek(fp8_input: bool) -> Scenario {
        let mut s = super::super::experts::tests::deepseek_v3_tp2();
        s.training.swiglu_fp8_input = Some(fp8_input);
        s
    }

    #[test]
    fn fp8_swiglu_input_saves_one_byte_per_gate_and_up_element() {
        let (on, off) = (deepseek(true), deepseek(false));
        let d = Shape::of(&on.model);
        // MoE layer: gate + up of 4 rows × 2048 and of the shared expert's 2048/2 per token:
        // 2·(4·2048 + 1024) = 18432 elements, 1 B saved each; × 4096 tokens.
        let moe = layer_activations_full_of(&off, &PerGpu::of(&off), &d).sharded
            - layer_activations_full_of(&on, &PerGpu::of(&on), &d).sharded;
        assert_eq!(moe, 4096.0 * 18432.0);
        // Dense layer: 2·18432/2 = 18432 elements per token.
        let dense = d.dense_layer();
        let saved = layer_activations_full_of(&off, &PerGpu::of(&off), &dense).sharded
            - layer_activations_full_of(&on, &PerGpu::of(&on), &dense).sharded;
        assert_eq!(saved, 4096.0 * 18432.0);
        // Recomputing the whole MLP discards the input either way: no double count.
        for (modules, shape) in [
            (RecomputeModules::MOE, d),
            (RecomputeModules::MLP, dense),
            (RecomputeModules::SHARED_EXPERTS, d),
        ] {
            let stored = |s: &Scenario| {
                let mut s = s.clone();
                s.training.recompute = Recompute::Selective;
                s.training.recompute_modules = Some(modules);
                layer_activations_of(&s, &shape).sharded
            };
            let gap = stored(&off) - stored(&on);
            // With shared_experts recomputed only the routed rows' 2·4·2048 remain saved.
            let want = if modules == RecomputeModules::SHARED_EXPERTS {
                4096.0 * 16384.0
            } else {
                0.0
            };
            assert!((gap - want).abs() < 1e-3, "{modules:?}: {gap}");
        }
    }
}

#[cfg(test)]
mod compiled_loss_tests {
    use super::*;

    /// Llama 3.1 8B, FSDP over 32 GPUs, local batch 2 × 8192, torchtitan: the held-out
    /// `torchtitan-2506-h200-llama31_8b-fp8-32gpu` run (tests/data/extra.json), with the loss
    /// kernel `kernel`.
    fn llama8b(kernel: LossKernel) -> Scenario {
        let mut s = crate::scenario::parse(
            r#"{
          "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
                    "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192},
          "training": {"global_batch": 64, "micro_batch": 2, "precision": "fp8",
                       "fp8_recipe": "tensorwise", "recompute": "selective",
                       "flash_attention": true, "framework": "torchtitan"},
          "parallel": {"tp": 1, "pp": 1, "dp": 32, "zero_stage": 3},
          "cluster": {"gpu": "h200-sxm-141gb", "num_gpus": 32}
        }"#,
        )
        .unwrap();
        s.training.loss_kernel = Some(kernel);
        s
    }

    #[test]
    fn a_chunked_loss_holds_one_chunk_of_the_logits() {
        // torchtitan's ChunkedLossWrapper (8 chunks): the loss's kept bytes, its transient and
        // the caching allocator's logits block are one chunk's, 1/8 of the whole; the rest of
        // the output layer's activations (final-norm and output-GEMM inputs) is unchanged.
        for kernel in [
            LossKernel::Unfused,
            LossKernel::Fused,
            LossKernel::Unfused16,
        ] {
            let whole = llama8b(kernel);
            let mut chunked = llama8b(kernel);
            chunked.training.loss_chunks = Some(8);
            let (gw, gc) = (PerGpu::of(&whole), PerGpu::of(&chunked));
            let t = logits_transient_bytes_per_gpu(&whole, &gw);
            assert!(t > 0.0);
            assert_eq!(logits_transient_bytes_per_gpu(&chunked, &gc), t / 8.0);
            assert_eq!(
                logits_block_bytes_per_gpu(&chunked, &gc),
                logits_block_bytes_per_gpu(&whole, &gw) / 8.0
            );
            let h = 2.0 * gw.tokens * gw.element_bytes * whole.model.hidden as f64;
            let (ow, oc) = (
                output_bytes_per_gpu(&whole, &gw),
                output_bytes_per_gpu(&chunked, &gc),
            );
            assert!(((oc - h) - (ow - h) / 8.0).abs() < 1e-6 * ow, "{kernel:?}");
        }
    }

    #[test]
    fn torchtitan_compiled_loss_keeps_the_bf16_logits_not_three_fp32_copies() {
        // 2 × 8192 = 16,384 tokens × 128,256 = 2,101,346,304 logits. Both keep the final-norm
        // input and the output GEMM's input, 2·2·4096 = 16,384 B per token.
        let logits = 16_384.0 * 128_256.0;
        let eager = llama8b(LossKernel::Unfused);
        // Eager cross_entropy on the fp32 upcast: the fp32 log-softmax, 4 B per logit, and at
        // its backward two fp32 gradients, 8 B.
        assert_eq!(output_bytes(&eager), 16_384.0 * 16_384.0 + 4.0 * logits);
        assert_eq!(logits_transient_bytes(&eager), 8.0 * logits);
        // Compiled (Inductor): the bf16 logits, 2 B, and a per-token fp32 log-sum-exp; one
        // bf16 gradient at the backward.
        let compiled = llama8b(LossKernel::Fused);
        assert_eq!(
            output_bytes(&compiled),
            16_384.0 * (16_384.0 + 4.0) + 2.0 * logits
        );
        assert_eq!(logits_transient_bytes(&compiled), 2.0 * logits);
        // Peak difference (4 + 8 − 2 − 2) B per logit less the 4 B per token:
        // 8 · 2,101,346,304 − 65,536 = 16,810,704,896 B (15.66 GiB).
        let gap = output_bytes(&eager) + logits_transient_bytes(&eager)
            - output_bytes(&compiled)
            - logits_transient_bytes(&compiled);
        assert_eq!(gap, 16_810_704_896.0);
        // cross_entropy on the bf16 logits, no upcast (Automodel's fp32_upcast: false): the
        // bf16 log-softmax, 2 B per logit, and two bf16 gradients, 4 B.
        let bf16 = llama8b(LossKernel::Unfused16);
        assert_eq!(output_bytes(&bf16), 16_384.0 * 16_384.0 + 2.0 * logits);
        assert_eq!(logits_transient_bytes(&bf16), 4.0 * logits);
    }

    #[test]
    fn the_unfused_loss_leaves_the_bf16_logits_block_reserved() {
        let block = |s: &Scenario| logits_block_bytes_per_gpu(s, &PerGpu::of(s));
        // The bf16 logits, 2 B × 2,101,346,304 = 4,202,692,608 B (3.91 GiB): its fp32 upcast's
        // block serves one of the backward's two 8.4 GB requests, not the logits' own.
        let mut s = llama8b(LossKernel::Unfused);
        assert_eq!(block(&s), 4_202_692_608.0);
        // Loss parallel (TP 8 with SP): the local logits, V/8 columns.
        (s.parallel.tp, s.parallel.dp, s.parallel.sp) = (8, 4, true);
        assert_eq!(block(&s), 4_202_692_608.0 / 8.0);
        // No hole where the logits are not upcast, the loss is another kernel, under
        // pipelining (not priced) or without PyTorch's caching allocator.
        let fp32 = {
            let mut s = llama8b(LossKernel::Unfused);
            s.training.precision = Precision::Fp32;
            s.training.fp8_recipe = None;
            s
        };
        assert_eq!(block(&fp32), 0.0);
        for kernel in [LossKernel::Fused, LossKernel::Unfused16] {
            assert_eq!(block(&llama8b(kernel)), 0.0);
        }
        let mut pp = llama8b(LossKernel::Unfused);
        (pp.parallel.pp, pp.parallel.dp) = (2, 16);
        assert_eq!(block(&pp), 0.0);
        let mut jax = llama8b(LossKernel::Unfused);
        jax.training.framework = Some(crate::scenario::Framework::Jax);
        assert_eq!(block(&jax), 0.0);
    }
}

#[cfg(test)]
mod dropout_tests {
    use super::*;

    /// GPT-3 175B (96 layers, h 12288, 96 heads, f 4h, GELU, s 2048), micro-batch 1, TP 8
    /// without SP, 16-bit, no flash attention, no recomputation, Megatron-LM: Korthikanti
    /// Table 2's setting, with `training.dropout` set to `dropout`.
    fn gpt3(dropout: Option<bool>) -> Scenario {
        let mut s = crate::scenario::parse(
            r#"{
          "model": {"layers": 96, "hidden": 12288, "heads": 96, "ffn_hidden": 49152,
                    "ffn_act": "gelu", "vocab": 51200, "seq_len": 2048},
          "training": {"global_batch": 8, "micro_batch": 1, "precision": "bf16",
                       "recompute": "none", "flash_attention": false, "framework": "megatron"},
          "parallel": {"tp": 8, "pp": 8, "dp": 1},
          "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 64}
        }"#,
        )
        .unwrap();
        s.training.dropout = dropout;
        s
    }

    #[test]
    fn dropout_masks_follow_korthikanti_table_2_and_vanish_at_p_0() {
        let sbh = 2048.0 * 12288.0;
        // With dropout (Megatron-LM's default for a GELU model): sbh·(10 + 24/t + 5as/(ht))
        // = sbh·(10 + 3 + 10) = 23·sbh.
        assert!(dropout(&gpt3(None)));
        assert_eq!(layer_activations_full(&gpt3(None)).total(), 23.0 * sbh);
        assert_eq!(
            layer_activations_full(&gpt3(Some(true))).total(),
            23.0 * sbh
        );
        // Without: no 2·sbh of masks, and of the 5as/(ht) score terms only the 16-bit softmax
        // output 2as/(ht) = 4: sbh·(8 + 3 + 4) = 15·sbh.
        assert_eq!(
            layer_activations_full(&gpt3(Some(false))).total(),
            15.0 * sbh
        );
        // Stage 0's embedding: 8 B of token ids per token, plus the 1-byte mask per element.
        assert_eq!(embedding_bytes(&gpt3(None)), 2048.0 * (8.0 + 12288.0));
        assert_eq!(embedding_bytes(&gpt3(Some(false))), 2048.0 * 8.0);
    }

    #[test]
    fn autocast_keeps_the_fp32_softmax_and_the_16_bit_copy_of_the_probabilities() {
        use crate::scenario::Framework;
        // Korthikanti's setting (GPT-3, t 8, no SP): 10·sbh replicated, 24/t·sbh sharded,
        // scores 5as/(ht)·sbh = 10·sbh with dropout, 4·sbh without.
        let sbh = 2048.0 * 12288.0;
        let mut s = gpt3(None);
        s.training.framework = Some(Framework::Pytorch);
        // Under autocast: fp32 softmax output 4, mask 1, 16-bit probabilities 2 per score,
        // 7as/(ht) = 14·sbh: sbh·(10 + 3 + 14) = 27·sbh.
        assert_eq!(layer_activations_full(&s).scores, 14.0 * sbh);
        assert_eq!(layer_activations_full(&s).total(), 27.0 * sbh);
        // Without dropout 6 per score (12·sbh) and no masks: sbh·(8 + 3 + 12) = 23·sbh.
        s.training.dropout = Some(false);
        assert_eq!(layer_activations_full(&s).total(), 23.0 * sbh);
        // fp32 training has no autocast: the softmax output, mask and dropout output at
        // 4 + 1 + 4 per score, Korthikanti's (2e + 1).
        s.training.dropout = None;
        s.training.precision = crate::scenario::Precision::Fp32;
        assert_eq!(
            layer_activations_full(&s).scores,
            2048.0 * 9.0 * 96.0 * 2048.0 / 8.0
        );
        // Flash attention keeps no scores under any stack.
        s.training.precision = crate::scenario::Precision::Bf16;
        s.training.flash_attention = true;
        assert_eq!(layer_activations_full(&s).scores, 2048.0 * 4.0 * 96.0 / 8.0);
    }

    #[test]
    fn dropout_default_is_the_recipe_and_stack() {
        use crate::scenario::Framework;
        let mut s = gpt3(None);
        for (fw, want) in [
            (Framework::Megatron, true),
            (Framework::Deepspeed, true),
            (Framework::Pytorch, true),
            (Framework::Torchtitan, false),
            (Framework::Jax, false),
        ] {
            s.training.framework = Some(fw);
            assert_eq!(dropout(&s), want, "{fw:?}");
        }
        // A gated-MLP model trains without dropout in every stack; an explicit value wins.
        s.model.ffn_act = FfnAct::Swiglu;
        s.training.framework = Some(Framework::Megatron);
        assert!(!dropout(&s));
        s.training.dropout = Some(true);
        assert!(dropout(&s));
    }
}

#[cfg(test)]
mod remat_saved_tests {
    use super::*;

    /// Llama 2 70B under MaxText (JAX), FSDP over 64 H100s, micro-batch 2 × 4096, bf16, flash
    /// attention: the `dgxc-2411-maxtext-*` runs, with `training.remat_saved` = `saved`.
    fn llama70b(saved: Option<u8>) -> Scenario {
        let mut s = crate::scenario::parse(
            r#"{
          "model": {"layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672,
                    "ffn_act": "swiglu", "vocab": 32000, "seq_len": 4096},
          "training": {"global_batch": 128, "micro_batch": 2, "precision": "bf16",
                       "recompute": "selective", "flash_attention": true, "framework": "jax"},
          "parallel": {"tp": 1, "pp": 1, "dp": 64, "zero_stage": 3},
          "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 64}
        }"#,
        )
        .unwrap();
        s.training.remat_saved = saved.map(RematSaved::from_bits);
        s
    }

    #[test]
    fn maxtext_custom_policy_keeps_the_named_tensors_only() {
        let tok = 8192.0;
        // qkv_proj, out_proj, mlpwo (the bf16 runs): per token the input 8192, Q 8192, K and V
        // 1024 each, the out-projection output 8192 and the MLP output 8192, 2 B each:
        // 2·(8192·4 + 2048) = 69,632 B.
        let bf16 = llama70b(Some(0b1_0011));
        assert_eq!(layer_activations(&bf16).total(), tok * 69_632.0);
        // Without mlpwo (the FP8 runs): 2·(8192·3 + 2048) = 53,248 B.
        let fp8 = llama70b(Some(0b0_0011));
        assert_eq!(layer_activations(&fp8).total(), tok * 53_248.0);
        // torchtitan's per-op policy on the same layer keeps Q, V, the gate and FC2's output
        // and the attention output with its log-sum-exp: 2·(8192·4 + 1024 + 28672) + 4·64.
        let per_op = llama70b(None);
        assert_eq!(
            layer_activations(&per_op).total(),
            tok * (2.0 * (8192.0 * 4.0 + 1024.0 + 28672.0) + 256.0)
        );
        // What is not kept is rerun: Q, K, V and the out projection are saved, the MLP's
        // output projection is dead code in the rerun, so only gate and up rerun (and the
        // attention kernel's forward, `context` not saved).
        let d = Shape::of(&bf16.model);
        let p = SavePolicy::of(&bf16);
        let reruns: Vec<bool> = (0..7).map(|i| p.reruns_gemm(&d, i)).collect();
        assert_eq!(reruns, [false, false, false, false, true, true, false]);
        assert!(!p.saves_attention_output());
        // Saving context keeps the kernel's output and statistics: + 2·8192 + 4·64 B.
        let ctx = llama70b(Some(0b1_0111));
        assert_eq!(
            layer_activations(&ctx).total(),
            tok * (69_632.0 + 2.0 * 8192.0 + 256.0)
        );
    }
}
