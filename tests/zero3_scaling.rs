//! ZeRO-3 at scale (issue 11): the mechanisms that make sharded data parallelism stop scaling,
//! on the setting of Narayanan et al. 2021 §5.2 (GPT-3 175B, A100, 8×200 Gb/s HDR per node,
//! global batch 1536; DeepSpeed ZeRO-3 without model parallelism vs PTD-P).
#![cfg(not(target_arch = "wasm32"))]

use paracalc::engine::{estimate, Estimate};
use paracalc::scenario::{self, Scenario};

fn gpt3(n: u64, framework: &str, tp: u64, pp: u64, vp: u64, zero: u8, mbs: u64) -> Scenario {
    scenario::from_value(&serde_json::json!({
        "model": {"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96,
                  "vocab": 51200, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 1536, "micro_batch": mbs, "precision": "fp16",
                     "recompute": "full", "framework": framework},
        "parallel": {"tp": tp, "pp": pp, "dp": n / (tp * pp), "vp": vp, "zero_stage": zero},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": n, "inter_node_gbps": 25.0}
    }))
    .unwrap()
}

/// DeepSpeed ZeRO-3 on `n` GPUs: 1536/n samples per GPU in one micro-batch (up to 4).
fn zero3(n: u64, framework: &str) -> Estimate {
    estimate(&gpt3(n, framework, 1, 1, 1, 3, (1536 / n).min(4))).unwrap()
}

fn dp_comm(e: &Estimate) -> f64 {
    e.time.exposed_comm_s.dp + e.time.hidden_comm_s.dp
}

#[test]
fn zero3_bytes_stay_constant_while_ring_latency_grows() {
    let (a, b, c) = (
        zero3(384, "deepspeed"),
        zero3(768, "deepspeed"),
        zero3(1536, "deepspeed"),
    );
    // Per GPU and step: gather forward, gather backward, reduce-scatter, 2 bytes each, of all
    // 175B parameters, plus the second gather of backward of the weights DeepSpeed releases
    // after the recomputed forward (Q, K, V, output projection and FC1: 8h² of a layer's 12h²,
    // 96 layers) — (n−1)/n·2·(3Ψ + 96·7h²), the same at every scale (within 1 %).
    let psi = 174.6e9;
    let regathered = 96.0 * 8.0 * 12288f64.powi(2);
    for e in [&a, &b, &c] {
        let want = 2.0 * (3.0 * psi + regathered);
        assert!(
            (e.comm.dp.bytes / want - 1.0).abs() < 0.01,
            "{}",
            e.comm.dp.bytes
        );
    }
    // The collectives' time grows with the ring (NCCL: n−1 steps per all-gather), although
    // every GPU moves the same bytes.
    assert!(dp_comm(&b) > dp_comm(&a) && dp_comm(&c) > dp_comm(&b));
    // DeepSpeed gathers each weight tensor separately (4 per GPT layer), FSDP one flat buffer
    // per block: the per-call ring latency makes DeepSpeed's collectives slower at 1536 GPUs.
    let fsdp = zero3(1536, "pytorch");
    assert!(
        dp_comm(&c) > dp_comm(&fsdp),
        "{} vs {}",
        dp_comm(&c),
        dp_comm(&fsdp)
    );
}

/// DeepSpeed ZeRO-3 as the paper ran it (April 2021, DeepSpeed v0.3.x): per-parameter gathers
/// after a device synchronisation, list collectives (`parallel.fsdp_style =
/// per_parameter_sync`), on `n` GPUs with 1536/n samples per GPU in one micro-batch (up to 4).
fn zero3_2021(n: u64) -> Estimate {
    estimate(&zero3_scenario(n)).unwrap()
}

fn zero3_scenario(n: u64) -> Scenario {
    let mut s = gpt3(n, "deepspeed", 1, 1, 1, 3, (1536 / n).min(4));
    s.parallel.fsdp_style = Some(paracalc::scenario::FsdpStyle::PerParameterSync);
    s.validate().unwrap();
    s
}

