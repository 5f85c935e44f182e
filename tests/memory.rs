//! Memory engine: published vectors, hand-computed framework formulas, public measurements and
//! properties over random scenarios.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::engine::{estimate, Estimate};
use paracalc::scenario::{self, Scenario};

mod common;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn cases() -> Vec<serde_json::Value> {
    serde_json::from_str(include_str!("data/public.json")).expect("public.json")
}

/// Predicted memory of a case in GiB, compared as the case measured it (validation README):
/// `device_used` → the whole device (total incl. CUDA context and NCCL buffers);
/// `allocator_reserved` → what the caching allocator holds.
fn predicted_gib(e: &Estimate, kind: &str) -> f64 {
    let st = &e.memory.stages();
    let pick = |f: &dyn Fn(&paracalc::engine::StageMemory) -> f64| {
        st.iter().map(f).fold(0.0_f64, f64::max) / GIB
    };
    match kind {
        "allocator_reserved" => pick(&|m| m.allocator_reserved_bytes()),
        _ => pick(&|m| m.total_bytes),
    }
}

#[test]
fn public_memory_cases() {
    let mut errs = Vec::new();
    let mut oom = 0;
    for c in cases() {
        let id = c["id"].as_str().unwrap().to_string();
        let m = &c["measured"];
        let s: Scenario = scenario::from_value(&c["scenario"]).unwrap();
        let e = estimate(&s).unwrap();
        if m["oom"].as_bool() == Some(true) {
            oom += 1;
            println!(
                "{id:55} OOM  predicted peak {:.1} GiB of {:.1}: fits={}",
                e.memory.peak_bytes / GIB,
                e.memory.capacity_bytes / GIB,
                e.memory.fits
            );
            assert!(!e.memory.fits, "{id} must not fit");
            continue;
        }
        let Some(meas) = m["memory_gib"].as_f64() else {
            continue;
        };
        let kind = m["memory_kind"].as_str().unwrap_or("device_used");
        let pred = predicted_gib(&e, kind);
        let err = 100.0 * (pred - meas) / meas;
        let st = &e.memory.stages()[e.memory.peak_stage as usize];
        println!(
            "{id:55} {kind:18} meas {meas:6.1} pred {pred:6.1} err {err:+6.1}%  [stage {} w {:.1} g {:.1} o {:.1} a {:.1} buf {:.1} other {:.1}]",
            st.stage,
            st.weights_bytes / GIB,
            st.gradients_bytes / GIB,
            st.optimizer_bytes / GIB,
            st.activations_bytes / GIB,
            st.other_buffers_bytes / GIB,
            st.other_bytes / GIB
        );
        errs.push((id, err));
    }
    let mape = errs.iter().map(|(_, e)| e.abs()).sum::<f64>() / errs.len() as f64;
    let worst = errs.iter().map(|(_, e)| e.abs()).fold(0.0_f64, f64::max);
    println!(
        "memory cases {} MAPE {mape:.2}% worst {worst:.1}%  OOM cases {oom}",
        errs.len()
    );
    assert_eq!(errs.len(), 47);
    assert_eq!(oom, 3);
    // In-sample level at the data refresh of 2026-12-06 (10.44 %: 7.21 % on the 41 cases before
    // it; the five BLOOM 02-28 runs came in at -30 to -32 % and the DGX Cloud example log line at
    // +38.3 %, first sight), rounded up: a change that makes either worse fails here. 8.41:
    // autocast's fp32 softmax (activations.md §14), BF16_Optimizer's fp32 upcast (states.md §8).
    // 7.14: DeepSpeed's bf16 pipeline all-reduce copy (states.md §8); 6.94: BLOOM's embedding
    // LayerNorm input (activations.md §15).
    assert!(mape <= 6.94, "memory MAPE {mape:.2}%");
    // The engine's band without evidence is this MAPE, rounded up: never narrower.
    let band = 100.0 * paracalc::engine::memory::verdict::DEFAULT_BAND_FRAC;
    assert!(
        mape <= band,
        "memory MAPE {mape:.2}% above the default band {band} %"
    );
    // 25.2: BLOOM 02-25 dp8tp4pp12mbs2-r2, whose repeat measured 44 GiB (+8.1 %).
    assert!(worst <= 25.2, "worst memory error {worst:.1}%");
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

use paracalc::engine::memory::{activations, overhead, params, states};
use serde_json::json;

fn scen(v: serde_json::Value) -> Scenario {
    let s = scenario::from_value(&v).unwrap_or_else(|e| panic!("{e}"));
    s.validate().unwrap_or_else(|e| panic!("{e}"));
    s
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

/// GPT-3 175B as in Korthikanti et al. 2022 Fig. 1: t = 8, p = 8, v = 3, b = 1, s = 2048.
fn gpt175(sp: bool, recompute: &str) -> Scenario {
    scen(json!({
        "model": {"layers": 96, "hidden": 12288, "heads": 96, "vocab": 51200, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 64, "micro_batch": 1, "precision": "bf16", "recompute": recompute},
        "parallel": {"tp": 8, "pp": 8, "dp": 1, "vp": 3, "sp": sp},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 64}
    }))
}

/// Korthikanti et al. 2022 22B: h 6144, 64 heads, 48 layers, t = 8, p = 1, b = 4, s = 2048.
fn gpt22b(sp: bool, recompute: &str) -> Scenario {
    scen(json!({
        "model": {"layers": 48, "hidden": 6144, "heads": 64, "vocab": 51200, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 4, "micro_batch": 4, "precision": "bf16", "recompute": recompute},
        "parallel": {"tp": 8, "pp": 1, "dp": 1, "sp": sp},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}
    }))
}

/// Layer activations of stage 0 (layers × per-layer bytes × in-flight), GiB.
fn stage0_layer_activations_gib(s: &Scenario, layers: f64) -> f64 {
    activations::layer_bytes(s) * layers * activations::in_flight_micro_batches(s, 0) / GIB
}

// ---------------------------------------------------------------------------------------------
// Korthikanti et al. 2022, Fig. 1 (activations.md §1 test vectors)
// ---------------------------------------------------------------------------------------------

#[test]
fn korthikanti_fig1_175b() {
    // SP + selective: sbh·34/t per layer = 2048·12288·34/8 = 106,954,752 B; stage 0 holds 12
    // layers × p(1 + (p−1)/(pv)) = 8·(1 + 7/24) = 31/3 micro-batches → 13,262,389,248 B
    // = 12.3515625 GiB.
    let s = gpt175(true, "selective");
    assert_eq!(activations::layer_bytes(&s), 106_954_752.0);
    assert_eq!(activations::in_flight_micro_batches(&s, 0), 31.0 / 3.0);
    assert!(close(
        stage0_layer_activations_gib(&s, 12.0),
        12.3515625,
        1e-12
    ));
    // TP only: sbh·(10 + 24/t + 5as/(ht)) = 25,165,824·(10 + 3 + 10) = 578,813,952 B per layer;
    // × 124 = 71,772,930,048 B = 66.84375 GiB.
    let s = gpt175(false, "none");
    assert_eq!(activations::layer_bytes(&s), 578_813_952.0);
    assert!(close(
        stage0_layer_activations_gib(&s, 12.0),
        66.84375,
        1e-12
    ));
    // Model states, 18 B/param over 12 layers of 12h²/t: 18·12·12·12288²/8 B = 45.5625 GiB.
    let hand = 18.0 * 12.0 * 12.0 * 12288.0_f64.powi(2) / 8.0 / GIB;
    assert_eq!(hand, 45.5625);
    // The engine's middle stage (no embedding) also counts the 13h biases/LayerNorms per layer:
    // 12 × ((12h² + 7h)/8 + 6h) params (QKV/FC1 weights and biases split by t; LayerNorms and the
    // out-proj/FC2 biases replicated) × 18 B.
    let e = estimate(&gpt175(true, "selective")).unwrap();
    let h = 12288.0_f64;
    let st = &e.memory.stages()[3];
    assert_eq!(st.layers, 12);
    assert_eq!(st.params, 12.0 * ((12.0 * h * h + 7.0 * h) / 8.0 + 6.0 * h));
    assert!(close(st.model_states_bytes(), 18.0 * st.params, 1e-12));
    assert!(close(st.model_states_bytes() / GIB, 45.5625, 5e-4));
}

#[test]
fn korthikanti_fig1_22b() {
    // sbh = 2048·4·6144 = 50,331,648. SP + selective: ·34/8 = 213,909,504 B per layer × 48 layers
    // × 1 micro-batch (p = 1) = 10,267,656,192 B = 9.5625 GiB.
    let s = gpt22b(true, "selective");
    assert_eq!(activations::layer_bytes(&s), 213_909_504.0);
    assert!(close(stage0_layer_activations_gib(&s, 48.0), 9.5625, 1e-12));
    // TP only: ·(10 + 3 + 5·64·2048/(6144·8)) = ·(13 + 40/3) → 63,619,203,072 B = 59.25 GiB.
    let s = gpt22b(false, "none");
    assert!(close(stage0_layer_activations_gib(&s, 48.0), 59.25, 1e-12));
    // 18·12·48·6144²/8 = 48,922,361,856 B = 45.5625 GiB.
    let hand = 18.0 * 12.0 * 48.0 * 6144.0_f64.powi(2) / 8.0 / GIB;
    assert_eq!(hand, 45.5625);
    let e = estimate(&gpt22b(true, "selective")).unwrap();
    let st = &e.memory.stages()[0];
    // Stage 0 = the whole model here (embedding V·h/t, biases and LayerNorms included): within
    // 2 % of the layers-only vector.
    assert!(close(st.model_states_bytes() / GIB, 45.5625, 0.02));
    assert!(st.model_states_bytes() / GIB > 45.5625);
}

