//! The time half of the engine: per-term vectors computed by hand from the cited formulas,
//! the breakdown identity, MFU/HFU, (allocation-freedom is in tests/alloc.rs; speed is `paracalc bench`).
#![cfg(not(target_arch = "wasm32"))]

use common::assert_breakdown;
use paracalc::engine::estimate;
use paracalc::engine::time::comm::{Group, Link, NIC_EFFICIENCY, NVLINK_EFFICIENCY};
use paracalc::engine::time::pipeline::{bubble_ratio, bubble_s};
use paracalc::scenario::{self, gpu_preset, Recompute, Scenario, Schedule};
use proptest::prelude::*;

mod common;
/// GPT-3 175B on 1024 A100s (DESIGN.md's example scenario).
fn gpt3(recompute: &str) -> Scenario {
    scenario::parse(&format!(
        r#"{{
      "model": {{"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96,
                 "vocab": 51200, "seq_len": 2048, "tied_embeddings": true}},
      "training": {{"global_batch": 1536, "micro_batch": 1, "precision": "bf16",
                    "recompute": "{recompute}", "train_tokens": 3.0e11}},
      "parallel": {{"tp": 8, "pp": 16, "dp": 8, "sp": true, "zero_stage": 1}},
      "cluster": {{"gpu": "a100-sxm4-80gb", "num_gpus": 1024, "price_per_gpu_hour": 2.0}}
    }}"#
    ))
    .unwrap()
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

#[test]
fn model_flops_are_korthikanti_eq7() {
    // 72·B·s·L·h²·(1 + s/(6h) + V/(12·L·h)), B=1536, s=2048, L=96, h=12288, V=51200:
    // 72·1536·2048·96·12288² = 3.2831e18, × (1 + 0.027778 + 0.003617) = 3.3862e18.
    let (b, s, l, h, v) = (1536.0, 2048.0, 96.0, 12288.0, 51200.0);
    let want = 72.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * l * h));
    let e = estimate(&gpt3("selective")).unwrap();
    assert!(
        rel(e.flops.model_flops, want) < 1e-12,
        "{} vs {want}",
        e.flops.model_flops
    );
    assert!((e.flops.model_flops / 1e18 - 3.3862).abs() < 0.0005);
    // Causal-halved convention: the attention term s/(6h) becomes s/(12h).
    let causal = 72.0 * b * s * l * h * h * (1.0 + s / (12.0 * h) + v / (12.0 * l * h));
    assert!(rel(e.flops.model_flops_causal, causal) < 1e-12);
}

/// Llama 3 70B at 128K tokens: counting attention causally (half the `s×s` scores) scales MFU
/// and TFLOP/s by the causal/full FLOP ratio, hand-computed per token: linear
/// `2h(q+2kv) + 2qh + 6hf = 1 711 276 032`, attention `4qs = 4 294 967 296`, logits
/// `2hV = 2 101 346 304`; full `80·(lin + att) + logits = 482 600 812 544`, causal
/// `80·(lin + att/2) + logits = 310 802 120 704`, ratio 0.644015 (MFU 58.5 % → 37.7 %).
#[test]
fn causal_mfu_at_128k_tokens_is_the_flop_ratio() {
    let mut s = paracalc::presets::model_preset("llama3-70b")
        .unwrap()
        .scenario();
    s.model.seq_len = 131_072;
    s.training.global_batch = 64;
    // All data-parallel GPUs become context-parallel (dp 1).
    s.parallel.cp *= s.parallel.dp;
    s.parallel.dp = 1;
    let e = estimate(&s).unwrap();
    let t = &e.throughput;
    let ratio = 310_802_120_704.0 / 482_600_812_544.0;
    assert!(
        rel(
            e.flops.model_flops / (64.0 * 131_072.0),
            3.0 * 482_600_812_544.0
        ) < 1e-12
    );
    assert!(rel(t.mfu_causal, t.mfu * ratio) < 1e-12);
    assert!(rel(t.tflops_per_gpu_causal, t.tflops_per_gpu * ratio) < 1e-12);
}