/// GPT-3 175B with PTD-P as Narayanan et al. ran it (Table 2: tp8 pp12, micro-batch 1).
fn ptdp(n: u64) -> Estimate {
    estimate(&gpt3(n, "megatron", 8, 12, 1, 1, 1)).unwrap()
}

/// Achieved TFLOP/s per GPU by the paper's own count (Narayanan et al. 2021 eq. 3: 96·B·s·l·h²·
/// (1 + s/6h + V/16lh), full recomputation included).
fn paper_tflops(e: &Estimate, s: &Scenario) -> f64 {
    let m = &s.model;
    let (b, sq, l, h, v) = (
        s.training.global_batch as f64,
        m.seq_len as f64,
        m.layers as f64,
        m.hidden as f64,
        m.vocab as f64,
    );
    let flops = 96.0 * b * sq * l * h * h * (1.0 + sq / (6.0 * h) + v / (16.0 * l * h));
    flops / e.time.step_s / s.cluster.num_gpus as f64 / 1e12
}

/// The seed finding of issue 11 (Narayanan et al. 2021 §5.2, Table 2: ZeRO-3 144 → 88 → 44
/// TFLOP/s per GPU on 384 → 768 → 1536 GPUs, PTD-P 153 → 149 → 141): DeepSpeed's 2021 ZeRO-3
/// issues about 2,200 collectives per step, each a ring over every GPU plus one slice and one
/// copy per rank on the host, and none overlaps compute: per layer of the Megatron-DeepSpeed
/// GPT (fused QKV: 4 weight tensors, 12 parameter tensors) 4 gathers forward, 4 again in
/// backward and 3 more for the weights it releases after the recomputed forward (their reuse
/// distance exceeds `stage3_max_reuse_distance`), and one reduce-scatter per parameter with a
/// gradient, 12; PTD-P's traffic stays inside the node (TP) or between neighbours (PP). So
/// ZeRO-3 stops scaling while PTD-P does not.
///
/// Predicted: ZeRO-3 153.4 / 101.5 / 45.9 TFLOP/s per GPU (paper 144 / 88 / 44), PTD-P
/// 157.1 / 152.2 / 143.2 (153 / 149 / 141); at 384 GPUs 76.6 vs 74.8 s per step (the paper
/// 81.6 vs 76.6 s), at 1536 PTD-P 3.1× faster (the paper 3.2×).
#[test]
fn ptdp_beats_zero3_at_every_scale_and_zero3_stops_scaling() {
    for n in [384, 768, 1536] {
        let (p, z) = (ptdp(n), zero3_2021(n));
        assert!(
            p.time.step_s < z.time.step_s,
            "{n}: {} vs {}",
            p.time.step_s,
            z.time.step_s
        );
    }
    let (z768, z1536) = (zero3_2021(768), zero3_2021(1536));
    assert!(
        z1536.time.step_s > 0.75 * z768.time.step_s,
        "{} vs {}",
        z1536.time.step_s,
        z768.time.step_s
    );
    let p = ptdp(1536);
    assert!(
        p.throughput.tokens_per_s >= 2.0 * z1536.throughput.tokens_per_s,
        "{} vs {}",
        p.throughput.tokens_per_s,
        z1536.throughput.tokens_per_s
    );
    // Both within 20 % of Table 2 at every scale (ZeRO-3 still optimistic, by 4-15 %; PTD-P
    // within 4 %).
    for (n, z3, ptd) in [(384, 144.0, 153.0), (768, 88.0, 149.0), (1536, 44.0, 141.0)] {
        let (sz, sp) = (zero3_scenario(n), gpt3(n, "megatron", 8, 12, 1, 1, 1));
        let (tz, tp) = (
            paper_tflops(&estimate(&sz).unwrap(), &sz),
            paper_tflops(&estimate(&sp).unwrap(), &sp),
        );
        assert!((tz / z3 - 1.0).abs() < 0.20, "ZeRO-3 {n}: {tz:.1} vs {z3}");
        assert!((tp / ptd - 1.0).abs() < 0.05, "PTD-P {n}: {tp:.1} vs {ptd}");
    }
}

