//! Import a Hugging Face `config.json` as a [`Model`].
//!
//! Pure (no web types, no I/O): the app passes the pasted or uploaded text in and shows the
//! [`HfImport::notes`] as plain text. Supported `model_type`s and the field names read:
//!
//! | family | `model_type` | layers / hidden / heads / KV heads / FFN | vocab / context / tied |
//! |---|---|---|---|
//! | Llama, Mistral, Qwen2 | `llama`, `mistral`, `qwen2` | `num_hidden_layers`, `hidden_size`, `num_attention_heads`, `num_key_value_heads`, `intermediate_size` (SwiGLU) | `vocab_size`, `max_position_embeddings`, `tie_word_embeddings` (default false) |
//! | Mixtral | `mixtral` | as Llama, plus `num_local_experts`, `num_experts_per_tok` (each expert's FFN is `intermediate_size`) | as Llama |
//! | GPT-2 | `gpt2` | `n_layer`, `n_embd`, `n_head`, `n_inner` (null = 4·`n_embd`, GELU) | `vocab_size`, `n_positions`, always tied |
//! | GPT-NeoX | `gpt_neox` | `num_hidden_layers`, `hidden_size`, `num_attention_heads`, `intermediate_size` (GELU) | `vocab_size`, `max_position_embeddings`, `tie_word_embeddings` (default false) |
//! | Falcon | `falcon`, `RefinedWeb`, `RefinedWebModel` | `num_hidden_layers`/`n_layer`, `hidden_size`, `num_attention_heads`/`n_head`, `num_kv_heads` (or `multi_query` → 1), `ffn_hidden_size` (default 4·h, GELU) | `vocab_size`, `max_position_embeddings`, `tie_word_embeddings` (default true) |
//!
//! | MoE and MLA families | `deepseek_v3`, `deepseek_v2`, `qwen3_moe`, `qwen2_moe`, `gpt_oss`, `llama4` | see `src/hf/moe.rs` |
//!
//! Field names follow the `transformers` configuration classes (`LlamaConfig`, `MistralConfig`,
//! `MixtralConfig`, `Qwen2Config`, `GPT2Config`, `GPTNeoXConfig`, `FalconConfig`). The sequence
//! length is a training choice, so it is kept from the current scenario; the config's context
//! length is mentioned in a note. Fields that do not change memory or time (norm epsilons, RoPE
//! settings, token ids…) are listed as ignored; fields paracalc does not know are listed as
//! unknown, so nothing is dropped silently.
//!
//! # Example
//! ```
//! let json = r#"{"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32,
//!   "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
//!   "vocab_size": 32000, "max_position_embeddings": 32768, "rms_norm_eps": 1e-5}"#;
//! let base = paracalc::presets::default_model_preset().scenario().model;
//! let got = paracalc::hf::import(json, &base)?;
//! assert_eq!(got.model.kv_heads, Some(8));
//! assert_eq!(got.model.ffn_act, paracalc::scenario::FfnAct::Swiglu);
//! Ok::<(), paracalc::hf::HfError>(())
//! ```
//!
//! Children:
//! - [`moe`]: the mixture-of-experts and latent-attention families.
//! - [`reader`]: reading a config's keys, and the [`HfError`] it reports.

mod moe;
mod reader;

pub use reader::HfError;
use reader::{clip, Reader};

use crate::scenario::{printable, FfnAct, Model, Moe};
use serde_json::{Map, Value};

/// The `model_type`s read, for messages.
const SUPPORTED: &str = "llama, mistral, mixtral, qwen2, gpt2, gpt_neox, falcon, deepseek_v3, deepseek_v2, qwen3_moe, qwen2_moe, gpt_oss, llama4";

/// The families of [`SUPPORTED`] in words, for the app's import card.
pub const FAMILIES: &str = "Llama, Llama 4, Mistral, Mixtral, Qwen2, Qwen2-MoE, Qwen3-MoE, \
                            DeepSeek-V2/V3, gpt-oss, GPT-2, GPT-NeoX and Falcon";

