//! The scenario contract: every published case parses and validates; errors name their field.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::scenario::{self, gpu_preset, GPU_PRESETS};

fn cases() -> Vec<serde_json::Value> {
    serde_json::from_str(include_str!("data/public.json"))
        .expect("tests/data/public.json is valid JSON")
}

#[test]
fn every_public_case_parses_and_validates() {
    for case in cases() {
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let s = scenario::from_value(&case["scenario"]).unwrap_or_else(|e| panic!("{id}: {e}"));
        s.validate().unwrap_or_else(|e| panic!("{id}: {e}"));
    }
}

#[test]
fn presets_match_the_validation_gpus() {
    let gpus: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("data/gpus.json")).unwrap();
    // Presets beyond the validation GPUs (none of its cases uses them), each with its source.
    const EXTRA: &[&str] = &["h800-sxm5-80gb"];
    // Peaks gpus.json leaves unknown (bounds only) that a later source states, outside the
    // bounds: the 500 W Grand Teton H100, whose bf16 peak Meta gives as 800 TF/s (Yang et al.,
    // MLSys 2025, arXiv 2411.01783v3, App. A), below torchtitan's NVL..SXM guess; fp8 twice it.
    const STATED: &[(&str, &str, f64)] = &[
        ("h100-sxm5-96gb", "bf16", 800.0),
        ("h100-sxm5-96gb", "fp16", 800.0),
        ("h100-sxm5-96gb", "fp8", 1600.0),
    ];
    assert_eq!(gpus.len() + EXTRA.len(), GPU_PRESETS.len());
    let sources = paracalc::sources::builtin().unwrap();
    for id in EXTRA {
        assert!(gpu_preset(id).is_some(), "{id}");
        assert!(
            sources.gpu(id).is_some_and(|s| !s.source.is_empty()),
            "{id}"
        );
    }
    for g in &gpus {
        let id = g["id"].as_str().unwrap();
        let p = gpu_preset(id).unwrap_or_else(|| panic!("no preset {id}"));
        assert_eq!(p.spec.hbm_gib, g["hbm_gib"].as_f64().unwrap(), "{id}");
        assert_eq!(p.spec.usable_gib, g["usable_gib"].as_f64(), "{id}");
        assert_eq!(p.spec.hbm_gbps, g["hbm_gbps"].as_f64().unwrap(), "{id}");
        assert_eq!(p.spec.nvlink_gbps, g["nvlink_gbps"].as_f64(), "{id}");
        assert_eq!(p.spec.nic_gbps, g["nic_gbps"].as_f64(), "{id}");
        assert_eq!(
            p.spec.nvlink_domain_gpus,
            g["nvlink_domain_gpus"].as_u64().unwrap(),
            "{id}"
        );
        for (k, ours) in [
            ("bf16", p.spec.peak_tflops.bf16),
            ("fp16", p.spec.peak_tflops.fp16),
            ("fp8", p.spec.peak_tflops.fp8),
        ] {
            match g["peak_tflops"][k].as_f64() {
                Some(v) => assert_eq!(ours, Some(v), "{id} {k}"),
                // A peak stated by a later source: exactly that figure.
                None if STATED.iter().any(|&(i, f, _)| i == id && f == k) => {
                    let v = STATED
                        .iter()
                        .find(|&&(i, f, _)| i == id && f == k)
                        .unwrap()
                        .2;
                    assert_eq!(ours, Some(v), "{id} {k}");
                }
                // Unknown peak: ours must lie inside the published bounds.
                None => {
                    let bk = if k == "fp16" { "bf16" } else { k }; // 16-bit formats share a peak
                    if let Some(b) = g["peak_tflops_bounds"][bk].as_array() {
                        let (lo, hi) = (b[0].as_f64().unwrap(), b[1].as_f64().unwrap());
                        let v = ours.unwrap_or_else(|| panic!("{id} {k}: no value"));
                        assert!(lo <= v && v <= hi, "{id} {k}: {v} outside [{lo}, {hi}]");
                    } else {
                        assert_eq!(ours, None, "{id} {k}");
                    }
                }
            }
        }
    }
}