/// The 530B comparison of the same table (ZeRO-3 138 / 98 / 48 TFLOP/s per GPU on 640 / 1120 /
/// 2240 GPUs, PTD-P 171 / 167 / 159 on 560 / 1120 / 2240). Predicted: ZeRO-3 139.3 / 125.3 /
/// 66.7 (still optimistic at scale, by up to 39 %), PTD-P 168.2 / 168.0 / 158.7; PTD-P ahead at
/// every scale, 2.4× at 2240 GPUs (the paper 3.3×).
#[test]
fn ptdp_beats_zero3_for_530b_at_every_scale() {
    let run = |n: u64, batch: u64, tp: u64, pp: u64, mbs: u64| {
        let zero3 = tp == 1;
        let mut s = scenario::from_value(&serde_json::json!({
            "model": {"name": "530B", "layers": 105, "hidden": 20480, "heads": 128,
                      "vocab": 51200, "seq_len": 2048, "tied_embeddings": true},
            "training": {"global_batch": batch, "micro_batch": mbs, "precision": "fp16",
                         "recompute": "full",
                         "framework": if zero3 { "deepspeed" } else { "megatron" }},
            "parallel": {"tp": tp, "pp": pp, "dp": n / (tp * pp),
                         "zero_stage": if zero3 { 3 } else { 1 }},
            "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": n, "inter_node_gbps": 25.0}
        }))
        .unwrap();
        if zero3 {
            s.parallel.fsdp_style = Some(paracalc::scenario::FsdpStyle::PerParameterSync);
        }
        s.validate().unwrap();
        let e = estimate(&s).unwrap();
        (paper_tflops(&e, &s), e.time.step_s)
    };
    let (z1120, z2240) = (run(1120, 2240, 1, 1, 2), run(2240, 2240, 1, 1, 1));
    let (p1120, p2240) = (run(1120, 2240, 8, 35, 1), run(2240, 2240, 8, 35, 1));
    let (z640, p560) = (run(640, 1280, 1, 1, 2), run(560, 1120, 8, 35, 1));
    assert!(p560.0 > z640.0 && p1120.0 > z1120.0 && p2240.0 > z2240.0);
    assert!(z2240.1 > 0.75 * z1120.1, "{z2240:?} vs {z1120:?}");
    assert!(p2240.0 >= 2.0 * z2240.0, "{p2240:?} vs {z2240:?}");
    for (got, paper) in [
        (z640.0, 138.0),
        (z1120.0, 98.0),
        (z2240.0, 48.0),
        (p560.0, 171.0),
        (p1120.0, 167.0),
        (p2240.0, 159.0),
    ] {
        assert!((got / paper - 1.0).abs() < 0.40, "{got:.1} vs {paper}");
    }
}

#[test]
fn hsdp_trades_ring_latency_for_network_bytes() {
    // HSDP with shard groups of 8 (one DGX): gathers and reduce-scatters stay on NVLink, then
    // each GPU all-reduces its 1/8 gradient shard with its 191 replicas through its own NIC:
    // 2·(S/8)/B_nic per layer instead of full sharding's (n−1)/n·S/(8·B_nic) reduce-scatter.
    let hsdp = |mut s: Scenario| {
        s.parallel.shard_ranks = Some(8);
        s.validate().unwrap();
        estimate(&s).unwrap()
    };
    // GPT-3 175B: bandwidth-bound, the replica all-reduce moves twice the network bytes.
    let (full, h) = (
        zero3(1536, "pytorch"),
        hsdp(gpt3(1536, "pytorch", 1, 1, 1, 3, 1)),
    );
    assert!(
        dp_comm(&h) > dp_comm(&full),
        "{} vs {}",
        dp_comm(&h),
        dp_comm(&full)
    );
    // A 1.3B model at the same scale is latency-bound: 1535-step rings per layer cost more
    // than NVLink rings plus a tree all-reduce across nodes.
    let small = |shard: Option<u64>| {
        let mut s = gpt3(1536, "pytorch", 1, 1, 1, 3, 1);
        s.model.layers = 24;
        s.model.hidden = 2048;
        s.model.heads = 16;
        s.parallel.shard_ranks = shard;
        s.validate().unwrap();
        estimate(&s).unwrap()
    };
    let (full, h) = (small(None), small(Some(8)));
    assert!(
        dp_comm(&h) < dp_comm(&full),
        "{} vs {}",
        dp_comm(&h),
        dp_comm(&full)
    );
}

