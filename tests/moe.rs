//! Mixture-of-experts models (issue 12): parameter counts against the published totals, the
//! Hugging Face import of the six MoE families, Megatron-LM's theoretical memory formula for
//! MoE/MLA, and the DeepSeek-V3 estimate on 2048 H800s.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::engine::{estimate, memory::params};
use paracalc::hf;
use paracalc::scenario::{self, Model};

mod common;

/// The models of the published configs (`config.json` of each on the Hugging Face hub; DeepSeek-V3
/// report; OpenAI gpt-oss model card; Mixtral paper).
/// The model section of a published MoE model, as JSON.
fn model_json(id: &str) -> serde_json::Value {
    let json = match id {
        "deepseek-v3" => {
            r#"{"layers": 61, "hidden": 7168, "heads": 128, "kv_heads": 128, "ffn_hidden": 18432,
            "ffn_act": "swiglu", "vocab": 129280, "seq_len": 4096,
            "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1,
                    "dense_layers": 3, "expert_groups": 8, "group_limit": 4},
            "mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                    "qk_rope_head_dim": 64, "v_head_dim": 128},
            "mtp_layers": 1}"#
        }
        "qwen3-235b-a22b" => {
            r#"{"layers": 94, "hidden": 4096, "heads": 64, "kv_heads": 4, "head_dim": 128,
            "ffn_hidden": 12288, "ffn_act": "swiglu", "vocab": 151936, "seq_len": 4096,
            "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 1536}}"#
        }
        "qwen3-30b-a3b" => {
            r#"{"layers": 48, "hidden": 2048, "heads": 32, "kv_heads": 4, "head_dim": 128,
            "ffn_hidden": 6144, "ffn_act": "swiglu", "vocab": 151936, "seq_len": 4096,
            "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 768}}"#
        }
        "gpt-oss-120b" => {
            r#"{"layers": 36, "hidden": 2880, "heads": 64, "kv_heads": 8, "head_dim": 64,
            "ffn_hidden": 2880, "ffn_act": "swiglu", "vocab": 201088, "seq_len": 4096,
            "moe": {"experts": 128, "top_k": 4, "expert_ffn_hidden": 2880}}"#
        }
        "gpt-oss-20b" => {
            r#"{"layers": 24, "hidden": 2880, "heads": 64, "kv_heads": 8, "head_dim": 64,
            "ffn_hidden": 2880, "ffn_act": "swiglu", "vocab": 201088, "seq_len": 4096,
            "moe": {"experts": 32, "top_k": 4, "expert_ffn_hidden": 2880}}"#
        }
        "mixtral-8x7b" => {
            r#"{"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
            "ffn_act": "swiglu", "vocab": 32000, "seq_len": 4096,
            "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 14336}}"#
        }
        "mixtral-8x22b" => {
            r#"{"layers": 56, "hidden": 6144, "heads": 48, "kv_heads": 8, "ffn_hidden": 16384,
            "ffn_act": "swiglu", "vocab": 32768, "seq_len": 4096,
            "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 16384}}"#
        }
        "llama4-maverick" => {
            r#"{"layers": 48, "hidden": 5120, "heads": 40, "kv_heads": 8, "head_dim": 128,
            "ffn_hidden": 16384, "ffn_act": "swiglu", "vocab": 202048, "seq_len": 8192,
            "moe": {"experts": 128, "top_k": 1, "expert_ffn_hidden": 8192, "shared_experts": 1,
                    "moe_every": 2}}"#
        }
        _ => panic!("no model {id}"),
    };
    serde_json::from_str(json).unwrap()
}

/// A published MoE model.
fn preset(id: &str) -> Model {
    paracalc::scenario::model_from_value(&model_json(id)).unwrap()
}

/// `got` within `rel` (fraction) of `want`.
fn within(got: f64, want: f64, rel: f64, what: &str) {
    let err = (got - want) / want;
    eprintln!("{what}: {got:.6e} vs {want:.6e} ({:+.3} %)", 100.0 * err);
    assert!(
        err.abs() <= rel,
        "{what}: {got:.4e} vs {want:.4e} ({:+.3} %)",
        100.0 * err
    );
}

/// Active parameters as DeepSeek and OpenAI count them: without the input embedding (a table
/// lookup, no FLOPs).
fn active_without_input_embedding(m: &Model) -> f64 {
    params::total_active_params(m) - params::embedding_params(m)
}

