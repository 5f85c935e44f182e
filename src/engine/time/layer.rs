//! Step 1 of the time model: the cost of one transformer layer for one micro-batch on one GPU.
//!
//! Compute (weight GEMMs, the attention core, memory-bound element-wise work), the collectives
//! of the parallel dimensions that act inside a layer (TP/SP, CP, EP) with their exposed parts,
//! and the forward work recomputation repeats. Everything a stage needs is `layers ×` these
//! numbers ([`super::stage`]). New per-layer terms (e.g. MoE routing) extend [`LayerCosts`].

use super::async_tp::BlockGemms;
use super::attention;
use super::compute::Device;
use super::inputs::Inputs;
use super::layer_comm::{CpCosts, TpCosts};
use super::moe::MoeCosts;
use crate::engine::memory::activations::SavePolicy;
use crate::engine::shape::{LayerGemm, Shape};
use crate::scenario::{Recompute, RecomputeModules};

/// Element-wise bytes per token per layer in the forward pass, in units of one activation
/// element per hidden unit: two norms (read + write, 2 each), two fused bias-dropout-residual
/// adds (read input and residual, write output, ≈ 3 each). Counted from Megatron-LM's layer
/// (`transformer_layer.py`: input_layernorm, self_attention, bias_dropout_add,
/// pre_mlp_layernorm, mlp, bias_dropout_add). Backward moves about twice as much.
pub const ELEMENTWISE_PER_H: f64 = 10.0;
/// Element-wise kernels per layer forward (norms, residual adds, activation, rotary, casts).
pub const ELEMENTWISE_KERNELS: f64 = 8.0;

/// Per-micro-batch costs of one layer on one GPU, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerCosts {
    /// Forward weight GEMMs.
    pub gemm_fwd: f64,
    /// Forward column-parallel GEMMs (QKV, FC1): their weight-gradient GEMMs hide the backward
    /// input-gradient reduction.
    pub gemm_col_fwd: f64,
    /// Attention core forward.
    pub attn_fwd: f64,
    /// Attention core backward.
    pub attn_bwd: f64,
    /// Element-wise work forward.
    pub ew_fwd: f64,
    /// Element-wise work backward.
    pub ew_bwd: f64,
    /// Forward compute: GEMMs + attention + element-wise.
    pub fwd: f64,
    /// Backward compute (twice the GEMMs).
    pub bwd: f64,
    /// Recomputed forward work inside backward.
    pub rc: f64,
    /// Tensor/sequence-parallel collectives.
    pub tp: TpCosts,
    /// Context-parallel K/V ring.
    pub cp: CpCosts,
    /// Expert-parallel all-to-all (exposed; nothing overlaps it).
    pub ep: f64,
    /// Part of `fwd + bwd`: an MoE layer's token bookkeeping, the memory-bound work around its
    /// GEMMs (router kernels, permutation, sorting by local expert, combine), forward and
    /// backward ([`MoeCosts`]); 0 for a dense layer.
    pub moe_tokens: f64,
}

/// The attention half of a layer, the same in a dense-MLP and an MoE layer (only the MLP
/// differs, [`crate::engine::shape::Shape::dense_layer`]), so both kinds share one computation
/// ([`super::stage::LayerKinds`]): its projection GEMMs, its core and its context-parallel ring.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct AttentionCosts {
    /// Forward projection GEMMs (QKV and output, or MLA's).
    gemm_fwd: f64,
    /// Their column-parallel part.
    gemm_col_fwd: f64,
    /// Core forward (the kernels, and PyTorch's ring-attention merges).
    core_fwd: f64,
    /// Core backward.
    core_bwd: f64,
    /// Context-parallel K/V ring.
    cp: CpCosts,
    /// The projection GEMMs per-op selective recomputation repeats (0 unless the stack
    /// checkpoints per operator, [`crate::scenario::Scenario::recompute_modules`]).
    sac_gemms: f64,
    /// What Megatron-LM's recompute modules rerun of the attention half (core, MLA up
    /// projections, norms; [`attention_modules_rc_s`]); 0 without them.
    modules_rc: f64,
}