#[test]
fn table2_rows_and_recompute() {
    // Full recompute keeps 2sbh per layer (Korthikanti Table 2), ÷t with SP.
    let s = gpt22b(false, "full");
    assert_eq!(activations::layer_bytes(&s), 2.0 * 50_331_648.0);
    let s = gpt22b(true, "full");
    assert_eq!(activations::layer_bytes(&s), 2.0 * 50_331_648.0 / 8.0);
    // TP + selective without SP: sbh·(10 + 24/t) = 50,331,648 · 13.
    let s = gpt22b(false, "selective");
    assert_eq!(activations::layer_bytes(&s), 50_331_648.0 * 13.0);
    // TP + SP, no recompute: sbh·(34/t + 5as/(ht)).
    let s = gpt22b(true, "none");
    let sbh = 50_331_648.0;
    assert!(close(
        activations::layer_bytes(&s),
        sbh * (34.0 / 8.0 + 5.0 * 64.0 * 2048.0 / (6144.0 * 8.0)),
        1e-12
    ));
}

#[test]
fn flash_gqa_swiglu_general_form() {
    // Llama-style layer, t = 2, SP, no recompute, flash attention: per token
    // replicated (norm inputs 4h + QKV and FC1 inputs 4h)/t = 8·4096/2 = 16,384 B (a Llama
    // recipe runs without dropout; with it, + masks 2h/t: 20,480 B);
    // sharded 2·(q + 2kv + q + 3f)/t with q = 4096, kv = 1024, f = 14336: 2·(4096 + 2048 + 4096
    // + 43008)/2 = 53,248 B; log-sum-exp 4·a/t = 64 B. Tokens b·s/c = 2·4096/2 = 4096.
    let s = scen(json!({
        "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256, "seq_len": 4096},
        "training": {"global_batch": 16, "micro_batch": 2, "precision": "bf16", "recompute": "none", "flash_attention": true},
        "parallel": {"tp": 2, "pp": 1, "dp": 2, "cp": 2, "sp": true},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 8}
    }));
    let a = activations::layer_activations(&s);
    assert_eq!(a.replicated, 4096.0 * 16_384.0);
    assert_eq!(a.sharded, 4096.0 * 53_248.0);
    assert_eq!(a.scores, 4096.0 * 64.0);
    let mut with = s.clone();
    with.training.dropout = Some(true);
    let a = activations::layer_activations(&with);
    assert_eq!(a.replicated, 4096.0 * 20_480.0);
    assert_eq!(a.sharded, 4096.0 * 53_248.0);
}

#[test]
fn per_op_selective_checkpointing_with_flash() {
    // Selective + flash attention under torchtitan = per-op SAC (`selective_ac_option = "op"`): the
    // block input, every other weight GEMM's output (Llama forward order wq, wk, wv, wo, w1, w3,
    // w2 → saved wq, wv, w1, w2) and the attention kernel's output + log-sum-exp.
    // Llama 3 8B (h = q = 4096, kv = 1024, f = 14336, a = 32), t = 1, b = 2, s = 8192:
    // per token 2·4096 (input) + 2·(4096 + 1024 + 14336 + 4096) (saved GEMMs) + 2·4096 (attention
    // output) + 4·32 (lse) = 8192 + 47,104 + 8192 + 128 = 63,616 B; tokens 16,384.
    let llama8b = |tp: u64, sp: bool| {
        scen(json!({
            "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192},
            "training": {"global_batch": 16, "micro_batch": 2, "precision": "bf16", "recompute": "selective", "flash_attention": true, "framework": "torchtitan"},
            "parallel": {"tp": tp, "pp": 1, "dp": 8 / tp, "sp": sp, "zero_stage": 3},
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 8}
        }))
    };
    let s = llama8b(1, false);
    assert_eq!(activations::layer_bytes(&s), 16_384.0 * 63_616.0);
    // The working set of the one layer being recomputed is the rest of its full activations.
    let full = activations::layer_activations_full(&s).total();
    assert_eq!(
        activations::recompute_working_bytes(&s),
        full - 16_384.0 * 63_616.0
    );
    // t = 2 with SP: input 2·4096/2 = 4096 and the row-parallel w2 output, each rank's partial
    // sums of the whole width, 2·4096 = 8192 (replicated 12,288); column-parallel outputs and
    // the attention output 2·(4096 + 1024 + 14336 + 4096)/2 = 23,552; lse 4·32/2 = 64.
    let a = activations::layer_activations(&llama8b(2, true));
    assert_eq!(a.replicated, 16_384.0 * 12_288.0);
    assert_eq!(a.sharded, 16_384.0 * 23_552.0);
    assert_eq!(a.scores, 16_384.0 * 64.0);
}

// ---------------------------------------------------------------------------------------------
// Megatron-LM theoretical_memory_usage.py (states.md §3, activations.md §2), by hand
// ---------------------------------------------------------------------------------------------

fn llama_small(pp: u64, tp: u64, dp: u64, zero: u8, layers: u64) -> Scenario {
    scen(json!({
        "model": {"layers": layers, "hidden": 1024, "heads": 16, "kv_heads": 4, "ffn_hidden": 2816, "ffn_act": "swiglu", "vocab": 32000, "seq_len": 1024},
        "training": {"global_batch": 8 * dp, "micro_batch": 1, "precision": "bf16", "recompute": "selective", "flash_attention": true},
        "parallel": {"tp": tp, "pp": pp, "dp": dp, "sp": tp > 1, "zero_stage": zero},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": tp * pp * dp}
    }))
}

#[test]
fn megatron_weight_and_optimizer_memory() {
    // Per layer (HEAD, no biases, RMSNorm): attention 2·h·q·(1 + g/a) = 2·1024·1024·1.25 =
    // 2,621,440; MLP 3·h·f = 8,650,752 (TP-sharded: 11,272,192); norms 2h = 2048 (replicated).
    // (a) p = 1, t = 2, d = 4, distributed optimizer, untied: Ψ_first = (4·11,272,192 + 2·V·h)/t
    //     + 4·2048 + final norm 1024 = (45,088,768 + 65,536,000)/2 + 9,216 = 55,321,600;
    //     bytes = Ψ_first·(6 + 12/4) = 497,894,400.
    let e = estimate(&llama_small(1, 2, 4, 1, 4)).unwrap();
    assert_eq!(e.memory.stages()[0].params, 55_321_600.0);
    assert_eq!(e.memory.stages()[0].model_states_bytes(), 497_894_400.0);
    // (b) p = 4, t = 1, d = 2, no distributed optimizer, 8 layers: stage 0 = 2 layers
    //     (2·11,274,240) + V·h (32,768,000) = 55,316,480 params × 18 B = 995,696,640.
    let e = estimate(&llama_small(4, 1, 2, 0, 8)).unwrap();
    let st = &e.memory.stages();
    assert_eq!(st[0].params, 55_316_480.0);
    assert_eq!(st[0].model_states_bytes(), 995_696_640.0);
    // Middle stages: layers only; the last stage: layers + the untied output layer + final norm.
    assert_eq!(st[1].params, 22_548_480.0);
    assert_eq!(st[3].params, 22_548_480.0 + 32_768_000.0 + 1024.0);
    // (c) same with the distributed optimizer: 6 + 12/2 = 12 B/param.
    let e = estimate(&llama_small(4, 1, 2, 1, 8)).unwrap();
    assert_eq!(
        e.memory.stages()[0].model_states_bytes(),
        55_316_480.0 * 12.0
    );
}

fn gpt_small(pp: u64, vp: u64, tp: u64, m: u64, sp: bool) -> Scenario {
    let mut v = json!({
        "model": {"layers": 16, "hidden": 1024, "heads": 16, "vocab": 50304, "seq_len": 1024},
        "training": {"global_batch": 2 * m, "micro_batch": 2, "precision": "bf16", "recompute": "selective"},
        "parallel": {"tp": tp, "pp": pp, "dp": 1, "vp": vp, "sp": sp},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": tp * pp}
    });
    if vp > 1 {
        v["parallel"]["schedule"] = json!("interleaved");
    }
    scen(v)
}

#[test]
fn megatron_activation_memory() {
    let (s_, b, h, l) = (1024.0, 2.0, 1024.0, 16.0);
    let sbh = s_ * b * h;
    // Megatron `compute_activation_memory` (SP + selective): per layer sbh·(18 + 4f/h) = 34·sbh,
    // × L, + 8sbp + sbhp, × interleave penalty or min(1, m/p), + 4sbh(1 + V/h) if p = 1, ÷ t.
    // (a) interleaved p = 4, v = 2, t = 2, m = 8: penalty 1 + 3/8.
    let s = gpt_small(4, 2, 2, 8, true);
    let megatron_layers = 34.0 * sbh * l * (1.0 + 3.0 / 8.0) / 2.0;
    let ours_layers =
        activations::layer_bytes(&s) * 4.0 * activations::in_flight_micro_batches(&s, 0);
    assert!(close(ours_layers, megatron_layers, 1e-12));
    let megatron_embedding = (8.0 * s_ * b * 4.0 + sbh * 4.0) * (1.0 + 3.0 / 8.0) / 2.0;
    let e = estimate(&s).unwrap();
    let working = activations::recompute_working_bytes(&s);
    // Ours keeps the int64 token ids whole on every TP rank (Megatron divides them by t too):
    // within 0.1 %.
    assert!(close(
        e.memory.stages()[0].activations_bytes - working,
        megatron_layers + megatron_embedding,
        1e-3
    ));
    // (b) 1F1B p = 4, m = 2 < p: factor min(1, m/p) = 1/2 on all L layers = 2 micro-batches of L/p.
    let s = gpt_small(4, 1, 2, 2, true);
    assert_eq!(activations::in_flight_micro_batches(&s, 0), 2.0);
    let ours = activations::layer_bytes(&s) * 4.0 * 2.0;
    assert!(close(ours, 34.0 * sbh * l * 0.5 / 2.0, 1e-12));
    // (c) p = 1: output layer input + fp32 logits 4sbh(1 + V/h)/t, exactly.
    let s = gpt_small(1, 1, 2, 4, true);
    assert!(close(
        activations::output_bytes(&s),
        4.0 * sbh * (1.0 + 50304.0 / h) / 2.0,
        1e-12
    ));
}