#[test]
fn published_totals_and_active_counts() {
    // Totals within 0.5 % of the published figures.
    let mut v3 = preset("deepseek-v3");
    // DeepSeek-V3 report §1: 671B total (main model); the Hugging Face card: 685B with the 14B
    // MTP module (which the card stores with its own copies of the embedding and head; ours
    // shares them, so 683B).
    within(params::total_params(&v3), 685e9, 0.005, "DeepSeek-V3 + MTP");
    v3.mtp_layers = None;
    within(params::total_params(&v3), 671e9, 0.005, "DeepSeek-V3");
    within(
        params::total_params(&preset("qwen3-235b-a22b")),
        235e9,
        0.005,
        "Qwen3-235B",
    );
    within(
        params::total_params(&preset("qwen3-30b-a3b")),
        30.5e9,
        0.005,
        "Qwen3-30B",
    );
    within(
        params::total_params(&preset("gpt-oss-120b")),
        116.83e9,
        0.005,
        "gpt-oss-120b",
    );
    within(
        params::total_params(&preset("gpt-oss-20b")),
        20.91e9,
        0.005,
        "gpt-oss-20b",
    );
    within(
        params::total_params(&preset("mixtral-8x7b")),
        46.7e9,
        0.005,
        "Mixtral 8x7B",
    );
    within(
        params::total_params(&preset("mixtral-8x22b")),
        141e9,
        0.005,
        "Mixtral 8x22B",
    );
    within(
        params::total_params(&preset("llama4-maverick")),
        400e9,
        0.005,
        "Llama 4 Maverick",
    );
    // Active counts: gpt-oss (OpenAI model card, 3 significant digits) within 0.5 % without the
    // input embedding; Mixtral (Mistral: 12.9B, 39B) within 0.5 % with it.
    within(
        active_without_input_embedding(&preset("gpt-oss-120b")),
        5.13e9,
        0.005,
        "gpt-oss-120b active",
    );
    within(
        active_without_input_embedding(&preset("gpt-oss-20b")),
        3.61e9,
        0.005,
        "gpt-oss-20b active",
    );
    within(
        params::total_active_params(&preset("mixtral-8x7b")),
        12.9e9,
        0.005,
        "Mixtral 8x7B active",
    );
    within(
        params::total_active_params(&preset("mixtral-8x22b")),
        39e9,
        0.005,
        "Mixtral 8x22B active",
    );
    // Published to whole billions: within half a unit of the last digit (37B: 36.63B without
    // the input embedding; 22B: 22.19B; 17B: 17.18B) — the rounding of the figure itself is
    // 1-3 % here, so 0.5 % cannot be asked of these.
    let near = |got: f64, want: f64, what: &str| {
        assert!((got / 1e9 - want).abs() < 0.5, "{what}: {got:.4e}");
    };
    near(
        active_without_input_embedding(&v3),
        37.0,
        "DeepSeek-V3 active",
    );
    near(
        params::total_active_params(&preset("qwen3-235b-a22b")),
        22.0,
        "Qwen3-235B active",
    );
    near(
        params::total_active_params(&preset("llama4-maverick")),
        17.0,
        "Llama 4 active",
    );
    // Qwen3-30B-A3B "3.3B activated": 3.35B with both embeddings (the Qwen convention, as for
    // the 235B model), 1.6 % above the one-decimal figure.
    within(
        params::total_active_params(&preset("qwen3-30b-a3b")),
        3.3e9,
        0.017,
        "Qwen3-30B active",
    );
}

#[test]
fn deepseek_v3_by_hand() {
    // MLA per layer: q down 7168·1536 + q up 1536·128·192 + kv down 7168·576 + kv up
    // 512·128·256 + out 128·128·7168 + latent norms 1536 + 512 = 187,107,328.
    let m = preset("deepseek-v3");
    assert_eq!(params::attention_params(&m), 187_107_328.0);
    // MoE layer: + 256 experts 3·7168·2048 + shared 3·7168·2048 + router 7168·256 + norms.
    let expert = 3.0 * 7168.0 * 2048.0;
    assert_eq!(
        params::moe_layer_params(&m),
        187_107_328.0 + 257.0 * expert + 7168.0 * 256.0 + 2.0 * 7168.0
    );
    assert_eq!(
        params::dense_layer_params(&m),
        187_107_328.0 + 3.0 * 7168.0 * 18432.0 + 2.0 * 7168.0
    );
}

fn import(json: &str) -> Model {
    let base = paracalc::presets::default_model_preset().scenario().model;
    let got = hf::import(json, &base).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !got.notes.iter().any(|n| n.starts_with("Unknown")),
        "{:?}",
        got.notes
    );
    got.model
}