impl AttentionCosts {
    /// The attention half of a layer of shape `d` (of the model `x` reads).
    pub(crate) fn of(x: &Inputs, d: &Shape) -> AttentionCosts {
        let (dev, tok, tf) = (&x.dev, x.tok, x.tf);
        let policy = SavePolicy::of(x.s);
        let (gemm_fwd, gemm_col_fwd, priced_sac) =
            attention_gemms_s(dev, d, tok, tf, per_module(x), policy);
        let (kernel_fwd, kernel_bwd) = attention::core_s(x);
        // PyTorch's ring attention merges its steps' outputs and gradients outside the kernels.
        let (ring_fwd, ring_bwd) = super::ring::merge_s(x);
        let (core_fwd, core_bwd) = (kernel_fwd + ring_fwd, kernel_bwd + ring_bwd);
        let selective = x.s.training.recompute == Recompute::Selective;
        let (sac_gemms, modules_rc) = match x.s.recompute_modules() {
            Some(m) => (0.0, attention_modules_rc_s(x, d, m, core_fwd)),
            None if selective => (
                priced_sac.unwrap_or_else(|| {
                    op_sac_gemms_s(dev, d, tok, tf, x.e as f64, Half::Attention, policy)
                }) + if policy.saves_attention_output() {
                    0.0
                } else {
                    // MaxText's `context: remat`: the kernel's forward reruns.
                    core_fwd
                },
                0.0,
            ),
            None => (0.0, 0.0),
        };
        AttentionCosts {
            gemm_fwd,
            gemm_col_fwd,
            core_fwd,
            core_bwd,
            cp: CpCosts::of(x, kernel_fwd, kernel_bwd),
            sac_gemms,
            modules_rc,
        }
    }
}

impl LayerCosts {
    /// The costs of the model's layer in `x` (its MoE layer for an MoE model).
    #[cfg(test)]
    pub(crate) fn of(x: &Inputs) -> LayerCosts {
        LayerCosts::with_attention(x, x.d, &AttentionCosts::of(x, x.d))
    }

    /// The costs of a layer of shape `d`, the model's MoE layer or its dense layer
    /// ([`Shape::dense_layer`]), whose attention half is `attn` ([`AttentionCosts::of`]). An
    /// MoE layer's MLP is priced by [`MoeCosts`].
    pub(crate) fn with_attention(x: &Inputs, d: &Shape, attn: &AttentionCosts) -> LayerCosts {
        let (dev, tok, tf) = (&x.dev, x.tok, x.tf);
        let moe = MoeCosts::of(x, d);
        let (gemm_fwd, gemm_col_fwd) =
            layer_gemms_s(dev, d, tok, tf, attn, moe.gemm_fwd, per_module(x));
        let (attn_fwd, attn_bwd) = (attn.core_fwd, attn.core_bwd);
        let (ew_fwd, ew_bwd) = elementwise_s(x, d);
        let (moe_tokens_fwd, moe_tokens_bwd) = moe.tokens();
        let fwd = gemm_fwd + attn_fwd + ew_fwd + moe_tokens_fwd;
        let bwd = 2.0 * gemm_fwd + attn_bwd + ew_bwd + moe_tokens_bwd;
        // TP collectives: attention's and the MLP's; an MoE layer's MLP has them only for its
        // shared experts (a tensor-parallel MLP), its routed experts' go through the dispatcher
        // (`MoeCosts`). Their own GEMMs hide them, not the routed experts' (0 for a dense layer).
        let blocks = if d.is_moe() && d.f_shared <= 0.0 {
            1.0
        } else {
            2.0
        };
        let routed = moe.gemm_fwd - moe.shared_fwd;
        let skipped = early_stop_skipped_s(x, d);
        let stops_early = skipped > 0.0;
        let (tp_gemm, tp_col) = (gemm_fwd - routed, gemm_col_fwd - 0.5 * routed);
        // Each block's own GEMMs, which only torch's async TP reads: priced only where it runs.
        let per_block = if super::async_tp::applies(x) {
            async_tp_blocks(x, d, attn, tp_gemm, tp_col)
        } else {
            [BlockGemms::default(); 2]
        };
        let tp = TpCosts::of(x, blocks, tp_gemm, tp_col, per_block, stops_early);
        let cp = attn.cp;
        let ep = ep_passes(x.s) * moe.comm_pass;
        let rc = match x.s.training.recompute {
            Recompute::None => 0.0,
            Recompute::Selective => match x.s.recompute_modules() {
                // Megatron-LM's modules: the attention half's and the MLP's.
                Some(m) => attn.modules_rc + mlp_modules_rc_s(x, d, m, &moe),
                // Per-op selective checkpointing (memory::activations): every other weight GEMM
                // and the element-wise ops are recomputed, the attention kernel's output and the
                // reduce-scatter outputs are saved (no collective is repeated).
                None => {
                    let policy = SavePolicy::of(x.s);
                    attn.sac_gemms
                        + op_sac_gemms_s(dev, d, tok, tf, x.e as f64, Half::Mlp, policy)
                        + ew_fwd
                }
            },
            Recompute::Full => fwd - skipped,
        };
        LayerCosts {
            gemm_fwd,
            gemm_col_fwd,
            attn_fwd,
            attn_bwd,
            ew_fwd,
            ew_bwd,
            fwd,
            bwd,
            rc,
            tp,
            cp,
            ep,
            moe_tokens: moe_tokens_fwd + moe_tokens_bwd,
        }
    }
}

