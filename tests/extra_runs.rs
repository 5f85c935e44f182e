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
///   priced as it runs (split GEMMs, SM margins, exposed tails) 5-6 % (bf16) and 9-13 % (FP8);
///   with the recipe's FP8 primary weights stated (`fp8_params`, gathered in FP8) FP8 10-14 %:
///   14 %.
/// - DGX Cloud v25.04.01 MaxText (JAX) Llama 3 70B, FSDP/HSDP on 128-2048 H100s: bf16 within 2 %,
///   FP8 predicted 7-12 % slow (its `save_qkv_proj` rematerialisation is mapped to full
///   recomputation, which also repeats the QKV GEMMs): 15 %.
/// - DGX Cloud v25.04.01 Nemotron-4 15B and 340B on 16-2048 H100s (NeMo 25.02.01): 15B 5-13 %
///   fast, 340B bf16 within 3 %, FP8 4-8 % slow; with userbuffers priced as it runs 15B 1-9 %
///   fast, 340B bf16 1-6 % and FP8 8-12 % slow (the FP8 recipe's cost, not the overlap); with
///   the recipe's bf16 gradient buffer stated (`grad_reduce_in_fp32` false, NeMo @81d94d1501
///   `performance_mode`) 15B 1-10 % fast, 340B within 3.2 %: 15 %.
/// - DGX Cloud v25.05.05 dense runs (NeMo 25.04, TP overlap on as the perf scripts require):
///   H100 Llama 3.1 405B and Nemotron-4 within 11 %, within 6.1 % with userbuffers priced as it
///   runs; with the recipes' bf16 gradient buffer stated (NeMo @6f2c6fda / @b4148d21
///   `performance_mode`: `grad_reduce_in_fp32` false) 4-9 % fast: 9 %; GB200 Llama 3.1 405B and
///   Nemotron-4 340B 20-28 % too fast, 16-24 % with userbuffers priced, 16-26 % with the
///   recipes' FP8 primary weights stated (NeMo's `bf16_with_fp8_mixed`): 26 %, the honest bound
///   today — the GB200 miss issue 11 names, now measured on dense runs.
/// - torchtitan's June 2025 async-TP benchmark, Llama 3 8B and 70B on 64/256 H100s (500 W),
///   FSDP × TP 8, bf16 and torchao float8 tensorwise/rowwise, vanilla and async TP: 3-29 % too
///   fast with vanilla TP, 8-43 % with async TP (encoded as TP overlap), with the GEMM peak Meta
///   states for the 500 W part (800 TF/s; 9-32 % and 15-46 % at the 912 midpoint before); 4-18 %
///   and 2-21 % once async TP is priced as torch's micro-pipeline pass fuses it (the backward's
///   input-gradient reduce-scatters unfused, rowwise gathers unfused) and torchao's rowwise
///   recipe from its H100 table per module: 22 %. The 8B runs (98 304 tokens per TP group) stay
///   15-21 % fast in every recipe, the 70B runs 2-11 %.
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
///     modules mla_up_proj, mlp, moe as the recipe sets them): 3.5 % fast with the config's
///     node-limited routing (8 expert groups, 4 per token: DeepEP reaches 3.18 other nodes per
///     token, not 4.63): 5 % (14.5 % slow with routing over all 256 experts, 19.6 % while
///     encoded as full recomputation).
///   - v26.02 gpt-oss-120b on 64 GB200 (Megatron-Bridge, EP 64, MBS 4, GPU not printed: the
///     GB200/GB300 row): 43.6 % fast, the honest bound today; sliding-window attention and
///     attention sinks are not modelled and the all-GB200 NVLink all-to-all is cheap in the model:
///     45 %.
///   - v25.12 Qwen3-235B-A22B on 256 H100 (Megatron-Bridge, TP 2 PP 8 VP 4 EP 32): within 0.8 %
///     (the recipe overlaps the EP all-to-all, which the model prices as exposed): 3 %.
/// - Megatron-LM's DeepSeek-V3 GB200 optimization guide (docs/discussions, PR #2059 @402bc50b; launch
///   arguments of the reproduce guide @1d9edcf8): 256 GB200, MXFP8, TP 1 PP 8 VP 4 EP 32, no MTP, step
///   time from the logged TFLOPS/GPU. The final 970 TFLOPS run (HybridEP as deepep, recompute
///   moe_act + mlp, node-limited routing) is predicted 11.7 % fast (the GB200 optimism again): 13 %; the same layout's
///   494 TFLOPS baseline (all-to-all, recompute mlp + mla_up_proj, before the host-overhead work)
///   56.2 % fast: 59 %, the honest bound — the two runs differ in host launch overhead, kernel
///   fusion and the dispatcher, which the model prices 1 % apart.
/// - Megatron-MoE-ModelZoo (yanring) published tables and launch-script figures (Megatron-Core,
///   logged step time or TFLOPS/GPU, forced-balance routing):
///   - Qwen3-235B-A22B on 256 H100 @c1ad0b5: TP 2 PP 8 VP 4 EP 32 DeepEP 6.9 % fast: 9 %; the same
///     with the EP all-to-all overlapped (not modelled) 4.2 % slow: 7 %; Megatron-FSDP TP 2 EP 8
///     full recompute 5.7 % fast, 11.3 % once DeepEP's intranode dispatch sends a token once per
///     GPU holding its experts (39 of 59 MB per call, moe.md §1): 12 % (was 8 %); TP 4
///     PP 8 VP 4 EP 8 no recompute 46.9 % fast (48.7 % with that dispatch): 49 %, the honest
///     bound — the model ranks this layout fastest of the four, the run was slowest;
///     TP 2 PP 32 VP 3 EP 8 all-to-all (@8017e11, the embedding and the loss as pipeline chunks)
///     28.7 % fast: 31 %, the same bound — with the TP 4 row it shows a ≈ 4.5 ms per layer and
///     micro-batch cost of the main(1e057005) rows at micro-batch 1 that the moe_dev rows and the
///     micro-batch 4 row do not have (moe.md §1).
///   - the same TP 2 PP 8 VP 4 EP 32 layout four months later (@1ed4179, 320 TFLOPS: EP all-to-all
///     overlap, partial CUDA graphs, TP overlap): 20.9 % slow: 23 %; 23.2 % slow once the
///     tensor-core K0 follows H100's FLOPs per byte (issue 33, its small expert GEMMs): 24 %.
///   - Qwen3-235B long context on 256 H100 (TP 4 PP 8 VP 4 EP 8, CP 1/2/4/8 at 16k-128k, recompute
///     layernorm + moe): 3.4-5.1 % fast: 8/7/6/7 %; 5.9-9.3 % fast once DeepEP's intranode
///     dispatch sends a token once per GPU holding its experts: 16k 8 → 10 %, 32k 7 → 8 %.
///   - Qwen3-235B on Blackwell (HybridEP as deepep): 256 GB200 BF16 5.2 % fast: 8 %; 128 GB200
///     MXFP8 at 128k (TP 4 CP 4 PP 4 VP 12 EP 32) 9.7 % slow: 12 %; 64 GB300 MXFP8 EP 64 (EP
///     all-to-all overlapped) 5.5 % slow: 8 %.
///   - Mixtral 8x22B on 128 H100 ('around N TFLOPS' in the launch script, TP 2 PP 8 VP 7 EP 8,
///     all-to-all): BF16 with TP overlap 12.6 % fast: 15 %; blockwise FP8 22.3 % fast: 25 %.
/// - Blackwell runs of 2026 (the ModelZoo's GB200/GB300 Qwen3 rows, the Megatron-LM recipes
///   below on `pytorch:26.03/26.04`) ran cuDNN 9.17 or later, whose Blackwell attention NVIDIA
///   measured 1.2-1.6× faster than cuDNN 9.13 at 4k-8k tokens (cudnn-frontend @b372d39,
///   @fb682ce); the engine prices Blackwell cuDNN from the 9.13.1 B200 and GB300 tables
///   (@0b1577c) and no field selects the newer kernels, so these eight tolerances were raised
///   when those tables replaced the FA4-derived rate and the GB300 SFU adjustment (seq128k
///   12 → 14, GB300 Qwen3 64 8 → 9; recipes: B200 DeepSeek-V3 33 → 37, GB200 4 → 5, GB300
///   19 → 20, GB200 Qwen3 235B full graphs 18 → 24, partial 4 → 9, GB300 35 → 36); GB300 Qwen3
///   64 9 → 10 once the tensor-core K0 follows the GPU's FLOPs per byte (issue 33: 9.4 % slow;
///   with it the recipes' Blackwell runs come out 0.5-1.2 points slower too: GB200 DeepSeek-V3
///   4 → 5, GB300 19 → 20, GB200 Qwen3 235B full graphs 24 → 25, partial 9 → 10, GB300 36 → 38);
///   and once Megatron-Core's unfused permutation is priced with all its passes (the unpermute's
///   zero fill and the backward's extra pass, `moe_bookkeeping.rs`, issue 34: 0.3-1.0 points
///   slower on these runs, which may run TE's fused permutation, a choice no field states):
///   GB300 Qwen3 64 10 → 11, recipes GB200 DeepSeek-V3 5 → 6, GB300 20 → 21, GB200 Qwen3 235B
///   full graphs 25 → 26, partial 10 → 11, GB300 38 → 39.
/// - Megatron-LM's MoE recipe summary (examples/moe_recipes/README.md @9c5258f1, dev branch, figures
///   unchanged since @e5ad0980; median logged TFLOP/s per GPU of self-contained recipes, forced
///   balance, HybridEP/DeepEP as deepep, EP overlap and CUDA graphs not modelled). The same recipes
///   on different GPUs miss in both directions, so each run is pinned on its own:
///   - DeepSeek-V3 MXFP8 on 256 GPUs, with the recipes' node-limited routing (8 groups, 4 per
///     token; 2026-12-02, before it 36.0 / 3.6 / 18.7 % slow): B200 (PP 8 EP 32 over four 8-GPU
///     nodes) 22.1 % slow: 24 %; GB200 (PP 4 EP 64, offloads) 3.0 % slow: 4 %; GB300 17.9 %
///     slow: 19 % (the gb300 preset has GB200's peaks; measured 1.20x GB200's TFLOP/s).
///   - Qwen3-235B-A22B: 256 H100 BF16 (TP 2 PP 8 EP 32, the ModelZoo layout at 214 TFLOP/s)
///     18.8 % fast: 21 %; 128 B200 MXFP8 (TP 2 PP 4 VP 12 EP 16) 16.0 % fast: 18 %; 128 GB200
///     MXFP8 EP 64 with a full-iteration CUDA graph 16.0 % slow: 18 %, with partial graphs 1.8 %
///     slow: 4 %; 128 GB300 full graph 32.3 % slow: 35 %.
///   - Qwen3-30B-A3B: 32 H100 EP 8 blockwise FP8 22.7 % fast: 25 %, BF16 21.0 % fast: 23 % (FP8
///     measured no faster than BF16); 27.6 % and 25.8 % fast once DeepEP's intranode dispatch
///     sends a token once per GPU holding its experts: 28 % and 26 %; 16 GB200 EP 16 BF16 22.1 % fast: 25 %, MXFP8 with partial
///     graphs 31.8 % fast: 34 %, MXFP8 with a full graph and paged stash 14.1 % fast: 17 %.
///   - Automodel Llama 3 70B H100 (bf16): 11 % since NCCL's CTAs contend with the GEMMs they hide
///     behind (`time/contention.rs`, merged at acc6290): +10.1 %.
///   - MaxText Llama 3 70B H100: 17 % since Hopper FP8 GEMMs take the FP8 K0 (its FP8 rows,
///     predicted slow already, +14.7 → +16.6 % at 128 GPUs).
/// - torchtune's 'Optimization flags' table (README @1814feb17: Llama 3.2 3B full fine-tune on one
///   A100, batch 2 × 4096 packed, bf16 parameters, gradients and AdamW moments; step from the
///   tokens/s, an upper bound by the pack's fill): first sight (bc8a085) +0.8 % eager, +13.6 to
///   +16.0 % with torch.compile (per-layer compile, compiled loss), chunked loss and activation
///   checkpointing: 17 %.
/// - torchtitan's NVFP4 doc (@bcc09297a: Llama 3 8B, 4 GB200s, FSDP 4, local batch 32 × 2048,
///   compiled, per-op SAC; step from the tokens/s): first sight (bc8a085) −10.2 % BF16, −11.6 %
///   MXFP8, the GB200 optimism of the dense GB200 runs: 12 %.
const TOLERANCE_PCT: [(&str, f64); 45] = [
    ("moe_deepseek_v3_report", 20.0),
    ("automodel_h100_dense", 11.0),
    ("dgxc2504_gpt3_175b_h100", 14.0),
    ("dgxc2504_maxtext_llama3_70b_h100", 17.0),
    ("dgxc2504_nemotron4_h100", 15.0),
    ("dgxc2505_dense_h100", 9.0),
    ("dgxc2505_dense_gb200", 26.0),
    ("torchtitan_h100_2506", 22.0),
    ("torchtitan_h200_2506", 12.0),
    ("moe_dgxc2510_deepseek_v3_gb200", 21.0),
    ("moe_dgxc2508_deepseek_v3_h100", 5.0),
    ("moe_dgxc2602_gptoss_gb200", 45.0),
    ("moe_dgxc2512_qwen3_h100", 3.0),
    ("moe_mlm2510_dsv3_gb200_mxfp8", 13.0),
    ("moe_mlm2510_dsv3_gb200_mxfp8_baseline", 59.0),
    ("moe_moezoo_h100_qwen3_tp2pp8vpp4ep32", 9.0),
    ("moe_moezoo_h100_qwen3_tp2pp8vpp4ep32_a2aoverlap", 7.0),
    ("moe_moezoo_h100_qwen3_tp2ep8_mfsdp", 12.0),
    ("moe_moezoo_h100_qwen3_tp4pp8vpp4ep8", 49.0),
    ("moe_moezoo_h100_qwen3_tp2pp32vpp3ep8_a2a", 31.0),
    ("moe_moezoo2603_h100_qwen3_tp2pp8vpp4ep32", 24.0),
    ("moe_moezoo_h100_qwen3_seq16k_cp1", 10.0),
    ("moe_moezoo_h100_qwen3_seq32k_cp2", 8.0),
    ("moe_moezoo_h100_qwen3_seq64k_cp4", 6.0),
    ("moe_moezoo_h100_qwen3_seq128k_cp8", 7.0),
    ("moe_moezoo_gb200_qwen3_bf16", 8.0),
    ("moe_moezoo_gb200_qwen3_mxfp8_seq128k", 14.0),
    ("moe_moezoo_gb300_qwen3_mxfp8", 11.0),
    ("moe_moezoo_h100_mixtral_8x22b_bf16", 15.0),
    ("moe_moezoo_h100_mixtral_8x22b_fp8", 25.0),
    ("moe_mlmrecipe_b200_deepseek_v3_mxfp8_256gpu", 24.0),
    ("moe_mlmrecipe_gb200_deepseek_v3_mxfp8_256gpu", 6.0),
    ("moe_mlmrecipe_gb300_deepseek_v3_mxfp8_256gpu", 21.0),
    ("moe_mlmrecipe_h100_qwen3_235b_bf16_256gpu", 21.0),
    ("moe_mlmrecipe_b200_qwen3_235b_mxfp8_128gpu", 18.0),
    ("moe_mlmrecipe_gb200_qwen3_235b_mxfp8_128gpu_fullcg", 26.0),
    (
        "moe_mlmrecipe_gb200_qwen3_235b_mxfp8_128gpu_partialcg",
        11.0,
    ),
    ("moe_mlmrecipe_gb300_qwen3_235b_mxfp8_128gpu_fullcg", 39.0),
    ("moe_mlmrecipe_h100_qwen3_30b_fp8_32gpu", 28.0),
    ("moe_mlmrecipe_h100_qwen3_30b_bf16_32gpu", 26.0),
    ("moe_mlmrecipe_gb200_qwen3_30b_bf16_16gpu", 25.0),
    ("moe_mlmrecipe_gb200_qwen3_30b_mxfp8_16gpu_partialcg", 34.0),
    ("moe_mlmrecipe_gb200_qwen3_30b_mxfp8_16gpu_pagedstash", 17.0),
    ("torchtune_2411_a100_llama32_3b", 17.0),
    ("torchtitan_nvfp4doc_gb200_2608", 12.0),
];
/// Timed runs in `tests/data/extra.json`.
const TIMED_RUNS: usize = 124;

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