#[test]
fn knob_fields_override_the_framework_defaults() {
    use paracalc::scenario::FsdpStyle;
    // DeepSpeed with FSDP1-style block gathers prices exactly as the pytorch stack's ZeRO-3
    // (with flash attention, so that eager PyTorch's fp32 autocast softmax does not apply, on
    // MPT's Triton kernel, so that its FlashAttention-2 unpadding does not either, the eager
    // host switched off, and PyTorch FSDP's early-stopping recomputation too).
    let flash = |mut s: Scenario| {
        s.training.flash_attention = true;
        s.training.attention_kernel = Some(paracalc::scenario::AttentionKernel::Triton);
        estimate(&s).unwrap().time.step_s
    };
    let mut s = gpt3(1536, "deepspeed", 1, 1, 1, 3, 1);
    s.parallel.fsdp_style = Some(FsdpStyle::PerBlock);
    let mut eager = gpt3(1536, "pytorch", 1, 1, 1, 3, 1);
    eager.training.eager = Some(false);
    eager.training.recompute_early_stop = Some(false);
    assert_eq!(flash(s.clone()), flash(eager.clone()));
    // Eager, the host loops over the 96·16 + 3 = 1539 parameter tensors in the optimizer phase
    // (95 µs each, engine/time/host.rs): 146.2 ms against a 1536-way-sharded update.
    eager.training.eager = None;
    let e = {
        eager.training.flash_attention = true;
        eager.training.attention_kernel = Some(paracalc::scenario::AttentionKernel::Triton);
        estimate(&eager).unwrap()
    };
    assert!(
        e.time.host_s > 0.13 && e.time.host_s < 1539.0 * 95e-6,
        "{}",
        e.time.host_s
    );
    assert!((e.time.step_s - flash(s) - e.time.host_s).abs() < 1e-9);
    // DeepSpeed overlaps the data-parallel reduction only under ZeRO-3 (`overlap_comm`
    // defaults to `stage == 3`): with ZeRO-1 all of it is exposed, until the field says
    // otherwise. It reduces the 16-bit gradients: half of Megatron's fp32 main-gradient bytes.
    let mut d = gpt3(1536, "deepspeed", 8, 12, 1, 1, 1);
    assert!(!d.dp_comm_overlap());
    let e = estimate(&d).unwrap();
    assert!(e.time.exposed_comm_s.dp > 0.0);
    assert_eq!(e.time.hidden_comm_s.dp, 0.0);
    let m = estimate(&gpt3(1536, "megatron", 8, 12, 1, 1, 1)).unwrap();
    assert!((e.comm.dp.bytes / m.comm.dp.bytes - 2.0 / 3.0).abs() < 1e-9);
    d.parallel.dp_comm_overlap = Some(true);
    assert!(d.dp_comm_overlap());
    assert!(estimate(&d).unwrap().time.exposed_comm_s.dp < e.time.exposed_comm_s.dp);
    assert!(gpt3(1536, "deepspeed", 1, 1, 1, 3, 1).dp_comm_overlap());
    // Megatron's interleaved schedule overlaps its pipeline sends unless switched off. Untied
    // embeddings: a tied embedding's step-end gradient all-reduce between the first and the
    // last stage counts as pipeline time and is never overlapped.
    let mut p = gpt3(1536, "megatron", 8, 12, 2, 1, 1);
    p.model.tied_embeddings = false;
    let on = estimate(&p).unwrap();
    p.parallel.pp_comm_overlap = Some(false);
    let off = estimate(&p).unwrap();
    assert!(off.time.exposed_comm_s.pp > 10.0 * on.time.exposed_comm_s.pp);
}

