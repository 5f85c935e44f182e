//! Mixture-of-experts and latent-attention families of Hugging Face `config.json`:
//! DeepSeek-V2/V3, Qwen2-MoE, Qwen3-MoE, gpt-oss and Llama 4.
//!
//! | family | `model_type` | MoE fields read (besides layers, hidden, heads, KV heads, vocab, tied) |
//! |---|---|---|
//! | DeepSeek-V3 | `deepseek_v3`, `deepseek_v2` | `n_routed_experts`, `num_experts_per_tok`, `moe_intermediate_size`, `n_shared_experts`, `first_k_dense_replace`, `moe_layer_freq`, `intermediate_size` (dense layers), MLA `q_lora_rank` (null = none), `kv_lora_rank`, `qk_nope_head_dim`, `qk_rope_head_dim`, `v_head_dim`, `num_nextn_predict_layers` (MTP), `n_group` and `topk_group` (group-limited routing, unless `topk_method` is `greedy`) |
//! | Qwen3-MoE | `qwen3_moe` | `num_experts`, `num_experts_per_tok`, `moe_intermediate_size`, `decoder_sparse_step`, `head_dim`, `intermediate_size` (dense layers) |
//! | Qwen2-MoE | `qwen2_moe` | as Qwen3-MoE plus one shared expert of `shared_expert_intermediate_size` |
//! | gpt-oss | `gpt_oss` | `num_local_experts`, `num_experts_per_tok` (or `experts_per_token`), `intermediate_size` (per expert), `head_dim` |
//! | Llama 4 | `llama4` (its `text_config`), `llama4_text` | `num_local_experts`, `num_experts_per_tok`, `intermediate_size` (experts and the one shared expert), `intermediate_size_mlp` (dense layers), `interleave_moe_layer_step`, `head_dim` |
//!
//! Field names follow the `transformers` configuration classes (`DeepseekV3Config`,
//! `Qwen3MoeConfig`, `Qwen2MoeConfig`, `GptOssConfig`, `Llama4TextConfig`). Routing details
//! that change neither memory nor time (scoring function, scaling factors, auxiliary losses)
//! are listed as not used (group-limited routing is read: it narrows where DeepEP sends a
//! token); gpt-oss's sliding-window layers and
//! attention sinks, and Qwen3's QK-norm, are not modelled and are named in a note.

use super::reader::{HfError, Reader};
use crate::scenario::{FfnAct, Mla, Model, Moe};
use serde_json::Value;

/// Routing and architecture details of these families with no effect on memory or time.
pub(super) const IGNORED: &[&str] = &[
    "routed_scaling_factor",
    "scoring_func",
    "norm_topk_prob",
    "ep_size",
    "aux_loss_alpha",
    "seq_aux",
    "router_aux_loss_coef",
    "output_router_logits",
    "decoder_sparse_step",
    "mlp_only_layers",
    "moe_layer_freq",
    "layer_types",
    "swiglu_limit",
    "experts_per_token",
    "use_qk_norm",
    "attn_temperature_tuning",
    "floor_scale",
    "attn_scale",
    "no_rope_layers",
    "moe_layers",
    "rope_interleave",
    "attention_chunk_size",
    "for_llm_compressor",
    "interleave_moe_layer_step",
    "vision_config",
    "text_config",
    "boi_token_index",
    "eoi_token_index",
    "image_token_index",
    "num_nextn_predict_layers",
];

/// Reads an MoE-family config, or `None` when `model_type` is not one of them. `obj` is the
/// config (for Llama 4 the caller passes its `text_config`).
pub(super) fn import(
    model_type: &str,
    r: &mut Reader<'_>,
) -> Option<Result<(&'static str, Model), HfError>> {
    let family = match model_type {
        "deepseek_v3" | "deepseek_v2" => "DeepSeek-V3",
        "qwen3_moe" => "Qwen3-MoE",
        "qwen2_moe" => "Qwen2-MoE",
        "gpt_oss" => "gpt-oss",
        "llama4" | "llama4_text" => "Llama 4",
        _ => return None,
    };
    Some(read(model_type, r).map(|m| (family, m)))
}