#[test]
fn hugging_face_configs_give_the_published_counts() {
    // The configs' architecture keys as published on the Hugging Face hub (routing keys that do
    // not change memory or time included to show they are recognised).
    let v3 = import(
        r#"{"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
        "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
        "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
        "n_shared_experts": 1, "n_routed_experts": 256, "num_experts_per_tok": 8,
        "first_k_dense_replace": 3, "moe_layer_freq": 1, "q_lora_rank": 1536, "kv_lora_rank": 512,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "num_nextn_predict_layers": 1, "vocab_size": 129280, "tie_word_embeddings": false,
        "max_position_embeddings": 163840, "n_group": 8, "topk_group": 4, "topk_method": "noaux_tc",
        "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "norm_topk_prob": true,
        "hidden_act": "silu", "rms_norm_eps": 1e-06, "rope_theta": 10000, "ep_size": 1,
        "aux_loss_alpha": 0.001, "seq_aux": true, "attention_bias": false, "torch_dtype": "bfloat16"}"#,
    );
    assert_eq!(v3.mtp_layers, Some(1));
    // Node-limited routing read from n_group / topk_group: the preset's MoE block exactly.
    let moe = v3.moe.expect("experts");
    assert_eq!((moe.expert_groups, moe.group_limit), (Some(8), Some(4)));
    assert_eq!(v3.moe, preset("deepseek-v3").moe);
    assert_eq!(
        params::total_params(&v3),
        params::total_params(&preset("deepseek-v3"))
    );
    within(
        params::total_params(&v3),
        685e9,
        0.005,
        "DeepSeek-V3 import",
    );
    let q30 = import(
        r#"{"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
        "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
        "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4,
        "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1,
        "mlp_only_layers": [], "vocab_size": 151936, "tie_word_embeddings": false,
        "max_position_embeddings": 40960, "norm_topk_prob": true, "hidden_act": "silu",
        "output_router_logits": false, "router_aux_loss_coef": 0.001, "use_sliding_window": false,
        "sliding_window": null, "max_window_layers": 48, "rope_theta": 1000000.0}"#,
    );
    within(
        params::total_params(&q30),
        30.5e9,
        0.005,
        "Qwen3-30B import",
    );
    let q235 = import(
        r#"{"model_type": "qwen3_moe", "hidden_size": 4096, "intermediate_size": 12288,
        "moe_intermediate_size": 1536, "num_hidden_layers": 94, "num_attention_heads": 64,
        "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8,
        "vocab_size": 151936, "tie_word_embeddings": false}"#,
    );
    within(
        params::total_params(&q235),
        235e9,
        0.005,
        "Qwen3-235B import",
    );
    // Qwen2-57B-A14B (model card: 57B total, 14B activated), one shared expert of 20480.
    let q2 = import(
        r#"{"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe",
        "hidden_size": 3584, "intermediate_size": 18944, "moe_intermediate_size": 2560,
        "shared_expert_intermediate_size": 20480, "num_hidden_layers": 28,
        "num_attention_heads": 28, "num_key_value_heads": 4, "num_experts": 64,
        "num_experts_per_tok": 8, "vocab_size": 151936, "tie_word_embeddings": false,
        "decoder_sparse_step": 1, "norm_topk_prob": false}"#,
    );
    within(params::total_params(&q2), 57.4e9, 0.005, "Qwen2-57B import");
    assert!((params::total_active_params(&q2) / 1e9 - 14.0).abs() < 0.5);
    let oss = import(
        r#"{"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
        "num_hidden_layers": 36, "hidden_size": 2880, "intermediate_size": 2880,
        "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
        "num_local_experts": 128, "num_experts_per_tok": 4, "experts_per_token": 4,
        "vocab_size": 201088, "tie_word_embeddings": false, "sliding_window": 128,
        "layer_types": ["sliding_attention", "full_attention"], "swiglu_limit": 7.0,
        "attention_bias": true, "hidden_act": "silu", "max_position_embeddings": 131072}"#,
    );
    within(
        params::total_params(&oss),
        116.83e9,
        0.005,
        "gpt-oss-120b import",
    );
    within(
        active_without_input_embedding(&oss),
        5.13e9,
        0.005,
        "gpt-oss-120b import active",
    );
    let mixtral = import(
        r#"{"model_type": "mixtral", "hidden_size": 6144, "intermediate_size": 16384,
        "num_hidden_layers": 56, "num_attention_heads": 48, "num_key_value_heads": 8,
        "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32768}"#,
    );
    within(
        params::total_params(&mixtral),
        141e9,
        0.005,
        "Mixtral 8x22B import",
    );
    let l4 = import(
        r#"{"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
        "tie_word_embeddings": false, "vision_config": {"hidden_size": 1408},
        "text_config": {"model_type": "llama4_text", "hidden_size": 5120,
          "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_hidden_layers": 48,
          "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
          "num_local_experts": 128, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2,
          "vocab_size": 202048, "tie_word_embeddings": false}}"#,
    );
    within(
        params::total_params(&l4),
        400e9,
        0.005,
        "Llama 4 Maverick import",
    );
    assert_eq!(
        params::total_params(&l4),
        params::total_params(&preset("llama4-maverick"))
    );
}

fn scen(v: serde_json::Value) -> scenario::Scenario {
    scenario::from_value(&v).unwrap()
}

/// Megatron-LM `megatron/training/theoretical_memory_usage.py` at commit `d98e8a6`
/// (`compute_weight_and_optimizer_memory`): the bytes of weights, gradients and optimizer
/// states on the most-loaded shard, hand-computed from that formula for two layouts, against
/// the engine's model states (weights + gradients + optimizer) within 3 %.
#[test]
fn megatron_theoretical_memory_for_moe_and_mla() {
    // DeepSeek-V3 (MLA, 3 dense + 58 MoE layers, 1 shared expert, 1 MTP module), tp 2, pp 1,
    // ep 64, etp 1 on 512 GPUs, distributed optimizer: dp 256, expert-dp 8.
    // tp-sharded (att·61 + dense MLP·3 + shared·58 + MTP att + shared + embedding·2)/2 =
    // 8,620,734,464; replicated (norms, routers, final norm, MTP) 109,161,472; experts
    // 256·3·7168·2048·59/64 = 10,393,485,312 →
    // (8,620,734,464 + 109,161,472)·(6 + 12/256) + 10,393,485,312·(6 + 12/8) = 130,739,729,328 B.
    let v3 = scen(serde_json::json!({
        "model": model_json("deepseek-v3"),
        "training": {"global_batch": 512, "micro_batch": 1, "precision": "bf16", "recompute": "full"},
        "parallel": {"tp": 2, "pp": 1, "dp": 256, "ep": 64, "etp": 1, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 512}
    }));
    let e = estimate(&v3).unwrap();
    within(
        e.memory.stages()[0].model_states_bytes(),
        130_739_729_328.0,
        0.03,
        "DeepSeek-V3 states",
    );
    // Mixtral 8x7B, tp 2, ep 4, etp 2 (= tp), 16 GPUs: dp 8, expert-dp 2.
    // tp-sharded (att + embedding·2)·… /2 = 802,160,640; replicated 1,314,816; experts
    // 8·3·4096·14336·32/8 = 5,637,144,576 → 73,671,800,832 B.
    let mx = scen(serde_json::json!({
        "model": model_json("mixtral-8x7b"),
        "training": {"global_batch": 64, "micro_batch": 1, "precision": "bf16", "recompute": "full"},
        "parallel": {"tp": 2, "pp": 1, "dp": 8, "ep": 4, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 16}
    }));
    let e = estimate(&mx).unwrap();
    within(
        e.memory.stages()[0].model_states_bytes(),
        73_671_800_832.0,
        0.03,
        "Mixtral states",
    );
}