// ---------------------------------------------------------------------------------------------
// ZeRO (SC20 §5) and DeepSpeed estimators (states.md §1, §2)
// ---------------------------------------------------------------------------------------------

fn zero_case(zero: u8, precision: &str) -> Scenario {
    scen(json!({
        "model": {"layers": 8, "hidden": 2048, "heads": 16, "vocab": 32000, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 32, "micro_batch": 1, "precision": precision, "recompute": "full"},
        "parallel": {"tp": 1, "pp": 1, "dp": 8, "zero_stage": zero},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}
    }))
}

#[test]
fn zero_stages_model_states() {
    // One GPU holds the whole model (t = p = 1): Ψ = L·(12h² + 13h) + V·h + 2h (tied).
    let s = zero_case(0, "bf16");
    let h = 2048.0_f64;
    let psi = 8.0 * (12.0 * h * h + 13.0 * h) + 32000.0 * h + 2.0 * h;
    assert_eq!(params::total_params(&s.model), psi);
    let n = 8.0;
    // bf16 (fp32 grads): 18Ψ, 6Ψ + 12Ψ/N, 2Ψ + 16Ψ/N, 18Ψ/N.
    let expect = [
        18.0 * psi,
        6.0 * psi + 12.0 * psi / n,
        2.0 * psi + 16.0 * psi / n,
        18.0 * psi / n,
    ];
    for (z, want) in expect.iter().enumerate() {
        let e = estimate(&zero_case(z as u8, "bf16")).unwrap();
        assert!(
            close(e.memory.stages()[0].model_states_bytes(), *want, 1e-12),
            "zero {z}"
        );
    }
    // fp16 uses the same fp32-accumulation accounting (Megatron 18 B/param).
    for z in 0..=3u8 {
        let a = estimate(&zero_case(z, "fp16")).unwrap();
        let b = estimate(&zero_case(z, "bf16")).unwrap();
        assert_eq!(
            a.memory.stages()[0].model_states_bytes(),
            b.memory.stages()[0].model_states_bytes()
        );
    }
    // ZeRO-2 relates to DeepSpeed's `estimate_zero2_model_states_mem_needs` (2P + 18P/G): ours
    // keeps fp32 gradients only (2P + 16P/G); DeepSpeed adds a 16-bit gradient partition (2P/G).
    let e = estimate(&zero_case(2, "bf16")).unwrap();
    assert!(close(
        e.memory.stages()[0].model_states_bytes() + 2.0 * psi / n,
        states::deepspeed_zero2_gpu_bytes(psi, n, false),
        1e-12
    ));
    // Against the ZeRO paper's 16 B accounting, ours adds the fp32 gradient: 2Ψ more at stages
    // 0–1, 2Ψ/N at stages 2–3.
    for (z, extra) in [
        (0u8, 2.0 * psi),
        (1, 2.0 * psi),
        (2, 2.0 * psi / n),
        (3, 2.0 * psi / n),
    ] {
        let e = estimate(&zero_case(z, "bf16")).unwrap();
        assert!(
            close(
                e.memory.stages()[0].model_states_bytes(),
                states::zero_paper_bytes(z, psi, n) + extra,
                1e-12
            ),
            "zero {z}"
        );
    }
    // fp32: 16Ψ, 8Ψ + 8Ψ/N (Megatron table).
    let e = estimate(&zero_case(1, "fp32")).unwrap();
    assert!(close(
        e.memory.stages()[0].model_states_bytes(),
        8.0 * psi + 8.0 * psi / n,
        1e-12
    ));
}

#[test]
fn zero3_gathered_working_copy_vs_deepspeed() {
    let s = zero_case(3, "bf16");
    let e = estimate(&s).unwrap();
    let st = &e.memory.stages()[0];
    let psi = params::total_params(&s.model);
    // Largest module: the embedding V·h = 65,536,000 > one layer 12h² + 13h = 50,358,272.
    let largest = 32000.0 * 2048.0;
    let gp = params::gpu_params(&s, 0);
    assert_eq!(gp.largest_module, largest);
    // DeepSpeed ZeRO-3 (no offload): 4P_ℓ + 18P/G. Ours: states 18P/G (same), gathered buffers
    // 16-bit params + grads of the largest module (4P_ℓ) + the prefetched next one (2P_ℓ).
    let ds = states::deepspeed_zero3_gpu_bytes(psi, largest, 8.0, false, false);
    assert!(close(st.model_states_bytes() + 4.0 * largest, ds, 1e-12));
    assert_eq!(st.other_buffers_bytes, 6.0 * largest);
    // Hand checks of the estimators, P = 1e9, P_ℓ = 5e7, G = 16.
    assert_eq!(states::deepspeed_zero2_gpu_bytes(1e9, 16.0, false), 3.125e9);
    assert_eq!(states::deepspeed_zero2_gpu_bytes(1e9, 16.0, true), 2e9);
    assert_eq!(
        states::deepspeed_zero3_gpu_bytes(1e9, 5e7, 16.0, false, false),
        2e8 + 1.125e9
    );
    assert_eq!(
        states::deepspeed_zero3_gpu_bytes(1e9, 5e7, 16.0, true, false),
        2e8 + 1.25e8
    );
    assert_eq!(
        states::deepspeed_zero3_gpu_bytes(1e9, 5e7, 16.0, true, true),
        2e8
    );
    // ZeRO paper (16 B/param accounting), Ψ = 7.5e9, N = 64: 120 / 31.4 / 16.6 / 1.9 GB.
    assert_eq!(states::zero_paper_bytes(0, 7.5e9, 64.0), 120e9);
    assert!(close(
        states::zero_paper_bytes(1, 7.5e9, 64.0),
        31.40625e9,
        1e-12
    ));
    assert!(close(
        states::zero_paper_bytes(2, 7.5e9, 64.0),
        16.640625e9,
        1e-12
    ));
    assert!(close(
        states::zero_paper_bytes(3, 7.5e9, 64.0),
        1.875e9,
        1e-12
    ));
}

#[test]
fn fp8_does_not_halve_model_states() {
    let bf16 = estimate(&zero_case(0, "bf16")).unwrap();
    let s = scen(json!({
        "model": {"layers": 8, "hidden": 2048, "heads": 16, "vocab": 32000, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 32, "micro_batch": 1, "precision": "fp8", "recompute": "full"},
        "parallel": {"tp": 1, "pp": 1, "dp": 8},
        "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 8}
    }));
    let fp8 = estimate(&s).unwrap();
    let (a, b) = (&bf16.memory.stages()[0], &fp8.memory.stages()[0]);
    // + FP8 weight and transpose copies of the GEMM weights (1 B each: 8·12h² params) and the
    // amax history (8 layers × 4 GEMMs × 1024 × 3 × 4 B).
    let h = 2048.0_f64;
    let extra = 2.0 * 8.0 * 12.0 * h * h + 8.0 * 4.0 * 1024.0 * 3.0 * 4.0;
    assert!(close(b.weights_bytes - a.weights_bytes, extra, 1e-12));
    assert_eq!(b.gradients_bytes, a.gradients_bytes);
    assert_eq!(b.optimizer_bytes, a.optimizer_bytes);
    assert!(b.model_states_bytes() > a.model_states_bytes());
}

// ---------------------------------------------------------------------------------------------
// Every pipeline stage
// ---------------------------------------------------------------------------------------------

#[test]
fn in_flight_per_schedule() {
    let one_f = gpt_small(4, 1, 1, 8, false);
    let f: Vec<f64> = (0..4)
        .map(|r| activations::in_flight_micro_batches(&one_f, r))
        .collect();
    assert_eq!(f, vec![4.0, 3.0, 2.0, 1.0]);
    let few = gpt_small(4, 1, 1, 2, false);
    let f: Vec<f64> = (0..4)
        .map(|r| activations::in_flight_micro_batches(&few, r))
        .collect();
    assert_eq!(f, vec![2.0, 2.0, 2.0, 1.0]);
    let mut gpipe = gpt_small(4, 1, 1, 8, false);
    gpipe.parallel.schedule = Some(scenario::Schedule::Gpipe);
    for r in 0..4 {
        assert_eq!(activations::in_flight_micro_batches(&gpipe, r), 8.0);
    }
    // Interleaved p = 4, v = 2: (2(p−r−1) + (v−1)p + 1)/v = 11/2, 9/2, 7/2, 5/2.
    let il = gpt_small(4, 2, 1, 8, false);
    let f: Vec<f64> = (0..4)
        .map(|r| activations::in_flight_micro_batches(&il, r))
        .collect();
    assert_eq!(f, vec![5.5, 4.5, 3.5, 2.5]);
    // Stage memory follows: with 1F1B stage 0 has the most activations, with GPipe all stages
    // hold the same layer activations.
    let e = estimate(&one_f).unwrap();
    let st = &e.memory.stages();
    assert!(st[0].activations_bytes > st[1].activations_bytes);
    assert!(st[1].activations_bytes > st[2].activations_bytes);
    assert_eq!(st[0].in_flight_micro_batches, 4.0);
    // The rows count a run of ranks in one pass (`InFlight::over`): rank by rank the same as the
    // definition, for every schedule, with few and many micro-batches (the 1F1B cap `m` inside
    // a run).
    for s in every_schedule() {
        let rows = estimate(&s).unwrap().memory.stages();
        let per_rank: Vec<f64> = (0..s.parallel.pp)
            .map(|r| activations::in_flight_micro_batches(&s, r))
            .collect();
        let from_rows: Vec<f64> = rows.iter().map(|r| r.in_flight_micro_batches).collect();
        let (sched, mb) = (s.parallel.schedule(), s.training.global_batch / 2);
        assert_eq!(from_rows, per_rank, "{sched:?}, m = {mb}");
    }
}