#[test]
fn full_recompute_hardware_flops_are_the_96_factor() {
    // Narayanan et al. 2021 eq. 3: 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)).
    let (b, s, l, h, v) = (1536.0, 2048.0, 96.0, 12288.0, 51200.0);
    let want = 96.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
    let e = estimate(&gpt3("full")).unwrap();
    assert!(rel(e.flops.hardware_flops, want) < 1e-12);
    // Selective: + the attention core forward, 4·B·s²·h per layer.
    let sel = estimate(&gpt3("selective")).unwrap();
    let extra = 4.0 * b * s * s * h * l;
    assert!(rel(sel.flops.hardware_flops - sel.flops.model_flops, extra) < 1e-12);
    let none = estimate(&gpt3("none")).unwrap();
    assert_eq!(none.flops.hardware_flops, none.flops.model_flops);
}

#[test]
fn early_stopping_recompute_skips_the_mlp_output_gemm() {
    // GPT-3 175B with full recomputation that stops early (PyTorch's non-reentrant
    // checkpoint): the recomputed forward leaves out each layer's FC2, 2·f·h = 2·49152·12288
    // FLOPs per token per layer, i.e. 8h² of the 24h² linear FLOPs:
    // 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)) − 8·B·s·L·h².
    let (b, s, l, h, v) = (1536.0, 2048.0, 96.0, 12288.0, 51200.0);
    let mut sc = gpt3("full");
    sc.training.recompute_early_stop = Some(true);
    let e = estimate(&sc).unwrap();
    assert_breakdown(&e);
    let full = 96.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
    let want = full - 8.0 * b * s * l * h * h;
    assert!(rel(e.flops.hardware_flops, want) < 1e-12);
    // Less recomputation time than the whole layer's, and the same forward and backward.
    let whole = estimate(&gpt3("full")).unwrap();
    assert!(e.time.recompute_s < whole.time.recompute_s);
    assert_eq!(e.time.forward_s, whole.time.forward_s);
    assert_eq!(e.time.backward_s, whole.time.backward_s);
    // Without full recomputation the switch does nothing.
    let mut sel = gpt3("selective");
    sel.training.recompute_early_stop = Some(true);
    assert_eq!(
        estimate(&sel).unwrap().time.step_s,
        estimate(&gpt3("selective")).unwrap().time.step_s
    );
}

#[test]
fn per_op_selective_recompute_flops_and_time() {
    // Selective + flash attention under torchtitan = per-op SAC: every other weight GEMM is recomputed (Llama
    // order wq, wk, wv, wo, w1, w3, w2 → wk, wo, w3), the attention kernel is not.
    // Llama 3 8B: 2·(4096·1024 + 4096·4096 + 4096·14336) = 8,388,608 + 33,554,432 + 117,440,512
    // = 159,383,552 FLOPs per token per layer; × B·s·L = 16·8192·32.
    let llama = |recompute: &str| {
        scenario::parse(&format!(
            r#"{{
          "model": {{"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
                     "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192}},
          "training": {{"global_batch": 16, "micro_batch": 2, "precision": "bf16",
                        "recompute": "{recompute}", "flash_attention": true,
                        "framework": "torchtitan"}},
          "parallel": {{"tp": 1, "pp": 1, "dp": 8, "zero_stage": 3}},
          "cluster": {{"gpu": "h100-sxm5-80gb", "num_gpus": 8}}
        }}"#
        ))
        .unwrap()
    };
    let sel = estimate(&llama("selective")).unwrap();
    let want = 16.0 * 8192.0 * 32.0 * 159_383_552.0;
    assert!(rel(sel.flops.hardware_flops - sel.flops.model_flops, want) < 1e-12);
    // The recompute time is positive and below a full recompute's.
    let full = estimate(&llama("full")).unwrap();
    assert!(sel.time.recompute_s > 0.0);
    assert!(sel.time.recompute_s < full.time.recompute_s);
}

#[test]
fn narayanan_mt_nlg_tflops_vector() {
    // flops.md §1: MT-NLG 530B (B=1920, s=2048, L=105, h=20480, V=50272) on 2240 GPUs at
    // 60.1 s per iteration is 125.7 TFLOP/s per GPU with the 96-factor.
    let (b, s, l, h, v): (f64, f64, f64, f64, f64) = (1920.0, 2048.0, 105.0, 20480.0, 50272.0);
    let f = 96.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
    assert!((f / (60.1 * 2240.0 * 1e12) - 125.7).abs() < 0.1);
}

