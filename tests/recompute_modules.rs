//! Megatron-LM's selective recomputation by module (`training.recompute_modules`): what each
//! module frees per layer (by hand from the shapes), what it reruns, the FLOPs HFU counts, the
//! field's errors, and the round trips through JSON, the share link and the Megatron export.

use paracalc::engine::estimate::estimate;
use paracalc::engine::memory::activations::layer_activations_of;
use paracalc::engine::shape::Shape;
use paracalc::scenario::{self, Scenario};
use serde_json::{json, Value};

/// DeepSeek-V3's MoE layer: b 1, s 4096, tp 2 with SP, etp 1, ep 64, bf16, flash attention,
/// selective recompute with `modules` (`None`: the field left out).
fn dsv3(modules: Option<&[&str]>) -> Value {
    let mut v = json!({
        "model": {"layers": 61, "hidden": 7168, "heads": 128, "ffn_hidden": 18432,
                  "ffn_act": "swiglu", "vocab": 129280, "seq_len": 4096,
                  "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048,
                          "shared_experts": 1, "shared_expert_ffn_hidden": 2048, "dense_layers": 3},
                  "mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                          "qk_rope_head_dim": 64, "v_head_dim": 128}},
        "training": {"global_batch": 4096, "micro_batch": 1, "precision": "bf16",
                     "recompute": "selective", "flash_attention": true},
        "parallel": {"tp": 2, "pp": 8, "dp": 32, "ep": 64, "etp": 1, "sp": true},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 512}
    });
    if let Some(m) = modules {
        v["training"]["recompute_modules"] = json!(m);
    }
    v
}

fn parsed(v: &Value) -> Scenario {
    scenario::from_value(v).unwrap()
}

/// Stored bytes of one MoE layer for one micro-batch under `modules`.
fn moe_layer_bytes(modules: &[&str]) -> f64 {
    let s = parsed(&dsv3(Some(modules)));
    layer_activations_of(&s, &Shape::of(&s.model)).total()
}

#[test]
fn each_module_frees_its_tensors_by_hand() {
    // Per token, tok = 4096, e = 2, t = 2 (SP):
    // - core_attn: flash attention's log-sum-exp 4·a/t = 4·128/2 = 256 B → 1,048,576 B;
    // - mla_up_proj: Q, K, V = e·(a·d_qk + a·(d_qk + d_v))/t = 2·(24576 + 40960)/2 = 65,536 B
    //   → 268,435,456 B;
    // - layernorm: two norm outputs e·2h/t = 2·2·7168/2 = 14,336 B → 58,720,256 B;
    // - moe_act: rows k·etp/t = 4 per token, each e·f_e = 4096 B → 67,108,864 B;
    // - shared_experts: c_ffn·e·f_shared/t = 3·2·2048/2 = 6,144 B → 25,165,824 B.
    let core = moe_layer_bytes(&["core_attn"]);
    let cases: [(&str, f64); 4] = [
        ("mla_up_proj", 268_435_456.0),
        ("layernorm", 58_720_256.0),
        ("moe_act", 67_108_864.0),
        ("shared_experts", 25_165_824.0),
    ];
    for (m, freed) in cases {
        assert_eq!(core - moe_layer_bytes(&["core_attn", m]), freed, "{m}");
    }
    // Without core_attn the log-sum-exp stays.
    assert_eq!(
        moe_layer_bytes(&["mla_up_proj"]) - moe_layer_bytes(&["core_attn", "mla_up_proj"]),
        1_048_576.0
    );
    // The modules add up: all four on top of core_attn free the sum.
    let all = moe_layer_bytes(&[
        "core_attn",
        "mla_up_proj",
        "layernorm",
        "moe_act",
        "shared_experts",
    ]);
    assert_eq!(core - all, cases.iter().map(|c| c.1).sum::<f64>());
    // mlp reaches the dense layers only: the MoE layer is unchanged.
    assert_eq!(moe_layer_bytes(&["core_attn", "mlp"]), core);
}