fn base() -> serde_json::Value {
    serde_json::json!({
        "model": {"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96, "vocab": 51200, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "recompute": "selective"},
        "parallel": {"tp": 8, "pp": 16, "dp": 8, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024}
    })
}

#[test]
fn defaults_fill_in() {
    let s = scenario::from_value(&base()).unwrap();
    assert_eq!(s.model.kv_heads(), 96);
    assert_eq!(s.model.ffn_hidden(), 49152);
    assert_eq!((s.parallel.cp, s.parallel.ep, s.parallel.vp), (1, 1, 1));
    assert_eq!(s.cluster.gpus_per_node, 8);
    s.validate().unwrap();
    // Round trip through JSON.
    let back = scenario::parse(&s.to_json_pretty()).unwrap();
    assert_eq!(back, s);
}

#[test]
fn unknown_keys_name_the_key() {
    let mut v = base();
    v["parallel"]["tpp"] = 2.into();
    let e = scenario::from_value(&v).unwrap_err();
    assert_eq!(e.issues[0].field, "parallel.tpp");
    assert!(e.issues[0].message.contains("unknown field"), "{e}");
}

/// A key written twice is an error naming it (JSON parsers would keep the last value silently).
#[test]
fn a_key_written_twice_is_named() {
    let text = base()
        .to_string()
        .replacen("\"tp\":", "\"tp\": 4, \"tp\":", 1);
    let e = scenario::parse(&text).unwrap_err();
    assert_eq!(e.issues[0].field, "parallel.tp");
    assert!(e.issues[0].message.contains("duplicate field `tp`"), "{e}");
    // The same key in two sections is not a duplicate.
    scenario::parse(&base().to_string()).unwrap();
}

/// A mistake inside a custom GPU names the GPU's own field, not just `cluster.gpu`.
#[test]
fn custom_gpu_errors_name_the_gpu_field() {
    let custom = || {
        serde_json::json!({"id": "g", "name": "G", "peak_tflops": {"bf16": 312}, "hbm_gib": 80,
                           "hbm_gbps": 2039, "nvlink_domain_gpus": 8})
    };
    let mut v = base();
    v["cluster"]["gpu"] = custom();
    assert!(scenario::from_value(&v).is_ok());
    v["cluster"]["gpu"]["hbm_gib"] = "lots".into();
    let e = scenario::from_value(&v).unwrap_err();
    assert_eq!(e.issues[0].field, "cluster.gpu.hbm_gib");
    assert!(e.issues[0].message.contains("invalid type"), "{e}");
    let mut v = base();
    v["cluster"]["gpu"] = custom();
    v["cluster"]["gpu"]["hbm"] = 3.into();
    let e = scenario::from_value(&v).unwrap_err();
    assert_eq!(e.issues[0].field, "cluster.gpu.hbm");
    let mut v = base();
    v["cluster"]["gpu"] = 7.into();
    let e = scenario::from_value(&v).unwrap_err();
    assert_eq!(e.issues[0].field, "cluster.gpu");
    assert!(
        e.issues[0]
            .message
            .contains("a GPU preset id or a custom GPU object"),
        "{e}"
    );
}

#[test]
fn wrong_types_name_the_field() {
    let mut v = base();
    v["model"]["layers"] = "ninety-six".into();
    let e = scenario::from_value(&v).unwrap_err();
    assert_eq!(e.issues[0].field, "model.layers");
}

#[test]
fn every_problem_is_reported_at_once() {
    let mut v = base();
    v["parallel"]["tp"] = 7.into();
    v["cluster"]["gpu"] = "tpu-v9".into();
    v["training"]["micro_batch"] = 0.into();
    let s = scenario::from_value(&v).unwrap();
    let e = s.validate().unwrap_err();
    let fields: Vec<&str> = e.issues.iter().map(|i| i.field.as_str()).collect();
    assert!(fields.contains(&"parallel.tp"), "{e}");
    assert!(fields.contains(&"cluster.gpu"), "{e}");
    assert!(fields.contains(&"training.micro_batch"), "{e}");
    assert!(fields.contains(&"cluster.num_gpus"), "{e}");
    let tp = e.issues.iter().find(|i| i.field == "parallel.tp").unwrap();
    assert_eq!(
        tp.message,
        "tensor parallel 7 does not divide 96 attention heads."
    );
}

/// DeepSeek-V3's shape (Hugging Face `deepseek-ai/DeepSeek-V3` config.json: 61 layers, hidden
/// 7168, 128 heads, MLA ranks 1536/512, head dims 128/64/128, 256 routed + 1 shared expert of
/// 2048, top-8, first 3 layers dense, 1 MTP module) in the fields of `DESIGN.md`.
fn deepseek_v3() -> serde_json::Value {
    serde_json::json!({
        "model": {"name": "DeepSeek-V3", "layers": 61, "hidden": 7168, "heads": 128, "ffn_hidden": 18432,
                  "ffn_act": "swiglu", "vocab": 129280, "seq_len": 4096,
                  "mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                          "qk_rope_head_dim": 64, "v_head_dim": 128},
                  "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1,
                          "dense_layers": 3, "imbalance": 1.2},
                  "mtp_layers": 1},
        "training": {"global_batch": 15360, "micro_batch": 1, "precision": "fp8", "recompute": "none",
                     "framework": "megatron", "fp8_recipe": "blockwise"},
        "parallel": {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "etp": 1, "zero_stage": 1},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 2048}
    })
}