/// Passes of an MoE layer's dispatch and combine per micro-batch: forward and backward, and a
/// third when recomputation reruns the MoE block (full recomputation, or the `moe` module).
pub(crate) fn ep_passes(s: &crate::scenario::Scenario) -> f64 {
    let reruns_moe = s.training.recompute == Recompute::Full
        || s.recompute_modules()
            .is_some_and(|m| m.has(RecomputeModules::MOE));
    if reruns_moe {
        3.0
    } else {
        2.0
    }
}

/// The forward work Megatron-LM's recompute modules `m` rerun in the attention half of a layer
/// of shape `d` ([`RecomputeModules`] says what each discards), seconds: `core_attn` the core's
/// forward `core_fwd`; `mla_up_proj` MLA's two up-projection GEMMs (queries from their latent,
/// or from the hidden state without query compression, and the non-rotary keys with the values
/// from theirs; column-parallel); `layernorm` the two norms (read and write `h` each, ÷t with
/// SP).
fn attention_modules_rc_s(x: &Inputs, d: &Shape, m: RecomputeModules, core_fwd: f64) -> f64 {
    let (dev, tok, tf) = (&x.dev, x.tok, x.tf);
    let mut rc = 0.0;
    if m.has(RecomputeModules::CORE_ATTN) {
        rc += core_fwd;
    }
    if m.has(RecomputeModules::MLA_UP_PROJ) && d.is_mla() {
        let (q, kv) = d.mla_up_gemms();
        rc += dev.gemm_s(tok, q.k, q.n / tf) + dev.gemm_s(tok, kv.k, kv.n / tf);
    }
    if m.has(RecomputeModules::LAYERNORM) {
        rc += dev.memory_s(x.ab * tok * 4.0 * sp_width(x, d), 2.0);
    }
    rc
}

