//! The layout search and the sweeps: enumeration counted by hand, determinism, feasibility.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::engine::search::{search, SearchSpace, Searcher};
use paracalc::engine::sweep::{strategy_variants, sweep_bucket_size, sweep_gpus, Scaling};
use paracalc::scenario::{self, Recompute, Scenario};

fn tiny(global_batch: u64) -> Scenario {
    scenario::from_value(&serde_json::json!({
        "model": {"layers": 4, "hidden": 256, "heads": 4, "vocab": 1000, "seq_len": 128},
        "training": {"global_batch": global_batch, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
        "parallel": {"tp": 1, "pp": 1, "dp": 4},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 4}
    }))
    .unwrap()
}

fn small_space() -> SearchSpace {
    SearchSpace {
        max_micro_batch: 2,
        max_vp: 2,
        vary_cp: false,
        recompute: vec![Recompute::None],
        zero_stages: vec![0],
        schedules: vec![None],
        refine_splits: false,
        ..SearchSpace::default()
    }
}

/// 4 GPUs, 4 layers, 4 heads, global batch 6, micro-batch 1..=2, vp 1..=2, one recompute mode,
/// ZeRO 0 only, SP on/off when tp > 1. By hand:
/// - tp1 pp1 dp4: 6 % 4 ≠ 0 → 2 rejected (dp does not divide the batch).
/// - tp1 pp2 dp2 (vp 1, 2): 3 per replica → mb 1 only: 2 evaluated, 2 rejected (micro-batch).
/// - tp1 pp4 dp1: vp 1 → mb 1, 2: 2 evaluated; vp 2 → 8 chunks > 4 + 2: 2 rejected (layers).
/// - tp2 pp1 dp2: mb 1 × SP 2: 2 evaluated; mb 2 × SP 2: 2 rejected (micro-batch).
/// - tp2 pp2 dp1: vp 1, 2 × mb 2 × SP 2 = 8 evaluated.
/// - tp4 pp1 dp1: mb 2 × SP 2 = 4 evaluated.
///
/// Total 18 evaluated; rejected before evaluation: 2 + 4 + 2.
/// The same space with the schedules: with `pp > 1` each (layout, vp) runs three schedules —
/// vp 1: default, ZB-H1, DualPipe; vp 2: interleaved, ZB-V, DualPipeV — so the 2 + 2 + 8
/// pipelined candidates above become 6 + 6 + 24; with the 2 + 4 unpipelined ones, 42. The
/// rejections before evaluation stay as they were (counted once per layout). DualPipe needs
/// `m ≥ 2·pp` micro-batches: with global batch 6 every DualPipe candidate on pp 2 with dp 2
/// (m = 3) and on pp 4 (m ≤ 6 < 8) is rejected by the engine, naming training.global_batch.
///
/// That is on a stack that runs every schedule (JAX: no rule). Megatron-LM has no DualPipe
/// (`schedules.py`): its 2 + 2 + 8 DualPipe(V) candidates are left out before evaluation, 30.
#[test]
fn schedules_multiply_the_pipelined_layouts() {
    let space = SearchSpace {
        schedules: SearchSpace::default().schedules,
        ..small_space()
    };
    let mut any = tiny(6);
    any.training.framework = Some(paracalc::scenario::Framework::Jax);
    let megatron = search(&tiny(6), &space);
    assert_eq!(megatron.evaluated, 30);
    assert_eq!(
        megatron
            .rejected
            .get("megatron cannot run it: Megatron-LM has no DualPipe schedule"),
        Some(&12)
    );
    let r = search(&any, &space);
    assert_eq!(r.evaluated, 42);
    assert_eq!(
        r.rejected.get("layers do not split evenly over pp·vp"),
        Some(&2)
    );
    let dual = r.rejected.get("invalid training.global_batch").copied();
    assert!(dual.unwrap_or(0) >= 2 + 2, "{:?}", r.rejected);
    assert!(r
        .best
        .iter()
        .chain(&r.points)
        .any(|b| b.layout.schedule.is_some()));
}

