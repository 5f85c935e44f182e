//! Robustness (issue 8): no input crashes the parser, the validator, the link decoder or the
//! engine, and no output is NaN or infinite — including the extremes the issue lists (1 to 10⁶
//! GPUs, models to 10 T parameters, sequences to 10 M tokens, batches to 10⁷, links from 1 GB/s
//! to 10 TB/s).
//!
//! The property tests run a few hundred cases each in `cargo test`. The long campaign is the
//! ignored test `fuzz_campaign`:
//!
//! ```text
//! FUZZ_CASES=1000000 cargo test --release --test robustness -- --ignored --nocapture fuzz_campaign
//! ```
#![cfg(not(target_arch = "wasm32"))]

mod common;

use paracalc::engine;
use paracalc::presets::MODEL_PRESETS;
use paracalc::scenario::{
    self, gpu_preset, FfnAct, GpuChoice, Moe, OptimizerStates, Precision, Recompute, Scenario,
    GPU_PRESETS,
};
use paracalc::share;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

// ------------------------------------------------------------------------------------------------
// Checks shared by the property tests and the campaign
// ------------------------------------------------------------------------------------------------

/// Every number in `v` is finite and nothing is null (serde_json writes NaN and ±inf as null;
/// the Estimate has no optional fields).
fn all_finite(v: &Value, path: &str) -> Result<(), String> {
    match v {
        Value::Null => Err(format!("{path} is null (NaN or infinite)")),
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() => Ok(()),
            _ => Err(format!("{path} = {n} is not finite")),
        },
        Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| all_finite(x, &format!("{path}[{i}]"))),
        Value::Object(m) => m
            .iter()
            .try_for_each(|(k, x)| all_finite(x, &format!("{path}.{k}"))),
        Value::Bool(_) | Value::String(_) => Ok(()),
    }
}

/// The engine on `s`: valid scenarios give an estimate with finite numbers only; invalid ones
/// give an error whose issues each name a field.
fn check_estimate(s: &Scenario) -> Result<(), TestCaseError> {
    let valid = s.validate();
    match engine::estimate(s) {
        Ok(est) => {
            prop_assert!(
                valid.is_ok(),
                "estimate accepted an invalid scenario: {valid:?}"
            );
            let v = serde_json::to_value(&est).map_err(|e| TestCaseError::fail(e.to_string()))?;
            if let Err(e) = all_finite(&v, "estimate") {
                return Err(TestCaseError::fail(format!("{e}\n{}", s.to_json_pretty())));
            }
            // With a memory model in place, one stage per pipeline rank.
            if !est.memory.stages().is_empty() {
                prop_assert_eq!(est.memory.stages().len() as u64, s.parallel.pp);
            }
        }
        Err(e) => {
            prop_assert!(valid.is_err(), "valid scenario rejected by estimate: {e}");
            check_issues(&e)?;
        }
    }
    Ok(())
}

fn check_issues(e: &scenario::ScenarioError) -> Result<(), TestCaseError> {
    prop_assert!(!e.issues.is_empty());
    for i in &e.issues {
        prop_assert!(!i.field.is_empty() && !i.message.is_empty(), "{i:?}");
        prop_assert!(i.message.len() < 4000, "{} bytes", i.message.len());
    }
    Ok(())
}

/// The parser on arbitrary text: never panics; errors name a field.
fn check_parse(text: &str) -> Result<(), TestCaseError> {
    match scenario::parse(text) {
        Ok(s) => {
            if let Err(e) = s.validate() {
                check_issues(&e)?;
            }
            check_estimate(&s)?;
        }
        Err(e) => check_issues(&e)?,
    }
    Ok(())
}