#[test]
fn bubble_vectors() {
    // Uniform stages: sum = p·t, max = t → bubble (p−1)·t, i.e. (p−1)/m of the ideal m·t.
    let (t, p, m) = (0.25, 8u64, 32u64);
    let bub = bubble_s(p as f64 * t, t, p, m, 1, Schedule::OneFOneB);
    assert!((bub - 7.0 * 0.25).abs() < 1e-12);
    assert!((bub / (m as f64 * t) - 7.0 / 32.0).abs() < 1e-12);
    assert!((bubble_ratio(p, m, 1) - 7.0 / 32.0).abs() < 1e-15);
    // GPipe has the same bubble as 1F1B.
    assert_eq!(bub, bubble_s(p as f64 * t, t, p, m, 1, Schedule::Gpipe));
    // Interleaved v = 4, m multiple of p: (p−1)/(v·m) = 7/128 of the ideal.
    let bub_v = bubble_s(p as f64 * t, t, p, m, 4, Schedule::Interleaved);
    assert!((bub_v / (m as f64 * t) - 7.0 / 128.0).abs() < 1e-12);
    assert!((bubble_ratio(p, m, 4) - 7.0 / 128.0).abs() < 1e-15);
    // m = 30 not a multiple of 8: + (v−1)·(p − m mod p)·t/v = 3·2·0.0625 = 0.375 s.
    let bub_r = bubble_s(p as f64 * t, t, p, 30, 4, Schedule::Interleaved);
    assert!((bub_r - (7.0 * 0.0625 + 0.375)).abs() < 1e-12);
    // Uneven stages: Σ − max (slowest stage sets the pace): 3 stages of 1, 1, 2 s → 2 s.
    assert!((bubble_s(4.0, 2.0, 3, 10, 1, Schedule::OneFOneB) - 2.0).abs() < 1e-12);
    // No pipeline, no bubble.
    assert_eq!(bubble_s(1.0, 1.0, 1, 10, 1, Schedule::OneFOneB), 0.0);
}

#[test]
fn ring_collective_vectors() {
    let a100 = gpu_preset("a100-sxm4-80gb").unwrap().spec;
    // TP 8 inside a DGX: NVLink, B = 300 GB/s × 0.78.
    let tp = Group::new(&a100, 8, 1);
    assert_eq!(tp.link, Link::Nvlink);
    let b = 300e9 * NVLINK_EFFICIENCY;
    let s = 100e6;
    // Ring all-reduce, Simple (NCCL tuning.cc): 8.4 + 14·3.4 = 56 µs + 2(n−1)/n·S/B
    // = 56 µs + 1.75·1e8/2.34e11 = 803.9 µs (LL128's 0.92 bandwidth loses at 100 MB).
    let want = 56e-6 + 2.0 * 7.0 / 8.0 * s / b;
    assert!((tp.all_reduce_s(s) - want).abs() < 1e-12);
    assert!((tp.all_reduce_s(s) - 803.9e-6).abs() < 0.1e-6);
    // Reduce-scatter / all-gather: n−1 steps, half the bandwidth term.
    assert!((tp.gather_s(s) - (8.4e-6 + 7.0 * 3.4e-6 + 7.0 / 8.0 * s / b)).abs() < 1e-12);
    // DP across nodes with t = 8 filling the node: one NIC per GPU, 25 GB/s × 0.85; 64 nodes,
    // one GPU each. Ring/Simple: 1.4·(8.4 + 126·14) µs + 2·63/64·S/B = 11.75 ms; NCCL's tree:
    // 8.4 + 2·log2(64)·14 = 176.4 µs + S/(0.92·B/2) = 10.41 ms — the tree wins.
    let dp = Group::new(&a100, 64, 8);
    assert_eq!(dp.link, Link::Network);
    let nic = 25e9 * NIC_EFFICIENCY;
    let ring = 1.4 * (8.4 + 126.0 * 14.0) * 1e-6 + 2.0 * 63.0 / 64.0 * s / nic;
    let tree = 176.4e-6 + s / (0.92 * nic / 2.0);
    assert!(tree < ring);
    assert!((dp.all_reduce_s(s) - tree).abs() < 1e-12);
    // DP with t = 2: 4 members per node share 4 NICs → 4 × 25 × 0.85 = 85 GB/s (< NVLink).
    let dp2 = Group::new(&a100, 64, 2);
    assert!((dp2.bus_bps - 4.0 * 25e9 * NIC_EFFICIENCY).abs() < 1.0);
    // TP 16 spans two nodes: 8 members per node, capped by NVLink.
    let tp16 = Group::new(&a100, 16, 1);
    assert_eq!(tp16.link, Link::Network);
    assert!((tp16.bus_bps - (8.0 * 25e9 * NIC_EFFICIENCY).min(b)).abs() < 1.0);
    // A group of one does not communicate.
    assert_eq!(Group::new(&a100, 1, 1).all_reduce_s(s), 0.0);
    // GB200: a 72-GPU NVLink domain keeps TP 16 on NVLink although nodes have 4 GPUs.
    let gb200 = gpu_preset("gb200").unwrap().spec;
    assert_eq!(Group::new(&gb200, 16, 1).link, Link::Nvlink);
}