/// Interleaved 1F1B keeps one micro-batch of the output layer on the last rank: its warm-up runs
/// only the earlier chunks, and each forward of the last chunk is followed by its backward
/// (Megatron-LM `schedules.py` @d98e8a64, PyTorch `ScheduleInterleaved1F1B`).
#[test]
fn interleaved_last_rank_holds_one_micro_batch_of_the_output_layer() {
    // gpt_small p = 4, v = 2, t = 1, m = 8, selective: rank 3 holds (2·0 + 1·4 + 1)/2 = 2.5
    // micro-batches of its 4 layers, the output layer once.
    let s = gpt_small(4, 2, 1, 8, false);
    assert_eq!(activations::in_flight_micro_batches(&s, 3), 2.5);
    let st = estimate(&s).unwrap().memory.stages()[3];
    // Output layer per micro-batch: 1024 × 2 tokens × (2·2·1024 + 4·50304) = 420,478,976 B.
    let out = activations::output_bytes(&s);
    assert_eq!(out, 2048.0 * (4096.0 + 201_216.0));
    let layers = activations::layer_bytes(&s) * 4.0 * 2.5;
    let transient =
        activations::logits_transient_bytes(&s).max(activations::recompute_working_bytes(&s));
    assert!(close(st.activations_bytes, layers + out + transient, 1e-12));
    // Plain 1F1B's last rank holds one micro-batch anyway: the same output term.
    let one_f = gpt_small(4, 1, 1, 8, false);
    assert_eq!(activations::in_flight_micro_batches(&one_f, 3), 1.0);
}

/// DualPipe keeps `p − s` micro-batches of model stage `s` on whichever rank holds it
/// (deepseek-ai/DualPipe `dualpipe.py` @3da1bbe, `DualPipe.step` steps 1-4): with stages of
/// unequal layers a rank's activations weigh each of its two stages by its own count, not
/// `(p + 1)/2` for both.
#[test]
fn dualpipe_weighs_each_stage_by_its_own_in_flight_count() {
    // gpt_small, p = 4, m = 8 (4 per direction), stages of 1, 2, 3 and 10 layers in model
    // order: rank 0 holds stage 0 (1 layer, 4 in flight, the embedding) and stage 3 (10 layers,
    // 1 in flight, the output layer once): 4·1 + 1·10 = 14 layer-micro-batches, not 2.5·11;
    // rank 1: stage 1 (2 layers) × 3 + stage 2 (3 layers) × 2 = 12; rank 2 the same; rank 3 as
    // rank 0.
    let mut s = gpt_small(4, 1, 1, 8, false);
    s.parallel.schedule = Some(scenario::Schedule::DualPipe);
    s.parallel.layers_per_stage = Some(vec![1, 2, 3, 10]);
    let rows = estimate(&s).unwrap().memory.stages();
    let layer = activations::layer_bytes(&s);
    let out = activations::output_bytes(&s);
    let emb = activations::embedding_bytes(&s);
    let transient =
        activations::logits_transient_bytes(&s).max(activations::recompute_working_bytes(&s));
    for (r, layer_mbs) in [(0, 14.0), (3, 14.0)] {
        let want = layer * layer_mbs + emb * 4.0 + out + transient;
        assert!(close(rows[r].activations_bytes, want, 1e-12), "rank {r}");
        assert!(close(rows[r].in_flight_micro_batches, 14.0 / 11.0, 1e-12));
    }
    for r in [1, 2] {
        let working = activations::recompute_working_bytes(&s);
        assert!(
            close(rows[r].activations_bytes, layer * 12.0 + working, 1e-12),
            "rank {r}"
        );
        assert!(close(rows[r].in_flight_micro_batches, 12.0 / 5.0, 1e-12));
    }
    // The peak is the scan of every row, with either end of a run the heavier: on 8 ranks
    // stages 1, 2 of 1 layer and 5, 6 of 5 make ranks 1 and 2 one run of 7·1 + 2·5 and 6·1 + 3·5
    // layer-micro-batches (and 4, 1, 1, 1, 1, 1, 1, 6 the reverse).
    let mut s8 = gpt_small(8, 1, 1, 16, false);
    s8.parallel.schedule = Some(scenario::Schedule::DualPipe);
    s8.model.vocab = 1024; // so that the ends do not outweigh the run
    for (mut s, list) in [
        (s.clone(), vec![5, 3, 3, 5]),
        (s.clone(), vec![4, 1, 9, 2]),
        (s8.clone(), vec![1, 1, 1, 1, 1, 5, 5, 1]),
        (s8.clone(), vec![1, 5, 5, 1, 1, 1, 1, 1]),
    ] {
        s.parallel.layers_per_stage = Some(list);
        let m = estimate(&s).unwrap().memory;
        assert_eq!((m.peak_bytes, m.peak_stage), scanned_peak(&m));
    }
}

/// The reference the estimate's peak is checked against: the first rank with the largest total,
/// found by scanning every rank's row (the engine finds it from each run's first rank).
fn scanned_peak(m: &paracalc::engine::MemoryEstimate) -> (f64, u64) {
    let (mut peak, mut at) = (f64::NEG_INFINITY, 0);
    for row in m.stages() {
        if row.total_bytes > peak {
            (peak, at) = (row.total_bytes, row.stage);
        }
    }
    (peak, at)
}

/// [`gpt_small`] on 4 ranks under every schedule, with few and many micro-batches (the 1F1B
/// cap `m` inside a run of ranks).
fn every_schedule() -> Vec<Scenario> {
    use scenario::Schedule::*;
    [
        (1, 8, OneFOneB),
        (1, 2, OneFOneB),
        (1, 2, ZbH1),
        (1, 8, Gpipe),
        (2, 8, Interleaved),
        (2, 3, Interleaved),
        (2, 8, ZbV),
        (1, 8, DualPipe),
        (2, 8, DualPipeV),
    ]
    .into_iter()
    .map(|(vp, mb, sched)| {
        let mut s = gpt_small(4, vp, 1, mb, false);
        s.parallel.schedule = Some(sched);
        s
    })
    .collect()
}

#[test]
fn embeddings_on_first_and_last_stage() {
    let h = 1024.0;
    let v = 50304.0;
    // Untied, p = 4, t = 1: stage 0 has the embedding V·h, the last stage the output layer V·h
    // and the final LayerNorm.
    let s = gpt_small(4, 1, 1, 8, false);
    let e = estimate(&s).unwrap();
    let st = &e.memory.stages();
    let layer = 12.0 * h * h + 13.0 * h;
    assert_eq!(st[0].params, 4.0 * layer + v * h);
    assert_eq!(st[1].params, 4.0 * layer);
    assert_eq!(st[3].params, 4.0 * layer + v * h + 2.0 * h);
    // Tied, p = 4: the last stage still keeps a copy of the word embeddings (Megatron).
    let mut tied = s.clone();
    tied.model.tied_embeddings = true;
    let e = estimate(&tied).unwrap();
    assert_eq!(e.memory.stages()[3].params, 4.0 * layer + v * h + 2.0 * h);
    // p = 1: untied holds both matrices, tied only one.
    let e = estimate(&gpt_small(1, 1, 1, 8, false)).unwrap();
    assert_eq!(
        e.memory.stages()[0].params,
        16.0 * layer + 2.0 * v * h + 2.0 * h
    );
    let mut one = gpt_small(1, 1, 1, 8, false);
    one.model.tied_embeddings = true;
    let e = estimate(&one).unwrap();
    assert_eq!(e.memory.stages()[0].params, 16.0 * layer + v * h + 2.0 * h);
    // The last stage has the logits; stage 0 the embedding terms.
    let s = gpt_small(4, 1, 1, 8, false);
    let e = estimate(&s).unwrap();
    let st = &e.memory.stages();
    let per_layer = activations::layer_bytes(&s);
    let working = activations::recompute_working_bytes(&s);
    assert!(close(
        st[0].activations_bytes,
        4.0 * per_layer * 4.0 + activations::embedding_bytes(&s) * 4.0 + working,
        1e-12
    ));
    assert!(close(
        st[3].activations_bytes,
        4.0 * per_layer
            + activations::output_bytes(&s)
            + working.max(activations::logits_transient_bytes(&s)),
        1e-12
    ));
}

#[test]
fn poor_partition_raises_stage_memory() {
    let even = gpt_small(4, 1, 1, 8, false);
    let mut uneven = even.clone();
    uneven.parallel.layers_per_stage = Some(vec![7, 3, 3, 3]);
    uneven.validate().unwrap();
    let a = estimate(&even).unwrap();
    let b = estimate(&uneven).unwrap();
    assert_eq!(b.memory.stages()[0].layers, 7);
    assert!(b.memory.peak_bytes > a.memory.peak_bytes);
    assert_eq!(b.memory.peak_stage, 0);
}