/// The forward work the MLP-half modules rerun, seconds: `moe_act` the routed experts'
/// activation (read the `c_ffn − 1` FC1 outputs, write the product, on the busiest rank's rows;
/// MoE layers), `shared_experts` the shared experts' GEMMs ([`MoeCosts::shared_fwd`]; MoE
/// layers), `mlp` a dense layer's FC1 and FC2 and its activation, `moe` an MoE layer's whole
/// MLP forward ([`MoeCosts::fwd`], which covers the other two; the dispatch and combine it
/// repeats are counted as a third pass of the layer's all-to-alls).
fn mlp_modules_rc_s(x: &Inputs, d: &Shape, m: RecomputeModules, moe: &MoeCosts) -> f64 {
    let (dev, tok, tf) = (&x.dev, x.tok, x.tf);
    let mut rc = 0.0;
    if d.is_moe() && m.has(RecomputeModules::MOE) {
        // The whole block's forward; its all-to-alls are priced with the layer's passes.
        rc += moe.fwd;
    } else if d.is_moe() {
        if m.has(RecomputeModules::MOE_ACT) {
            let f_local = d.f_active * d.imbalance / tf;
            rc += dev.memory_s(x.ab * tok * d.c_ffn * f_local, 1.0);
        }
        if m.has(RecomputeModules::SHARED_EXPERTS) {
            rc += moe.shared_fwd;
        }
    } else if m.has(RecomputeModules::MLP) {
        let f = d.f_dense / tf;
        rc += dev.gemm_s(tok, d.h, (d.c_ffn - 1.0) * f)
            + dev.gemm_s(tok, f, d.h)
            + dev.memory_s(x.ab * tok * d.c_ffn * f, 1.0);
    }
    rc
}

/// The hidden width one GPU's element-wise work spans: `h/t` with sequence parallelism, else `h`.
fn sp_width(x: &Inputs, d: &Shape) -> f64 {
    if x.s.parallel.sp && x.t > 1 {
        d.h / x.tf
    } else {
        d.h
    }
}

/// Element-wise work of one layer of shape `d` forward and backward (norms, residuals,
/// activation, rotary), seconds: fused kernels, or torchtitan's eager block operator by operator
/// ([`super::eager_block`], [`super::stack::Stack::unfused_elementwise`]). FP8 quantization is
/// priced inside the recipe's GEMM speedup ([`super::fp8`]).
fn elementwise_s(x: &Inputs, d: &Shape) -> (f64, f64) {
    let (tok, tf, ab) = (x.tok, x.tf, x.ab);
    let h_sp = sp_width(x, d);
    if x.stack.unfused_elementwise {
        return super::eager_block::elementwise_s(x, d, h_sp);
    }
    if x.stack.hf_eager_layer {
        return super::hf_eager_layer::elementwise_s(x, d, h_sp);
    }
    // MoE: the busiest rank's routed rows and the shared experts.
    let f_local = d.f_busiest(tf);
    let ew_fwd_bytes =
        ab * tok * (ELEMENTWISE_PER_H * h_sp + d.c_ffn * f_local + 2.0 * (d.q + d.kv) / tf);
    let (fwd, bwd) = (
        x.dev.memory_s(ew_fwd_bytes, ELEMENTWISE_KERNELS),
        x.dev
            .memory_s(2.0 * ew_fwd_bytes, 2.0 * ELEMENTWISE_KERNELS),
    );
    if !x.stack.flash_unpad {
        return (fwd, bwd);
    }
    let (uf, ub) = super::unpad::bytes_per_token(ab, d.q / tf, d.kv / tf);
    (
        fwd + x.dev.memory_s(tok * uf, super::unpad::FWD_KERNELS),
        bwd + x.dev.memory_s(tok * ub, super::unpad::BWD_KERNELS),
    )
}

/// The forward work a full recomputation of a layer of shape `d` leaves out when it stops
/// early ([`crate::scenario::Scenario::recompute_early_stop`]), seconds: a dense layer's MLP
/// output GEMM (FC2), whose input is the last tensor the layer saves for its backward, so the
/// recomputation stops while saving it, before the GEMM runs. An MoE layer ends in the
/// router-weighted combine of the experts' outputs, which saves those outputs: nothing is
/// skipped there. 0 unless the stack stops early.
fn early_stop_skipped_s(x: &Inputs, d: &Shape) -> f64 {
    if !x.stack.recompute_early_stop || d.is_moe() {
        return 0.0;
    }
    x.dev.gemm_s(x.tok, d.f_dense / x.tf, d.h)
}

