//! Activation memory of a mixture-of-experts MLP: the router's outputs, the shared experts, and
//! the dispatched rows each GPU computes.
//!
//! Token flow of one MoE layer in Megatron-Core's all-to-all dispatcher
//! (`megatron/core/transformer/moe/token_dispatcher.py`, `MoEAlltoAllTokenDispatcher`, with MoE
//! parallel folding, Liu et al. 2025, arXiv 2504.14960 §3): each TP rank routes its own
//! `tok/t` tokens (sequence parallel), sends every token's `k` copies over the `ep` ranks of
//! its expert group (all-to-all), and the `etp` ranks that split each expert gather them
//! (all-gather in the expert-tensor group). So one GPU computes
//! `rows = (tok/t)·k·etp·imbalance` expert rows per micro-batch, where `imbalance` is the busiest
//! expert-parallel rank's load over the mean (`model.moe.imbalance`): memory is sized for the
//! busiest rank, whose activations set the stage's peak.
//!
//! Stored for backward, per micro-batch (element size `e`):
//! - router: logits `e·E` and a 1-byte routing map per expert, and the `k` fp32 routing
//!   probabilities, per token (÷t with sequence parallelism);
//! - shared experts: their intermediates `c_ffn·e·f_shared/t` per token (their input is the
//!   pre-MLP norm output, counted with the layer);
//! - per dispatched row: the FC1 input `e·h`, the intermediates `c_ffn·e·f_e/etp` (GELU input
//!   and output, or SwiGLU gate, up and product), and what the probability weighting keeps to
//!   form the gradient of the routing probabilities ([`combine_bytes_per_row`]).

use crate::engine::per_gpu::PerGpu;
use crate::engine::shape::Shape;
use crate::scenario::Scenario;

/// Expert rows one GPU computes per token of its micro-batch: `k·etp/t·imbalance` (module docs).
pub fn rows_per_token(s: &Scenario, d: &Shape) -> f64 {
    let p = &s.parallel;
    d.k * p.etp().max(1) as f64 / p.tp.max(1) as f64 * d.imbalance
}

/// Bytes of one MoE MLP's stored activations for one micro-batch on one GPU (module docs).
#[inline]
pub fn moe_mlp_bytes(s: &Scenario, g: &PerGpu, d: &Shape) -> f64 {
    let (tok, e, t, sp_div) = (g.tokens, g.element_bytes, g.tp, g.sp_div);
    let etp = s.parallel.etp().max(1) as f64;
    let router = ((e + 1.0) * d.experts + 4.0 * d.k) / sp_div;
    let shared = d.c_ffn * e * d.f_shared / t;
    let routed = rows_per_token(s, d)
        * (e * d.h + d.c_ffn * e * d.f_expert / etp + combine_bytes_per_row(s, g, d));
    tok * (router + shared + routed)
}

/// Bytes per routed row that the probability weighting keeps for backward, the gradient of a
/// routing probability being the dot product of its row's incoming gradient with what it
/// multiplied:
/// - weighting after the experts (the probability-weighted unpermute of Megatron-Core ≤ 0.12.0,
///   torchtitan's MoE; or before them on the routed input, torchtitan's `score_before_experts`):
///   one hidden-size row, `e·h`;
/// - weighting inside the experts' activation ([`crate::scenario::Training::moe_probs_in_experts`],
///   Megatron-Core since !2668): nothing for gated experts, whose fused weighted SwiGLU
///   (`weighted_bias_swiglu_impl`, `fusions/fused_bias_swiglu.py`) saves only its input, which
///   the intermediates already count; for non-gated experts the unfused `activation(x) · probs`
///   keeps the activation's output, `e·f_e/etp` (`moe/experts.py`, `bias_act_func`).
#[inline]
pub fn combine_bytes_per_row(s: &Scenario, g: &PerGpu, d: &Shape) -> f64 {
    let e = g.element_bytes;
    if !s.training.moe_probs_in_experts() {
        e * d.h
    } else if d.c_ffn >= 3.0 {
        0.0
    } else {
        e * d.f_expert / s.parallel.etp().max(1) as f64
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// DeepSeek-V3 layers, b 1, s 4096, tp 2 (SP), etp 1, ep 64, bf16 on 512 H100s: 4 routed
    /// rows per token (also the activations' FP8 SwiGLU-input test).
    pub(crate) fn deepseek_v3_tp2() -> Scenario {
        crate::scenario::from_value(&serde_json::json!({
            "model": {"layers": 61, "hidden": 7168, "heads": 128, "ffn_hidden": 18432,
                      "ffn_act": "swiglu", "vocab": 129280, "seq_len": 4096,
                      "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048,
                              "shared_experts": 1, "dense_layers": 3}},
            "training": {"global_batch": 4096, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
            "parallel": {"tp": 2, "pp": 8, "dp": 32, "ep": 64, "etp": 1, "sp": true},
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 512}
        }))
        .unwrap()
    }

    #[test]
    fn deepseek_v3_moe_layer_by_hand() {
        // DeepSeek-V3 MoE layer, b 1, s 4096, tp 2 (SP), etp 1, ep 64, bf16, Megatron-LM (the
        // probabilities weighted inside the experts): tok 4096; router (3·256 + 32)/2 = 400;
        // shared 3·2·2048/2 = 6144; rows 8·1/2 = 4 per token of (2·7168 + 3·2·2048) = 26624
        // → 106496. Per token 113040 B; × 4096 = 463,011,840 B.
        let s = deepseek_v3_tp2();
        let d = Shape::of(&s.model);
        assert_eq!(rows_per_token(&s, &d), 4.0);
        assert_eq!(combine_bytes_per_row(&s, &PerGpu::of(&s), &d), 0.0);
        assert_eq!(moe_mlp_bytes(&s, &PerGpu::of(&s), &d), 4096.0 * 113_040.0);
        // Weighted at the combine (Megatron-Core 0.12.0 and older): each row also keeps its expert output,
        // 2·7168 = 14336 B: rows of 40960 → 163840, per token 170384 B.
        let mut old = s.clone();
        old.training.moe_probs_in_experts = Some(false);
        assert_eq!(combine_bytes_per_row(&old, &PerGpu::of(&old), &d), 14336.0);
        assert_eq!(
            moe_mlp_bytes(&old, &PerGpu::of(&old), &d),
            4096.0 * 170_384.0
        );
        // torchtitan weights outside the experts by default.
        let mut tt = s.clone();
        tt.training.framework = Some(crate::scenario::Framework::Torchtitan);
        assert_eq!(moe_mlp_bytes(&tt, &PerGpu::of(&tt), &d), 4096.0 * 170_384.0);
        // Non-gated experts under Megatron-Core: the unfused `activation · probs` keeps the
        // activation output, 2·2048 = 4096 B per row (GELU: c_ffn 2, rows of 2·7168 + 2·2·2048
        // + 4096 = 26624 B).
        let mut gelu = s.clone();
        gelu.model.ffn_act = crate::scenario::FfnAct::Gelu;
        let dg = Shape::of(&gelu.model);
        assert_eq!(
            combine_bytes_per_row(&gelu, &PerGpu::of(&gelu), &dg),
            4096.0
        );
        // Imbalance scales the routed rows only.
        let mut s2 = s.clone();
        s2.model.moe.as_mut().unwrap().imbalance = Some(1.5);
        let d2 = Shape::of(&s2.model);
        assert_eq!(
            moe_mlp_bytes(&s2, &PerGpu::of(&s2), &d2) - moe_mlp_bytes(&s, &PerGpu::of(&s), &d),
            4096.0 * 0.5 * 106_496.0
        );
    }
}
