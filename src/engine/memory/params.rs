//! Parameter counts: whole model, per layer, per pipeline stage and per GPU.
//!
//! Architecture conventions (the scenario has no separate bias/norm switches, so they follow the
//! FFN family, as in the models the two activations come from):
//! - **GELU models (GPT-2/3, BLOOM, BERT, Megatron GPT)**: every linear layer has a bias and the
//!   norms are LayerNorm (weight + bias, `2h`). Per layer that is `12h² + 13h` for MHA with
//!   `f = 4h` — Narayanan et al. 2021 (SC21) §5.1, `Ψ = 12Lh²(1 + 13/(12h) + (V+s)/(12Lh))`.
//! - **SwiGLU models (Llama family)**: no biases, RMSNorm (`h`) — Megatron-LM
//!   `megatron/training/theoretical_memory_usage.py` (HEAD): attention `2·h·q·(1 + g/a)`, MLP
//!   `3·h·f`, norms `2·h` per layer, final norm `h`.
//! - Position embeddings are not counted (RoPE / ALiBi have none; a learned table adds `s·h`,
//!   below 0.1 % of any model in the validation data).
//! - Embedding `V·h`; the output layer is a second `V·h` matrix when untied.
//! - MoE (`model.moe`): the MLP of each MoE layer ([`crate::engine::layers`]) becomes `E`
//!   experts of size `f_e`, the shared experts and a router `h·E`; the other layers keep a dense
//!   MLP of `ffn_hidden` (Megatron-LM `megatron/training/theoretical_memory_usage.py` at
//!   `d98e8a6`: `routed_expert_params`, `shared_expert_params`, `router_params`,
//!   `num_dense_layers`/`num_moe_layers`).
//! - MLA (`model.mla`): the projections of [`Shape::layer_gemms`] plus the RMSNorms of the query
//!   and key/value latents (same file: `q_lora·(… + norm)`, `kv_lora·(… + norm)`).
//! - MTP modules (`model.mtp_layers`, DeepSeek-V3 §2.2): one layer of the last layer's kind, the
//!   `2h→h` projection of the concatenated hidden state and embedding, and three norms
//!   (embedding, hidden, output); the embedding and output head are shared with the main model.
//!
//! All counts are `f64` (exact below 2⁵³, i.e. for any model up to ~9·10¹⁵ parameters).

use crate::engine::shape::Shape;
use crate::scenario::{FfnAct, Model, Scenario};

/// Whether the architecture has biases on its linear layers and LayerNorm (GELU family) rather
/// than bias-free layers with RMSNorm (SwiGLU family). See the module docs.
pub fn has_biases(m: &Model) -> bool {
    m.ffn_act == FfnAct::Gelu
}

/// Parameter tensors of one layer's linear layers, `attention_linears` weight matrices in its
/// attention (4 as separate query, key, value and output projections, 2 with a fused QKV) and
/// `c_ffn` in its MLP: with a bias each for GELU models, bias-free otherwise ([`has_biases`]).
pub fn linear_tensors(m: &Model, attention_linears: f64, c_ffn: f64) -> f64 {
    let linears = attention_linears + c_ffn;
    if has_biases(m) {
        2.0 * linears
    } else {
        linears
    }
}

/// Parameter tensors of one layer: its [`linear_tensors`] and two norms, LayerNorms of weight
/// and bias for GELU models, RMSNorm weights otherwise ([`has_biases`]).
pub fn layer_tensors(m: &Model, attention_linears: f64, c_ffn: f64) -> f64 {
    let norms = if has_biases(m) { 4.0 } else { 2.0 };
    linear_tensors(m, attention_linears, c_ffn) + norms
}

/// Parameters of one norm: LayerNorm `2h` (weight + bias) for GELU models, RMSNorm `h` for SwiGLU.
pub fn norm_params(m: &Model) -> f64 {
    let h = m.hidden as f64;
    if has_biases(m) {
        2.0 * h
    } else {
        h
    }
}

