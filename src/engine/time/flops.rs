//! FLOP counts per token and per step.
//!
//! Every GEMM costs 2 FLOPs per multiply-accumulate; backward is twice the forward (input
//! gradient + weight gradient). Per layer and token, forward (Megatron-LM
//! `num_floating_point_operations`, `megatron/training/training.py`, [flops.md](crate::docs::formulas::flops) §2):
//! `2h(q + 2kv)` (QKV) `+ 2qh` (output projection) `+ 2·c_ffn·h·f` (MLP; for MoE `k·f_e`
//! instead of `f`) `+ 4·q·s` (QKᵀ and attention·V over the full `s×s` matrix). The logits add
//! `2hV` per token. With MHA, `f = 4h` and GELU this is Narayanan et al. 2021's
//! `24Bsh² + 4Bs²h` per layer, so `3×` the forward is Korthikanti et al. 2022 eq. 7:
//! `72·B·s·L·h²·(1 + s/(6h) + V/(12Lh))`.
//!
//! Two conventions for causal attention exist ([flops.md](crate::docs::formulas::flops) §4.1): the papers, PaLM, torchtitan
//! and NVIDIA's benchmark pages count the full `s²` (used for MFU here, `model_flops`); Megatron
//! since 2025-03 halves it (`model_flops_causal`).

use crate::engine::memory::activations::SavePolicy;
use crate::engine::shape::Shape;
use crate::scenario::RecomputeModules;

/// Forward FLOPs per token of one layer's weight GEMMs (no attention core):
/// `2·(attention weights) + 2·c_ffn·h·(f_active + f_shared)` (+ router `2hE` for MoE). For
/// standard attention the first term is `2h(q+2kv) + 2qh`; for MLA its five projections.
pub fn layer_linear_flops_per_token(d: &Shape) -> f64 {
    2.0 * d.attention_matrix_params()
        + 2.0 * d.c_ffn * d.h * (d.f_active + d.f_shared)
        + 2.0 * d.h * d.experts
}

/// Forward FLOPs per token of one layer's attention core, full `s×s` matrix: `4·q·s`, with
/// MLA `2·a·(d_qk + d_v)·s` (QKᵀ over `d_qk`, attention·V over `d_v`).
pub fn layer_attention_flops_per_token(d: &Shape) -> f64 {
    4.0 * d.heads * d.d_attn * d.s
}

/// Forward FLOPs per token of the output layer: `2hV`.
pub fn logits_flops_per_token(d: &Shape) -> f64 {
    2.0 * d.h * d.v
}

/// The model's layers for the FLOP counts: its shape and, for each kind of layer (the dense-MLP
/// layer, the MoE layer), the forward FLOPs per token of the weight GEMMs
/// ([`layer_linear_flops_per_token`]) and of the attention core
/// ([`layer_attention_flops_per_token`]), worked out once: both attention conventions and the
/// recomputation combine them ([`LayerFlops::per_token`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LayerFlops<'a> {
    /// The model's shape (its MoE layer for an MoE model).
    d: &'a Shape,
    /// The dense-MLP layer's (linear, attention core).
    dense: (f64, f64),
    /// The MoE layer's (linear, attention core); a dense model's own layer.
    moe: (f64, f64),
}