/// The link decoder on arbitrary text: never panics, bounded printable notices.
fn check_decode(text: &str) -> Result<(), TestCaseError> {
    match share::decode(text) {
        Err(share::ShareError::TooLong { bytes }) => prop_assert!(bytes > share::MAX_LINK_BYTES),
        Ok(d) => {
            prop_assert!(d.notices.len() <= share::MAX_NOTICES);
            for n in &d.notices {
                prop_assert!(!n.key.chars().chain(n.message.chars()).any(char::is_control));
            }
            check_estimate(&d.scenario)?;
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Generators
// ------------------------------------------------------------------------------------------------

/// Log-uniform whole numbers in `1..=max`.
fn log_u(max: u64) -> BoxedStrategy<u64> {
    (0.0f64..=(max as f64).ln())
        .prop_map(move |x| (x.exp().round() as u64).clamp(1, max))
        .boxed()
}

/// Log-uniform bandwidth in GB/s from 1 GB/s to 10 TB/s.
fn gbps() -> BoxedStrategy<f64> {
    prop_oneof![
        Just(1.0),
        Just(10_000.0),
        (0.0f64..=10_000f64.ln()).prop_map(f64::exp)
    ]
    .boxed()
}

/// Valid scenarios spanning the issue's extremes.
fn arb_extreme() -> BoxedStrategy<Scenario> {
    let base = (
        // layout: tp = 2^a, cp = 2^c, pp, dp, vp
        (0u32..=6, 0u32..=4, log_u(256), log_u(1_000_000), 1u64..=4),
        // model: heads per tp, head dim, GQA, layers per chunk, vocab, moe
        (
            1u64..=16,
            prop::sample::select(vec![64u64, 80, 128, 256]),
            any::<bool>(),
            log_u(16),
            log_u(1_000_000),
            prop_oneof![
                Just(None),
                (
                    prop::sample::select(vec![8u64, 16, 64, 256]),
                    1u64..=2,
                    log_u(100_000)
                )
                    .prop_map(Some)
            ],
        ),
        // batch and sequence
        (log_u(10_000_000), log_u(64), log_u(10_000_000)),
        (
            0..GPU_PRESETS.len(),
            prop::sample::select(Recompute::ALL.to_vec()),
            0u8..=3,
            any::<bool>(),
            any::<bool>(),
            gbps(),
            gbps(),
            log_u(1024),
        ),
    )
        .prop_map(|(lay, m, b, c)| {
            let (a, cexp, pp, dp, vp) = lay;
            let (hpt, hd, gqa, lpc, vocab, moe) = m;
            let (seq_per_cp, mbs, micro_batches) = b;
            let (gpu, recompute, zero, sp, flash, intra, inter, gpn) = c;
            let tp = 1u64 << a;
            let cp = 1u64 << cexp;
            let pp = pp.min((1_000_000 / (tp * cp)).max(1));
            let dp = dp.min((1_000_000 / (tp * cp * pp)).max(1));
            let vp = if pp > 1 { vp } else { 1 };
            let heads = tp * hpt;
            let kv = if gqa { tp } else { heads };
            let seq = (cp * seq_per_cp).min(10_000_000 / cp * cp).max(cp);
            let gbs = dp * mbs * micro_batches.min((10_000_000 / (dp * mbs)).max(1));
            let mut s = MODEL_PRESETS[0].scenario();
            s.model.name = "extreme".into();
            s.model.layers = pp * vp * lpc;
            s.model.hidden = heads * hd;
            s.model.heads = heads;
            s.model.kv_heads = Some(kv);
            s.model.ffn_hidden = None;
            s.model.vocab = vocab;
            s.model.seq_len = seq;
            s.training.global_batch = gbs;
            s.training.micro_batch = mbs;
            s.training.recompute = recompute;
            s.training.flash_attention = flash;
            s.parallel.tp = tp;
            s.parallel.pp = pp;
            s.parallel.dp = dp;
            s.parallel.cp = cp;
            s.parallel.vp = vp;
            s.parallel.sp = sp && tp > 1;
            s.parallel.zero_stage = zero;
            if let Some((experts, top_k, effn)) = moe {
                s.model.moe = Some(Moe::new(experts, top_k, effn));
                // ep: the largest power of two dividing both dp and the expert count.
                let ep = 1u64 << dp.trailing_zeros().min(experts.trailing_zeros());
                s.parallel.ep = ep;
            }
            let g = &GPU_PRESETS[gpu];
            s.cluster.gpu = GpuChoice::Preset(g.id.to_string());
            s.training.precision = if g.spec.peak_tflops.bf16.is_some() {
                Precision::Bf16
            } else {
                Precision::Fp16
            };
            s.cluster.num_gpus = tp * pp * dp * cp;
            s.cluster.gpus_per_node = gpn;
            s.cluster.intra_node_gbps = Some(intra);
            s.cluster.inter_node_gbps = Some(inter);
            s.training.train_tokens = Some(1e13);
            s.cluster.price_per_gpu_hour = Some(2.0);
            s
        });
    // The stack's memory knobs where they are valid: FP8 where the GPU has an FP8 peak, FP8
    // primary weights and bf16 moments with the distributed optimizer, the routing-probability
    // weighting on MoE models, the FP8 SwiGLU input on SwiGLU models.
    let knobs = (
        any::<bool>(),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        any::<bool>(),
    );
    (base, knobs)
        .prop_map(|(mut s, (fp8, fp8w, mprob, actfp8, bf16m))| {
            let has_fp8 = match &s.cluster.gpu {
                GpuChoice::Preset(id) => GPU_PRESETS
                    .iter()
                    .any(|g| g.id == id && g.spec.peak_tflops.fp8.is_some()),
                _ => false,
            };
            if fp8 && has_fp8 {
                s.training.precision = Precision::Fp8;
            }
            let zero1 = s.parallel.zero_stage == 1;
            if s.training.precision == Precision::Fp8 && zero1 {
                s.training.fp8_params = fp8w;
            }
            if s.model.moe.is_some() {
                s.training.moe_probs_in_experts = mprob;
            }
            if s.model.ffn_act == FfnAct::Swiglu || actfp8 != Some(true) {
                s.training.swiglu_fp8_input = actfp8;
            }
            if bf16m && zero1 {
                s.training.optimizer_states = Some(OptimizerStates::Bf16);
            }
            s
        })
        .boxed()
}

/// Any u64, biased to edges.
fn wild_u() -> BoxedStrategy<u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(u64::MAX),
        Just(u64::MAX / 2 + 1),
        Just(1 << 32),
        1u64..=1024,
        any::<u64>()
    ]
    .boxed()
}

fn wild_f() -> BoxedStrategy<f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(-1.0),
        Just(f64::MIN_POSITIVE),
        Just(f64::MAX),
        Just(5e-324),
        0.0f64..1e7,
        any::<f64>()
    ]
    .boxed()
}