/// Attention parameters of one layer: Q and O are `h·q`, K and V are `h·kv` each
/// (Megatron `theoretical_memory_usage.py`: `2·h·q·(1 + g/a)`), plus biases `q + 2kv + h` for GELU
/// models (SC21 §5.1). MHA (`g = a`), GQA (`1 < g < a`) and MQA (`g = 1`) all follow. MLA: its
/// five projections ([`Shape::attention_matrix_params`]) and the two latent RMSNorms.
pub fn attention_params(m: &Model) -> f64 {
    attention_params_of(m, &Shape::of(m))
}

/// [`attention_params`] from the model's already resolved [`Shape`] `d` (callers that hold one
/// skip resolving it again).
pub fn attention_params_of(m: &Model, d: &Shape) -> f64 {
    let w = d.attention_matrix_params();
    if d.is_mla() {
        // The query and key/value latents' RMSNorms.
        w + d.q_lora + d.kv_lora
    } else if has_biases(m) {
        w + d.q + 2.0 * d.kv + d.h
    } else {
        w
    }
}

/// Parameters of one dense MLP of inner size `f`: `c_ffn·h·f` (`c_ffn` = 2 GELU, 3 SwiGLU), plus
/// biases `f + h` for GELU models.
pub fn mlp_params_of(m: &Model, f: u64) -> f64 {
    let (f, h) = (f as f64, m.hidden as f64);
    let w = m.ffn_act.num_matrices() as f64 * h * f;
    if has_biases(m) {
        w + f + h
    } else {
        w
    }
}

/// Dense MLP parameters of one dense layer (`ffn_hidden`; also the dense layers of an MoE model).
pub fn mlp_params(m: &Model) -> f64 {
    mlp_params_of(m, m.ffn_hidden())
}

/// Routed-expert parameters of one MoE layer, all `E` experts: `E·(c_ffn·h·f_e [+ biases])`.
/// 0 for a dense model.
pub fn expert_params(m: &Model) -> f64 {
    match m.moe {
        Some(moe) => moe.experts as f64 * mlp_params_of(m, moe.expert_ffn_hidden),
        None => 0.0,
    }
}

/// Shared-expert parameters of one MoE layer: `shared_experts` MLPs of
/// `shared_expert_ffn_hidden` (DeepSeekMoE; Megatron `shared_expert_params`). 0 without.
pub fn shared_expert_params(m: &Model) -> f64 {
    match m.moe {
        Some(moe) if moe.shared_experts() > 0 => {
            moe.shared_experts() as f64 * mlp_params_of(m, moe.shared_expert_ffn_hidden())
        }
        _ => 0.0,
    }
}

/// Router parameters of one MoE layer `h·E` (0 for dense).
pub fn router_params(m: &Model) -> f64 {
    match m.moe {
        Some(moe) => m.hidden as f64 * moe.experts as f64,
        None => 0.0,
    }
}

/// Norm parameters of one layer (two norms).
pub fn layer_norm_params(m: &Model) -> f64 {
    2.0 * norm_params(m)
}

/// All parameters of one dense-MLP layer: attention, dense MLP, norms.
pub fn dense_layer_params(m: &Model) -> f64 {
    attention_params(m) + mlp_params(m) + layer_norm_params(m)
}

/// All parameters of one MoE layer (every expert counted): attention, routed and shared
/// experts, router, norms.
pub fn moe_layer_params(m: &Model) -> f64 {
    attention_params(m)
        + expert_params(m)
        + shared_expert_params(m)
        + router_params(m)
        + layer_norm_params(m)
}

/// Parameters of one Transformer layer of the model's characteristic kind: the MoE layer of an
/// MoE model, the layer of a dense model.
pub fn layer_params(m: &Model) -> f64 {
    if m.moe.is_some() {
        moe_layer_params(m)
    } else {
        dense_layer_params(m)
    }
}