#[test]
fn modern_shapes_parse_with_their_defaults() {
    let s = scenario::from_value(&deepseek_v3()).unwrap();
    s.validate().unwrap();
    let moe = s.model.moe.unwrap();
    assert_eq!(moe.shared_experts(), 1);
    assert_eq!(
        moe.shared_expert_ffn_hidden(),
        2048,
        "defaults to the routed experts' size"
    );
    assert_eq!((moe.dense_layers(), moe.moe_every()), (3, 1));
    assert_eq!(moe.moe_layers(61), 58);
    assert!(!moe.is_moe_layer(2) && moe.is_moe_layer(3));
    assert_eq!(moe.imbalance(), 1.2);
    assert_eq!(s.model.mtp_layers(), 1);
    assert_eq!(s.model.mla.unwrap().kv_lora_rank, 512);
    assert_eq!(s.training.framework(), scenario::Framework::Megatron);
    assert_eq!(
        s.training.fp8_recipe(),
        Some(scenario::Fp8Recipe::Blockwise)
    );
    assert_eq!((s.parallel.etp(), s.parallel.shard_ranks()), (1, 128));
    // Every older file keeps its meaning: no new field, the defaults of DESIGN.md.
    let old = scenario::from_value(&base()).unwrap();
    assert_eq!(old.model.head_dim(), 12288 / 96);
    assert_eq!(old.model.mtp_layers(), 0);
    assert_eq!(old.training.framework(), scenario::Framework::Megatron);
    assert_eq!(old.training.fp8_recipe(), None, "no recipe without fp8");
    assert_eq!((old.parallel.etp(), old.parallel.shard_ranks()), (8, 8));
    // Round trip through JSON keeps the new fields.
    assert_eq!(scenario::parse(&s.to_json_pretty()).unwrap(), s);
}

#[test]
fn moe_every_counts_layers_after_the_dense_ones() {
    let mut v = deepseek_v3();
    v["model"]["moe"]["moe_every"] = 2.into();
    let moe = scenario::from_value(&v).unwrap().model.moe.unwrap();
    // Layers 3, 5, 7, …, 59: 29 MoE layers of the 58 after the dense ones.
    assert_eq!(moe.moe_layers(61), 29);
    assert!(moe.is_moe_layer(3) && !moe.is_moe_layer(4) && moe.is_moe_layer(59));
}

#[test]
fn head_dim_overrides_hidden_over_heads() {
    // Qwen3-30B-A3B: hidden 2048, 32 heads of 128 (Hugging Face config.json `head_dim`).
    let mut v = base();
    v["model"]["hidden"] = 2048.into();
    v["model"]["heads"] = 32.into();
    v["model"]["head_dim"] = 128.into();
    let s = scenario::from_value(&v).unwrap();
    assert_eq!(s.model.head_dim(), 128);
    s.validate().unwrap();
}