/// Scenarios with any values at all, as a buggy form or a hand-built struct could make them.
fn arb_wild() -> BoxedStrategy<Scenario> {
    (
        (
            wild_u(),
            wild_u(),
            wild_u(),
            prop::option::of(wild_u()),
            prop::option::of(wild_u()),
            wild_u(),
            wild_u(),
        ),
        (wild_u(), wild_u(), prop::option::of(wild_f()), any::<u8>()),
        (wild_u(), wild_u(), wild_u(), wild_u(), wild_u(), wild_u()),
        (
            prop::option::of(proptest::collection::vec(wild_u(), 0..8)),
            prop::option::of(wild_f()),
            wild_u(),
            wild_u(),
            prop::option::of(wild_f()),
            prop::option::of(wild_f()),
            prop::option::of(wild_f()),
        ),
        (
            prop::option::of((wild_u(), wild_u(), wild_u())),
            prop::option::of(wild_f()),
            prop::option::of(wild_f()),
        ),
    )
        .prop_map(|(m, t, p, c, x)| {
            let mut s = MODEL_PRESETS[0].scenario();
            (
                s.model.layers,
                s.model.hidden,
                s.model.heads,
                s.model.kv_heads,
                s.model.ffn_hidden,
                s.model.vocab,
                s.model.seq_len,
            ) = m;
            (
                s.training.global_batch,
                s.training.micro_batch,
                s.training.train_tokens,
                s.parallel.zero_stage,
            ) = t;
            (
                s.parallel.tp,
                s.parallel.pp,
                s.parallel.dp,
                s.parallel.cp,
                s.parallel.ep,
                s.parallel.vp,
            ) = p;
            let (lps, bucket, n, gpn, intra, inter, price) = c;
            s.parallel.layers_per_stage = lps;
            s.parallel.bucket_mb = bucket;
            s.cluster.num_gpus = n;
            s.cluster.gpus_per_node = gpn;
            s.cluster.intra_node_gbps = intra;
            s.cluster.inter_node_gbps = inter;
            s.cluster.price_per_gpu_hour = price;
            let (moe, ctx, reserve) = x;
            s.model.moe = moe.map(|(experts, top_k, expert_ffn_hidden)| {
                Moe::new(experts, top_k, expert_ffn_hidden)
            });
            s.overhead.cuda_context_gib = ctx;
            s.overhead.allocator_reserve_pct = reserve;
            s
        })
        .boxed()
}

/// A random JSON value (any shape, any numbers).
fn arb_json() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-z_0-9<>\" ]{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "bf16",
            "fp8",
            "swiglu",
            "selective",
            "1f1b",
            "interleaved",
            "h100-sxm5-80gb",
            "a100-sxm4-80gb"
        ])
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,14}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// A preset's scenario JSON with random fields replaced, added or removed.
fn arb_mutated_json() -> BoxedStrategy<String> {
    (
        0..MODEL_PRESETS.len(),
        proptest::collection::vec((0usize..64, 0u8..3, arb_json(), "[a-z_]{1,12}"), 1..6),
    )
        .prop_map(|(p, edits)| {
            let mut v = common::json_of(&MODEL_PRESETS[p].scenario());
            for (pick, op, val, key) in edits {
                let mut paths = Vec::new();
                object_paths(&v, &mut Vec::new(), &mut paths);
                let Some(path) = paths.get(pick % paths.len().max(1)).cloned() else {
                    continue;
                };
                if let Some(target) = at_path(&mut v, &path) {
                    match op {
                        0 => *target = val,
                        1 => {
                            if let Value::Object(m) = target {
                                m.insert(key, val);
                            }
                        }
                        _ => {
                            if let Value::Object(m) = target {
                                let first = m.keys().next().cloned();
                                if let Some(k) = first {
                                    m.remove(&k);
                                }
                            }
                        }
                    }
                }
            }
            v.to_string()
        })
        .boxed()
}

