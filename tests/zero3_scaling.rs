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
    // 175B parameters — (n−1)/n·3·2·Ψ, the same at every scale (within 0.3 %).
    let psi = 174.6e9;
    for e in [&a, &b, &c] {
        let want = 3.0 * 2.0 * psi;
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

/// The seed finding of issue 11 (Narayanan et al. 2021 §5.2, Table 2: ZeRO-3 144 → 88 → 44
/// TFLOP/s per GPU on 384 → 768 → 1536 GPUs, PTD-P 153 → 149 → 141). NOT reproduced: with
/// NCCL's own latency model (ring all-gather ≈ 3.3-7.3 ms per call at 1536 ranks), DeepSpeed's
/// per-tensor gathers and depth-1 prefetch, ZeRO-3's 10.9 s of collectives per step at 1536
/// GPUs still hide under 14.5 s of compute, so ZeRO-3 is predicted at 15.3 s per step, faster
/// than PTD-P. The paper's ≈ 65 s per step means ≈ 16 GB/s of collective bandwidth per GPU, a
/// fifth of what nccl-tests give these nodes; no cited constant found explains it.
#[test]
#[ignore = "seed finding not reproduced by the cited mechanisms (see the doc comment)"]
fn ptdp_beats_zero3_at_every_scale() {
    let ptdp = |n: u64| estimate(&gpt3(n, "megatron", 8, 12, 1, 1, 1)).unwrap();
    for n in [384, 768, 1536] {
        assert!(
            ptdp(n).time.step_s < zero3(n, "deepspeed").time.step_s,
            "{n}"
        );
    }
    let (z768, z1536) = (zero3(768, "deepspeed"), zero3(1536, "deepspeed"));
    assert!(z1536.time.step_s > 0.75 * z768.time.step_s);
    assert!(ptdp(1536).throughput.tokens_per_s >= 2.0 * z1536.throughput.tokens_per_s);
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
    // DeepSpeed with FSDP1-style block gathers prices exactly as the pytorch stack's ZeRO-3.
    let mut s = gpt3(1536, "deepspeed", 1, 1, 1, 3, 1);
    s.parallel.fsdp_style = Some(FsdpStyle::PerBlock);
    let e = estimate(&s).unwrap();
    assert_eq!(e.time.step_s, zero3(1536, "pytorch").time.step_s);
    // Megatron's interleaved schedule overlaps its pipeline sends unless switched off.
    let mut p = gpt3(1536, "megatron", 8, 12, 2, 1, 1);
    let on = estimate(&p).unwrap();
    p.parallel.pp_comm_overlap = Some(false);
    let off = estimate(&p).unwrap();
    assert!(off.time.exposed_comm_s.pp > 10.0 * on.time.exposed_comm_s.pp);
}
