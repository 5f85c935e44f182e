//! The acceptance test: `paracalc validate` against the published measurements in
//! `tests/data/public.json` (a copy of the project's validation data).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use serde_json::Value;

/// The dense public step-time MAPE reached (9.23 % over the 192 timed dense cases after issue
/// 11's collectives by algorithm, FP8 recipes, Megatron's p2p overlap and attention kernels per
/// generation; 9.49 % before; 9.07 % with FP8 casts priced by bytes and the output layer kept
/// 16-bit; 8.83 % with PyTorch's ring attention under torchtitan's context parallelism; 8.74 %
/// with eager PyTorch's fp32 autocast softmax; 8.65 % with FP8 sequence-parallel all-gathers of
/// quantized activations; 8.59 % with FSDP2's fp32 gradient reduce-scatter; 8.60 % with
/// DeepSpeed's defaults, 16-bit gradient reduction not overlapped below ZeRO-3; 8.50 % with
/// torchtitan's DTensor tensor parallelism not hiding its backward collectives; 8.40 % with
/// eager PyTorch's host time; 8.37 % with the tied embedding's gradient all-reduce between the
/// pipeline's ends; 8.33 % with DeepSpeed's BF16_Optimizer; 8.13 % with DeepSpeed's autograd
/// gradient accumulation and its TP backward all-reduce not overlapped; 7.87 % with
/// PyTorch FSDP's early-stopping recomputation, which does not rerun the MLP output GEMM: the
/// llm-foundry runs; 7.82 % with torchtitan's FSDP2 root unit, the exposed gather and
/// reduce-scatter of the embedding and output layer, and its last block kept gathered for the
/// backward; 7.74 % with unsharded PyTorch's autocast weight casts and `AccumulateGrad`; 7.71 %
/// with Megatron-LM's embedding gradient passed through autograd and the DDP hook; 7.28 %
/// with the 500 W Grand Teton H100's stated 800 TF/s GEMM peak and its own attention peak; 7.08 %
/// with V100 fp32 GEMMs at DeepBench's SGEMM rate and Hugging Face's eager BERT layer counted
/// operator by operator; 6.97 % with GEMM wave quantization; 6.972 % with torchtitan's float8
/// tensorwise TP gathering the output gradient in float8 too, as torchao's
/// `Float8RowwiseParallel` does (`NoopFwToFloat8BwDynamic` after the reduce-scatter,
/// pytorch/ao @6243040): the eight float8 TP runs of torchtitan_h100 0.4-0.7 s faster, a mechanism
/// read in the run's code), rounded up: the test fails if a change makes it worse.
const TIME_MAPE_CEILING_PCT: f64 = 6.98;
/// Share of the dense timed cases predicted within ±10 % (77.6 % with GEMM wave
/// quantization and torchtitan's float8 gradient gather; 77.1 % before them; 76.6 % before Hugging Face's
/// eager BERT layer was counted operator by operator; 74.0 % before the 500 W H100's stated
/// peak; 71.4 % before the early-stopping recomputation; 62.0 % before issue 11), as a floor.
const WITHIN_10PCT_FLOOR: f64 = 0.776;
/// Largest dense step-time error (HF BERT fp16 with gradient checkpointing on V100: −52.5 %,
/// −47.7 % once eager PyTorch's host time is priced, −28.2 % with its autocast weight casts and
/// gradient accumulation; since then Megatron-LM README 2024 weak-scaling 32B, +46.3 %, +47.4 %
/// with GEMM wave quantization: its TP-8 shards of a 4096-token micro-batch fill 0.97 of the
/// H100's waves, and the case is slow because its encoding leaves out the README's
/// `--tp-comm-overlap`, tests/data/AUDIT.md), as a ceiling on |error|.
const WORST_ERROR_CEILING_PCT: f64 = 47.5;
/// Mixture-of-experts step-time MAPE over the 45 `moe_*` cases, as a ceiling: 28.0 % with the
/// basic MoE block; 22.4 % for that block after issue 11's collectives, FP8 recipes and
/// attention kernels; 22.6 % with issue 12's MoE model (dense/MoE layer kinds, MLA, shared
/// experts, MTP, grouped GEMMs, the per-NIC all-to-all of the folded expert group) on top —
/// the Megatron MoE runs stay 15-30 % under their measured step times (GB200 DeepSeek-V3 −73 %);
/// 21.3 % with the 16-bit output layer and router and the FP8 casts priced by bytes; 21.9 %
/// once an MoE layer without shared experts stopped paying a second (MLP) TP collective that its
/// token dispatcher's expert-tensor gather already counts (a double count that had hidden part of
/// the Grok-1 error); 21.7 % with GB200 attention at B200's measured absolute rate; 20.8 % with
/// Megatron-Core's router and permutation kernels counted from its code; 21.03 % with FP8
/// sequence-parallel all-gathers of quantized activations (Transformer Engine's source), which
/// make the FP8 Grok-1 and Llama 4 runs, already too fast, 0.3-2.8 points faster: the one
/// deliberate rise of this ceiling, for a mechanism that is verified rather than fitted; 22.54 %
/// with FSDP2's fp32 gradient reduce-scatter (torchtitan's and Automodel's `reduce_dtype`),
/// which moves Automodel's gpt-oss-120b from +140 % to +210 %: that case assumes ep 1 where
/// the source's recipe and its "TE + DeepEP" kernels say expert parallelism ran, so all 117 B
/// expert weights are priced as FSDP-gathered. Without it the MoE MAPE is 18.3 % (19.2 % at
/// the start of this change set); 22.34 % with Transformer Engine's userbuffers TP overlap priced
/// by its split GEMMs, SM margins and exposed tails (the Grok-1 H100 runs with TP overlap on);
/// 22.31 % with torchtitan's FSDP2 wrapping (the root unit's exposed gather and
/// reduce-scatter of the ends, the last block kept gathered for its backward; the Automodel
/// runs are encoded as torchtitan); 22.08 % with Megatron-Core's routing weights sent in their
/// own all-to-all (and expert-tensor gather) beside the tokens', priced as collectives; 21.93 %
/// with Megatron-LM's embedding gradient passed through autograd and the DDP hook; 21.50 % with
/// Blackwell cuDNN priced from NVIDIA's cuDNN 9.13.1 B200 table (the GB200 Llama 4, Grok-1 and
/// DeepSeek-V3 runs 1-2 points slower); 21.33 % with GEMM wave quantization (the grouped expert
/// GEMMs' tiles fill the waves together).
const MOE_TIME_MAPE_CEILING_PCT: f64 = 21.33;
/// Cases in `tests/data/public.json`: 195 dense and 45 mixture-of-experts runs.
const CASES: u64 = 240;
/// Cases with a measured step time: 192 dense, 45 MoE.
const TIMED_CASES: usize = 237;