#[test]
fn step_is_the_sum_of_its_parts() {
    for rc in ["none", "selective", "full"] {
        let e = estimate(&gpt3(rc)).unwrap();
        assert_breakdown(&e);
        assert_eq!(e.time.micro_batches, 1536 / 8);
    }
    // Recompute costs time.
    let none = estimate(&gpt3("none")).unwrap().time;
    let full = estimate(&gpt3("full")).unwrap().time;
    assert_eq!(none.recompute_s, 0.0);
    assert!(full.recompute_s > 0.2 * full.forward_s);
    assert!(full.step_s > none.step_s);
}

#[test]
fn throughput_follows_from_the_step() {
    let s = gpt3("selective");
    let e = estimate(&s).unwrap();
    let step = e.time.step_s;
    let tp = &e.throughput;
    assert!(rel(tp.tokens_per_s, 1536.0 * 2048.0 / step) < 1e-12);
    assert!(rel(tp.samples_per_s, 1536.0 / step) < 1e-12);
    assert!(rel(tp.mfu, e.flops.model_flops / (step * 1024.0 * 312e12)) < 1e-12);
    assert!(rel(tp.hfu, e.flops.hardware_flops / (step * 1024.0 * 312e12)) < 1e-12);
    assert!(rel(tp.tflops_per_gpu, tp.mfu * 312.0) < 1e-9);
    // A plausible MFU for this well-known layout (published runs: 0.4-0.55).
    assert!(tp.mfu > 0.35 && tp.mfu < 0.6, "mfu {}", tp.mfu);
    // Time and cost to train 3e11 tokens at $2/GPU-hour.
    let secs = 3.0e11 / tp.tokens_per_s;
    assert!(rel(tp.train_time_s.unwrap(), secs) < 1e-12);
    assert!(rel(tp.train_gpu_hours.unwrap(), secs / 3600.0 * 1024.0) < 1e-12);
    assert!(rel(tp.train_cost.unwrap(), 2.0 * secs / 3600.0 * 1024.0) < 1e-12);
}

#[test]
fn communication_volumes_per_gpu() {
    let e = estimate(&gpt3("selective")).unwrap();
    let c = &e.comm;
    // TP: 4 all-reduce-equivalents of b·s·h·2 bytes per layer per micro-batch, ring traffic
    // 2(t−1)/t each; 6 layers per stage, 192 micro-batches:
    // 192 · 6 · 4 · 2·7/8 · (2048·12288·2) B = 4.06e11 B.
    let want = 192.0 * 6.0 * 4.0 * 2.0 * 7.0 / 8.0 * (2048.0 * 12288.0 * 2.0);
    assert!(rel(c.tp.bytes, want) < 1e-12, "{} vs {want}", c.tp.bytes);
    assert_eq!(c.tp.link, Link::Nvlink);
    assert_eq!(c.dp.link, Link::Network);
    assert_eq!(c.pp.link, Link::Network);
    // PP: forward + backward send of b·s·h·2/t bytes per micro-batch: 192·2·6.29 MB.
    assert!(rel(c.pp.bytes, 192.0 * 2.0 * 2048.0 * 12288.0 * 2.0 / 8.0) < 1e-12);
    assert_eq!(c.cp.bytes, 0.0);
    assert!(
        (c.total_bytes() - (c.tp.bytes + c.cp.bytes + c.ep.bytes + c.pp.bytes + c.dp.bytes)).abs()
            < 1.0
    );
}

#[test]
fn more_micro_batches_shrink_the_bubble_fraction() {
    let mut s = gpt3("selective");
    s.parallel.vp = 1;
    let a = estimate(&s).unwrap().time;
    s.training.global_batch *= 2;
    let b = estimate(&s).unwrap().time;
    assert!(b.bubble_fraction() < a.bubble_fraction());
    // Interleaving shrinks it too.
    s.parallel.vp = 2;
    let c = estimate(&s).unwrap().time;
    assert!(c.bubble_s < b.bubble_s);
}