/// Forward GEMM time of one layer for one micro-batch of `tok` tokens on one TP rank, and the
/// part in column-parallel GEMMs (the attention input projections, FC1), whose weight-gradient
/// GEMMs hide the backward input-gradient reduction: the attention projections `attn`
/// ([`attention_gemms_s`]), then a dense MLP's FC1 (gate and up fused) and FC2, or an MoE
/// layer's MLP GEMMs `moe_gemm_fwd` ([`MoeCosts::gemm_fwd`]).
fn layer_gemms_s(
    dev: &Device,
    d: &Shape,
    tok: f64,
    tf: f64,
    attn: &AttentionCosts,
    moe_gemm_fwd: f64,
    per_module: bool,
) -> (f64, f64) {
    let (all, col) = (attn.gemm_fwd, attn.gemm_col_fwd);
    if d.is_moe() {
        // The router and grouped GEMMs; count FC1's share as column-parallel.
        return (all + moe_gemm_fwd, col + 0.5 * moe_gemm_fwd);
    }
    let fc1 = if per_module {
        (d.c_ffn - 1.0) * dev.gemm_s(tok, d.h, d.f_dense / tf)
    } else {
        dev.gemm_s(tok, d.h, (d.c_ffn - 1.0) * d.f_dense / tf)
    };
    let fc2 = dev.gemm_s(tok, d.f_dense / tf, d.h);
    (all + fc1 + fc2, col + fc1)
}

/// The attention projections' forward GEMM time for one micro-batch of `tok` tokens on one TP
/// rank, its column-parallel part, and the part per-op selective recomputation repeats when
/// the same GEMMs were priced one by one: the fused QKV GEMM and the output projection (no
/// such part: op SAC's GEMMs are the separate Q, K and V, [`op_sac_gemms_s`]), or MLA's
/// projections from [`Shape::layer_gemms`] (column-parallel split their output by `t`,
/// row-parallel their input), whose unsaved ones ([`op_sac_gemms_s`]'s attention half, same
/// GEMMs in the same order) are summed on the way rather than priced again.
fn attention_gemms_s(
    dev: &Device,
    d: &Shape,
    tok: f64,
    tf: f64,
    per_module: bool,
    policy: SavePolicy,
) -> (f64, f64, Option<f64>) {
    if !d.is_mla() {
        // Q, K and V as one fused GEMM (Megatron's `linear_qkv`), or as their own modules,
        // then the output projection.
        let qkv = if per_module {
            dev.gemm_s(tok, d.h, d.q / tf) + 2.0 * dev.gemm_s(tok, d.h, d.kv / tf)
        } else {
            dev.gemm_s(tok, d.h, (d.q + 2.0 * d.kv) / tf)
        };
        return (qkv + dev.gemm_s(tok, d.o / tf, d.h), qkv, None);
    }
    let (gemms, n) = d.layer_gemms();
    let (mut all, mut col, mut sac) = (0.0, 0.0, 0.0);
    for (i, g) in gemms.iter().enumerate().take(d.attention_gemms().min(n)) {
        let t = if g.row_parallel {
            dev.gemm_s(tok, g.k / tf, g.n)
        } else {
            let t = dev.gemm_s(tok, g.k, g.n / tf);
            col += t;
            t
        };
        all += t;
        if policy.reruns_gemm(d, i) {
            sac += t;
        }
    }
    (all, col, Some(sac))
}

/// Whether the layer's input projections are priced module by module (Q, K, V; the MLP's
/// FC1 and gate) rather than as one fused GEMM each: where the price of a GEMM depends on its
/// own shape beyond its FLOPs, torchao's rowwise table ([`super::rowwise`], measured per
/// `nn.Linear`), under a stack whose model keeps them apart (torchtitan's Llama: `wq`, `wk`,
/// `wv`, `w1`, `w3` are separate `nn.Linear`s, `models/llama3/model.py` @820504e). Elsewhere
/// fused and separate cost the same FLOPs, and per-tensor casts of a shared input are one cast.
fn per_module(x: &Inputs) -> bool {
    x.dev.rowwise_table && x.stack.fw.layers == crate::engine::framework::LayerLibrary::Torchao
}

