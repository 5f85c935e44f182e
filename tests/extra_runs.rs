//! Published runs the project found beyond the shared validation set (`tests/data/extra.json`,
//! each case with its source and how its step time was derived): predictions checked against
//! them with a tolerance stated per source. They are not part of the public MAPE and no constant
//! was chosen with them in view.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use serde_json::Value;

/// Step-time tolerance per group, percent, with the reason.
/// - DeepSeek-V3's technical report gives a whole-pre-training average (GPU hours per token,
///   restarts, checkpoints and the batch ramp included), not a logged step, and leaves the
///   micro-batch unstated: 20 %. Predicted 18 % fast with the report's recomputation encoded as
///   it ran (RMSNorm and MLA up-projections, §3.2.3: recompute modules layernorm and
///   mla_up_proj); it was 12 % while `selective` could only mean torchtitan's per-op
///   checkpointing, a mechanism the report does not describe, which recomputed more.
/// - AutoModel's Llama-3.1 70B row is a logged step of a stated recipe: 10 %.
/// - DGX Cloud v25.04.01 GPT-3 175B on 128-2048 H100s (NeMo 24.12 container): logged steps of a
///   stated recipe, but the model ran 11-12 % (bf16) and 14-18 % (FP8) faster than measured while
///   it hid every TP collective under its GEMM for free; with Transformer Engine's userbuffers
///   priced as it runs (split GEMMs, SM margins, exposed tails) 5-6 % (bf16) and 9-13 % (FP8):
///   13 %.
/// - DGX Cloud v25.04.01 MaxText (JAX) Llama 3 70B, FSDP/HSDP on 128-2048 H100s: bf16 within 2 %,
///   FP8 predicted 7-12 % slow (its `save_qkv_proj` rematerialisation is mapped to full
///   recomputation, which also repeats the QKV GEMMs): 15 %.
/// - DGX Cloud v25.04.01 Nemotron-4 15B and 340B on 16-2048 H100s (NeMo 25.02.01): 15B 5-13 %
///   fast, 340B bf16 within 3 %, FP8 4-8 % slow; with userbuffers priced as it runs 15B 1-9 %
///   fast, 340B bf16 1-6 % and FP8 8-12 % slow (the FP8 recipe's cost, not the overlap): 15 %.
/// - DGX Cloud v25.05.05 dense runs (NeMo 25.04, TP overlap on as the perf scripts require):
///   H100 Llama 3.1 405B and Nemotron-4 within 11 %, within 6.1 % with userbuffers priced as it
///   runs: 7 %; GB200 Llama 3.1 405B and Nemotron-4 340B 20-28 % too fast, 16-24 % with
///   userbuffers priced: 25 %, the honest bound today — the GB200 miss issue 11 names, now
///   measured on dense runs.
/// - torchtitan's June 2025 async-TP benchmark, Llama 3 8B and 70B on 64/256 H100s (500 W),
///   FSDP × TP 8, bf16 and torchao float8 tensorwise/rowwise, vanilla and async TP: 9-32 % too
///   fast with vanilla TP, 15-46 % with async TP (encoded as TP overlap): 50 %, the honest bound
///   today — tensor parallelism under torchtitan is the weakest part of the model.
/// - Trainy's torchtitan Llama 3.1 8B on 32/64 H200s (FSDP, float8 tensorwise): 10-11.5 % fast
///   (11-13 % before the FSDP2 root unit was priced): 12 %.
/// - DGX Cloud MoE runs printed as the example output of the later releases' READMEs (one logged
///   run each, layout from the README table, every other setting from the recipe at the pinned
///   Megatron-Bridge/NeMo commit; held out, no constant chosen with them in view):
///   - v25.10 DeepSeek-V3 on 256 GB200 (Megatron-Bridge, TP 1 PP 4 VP 4 EP 64, MTP, recipe's
///     16/16/16/13 pipeline split, recompute modules mla_up_proj and bf16 Adam moments as the
///     recipe sets them; memory 171.8 of 186 GiB, it ran; 185.7 with fp32 moments): 19.3 % fast, the GB200 optimism of the dense GB200
///     runs: 21 % (12.6 % fast while `selective` could only stand for the attention core).
///   - v25.08 DeepSeek-V3 on 1024 H100 (NeMo 2, TP 1 PP 8 VP 2 EP 64, DeepEP, recompute
///     modules mla_up_proj, mlp, moe as the recipe sets them): 14.2 % slow: 16 % (19.6 % while
///     encoded as full recomputation).
///   - v26.02 gpt-oss-120b on 64 GB200 (Megatron-Bridge, EP 64, MBS 4, GPU not printed: the
///     GB200/GB300 row): 43.6 % fast, the honest bound today; sliding-window attention and
///     attention sinks are not modelled and the all-GB200 NVLink all-to-all is cheap in the model:
///     45 %.
///   - v25.12 Qwen3-235B-A22B on 256 H100 (Megatron-Bridge, TP 2 PP 8 VP 4 EP 32): within 0.8 %
///     (the recipe overlaps the EP all-to-all, which the model prices as exposed): 3 %.
const TOLERANCE_PCT: [(&str, f64); 13] = [
    ("moe_deepseek_v3_report", 20.0),
    ("automodel_h100_dense", 10.0),
    ("dgxc2504_gpt3_175b_h100", 13.0),
    ("dgxc2504_maxtext_llama3_70b_h100", 15.0),
    ("dgxc2504_nemotron4_h100", 15.0),
    ("dgxc2505_dense_h100", 7.0),
    ("dgxc2505_dense_gb200", 25.0),
    ("torchtitan_h100_2506", 50.0),
    ("torchtitan_h200_2506", 12.0),
    ("moe_dgxc2510_deepseek_v3_gb200", 21.0),
    ("moe_dgxc2508_deepseek_v3_h100", 16.0),
    ("moe_dgxc2602_gptoss_gb200", 45.0),
    ("moe_dgxc2512_qwen3_h100", 3.0),
];
/// Timed runs in `tests/data/extra.json`.
const TIMED_RUNS: usize = 88;

fn time_rows(v: &Value) -> Vec<&Value> {
    v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|r| r["metric"] == "time")
        .collect()
}

#[test]
fn every_extra_run_is_predicted_within_its_tolerance() {
    let v = common::validate_json("tests/data/extra.json");
    let rows = time_rows(&v);
    assert_eq!(rows.len(), TIMED_RUNS, "extra.json's timed runs");
    for row in rows {
        let (id, group) = (&row["id"], row["group"].as_str().unwrap_or(""));
        let tol = TOLERANCE_PCT
            .iter()
            .find(|(g, _)| *g == group)
            .unwrap_or_else(|| panic!("{id}: no tolerance for group {group}"))
            .1;
        let err = row["error_pct"]
            .as_f64()
            .unwrap_or_else(|| panic!("{id} is evaluated, not rejected: {row}"));
        assert!(err.abs() <= tol, "{id}: {err:+.1} % (tolerance {tol} %)");
    }
}

#[test]
fn extra_runs_are_not_copies_of_public_ones() {
    // The case ids of a validation file, read as data (no estimate needed).
    let ids = |text: &str| -> Vec<String> {
        let cases: Vec<Value> = serde_json::from_str(text).expect("a JSON array of cases");
        cases
            .iter()
            .map(|c| c["id"].as_str().expect("every case has an id").to_string())
            .collect()
    };
    let public = ids(include_str!("data/public.json"));
    for id in ids(include_str!("data/extra.json")) {
        assert!(!public.contains(&id), "{id} is already in public.json");
    }
}