#[test]
fn enumeration_counts_match_the_hand_count() {
    let r = search(&tiny(6), &small_space());
    assert_eq!(r.evaluated, 18);
    assert_eq!(
        r.rejected.get("dp does not divide the global batch"),
        Some(&2)
    );
    assert_eq!(
        r.rejected
            .get("micro-batch does not divide the batch per replica"),
        Some(&4)
    );
    assert_eq!(
        r.rejected.get("layers do not split evenly over pp·vp"),
        Some(&2)
    );
    let oom = r
        .rejected
        .get("does not fit in GPU memory")
        .copied()
        .unwrap_or(0);
    assert_eq!(r.feasible + oom, r.evaluated);
    assert!(!r.truncated);
}

#[test]
fn tp_must_divide_heads() {
    let mut s = tiny(8);
    s.cluster.num_gpus = 8;
    s.parallel.dp = 8;
    // tp 8 > 4 heads: every tp-8 candidate (pp 1, dp 1: mb 2 × SP 2) is rejected.
    let r = search(&s, &small_space());
    assert_eq!(
        r.rejected
            .get("tp does not divide the attention or KV heads"),
        Some(&4)
    );
}

#[test]
fn search_is_deterministic_and_sliced_equals_whole() {
    let s = tiny(8);
    let a = search(&s, &small_space());
    let b = search(&s, &small_space());
    assert_eq!(a, b);
    let mut sliced = Searcher::new(&s, &small_space());
    assert_eq!(sliced.total(), a.evaluated);
    let mut slices = 0;
    while !sliced.step(3) {
        slices += 1;
    }
    assert!(slices >= 5);
    assert_eq!(sliced.report(), a);
}

#[test]
fn best_layouts_fit_and_are_sorted() {
    let r = search(&tiny(8), &SearchSpace::default());
    assert!(r.evaluated > 0);
    for w in r.best.windows(2) {
        assert!(w[0].tokens_per_s >= w[1].tokens_per_s);
    }
    for b in &r.best {
        assert!(b.fits);
    }
    // Pareto front: memory ascending, throughput strictly rising.
    for w in r.pareto.windows(2) {
        assert!(w[0].peak_bytes <= w[1].peak_bytes);
        assert!(w[0].tokens_per_s < w[1].tokens_per_s);
    }
}

#[test]
fn gpu_sweep_keeps_the_layout_and_scales_the_batch() {
    let s = tiny(8);
    let strong = sweep_gpus(&s, &[1, 2, 4, 3], Scaling::Strong);
    assert_eq!(
        strong.iter().map(|p| p.dp).collect::<Vec<_>>(),
        vec![1, 2, 4, 3]
    );
    assert!(strong.iter().all(|p| p.global_batch == 8));
    // 8 sequences do not split over 3 replicas: that point carries the reason.
    assert!(
        strong[3]
            .error
            .as_deref()
            .unwrap_or("")
            .contains("global_batch"),
        "{:?}",
        strong[3].error
    );
    let weak = sweep_gpus(&s, &[4, 8, 16], Scaling::Weak);
    assert_eq!(
        weak.iter().map(|p| p.global_batch).collect::<Vec<_>>(),
        vec![8, 16, 32]
    );
    // 0 GPUs and a count the layout cannot use give reasons, not panics.
    let odd = sweep_gpus(&s, &[0], Scaling::Strong);
    assert!(odd[0].error.is_some());
}

#[test]
fn bucket_sweep_sets_each_size() {
    let pts = sweep_bucket_size(&tiny(8), &[1.0, 25.0, 1000.0]).unwrap();
    assert_eq!(
        pts.iter().map(|p| p.bucket_mb).collect::<Vec<_>>(),
        vec![1.0, 25.0, 1000.0]
    );
}

