//! Hugging Face `config.json` import, one config per supported family (written here, with the
//! numbers of the released configs), plus the errors users meet.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::hf::import;
use paracalc::presets::default_model_preset;
use paracalc::scenario::{FfnAct, Model, Moe};

fn base() -> Model {
    default_model_preset().scenario().model
}

#[test]
fn llama3_8b() {
    // meta-llama/Meta-Llama-3-8B config.json.
    let json = r#"{"architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
      "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096,
      "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 8192,
      "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
      "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 500000.0,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.40.0.dev0",
      "use_cache": true, "vocab_size": 128256, "_name_or_path": "meta-llama/Meta-Llama-3-8B"}"#;
    let got = import(json, &base()).unwrap();
    assert_eq!(got.family, "Llama");
    let m = got.model;
    assert_eq!(
        (m.layers, m.hidden, m.heads, m.kv_heads),
        (32, 4096, 32, Some(8))
    );
    assert_eq!(
        (m.ffn_hidden, m.ffn_act, m.vocab),
        (Some(14336), FfnAct::Swiglu, 128256)
    );
    assert!(!m.tied_embeddings);
    assert_eq!(m.name, "Meta-Llama-3-8B");
    assert_eq!(m.seq_len, base().seq_len, "sequence length is kept");
    assert!(
        got.notes.iter().any(|n| n.contains("Context length 8192")),
        "{:?}",
        got.notes
    );
    assert!(got
        .notes
        .iter()
        .any(|n| n.starts_with("Not used") && n.contains("rope_theta")));
    assert!(
        !got.notes.iter().any(|n| n.starts_with("Unknown")),
        "{:?}",
        got.notes
    );
}

#[test]
fn mistral_7b_and_unknown_fields_are_named() {
    let json = r#"{"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
      "vocab_size": 32000, "max_position_embeddings": 32768, "sliding_window": 4096,
      "hidden_act": "silu", "my_special_knob": 3, "<script>": 1}"#;
    let got = import(json, &base()).unwrap();
    assert_eq!(got.family, "Mistral");
    assert_eq!(got.model.kv_heads, Some(8));
    assert_eq!(got.model.name, "Mistral (imported)");
    let unknown = got.notes.iter().find(|n| n.starts_with("Unknown")).unwrap();
    assert!(
        unknown.contains("my_special_knob") && unknown.contains("<script>"),
        "{unknown}"
    );
}

#[test]
fn mixtral_8x7b() {
    let json = r#"{"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
      "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000,
      "max_position_embeddings": 32768, "router_aux_loss_coef": 0.02, "output_router_logits": false}"#;
    let m = import(json, &base()).unwrap().model;
    assert_eq!(m.moe, Some(Moe::new(8, 2, 14336)));
    assert_eq!(m.ffn_act, FfnAct::Swiglu);
}

#[test]
fn qwen2_72b() {
    let json = r#"{"model_type": "qwen2", "hidden_size": 8192, "intermediate_size": 29568,
      "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
      "vocab_size": 152064, "max_position_embeddings": 131072, "tie_word_embeddings": false,
      "use_sliding_window": false, "max_window_layers": 80, "sliding_window": 131072}"#;
    let got = import(json, &base()).unwrap();
    assert_eq!(got.family, "Qwen2");
    let m = got.model;
    assert_eq!(
        (m.layers, m.hidden, m.heads, m.kv_heads, m.vocab),
        (80, 8192, 64, Some(8), 152064)
    );
    assert_eq!(m.ffn_hidden, Some(29568));
}

#[test]
fn gpt2_small() {
    // openai-community/gpt2: n_inner null means 4·n_embd; embeddings are tied.
    let json = r#"{"model_type": "gpt2", "activation_function": "gelu_new", "n_ctx": 1024,
      "n_embd": 768, "n_head": 12, "n_inner": null, "n_layer": 12, "n_positions": 1024,
      "vocab_size": 50257, "layer_norm_epsilon": 1e-05, "resid_pdrop": 0.1,
      "task_specific_params": {"text-generation": {"do_sample": true}}}"#;
    let got = import(json, &base()).unwrap();
    assert_eq!(got.family, "GPT-2");
    let m = got.model;
    assert_eq!(
        (m.layers, m.hidden, m.heads, m.kv_heads),
        (12, 768, 12, None)
    );
    assert_eq!(
        (m.ffn_hidden, m.ffn_act, m.vocab),
        (Some(3072), FfnAct::Gelu, 50257)
    );
    assert!(m.tied_embeddings);
}

#[test]
fn gpt_neox_20b() {
    let json = r#"{"model_type": "gpt_neox", "hidden_size": 6144, "intermediate_size": 24576,
      "num_attention_heads": 64, "num_hidden_layers": 44, "vocab_size": 50432,
      "max_position_embeddings": 2048, "hidden_act": "gelu_fast", "rotary_pct": 0.25,
      "use_parallel_residual": true, "tie_word_embeddings": false}"#;
    let got = import(json, &base()).unwrap();
    assert_eq!(got.family, "GPT-NeoX");
    let m = got.model;
    assert_eq!(
        (m.layers, m.hidden, m.heads, m.ffn_hidden),
        (44, 6144, 64, Some(24576))
    );
    assert_eq!(m.ffn_act, FfnAct::Gelu);
    assert!(!m.tied_embeddings);
}

#[test]
fn falcon_40b_and_7b() {
    // tiiuae/falcon-40b (new decoder architecture, 8 KV groups).
    let json = r#"{"model_type": "falcon", "hidden_size": 8192, "num_attention_heads": 128,
      "num_hidden_layers": 60, "num_kv_heads": 8, "new_decoder_architecture": true,
      "vocab_size": 65024, "parallel_attn": true, "bias": false, "alibi": false}"#;
    let got = import(json, &base()).unwrap();
    assert_eq!(got.family, "Falcon");
    let m = got.model;
    assert_eq!(
        (m.layers, m.hidden, m.heads, m.kv_heads),
        (60, 8192, 128, Some(8))
    );
    assert_eq!(m.ffn_hidden, Some(4 * 8192));
    assert!(m.tied_embeddings);
    // tiiuae/falcon-7b (RefinedWebModel, multi-query: 1 KV head, old key names).
    let json = r#"{"model_type": "RefinedWebModel", "hidden_size": 4544, "n_head": 71,
      "n_layer": 32, "multi_query": true, "vocab_size": 65024, "parallel_attn": true}"#;
    let m = import(json, &base()).unwrap().model;
    assert_eq!((m.layers, m.heads, m.kv_heads), (32, 71, Some(1)));
}

#[test]
fn clear_errors() {
    let e = |j: &str| import(j, &base()).unwrap_err().0;
    assert!(e("{").starts_with("This is not valid JSON"));
    assert!(e("[1]").contains("JSON object"));
    let t5 = e(r#"{"model_type": "t5", "d_model": 512}"#);
    assert!(
        t5.contains("\"t5\" is not supported") && t5.contains("gpt_neox"),
        "{t5}"
    );
    let missing = e(r#"{"model_type": "llama", "hidden_size": 4096}"#);
    assert!(missing.contains("num_attention_heads"), "{missing}");
    let bad =
        e(r#"{"model_type": "gpt2", "n_embd": -5, "n_layer": 2, "n_head": 1, "vocab_size": 9}"#);
    assert!(
        bad.contains("n_embd must be a positive whole number"),
        "{bad}"
    );
    assert!(e(&"x".repeat(300_000)).contains("bytes long"));
}