/// Parameters one token actually uses in one MoE layer: as [`moe_layer_params`] but only
/// `top_k` routed experts (the MoE "active" count). Equal to [`layer_params`] for dense models.
pub fn layer_active_params(m: &Model) -> f64 {
    match m.moe {
        Some(moe) => {
            attention_params(m)
                + moe.top_k.min(moe.experts) as f64 * mlp_params_of(m, moe.expert_ffn_hidden)
                + shared_expert_params(m)
                + router_params(m)
                + layer_norm_params(m)
        }
        None => dense_layer_params(m),
    }
}

/// The extra parameters of one multi-token prediction module besides its Transformer layer:
/// the `2h→h` projection and three norms (DeepSeek-V3 §2.2, Fig. 3: `M_k`, the two input
/// RMSNorms and the shared head's norm).
pub fn mtp_extra_params(m: &Model) -> f64 {
    let h = m.hidden as f64;
    2.0 * h * h + 3.0 * norm_params(m)
}

/// Parameters of one multi-token prediction module: its layer (the last layer's kind) and
/// [`mtp_extra_params`].
pub fn mtp_module_params(m: &Model) -> f64 {
    let layer = if crate::engine::layers::last_layer_is_moe(m) {
        moe_layer_params(m)
    } else {
        dense_layer_params(m)
    };
    layer + mtp_extra_params(m)
}

/// Input embedding `V·h`.
pub fn embedding_params(m: &Model) -> f64 {
    m.vocab as f64 * m.hidden as f64
}

/// The output layer's own weights: `V·h` when untied, 0 when tied (it reuses the embedding).
pub fn output_params(m: &Model) -> f64 {
    if m.tied_embeddings {
        0.0
    } else {
        embedding_params(m)
    }
}

/// The final norm before the output layer.
pub fn final_norm_params(m: &Model) -> f64 {
    norm_params(m)
}

/// Parameters of all Transformer layers: dense layers × [`dense_layer_params`] + MoE layers ×
/// [`moe_layer_params`] ([`crate::engine::layers::model_mix`]).
pub fn transformer_params(m: &Model) -> f64 {
    let mix = crate::engine::layers::model_mix(m);
    mix.dense as f64 * dense_layer_params(m) + mix.moe as f64 * moe_layer_params(m)
}

/// Total parameters `Ψ` = layers + `V·h` (×2 untied) + final norm + MTP modules.
pub fn total_params(m: &Model) -> f64 {
    transformer_params(m)
        + embedding_params(m)
        + output_params(m)
        + final_norm_params(m)
        + m.mtp_layers() as f64 * mtp_module_params(m)
}

/// Active parameters per token of the main model (MoE: `top_k` routed experts, shared experts,
/// router; dense layers whole), input embedding and output layer included, MTP modules not (the
/// convention of Mistral's Mixtral and Qwen's model cards; DeepSeek and OpenAI leave out the
/// input embedding: subtract [`embedding_params`]).
pub fn total_active_params(m: &Model) -> f64 {
    let mix = crate::engine::layers::model_mix(m);
    mix.dense as f64 * dense_layer_params(m)
        + mix.moe as f64 * layer_active_params(m)
        + embedding_params(m)
        + output_params(m)
        + final_norm_params(m)
}

/// Parameters without the input embedding and output layer (Kaplan et al. 2020's `N`).
pub fn non_embedding_params(m: &Model) -> f64 {
    transformer_params(m) + final_norm_params(m) + m.mtp_layers() as f64 * mtp_module_params(m)
}