#[test]
fn capacity_headroom_fits() {
    let e = estimate(&gpt_small(4, 1, 1, 8, false)).unwrap();
    let m = &e.memory;
    assert_eq!(m.capacity_bytes, 80.0 * GIB); // a100-sxm4-80gb: no usable_gib, hbm 80 GiB
    assert_eq!(m.headroom_bytes, m.capacity_bytes - m.peak_bytes);
    assert!(m.fits);
    let v100 = scen(json!({
        "model": {"layers": 24, "hidden": 1024, "heads": 16, "vocab": 30522, "seq_len": 512, "tied_embeddings": true},
        "training": {"global_batch": 4, "micro_batch": 4, "precision": "fp32", "recompute": "none"},
        "parallel": {"tp": 1, "pp": 1, "dp": 1},
        "cluster": {"gpu": "v100-sxm2-16gb", "num_gpus": 1}
    }));
    let e = estimate(&v100).unwrap();
    assert_eq!(e.memory.capacity_bytes, 15.78 * GIB); // usable_gib
}

#[test]
fn overhead_defaults_and_overrides() {
    let s = gpt_small(4, 1, 2, 8, true);
    let e = estimate(&s).unwrap();
    let st = &e.memory.stages()[0];
    assert_eq!(st.cuda_context_bytes, 1.3 * GIB);
    // NCCL's buffers of two 2-rank communicators inside the A100 node (TP 2, the pipeline
    // neighbours 2 ranks apart): 24 channels × one connection × 12 MiB each.
    assert_eq!(st.comm_buffers_bytes, 2.0 * 24.0 * 12.0 * 1024.0 * 1024.0);
    let allocated = st.model_states_bytes() + st.activations_bytes + st.other_buffers_bytes;
    assert!(close(st.allocator_reserve_bytes, 0.05 * allocated, 1e-12));
    let mut s2 = s.clone();
    s2.overhead.cuda_context_gib = Some(0.5);
    s2.overhead.comm_buffers_gib = Some(0.0);
    s2.overhead.allocator_reserve_pct = Some(0.0);
    let e2 = estimate(&s2).unwrap();
    let st2 = &e2.memory.stages()[0];
    assert_eq!(st2.other_bytes, 0.5 * GIB + st2.other_buffers_bytes);
    assert_eq!(st2.allocator_reserved_bytes(), st2.total_bytes - 0.5 * GIB);
}

// ---------------------------------------------------------------------------------------------
// Properties over random valid scenarios
// ---------------------------------------------------------------------------------------------

use proptest::prelude::*;

prop_compose! {
    fn arb_scenario()(
        tp in prop::sample::select(vec![1u64, 2, 4]),
        heads_per_tp in 1u64..=4,
        kv_div in prop::sample::select(vec![1u64, 2, 4]),
        head_dim in prop::sample::select(vec![8u64, 32, 64]),
        layers in 1u64..=24,
        swiglu in any::<bool>(),
        ffn_mult in 1u64..=4,
        vocab in 64u64..=60_000,
        seq_pow in 4u32..=12,
        tied in any::<bool>(),
        moe in prop::option::of((prop::sample::select(vec![2u64, 4, 8]), 1u64..=2, 16u64..=512)),
        micro in 1u64..=4,
        m in 1u64..=12,
        pp in 1u64..=4,
        dp in prop::sample::select(vec![1u64, 2, 4]),
        cp in prop::sample::select(vec![1u64, 2]),
        ep_full in any::<bool>(),
        vp in 1u64..=2,
        gpipe in any::<bool>(),
        sp in any::<bool>(),
        zero in 0u8..=3,
        precision in prop::sample::select(vec!["fp32", "fp16", "bf16", "fp8"]),
        recompute in prop::sample::select(vec!["none", "selective", "full"]),
        flash in any::<bool>(),
    ) -> serde_json::Value {
        let heads = tp * heads_per_tp;
        let kv = (heads / kv_div).max(tp);
        let kv = if heads % kv == 0 && kv % tp == 0 { kv } else { heads };
        let hidden = heads * head_dim;
        let ep = if ep_full && moe.is_some() { dp } else { 1 };
        let moe = moe.map(|(e, k, f)| json!({"experts": e.max(ep), "top_k": k, "expert_ffn_hidden": f}));
        let vp = if pp > 1 { vp } else { 1 };
        let mut v = json!({
            "model": {"layers": layers * pp * vp, "hidden": hidden, "heads": heads, "kv_heads": kv,
                      "ffn_hidden": hidden * ffn_mult, "ffn_act": if swiglu { "swiglu" } else { "gelu" },
                      "vocab": vocab, "seq_len": 1u64 << seq_pow, "tied_embeddings": tied, "moe": moe},
            "training": {"global_batch": micro * dp * m, "micro_batch": micro, "precision": precision,
                         "recompute": recompute, "flash_attention": flash},
            "parallel": {"tp": tp, "pp": pp, "dp": dp, "cp": cp, "ep": ep, "vp": vp,
                         "sp": sp && tp > 1, "zero_stage": zero},
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": tp * pp * dp * cp}
        });
        if vp > 1 {
            v["parallel"]["schedule"] = json!("interleaved");
        } else if gpipe && pp > 1 {
            v["parallel"]["schedule"] = json!("gpipe");
        }
        v
    }
}

fn valid(v: &serde_json::Value) -> Option<Scenario> {
    let s = scenario::from_value(v).ok()?;
    s.validate().ok()?;
    Some(s)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn parts_sum_to_totals(v in arb_scenario()) {
        let s = valid(&v).expect("generator yields valid scenarios");
        let e = estimate(&s).unwrap();
        let m = &e.memory;
        prop_assert_eq!(m.stages().len() as u64, s.parallel.pp);
        let mut peak = 0.0_f64;
        let mut layers = 0;
        for st in &m.stages() {
            for x in [st.weights_bytes, st.gradients_bytes, st.optimizer_bytes, st.activations_bytes,
                      st.other_bytes, st.cuda_context_bytes, st.comm_buffers_bytes,
                      st.allocator_reserve_bytes, st.other_buffers_bytes, st.total_bytes, st.params] {
                prop_assert!(x.is_finite() && x >= 0.0, "{:?}", st);
            }
            let sum = st.weights_bytes + st.gradients_bytes + st.optimizer_bytes + st.activations_bytes + st.other_bytes;
            prop_assert!(close(st.total_bytes, sum, 1e-12));
            let other = st.cuda_context_bytes + st.comm_buffers_bytes + st.allocator_reserve_bytes + st.other_buffers_bytes;
            prop_assert!(close(st.other_bytes, other, 1e-12));
            peak = peak.max(st.total_bytes);
            layers += st.layers;
        }
        prop_assert_eq!(layers, s.model.layers);
        prop_assert_eq!(m.peak_bytes, peak);
        prop_assert_eq!(m.stages()[m.peak_stage as usize].total_bytes, peak);
        prop_assert_eq!(m.headroom_bytes, m.capacity_bytes - m.peak_bytes);
        prop_assert_eq!(m.fits, m.peak_bytes <= m.capacity_bytes);
    }

    #[test]
    fn more_zero_never_raises_model_states(v in arb_scenario()) {
        let s = valid(&v).expect("valid");
        let mut prev: Option<Vec<f64>> = None;
        for z in 0..=3u8 {
            let mut sz = s.clone();
            sz.parallel.zero_stage = z;
            let e = estimate(&sz).unwrap();
            let cur: Vec<f64> = e.memory.stages().iter().map(|st| st.model_states_bytes()).collect();
            if let Some(p) = &prev {
                for (a, b) in p.iter().zip(&cur) {
                    prop_assert!(*b <= *a * (1.0 + 1e-12), "zero {}: {} > {}", z, b, a);
                }
            }
            prev = Some(cur);
        }
    }

    #[test]
    fn recompute_never_raises_activations(v in arb_scenario()) {
        let s = valid(&v).expect("valid");
        let act = |r: scenario::Recompute| -> Vec<f64> {
            let mut x = s.clone();
            x.training.recompute = r;
            estimate(&x).unwrap().memory.stages().iter().map(|st| st.activations_bytes).collect()
        };
        let none = act(scenario::Recompute::None);
        let sel = act(scenario::Recompute::Selective);
        let full = act(scenario::Recompute::Full);
        for i in 0..none.len() {
            prop_assert!(sel[i] <= none[i] * (1.0 + 1e-12), "selective {} > none {}", sel[i], none[i]);
            prop_assert!(full[i] <= sel[i] * (1.0 + 1e-12), "full {} > selective {}", full[i], sel[i]);
        }
    }

    #[test]
    fn never_panics_on_parsed_input(
        layers in 0u64..=200, hidden in 0u64..=4096, heads in 0u64..=64, vocab in 0u64..=100_000,
        seq in 0u64..=100_000, b in 0u64..=64, gb in 0u64..=10_000, tp in 0u64..=16, pp in 0u64..=16,
        dp in 0u64..=16, vp in 0u64..=4, zero in 0u8..=5,
    ) {
        let v = json!({
            "model": {"layers": layers, "hidden": hidden, "heads": heads, "vocab": vocab, "seq_len": seq},
            "training": {"global_batch": gb, "micro_batch": b, "precision": "bf16", "recompute": "none"},
            "parallel": {"tp": tp, "pp": pp, "dp": dp, "vp": vp, "zero_stage": zero},
            "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": tp * pp * dp}
        });
        if let Ok(s) = scenario::from_value(&v) {
            // Valid or not, estimate returns (an error for invalid input) and never panics.
            if let Ok(e) = estimate(&s) {
                prop_assert!(e.memory.peak_bytes.is_finite());
            }
            // The memory fill on its own, even unvalidated, never panics.
            if let Some(gpu) = s.gpu() {
                let mut m = paracalc::engine::MemoryEstimate::default();
                let plan = paracalc::engine::plan::Plan::new(&s, &gpu);
                paracalc::engine::memory::fill(&plan, &mut m);
            }
        }
    }
}