#[test]
fn moe_act_frees_what_the_weighted_gelu_keeps() {
    // Non-gated (GELU) experts under Megatron-Core: the unfused `activation · probs` keeps the
    // activation's output, e·f_e = 4096 B per routed row, 4 rows per token (memory::experts);
    // moe_act checkpoints that function, so it frees the output FC2 reads (4096 B per row) and
    // that copy: 2 · 4 · 4096 · 4096 tokens = 134,217,728 B. Weighted at the combine instead,
    // only the first.
    let layer = |modules: &[&str], in_experts: bool| {
        let mut v = dsv3(Some(modules));
        v["model"]["ffn_act"] = json!("gelu");
        v["training"]["moe_probs_in_experts"] = json!(in_experts);
        let s = parsed(&v);
        layer_activations_of(&s, &Shape::of(&s.model)).total()
    };
    assert_eq!(
        layer(&["core_attn"], true) - layer(&["core_attn", "moe_act"], true),
        134_217_728.0
    );
    assert_eq!(
        layer(&["core_attn"], false) - layer(&["core_attn", "moe_act"], false),
        67_108_864.0
    );
}

#[test]
fn megatron_default_is_core_attn_and_other_stacks_checkpoint_per_operator() {
    let none = parsed(&dsv3(None));
    let core = parsed(&dsv3(Some(&["core_attn"])));
    assert_eq!(
        none.recompute_modules(),
        Some(paracalc::scenario::RecomputeModules::CORE_ATTN)
    );
    assert_eq!(estimate(&none).unwrap(), estimate(&core).unwrap());
    let mut tt = dsv3(None);
    tt["training"]["framework"] = json!("torchtitan");
    assert_eq!(parsed(&tt).recompute_modules(), None);
    // Without flash attention every stack's selective is the attention core.
    tt["training"]["flash_attention"] = json!(false);
    assert_eq!(
        parsed(&tt).recompute_modules(),
        Some(paracalc::scenario::RecomputeModules::CORE_ATTN)
    );
}

#[test]
fn rerun_work_and_hardware_flops() {
    let est = |m: &[&str]| estimate(&parsed(&dsv3(Some(m)))).unwrap();
    let core = est(&["core_attn"]);
    let up = est(&["core_attn", "mla_up_proj"]);
    // The up projections' FLOPs per token per layer: 2·(q_lora·a·d_qk + kv_lora·a·(d_nope + d_v))
    // = 2·(1536·24576 + 512·32768) = 109,051,904; × 61 layers × 4096 × 4096 tokens.
    let by_hand = 109_051_904.0 * 61.0 * 4096.0 * 4096.0;
    let added = up.flops.hardware_flops - core.flops.hardware_flops;
    assert!(
        (added / by_hand - 1.0).abs() < 1e-12,
        "{added} vs {by_hand}"
    );
    assert_eq!(up.flops.model_flops, core.flops.model_flops);
    // Rerunning more costs time and saves memory; the norms and the activation add no FLOPs.
    assert!(up.time.recompute_s > core.time.recompute_s);
    assert!(up.memory.peak_bytes < core.memory.peak_bytes);
    let ln = est(&["core_attn", "layernorm", "moe_act"]);
    assert_eq!(ln.flops.hardware_flops, core.flops.hardware_flops);
    assert!(ln.time.recompute_s > core.time.recompute_s);
}

#[test]
fn field_errors_name_the_field_and_the_reason() {
    let err = |v: &Value| parsed(v).validate().unwrap_err().to_string();
    let mut full = dsv3(Some(&["mla_up_proj"]));
    full["training"]["recompute"] = json!("full");
    let e = err(&full);
    assert!(
        e.contains("training.recompute_modules") && e.contains("not selective"),
        "{e}"
    );
    let mut tt = dsv3(Some(&["core_attn"]));
    tt["training"]["framework"] = json!("torchtitan");
    assert!(
        err(&tt).contains("Megatron-LM's --recompute-modules"),
        "{}",
        err(&tt)
    );
    let mut no_mla = dsv3(Some(&["mla_up_proj"]));
    no_mla["model"]["mla"] = Value::Null;
    assert!(err(&no_mla).contains("no model.mla"), "{}", err(&no_mla));
    let mut dense = dsv3(Some(&["moe_act"]));
    dense["model"]["moe"] = Value::Null;
    assert!(err(&dense).contains("no experts"), "{}", err(&dense));
    assert!(err(&dsv3(Some(&[]))).contains("lists no module"));
    // An unknown module is a parse error at its index.
    let e = scenario::from_value(&dsv3(Some(&["core_attn", "attn"])))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("training.recompute_modules[1]") && e.contains("\"attn\""),
        "{e}"
    );
}