/// Parameters of pipeline stage `stage` as a whole (all TP/EP ranks together, every expert):
/// its dense and MoE layers ([`crate::engine::layers::stage_mix`]), the input embedding on
/// stage 0, the output layer (or the tied embedding's copy when `p > 1`), the final norm and
/// the MTP modules on the last stage. The stages of a model with `p > 1` and tied embeddings
/// add up to [`total_params`] + `V·h` (the copy).
pub fn stage_params(s: &Scenario, stage: u64) -> f64 {
    let m = &s.model;
    let pp = s.parallel.pp.max(1);
    let mix = crate::engine::layers::stage_mix(s, stage);
    let (emb_in, emb_out) = stage_embedding_params(m, pp, stage);
    let final_norm = if stage + 1 == pp {
        final_norm_params(m)
    } else {
        0.0
    };
    mix.dense as f64 * dense_layer_params(m)
        + mix.moe as f64 * moe_layer_params(m)
        + mix.mtp as f64 * mtp_module_params(m)
        + emb_in
        + emb_out
        + final_norm
}

/// Parameters of one layer replicated across TP ranks: the norms, the row-parallel biases
/// (attention output and FC2, `2h`, GELU models) and the router (Megatron keeps them whole on
/// every TP rank; `theoretical_memory_usage.py` counts them as "replicated").
pub fn layer_replicated_params(m: &Model) -> f64 {
    let h = m.hidden as f64;
    let row_biases = if has_biases(m) {
        if m.moe.is_some() {
            h // attention output bias only; expert FC2 biases live with the experts
        } else {
            2.0 * h
        }
    } else {
        0.0
    };
    layer_norm_params(m) + row_biases + router_params(m)
}

/// Replicated parameters of one dense-MLP layer (norms and, for GELU models, the attention
/// output and FC2 biases).
fn dense_layer_replicated_params(m: &Model) -> f64 {
    let row_biases = if has_biases(m) {
        2.0 * m.hidden as f64
    } else {
        0.0
    };
    layer_norm_params(m) + row_biases
}

/// Parameters held by **one GPU** of one pipeline stage, split by how they are sharded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuParams {
    /// Dense parameters, already divided by TP (and replicated parts added whole): sharded by
    /// ZeRO over the `dp·cp` ranks.
    pub dense: f64,
    /// Expert parameters on this GPU (all local experts, divided by `ep·etp`): sharded by ZeRO
    /// over the expert-data-parallel ranks `tp·cp·dp/(ep·etp)`.
    pub experts: f64,
    /// Weight-matrix parameters among `dense + experts` (the ones FP8 keeps extra copies of).
    pub matrices: f64,
    /// Largest single module on this GPU (one layer, or the embedding/output shard): what
    /// ZeRO-3 gathers at once.
    pub largest_module: f64,
}

impl GpuParams {
    /// `dense + experts`.
    pub fn total(&self) -> f64 {
        self.dense + self.experts
    }
}

/// Where the embedding-like matrices sit (Megatron, Narayanan et al. SC21; [peers.md](crate::docs::formulas::peers) §1, [states.md](crate::docs::formulas::states) §3):
/// the input embedding on stage 0; the output layer on the last stage — its own `V·h` when
/// untied, and a second copy of the tied embedding when `p > 1` (Megatron keeps the word
/// embeddings on both ends and all-reduces their gradients).
pub fn stage_embedding_params(m: &Model, pp: u64, stage: u64) -> (f64, f64) {
    let last = stage + 1 == pp.max(1);
    let input = if stage == 0 { embedding_params(m) } else { 0.0 };
    let output = if last {
        if !m.tied_embeddings || pp > 1 {
            embedding_params(m)
        } else {
            0.0
        }
    } else {
        0.0
    };
    (input, output)
}