#[test]
fn deepseek_v3_on_2048_h800s() {
    // DeepSeek-V3 report (arXiv 2412.19437) §3.1-3.3: 2048 H800, PP 16, EP 64, ZeRO-1 DP,
    // no TP, FP8, batch 15360 × 4096; recomputed in backward (§3.2.3, §3.3.3): RMSNorm, the MLA
    // up-projections and the SwiGLU output of the experts.
    let s = scen(serde_json::json!({
        "model": model_json("deepseek-v3"),
        "training": {"global_batch": 15360, "micro_batch": 1, "precision": "fp8",
                     "recompute": "selective", "flash_attention": true,
                     "recompute_modules": ["mla_up_proj", "layernorm", "moe_act"]},
        "parallel": {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "etp": 1, "zero_stage": 1},
        "cluster": {"gpu": "h800-sxm5-80gb", "num_gpus": 2048, "gpus_per_node": 8}
    }));
    let e = estimate(&s).unwrap();
    assert_eq!(e.memory.stages().len(), 16);
    // Stage 0 holds the three dense layers and the embedding; the last stage the MTP module.
    // Transformer Engine keeps the linear layers' inputs in FP8 (as the report's §3.3.3 caches
    // them). With the even split (3, 3, 4, …, 4, 3 layers) and 1F1B, stage 2 holds 4 layers for
    // 14 micro-batches in flight: 60.7 GiB with Megatron-Core's routing probabilities applied
    // inside the experts (no expert output kept for the combine) and no dropout masks (NeMo's
    // `DeepSeekConfig` dropouts 0.0; about 63.9 GiB with them), within the H800's 79.65. NCCL's
    // buffers in it: EP 64 and DP 128 at 8 ranks per node, 16 channels × (21 + 6.9) and
    // (21 + 7.2) MiB, and the pipeline pair 2 × 20 MiB: 937 MiB.
    let gib = |b: f64| b / 1073741824.0;
    assert!(e.memory.fits);
    assert_eq!(e.memory.stages()[2].layers, 4);
    assert!((e.memory.stages()[2].comm_buffers_bytes / 1048576.0 - 937.0).abs() < 0.5);
    assert!(
        (gib(e.memory.peak_bytes) - 60.65).abs() < 0.1,
        "{:.2}",
        gib(e.memory.peak_bytes)
    );
    // Weighted at the combine instead (Megatron-Core 0.12.0 and older), each of stage 2's 4 layers × 14
    // micro-batches also keeps 8 routed rows of 2·7168 B per token, 4096 tokens: 470 MB each,
    // 24.5 GiB and the allocator's 5 % on it, 25.7 GiB more, 86.4 GiB, over the H800; the
    // tapered split the engine proposes (fewer layers where more micro-batches are in flight)
    // fits, no slower.
    let mut s = s;
    s.training.moe_probs_in_experts = Some(false);
    let old = estimate(&s).unwrap();
    assert!(!old.memory.fits);
    assert!(
        (gib(old.memory.peak_bytes - e.memory.peak_bytes)
            - 1.05 * 4.0 * 14.0 * 4096.0 * 8.0 * 14336.0 / 1073741824.0)
            .abs()
            < 1e-6,
        "{:.3}",
        gib(old.memory.peak_bytes - e.memory.peak_bytes)
    );
    assert!(
        (gib(old.memory.peak_bytes) - 86.35).abs() < 0.1,
        "{:.2}",
        gib(old.memory.peak_bytes)
    );
    let split = paracalc::engine::split::best_split(&s).unwrap().unwrap();
    assert!(split.fits && gib(split.peak_bytes) < 75.0, "{split:?}");
    assert!(split.step_s <= split.base_step_s * (1.0 + 1e-9));
    // The EP all-to-all crosses nodes (64 ranks, 8 per node) and is a named part of the step.
    assert!(e.time.exposed_comm_s.ep > 0.0);
    assert_eq!(e.comm.ep.group, 64);
    assert_eq!(e.comm.ep.link, paracalc::engine::time::comm::Link::Network);
    common::assert_breakdown(&e);
}