#[test]
fn impossible_modern_settings_name_their_field() {
    let cases: &[(&str, serde_json::Value, &str)] = &[
        (
            "training.fp8_recipe",
            serde_json::json!({"training": {"precision": "bf16", "fp8_recipe": "rowwise"}}),
            "the FP8 recipe rowwise only applies with precision fp8, not bf16.",
        ),
        (
            "parallel.fsdp_style",
            serde_json::json!({"training": {"framework": "torchtitan"},
                               "parallel": {"fsdp_style": "per_parameter_sync"}}),
            "per_parameter_sync is DeepSpeed's ZeRO-3 as released in 2021 (v0.3.13-v0.5.4); training.framework is torchtitan, not deepspeed.",
        ),
        (
            "training.fp8_recipe",
            serde_json::json!({"training": {"precision": "fp8", "fp8_recipe": "mxfp8"},
                               "cluster": {"gpu": "h100-sxm5-80gb"}}),
            "the mxfp8 recipe needs Blackwell tensor cores; NVIDIA H100 SXM5 80GB",
        ),
        (
            "training.precision",
            serde_json::json!({"training": {"precision": "fp8", "fp8_recipe": "rowwise"},
                               "cluster": {"gpu": "v100-sxm2-32gb"}}),
            "has no fp8 tensor-core peak",
        ),
        (
            "training.precision",
            serde_json::json!({"training": {"precision": "nvfp4"},
                               "cluster": {"gpu": "h100-sxm5-80gb"}}),
            "NVIDIA H100 SXM5 80GB (700 W) has no nvfp4 tensor-core peak; choose another precision.",
        ),
        (
            "training.fp8_recipe",
            serde_json::json!({"training": {"precision": "nvfp4", "fp8_recipe": "mxfp8"},
                               "cluster": {"gpu": "gb200"}}),
            "the FP8 recipe mxfp8 only applies with precision fp8, not nvfp4.",
        ),
        (
            "training.attention_kernel",
            serde_json::json!({"training": {"flash_attention": true, "attention_kernel": "fa3"},
                               "cluster": {"gpu": "a100-sxm4-80gb"}}),
            "FlashAttention-3 runs on Hopper only, not on NVIDIA A100",
        ),
        (
            "parallel.etp",
            serde_json::json!({"parallel": {"ep": 64, "etp": 4}}),
            "expert parallel × expert tensor parallel = 64·4 = 256 does not divide tp·cp·dp = 128",
        ),
        (
            "parallel.ep",
            serde_json::json!({"parallel": {"ep": 256, "etp": null, "tp": 1}}),
            "expert parallel 256 × expert tensor parallel 1 does not divide tp·cp·dp = 128",
        ),
        (
            "parallel.shard_ranks",
            serde_json::json!({"parallel": {"shard_ranks": 48}}),
            "the shard group of 48 ranks does not divide data parallel 128",
        ),
        (
            "parallel.pp_rounds",
            serde_json::json!({"parallel": {"pp_rounds": 7}}),
            "7 pipeline rounds do not divide the step's 120 micro-batches",
        ),
        (
            "model.moe.imbalance",
            serde_json::json!({"model": {"moe": {"imbalance": 0.5}}}),
            "must be between 1 and 1000, got 0.5",
        ),
        (
            "model.moe.dense_layers",
            serde_json::json!({"model": {"moe": {"dense_layers": 61}}}),
            "61 dense first layers leave no MoE layer in a model of 61 layers.",
        ),
        (
            "model.moe.moe_every",
            serde_json::json!({"model": {"moe": {"moe_every": 0}}}),
            "MoE every must be at least 1, got 0.",
        ),
        (
            "model.mla.kv_lora_rank",
            serde_json::json!({"model": {"mla": {"kv_lora_rank": 0}}}),
            "MLA KV latent rank must be at least 1 with latent attention, got 0.",
        ),
        (
            "model.head_dim",
            serde_json::json!({"model": {"head_dim": 0}}),
            "Head dimension must be at least 1, got 0.",
        ),
        (
            "training.master_weights",
            serde_json::json!({"training": {"master_weights": "remainder"}}),
            "with the FP8 recipe blockwise Megatron-LM keeps its own fp32 master weights",
        ),
        (
            "training.master_weights",
            serde_json::json!({"training": {"master_weights": "remainder", "precision": "bf16", "fp8_recipe": null, "framework": "deepspeed"}}),
            "training.framework is deepspeed",
        ),
        (
            "training.master_weights",
            serde_json::json!({"training": {"master_weights": "none", "precision": "fp8", "fp8_recipe": "delayed", "fp8_params": true}}),
            "FP8 primary weights (training.fp8_params) are cast from an fp32 master copy",
        ),
        (
            "training.swiglu_fp8_input",
            serde_json::json!({"training": {"swiglu_fp8_input": true, "framework": "torchtitan"}}),
            "activation_func_fp8_input_store; training.framework is torchtitan",
        ),
        (
            "training.moe_probs_in_experts",
            serde_json::json!({"training": {"moe_probs_in_experts": true, "framework": "torchtitan"}}),
            "only Megatron-Core (0.12.1 and later) applies the routing probabilities inside the experts' activation; training.framework is torchtitan",
        ),
        (
            "training.optimizer_states",
            serde_json::json!({"training": {"optimizer_states": "bf16", "framework": "deepspeed"}}),
            "training.framework deepspeed keeps fp32 moments",
        ),
        (
            "training.optimizer_states",
            serde_json::json!({"training": {"optimizer_states": "bf16"}, "parallel": {"zero_stage": 0}}),
            "runs only with the distributed optimizer; parallel.zero_stage is 0",
        ),
    ];
    for (field, patch, message) in cases {
        let mut v = deepseek_v3();
        for (section, fields) in patch.as_object().unwrap() {
            for (k, x) in fields.as_object().unwrap() {
                if let Some(inner) = x.as_object().filter(|_| k == "moe" || k == "mla") {
                    for (ik, ix) in inner {
                        v[section][k][ik] = ix.clone();
                    }
                } else if x.is_null() {
                    v[section].as_object_mut().unwrap().remove(k);
                } else {
                    v[section][k] = x.clone();
                }
            }
        }
        let s = scenario::from_value(&v).unwrap_or_else(|e| panic!("{field}: {e}"));
        let e = s.validate().expect_err(field);
        let issue = e
            .issues
            .iter()
            .find(|i| i.field == *field)
            .unwrap_or_else(|| panic!("no issue on {field}: {e}"));
        assert!(
            issue.message.contains(message),
            "{field}: {}",
            issue.message
        );
    }
}