/// Peak-memory tolerance per group of held-out runs with a measured peak, percent, with the
/// reason (set from each group's first sight, never tighter):
/// - Trainy's torchtitan Llama 3.1 8B on 32/64 H200s (torchtitan's logged reserved GiB): 37 % off
///   at first sight (a142fe8), +0.4 and +2.4 % since the FSDP2 and loss mechanisms were priced:
///   4 %.
/// - torchtune's Llama 3.2 3B on one A100 (peak active bytes, the allocator's peak): at first sight
///   (bc8a085, the recipe's bf16 gradients stated) -8.3 % eager, +7.9 % compiled (per-layer
///   `torch.compile` saves less than eager; no field says so), +10.1 % with the chunked loss,
///   +17.5 % with activation checkpointing (the step's gradients exist only from the backward on,
///   `zero_grad(set_to_none=True)`, and the model adds them to the forward's activations;
///   memory/states.md §12): 18 %.
/// - torchtitan's NVFP4 doc, Llama 3 8B on 4 GB200s (torchtitan's logged reserved GiB, 94.7 and
///   97.6 % of the device): +14.0 % BF16, +11.1 % MXFP8 at first sight (bc8a085), when no
///   field said the run's loss was chunked (`ChunkedLossWrapper`: lm_head, loss and backward one
///   eighth of the sequence at a time) and `fused` counted all 65536 × 128256 logits and their
///   gradient; −0.9 and +0.8 % with `training.loss_chunks` 8 (activations.md §16): 15 %, the
///   first sight.
/// - torchao's MX README, Llama 3 8B on 8 B200s (torchtitan's logged reserved GiB): +16.7 to
///   +20.9 % at first sight (b9bfd16): 19.6 GiB of per-op-SAC activations predicted for 8192
///   tokens where the run's 33.7 GiB leave about 14 beside the fp32 states; the Trainy H200 rows
///   of the same model a release earlier are within 2.4 % (activations.md §16): 22 %. Not timed:
///   the GPUs ran at 750 W, which no field states (at first sight, timed as 8192 / tokens/s, the
///   step read −51.5 to −54.1 %).
const MEMORY_TOLERANCE_PCT: [(&str, f64); 4] = [
    ("torchtitan_h200_2506", 4.0),
    ("torchtune_2411_a100_llama32_3b", 18.0),
    ("torchtitan_nvfp4doc_gb200_2608", 15.0),
    ("torchao_mx_b200_2508", 22.0),
];