#[test]
fn dualpipe_hides_the_all_to_all_but_not_its_sms() {
    // The report's plan (§3.2): DualPipe, DeepEP-style dispatch limited to 4 nodes. Under the
    // paired chunk the dispatch and combine run beside compute on 20 of the H800's 132 SMs
    // (§3.2.2; DeepEP `Buffer.num_sms = 20`), so 20/132 of the hidden time stays in the step as
    // the compute's lost SMs, the rest is hidden; the pipeline sends (InfiniBand) hold NCCL's
    // 2 channels to each of two peers (`NCCL_NCHANNELS_PER_NET_PEER`), 4 of the 132 SMs.
    let plan = |schedule: &str| {
        scen(serde_json::json!({
            "model": model_json("deepseek-v3"),
            "training": {"global_batch": 15360, "micro_batch": 1, "precision": "fp8",
                         "fp8_recipe": "blockwise", "recompute": "selective",
                         "flash_attention": true,
                         "recompute_modules": ["mla_up_proj", "layernorm", "moe_act"]},
            "parallel": {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "etp": 1, "zero_stage": 1,
                         "schedule": schedule, "moe_dispatcher": "deepep"},
            "cluster": {"gpu": "h800-sxm5-80gb", "num_gpus": 2048, "gpus_per_node": 8}
        }))
    };
    let e = estimate(&plan("dualpipe")).unwrap();
    let (ep_x, ep_h) = (e.time.exposed_comm_s.ep, e.time.hidden_comm_s.ep);
    assert!(ep_h > 1.0, "{ep_h}");
    assert!(
        (ep_x / (ep_x + ep_h) - 20.0 / 132.0).abs() < 1e-9,
        "{ep_x} {ep_h}"
    );
    let (pp_x, pp_h) = (e.time.exposed_comm_s.pp, e.time.hidden_comm_s.pp);
    assert!(
        (pp_x / (pp_x + pp_h) - 4.0 / 132.0).abs() < 1e-9,
        "{pp_x} {pp_h}"
    );
    // Each dimension keeps its own hidden time (EP's all-to-all is far larger than PP's sends).
    assert!(ep_h > 5.0 * pp_h, "{ep_h} {pp_h}");
    common::assert_breakdown(&e);
    // Under 1F1B nothing pairs: the all-to-all is exposed in full, and the step is longer.
    let f = estimate(&plan("1f1b")).unwrap();
    assert_eq!(f.time.hidden_comm_s.ep, 0.0);
    assert!(f.time.exposed_comm_s.ep > 2.0 * ep_h);
    assert!(f.time.step_s > 1.5 * e.time.step_s);
}

#[test]
fn megatron_runs_more_tp_ranks_than_kv_heads() {
    // Qwen3-30B-A3B (4 KV heads of 128) at TP 8 with SP, as Megatron-LM runs it since f7dfb99
    // (PR #2565): accepted, each rank keeping one whole K and V head, 2·128 wide instead of
    // 2·4·128/8 = 2·64: 4096 tokens × 2 B × 2·64 = 1 MiB more per layer than an even split.
    let plan = |tp: u64, kv_heads: u64| {
        let mut m = model_json("qwen3-30b-a3b");
        m["kv_heads"] = serde_json::json!(kv_heads);
        scen(serde_json::json!({
            "model": m,
            "training": {"global_batch": 512, "micro_batch": 1, "precision": "bf16",
                         "recompute": "none", "flash_attention": true},
            "parallel": {"tp": tp, "pp": 1, "dp": 64 / tp, "ep": 8, "etp": 1, "sp": true,
                         "zero_stage": 1},
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 64, "gpus_per_node": 8}
        }))
    };
    let s = plan(8, 4);
    assert!(s.validate().is_ok());
    let act = |s: &scenario::Scenario| {
        let a = paracalc::engine::memory::activations::layer_activations_full(s);
        a.replicated + a.sharded + a.scores
    };
    // With 8 KV heads each rank holds one already: the layer keeps the same bytes.
    assert!((act(&s) - act(&plan(8, 8))).abs() < 1e-6);
    // Against 4 KV heads split evenly (as if they could be): one head more each of K and V.
    let with_heads = |kv: u64| {
        let mut t = plan(8, 4);
        t.model.kv_heads = Some(kv);
        act(&t)
    };
    let even = with_heads(8) - 4096.0 * 2.0 * 2.0 * 64.0;
    assert!(
        (act(&s) - even - 1048576.0).abs() < 1e-6,
        "{}",
        act(&s) - even
    );
    let e = estimate(&s).unwrap();
    assert!(e.memory.fits);
    common::assert_breakdown(&e);
    // TP 8 gathers the fused QKV output besides the SP collectives: more exposed TP time than
    // at TP 4 (which splits the 4 heads evenly, one per rank).
    let four = estimate(&plan(4, 4)).unwrap();
    assert!(e.time.exposed_comm_s.tp > four.time.exposed_comm_s.tp);
    // A TP that is neither a divisor nor a multiple of the KV heads stays rejected.
    let mut odd = plan(8, 4);
    odd.model.heads = 48;
    odd.model.kv_heads = Some(6);
    assert!(odd.validate().is_err());
}

#[test]
fn estimate_report_names_the_ep_all_to_all() {
    let v = serde_json::json!({
        "model": model_json("deepseek-v3"),
        "training": {"global_batch": 15360, "micro_batch": 1, "precision": "fp8",
                     "recompute": "selective", "flash_attention": true},
        "parallel": {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "etp": 1, "zero_stage": 1},
        "cluster": {"gpu": "h800-sxm5-80gb", "num_gpus": 2048, "gpus_per_node": 8}
    });
    let path = std::env::temp_dir().join(format!("paracalc-{}-dsv3.json", std::process::id()));
    std::fs::write(&path, v.to_string()).unwrap();
    let args: Vec<String> = ["estimate", path.to_str().unwrap()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = paracalc::cli::run(&args).unwrap();
    // One memory row per stage (16), and the EP all-to-all named with its group and link.
    assert!(
        out.contains("Memory per GPU (GiB) by pipeline stage"),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("15 ")),
        "{out}"
    );
    assert!(
        out.contains("ep: MoE token dispatch + combine all-to-all over 64 ranks (across nodes)"),
        "{out}"
    );
}