#[test]
fn routing_probabilities_belong_to_an_moe_model() {
    // Set on a dense model, either way, the field is named; off is valid for any MoE stack
    // (Megatron-Core 0.12.0 and older, torchtitan).
    for on in [true, false] {
        let mut v = base();
        v["training"]["moe_probs_in_experts"] = serde_json::json!(on);
        let e = scenario::from_value(&v).unwrap().validate().unwrap_err();
        assert_eq!(e.issues.len(), 1, "{e}");
        assert_eq!(e.issues[0].field, "training.moe_probs_in_experts");
        assert!(e.issues[0].message.contains("model.moe is absent"), "{e}");
    }
    let mut v = deepseek_v3();
    v["training"]["moe_probs_in_experts"] = serde_json::json!(false);
    scenario::from_value(&v).unwrap().validate().unwrap();
    v["training"]["framework"] = serde_json::json!("torchtitan");
    scenario::from_value(&v).unwrap().validate().unwrap();
}

/// The field each rule names for a schedule it cannot run (deepseek-ai/DualPipe `step`
/// assertions; ZB-V's two chunks per rank).
#[test]
fn schedules_name_the_field_and_the_rule() {
    let fields = |v: &serde_json::Value| -> Vec<String> {
        match scenario::from_value(v).and_then(|s| s.validate()) {
            Ok(()) => vec![],
            Err(e) => e
                .issues
                .iter()
                .map(|i| i.field.as_str().to_string())
                .collect(),
        }
    };
    let with = |sched: &str, vp: u64, gb: u64| {
        let mut v = base();
        v["parallel"]["schedule"] = sched.into();
        v["parallel"]["vp"] = vp.into();
        v["training"]["global_batch"] = gb.into();
        v
    };
    // GPT-3 175B, pp 16, dp 8: m = B/8.
    for ok in [
        with("zb-h1", 1, 1536),
        with("zb-v", 2, 1536),
        with("dualpipe", 1, 1536),
        with("dualpipev", 2, 256),
    ] {
        assert!(fields(&ok).is_empty(), "{ok}: {:?}", fields(&ok));
    }
    assert_eq!(fields(&with("zb-v", 1, 1536)), ["parallel.schedule"]);
    assert_eq!(fields(&with("dualpipev", 3, 1536)), ["parallel.schedule"]);
    assert_eq!(fields(&with("zb-h1", 2, 1536)), ["parallel.schedule"]);
    // m = 16 < 2·pp = 32; m = 33 is odd.
    assert_eq!(fields(&with("dualpipe", 1, 128)), ["training.global_batch"]);
    assert_eq!(
        fields(&with("dualpipev", 2, 128)),
        ["training.global_batch"]
    );
    assert_eq!(fields(&with("dualpipe", 1, 264)), ["training.global_batch"]);
    let e = scenario::from_value(&with("dualpipe", 1, 128))
        .and_then(|s| s.validate())
        .unwrap_err();
    assert!(e.issues[0].message.contains("at least 2·pp = 32"), "{e}");
    // An odd number of ranks: 24 GPUs as tp 8 × pp 3.
    let mut v = with("dualpipe", 1, 1536);
    v["parallel"]["pp"] = 3.into();
    v["parallel"]["dp"] = 1.into();
    v["cluster"]["num_gpus"] = 24.into();
    assert_eq!(fields(&v), ["parallel.pp"]);
    // Offload fractions are fractions.
    let mut v = base();
    v["training"]["optimizer_offload"] = 1.5.into();
    v["training"]["activation_offload"] = (-0.1).into();
    assert_eq!(
        fields(&v),
        ["training.optimizer_offload", "training.activation_offload"]
    );
}