fn object_paths(v: &Value, cur: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(cur.clone());
    if let Value::Object(m) = v {
        for (k, x) in m {
            cur.push(k.clone());
            object_paths(x, cur, out);
            cur.pop();
        }
    }
}

fn at_path<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| v.get_mut(k.as_str()))
}

fn arb_link_text() -> BoxedStrategy<String> {
    let keys = common::link_keys(&[
        "v",
        "model",
        "a.model",
        "a.tp",
        "a.gpu.mem",
        "chart",
        "embed",
    ]);
    let value = prop_oneof![
        "[0-9]{0,22}",
        "-?[0-9]{1,3}(\\.[0-9]{0,3})?(e[+-]?[0-9]{1,3})?",
        "(%[0-9A-Fa-f]{2}){0,8}",
        prop::sample::select(vec![
            "NaN", "inf", "", "custom", "1,2,,3", "%", "<b>x</b>", "gelu", "fp8"
        ])
        .prop_map(String::from),
        prop::sample::select(common::model_preset_ids()),
        prop::sample::select(common::gpu_preset_ids()),
        any::<String>(),
    ];
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(any::<u8>(), 0..300)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        proptest::collection::vec((prop::sample::select(keys), value), 0..48).prop_map(|kv| {
            let parts: Vec<String> = kv.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("?{}", parts.join("&"))
        }),
    ]
    .boxed()
}

// ------------------------------------------------------------------------------------------------
// Property tests (cargo test)
// ------------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn parse_never_panics_on_text(text in prop_oneof![any::<String>(), "[{}\\[\\]\":,0-9a-z_ .eE+-]{0,200}"]) {
        check_parse(&text)?;
    }

    #[test]
    fn parse_never_panics_on_mutated_scenarios(text in arb_mutated_json()) {
        check_parse(&text)?;
    }

    #[test]
    fn from_value_never_panics_on_any_json(v in arb_json()) {
        match scenario::from_value(&v) {
            Ok(s) => check_estimate(&s)?,
            Err(e) => check_issues(&e)?,
        }
    }

    #[test]
    fn estimate_is_finite_at_the_extremes(s in arb_extreme()) {
        // The generator builds valid scenarios: the extremes must be accepted, not rejected.
        if let Err(e) = s.validate() {
            return Err(TestCaseError::fail(format!("{e}\n{}", s.to_json_pretty())));
        }
        check_estimate(&s)?;
    }

    #[test]
    fn wild_values_are_rejected_by_field(s in arb_wild()) {
        check_estimate(&s)?;
    }

    #[test]
    fn decode_never_panics(text in arb_link_text()) {
        check_decode(&text)?;
    }
}