/// Largest config text read, in bytes (real configs are a few KiB).
pub const MAX_CONFIG_BYTES: usize = 256 * 1024;

/// The imported model and what the user should know about the import.
#[derive(Clone, Debug, PartialEq)]
pub struct HfImport {
    /// The model (sequence length kept from the base model).
    pub model: Model,
    /// The family recognised (`"Llama"`, `"GPT-2"`, …).
    pub family: &'static str,
    /// Plain-text notes: context length, ignored and unknown fields.
    pub notes: Vec<String>,
}

/// Fields that exist in the supported configs but do not change memory or time.
const IGNORED: &[&str] = &[
    "_name_or_path",
    "architectures",
    "model_type",
    "torch_dtype",
    "transformers_version",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "initializer_range",
    "rms_norm_eps",
    "layer_norm_eps",
    "layer_norm_epsilon",
    "rope_theta",
    "rope_scaling",
    "rotary_pct",
    "rotary_emb_base",
    "use_cache",
    "attention_dropout",
    "attention_bias",
    "mlp_bias",
    "hidden_dropout",
    "hidden_act",
    "activation_function",
    "pretraining_tp",
    "sliding_window",
    "use_sliding_window",
    "max_window_layers",
    "output_router_logits",
    "router_aux_loss_coef",
    "router_jitter_noise",
    "resid_pdrop",
    "embd_pdrop",
    "attn_pdrop",
    "summary_type",
    "summary_use_proj",
    "summary_activation",
    "summary_proj_to_labels",
    "summary_first_dropout",
    "scale_attn_weights",
    "scale_attn_by_inverse_layer_idx",
    "reorder_and_upcast_attn",
    "task_specific_params",
    "n_ctx",
    "use_parallel_residual",
    "classifier_dropout",
    "parallel_attn",
    "bias",
    "alibi",
    "new_decoder_architecture",
    "multi_query",
    "apply_residual_connection_post_layernorm",
    "auto_map",
    "head_dim",
    "quantization_config",
    "tokenizer_class",
    "use_flash_attn",
    "num_ln_in_parallel_attn",
];

/// Reads `json` (a `config.json`) into a model, starting from `base` for what a config does not
/// say (the sequence length and the name when the config has none).
///
/// # Errors
/// Not JSON, not an object, an unsupported `model_type`, or a required field missing or not a
/// positive whole number; the message names the field.
pub fn import(json: &str, base: &Model) -> Result<HfImport, HfError> {
    if json.len() > MAX_CONFIG_BYTES {
        return Err(HfError(format!(
            "The text is {} bytes long; a config.json is at most {MAX_CONFIG_BYTES} bytes.",
            json.len()
        )));
    }
    let value: Value = crate::scenario::json::parse::parse(json)
        .map_err(|e| HfError(format!("This is not valid JSON: {e}.")))?;
    let Value::Object(obj) = value else {
        return Err(HfError(
            "A config.json is a JSON object ({ … }); this is not one.".into(),
        ));
    };
    let model_type = obj
        .get("model_type")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| guess_type(&obj))
        .ok_or_else(|| {
            HfError(format!(
                "The config has no \"model_type\"; supported: {SUPPORTED}."
            ))
        })?;
    let mut r = Reader {
        obj: &obj,
        used: Vec::new(),
        notes: Vec::new(),
        base,
    };
    let (family, mut model) = match model_type.as_str() {
        "llama" | "mistral" | "qwen2" | "mixtral" => llama_like(&mut r, &model_type)?,
        "gpt2" => gpt2(&mut r)?,
        "gpt_neox" => gpt_neox(&mut r)?,
        "falcon" | "RefinedWeb" | "RefinedWebModel" => falcon(&mut r)?,
        other => {
            // Llama 4's text model sits in `text_config`.
            if other == "llama4" {
                r.obj = obj
                    .get("text_config")
                    .and_then(Value::as_object)
                    .unwrap_or(&obj);
            }
            match moe::import(other, &mut r) {
                Some(res) => res?,
                None => {
                    return Err(HfError(format!(
                        "model_type \"{}\" is not supported; supported: {SUPPORTED}.",
                        clip(other)
                    )))
                }
            }
        }
    };

    model.name = obj
        .get("_name_or_path")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(|s| clip_name(s.rsplit('/').next().unwrap_or(s)))
        .unwrap_or_else(|| format!("{family} (imported)"));

    let Reader {
        used, mut notes, ..
    } = r;
    unread_keys(&obj, &used, &mut notes);
    Ok(HfImport {
        model,
        family,
        notes,
    })
}