/// Parameters of one GPU of pipeline stage `stage` (its dense and MoE layers from
/// [`crate::engine::layers::stage_mix`]).
///
/// Dense parameters are divided by `tp` (Megatron column/row-parallel linears and the
/// vocab-parallel embedding), except the replicated norms/biases/router; routed-expert
/// parameters by `ep·etp` (Megatron-Core MoE parallel folding: each expert's weights split over
/// `etp` ranks, the experts over `ep`; `theoretical_memory_usage.py` at `d98e8a6`:
/// `expert_sharded_params / (etp·ep)`). The last stage also holds the final norm and the MTP
/// modules. For many stages of one scenario, build a [`ShardedParams`] once.
pub fn gpu_params(s: &Scenario, stage: u64) -> GpuParams {
    ShardedParams::new(s).stage(stage, crate::engine::layers::stage_mix(s, stage))
}

/// Per-GPU parameter counts of each kind of layer and of the embeddings for a scenario,
/// computed once so that every stage is a few multiplications ([`ShardedParams::stage`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ShardedParams {
    /// Non-expert parameters of one MoE layer on one GPU (attention, shared experts ÷ t;
    /// norms and router whole). For a dense model: the whole layer.
    pub layer_dense: f64,
    /// Routed-expert parameters of one MoE layer on one GPU (÷ ep·etp).
    pub layer_experts: f64,
    /// Weight-matrix parameters of one MoE layer on one GPU.
    pub layer_matrices: f64,
    /// One dense-MLP layer on one GPU (TP-sharded part ÷ t + replicated part).
    pub dense_layer: f64,
    /// Weight-matrix parameters of one dense-MLP layer on one GPU.
    pub dense_layer_matrices: f64,
    /// The extra parameters of one MTP module on one GPU (projection ÷ t, norms whole).
    pub mtp_extra: f64,
    /// The embedding (and the untied output layer) `V·h ÷ t` on one GPU.
    pub embedding: f64,
    /// Final norm (last stage).
    pub final_norm: f64,
    pp: u64,
    output_on_last: bool,
    mtp_embedding_on_last: bool,
}

impl ShardedParams {
    /// Precomputes the per-GPU counts of `s`.
    pub fn new(s: &Scenario) -> ShardedParams {
        ShardedParams::with_shape(s, &Shape::of(&s.model))
    }

    /// [`ShardedParams::new`] from the model's already resolved [`Shape`] `d` (an estimate
    /// resolves it once).
    pub fn with_shape(s: &Scenario, d: &Shape) -> ShardedParams {
        let m = &s.model;
        let t = s.parallel.tp.max(1) as f64;
        let e = s.parallel.ep.max(1) as f64 * s.parallel.etp().max(1) as f64;
        let pp = s.parallel.pp.max(1);
        let dd = d.dense_layer();
        let replicated = layer_replicated_params(m);
        let attention = attention_params_of(m, d);
        let dense_layer = attention + mlp_params(m) + layer_norm_params(m);
        let dense_replicated = dense_layer_replicated_params(m);
        let dense_sharded = (dense_layer - dense_replicated) / t + dense_replicated;
        let (layer_dense, layer_experts, layer_matrices) = if m.moe.is_some() {
            let sharded =
                attention + shared_expert_params(m) + router_params(m) + layer_norm_params(m)
                    - replicated;
            (
                sharded / t + replicated,
                expert_params(m) / e,
                (d.attention_matrix_params() + d.shared_matrix_params()) / t
                    + d.expert_matrix_params() / e,
            )
        } else {
            (
                dense_sharded,
                0.0,
                (d.attention_matrix_params() + d.dense_mlp_matrix_params()) / t,
            )
        };
        let h = m.hidden as f64;
        ShardedParams {
            layer_dense,
            layer_experts,
            layer_matrices,
            dense_layer: dense_sharded,
            dense_layer_matrices: (dd.attention_matrix_params() + dd.dense_mlp_matrix_params()) / t,
            mtp_extra: 2.0 * h * h / t + 3.0 * norm_params(m),
            embedding: embedding_params(m) / t,
            final_norm: final_norm_params(m),
            pp,
            output_on_last: !m.tied_embeddings || pp > 1,
            mtp_embedding_on_last: m.mtp_layers() > 0 && pp > 1,
        }
    }