/// The new schedules against 1F1B on GPT-3 175B (pp 16): the zero-bubble ones shrink the
/// bubble; DualPipe holds two stages' weights per rank and `(p + 1)/2` micro-batches of them.
#[test]
fn new_schedules_move_the_bubble_and_memory_the_sources_way() {
    let est = |sched: &str, vp: u64| {
        let mut v = base();
        v["parallel"]["schedule"] = sched.into();
        v["parallel"]["vp"] = vp.into();
        paracalc::engine::estimate(&scenario::from_value(&v).unwrap()).unwrap()
    };
    let one = est("1f1b", 1);
    let zb = est("zb-h1", 1);
    let dual = est("dualpipe", 1);
    let dualv = est("dualpipev", 2);
    assert!(zb.time.bubble_s < one.time.bubble_s);
    assert!(zb.time.weight_grad_s > 0.0 && zb.time.weight_grad_s < zb.time.backward_s);
    assert!(dual.time.bubble_s < one.time.bubble_s);
    // Same activation memory on stage 0 for ZB-H1 as for 1F1B.
    let a = |e: &paracalc::engine::Estimate, r: usize| e.memory.stages()[r].activations_bytes;
    assert_eq!(a(&zb, 0), a(&one, 0));
    // DualPipe rank 1 holds stages 1 and 14: 12 layers, twice the 6 of 1F1B.
    assert_eq!(dual.memory.stages()[1].layers, 12);
    assert!(
        (dual.memory.stages()[1].weights_bytes / one.memory.stages()[1].weights_bytes - 2.0).abs()
            < 1e-9
    );
    assert_eq!(dual.memory.stages()[1].in_flight_micro_batches, 8.5);
    // DualPipeV: rank 0 holds the embedding and the output layer.
    assert_eq!(dualv.memory.stages()[0].in_flight_micro_batches, 16.5);
    assert!(dualv.memory.stages()[0].params > dualv.memory.stages()[15].params);
}

/// `training.master_weights: none` is valid wherever the parameters can be their own master:
/// 16-bit parameters under any stack (NeMo 1's optimizer dtype equal to the model's,
/// torchtitan's bf16 `training.dtype`, a bf16 JAX or PyTorch model) and fp32 training, whose
/// weights have no separate master anyway.
#[test]
fn no_master_copy_validates_where_the_parameters_can_be_updated_in_place() {
    for (precision, framework) in [
        ("bf16", "megatron"),
        ("bf16", "torchtitan"),
        ("bf16", "jax"),
        ("fp16", "pytorch"),
        ("fp32", "megatron"),
    ] {
        let mut v = base();
        v["training"]["master_weights"] = "none".into();
        v["training"]["precision"] = precision.into();
        v["training"]["framework"] = framework.into();
        let s = scenario::from_value(&v).unwrap_or_else(|e| panic!("{precision} {framework}: {e}"));
        assert_eq!(
            s.training.master_weights,
            Some(scenario::MasterWeights::None)
        );
        if let Err(e) = s.validate() {
            assert!(
                !e.issues
                    .iter()
                    .any(|i| i.field == "training.master_weights"),
                "{precision} {framework}: {e}"
            );
        }
    }
}