/// The issue's extremes, one by one, are accepted (they describe plans people ask about).
#[test]
fn the_issue_extremes_validate() {
    let base = MODEL_PRESETS
        .iter()
        .find(|p| p.id == "llama3-8b")
        .unwrap()
        .scenario();
    let mut cases: Vec<(&str, Scenario)> = Vec::new();
    // 1 000 000 GPUs: tp 8 × pp 4 × dp 31 250; global batch 31 250 × 1 × 4.
    let mut s = base.clone();
    (s.parallel.tp, s.parallel.pp, s.parallel.dp, s.parallel.cp) = (8, 4, 31_250, 1);
    s.cluster.num_gpus = 1_000_000;
    s.training.global_batch = 125_000;
    cases.push(("1e6 GPUs", s));
    // One GPU.
    let mut s = base.clone();
    (s.parallel.dp, s.parallel.cp, s.cluster.num_gpus) = (1, 1, 1);
    cases.push(("1 GPU", s));
    // ~10 T parameters: 12·L·h² with L = 200, h = 65 536 → 12·200·65536² = 1.03e13.
    let mut s = base.clone();
    (
        s.model.layers,
        s.model.hidden,
        s.model.heads,
        s.model.kv_heads,
        s.model.ffn_hidden,
    ) = (200, 65_536, 512, Some(8), None);
    cases.push(("10T params", s));
    // 10 M-token sequences with cp 2 (base layout).
    let mut s = base.clone();
    s.model.seq_len = 10_000_000;
    cases.push(("seq 10M", s));
    // Batch 10⁷ sequences: dp 4 × mbs 1 × 2 500 000 micro-batches.
    let mut s = base.clone();
    s.training.global_batch = 10_000_000;
    cases.push(("batch 1e7", s));
    // 1 GB/s and 10 TB/s links.
    for bw in [1.0, 10_000.0] {
        let mut s = base.clone();
        s.cluster.intra_node_gbps = Some(bw);
        s.cluster.inter_node_gbps = Some(bw);
        cases.push((if bw == 1.0 { "1 GB/s" } else { "10 TB/s" }, s));
    }
    for (what, s) in &cases {
        s.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
        let est = engine::estimate(s).unwrap_or_else(|e| panic!("{what}: {e}"));
        all_finite(&serde_json::to_value(&est).unwrap(), "estimate")
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

/// Meaningless values are rejected with a message naming the field (several at once).
#[test]
fn meaningless_values_are_rejected_by_field() {
    let mut s = MODEL_PRESETS[0].scenario();
    s.model.hidden = u64::MAX;
    s.model.ffn_hidden = None; // default 4·hidden must not overflow
    s.parallel.tp = u64::MAX;
    s.parallel.pp = u64::MAX;
    s.cluster.num_gpus = 0;
    s.cluster.intra_node_gbps = Some(f64::NAN);
    s.training.train_tokens = Some(f64::INFINITY);
    s.overhead.allocator_reserve_pct = Some(-1.0);
    s.model.name = "a\u{1b}[2J".into();
    let e = s.validate().unwrap_err();
    let fields: Vec<&str> = e.issues.iter().map(|i| i.field.as_str()).collect();
    for f in [
        "model.name",
        "model.hidden",
        "model.ffn_hidden",
        "training.train_tokens",
        "parallel.tp",
        "parallel.pp",
        "cluster.num_gpus",
        "cluster.intra_node_gbps",
        "overhead.allocator_reserve_pct",
    ] {
        assert!(fields.contains(&f), "{f} not reported: {e}");
    }
    assert!(engine::estimate(&s).is_err());
}

// ------------------------------------------------------------------------------------------------
// The long campaign (run by hand; see the module docs)
// ------------------------------------------------------------------------------------------------

fn campaign<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    check: impl Fn(&S::Value) -> Result<(), TestCaseError>,
) -> u32 {
    let start = std::time::Instant::now();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..Config::default()
    });
    let result = runner.run(&strategy, |v| check(&v));
    let secs = start.elapsed().as_secs_f64();
    match result {
        Ok(()) => {
            println!("fuzz {name}: {cases} inputs, 0 failures, {secs:.1} s");
            cases
        }
        Err(e) => panic!("fuzz {name}: {e}"),
    }
}

#[test]
#[ignore = "long: FUZZ_CASES=1000000 cargo test --release --test robustness -- --ignored --nocapture"]
fn fuzz_campaign() {
    let n: u32 = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    // Panics inside a check are caught by the runner and reported as failures.
    let mut total = 0u64;
    total += u64::from(campaign("share::decode", n, arb_link_text(), |t| {
        check_decode(t)
    }));
    total += u64::from(campaign(
        "scenario::parse (mutated JSON)",
        n,
        arb_mutated_json(),
        |t| check_parse(t),
    ));
    total += u64::from(campaign(
        "scenario::parse (text)",
        n / 4,
        any::<String>(),
        |t| check_parse(t),
    ));
    total += u64::from(campaign(
        "engine::estimate (extremes)",
        n,
        arb_extreme(),
        |s| {
            s.validate()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check_estimate(s)
        },
    ));
    total += u64::from(campaign(
        "engine::estimate (wild values)",
        n / 4,
        arb_wild(),
        check_estimate,
    ));
    println!("fuzz total: {total} inputs, 0 panics");
}

#[test]
fn preset_lookups_are_case_insensitive_and_reject_odd_ids() {
    assert_eq!(
        gpu_preset("A100-SXM4-80GB").map(|g| g.id),
        Some("a100-sxm4-80gb")
    );
    assert_eq!(
        paracalc::presets::model_preset("LLAMA3-70B").map(|p| p.id),
        Some("llama3-70b")
    );
    for id in ["", "\u{0}", "💥", &"x".repeat(10_000), "llama3-70b "] {
        assert!(gpu_preset(id).is_none());
        assert!(paracalc::presets::model_preset(id).is_none());
    }
}