#[test]
fn dp_bucket_size_matters() {
    let mut s = gpt3("selective");
    s.parallel.bucket_mb = Some(1.0e-3); // absurdly small: latency-bound
    let tiny = estimate(&s).unwrap().time.exposed_comm_s.dp;
    s.parallel.bucket_mb = Some(40.0);
    let good = estimate(&s).unwrap().time.exposed_comm_s.dp;
    s.parallel.bucket_mb = Some(1.0e6); // one huge bucket: nothing overlaps
    let huge = estimate(&s).unwrap().time.exposed_comm_s.dp;
    assert!(tiny > good, "{tiny} {good}");
    assert!(huge > good, "{huge} {good}");
    s.parallel.bucket_mb = None;
    s.parallel.dp_comm_overlap = Some(false);
    let off = estimate(&s).unwrap().time;
    assert!(off.hidden_comm_s.dp == 0.0 && off.exposed_comm_s.dp > good);
}

fn arb_scenario() -> impl Strategy<Value = Scenario> {
    (
        (1u64..=4, 1u64..=4, 1u64..=3, 1u64..=2, 1u64..=2, 0u8..=3),
        (1u64..=4, 0usize..3, any::<bool>(), any::<bool>(), 0usize..4),
        (1u64..=16, 1u64..=40, 0usize..3),
    )
        .prop_map(|((tp_e, pp, dp, cp, vp, zero), (b, rc, flash, sp, gpu), (mb_mul, layers_mul, act))| {
            let tp = 1u64 << (tp_e - 1);
            let layers = pp * vp * layers_mul;
            let heads = 16 * tp;
            let gpus = ["a100-sxm4-80gb", "h100-sxm5-80gb", "v100-sxm2-32gb", "gb200"];
            let rcs = ["none", "selective", "full"];
            let precision = if gpu == 2 { "fp16" } else { ["bf16", "fp8", "bf16"][act] };
            let json = format!(
                r#"{{"model": {{"layers": {layers}, "hidden": {h}, "heads": {heads}, "vocab": 32000,
                    "seq_len": 2048, "ffn_act": "{ffn}"}},
                  "training": {{"global_batch": {gb}, "micro_batch": {b}, "precision": "{precision}",
                    "recompute": "{rc}", "flash_attention": {flash}}},
                  "parallel": {{"tp": {tp}, "pp": {pp}, "dp": {dp}, "cp": {cp}, "vp": {vp},
                    "sp": {sp}, "zero_stage": {zero}}},
                  "cluster": {{"gpu": "{g}", "num_gpus": {n}}}}}"#,
                h = heads * 64,
                ffn = if act == 1 { "swiglu" } else { "gelu" },
                gb = b * dp * pp * mb_mul,
                rc = rcs[rc],
                sp = sp && tp > 1,
                g = gpus[gpu],
                n = tp * pp * dp * cp,
            );
            scenario::parse(&json).unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn breakdown_adds_up_for_random_layouts(s in arb_scenario()) {
        if s.validate().is_ok() {
            let e = estimate(&s).unwrap();
            assert_breakdown(&e);
            prop_assert!(e.throughput.mfu > 0.0 && e.throughput.mfu < 1.0);
            prop_assert!(e.flops.hardware_flops >= e.flops.model_flops);
            if s.parallel.tp == 1 {
                prop_assert_eq!(e.time.exposed_comm_s.tp, 0.0);
                prop_assert_eq!(e.comm.tp.bytes, 0.0);
            }
            if s.parallel.pp == 1 {
                prop_assert_eq!(e.time.bubble_s, 0.0);
            }
            if s.training.recompute == Recompute::None {
                prop_assert_eq!(e.time.recompute_s, 0.0);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Extreme but valid inputs never panic and never give NaN.
    #[test]
    fn extreme_inputs_do_not_panic(
        layers in 1u64..5000, h_mul in 1u64..2000, seq in 1u64..2_000_000, b in 1u64..64,
        tp_e in 0u32..7, pp in 1u64..64, vocab in 1u64..1_000_000, moe in any::<bool>(),
        zero in 0u8..=3, flash in any::<bool>(), gpu in 0usize..6,
    ) {
        let tp = 1u64 << tp_e;
        let gpus = ["a100-sxm4-40gb", "h100-pcie-80gb", "gb300", "mi300x", "v100-sxm2-16gb", "h100-sxm5-96gb"];
        let moe_json = if moe { r#"{"experts": 64, "top_k": 2, "expert_ffn_hidden": 1024}"# } else { "null" };
        let ep = if moe { 2 } else { 1 };
        let json = format!(
            r#"{{"model": {{"layers": {layers}, "hidden": {h}, "heads": {tp}, "vocab": {vocab},
                "seq_len": {seq}, "moe": {moe_json}}},
              "training": {{"global_batch": {gb}, "micro_batch": {b}, "precision": "{prec}",
                "recompute": "full", "flash_attention": {flash}}},
              "parallel": {{"tp": {tp}, "pp": {pp}, "dp": 2, "ep": {ep}, "zero_stage": {zero}}},
              "cluster": {{"gpu": "{g}", "num_gpus": {n}}}}}"#,
            h = tp * h_mul * 8,
            gb = b * 2 * 3,
            prec = if gpu == 4 { "fp16" } else { "bf16" },
            g = gpus[gpu],
            n = tp * pp * 2,
        );
        let s = scenario::parse(&json).unwrap();
        if s.validate().is_ok() {
            let e = estimate(&s).unwrap();
            let t = &e.time;
            prop_assert!(!t.step_s.is_nan());
            prop_assert!(!e.throughput.mfu.is_nan());
            prop_assert!(t.step_s > 0.0);
        }
    }
}