    /// Parameters of one whole MoE layer on one GPU (dense part + local experts); the layer of
    /// a dense model.
    pub fn layer(&self) -> f64 {
        self.layer_dense + self.layer_experts
    }

    /// One GPU of pipeline stage `stage` with the layers `mix`: its dense and MoE layers, the
    /// input embedding on stage 0, the output layer (its own when untied, the tied embedding's
    /// second copy when `p > 1`; see [`stage_embedding_params`]), the final norm and the MTP
    /// modules on the last stage (with `p > 1` they need their own copy of the input embedding,
    /// kept in sync like a tied one).
    pub fn stage(&self, stage: u64, mix: crate::engine::layers::LayerMix) -> GpuParams {
        self.placed(mix, stage == 0, stage + 1 == self.pp)
    }

    /// [`Self::stage`] for a GPU that holds the input embedding when `first` and the output
    /// layer, final norm and MTP modules' embedding copy when `last` (schedules place these
    /// differently: [`crate::engine::layout::holds_output`]).
    pub fn placed(
        &self,
        mix: crate::engine::layers::LayerMix,
        first: bool,
        last: bool,
    ) -> GpuParams {
        let emb_in = if first { self.embedding } else { 0.0 };
        let mut emb_out = if last && self.output_on_last {
            self.embedding
        } else {
            0.0
        };
        // The MTP modules' input embedding: its own copy on the last stage, but shared with the
        // main model's where one GPU holds both ends (DualPipe's end ranks, the V shapes' rank
        // 0): DeepSeek-V3 technical report §3.2.1 deploys the embedding and the output head on
        // one PP rank "to enable the physical sharing of parameters and gradients" with MTP.
        if last && !first && self.mtp_embedding_on_last {
            emb_out += self.embedding;
        }
        let (nd, nm, nt) = (
            mix.dense_with_mtp() as f64,
            mix.moe_with_mtp() as f64,
            mix.mtp as f64,
        );
        let mut one_layer: f64 = 0.0;
        if mix.dense_with_mtp() > 0 {
            one_layer = self.dense_layer;
        }
        if mix.moe_with_mtp() > 0 {
            one_layer = one_layer.max(self.layer_dense + self.layer_experts);
        }
        GpuParams {
            dense: nd * self.dense_layer
                + nm * self.layer_dense
                + nt * self.mtp_extra
                + emb_in
                + emb_out
                + if last { self.final_norm } else { 0.0 },
            experts: nm * self.layer_experts,
            matrices: nd * self.dense_layer_matrices + nm * self.layer_matrices,
            largest_module: one_layer.max(emb_in).max(emb_out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::test_model as model;

    #[test]
    fn gpt3_175b_matches_sc21_formula() {
        // SC21 §5.1 without the position table: 12Lh²(1 + 13/(12h) + V/(12Lh)).
        let m = model(
            r#"{"layers":96,"hidden":12288,"heads":96,"vocab":51200,"seq_len":2048,"tied_embeddings":true}"#,
        );
        let (l, h, v) = (96.0_f64, 12288.0_f64, 51200.0_f64);
        let expect = 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + v / (12.0 * l * h)) + 2.0 * h;
        assert_eq!(total_params(&m), expect);
        assert!((total_params(&m) / 1e9 - 174.59).abs() < 0.01);
    }

    #[test]
    fn llama3_8b_is_8_03b() {
        // Llama 3 8B: 32 layers, h 4096, 32 heads, 8 KV heads, f 14336, V 128256, untied.
        // Per layer: attention 2·4096·4096 + 2·4096·1024 = 41,943,040; MLP 3·4096·14336 =
        // 176,160,768; norms 8192 → 218,112,000. ×32 = 6,979,584,000; + 2·V·h = 1,050,673,152;
        // + final norm 4096 → 8,030,261,248.
        let m = model(
            r#"{"layers":32,"hidden":4096,"heads":32,"kv_heads":8,"ffn_hidden":14336,"ffn_act":"swiglu","vocab":128256,"seq_len":8192}"#,
        );
        assert_eq!(layer_params(&m), 218_112_000.0);
        assert_eq!(total_params(&m), 8_030_261_248.0);
    }

    #[test]
    fn moe_active_vs_total() {
        // Mixtral-like: 8 experts of f_e 14336, top 2.
        let m = model(
            r#"{"layers":32,"hidden":4096,"heads":32,"kv_heads":8,"ffn_act":"swiglu","vocab":32000,"seq_len":4096,"moe":{"experts":8,"top_k":2,"expert_ffn_hidden":14336}}"#,
        );
        let expert = 3.0 * 4096.0 * 14336.0;
        assert_eq!(expert_params(&m), 8.0 * expert);
        assert_eq!(layer_params(&m) - layer_active_params(&m), 6.0 * expert);
        // Mixtral 8x7B is 46.7 B total, 12.9 B active.
        assert!(
            (total_params(&m) / 1e9 - 46.70).abs() < 0.01,
            "{}",
            total_params(&m)
        );
        assert!((total_active_params(&m) / 1e9 - 12.88).abs() < 0.01);
    }

    /// MTP's input embedding: a copy on a last stage without the embedding (`V·h/t` more), none
    /// on a GPU that holds both ends (DeepSeek-V3 §3.2.1 shares it there): there the input
    /// embedding it uses is the one the GPU holds anyway.
    #[test]
    fn mtp_shares_the_embedding_where_one_gpu_holds_both_ends() {
        let s: Scenario = crate::scenario::from_value(&serde_json::json!({
            "model": {"layers": 8, "hidden": 1024, "heads": 16, "vocab": 32000, "seq_len": 1024,
                      "tied_embeddings": false, "mtp_layers": 1},
            "training": {"global_batch": 16, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
            "parallel": {"tp": 2, "pp": 4, "dp": 1},
            "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}
        }))
        .unwrap();
        let sh = ShardedParams::new(&s);
        let mix = crate::engine::layers::LayerMix {
            dense: 2,
            moe: 0,
            mtp: 1,
            mtp_moe: false,
        };
        let emb = 32000.0 * 1024.0 / 2.0;
        let last = sh.placed(mix, false, true).total();
        let both = sh.placed(mix, true, true).total();
        let neither = sh.placed(mix, false, false).total();
        // Last stage: the output layer and MTP's embedding copy; both ends: the input embedding
        // and the output layer, no copy.
        assert_eq!(last - neither, 2.0 * emb + sh.final_norm);
        assert_eq!(both - neither, 2.0 * emb + sh.final_norm);
        assert_eq!(sh.placed(mix, true, false).total() - neither, emb);
    }

    #[test]
    fn stages_add_up() {
        let s: Scenario = crate::scenario::from_value(&serde_json::json!({
            "model": {"layers": 30, "hidden": 1024, "heads": 16, "vocab": 32000, "seq_len": 1024, "tied_embeddings": true},
            "training": {"global_batch": 8, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
            "parallel": {"tp": 2, "pp": 4, "dp": 1},
            "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}
        }))
        .unwrap();
        let sum: f64 = (0..4).map(|r| stage_params(&s, r)).sum();
        // Tied with p > 1: the last stage keeps a copy of V·h.
        assert_eq!(sum, total_params(&s.model) + embedding_params(&s.model));
        // Per GPU × t = per stage for the TP-sharded part; replicated norms/biases differ.
        let r = 1;
        let layers = crate::engine::layout::stage_layers(30, 4, 1, None, r);
        let gpu = gpu_params(&s, r);
        let replicated = layers as f64 * layer_replicated_params(&s.model);
        assert_eq!(gpu.total() * 2.0 - replicated, stage_params(&s, r));
    }
}