#[test]
fn json_link_and_megatron_round_trips() {
    let s = parsed(&dsv3(Some(&["layernorm", "mla_up_proj"])));
    // JSON: a list in canonical order.
    let v: Value = serde_json::from_str(&s.to_json_pretty()).unwrap();
    assert_eq!(
        v["training"]["recompute_modules"],
        json!(["mla_up_proj", "layernorm"])
    );
    assert_eq!(parsed(&v), s);
    // Share link.
    let q = paracalc::share::encode(&s, "deepseek-v3");
    assert!(q.contains("rcmod=mla_up_proj,layernorm"), "{q}");
    assert_eq!(paracalc::share::decode(&q).unwrap().scenario, s);
    // Megatron-LM arguments.
    let args = paracalc::megatron::launch_args(&s);
    assert!(
        args.contains("--recompute-granularity selective")
            && args.contains("--recompute-modules mla_up_proj layernorm"),
        "{args}"
    );
    // Left out, the default is not written anywhere.
    let d = parsed(&dsv3(None));
    assert!(!paracalc::megatron::launch_args(&d).contains("--recompute-modules"));
    assert!(!paracalc::share::encode(&d, "deepseek-v3").contains("rcmod"));
}

#[test]
fn moe_module_reruns_the_whole_block_and_its_all_to_alls() {
    let s = |m: &[&str]| parsed(&dsv3(Some(m)));
    let bytes = |m: &[&str]| {
        let s = s(m);
        layer_activations_of(&s, &Shape::of(&s.model)).total()
    };
    // The whole MoE MLP's stored activations go: router (3·256 + 32)/2 = 400 B, shared experts
    // 6,144 B and 4 routed rows of (2·7168 + 3·2·2048) = 26,624 B per token (Megatron-Core
    // weights by the probabilities inside the experts: no expert output kept), 113,040 B per
    // token in all, × 4096 tokens (memory::experts' hand count).
    assert_eq!(
        bytes(&["core_attn"]) - bytes(&["core_attn", "moe"]),
        4096.0 * 113_040.0
    );
    // moe covers moe_act and shared_experts: adding them frees nothing more.
    assert_eq!(
        bytes(&["core_attn", "moe"]),
        bytes(&["core_attn", "moe", "moe_act", "shared_experts"])
    );
    // Time: the block's forward and a third pass of dispatch + combine.
    let core = estimate(&s(&["core_attn"])).unwrap();
    let moe = estimate(&s(&["core_attn", "moe"])).unwrap();
    assert!(moe.time.recompute_s > core.time.recompute_s);
    assert!(moe.time.exposed_comm_s.ep > 1.4 * core.time.exposed_comm_s.ep);
    // The reported all-to-all bytes count the third pass as well (3 passes against 2).
    assert!((moe.comm.ep.bytes / core.comm.ep.bytes - 1.5).abs() < 1e-12);
    // HFU: the MoE layers' MLP FLOPs per token 2·3·7168·(8·2048 + 2048) + 2·7168·256
    // = 792,723,456 + 3,670,016 = 796,393,472, × 58 MoE layers × 4096 × 4096 tokens.
    let by_hand = 796_393_472.0 * 58.0 * 4096.0 * 4096.0;
    let added = moe.flops.hardware_flops - core.flops.hardware_flops;
    assert!(
        (added / by_hand - 1.0).abs() < 1e-12,
        "{added} vs {by_hand}"
    );
}