#[test]
fn every_extra_peak_is_predicted_within_its_tolerance() {
    let v = common::validate_json("tests/data/extra.json");
    let rows: Vec<&Value> = v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|r| r["metric"] == "memory")
        .collect();
    assert_eq!(rows.len(), 12, "extra.json's runs with a measured peak");
    for row in rows {
        let (id, group) = (&row["id"], row["group"].as_str().unwrap_or(""));
        let tol = MEMORY_TOLERANCE_PCT
            .iter()
            .find(|(g, _)| *g == group)
            .unwrap_or_else(|| panic!("{id}: no memory tolerance for group {group}"))
            .1;
        let err = row["error_pct"]
            .as_f64()
            .unwrap_or_else(|| panic!("{id} is evaluated, not rejected: {row}"));
        assert!(
            err.abs() <= tol,
            "{id}: peak {err:+.1} % (tolerance {tol} %)"
        );
    }
}

/// Held-out runs that ran out of memory (NeMo Automodel PR #2673: Llama 3.3 70B SFT on 32 H100s,
/// each layout its commit messages report), at least this many predicted not to fit. At first
/// sight (bc8a085) 3 of 5: the original pp 8 layout at micro-batch 4 (165 GiB predicted) and 2
/// (140), and micro-batch 2 with checkpointing (81.6 of 79.65 usable). Missed: micro-batch 1 with
/// checkpointing (79.3 GiB, inside the band: "may not fit"; its last stage ran out) and tp 4 × dp 8
/// at micro-batch 8 (44.6 GiB; Automodel checkpoints each layer's four sub-modules, which keeps
/// four hidden-sized tensors per layer where `recompute: full` keeps one, about 30 GiB more here:
/// memory/activations.md §16).
const HELD_OUT_OOM_PREDICTED: usize = 3;