#[test]
fn search_folds_experts_over_tp_and_dp() {
    use paracalc::engine::search::{search, SearchSpace};
    // Mixtral 8x7B on 16 H100: the search tries etp = tp and etp = 1, and ep up to
    // tp·cp·dp/etp, so layouts with more expert-parallel ranks than data-parallel ones appear.
    let s = scen(serde_json::json!({
        "model": model_json("mixtral-8x7b"),
        "training": {"global_batch": 64, "micro_batch": 1, "precision": "bf16", "recompute": "full"},
        "parallel": {"tp": 2, "pp": 1, "dp": 8, "ep": 4, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 16}
    }));
    let space = SearchSpace {
        top: 100_000,
        ..SearchSpace::default()
    };
    let r = search(&s, &space);
    assert!(r.best.iter().any(|x| x.layout.ep > x.layout.dp));
    assert!(r.best.iter().any(|x| x.layout.tp > 1 && x.layout.etp == 1));
    for x in &r.best {
        let l = &x.layout;
        assert_eq!((l.tp * l.cp * l.dp) % (l.ep * l.etp), 0, "{l:?}");
        let mut t = s.clone();
        l.apply(&mut t);
        assert!(estimate(&t).is_ok(), "{l:?}");
    }
}

#[test]
fn megatron_arguments_for_moe_and_mla() {
    let s = scen(serde_json::json!({
        "model": model_json("deepseek-v3"),
        "training": {"global_batch": 15360, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
        "parallel": {"tp": 2, "pp": 16, "dp": 64, "ep": 64, "etp": 1, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 2048}
    }));
    let args = paracalc::megatron::launch_args(&s);
    for want in [
        "--multi-latent-attention",
        "--q-lora-rank 1536",
        "--kv-lora-rank 512",
        "--qk-head-dim 128",
        "--qk-pos-emb-head-dim 64",
        "--v-head-dim 128",
        "--num-experts 256",
        "--moe-router-topk 8",
        "--moe-ffn-hidden-size 2048",
        "--moe-shared-expert-intermediate-size 2048",
        "--moe-layer-freq ([0]*3+[1]*58)",
        "--moe-router-num-groups 8",
        "--moe-router-group-topk 4",
        "--mtp-num-layers 1",
        "--expert-model-parallel-size 64",
        "--expert-tensor-parallel-size 1",
    ] {
        assert!(
            args.lines().any(|l| l.trim_end_matches(" \\") == want),
            "{want}:\n{args}"
        );
    }
    // Llama 4 Maverick: MoE every other layer, head_dim 128 = 5120/40 needs no --kv-channels;
    // Qwen3 (head_dim 128 ≠ 2048/32) does.
    let l4 = scen(serde_json::json!({
        "model": model_json("llama4-maverick"),
        "training": {"global_batch": 1024, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
        "parallel": {"tp": 4, "pp": 1, "dp": 128, "ep": 128, "etp": 4, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 512}
    }));
    let args = paracalc::megatron::launch_args(&l4);
    assert!(args.contains("--moe-layer-freq 2"), "{args}");
    assert!(!args.contains("--kv-channels") && !args.contains("--expert-tensor-parallel-size"));
    let q = scen(serde_json::json!({
        "model": model_json("qwen3-30b-a3b"),
        "training": {"global_batch": 512, "micro_batch": 4, "precision": "bf16", "recompute": "none"},
        "parallel": {"tp": 1, "pp": 1, "dp": 8, "ep": 8, "zero_stage": 3},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 8}
    }));
    assert!(paracalc::megatron::launch_args(&q).contains("--kv-channels 128"));
}

#[test]
fn memory_chart_separates_expert_states() {
    use paracalc::app::charts::memory::Component;
    let s = scen(serde_json::json!({
        "model": model_json("deepseek-v3"),
        "training": {"global_batch": 15360, "micro_batch": 1, "precision": "bf16",
                     "recompute": "selective", "flash_attention": true},
        "parallel": {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "etp": 1, "zero_stage": 1},
        "cluster": {"gpu": "h800-sxm5-80gb", "num_gpus": 2048, "gpus_per_node": 8}
    }));
    let e = estimate(&s).unwrap();
    // Stage 0 holds only the three dense layers: no experts; stage 1 holds MoE layers.
    assert_eq!(Component::ExpertStates.bytes(&e.memory.stages()[0]), 0.0);
    let st = &e.memory.stages()[1];
    let experts = Component::ExpertStates.bytes(st);
    // 3 MoE layers × 4 local experts × 3·7168·2048 weights, bf16 + fp32 grads (6 B) and the
    // optimizer's 12 B over the expert-data-parallel group of 128/64 = 2.
    let p = 3.0 * 4.0 * 3.0 * 7168.0 * 2048.0;
    assert!((experts - p * (6.0 + 12.0 / 2.0)).abs() < 1.0, "{experts}");
    let parts: f64 = Component::ALL.iter().map(|c| c.bytes(st)).sum();
    assert!((parts - st.total_bytes).abs() < 1e-3 * st.total_bytes);
}

/// `parallel.moe_dispatcher = deepep` (DeepEP's normal kernels): a token crosses the network once
/// per remote node holding one of its experts. For DeepSeek-V3 on 2048 H800s (64 expert ranks
/// over 8 nodes, top-8 of 256) that is 7·(1 − P₀) = 4.633 network copies per token instead of the
/// all-to-all's 8·7/8 = 7; the rest of the step is untouched, the parts still add up, the field
/// travels through the share link, the Megatron-LM export names the flex dispatcher, and the
/// plans it cannot describe are field errors.
#[test]
fn deepep_dispatch_sends_fewer_network_copies() {
    let v = |disp: Option<&str>| {
        let mut v = serde_json::json!({
            "model": model_json("deepseek-v3"),
            "training": {"global_batch": 15360, "micro_batch": 1, "precision": "fp8",
                         "recompute": "selective", "flash_attention": true},
            "parallel": {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "etp": 1, "zero_stage": 1},
            "cluster": {"gpu": "h800-sxm5-80gb", "num_gpus": 2048, "gpus_per_node": 8}
        });
        if let Some(d) = disp {
            v["parallel"]["moe_dispatcher"] = serde_json::json!(d);
        }
        v
    };
    let a2a = estimate(&scen(v(None))).unwrap();
    let same = estimate(&scen(v(Some("alltoall")))).unwrap();
    assert_eq!(a2a.time.step_s, same.time.step_s, "alltoall is the default");
    let s = scen(v(Some("deepep")));
    let dep = estimate(&s).unwrap();
    // Network-bound on both: the exposed EP time falls by about the copies' ratio (latency and
    // the bubble's share of it aside). DeepSeek-V3's node-limited routing (8 groups, one per
    // node, 4 per token) reaches 3.175 other nodes per token; uniform routing over all 256
    // experts 4.633; NCCL's all-to-all moves 7 of the 8 routed copies across the network.
    let ratio = dep.time.exposed_comm_s.ep / a2a.time.exposed_comm_s.ep;
    assert!((ratio - 3.175 / 7.0).abs() < 0.03, "ratio {ratio}");
    // Bytes a GPU sends: NCCL's 63/64 of the 8 routed copies (7.875) against DeepEP's
    // 7·0.45363 = 3.1754 network copies plus 56·0.11499 = 6.4394 NVLink forwards (9.6148: more
    // bytes in all, most of them on NVLink).
    let bytes = dep.comm.ep.bytes / a2a.comm.ep.bytes;
    assert!((bytes - 9.6148 / 7.875).abs() < 1e-3, "bytes {bytes}");
    let mut ungrouped = v(Some("deepep"));
    ungrouped["model"]["moe"]["expert_groups"] = serde_json::Value::Null;
    ungrouped["model"]["moe"]["group_limit"] = serde_json::Value::Null;
    let uni = estimate(&scen(ungrouped)).unwrap();
    let ratio = uni.time.exposed_comm_s.ep / a2a.time.exposed_comm_s.ep;
    assert!((ratio - 4.633 / 7.0).abs() < 0.03, "ratio {ratio}");
    // The all-to-all dispatcher sends every routed copy: the groups change nothing there.
    let mut a2a_uni = v(None);
    a2a_uni["model"]["moe"]["expert_groups"] = serde_json::Value::Null;
    a2a_uni["model"]["moe"]["group_limit"] = serde_json::Value::Null;
    assert_eq!(
        estimate(&scen(a2a_uni)).unwrap().time.step_s,
        a2a.time.step_s
    );
    // DeepEP carries the routing weights inside its dispatch, so its bookkeeping keeps their 3
    // kernels (2 forward, 1 backward, 5 µs each) that the all-to-all dispatcher prices as its
    // second all-to-all instead: 4 MoE layers × 120 micro-batches × 15 µs = 7.2 ms.
    let kernels = dep.time.compute_s - a2a.time.compute_s;
    assert!((kernels - 4.0 * 120.0 * 15e-6).abs() < 1e-9, "{kernels}");
    assert_eq!(dep.memory.peak_bytes, a2a.memory.peak_bytes);
    common::assert_breakdown(&dep);
    // Share link: a new key, and the plan comes back.
    let q = paracalc::share::encode(&s, "deepseek-v3");
    assert!(q.contains("disp=deepep"), "{q}");
    assert_eq!(paracalc::share::decode(&q).unwrap().scenario, s);
    // Megatron-LM launch arguments.
    let args = paracalc::megatron::launch_args(&s);
    assert!(args.contains("--moe-token-dispatcher-type flex"), "{args}");
    assert!(args.contains("--moe-enable-deepep"), "{args}");
    // Field errors: no experts, or no expert parallelism.
    let mut dense = v(Some("deepep"));
    dense["model"]["moe"] = serde_json::Value::Null;
    let e = scenario::from_value(&dense)
        .unwrap()
        .validate()
        .unwrap_err();
    assert!(e.to_string().contains("parallel.moe_dispatcher"), "{e}");
    assert!(e.to_string().contains("no experts"), "{e}");
    let mut ep1 = v(Some("deepep"));
    ep1["parallel"]["ep"] = serde_json::json!(1);
    let e = scenario::from_value(&ep1).unwrap().validate().unwrap_err();
    assert!(e.to_string().contains("parallel.ep is 1"), "{e}");
}

#[test]
fn group_limited_routing_fields_validate_and_round_trip() {
    let base = || {
        serde_json::json!({
            "model": model_json("deepseek-v3"),
            "training": {"global_batch": 15360, "micro_batch": 1, "precision": "bf16",
                         "recompute": "selective"},
            "parallel": {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "etp": 1, "zero_stage": 1,
                         "moe_dispatcher": "deepep"},
            "cluster": {"gpu": "h800-sxm5-80gb", "num_gpus": 2048, "gpus_per_node": 8}
        })
    };
    let s = scen(base());
    s.validate().unwrap();
    // Share link: two new keys (the frozen DeepSeek-V3 preset of link version 1 routes over
    // all experts), and the plan comes back.
    let q = paracalc::share::encode(&s, "deepseek-v3");
    assert!(q.contains("egroups=8") && q.contains("glimit=4"), "{q}");
    assert_eq!(paracalc::share::decode(&q).unwrap().scenario, s);
    // Each rule names its field and says why.
    let fails = |path: &str, value: serde_json::Value, field: &str, why: &str| {
        let mut v = base();
        v["model"]["moe"][path] = value;
        let e = scenario::from_value(&v)
            .unwrap()
            .validate()
            .unwrap_err()
            .to_string();
        assert!(e.contains(field) && e.contains(why), "{path}: {e}");
    };
    fails(
        "expert_groups",
        serde_json::json!(6),
        "model.moe.expert_groups",
        "evenly",
    );
    fails(
        "group_limit",
        serde_json::json!(9),
        "model.moe.group_limit",
        "more than the 8",
    );
    fails(
        "expert_groups",
        serde_json::json!(0),
        "model.moe.expert_groups",
        "",
    );
    let mut v = base();
    v["model"]["moe"]["expert_groups"] = serde_json::json!(64);
    v["model"]["moe"]["group_limit"] = serde_json::json!(1);
    let e = scenario::from_value(&v)
        .unwrap()
        .validate()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("model.moe.group_limit") && e.contains("fewer than top-k 8"),
        "{e}"
    );
    let mut v = base();
    v["model"]["moe"]["expert_groups"] = serde_json::Value::Null;
    let e = scenario::from_value(&v)
        .unwrap()
        .validate()
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs expert groups"), "{e}");
    // DeepSeek-V2-Lite routes greedily over all experts: its n_group is not read.
    let lite = import(
        r#"{"model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944,
        "moe_intermediate_size": 1408, "num_hidden_layers": 27, "num_attention_heads": 16,
        "num_key_value_heads": 16, "n_shared_experts": 2, "n_routed_experts": 64,
        "num_experts_per_tok": 6, "first_k_dense_replace": 1, "moe_layer_freq": 1,
        "q_lora_rank": null, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 102400,
        "n_group": 1, "topk_group": 1, "topk_method": "greedy"}"#,
    );
    let moe = lite.moe.expect("experts");
    assert_eq!((moe.expert_groups, moe.group_limit), (None, None));
}