/// The PyTorch FSDP paper's GPT-175B runs (Zhao et al., "PyTorch FSDP: Experiences on Scaling
/// Fully Sharded Data Parallel", PVLDB 16(12) 2023, arXiv 2304.11277, §5.1 and §5.4, Figure
/// 7 (b)): minGPT 175B (96 layers, hidden 12288, vocab 50000, block size 2048, untied output
/// layer), FULL_SHARD with backward prefetch and the rate limiter, full activation
/// checkpointing, bf16, Adam, `mbs` sequences per GPU on `n` A100 80GB GPUs "interconnected by a
/// 2Tb/s RoCE network" (read as 2 Tb/s per 8-GPU node: 250 Gb/s per GPU).
fn fsdp_paper(n: u64, mbs: u64) -> Scenario {
    scenario::from_value(&serde_json::json!({
        "model": {"name": "minGPT 175B", "layers": 96, "hidden": 12288, "heads": 96,
                  "vocab": 50000, "seq_len": 2048, "tied_embeddings": false},
        "training": {"global_batch": n * mbs, "micro_batch": mbs, "precision": "bf16",
                     "recompute": "full", "framework": "pytorch"},
        "parallel": {"tp": 1, "pp": 1, "dp": n, "zero_stage": 3},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": n, "inter_node_gbps": 31.25}
    }))
    .unwrap()
}

