//! FLOP counts per token and per step.
//!
//! Every GEMM costs 2 FLOPs per multiply-accumulate; backward is twice the forward (input
//! gradient + weight gradient). Per layer and token, forward (Megatron-LM
//! `num_floating_point_operations`, `megatron/training/training.py`, [FORMULAS.md](crate::docs::formulas) §3.2):
//! `2h(q + 2kv)` (QKV) `+ 2qh` (output projection) `+ 2·c_ffn·h·f` (MLP; for MoE `k·f_e`
//! instead of `f`) `+ 4·q·s` (QKᵀ and attention·V over the full `s×s` matrix). The logits add
//! `2hV` per token. With MHA, `f = 4h` and GELU this is Narayanan et al. 2021's
//! `24Bsh² + 4Bs²h` per layer, so `3×` the forward is Korthikanti et al. 2022 eq. 7:
//! `72·B·s·L·h²·(1 + s/(6h) + V/(12Lh))`.
//!
//! Two conventions for causal attention exist ([FORMULAS.md](crate::docs::formulas) §10.1): the papers, PaLM, torchtitan
//! and NVIDIA's benchmark pages count the full `s²` (used for MFU here, `model_flops`); Megatron
//! since 2025-03 halves it (`model_flops_causal`).

use crate::engine::shape::Shape;

/// Forward FLOPs per token of one layer's weight GEMMs (no attention core):
/// `2h(q+2kv) + 2qh + 2·c_ffn·h·f_active` (+ router `2hE` for MoE).
pub fn layer_linear_flops_per_token(d: &Shape) -> f64 {
    2.0 * d.h * (d.q + 2.0 * d.kv)
        + 2.0 * d.q * d.h
        + 2.0 * d.c_ffn * d.h * d.f_active
        + 2.0 * d.h * d.experts
}

/// Forward FLOPs per token of one layer's attention core, full `s×s` matrix: `4·q·s`.
pub fn layer_attention_flops_per_token(d: &Shape) -> f64 {
    4.0 * d.q * d.s
}

/// Forward FLOPs per token of the output layer: `2hV`.
pub fn logits_flops_per_token(d: &Shape) -> f64 {
    2.0 * d.h * d.v
}

/// Model FLOPs of one step (no recomputation), full `s²` attention:
/// `3·B·s·(L·(linear + 4qs) + 2hV)`.
pub(crate) fn model_flops(d: &Shape, global_batch: f64) -> f64 {
    let tokens = global_batch * d.s;
    3.0 * tokens
        * (d.layers * (layer_linear_flops_per_token(d) + layer_attention_flops_per_token(d))
            + logits_flops_per_token(d))
}

/// Model FLOPs with the causal-halved attention term (Megatron-LM since `8873b55`, 2025-03).
pub(crate) fn model_flops_causal(d: &Shape, global_batch: f64) -> f64 {
    let tokens = global_batch * d.s;
    3.0 * tokens
        * (d.layers * (layer_linear_flops_per_token(d) + 0.5 * layer_attention_flops_per_token(d))
            + logits_flops_per_token(d))
}

/// Forward FLOPs per token of the GEMMs that per-op selective checkpointing recomputes (every
/// other weight GEMM, [`crate::engine::memory::activations::op_sac_saves_gemm`]): `2·k·n` each,
/// the MLP ones once per routed copy of the token.
pub fn op_sac_recompute_flops_per_token(d: &Shape) -> f64 {
    let (gemms, n) = d.layer_gemms();
    let mut f = 0.0;
    for (i, g) in gemms.iter().take(n).enumerate() {
        if !crate::engine::memory::activations::op_sac_saves_gemm(i) {
            f += 2.0 * g.k * g.n * if i >= 4 { d.k } else { 1.0 };
        }
    }
    f
}

/// FLOPs the recomputation adds per step (the HFU numerator is `model + this`).
/// Full: one more forward of every layer (Narayanan et al. 2021 eq. 3, the 96-factor: the
/// logits are not recomputed). Selective without flash attention: the attention core forward,
/// `4·q·s` per token per layer (the literal count, [FORMULAS.md](crate::docs::formulas) §10.2); with flash attention
/// (per-op checkpointing, [`op_sac_recompute_flops_per_token`]) the recomputed GEMMs. None: 0.
pub(crate) fn recompute_flops(
    d: &Shape,
    global_batch: f64,
    recompute: crate::scenario::Recompute,
    flash_attention: bool,
) -> f64 {
    use crate::scenario::Recompute;
    let tokens = global_batch * d.s;
    match recompute {
        Recompute::None => 0.0,
        Recompute::Selective if flash_attention => {
            tokens * d.layers * op_sac_recompute_flops_per_token(d)
        }
        Recompute::Selective => tokens * d.layers * layer_attention_flops_per_token(d),
        Recompute::Full => {
            tokens
                * d.layers
                * (layer_linear_flops_per_token(d) + layer_attention_flops_per_token(d))
        }
    }
}