impl<'a> LayerFlops<'a> {
    /// The layers of the model of shape `d`.
    pub(crate) fn of(d: &'a Shape) -> LayerFlops<'a> {
        let kind = |x: &Shape| {
            (
                layer_linear_flops_per_token(x),
                layer_attention_flops_per_token(x),
            )
        };
        let dense = kind(&d.dense_layer());
        LayerFlops {
            d,
            dense,
            // A dense model's shape is its own dense layer ([`Shape::dense_layer`]).
            moe: if d.is_moe() { kind(d) } else { dense },
        }
    }

    /// Forward FLOPs per token of all layers, `attention` scaling the attention-core term (1
    /// full, 0.5 causal): dense layers with the dense MLP, MoE layers with `k` routed and the
    /// shared experts, and each MTP module's layer, `2h→h` projection and second pass through
    /// the output head (DeepSeek-V3 §2.2).
    fn per_token(&self, attention: f64) -> f64 {
        let d = self.d;
        let one = |(linear, core): (f64, f64)| linear + attention * core;
        let mtp_layer = if d.mtp_moe {
            one(self.moe)
        } else {
            one(self.dense)
        };
        (d.layers - d.moe_layers) * one(self.dense)
            + d.moe_layers * one(self.moe)
            + d.mtp * (mtp_layer + 4.0 * d.h * d.h + logits_flops_per_token(d))
    }
}

/// Model FLOPs of one step (no recomputation), full `s²` attention:
/// `3·B·s·(Σ layers (linear + 4qs) + 2hV)`.
pub(crate) fn model_flops(f: &LayerFlops, global_batch: f64) -> f64 {
    let tokens = global_batch * f.d.s;
    3.0 * tokens * (f.per_token(1.0) + logits_flops_per_token(f.d))
}

/// Model FLOPs with the causal-halved attention term (Megatron-LM since `8873b55`, 2025-03).
pub(crate) fn model_flops_causal(f: &LayerFlops, global_batch: f64) -> f64 {
    let tokens = global_batch * f.d.s;
    3.0 * tokens * (f.per_token(0.5) + logits_flops_per_token(f.d))
}

/// Forward FLOPs per token of the GEMMs that per-op selective checkpointing recomputes (every
/// other weight GEMM, [`crate::engine::memory::activations::op_sac_saves_gemm`]): `2·k·n` each,
/// the MLP ones once per routed copy of the token.
pub fn op_sac_recompute_flops_per_token(d: &Shape, policy: SavePolicy) -> f64 {
    let (gemms, n) = d.layer_gemms();
    let attn = d.attention_gemms();
    let mut f = 0.0;
    for (i, g) in gemms.iter().take(n).enumerate() {
        if policy.reruns_gemm(d, i) {
            f += 2.0 * g.k * g.n * if i >= attn { d.k } else { 1.0 };
        }
    }
    // A named policy without `context` reruns the attention kernel's forward.
    if !policy.saves_attention_output() {
        f += layer_attention_flops_per_token(d);
    }
    f
}

/// FLOPs the recomputation adds per step (the HFU numerator is `model + this`).
/// Full: one more forward of every layer (Narayanan et al. 2021 eq. 3, the 96-factor: the
/// logits are not recomputed). Selective without flash attention: the attention core forward,
/// `4·q·s` per token per layer (the literal count, [flops.md](crate::docs::formulas::flops) §4.2); with flash attention
/// (per-op checkpointing, [`op_sac_recompute_flops_per_token`]) the recomputed GEMMs. None: 0.
/// A full recomputation that stops early (`early_stop`,
/// [`crate::scenario::Scenario::recompute_early_stop`]) leaves out each dense layer's MLP
/// output GEMM, `2·f·h` per token (an MoE layer reruns whole).
pub(crate) fn recompute_flops(
    f: &LayerFlops,
    global_batch: f64,
    recompute: crate::scenario::Recompute,
    modules: Option<RecomputeModules>,
    early_stop: bool,
    policy: SavePolicy,
) -> f64 {
    use crate::scenario::Recompute;
    let d = f.d;
    let tokens = global_batch * d.s;
    match (recompute, modules) {
        (Recompute::None, _) => 0.0,
        (Recompute::Selective, Some(m)) => modules_flops(d, tokens, m),
        (Recompute::Selective, None) => {
            tokens * d.layers * op_sac_recompute_flops_per_token(d, policy)
        }
        (Recompute::Full, _) if early_stop => {
            let dense_layers = d.layers - d.moe_layers;
            tokens * (f.per_token(1.0) - dense_layers * 2.0 * d.f_dense * d.h)
        }
        (Recompute::Full, _) => tokens * f.per_token(1.0),
    }
}

/// Matmul FLOPs that Megatron-LM's recompute modules `m` rerun for `tokens` tokens over all layers
/// ([`RecomputeModules`]; norms and activations add none): `core_attn` the attention core
/// `4·a·d_attn·s` per layer, `mla_up_proj` the two up projections
/// `2·(q_in·q + kv_lora·(2kv − a·d_rope))` per layer, `mlp` the dense layers' MLP `2·c_ffn·f·h`,
/// `shared_experts` the MoE layers' shared experts `2·c_ffn·f_shared·h`, `moe` their whole MLP
/// `2·c_ffn·h·(k·f_e + f_shared) + 2hE` (router included). The MTP modules'
/// layers are not counted.
fn modules_flops(d: &Shape, tokens: f64, m: RecomputeModules) -> f64 {
    let dense_layers = d.layers - d.moe_layers;
    let mut f = 0.0;
    if m.has(RecomputeModules::CORE_ATTN) {
        f += tokens * d.layers * layer_attention_flops_per_token(d);
    }
    if m.has(RecomputeModules::MLA_UP_PROJ) && d.is_mla() {
        let (q, kv) = d.mla_up_gemms();
        f += tokens * d.layers * 2.0 * (q.k * q.n + kv.k * kv.n);
    }
    if m.has(RecomputeModules::MLP) {
        f += tokens * dense_layers * 2.0 * d.c_ffn * d.f_dense * d.h;
    }
    if m.has(RecomputeModules::MOE) {
        // Router, routed and shared experts: the MoE layer's weight GEMMs but attention's.
        let mlp = layer_linear_flops_per_token(d) - 2.0 * d.attention_matrix_params();
        f += tokens * d.moe_layers * mlp;
    } else if m.has(RecomputeModules::SHARED_EXPERTS) {
        f += tokens * d.moe_layers * 2.0 * d.c_ffn * d.f_shared * d.h;
    }
    f
}