/// The attention and MLP blocks' forward GEMM times for torch's async TP
/// ([`super::async_tp`]): the column-parallel GEMMs that consume each block's all-gather, the
/// row-parallel one that produces its reduce-scatter, and the column-parallel GEMMs per-op
/// selective checkpointing recomputes (what a regather fuses with).
fn async_tp_blocks(
    x: &Inputs,
    d: &Shape,
    attn: &AttentionCosts,
    tp_gemm: f64,
    tp_col: f64,
) -> [BlockGemms; 2] {
    let (attn_col, attn_row) = (attn.gemm_col_fwd, attn.gemm_fwd - attn.gemm_col_fwd);
    let mlp_col = (tp_col - attn_col).max(0.0);
    let (rc_attn, rc_mlp) =
        if x.s.training.recompute == Recompute::Selective && x.s.recompute_modules().is_none() {
            op_sac_col_gemms_s(&x.dev, d, x.tok, x.tf, SavePolicy::of(x.s))
        } else {
            (0.0, 0.0)
        };
    [
        BlockGemms {
            col: attn_col,
            row: attn_row,
            col_rc: rc_attn,
        },
        BlockGemms {
            col: mlp_col,
            row: (tp_gemm - attn.gemm_fwd - mlp_col).max(0.0),
            col_rc: rc_mlp,
        },
    ]
}

/// The column-parallel GEMMs per-op selective checkpointing recomputes, forward seconds, of the
/// attention half and of a dense MLP (0 for an MoE layer's): those
/// [`crate::engine::memory::activations::op_sac_saves_gemm`] does not save, in
/// [`Shape::layer_gemms`] order (for Llama the K projection and the MLP's second input
/// projection). What async TP fuses a regather with ([`super::async_tp`]).
fn op_sac_col_gemms_s(
    dev: &Device,
    d: &Shape,
    tok: f64,
    tf: f64,
    policy: SavePolicy,
) -> (f64, f64) {
    let (gemms, n) = d.layer_gemms();
    let a = d.attention_gemms().min(n);
    let col = |i: usize, g: &LayerGemm| {
        if g.row_parallel || !policy.reruns_gemm(d, i) {
            0.0
        } else {
            dev.gemm_s(tok, g.k, g.n / tf)
        }
    };
    let attn = gemms
        .iter()
        .enumerate()
        .take(a)
        .map(|(i, g)| col(i, g))
        .sum();
    if d.is_moe() {
        return (attn, 0.0);
    }
    let (mlp, m) = d.mlp_gemms();
    let mlp = mlp
        .iter()
        .enumerate()
        .take(m)
        .map(|(j, g)| col(a + j, g))
        .sum();
    (attn, mlp)
}

/// The GEMMs of one half of a layer ([`Shape::layer_gemms`]: the attention projections first,
/// then the MLP).
#[derive(Clone, Copy, PartialEq)]
enum Half {
    Attention,
    Mlp,
}