/// `memory::fill` for a 16-stage pipeline reuses its output over many calls. The time per call
/// is printed, not asserted (a timed assertion fails on a loaded machine, not on slow code): run
/// `cargo test --release --test memory fill_speed -- --nocapture`, or `paracalc bench`.
#[test]
fn fill_speed() {
    let s = scen(json!({
        "model": {"layers": 96, "hidden": 12288, "heads": 96, "vocab": 51200, "seq_len": 2048},
        "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "recompute": "selective"},
        "parallel": {"tp": 8, "pp": 16, "dp": 8, "vp": 2, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024}
    }));
    let gpu = s.gpu().unwrap();
    let mut m = paracalc::engine::MemoryEstimate::default();
    let plan = paracalc::engine::plan::Plan::new(&s, &gpu);
    paracalc::engine::memory::fill(&plan, &mut m);
    assert_eq!(m.rows.len(), 16);
    let n = 20_000;
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        paracalc::engine::memory::fill(std::hint::black_box(&plan), &mut m);
    }
    let per = t0.elapsed().as_secs_f64() / n as f64;
    println!("memory::fill pp=16 vp=2: {:.3} µs per call", per * 1e6);
    // Reusing `m` allocates nothing (tests/alloc.rs); the rows are the same 16.
    assert_eq!(m.rows.len(), 16);
}

