//! FLOP counts per token and per step.
//!
//! Every GEMM costs 2 FLOPs per multiply-accumulate; backward is twice the forward (input
//! gradient + weight gradient). Per layer and token, forward (Megatron-LM
//! `num_floating_point_operations`, `megatron/training/training.py`, FORMULAS.md §3.2):
//! `2h(q + 2kv)` (QKV) `+ 2qh` (output projection) `+ 2·c_ffn·h·f` (MLP; for MoE `k·f_e`
//! instead of `f`) `+ 4·q·s` (QKᵀ and attention·V over the full `s×s` matrix). The logits add
//! `2hV` per token. With MHA, `f = 4h` and GELU this is Narayanan et al. 2021's
//! `24Bsh² + 4Bs²h` per layer, so `3×` the forward is Korthikanti et al. 2022 eq. 7:
//! `72·B·s·L·h²·(1 + s/(6h) + V/(12Lh))`.
//!
//! Two conventions for causal attention exist (FORMULAS.md §10.1): the papers, PaLM, torchtitan
//! and NVIDIA's benchmark pages count the full `s²` (used for MFU here, `model_flops`); Megatron
//! since 2025-03 halves it (`model_flops_causal`).

use crate::scenario::{FfnAct, Scenario};

/// Shapes of one model, as `f64`, used by every time formula.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dims {
    /// Hidden size `h`.
    pub h: f64,
    /// Query width `q = a·d_h`.
    pub q: f64,
    /// Key/value width `kv = g·d_h`.
    pub kv: f64,
    /// FFN width per token actually computed: `f` (dense) or `k·f_e` (MoE).
    pub f_active: f64,
    /// FFN GEMM count `c_ffn` (2 GELU, 3 SwiGLU).
    pub c_ffn: f64,
    /// Vocabulary `V`.
    pub v: f64,
    /// Sequence length `s`.
    pub s: f64,
    /// Layers `L`.
    pub layers: f64,
    /// Experts `E` (0 for dense).
    pub experts: f64,
    /// Top-k (0 for dense).
    pub top_k: f64,
    /// Expert FFN width `f_e` (0 for dense).
    pub f_expert: f64,
    /// Dense FFN width `f`.
    pub f_dense: f64,
}

impl Dims {
    /// Reads the model section.
    pub fn of(s: &Scenario) -> Dims {
        let m = &s.model;
        let d_h = m.head_dim() as f64;
        let c_ffn = match m.ffn_act {
            FfnAct::Gelu => 2.0,
            FfnAct::Swiglu => 3.0,
        };
        let (experts, top_k, f_expert) = match m.moe {
            Some(moe) => (
                moe.experts as f64,
                moe.top_k as f64,
                moe.expert_ffn_hidden as f64,
            ),
            None => (0.0, 0.0, 0.0),
        };
        let f_dense = m.ffn_hidden() as f64;
        Dims {
            h: m.hidden as f64,
            q: m.heads as f64 * d_h,
            kv: m.kv_heads() as f64 * d_h,
            f_active: if experts > 0.0 {
                top_k * f_expert
            } else {
                f_dense
            },
            c_ffn,
            v: m.vocab as f64,
            s: m.seq_len as f64,
            layers: m.layers as f64,
            experts,
            top_k,
            f_expert,
            f_dense,
        }
    }

    /// Forward FLOPs per token of one layer's weight GEMMs (no attention core):
    /// `2h(q+2kv) + 2qh + 2·c_ffn·h·f_active` (+ router `2hE` for MoE).
    pub fn layer_linear_flops_per_token(&self) -> f64 {
        2.0 * self.h * (self.q + 2.0 * self.kv)
            + 2.0 * self.q * self.h
            + 2.0 * self.c_ffn * self.h * self.f_active
            + 2.0 * self.h * self.experts
    }

    /// Forward FLOPs per token of one layer's attention core, full `s×s` matrix: `4·q·s`.
    pub fn layer_attention_flops_per_token(&self) -> f64 {
        4.0 * self.q * self.s
    }

    /// Forward FLOPs per token of the output layer: `2hV`.
    pub fn logits_flops_per_token(&self) -> f64 {
        2.0 * self.h * self.v
    }
}

/// Model FLOPs of one step (no recomputation), full `s²` attention:
/// `3·B·s·(L·(linear + 4qs) + 2hV)`.
pub(crate) fn model_flops(d: &Dims, global_batch: f64) -> f64 {
    let tokens = global_batch * d.s;
    3.0 * tokens
        * (d.layers * (d.layer_linear_flops_per_token() + d.layer_attention_flops_per_token())
            + d.logits_flops_per_token())
}

/// Model FLOPs with the causal-halved attention term (Megatron-LM since `8873b55`, 2025-03).
pub(crate) fn model_flops_causal(d: &Dims, global_batch: f64) -> f64 {
    let tokens = global_batch * d.s;
    3.0 * tokens
        * (d.layers
            * (d.layer_linear_flops_per_token() + 0.5 * d.layer_attention_flops_per_token())
            + d.logits_flops_per_token())
}

/// FLOPs the recomputation adds per step (the HFU numerator is `model + this`).
/// Full: one more forward of every layer (Narayanan et al. 2021 eq. 3, the 96-factor: the
/// logits are not recomputed). Selective: the attention core forward, `4·q·s` per token per
/// layer (the literal count, FORMULAS.md §10.2). None: 0.
pub(crate) fn recompute_flops(
    d: &Dims,
    global_batch: f64,
    recompute: crate::scenario::Recompute,
) -> f64 {
    use crate::scenario::Recompute;
    let tokens = global_batch * d.s;
    match recompute {
        Recompute::None => 0.0,
        Recompute::Selective => tokens * d.layers * d.layer_attention_flops_per_token(),
        Recompute::Full => {
            tokens
                * d.layers
                * (d.layer_linear_flops_per_token() + d.layer_attention_flops_per_token())
        }
    }
}