#[test]
fn held_out_oom_runs_are_predicted_not_to_fit() {
    let v = common::validate_json("tests/data/extra.json");
    let oom: Vec<&Value> = v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|r| r["metric"] == "oom")
        .collect();
    assert_eq!(oom.len(), 5, "extra.json's runs that ran out of memory");
    let caught = oom
        .iter()
        .filter(|r| r["predicted"].as_f64().is_some_and(|p| p >= 0.5))
        .count();
    assert!(
        caught >= HELD_OUT_OOM_PREDICTED,
        "{caught} of {} held-out OOM runs predicted not to fit",
        oom.len()
    );
}

/// Held-out runs that ran but are predicted not to fit, at most (`validate` lists each with its
/// peak): 30 before Megatron-Core's weighting of the routed rows inside the experts was priced
/// (`training.moe_probs_in_experts`), 22 since, 4 once the NeMo 2 dense recipes' bf16 gradient
/// buffer is stated (`grad_reduce_in_fp32` false), 1 once the FP8 recipes' primary weights in
/// FP8 are (`fp8_params`): DeepSeek-V3's report run (82.8 of 79.7 GiB), none at bc8a085; 1
/// since NeMo Automodel PR #2673 entered: its final Llama 3.3 70B recipe
/// (tp 4 pp 2 vp 10 dp 4, 81.5 of 79.65 GiB, "may not fit"; the PR merged it as the fix but posts
/// no log of it running, so the row is low confidence). torchtitan's NVFP4-doc Llama 3 8B runs
/// on 4 GB200s read 200.4 and 201.5 GiB of 186 usable at first sight (they ran at 174.5 and
/// 179.9 GiB reserved) and fit since `training.loss_chunks` states their chunked loss
/// (activations.md §16).
const RAN_BUT_PREDICTED_OOM_CEILING: usize = 1;

#[test]
fn held_out_runs_that_ran_are_predicted_to_fit() {
    let v = common::validate_json("tests/data/extra.json");
    let over: Vec<&str> = v["summary"]["ran_predicted_not_to_fit"]
        .as_array()
        .expect("validate --json lists them")
        .iter()
        .filter_map(|x| x.as_str())
        .collect();
    assert!(
        over.len() <= RAN_BUT_PREDICTED_OOM_CEILING,
        "{} held-out runs that ran are predicted not to fit: {over:?}",
        over.len()
    );
    // The Megatron-Core 0.13+ MoE recipes (2025-10 and later) (MXFP8 DeepSeek-V3 and Qwen3-235B on B200/GB200) fit.
    for id in [
        "mlm2510-gb200-deepseek_v3_mxfp8-256gpu",
        "mlmrecipe2608-b200-deepseek_v3_mxfp8-256gpu",
        "mlmrecipe2608-gb200-qwen3_235b_mxfp8-128gpu-fullcg",
    ] {
        assert!(!over.contains(&id), "{id} is predicted not to fit");
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