fn read(model_type: &str, r: &mut Reader<'_>) -> Result<Model, HfError> {
    let heads = r.whole("num_attention_heads")?;
    let mut model = Model {
        layers: r.whole("num_hidden_layers")?,
        hidden: r.whole("hidden_size")?,
        heads,
        kv_heads: Some(r.opt_whole("num_key_value_heads")?.unwrap_or(heads)),
        ffn_hidden: None,
        ffn_act: FfnAct::Swiglu,
        head_dim: r.opt_whole("head_dim")?,
        ..r.common(false, "max_position_embeddings")?
    };
    let mut moe;
    match model_type {
        "deepseek_v3" | "deepseek_v2" => {
            moe = routed(r, "n_routed_experts")?;
            moe.shared_experts = r.opt_whole("n_shared_experts")?;
            moe.dense_layers = r.opt_count("first_k_dense_replace")?;
            moe.moe_every = r.opt_whole("moe_layer_freq")?.filter(|&n| n > 1);
            // Group-limited routing, unless the config routes greedily over all experts
            // (`topk_method: "greedy"`, DeepSeek-V2-Lite; V2 "group_limited_greedy", V3
            // "noaux_tc" use the groups: `modeling_deepseek.py` `MoEGate`).
            let greedy = r.obj.get("topk_method").and_then(Value::as_str) == Some("greedy");
            if let Some(g) = r.opt_whole("n_group")?.filter(|&g| g > 1 && !greedy) {
                moe.expert_groups = Some(g);
                moe.group_limit = r.opt_whole("topk_group")?.filter(|&l| l < g);
            }
            model.ffn_hidden = Some(r.whole("intermediate_size")?);
            model.mla = Some(Mla {
                q_lora_rank: r.opt_count("q_lora_rank")?.unwrap_or(0),
                kv_lora_rank: r.whole("kv_lora_rank")?,
                qk_nope_head_dim: r.whole("qk_nope_head_dim")?,
                qk_rope_head_dim: r.whole("qk_rope_head_dim")?,
                v_head_dim: r.whole("v_head_dim")?,
            });
            // MLA has one key/value "head" per query head; head_dim is the rotary part only.
            model.kv_heads = Some(heads);
            model.head_dim = None;
            model.mtp_layers = r.opt_count("num_nextn_predict_layers")?.filter(|&n| n > 0);
            r.used.extend(["topk_group", "topk_method"]);
        }
        "qwen3_moe" | "qwen2_moe" => {
            moe = routed(r, "num_experts")?;
            model.ffn_hidden = r.opt_whole("intermediate_size")?;
            if let Some(step) = r.opt_whole("decoder_sparse_step")?.filter(|&n| n > 1) {
                moe.moe_every = Some(step);
            }
            if model_type == "qwen2_moe" {
                if let Some(f) = r.opt_whole("shared_expert_intermediate_size")? {
                    moe.shared_experts = Some(1);
                    moe.shared_expert_ffn_hidden = Some(f);
                }
            } else {
                r.notes.push("Qwen3's QK-norm (two RMSNorms of head_dim per layer) is not counted; it is below 0.001 % of the parameters.".into());
            }
        }
        "gpt_oss" => {
            let top_k = match r.opt_whole("num_experts_per_tok")? {
                Some(k) => k,
                None => r.whole("experts_per_token")?,
            };
            let f = r.whole("intermediate_size")?;
            moe = Moe::new(r.whole("num_local_experts")?, top_k, f);
            model.ffn_hidden = Some(f);
            r.notes.push("gpt-oss alternates sliding-window (128 tokens) and full attention and has attention sinks and biases; paracalc prices every layer with full causal attention and no biases (they are below 0.05 % of the parameters).".into());
        }
        _ => {
            // Llama 4: routed experts and one shared expert of intermediate_size, dense layers
            // of intermediate_size_mlp; MoE every interleave_moe_layer_step-th layer.
            let f = r.whole("intermediate_size")?;
            moe = Moe::new(
                r.whole("num_local_experts")?,
                r.whole("num_experts_per_tok")?,
                f,
            );
            moe.shared_experts = Some(1);
            model.ffn_hidden = Some(r.opt_whole("intermediate_size_mlp")?.unwrap_or(f));
            moe.moe_every = r.opt_whole("interleave_moe_layer_step")?.filter(|&n| n > 1);
        }
    }
    model.moe = Some(moe);
    Ok(model)
}

/// The routed experts of the DeepSeek and Qwen MoE configs: the expert count under `experts`,
/// their top-k and their FFN width (`moe_intermediate_size`).
fn routed(r: &mut Reader<'_>, experts: &'static str) -> Result<Moe, HfError> {
    Ok(Moe::new(
        r.whole(experts)?,
        r.whole("num_experts_per_tok")?,
        r.whole("moe_intermediate_size")?,
    ))
}