/// The peak the memory model finds from the runs of ranks (only a run's first rank where the
/// totals cannot rise along it) is the one a scan of every rank's row finds: the largest total
/// and the first rank holding it, bit for bit, for every schedule, with activation offload and
/// with calibration offsets of either sign (where every rank is read).
#[test]
fn peak_is_the_scan_of_every_row() {
    for base in every_schedule() {
        for (offload, offset_gib) in [(0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (0.0, 2.0), (0.0, -16.0)]
        {
            let mut s = base.clone();
            s.training.activation_offload = Some(offload);
            s.calibration.memory_gib = Some(offset_gib);
            let m = estimate(&s).unwrap().memory;
            let (peak, at) = scanned_peak(&m);
            let sched = s.parallel.schedule();
            let case = format!("{sched:?}, offload {offload}, offset {offset_gib} GiB");
            assert_eq!(m.peak_bytes.to_bits(), peak.to_bits(), "{case}");
            assert_eq!(m.peak_stage, at, "{case}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 16-bit gradient buffer (training.grad_reduce_in_fp32 = false): NeMo's performance recipes
// ---------------------------------------------------------------------------------------------

#[test]
fn bf16_gradient_buffer_of_nemo_performance_recipes() {
    // The llama3-8b preset is NVIDIA dgxc-benchmarking v25.04's run (NeMo, TP1 PP1 CP2 DP4,
    // distributed optimizer). Ψ = 8,030,261,248 on one GPU (t = p = 1), ZeRO-1 over d·c = 8.
    let psi = 8_030_261_248.0_f64;
    let bf16 = paracalc::presets::model_preset("llama3-8b")
        .unwrap()
        .scenario();
    // The preset records the recipe's bf16 gradient buffer.
    assert_eq!(bf16.training.grad_reduce_in_fp32, Some(false));
    let mut fp32 = bf16.clone();
    fp32.training.grad_reduce_in_fp32 = None;
    assert!(fp32.training.grad_reduce_in_fp32());
    bf16.validate().unwrap();
    let a = estimate(&fp32).unwrap();
    let b = estimate(&bf16).unwrap();
    let (sa, sb) = (&a.memory.stages()[0], &b.memory.stages()[0]);
    // Default (Megatron-LM, NeMo's bf16_mixed): fp32 main grads, 4Ψ = 32,121,044,992 B.
    assert_eq!(sa.gradients_bytes, 4.0 * psi);
    // NeMo `pretrain_performance_optimizations` (grad_reduce_in_fp32 = False): the Megatron-Core
    // gradient buffer in bf16, 2Ψ = 16,060,522,496 B = 14.957 GiB; weights 2Ψ and the sharded
    // optimizer 12Ψ/8 = 12,045,391,872 B unchanged: 4 + 12/8 = 5.5 B/param in all.
    assert_eq!(sb.gradients_bytes, 2.0 * psi);
    assert_eq!(sb.weights_bytes, sa.weights_bytes);
    assert_eq!(sb.optimizer_bytes, 12.0 * psi / 8.0);
    assert!(close(sb.model_states_bytes(), 5.5 * psi, 1e-12));
    // Activations do not depend on the gradient dtype; the allocator reserve (5 % of what the
    // allocator holds) shrinks with the states.
    assert_eq!(sb.activations_bytes, sa.activations_bytes);
    assert!(close(
        sa.allocator_reserve_bytes - sb.allocator_reserve_bytes,
        0.05 * 2.0 * psi,
        1e-9
    ));
    // The run did fit on its 80 GB H100s: with fp32 grads paracalc predicts it does not
    // (83.1 GiB > 79.65 usable), with the recipe's bf16 grads it does (66.3 GiB: no dropout
    // masks in a Llama recipe; 67.4 with them). NCCL's buffers in it: the CP pair and the
    // 8-rank data-parallel group inside the node, 24 × (1 + 15/8) × 12 MiB = 828 MiB.
    assert!(!a.memory.fits);
    assert!(b.memory.fits);
    assert_eq!(sb.comm_buffers_bytes, 828.0 * 1024.0 * 1024.0);
    assert!(close(b.memory.peak_bytes / GIB, 66.313, 1e-4));
    // fp32 training ignores the switch (its gradients are fp32 anyway).
    let mut f = bf16.clone();
    f.training.precision = scenario::Precision::Fp32;
    let mut g = f.clone();
    g.training.grad_reduce_in_fp32 = None;
    assert_eq!(
        estimate(&f).unwrap().memory.stages()[0].gradients_bytes,
        estimate(&g).unwrap().memory.stages()[0].gradients_bytes
    );
}

#[test]
fn bf16_gradient_buffer_llama31_405b_stage_1() {
    // llama3.1-405b preset (dgxc v25.04: TP8 PP8 CP2 VP8, 512 H100). Stage 1 holds 16 layers
    // (NeMo split: (126 + 2)/64 = 2 per chunk, stage 0's first chunk has the embedding).
    // Per GPU and layer: attention 2·h·q·(1 + g/a) = 2·16384²·(1 + 8/128) = 570,425,344 and MLP
    // 3·h·f = 2,617,245,696, ÷ t = 398,458,880, + 2 norms 32,768 (replicated) = 398,491,648;
    // × 16 = 6,375,866,368 params. Grads 2 B (bf16 buffer) instead of 4 B: 12,751,732,736 B.
    let mut s = paracalc::presets::model_preset("llama3.1-405b")
        .unwrap()
        .scenario();
    s.training.grad_reduce_in_fp32 = Some(false);
    let e = estimate(&s).unwrap();
    let st = &e.memory.stages()[1];
    assert_eq!(st.layers, 16);
    assert_eq!(st.params, 6_375_866_368.0);
    assert_eq!(st.gradients_bytes, 2.0 * 6_375_866_368.0);
    assert_eq!(e.memory.peak_stage, 1);
    assert!(e.memory.fits, "peak {}", e.memory.peak_bytes / GIB);
}

/// Llama 3 8B on one H100 without ZeRO: 18 B/param of model states (2 weights, 4 fp32 gradients,
/// 12 fp32 master and moments) = 144.5 GB does not fit 80 GiB. Offloading the whole optimizer
/// (`training.optimizer_offload = 1`, Megatron-Core `--optimizer-cpu-offload
/// --optimizer-offload-fraction 1.0`) moves the 12 B/param to host memory and makes it fit; the
/// step pays the host link: each step the 4-byte main gradients go down and the 2-byte weights
/// come back over PCIe Gen5 x16 (63 GB/s per direction, H100 datasheet) at the PCIe efficiency
/// 0.8: 8 030 261 248 × 6 B / 50.4 GB/s = 0.95598 s.
#[test]
fn offloading_the_whole_optimizer_makes_llama3_8b_fit_one_h100() {
    let json = r#"{
      "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
                "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192},
      "training": {"global_batch": 8, "micro_batch": 1, "precision": "bf16",
                   "recompute": "full", "flash_attention": true},
      "parallel": {"tp": 1, "pp": 1, "dp": 1, "zero_stage": 0},
      "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 1}
    }"#;
    let mut s = scenario::parse(json).unwrap();
    let p = 8_030_261_248.0;
    let before = estimate(&s).unwrap();
    assert!(!before.memory.fits);
    let st = &before.memory.stages()[0];
    assert!(
        (st.optimizer_bytes - 12.0 * p).abs() < 1.0,
        "{}",
        st.optimizer_bytes
    );
    assert_eq!(before.time.offload_s, 0.0);
    assert_eq!(st.host_bytes, 0.0);

    s.training.optimizer_offload = Some(1.0);
    let after = estimate(&s).unwrap();
    let st = &after.memory.stages()[0];
    assert!(
        after.memory.fits,
        "peak {} GiB",
        after.memory.peak_bytes / GIB
    );
    assert_eq!(st.optimizer_bytes, 0.0);
    assert!((st.host_bytes - 12.0 * p).abs() < 1.0);
    let want = p * 6.0 / (63.0e9 * 0.8);
    assert!(
        (after.time.offload_s - want).abs() < 1e-9,
        "{}",
        after.time.offload_s
    );
    assert!((want - 0.95598).abs() < 1e-4);
    // The breakdown still adds up, the offload being one of its parts.
    common::assert_breakdown(&after);
    let t = &after.time;
    // The GPU update is gone but for its kernel launches.
    assert!(t.optimizer_s < 1e-3 && before.time.optimizer_s > 0.01);

    // Half the optimizer: half the states stay, half the host traffic.
    s.training.optimizer_offload = Some(0.5);
    let half = estimate(&s).unwrap();
    assert!((half.memory.stages()[0].optimizer_bytes - 6.0 * p).abs() < 1.0);
    assert!((half.time.offload_s - want / 2.0).abs() < 1e-9);
}

/// Activation offloading keeps one micro-batch's share on the GPU and moves the rest of the
/// in-flight micro-batches' layer activations to the host.
#[test]
fn activation_offload_moves_in_flight_activations_to_the_host() {
    let json = r#"{
      "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
                "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192},
      "training": {"global_batch": 64, "micro_batch": 1, "precision": "bf16",
                   "recompute": "selective", "flash_attention": true},
      "parallel": {"tp": 2, "pp": 4, "dp": 1, "sp": true, "zero_stage": 1},
      "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 8}
    }"#;
    let mut s = scenario::parse(json).unwrap();
    let base = estimate(&s).unwrap();
    s.training.activation_offload = Some(1.0);
    let off = estimate(&s).unwrap();
    let layer = paracalc::engine::memory::activations::layer_bytes(&s);
    let (b0, o0) = (&base.memory.stages()[0], &off.memory.stages()[0]);
    // Stage 0 holds p = 4 micro-batches of its 8 layers; 3 of them go to the host.
    assert_eq!(b0.in_flight_micro_batches, 4.0);
    let moved = 3.0 * 8.0 * layer;
    assert!((b0.activations_bytes - o0.activations_bytes - moved).abs() < 1.0);
    assert!((o0.host_bytes - moved).abs() < 1.0);
    assert!(off.time.offload_s >= 0.0);
}

#[test]
fn transformer_engine_keeps_fp8_linear_inputs() {
    // Llama 3 8B layer (h 4096, kv 1024, f 14336, SwiGLU), b 1, s 4096, tp 1, fp8 delayed
    // scaling under Megatron-LM: the QKV and FC1 inputs (2·h), the output projection's input
    // (o = 4096) and FC2's input (f) are kept at 1 B instead of 2 (TE `_Linear.forward`):
    // 4096 tokens · (2·4096 + 4096 + 14336) B = 109,051,904 B less per layer and micro-batch.
    let layer = |precision: &str, framework: &str, recipe: Option<&str>| {
        let mut v = json!({
            "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256, "seq_len": 4096},
            "training": {"global_batch": 8, "micro_batch": 1, "precision": precision, "recompute": "none", "flash_attention": true, "framework": framework},
            "parallel": {"tp": 1, "pp": 1, "dp": 8},
            "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 8}
        });
        if let Some(r) = recipe {
            v["training"]["fp8_recipe"] = json!(r);
        }
        activations::layer_activations_full(&scen(v)).total()
    };
    let bf16 = layer("bf16", "megatron", None);
    assert_eq!(bf16 - layer("fp8", "megatron", None), 109_051_904.0);
    // Blockwise keeps one fp32 scale per 128 elements: 1.03125 B.
    assert_eq!(
        bf16 - layer("fp8", "megatron", Some("blockwise")),
        109_051_904.0 * (2.0 - 1.03125)
    );
    // torchao (torchtitan) is not Transformer Engine: the 16-bit inputs stay.
    assert_eq!(
        layer("fp8", "torchtitan", Some("tensorwise")),
        layer("bf16", "torchtitan", None)
    );
}

#[test]
fn the_loss_kernel_sets_what_the_loss_keeps_and_its_transient() {
    // MPT-350m as llm-foundry benchmarked it (vocab 50368, 65,536 tokens per micro-batch on an
    // A100, FSDP, bf16): per token and vocabulary entry the loss keeps the fp32 log-softmax
    // (4 B, unfused and vocab-parallel) or the 16-bit logits (2 B, fused, plus a 4-B log-sum-exp
    // per token); its backward adds 8, 2 or 2 B.
    let s = |kernel: &str| {
        scen(json!({
            "model": {"layers": 24, "hidden": 1024, "heads": 16, "ffn_hidden": 4096, "vocab": 50368, "seq_len": 2048, "tied_embeddings": true},
            "training": {"global_batch": 512, "micro_batch": 32, "precision": "bf16", "recompute": "none", "flash_attention": true, "framework": "pytorch", "loss_kernel": kernel},
            "parallel": {"tp": 1, "pp": 1, "dp": 8, "zero_stage": 3},
            "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}
        }))
    };
    let tok_v = 65_536.0 * 50_368.0;
    let (u, v, f) = (s("unfused"), s("vocab_parallel"), s("fused"));
    assert_eq!(activations::output_bytes(&u), activations::output_bytes(&v));
    assert_eq!(
        activations::output_bytes(&u) - activations::output_bytes(&f),
        2.0 * tok_v - 4.0 * 65_536.0
    );
    assert_eq!(activations::logits_transient_bytes(&u), 8.0 * tok_v);
    assert_eq!(activations::logits_transient_bytes(&v), 2.0 * tok_v);
    assert_eq!(activations::logits_transient_bytes(&f), 2.0 * tok_v);
    // The run fitted on its 80 GB A100s: with llm-foundry's fused cross-entropy (its default,
    // `modeling_mpt.py` @b2a43a147) the engine agrees; with the unfused default of the pytorch
    // stack it does not.
    assert!(!estimate(&u).unwrap().memory.fits);
    assert!(estimate(&f).unwrap().memory.fits);
    // Defaults: Megatron-LM's vocab-parallel kernel, PyTorch's unfused one elsewhere.
    let mut d = f.clone();
    d.training.loss_kernel = None;
    assert_eq!(d.training.loss_kernel(), scenario::LossKernel::Unfused);
    d.training.framework = Some(scenario::Framework::Megatron);
    assert_eq!(
        d.training.loss_kernel(),
        scenario::LossKernel::VocabParallel
    );
}

/// Nemotron-4 340B as its NeMo 24.07 launcher YAML ran it (tests/data/AUDIT.md): optimizer
/// `dtype: bf16` equal to the model's, so Apex `DistributedFusedAdam` keeps no master copy
/// (NeMo r2.0.0rc1 `megatron_base_model.py` l. 797-801). Stage 0 holds P = 5 772.3 M
/// parameters (TP 8, PP 8 × VP 12), sharded over dp·cp = 128/64 = 2: the bf16 moments are
/// 2·2 B, the master 0, 2 (remainder) or 4 B (fp32) per parameter, so
/// `optimizer = P·(m + 4)/2` = 2P, 3P, 4P B: 10.75, 16.13, 21.50 GiB.
#[test]
fn nemotron4_340b_without_a_master_copy() {
    use paracalc::scenario::{MasterWeights as M, OptimizerStates, Recompute};
    let c = cases()
        .into_iter()
        .find(|c| c["id"] == "nemo2407-nemotron4_340b-128gpu")
        .unwrap();
    let mut s: Scenario = scenario::from_value(&c["scenario"]).unwrap();
    s.training.recompute = Recompute::Selective;
    s.training.optimizer_states = Some(OptimizerStates::Bf16);
    s.training.grad_reduce_in_fp32 = Some(false);
    let mut totals = Vec::new();
    for (m, master, gib) in [
        (M::None, 0.0, 10.75),
        (M::Remainder, 2.0, 16.13),
        (M::Fp32, 4.0, 21.50),
    ] {
        s.training.master_weights = Some(m);
        s.validate().unwrap_or_else(|e| panic!("{m:?}: {e}"));
        let e = estimate(&s).unwrap();
        let st0 = &e.memory.stages()[0];
        assert!((st0.params / 1e6 - 5772.3).abs() < 0.1, "{}", st0.params);
        let want = st0.params * (master + 2.0 * 2.0) / 2.0;
        assert!(
            (st0.optimizer_bytes - want).abs() < 1.0,
            "{m:?}: {} vs {want}",
            st0.optimizer_bytes
        );
        assert!(
            (st0.optimizer_bytes / GIB - gib).abs() < 0.005,
            "{m:?}: {}",
            st0.optimizer_bytes / GIB
        );
        totals.push(st0.total_bytes / GIB);
    }
    // The run fits its 80 GB H100s either way; no master copy frees 5.4 GiB on stage 0
    // (plus the allocator reserve that scales with it).
    assert!(
        totals[0] < totals[1] - 5.37 && totals[1] < 80.0,
        "{totals:?}"
    );
}

/// Every preset as shipped, with the engine's band: each verdict pinned, so a change that moves
/// one shows up here.
#[test]
fn every_preset_fits_as_shipped() {
    use paracalc::engine::memory::verdict::Verdict;
    let mut out = Vec::new();
    for p in paracalc::presets::MODEL_PRESETS {
        let e = estimate(&p.scenario()).unwrap();
        println!(
            "{:18} {:6.1} / {:.1} GiB  {}",
            p.id,
            e.memory.peak_bytes / GIB,
            e.memory.capacity_bytes / GIB,
            e.memory.fit.text()
        );
        out.push((p.id, e.memory.fit.verdict));
    }
    for (id, v) in out {
        // DeepSeek-V3 as its report ran it: the middle ranks peak at 74.0 of 79.65 GiB (ranks 0
        // and 15 hold 16 micro-batches of stage 0 and one of stage 15: 70.9), inside this
        // default ±9.3 % band (the evidence's ±6 % for it, as `estimate` judges, says fits).
        // The v1-link `deepseek-v3` (frozen: 1F1B and an all-to-all the report did not run)
        // does not fit.
        let want = match id {
            "deepseek-v3-report" | "deepseek-v3-2048-h800" => Verdict::MayNotFit,
            "deepseek-v3" => Verdict::DoesNotFit,
            _ => Verdict::Fits,
        };
        assert_eq!(v, want, "{id}");
    }
}

/// BLOOM-176B's 2022-02-28 layout (tp 4, pp 12, dp 8, micro-batch 2, bf16, full recompute) under
/// DeepSpeed: `BF16_Optimizer` upcasts one bf16 gradient at a time to fp32 after each
/// micro-batch's backward, the word-embedding shard on stage 0 (250000·14336/4 = 896,000,000
/// parameters, 3,584,000,000 B), a layer's first MLP weight elsewhere (14336·57344/4 =
/// 205,520,896, 822,083,584 B).
#[test]
fn deepspeed_bf16_optimizer_upcasts_the_largest_gradient() {
    use paracalc::engine::shape::Shape;
    let s = bloom_0228(12, "bf16");
    let d = Shape::of(&s.model);
    let emb = 250_000.0 * 14_336.0 / 4.0;
    assert_eq!(states::bf16_hp_upcast_bytes(&s, &d, emb), 3_584_000_000.0);
    assert_eq!(states::bf16_hp_upcast_bytes(&s, &d, 0.0), 822_083_584.0);
    // Stage 0 after a backward: the copy, less that micro-batch's freed activations (five layer
    // inputs of 2·s·b·h and the embedding's token ids and dropout mask), is its transient when
    // it exceeds the recompute working set.
    let e = paracalc::engine::estimate(&s).unwrap();
    let st = &e.memory.stages()[0];
    let tok = 2.0 * 2048.0;
    let freed = 5.0 * tok * 2.0 * 14_336.0 + tok * (8.0 + 14_336.0);
    let working = activations::LayerBytes::new(&s).dense_working;
    assert!(3_584_000_000.0 - freed > working);
    let stored = 12.0 * freed;
    assert!((st.activations_bytes - (stored + 3_584_000_000.0 - freed)).abs() < 1.0);
    // fp16 (DeepSpeed's ZeRO-1 optimizer accumulates in the 16-bit .grad): no copy.
    let mut f = s.clone();
    f.training.precision = paracalc::scenario::Precision::Fp16;
    assert_eq!(states::bf16_hp_upcast_bytes(&f, &d, emb), 0.0);
}

/// DeepSpeed's pipeline engine all-reduces `BF16_Optimizer`'s fp32 gradient buffer through a
/// bf16 copy after the last backward (`_bf16_reduce_grads`, `allreduce_bucket`), too large for
/// any block the pipeline phase cached, so the allocator reserves it beside the activations
/// (overhead.rs `bf16_reduce_copy_bytes`, states.md §8). BLOOM-176B 02-28, tp 4, pp 12: stage 0
/// holds five layers and the embedding shard, over 5·10⁸ parameters, so its weight-decay group
/// is one bucket and the copy is `2·P` (7.96 GB), above the 3.584 GB fp32 upcast of the
/// embedding's gradient. A stage under a bucket flattens both groups into a new fp32 tensor
/// first: `(4 + 2)·P`. No copy without pipelining (the plain engine reduces the bf16 `.grad`s)
/// or with fp16 (DeepSpeed's ZeRO-1 optimizer).
/// BLOOM-176B's 02-28 layout (tp 4, dp 8, micro-batch 2, full recompute) under DeepSpeed with
/// `pp` stages in `precision`.
fn bloom_0228(pp: u64, precision: &str) -> Scenario {
    scen(serde_json::json!({
        "model": {"layers": 70, "hidden": 14336, "heads": 64, "ffn_hidden": 57344,
                  "ffn_act": "gelu", "vocab": 250000, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 2048, "micro_batch": 2, "precision": precision,
                     "recompute": "full", "flash_attention": false, "framework": "deepspeed"},
        "parallel": {"tp": 4, "pp": pp, "dp": 8, "zero_stage": 1},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 32 * pp}
    }))
}

/// BLOOM's embedding LayerNorm keeps its input outside DeepSpeed's layer checkpointing
/// (activations.md §15): `e·h` per token on stage 0 for each micro-batch in flight. 02-28 layout,
/// b 2: 4096 tokens · 2 B · 14336 = 117,440,512 B per micro-batch.
#[test]
fn embedding_norm_keeps_its_input_on_stage_0() {
    let mut s = bloom_0228(12, "bf16");
    let without = activations::embedding_bytes(&s);
    let e0 = paracalc::engine::estimate(&s).unwrap();
    s.model.embedding_norm = Some(true);
    assert_eq!(activations::embedding_bytes(&s) - without, 117_440_512.0);
    let e1 = paracalc::engine::estimate(&s).unwrap();
    let (a0, a1) = (e0.memory.stages()[0], e1.memory.stages()[0]);
    // Twelve in flight, less the one freed before BF16_Optimizer's fp32 upcast, stage 0's
    // transient (`upcast − stored(one micro-batch)`).
    assert_eq!(
        a1.activations_bytes - a0.activations_bytes,
        11.0 * 117_440_512.0
    );
    // The last stage holds no input embedding.
    let last = |e: &Estimate| e.memory.stages()[11].activations_bytes;
    assert_eq!(last(&e1), last(&e0));
}

#[test]
fn deepspeed_bf16_pipeline_reduce_copy_is_reserved_beside_the_activations() {
    let e = paracalc::engine::estimate(&bloom_0228(12, "bf16")).unwrap();
    let st = &e.memory.stages()[0];
    assert!(st.params > overhead::DEEPSPEED_ALLREDUCE_BUCKET_ELEMENTS);
    assert_eq!(st.other_buffers_bytes, 2.0 * st.params);
    assert!(
        (st.other_buffers_bytes - 7.9588e9).abs() < 1e6,
        "{}",
        st.other_buffers_bytes
    );
    assert!(st.other_buffers_bytes > 3_584_000_000.0);
    // A 1.3B-parameter model on four stages: 6 layers of 12.6 M parameters and the 51.5 M
    // embedding on stage 0, one bucket of both groups.
    let small = scen(serde_json::json!({
        "model": {"layers": 24, "hidden": 1024, "heads": 16, "ffn_hidden": 4096,
                  "ffn_act": "gelu", "vocab": 50257, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 512, "micro_batch": 4, "precision": "bf16",
                     "recompute": "full", "flash_attention": false, "framework": "deepspeed"},
        "parallel": {"tp": 1, "pp": 4, "dp": 2, "zero_stage": 1},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}
    }));
    let e = paracalc::engine::estimate(&small).unwrap();
    let st = &e.memory.stages()[0];
    assert!(st.params < overhead::DEEPSPEED_ALLREDUCE_BUCKET_ELEMENTS);
    assert_eq!(st.other_buffers_bytes, 6.0 * st.params);
    let e = paracalc::engine::estimate(&bloom_0228(1, "bf16")).unwrap();
    assert_eq!(e.memory.stages()[0].other_buffers_bytes, 0.0);
}

/// DeepSpeed's ZeRO-1 optimizer with fp16 (BLOOM's 2022-02-25 runs) holds autograd's 16-bit
/// `.grad` (2 B per parameter), and its step's fp64 norm copy of the first partition's
/// embedding gradient takes a segment of its own on stage 0 (states.md §10,
/// `overhead::deepspeed_norm_copy_bytes`). 02-28 layout in fp16, t 4, d 8: the embedding shard
/// 250000·14336/4 = 896,000,000 elements is larger than stage 0's partition `P/8`, so the copy
/// is 8·P/8 = P bytes, more than the start-up fp32 partition block (4·P/8) and the embedding's
/// gradient transient (2·896e6). The last stage's tied copy is skipped by the norm.
#[test]
fn deepspeed_fp16_zero1_grads_are_16bit_and_the_norm_copy_is_reserved() {
    let e = paracalc::engine::estimate(&bloom_0228(12, "fp16")).unwrap();
    let st = &e.memory.stages()[0];
    assert_eq!(st.gradients_bytes, 2.0 * st.params);
    assert!(st.params / 8.0 < 896e6, "{}", st.params);
    assert_eq!(st.other_buffers_bytes, 8.0 * (st.params / 8.0));
    // Five layers of 616.6 M parameters and the 896 M embedding shard: P = 3.979e9.
    assert!(
        (st.other_buffers_bytes - 3.979e9).abs() < 1e6,
        "{}",
        st.other_buffers_bytes
    );
    assert_eq!(e.memory.stages()[11].other_buffers_bytes, 0.0);
    // No pipeline: t 8, d 48 on the 181B model holds 22.65e9 parameters; its partition
    // (472 M) is larger than the embedding shard (448 M elements): 8 · 448e6 B.
    let mut s = bloom_0228(1, "fp16");
    (s.model.layers, s.parallel.tp, s.parallel.dp) = (72, 8, 48);
    (s.training.global_batch, s.training.micro_batch) = (2016, 1);
    s.cluster.num_gpus = 384;
    let e = paracalc::engine::estimate(&s).unwrap();
    let st = &e.memory.stages()[0];
    assert!(st.params / 48.0 > 448e6, "{}", st.params);
    assert_eq!(st.other_buffers_bytes, 8.0 * 448e6);
    // Stated fp32 accumulation keeps the 4 B convention and no norm copy.
    s.training.grad_reduce_in_fp32 = Some(true);
    let e = paracalc::engine::estimate(&s).unwrap();
    let st = &e.memory.stages()[0];
    assert_eq!(st.gradients_bytes, 4.0 * st.params);
    assert_eq!(st.other_buffers_bytes, 0.0);
}