#[test]
fn strategy_variants_are_valid_layouts() {
    let s = scenario::from_value(&serde_json::json!({
        "model": {"layers": 96, "hidden": 12288, "heads": 96, "vocab": 51200, "seq_len": 2048},
        "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "recompute": "selective"},
        "parallel": {"tp": 8, "pp": 16, "dp": 8, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024}
    }))
    .unwrap();
    let v = strategy_variants(&s);
    let names: Vec<&str> = v.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, vec!["current", "DP + ZeRO-3", "TP + DP", "PP + DP"]);
    for (name, sc) in &v {
        let p = &sc.parallel;
        assert_eq!(p.tp * p.pp * p.dp * p.cp, 1024, "{name}");
        // The only acceptable problem: 1536 sequences do not split over 1024 DP-only replicas.
        if let Err(e) = sc.validate() {
            assert!(
                e.issues.iter().all(|i| i.field == "training.global_batch"),
                "{name}: {e}"
            );
        }
    }
}

#[test]
fn best_layout_sweep_picks_a_fitting_layout_per_point() {
    use paracalc::engine::sweep::sweep_gpus_best;
    let pts = sweep_gpus_best(&tiny(8), &[2, 4, 0], Scaling::Strong, &small_space());
    assert_eq!(pts.len(), 3);
    for p in &pts[..2] {
        assert!(p.error.is_none(), "{:?}", p.error);
        assert!(p.fits);
        assert_eq!(p.tp * p.pp * p.dp * p.cp, p.num_gpus);
    }
    // The first point is the reference of the efficiency.
    assert_eq!(pts[0].scaling_efficiency, 1.0);
    assert!(pts[2].error.is_some());
    // Weak scaling grows the batch with the GPU count: 8 sequences on 4 GPUs → 4 on 2.
    let weak = sweep_gpus_best(&tiny(8), &[2, 4], Scaling::Weak, &small_space());
    assert_eq!(
        weak.iter().map(|p| p.global_batch).collect::<Vec<_>>(),
        vec![4, 8]
    );
}

#[test]
fn value_sweeps_set_the_knob_and_report_bad_values() {
    use paracalc::engine::sweep::{sweep_values, Knob};
    let s = tiny(8);
    // 8 sequences over dp 4 = 2 per replica: micro-batch 1 and 2 work, 4 does not divide.
    let mb = sweep_values(&s, Knob::MicroBatch, &[1, 2, 4]);
    assert!(mb[0].error.is_none() && mb[1].error.is_none());
    assert!(mb[2]
        .error
        .as_deref()
        .unwrap_or("")
        .contains("global_batch"));
    // Doubling the sequence doubles the tokens per step, so memory grows.
    let seq = sweep_values(&s, Knob::SeqLen, &[128, 256]);
    assert!(seq[1].peak_bytes > seq[0].peak_bytes);
    assert_eq!(
        seq.iter().map(|p| p.value).collect::<Vec<_>>(),
        vec![128, 256]
    );
}