#[test]
fn round_robin_routing_narrows_deepep_reach_only() {
    // Automodel's DeepSeek-V3 benchmark shape: EP 64 over 8 nodes, DeepEP, routing over all
    // experts (the fixed gate ignores groups).
    let v = |routing: Option<&str>, disp: &str| {
        let mut v = serde_json::json!({
            "model": model_json("deepseek-v3"),
            "training": {"global_batch": 512, "micro_batch": 1, "precision": "bf16",
                         "recompute": "full"},
            "parallel": {"tp": 1, "pp": 4, "dp": 64, "ep": 64, "etp": 1, "zero_stage": 1,
                         "moe_dispatcher": disp},
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 256, "gpus_per_node": 8}
        });
        v["model"]["moe"]["expert_groups"] = serde_json::Value::Null;
        v["model"]["moe"]["group_limit"] = serde_json::Value::Null;
        if let Some(r) = routing {
            v["model"]["moe"]["routing"] = serde_json::json!(r);
        }
        v
    };
    let learned = estimate(&scen(v(None, "deepep"))).unwrap();
    let same = estimate(&scen(v(Some("learned"), "deepep"))).unwrap();
    assert_eq!(
        learned.time.step_s, same.time.step_s,
        "learned is the default"
    );
    let s = scen(v(Some("round_robin"), "deepep"));
    let rr = estimate(&s).unwrap();
    // Bytes a GPU sends per own token: uniform routing over 256 experts reaches
    // 7·(1 − P0(256, 32)) = 4.633 other nodes and 56·(1 − P0(256, 4)) = 6.716 other GPUs over
    // NVLink; the round-robin gate 7·1/8 = 0.875 nodes and 56·2/64 = 1.75 GPUs.
    let uni = paracalc::engine::time::routing::Routing::uniform(8.0, 256.0);
    let (net_u, nvl_u) = (7.0 * uni.reach(8.0), 56.0 * uni.reach(64.0));
    let bytes = rr.comm.ep.bytes / learned.comm.ep.bytes;
    assert!(
        (bytes - (0.875 + 1.75) / (net_u + nvl_u)).abs() < 1e-9,
        "bytes {bytes}"
    );
    assert!(rr.time.exposed_comm_s.ep < 0.3 * learned.time.exposed_comm_s.ep);
    common::assert_breakdown(&rr);
    // The all-to-all dispatcher sends every routed copy either way.
    assert_eq!(
        estimate(&scen(v(Some("round_robin"), "alltoall")))
            .unwrap()
            .time
            .step_s,
        estimate(&scen(v(None, "alltoall"))).unwrap().time.step_s
    );
    // Share link: a new key, and the plan comes back.
    let q = paracalc::share::encode(&s, "deepseek-v3");
    assert!(q.contains("route=round_robin"), "{q}");
    assert_eq!(paracalc::share::decode(&q).unwrap().scenario, s);
    // A value the field does not know is an error naming it.
    let mut bad = v(Some("random"), "deepep");
    bad["model"]["moe"]["routing"] = serde_json::json!("random");
    let e = scenario::from_value(&bad)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("model.moe.routing"), "{e}");
}