/// Per-op selective recomputation: the forward time of the GEMMs of `half` that the
/// checkpointing reruns ([`SavePolicy::reruns_gemm`]: torchtitan's every other GEMM, or JAX's
/// unnamed ones), in [`Shape::layer_gemms`] order. The MLP
/// half reads only the MLP's GEMMs ([`Shape::mlp_gemms`]), numbered from
/// [`Shape::attention_gemms`] on.
fn op_sac_gemms_s(
    dev: &Device,
    d: &Shape,
    tok: f64,
    tf: f64,
    ep: f64,
    half: Half,
    policy: SavePolicy,
) -> f64 {
    let n_local = if d.is_moe() {
        (d.experts / ep).max(1.0)
    } else {
        1.0
    };
    let mut t = 0.0;
    let mut add = |i: usize, g: &LayerGemm| {
        if !policy.reruns_gemm(d, i) {
            return;
        }
        let (k, nn) = if g.row_parallel {
            (g.k / tf, g.n)
        } else {
            (g.k, g.n / tf)
        };
        t += if half == Half::Mlp && d.is_moe() {
            n_local * dev.gemm_s(tok * d.k / n_local, k, nn)
        } else {
            dev.gemm_s(tok, k, nn)
        };
    };
    match half {
        Half::Attention => {
            let (gemms, n) = d.layer_gemms();
            for (i, g) in gemms.iter().enumerate().take(d.attention_gemms().min(n)) {
                add(i, g);
            }
        }
        Half::Mlp => {
            let (gemms, n) = d.mlp_gemms();
            for (j, g) in gemms.iter().enumerate().take(n) {
                add(d.attention_gemms() + j, g);
            }
        }
    }
    t
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scenario;

    /// Llama 3 8B on 8 H100s (500 W), TP 8 with SP, micro-batch 12 × 8192 tokens, under
    /// `framework` and torchao's rowwise float8 recipe.
    fn llama8b_rowwise(framework: &str) -> crate::scenario::Scenario {
        scenario::parse(&format!(
            r#"{{"model": {{"name": "m", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
                 "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192}},
              "training": {{"global_batch": 12, "micro_batch": 12, "precision": "fp8",
                 "fp8_recipe": "rowwise", "recompute": "none", "flash_attention": true,
                 "framework": "{framework}"}},
              "parallel": {{"tp": 8, "pp": 1, "dp": 1, "sp": true, "zero_stage": 1}},
              "cluster": {{"gpu": "h100-sxm5-96gb", "num_gpus": 8}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn torchao_rowwise_prices_torchtitans_projections_one_by_one() {
        // 98 304 tokens per rank. torchtitan's wq, wk, wv are separate linears with N = 4096/8
        // = 512 and 1024/8 = 128 each; w1 and w3 N = 14336/8 = 1792 each; Megatron's fused
        // QKV has N = 768 and its fused FC1 N = 3584. The rowwise table prices each at its own
        // shape, so the separate ones (further below its N = 1024 edge, or nearer it) cost more.
        let tok = 12.0 * 8192.0;
        let s = llama8b_rowwise("torchtitan");
        super::super::inputs::with_inputs(&s, |x| {
            let d = &x.dev;
            let a = AttentionCosts::of(x, x.d);
            let qkv = d.gemm_s(tok, 4096.0, 512.0) + 2.0 * d.gemm_s(tok, 4096.0, 128.0);
            assert!((a.gemm_col_fwd - qkv).abs() < 1e-15, "{}", a.gemm_col_fwd);
            let l = LayerCosts::of(x);
            let fc1 = 2.0 * d.gemm_s(tok, 4096.0, 1792.0);
            assert!((l.gemm_col_fwd - qkv - fc1).abs() < 1e-15);
            // Fused FC1 at N = 3584 runs at bf16 speed (table 1.00), two N = 1792 GEMMs at 0.77.
            assert!(d.gemm_s(tok, 4096.0, 3584.0) < fc1);
        });
        let m = llama8b_rowwise("megatron");
        super::super::inputs::with_inputs(&m, |x| {
            let a = AttentionCosts::of(x, x.d);
            assert!((a.gemm_col_fwd - x.dev.gemm_s(tok, 4096.0, 768.0)).abs() < 1e-15);
        });
    }

    fn gpt3() -> crate::scenario::Scenario {
        scenario::parse(
            r#"{"model": {"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96,
                 "vocab": 51200, "seq_len": 2048},
              "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16",
                 "recompute": "full"},
              "parallel": {"tp": 8, "pp": 16, "dp": 8, "sp": true, "zero_stage": 1},
              "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024}}"#,
        )
        .unwrap()
    }

    /// The costs of [`mpt_like`]'s layer.
    fn mpt_layer(early: bool, moe: bool) -> LayerCosts {
        super::super::inputs::with_inputs(&mpt_like(early, moe), LayerCosts::of)
    }

    /// An MPT-7B-like model (h 4096, FFN 16384, 32 heads) under eager PyTorch FSDP (ZeRO-3) on
    /// 8 A100s, micro-batch 8 × 2048 tokens, full recomputation; `early` sets
    /// `training.recompute_early_stop`, `moe` makes it an MoE model (8 experts, top 2).
    pub(crate) fn mpt_like(early: bool, moe: bool) -> crate::scenario::Scenario {
        let moe = if moe {
            r#"{"experts": 8, "top_k": 2, "expert_ffn_hidden": 16384}"#
        } else {
            "null"
        };
        scenario::parse(&format!(
            r#"{{"model": {{"name": "m", "layers": 32, "hidden": 4096, "heads": 32,
                 "vocab": 50368, "seq_len": 2048, "moe": {moe}}},
              "training": {{"global_batch": 128, "micro_batch": 8, "precision": "bf16",
                 "recompute": "full", "flash_attention": true, "framework": "pytorch",
                 "recompute_early_stop": {early}}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 8, "zero_stage": 3}},
              "cluster": {{"gpu": "a100-sxm4-80gb", "num_gpus": 8}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn early_stop_skips_the_mlp_output_gemm() {
        let (on, off) = (mpt_layer(true, false), mpt_layer(false, false));
        // Forward and backward are untouched; the whole forward is recomputed without it.
        assert_eq!((on.fwd, on.bwd), (off.fwd, off.bwd));
        assert_eq!(off.rc, off.fwd);
        // FC2 of 16384 tokens, [16384×16384]·[16384×4096]: 2.1990e12 FLOP at
        // 312 TFLOP/s × 0.72 × 16384/16512 = 222.90 TFLOP/s, times the wave fill of 4096 tiles
        // of 128×128 in 38 waves of 108 SMs (4104), 0.998051 → 9.8849 ms, + 5 µs launch
        // (its 805 MB of operands take 0.49 ms at 0.8 × 2039 GB/s: compute-bound).
        let fc2: f64 = 2.0 * 16384.0 * 16384.0 * 4096.0
            / (312e12 * 0.72 * 16384.0 / 16512.0 * (4096.0 / 4104.0))
            + 5e-6;
        assert!((fc2 - 9.8899e-3).abs() < 1e-7, "{fc2}");
        assert!(
            (off.rc - on.rc - fc2).abs() < 1e-12,
            "{} vs {fc2}",
            off.rc - on.rc
        );
        // An MoE layer ends in the weighted combine, which saves the experts' outputs: the
        // recomputation runs whole.
        let (moe_on, moe_off) = (mpt_layer(true, true), mpt_layer(false, true));
        assert_eq!(moe_on.rc, moe_off.rc);
        assert_eq!(moe_on.rc, moe_on.fwd);
    }

    #[test]
    fn layer_sums_its_parts() {
        let l = super::super::inputs::with_inputs(&gpt3(), LayerCosts::of);
        assert!((l.fwd - (l.gemm_fwd + l.attn_fwd + l.ew_fwd)).abs() < 1e-15);
        assert!((l.bwd - (2.0 * l.gemm_fwd + l.attn_bwd + l.ew_bwd)).abs() < 1e-15);
        // Full recomputation repeats the whole forward.
        assert_eq!(l.rc, l.fwd);
        // GPT-3 layer on a TP-8 A100 rank, 2048 tokens: GEMMs 24·T·h²/t FLOPs = 9.28 TFLOP at
        // ≤ 224.6 TFLOP/s ⇒ at least 41 ms; nothing else in the layer is larger.
        let flops = 24.0 * 2048.0 * 12288.0f64.powi(2) / 8.0;
        assert!(l.gemm_fwd > flops / 224.64e12, "{}", l.gemm_fwd);
        assert!(l.gemm_fwd < 1.2 * flops / 224.64e12, "{}", l.gemm_fwd);
        assert!(l.attn_fwd < l.gemm_fwd && l.ew_fwd < l.gemm_fwd);
        assert_eq!(l.ep, 0.0);
    }
}