/// A family's reading of a config: the family's name and its model, or the first field error.
type Family = Result<(&'static str, Model), HfError>;

/// Llama, Mistral, Qwen2 and Mixtral (`model_type`), whose configs share their keys.
fn llama_like(r: &mut Reader<'_>, model_type: &str) -> Family {
    let family = match model_type {
        "llama" => "Llama",
        "mistral" => "Mistral",
        "qwen2" => "Qwen2",
        _ => "Mixtral",
    };
    let heads = r.whole("num_attention_heads")?;
    let ffn = r.whole("intermediate_size")?;
    let moe = if model_type == "mixtral" {
        let experts = r.whole("num_local_experts")?;
        let top_k = r.whole("num_experts_per_tok")?;
        Some(Moe::new(experts, top_k, ffn))
    } else {
        None
    };
    let model = Model {
        layers: r.whole("num_hidden_layers")?,
        hidden: r.whole("hidden_size")?,
        heads,
        kv_heads: Some(r.opt_whole("num_key_value_heads")?.unwrap_or(heads)),
        ffn_hidden: Some(ffn),
        ffn_act: r.act("hidden_act", FfnAct::Swiglu),
        moe,
        ..r.common(false, "max_position_embeddings")?
    };
    Ok((family, model))
}

/// GPT-2.
fn gpt2(r: &mut Reader<'_>) -> Family {
    let hidden = r.whole("n_embd")?;
    let ffn = r.opt_whole("n_inner")?;
    let model = Model {
        layers: r.whole("n_layer")?,
        hidden,
        heads: r.whole("n_head")?,
        kv_heads: None,
        ffn_hidden: Some(ffn.unwrap_or(hidden.saturating_mul(4))),
        ffn_act: r.act("activation_function", FfnAct::Gelu),
        ..r.common(true, "n_positions")?
    };
    Ok(("GPT-2", model))
}

/// GPT-NeoX.
fn gpt_neox(r: &mut Reader<'_>) -> Family {
    let model = Model {
        layers: r.whole("num_hidden_layers")?,
        hidden: r.whole("hidden_size")?,
        heads: r.whole("num_attention_heads")?,
        kv_heads: None,
        ffn_hidden: Some(r.whole("intermediate_size")?),
        ffn_act: r.act("hidden_act", FfnAct::Gelu),
        ..r.common(false, "max_position_embeddings")?
    };
    Ok(("GPT-NeoX", model))
}

/// Falcon (and its RefinedWeb configs): multi-query or grouped KV heads by config version.
fn falcon(r: &mut Reader<'_>) -> Family {
    let layers = match r.opt_whole("num_hidden_layers")? {
        Some(v) => v,
        None => r.whole("n_layer")?,
    };
    let heads = match r.opt_whole("num_attention_heads")? {
        Some(v) => v,
        None => r.whole("n_head")?,
    };
    let hidden = r.whole("hidden_size")?;
    let multi_query = r.opt_bool("multi_query")?.unwrap_or(false);
    let new_arch = r.opt_bool("new_decoder_architecture")?.unwrap_or(false);
    let kv = match r.opt_whole("num_kv_heads")? {
        Some(v) if new_arch || !multi_query => v,
        _ if multi_query => 1,
        Some(v) => v,
        None => heads,
    };
    let model = Model {
        layers,
        hidden,
        heads,
        kv_heads: Some(kv),
        ffn_hidden: Some(
            r.opt_whole("ffn_hidden_size")?
                .unwrap_or(hidden.saturating_mul(4)),
        ),
        ffn_act: FfnAct::Gelu,
        ..r.common(true, "max_position_embeddings")?
    };
    Ok(("Falcon", model))
}

/// Notes naming the keys of `obj` that the import did not read (`used`): known keys with no
/// effect on memory or time, and unknown ones.
fn unread_keys(obj: &Map<String, Value>, used: &[&str], notes: &mut Vec<String>) {
    let mut ignored = Vec::new();
    let mut unknown = Vec::new();
    for key in obj.keys() {
        if used.contains(&key.as_str()) {
            continue;
        }
        if IGNORED.contains(&key.as_str()) || moe::IGNORED.contains(&key.as_str()) {
            ignored.push(clip(key));
        } else {
            unknown.push(clip(key));
        }
    }
    if !ignored.is_empty() {
        notes.push(format!(
            "Not used (no effect on memory or time): {}.",
            ignored.join(", ")
        ));
    }
    if !unknown.is_empty() {
        notes.push(format!(
            "Unknown to paracalc, ignored — check they do not change the architecture: {}.",
            unknown.join(", ")
        ));
    }
}

/// `model_type` from `architectures` when a config lacks it (some Falcon configs).
fn guess_type(obj: &Map<String, Value>) -> Option<String> {
    let arch = obj.get("architectures")?.as_array()?.first()?.as_str()?;
    let t = match arch {
        a if a.starts_with("DeepseekV3") => "deepseek_v3",
        a if a.starts_with("Qwen3Moe") => "qwen3_moe",
        a if a.starts_with("Qwen2Moe") => "qwen2_moe",
        a if a.starts_with("GptOss") => "gpt_oss",
        a if a.starts_with("Llama4") => "llama4",
        a if a.starts_with("Llama") => "llama",
        a if a.starts_with("Mixtral") => "mixtral",
        a if a.starts_with("Mistral") => "mistral",
        a if a.starts_with("Qwen2") => "qwen2",
        a if a.starts_with("GPT2") => "gpt2",
        a if a.starts_with("GPTNeoX") => "gpt_neox",
        a if a.starts_with("Falcon") || a.starts_with("RW") => "falcon",
        _ => return None,
    };
    Some(t.to_string())
}

/// A model name: at most 80 characters, control characters replaced.
fn clip_name(s: &str) -> String {
    printable(s, 80).replace('\u{FFFD}', "")
}

#[cfg(test)]
mod tests {
    use super::{FAMILIES, SUPPORTED};

    #[test]
    fn the_import_card_names_every_supported_family() {
        // Each `model_type` the importer reads, and the words the app's card names it by.
        let named = [
            ("llama", "Llama"),
            ("mistral", "Mistral"),
            ("mixtral", "Mixtral"),
            ("qwen2", "Qwen2"),
            ("gpt2", "GPT-2"),
            ("gpt_neox", "GPT-NeoX"),
            ("falcon", "Falcon"),
            ("deepseek_v3", "DeepSeek-V2/V3"),
            ("deepseek_v2", "DeepSeek-V2/V3"),
            ("qwen3_moe", "Qwen3-MoE"),
            ("qwen2_moe", "Qwen2-MoE"),
            ("gpt_oss", "gpt-oss"),
            ("llama4", "Llama 4"),
        ];
        let types: Vec<&str> = SUPPORTED.split(", ").collect();
        assert_eq!(
            types,
            named.map(|(t, _)| t).to_vec(),
            "a type without a name"
        );
        for (t, words) in named {
            assert!(FAMILIES.contains(words), "{t}: {words} not in {FAMILIES}");
        }
    }
}