fn public() -> Value {
    common::validate_json("tests/data/public.json")
}

#[test]
fn summary_has_the_design_fields() {
    let v = public();
    let s = &v["summary"];
    for k in [
        "cases",
        "time_cases",
        "time_mape_pct",
        "time_within_10pct",
        "memory_cases",
        "memory_mape_pct",
        "oom_cases",
        "oom_correct",
    ] {
        assert!(s.get(k).is_some(), "summary.{k} missing");
    }
    assert_eq!(s["cases"], CASES);
    for row in v["cases"].as_array().unwrap() {
        for k in ["id", "metric", "measured", "predicted", "error_pct"] {
            assert!(row.get(k).is_some(), "row {row} has no {k}");
        }
        let metric = row["metric"].as_str().unwrap();
        assert!(["time", "memory", "oom"].contains(&metric));
        // A row is either evaluated or carries an error; never silently empty.
        assert!(
            row["predicted"].is_number() || row["error"].is_string(),
            "{row}"
        );
        if let (Some(p), Some(m), Some(e)) = (
            row["predicted"].as_f64(),
            row["measured"].as_f64(),
            row["error_pct"].as_f64(),
        ) {
            assert!((e - 100.0 * (p - m) / m).abs() < 1e-9);
        }
    }
}

#[test]
fn every_timed_case_is_evaluated() {
    let v = public();
    let rows: Vec<&Value> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["metric"] == "time")
        .collect();
    assert_eq!(rows.len(), TIMED_CASES, "public.json's timed cases");
    let evaluated = rows.iter().filter(|r| r["predicted"].is_number()).count();
    assert_eq!(
        evaluated, TIMED_CASES,
        "every timed case (dense and MoE) is evaluated"
    );
    assert_eq!(v["summary"]["time_cases"], TIMED_CASES);
}

/// |error| of every evaluated step-time row whose group is (or is not) a mixture-of-experts group.
fn time_errors(v: &Value, moe: bool) -> Vec<f64> {
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["metric"] == "time")
        .filter(|r| r["group"].as_str().unwrap_or("").starts_with("moe_") == moe)
        .filter_map(|r| r["error_pct"].as_f64())
        .map(f64::abs)
        .collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn public_step_time_mape_does_not_regress() {
    let v = public();
    let dense = time_errors(&v, false);
    assert_eq!(dense.len(), 192);
    let mape = mean(&dense);
    let within = dense.iter().filter(|&&e| e <= 10.0).count() as f64 / dense.len() as f64;
    let worst = dense.iter().cloned().fold(0.0, f64::max);
    eprintln!(
        "dense step-time MAPE {mape:.2}% ({} cases), within ±10%: {:.1}%, worst {worst:.1}%",
        dense.len(),
        100.0 * within
    );
    assert!(
        mape <= TIME_MAPE_CEILING_PCT,
        "dense step-time MAPE {mape:.2}% > {TIME_MAPE_CEILING_PCT}%"
    );
    assert!(
        within >= WITHIN_10PCT_FLOOR,
        "within ±10 %: {within:.3} < {WITHIN_10PCT_FLOOR}"
    );
    assert!(
        worst <= WORST_ERROR_CEILING_PCT,
        "worst dense error {worst:.1}% > {WORST_ERROR_CEILING_PCT}%"
    );
}