/// Issue 33 (regime 6): with today's default stack, ZeRO-3 without model parallelism is
/// predicted faster than PTD-P for GPT-3 175B on 768 A100s with 200 Gb/s per GPU. The largest
/// published measurement of FSDP/ZeRO-3 without model parallelism on a 175B model on A100s with
/// a current stack supports it: Zhao et al. 2023 (§5.4) report "more than 173 and 186 TFLOPS
/// per GPU with batch size equal to 1 and 2" (≈ 55 % and 60 % of the A100's 312), with "linear
/// scalability from 128 GPUs to 512 GPUs" (the 128-GPU batch-2 run excepted: allocator
/// defragmentation near 80 GB, not priced). No published run of it at 768 or more A100s was
/// found (Narayanan et al.'s 2021 DeepSpeed is the 2021 stack, tested above); the prediction
/// at 768 is an extrapolation of 1.5× from 512, over which the engine and the paper agree
/// the per-GPU rate stays flat.
///
/// TFLOPS by Narayanan et al.'s eq. 3 (recomputation included), the count of the PyTorch
/// distributed team's GPT benchmark (`calc_flop`, mrshenli/ptd_benchmark `trainer.py`); the
/// paper does not state its count, and "GPU hardware utilization" reads as one that includes the
/// recomputation. Predicted (eager PyTorch FSDP1 stack, as the paper ran it), batch 1 / 2:
/// 178.9 / 183.8 at 128 GPUs, 178.0 / 183.4 at 512 (the paper > 173 / > 186: +2.9 % / −1.4 %).
/// The default (Megatron-LM) stack in the seed setting at 768 GPUs, batch 2 per GPU: ZeRO-3
/// 30.2 s, 194.5 TFLOPS by the same count (+4.6 % over the paper's 186 at 512), PTD-P (Table
/// 2's tp 8 pp 12) 38.6 s, 152 TFLOPS (Narayanan et al. measured 149): 1.28× slower, where the
/// two published runs give 186 / 149 = 1.25×. At 1536 GPUs (batch 1 per GPU) ZeRO-3 15.7 s
/// against PTD-P 20.5 s.
///
/// Why overlap contention (issue 33) does not reverse it: the FSDP collectives' 7.1 s per step
/// at 768 GPUs run across nodes on 16 of the A100's 108 SMs, 1.05 s of the step (named in
/// `overlap_contention_s.dp`); their HBM traffic is about 5 % of the A100's (comm.md §7,
/// not priced). Even with every one of them exposed (a bound no stack reaches), ZeRO-3 would
/// take 36.2 s, still below PTD-P's 38.6 s: the comparison rests on the compute each layout
/// runs (PTD-P's TP collectives and bubble, ZeRO-3's none), and on Zhao et al.'s measurement
/// up to 512 GPUs.
#[test]
fn fsdp_paper_at_512_a100_supports_zero3_beating_ptdp() {
    let tflops = |n: u64, mbs: u64| {
        let s = fsdp_paper(n, mbs);
        paper_tflops(&estimate(&s).unwrap(), &s)
    };
    for n in [128, 192, 256, 384, 512] {
        for (mbs, paper) in [(1, 173.0), (2, 186.0)] {
            let t = tflops(n, mbs);
            // Within 5 % (the paper's "more than" 173 / 186 are lower bounds).
            assert!(
                (t / paper - 1.0).abs() < 0.05,
                "{n} GPUs, batch {mbs}: {t:.1}"
            );
        }
    }
    // Linear scaling from 128 to 512 GPUs: the per-GPU rate within 1 %.
    for mbs in [1, 2] {
        let (a, b) = (tflops(128, mbs), tflops(512, mbs));
        assert!(b < a && b > 0.99 * a, "batch {mbs}: {a:.1} → {b:.1}");
    }
    // The default stack at 768 GPUs (global batch 1536: 2 sequences per GPU).
    let s = gpt3(768, "megatron", 1, 1, 1, 3, 2);
    let z = estimate(&s).unwrap();
    let p = estimate(&gpt3(768, "megatron", 8, 12, 1, 1, 1)).unwrap();
    // 30.2 s against 38.6 s (within 2 %: other mechanisms may move both).
    assert!(
        (z.time.step_s / 30.2 - 1.0).abs() < 0.02 && (p.time.step_s / 38.6 - 1.0).abs() < 0.02,
        "{} vs {}",
        z.time.step_s,
        p.time.step_s
    );
    assert!(z.time.step_s < p.time.step_s);
    // The FSDP collectives run across nodes with 8 of the group's GPUs on each: NCCL's 16 CTAs
    // of the A100's 108 SMs (`contention::NET_RING_CTAS`) while they hide, named apart as overlap
    // contention: u/(1 − u) of what stays hidden.
    let u = 16.0 / 108.0;
    let (oc, hidden) = (z.time.overlap_contention_s.dp, z.time.hidden_comm_s.dp);
    assert!(
        (oc / (u / (1.0 - u) * hidden) - 1.0).abs() < 1e-9,
        "{oc} vs {hidden}"
    );
    // Every FSDP collective exposed would still leave ZeRO-3 ahead at 768 GPUs.
    assert!(
        z.time.step_s + z.time.hidden_comm_s.dp < p.time.step_s,
        "{} + {} vs {}",
        z.time.step_s,
        z.time.hidden_comm_s.dp,
        p.time.step_s
    );
    // At 1536 GPUs (batch 1 per GPU): 15.7 s against 20.5 s.
    let (z2, p2) = (
        estimate(&gpt3(1536, "megatron", 1, 1, 1, 3, 1)).unwrap(),
        estimate(&gpt3(1536, "megatron", 8, 12, 1, 1, 1)).unwrap(),
    );
    assert!(
        (z2.time.step_s / 15.74 - 1.0).abs() < 0.02 && (p2.time.step_s / 20.53 - 1.0).abs() < 0.02,
        "{} vs {}",
        z2.time.step_s,
        p2.time.step_s
    );
    let t = paper_tflops(&z, &s);
    assert!((t / 186.0 - 1.0).abs() < 0.06, "{t:.1}");
    let ratio = p.time.step_s / z.time.step_s;
    assert!((ratio / (186.0 / 149.0) - 1.0).abs() < 0.05, "{ratio:.3}");
}