/// `paracalc search` explains its first choice: the winner's step-time breakdown next to plain
/// ZeRO-3 over all GPUs, each line's parts adding up to its step.
#[test]
fn search_explains_its_choice_with_the_breakdown() {
    let dir = std::env::temp_dir().join(format!("paracalc-search-why-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tiny.json");
    std::fs::write(&path, tiny(8).to_json_pretty()).unwrap();
    let args: Vec<String> = ["search", path.to_str().unwrap(), "--top", "2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = paracalc::cli::run(&args).unwrap();
    assert!(out.contains("why #1 (step-time breakdown, s)"), "{out}");
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.starts_with("  #1: step") || l.starts_with("  ZeRO-3, no model parallelism: step")
        })
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    for l in lines {
        // "step S = compute a + recompute b + bubble c + optimizer d + exposed comm e (...)"
        let nums: Vec<f64> = l
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter_map(|w| w.parse().ok())
            .collect();
        let (step, parts) = (nums[1], nums[2] + nums[3] + nums[4] + nums[5] + nums[6]);
        assert!((step - parts).abs() <= 0.003, "{l}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn layouts_the_framework_cannot_run_are_left_out_with_the_reason() {
    use paracalc::engine::support::unsupported;
    use paracalc::scenario::Framework;
    let megatron = search(&tiny(8), &SearchSpace::default());
    let key = "megatron cannot run it: ZeRO-2 has no Megatron-LM launch argument";
    assert!(
        megatron.rejected.get(key).copied().unwrap_or(0) > 0,
        "{:?}",
        megatron.rejected
    );
    assert!(megatron
        .points
        .iter()
        .chain(&megatron.best)
        .all(|r| r.layout.zero_stage != 2));
    let mut ds = tiny(8);
    ds.training.framework = Some(Framework::Deepspeed);
    let deepspeed = search(&ds, &SearchSpace::default());
    for r in deepspeed.points.iter().chain(&deepspeed.best) {
        assert!(unsupported(Framework::Deepspeed, &r.layout).is_none());
        assert!(r.layout.vp == 1 && r.layout.cp == 1);
        assert!(!(r.layout.pp > 1 && r.layout.zero_stage >= 2));
    }
    assert!(
        deepspeed.best.iter().any(|r| r.layout.zero_stage == 2),
        "ZeRO-2 stays for DeepSpeed"
    );
    // JAX: no rule, so nothing is rejected for the stack.
    let mut jax = tiny(8);
    jax.training.framework = Some(Framework::Jax);
    let j = search(&jax, &SearchSpace::default());
    assert!(j.rejected.keys().all(|k| !k.contains("cannot run it")));
    // What Megatron-LM leaves out (ZeRO-2, DualPipe) JAX evaluates, where valid.
    let stack: u64 = megatron
        .rejected
        .iter()
        .filter(|(k, _)| k.starts_with("megatron cannot run it"))
        .map(|(_, n)| n)
        .sum();
    assert!(j.evaluated > megatron.evaluated && j.evaluated <= megatron.evaluated + stack);
    assert!(megatron
        .points
        .iter()
        .chain(&megatron.best)
        .all(|r| !matches!(
            r.layout.schedule,
            Some(paracalc::scenario::Schedule::DualPipe | paracalc::scenario::Schedule::DualPipeV)
        )));
    // DeepSpeed's pipeline engine runs 1F1B only.
    assert!(deepspeed
        .points
        .iter()
        .chain(&deepspeed.best)
        .all(|r| r.layout.pp == 1 || r.layout.schedule.is_none()));
}

#[test]
fn tensor_parallelism_stays_inside_a_server() {
    // GPT-3 175B on 1536 A100s (8 per server, NVLink domain 8): no layout with tp > 8 is
    // evaluated (Narayanan et al. 2021 takeaway #1); they are counted under their reason.
    let mut s = scenario::from_value(&serde_json::json!({
        "model": {"layers": 96, "hidden": 12288, "heads": 96, "vocab": 51200, "seq_len": 2048},
        "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16",
                     "recompute": "selective"},
        "parallel": {"tp": 8, "pp": 16, "dp": 12, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1536}
    }))
    .unwrap();
    let space = SearchSpace {
        vary_cp: false,
        schedules: vec![None],
        refine_splits: false,
        ..SearchSpace::default()
    };
    let r = search(&s, &space);
    assert!(r
        .best
        .iter()
        .chain(r.pareto.iter())
        .all(|c| c.layout.tp <= 8));
    let crossing = r.rejected["tp spans more than one server or NVLink domain"];
    assert!(crossing > 0);
    // On a GB200 NVL72 rack (domain 72, 4 GPUs per tray) tp 16 is inside the domain.
    s.cluster.gpu = scenario::GpuChoice::Preset("gb200".into());
    s.cluster.gpus_per_node = 4;
    let r = search(&s, &space);
    assert!(r.rejected["tp spans more than one server or NVLink domain"] < crossing);
}