#[test]
fn moe_step_time_mape_does_not_regress() {
    let v = public();
    let moe = time_errors(&v, true);
    assert_eq!(moe.len(), 45);
    let mape = mean(&moe);
    eprintln!("MoE step-time MAPE {mape:.2}% ({} cases)", moe.len());
    assert!(
        mape <= MOE_TIME_MAPE_CEILING_PCT,
        "MoE step-time MAPE {mape:.2}% > {MOE_TIME_MAPE_CEILING_PCT}%"
    );
}

#[test]
fn korthikanti_table5_mean_error_within_4pct() {
    // Korthikanti et al. 2022, Table 5: measured iteration times of 22B/175B/530B/1T with full
    // recompute and with sequence parallelism + selective recompute.
    let v = public();
    let errs: Vec<f64> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["group"] == "korthikanti22_table5" && r["metric"] == "time")
        .map(|r| r["error_pct"].as_f64().unwrap().abs())
        .collect();
    assert_eq!(errs.len(), 8);
    let mean = errs.iter().sum::<f64>() / errs.len() as f64;
    eprintln!("Korthikanti Table 5 mean |error| {mean:.2}%");
    assert!(mean <= 4.0, "{mean}");
}

#[test]
fn rejected_cases_are_rows_with_an_error() {
    let dir = std::env::temp_dir().join(format!("paracalc-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cases.json");
    let bad = r#"{"cases": [
      {"id": "bad-tp", "scenario": {
        "model": {"layers": 24, "hidden": 2048, "heads": 16, "vocab": 50304, "seq_len": 2048},
        "training": {"global_batch": 256, "micro_batch": 4, "precision": "bf16", "recompute": "none"},
        "parallel": {"tp": 3, "pp": 1, "dp": 2},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 6}},
       "measured": {"iteration_time_s": 1.0, "memory_gib": 20.0, "memory_kind": "device_used"}},
      {"id": "no-scenario", "measured": {"iteration_time_s": 2.0}},
      {"id": "ok", "scenario": {
        "model": {"layers": 24, "hidden": 2048, "heads": 16, "vocab": 50304, "seq_len": 2048},
        "training": {"global_batch": 256, "micro_batch": 4, "precision": "bf16", "recompute": "none"},
        "parallel": {"tp": 2, "pp": 1, "dp": 4},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}},
       "measured": {"iteration_time_s": 1.0}}
    ]}"#;
    std::fs::write(&path, bad).unwrap();
    let v = common::validate_json(path.to_str().unwrap());
    let rows = v["cases"].as_array().unwrap();
    assert_eq!(v["summary"]["cases"], 3);
    assert_eq!(v["summary"]["time_cases"], 1);
    let bad_rows: Vec<&Value> = rows.iter().filter(|r| r["id"] == "bad-tp").collect();
    assert_eq!(bad_rows.len(), 2, "time and memory rows");
    for r in bad_rows {
        assert!(r["predicted"].is_null());
        assert!(r["error"].as_str().unwrap().contains("parallel.tp"), "{r}");
    }
    let none = rows.iter().find(|r| r["id"] == "no-scenario").unwrap();
    assert!(none["predicted"].is_null() && none["error"].is_string());
    // The readable form has the table and the summary.
    let args: Vec<String> = ["validate", path.to_str().unwrap()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let text = paracalc::cli::run(&args).unwrap();
    assert!(text.contains("bad-tp") && text.contains("MAPE") && text.contains("error:"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_files_are_input_errors() {
    let args: Vec<String> = ["validate", "tests/data/does-not-exist.json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(paracalc::cli::run(&args).unwrap_err().code, 2);
}

/// Published runs that ran (not `oom`) but that the engine predicts do not fit, as a ceiling:
/// 60 of the 237 with every linear input kept in 16 bits, 54 once Transformer Engine's FP8
/// recipes keep them quantized (the Megatron/NeMo FP8 runs), 50 once Megatron-LM's
/// cross-entropy turns its saved softmax into the gradient in place. Most of the rest carry an assumed
/// recomputation ("none" where the source does not say) or a memory-saving detail the scenario
/// cannot state; `validate` lists each with its peak. 45 once an interleaved schedule's last
/// rank holds one micro-batch of the output layer (FORMULAS.md §5.3).
const RAN_BUT_PREDICTED_OOM_CEILING: usize = 45;

#[test]
fn runs_that_ran_are_predicted_to_fit() {
    let v = public();
    let over = v["summary"]["ran_predicted_not_to_fit"]
        .as_array()
        .expect("validate --json lists them");
    assert!(
        over.len() <= RAN_BUT_PREDICTED_OOM_CEILING,
        "{} runs that ran are predicted not to fit: {over:?}",
        over.len()
    );
    // Each one listed is a run that ran and does not fit in the engine's eyes.
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("data/public.json")).expect("public.json");
    for id in over {
        let c = cases
            .iter()
            .find(|c| c["id"] == *id)
            .expect("a case of the file");
        assert_ne!(c["measured"]["oom"], true, "{id}");
        let s = paracalc::scenario::from_value(&c["scenario"]).unwrap();
        assert!(!paracalc::engine::estimate(&s).unwrap().memory.fits, "{id}");
    }
}