/// A Hugging Face-style BERT on one GPU, eager PyTorch (`framework` pytorch).
fn eager_bert(layers: u64, hidden: u64, seq: u64, micro: u64, gbs: u64, gpu: &str) -> Scenario {
    scenario::parse(&format!(
        r#"{{"model": {{"name": "bert", "layers": {layers}, "hidden": {hidden}, "heads": 16,
             "ffn_hidden": {f}, "ffn_act": "gelu", "vocab": 30522, "seq_len": {seq},
             "tied_embeddings": true}},
          "training": {{"global_batch": {gbs}, "micro_batch": {micro}, "precision": "fp16",
             "recompute": "none", "flash_attention": false, "framework": "pytorch"}},
          "parallel": {{"tp": 1, "pp": 1, "dp": 1}},
          "cluster": {{"gpu": "{gpu}", "num_gpus": 1}}}}"#,
        f = 4 * hidden
    ))
    .unwrap()
}

#[test]
fn eager_host_wait_adds_to_the_step() {
    // BERT-large fp16, batch 4 on a V100 (transformers perf_train_gpu_one.md): the GPU hides
    // the 15.6 ms of host time per micro-batch (engine/time/host.rs: 24·(335 + 317) µs); the
    // optimizer loop, 387 tensors · 95 µs = 36.765 ms, waits beyond the update.
    let e = estimate(&eager_bert(24, 1024, 512, 4, 4, "v100-sxm2-16gb")).unwrap();
    assert_breakdown(&e);
    let t = &e.time;
    assert!(
        (t.host_s - (387.0 * 95e-6 - t.optimizer_s)).abs() < 1e-12,
        "{t:?}"
    );
    // The same run with the field off: no wait, and the layer's element-wise operators fused
    // (a compiled graph; the eager BERT layer's count is for eager runs, host.md §3):
    // everything else equal.
    let mut off = eager_bert(24, 1024, 512, 4, 4, "v100-sxm2-16gb");
    off.training.eager = Some(false);
    let o = estimate(&off).unwrap().time;
    assert_eq!(o.host_s, 0.0);
    let fused = t.compute_s - o.compute_s;
    assert!(fused > 0.0, "{fused}");
    assert!((t.step_s - o.step_s - t.host_s - fused).abs() < 1e-12);
    // A small model on an H100 (8 layers of hidden 512, 128 tokens per micro-batch, 8
    // micro-batches): the GPU runs a micro-batch, its gradient accumulation and weight casts
    // and the eager layer's 54 element-wise kernels included, in less than its 8·652 µs of
    // host time, so every micro-batch waits `H_mb − T_mb` and the optimizer
    // `131·95 µs − T_opt` (8·16 + 1 + 2 = 131 tensors).
    let e = estimate(&eager_bert(8, 512, 128, 1, 8, "h100-sxm5-80gb")).unwrap();
    assert_breakdown(&e);
    let t = &e.time;
    let gpu_mb = (t.compute_s + t.recompute_s + t.exposed_comm_s.total()) / 8.0;
    assert!(gpu_mb < 8.0 * 652e-6, "{gpu_mb}");
    let want = 8.0 * (8.0 * 652e-6 - gpu_mb) + (131.0 * 95e-6 - t.optimizer_s).max(0.0);
    assert!((t.host_s - want).abs() < 1e-12, "{} vs {want}", t.host_s);
}