#[test]
fn the_search_and_the_advice_drop_the_modules_with_other_modes() {
    // A plan with modules: every layout the search tries is valid (none is rejected for its
    // recomputation), and the advice's "recompute → full" is a valid plan.
    let s = parsed(&dsv3(Some(&["mla_up_proj", "layernorm"])));
    let space = paracalc::engine::search::SearchSpace::default();
    let r = paracalc::engine::search::search(&s, &space);
    assert!(r.evaluated > 0);
    assert!(
        !r.rejected.keys().any(|k| k.contains("recompute")),
        "{:?}",
        r.rejected
    );
    let mut t = s.training.clone();
    t.set_recompute(paracalc::scenario::Recompute::Full);
    assert_eq!(t.recompute_modules, None);
    t.set_recompute(paracalc::scenario::Recompute::Selective);
    assert_eq!(t.recompute_modules, None);
    let mut u = s.training.clone();
    u.set_recompute(paracalc::scenario::Recompute::Selective);
    assert_eq!(u.recompute_modules, s.training.recompute_modules);
}

#[test]
fn the_torchtitan_export_says_the_modules_have_no_equivalent() {
    let s = parsed(&dsv3(Some(&["mla_up_proj", "layernorm"])));
    let e = paracalc::export::torchtitan::job_config(&s);
    assert!(
        e.text.contains("selective_ac_option = \"op\""),
        "{}",
        e.text
    );
    assert!(
        e.no_equivalent
            .iter()
            .any(|n| n.contains("recompute modules mla_up_proj, layernorm")),
        "{:?}",
        e.no_equivalent
    );
}

#[test]
fn the_advice_offers_deepseeks_recompute_set_when_it_fits() {
    // DeepSeek-V3 (Megatron-LM's selective, core_attn) on 2048 H100s of 96 GB: 126.5 GiB on
    // stage 2, over. The modules DeepSeek recomputed (RMSNorm, MLA up-projections, SwiGLU output)
    // bring it to 89.4 GiB, and cost less time than recomputing whole layers.
    let s = paracalc::share::decode("v=1&model=deepseek-v3&gpu=h100-sxm5-96gb")
        .unwrap()
        .scenario;
    let candidates = paracalc::engine::advice::candidates(&s);
    let light = candidates
        .iter()
        .find(|c| matches!(c, paracalc::engine::advice::Change::RecomputeModules { .. }))
        .expect("offered for an MLA + MoE model under Megatron-LM");
    assert_eq!(
        light.describe(&s),
        "recompute selective (core_attn) → selective (mla_up_proj, layernorm, moe_act)"
    );
    let mut t = s.clone();
    light.apply(&mut t);
    let e = estimate(&t).unwrap();
    assert!(e.memory.fits);
    let mut full = s.clone();
    full.training
        .set_recompute(paracalc::scenario::Recompute::Full);
    assert!(e.time.step_s < estimate(&full).unwrap().time.step_s);
    // Not offered for a dense model, nor under another stack.
    let dense = paracalc::share::decode("v=1&model=llama3-70b")
        .unwrap()
        .scenario;
    assert!(!paracalc::engine::advice::candidates(&dense)
        .iter()
        .any(|c| matches!(c, paracalc::engine::advice::Change::RecomputeModules { .. })));
}

#[test]
fn recompute_in_words() {
    let s = parsed(&dsv3(Some(&["mla_up_proj", "layernorm"])));
    use paracalc::scenario::Recompute;
    assert_eq!(
        s.recompute_label(Recompute::Selective),
        "selective (mla_up_proj, layernorm)"
    );
    assert_eq!(s.recompute_label(Recompute::Full), "full");
    assert_eq!(
        parsed(&dsv3(None)).recompute_label(Recompute::Selective),
        "selective (core_attn)"
    );
    let mut tt = dsv3(None);
    tt["training"]["framework"] = json!("torchtitan");
    assert_eq!(
        parsed(&tt).recompute_label(Recompute::Selective),
        "selective (per-op)"
    );
    // A plan recomputing nothing still says what its selective would be.
    let mut none = dsv3(None);
    none["training"]["recompute"] = json!("none");
    assert_eq!(
        parsed(&none).recompute_label(Recompute::Selective),
        "selective (core_attn)"
    );
}
