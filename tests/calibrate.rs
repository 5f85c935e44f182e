//! Calibration: the fit reproduces the measured run (a round trip per framework), keeps its
//! factors in bounds, refuses implausible measurements naming the input, and every estimate of a
//! calibrated scenario applies it (`paracalc::calibrate`, `scenario::Calibration`).
#![cfg(not(target_arch = "wasm32"))]

use paracalc::calibrate::transfer::{mape, transfers, Run};
use paracalc::calibrate::{fit, FitError, Measurement, MemoryKind};
use paracalc::engine::estimate;
use paracalc::presets::model_preset;
use paracalc::scenario::{self, Calibration, Framework, Scenario};
use serde_json::Value;

const PUBLIC: &str = include_str!("data/public.json");
const GIB: f64 = 1_073_741_824.0;

fn public() -> Vec<Value> {
    serde_json::from_str(PUBLIC).unwrap()
}

/// `(id, scenario, measured step)` of every timed public case.
fn timed() -> Vec<(String, Scenario, f64)> {
    public()
        .iter()
        .filter_map(|c| {
            let t = c.pointer("/measured/iteration_time_s")?.as_f64()?;
            let s = scenario::from_value(&c["scenario"]).ok()?;
            Some((c["id"].as_str()?.to_string(), s, t))
        })
        .collect()
}

fn step(s: &Scenario) -> f64 {
    estimate(s).unwrap().time.step_s
}

fn in_bounds(k: &Calibration) {
    let c = k.compute();
    let a = k.attention();
    let n = k.network();
    assert!(
        (Calibration::COMPUTE_MIN..=Calibration::COMPUTE_MAX).contains(&c),
        "compute {c}"
    );
    assert!(
        (Calibration::ATTENTION_MIN..=Calibration::ATTENTION_MAX).contains(&a),
        "attention {a}"
    );
    assert!(
        (Calibration::NETWORK_MIN..=Calibration::NETWORK_MAX).contains(&n),
        "network {n}"
    );
}

#[test]
fn round_trip_reproduces_the_measured_step_for_every_framework() {
    let cases = timed();
    for &fw in Framework::ALL {
        // A published run of this framework; JAX has none in the public data, so a Llama 3 8B
        // plan run by JAX with a step 15 % slower than predicted stands in.
        let (id, s, measured) = cases
            .iter()
            .find(|(_, s, t)| {
                s.training.framework() == fw && fit(s, &Measurement::step(*t)).is_ok()
            })
            .cloned()
            .unwrap_or_else(|| {
                let mut s = model_preset("llama3-8b").unwrap().scenario();
                s.training.framework = Some(fw);
                let t = 1.15 * step(&s);
                (format!("llama3-8b/{}", fw.as_str()), s, t)
            });
        let f = fit(&s, &Measurement::step(measured)).unwrap_or_else(|e| panic!("{id}: {e}"));
        in_bounds(&f.calibration);
        let mut c = s.clone();
        c.calibration = f.calibration;
        let got = step(&c);
        assert!(
            (got / measured - 1.0).abs() < 0.005,
            "{id} ({}): calibrated {got} s vs measured {measured} s",
            fw.as_str()
        );
        assert!((f.step_after_s / got - 1.0).abs() < 1e-4, "{id}");
        // The calibration survives the scenario JSON.
        let back = scenario::parse(&c.to_json_pretty()).unwrap();
        assert_eq!(back.calibration, c.calibration, "{id}");
    }
}

#[test]
fn every_fittable_public_case_round_trips_within_half_a_percent() {
    let (mut ok, mut refused) = (0, 0);
    for (id, s, t) in timed() {
        match fit(&s, &Measurement::step(t)) {
            Ok(f) => {
                in_bounds(&f.calibration);
                let mut c = s.clone();
                c.calibration = f.calibration;
                let got = step(&c);
                assert!((got / t - 1.0).abs() < 0.005, "{id}: {got} vs {t}");
                ok += 1;
            }
            Err(FitError::Implausible { input, .. }) => {
                // Only cases the model misses by more than the factors' bounds can be refused.
                assert_eq!(input, "step_s", "{id}");
                let err = step(&s) / t - 1.0;
                assert!(
                    err.abs() > 0.25,
                    "{id}: refused although the model is {err:+.3} off"
                );
                refused += 1;
            }
            Err(e) => panic!("{id}: {e}"),
        }
    }
    assert!(ok >= 200, "{ok} fitted, {refused} refused");
}

#[test]
fn a_step_faster_than_the_hardware_is_refused_naming_the_input() {
    let s = model_preset("llama3-70b").unwrap().scenario();
    let t = step(&s);
    let e = fit(&s, &Measurement::step(0.3 * t)).unwrap_err();
    match e {
        FitError::Implausible { input, message } => {
            assert_eq!(input, "step_s");
            assert!(
                message.contains("faster than this hardware allows"),
                "{message}"
            );
        }
        other => panic!("{other}"),
    }
    // Far too slow, and not a number.
    for bad in [50.0 * t, 0.0, -1.0, f64::NAN] {
        assert!(
            matches!(
                fit(&s, &Measurement::step(bad)),
                Err(FitError::Implausible {
                    input: "step_s",
                    ..
                })
            ),
            "{bad}"
        );
    }
}

#[test]
fn memory_offset_reproduces_the_measured_peak_and_refuses_more_than_the_gpu() {
    let s = model_preset("llama3-8b").unwrap().scenario();
    let e = estimate(&s).unwrap();
    let before = e.memory.peak_bytes / GIB;
    let measured = before + 2.5;
    let m = Measurement {
        step_s: e.time.step_s,
        memory_gib: Some(measured),
        memory_kind: MemoryKind::DeviceUsed,
    };
    let f = fit(&s, &m).unwrap();
    assert!((f.calibration.memory_gib() - 2.5).abs() < 1e-5);
    // Measured == predicted step: both factors stay at 1.
    assert!((f.calibration.compute() - 1.0).abs() < 1e-4);
    assert!((f.calibration.network() - 1.0).abs() < 1e-4);
    let mut c = s.clone();
    c.calibration = f.calibration;
    let e2 = estimate(&c).unwrap();
    assert!((e2.memory.peak_bytes / GIB - measured).abs() < 1e-4);
    // Every stage moved by the offset; the parts still add up.
    for st in &e2.memory.stages() {
        let parts = st.weights_bytes
            + st.gradients_bytes
            + st.optimizer_bytes
            + st.activations_bytes
            + st.other_bytes;
        assert!((parts - st.total_bytes).abs() < 1.0);
    }
    let cap = e.memory.capacity_bytes / GIB;
    let over = fit(
        &s,
        &Measurement {
            memory_gib: Some(cap + 1.0),
            ..m
        },
    )
    .unwrap_err();
    match over {
        FitError::Implausible { input, message } => {
            assert_eq!(input, "memory_gib");
            assert!(message.contains("more than the GPU has"), "{message}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn the_split_follows_each_part_of_the_step() {
    // A single GPU has no communication: the network factor cannot be separated and stays 1.
    let s = one_gpu_llama();
    let t = step(&s);
    let f = fit(&s, &Measurement::step(1.2 * t)).unwrap();
    assert!(!f.network_separable);
    assert_eq!(f.calibration.network, None);
    assert!(f.network_share < 0.02);
    // Compute time scales with 1/c: 1.2× slower ⇒ c ≈ 1/1.2 over the compute share.
    assert!(f.calibration.compute() < 0.86 && f.calibration.compute() > 0.8);

    // Communication-heavy plan (TP across nodes on a slow fabric): the network moves more.
    let mut s = model_preset("llama3-70b").unwrap().scenario();
    s.cluster.inter_node_gbps = Some(3.0);
    s.cluster.gpus_per_node = 4;
    let t = step(&s);
    let f = fit(&s, &Measurement::step(1.2 * t)).unwrap();
    assert!(f.network_separable, "network share {}", f.network_share);
    assert!(
        f.calibration.network().ln().abs() > f.calibration.compute().ln().abs(),
        "{:?}",
        f.calibration
    );
}

/// Llama 3 8B on one H100 (4 layers, 8k tokens, 8 sequences): no communication, a tenth of
/// the step in fused attention.
fn one_gpu_llama() -> Scenario {
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    s.parallel.tp = 1;
    s.parallel.pp = 1;
    s.parallel.dp = 1;
    s.parallel.cp = 1;
    s.parallel.sp = false;
    s.parallel.zero_stage = 0;
    s.cluster.num_gpus = 1;
    s.training.global_batch = 8;
    s.training.micro_batch = 1;
    s.model.layers = 4;
    s
}

#[test]
fn attention_and_compute_move_in_proportion_to_share_times_prior() {
    // The minimal-norm split (`calibrate` module docs): ln a / ln c = (s_a·σ_a²)/(s_c·σ_c²)
    // exactly (one λ), and to first order s_c·ln c + s_a·ln a = −ln(M/T). On this plan the fit
    // measures s_c ≈ 0.891, s_a ≈ 0.105 (8k tokens), so with σ_c = 0.1, σ_a = 0.3:
    // ratio = 0.105·0.09/(0.891·0.01) ≈ 1.057, and for M = 1.1·T the linearised
    // λ = ln 1.1/(s_c²σ_c² + s_a²σ_a²) = 0.09531/(0.007931 + 0.000985) ≈ 10.69, so
    // ln c ≈ −10.69·0.891·0.01 = −0.0952 (c ≈ 0.909), ln a ≈ −10.69·0.105·0.09 = −0.1006
    // (a ≈ 0.904): attention, a tenth of the step, moves as much as the rest because its
    // prior is three times wider.
    let s = one_gpu_llama();
    let t = step(&s);
    let f = fit(&s, &Measurement::step(1.1 * t)).unwrap();
    assert!(f.attention_separable && !f.network_separable);
    assert!((0.85..0.93).contains(&f.compute_share), "{f:?}");
    assert!((0.08..0.13).contains(&f.attention_share), "{f:?}");
    let (c, a) = (f.calibration.compute(), f.calibration.attention());
    assert_eq!(
        f.calibration.attention,
        Some(a),
        "a fit writes the factor it moved"
    );
    let want = (f.attention_share * 0.3 * 0.3) / (f.compute_share * 0.1 * 0.1);
    assert!(
        ((a.ln() / c.ln()) / want - 1.0).abs() < 1e-4,
        "{a} {c} {want}"
    );
    // The linearised solution, from the fit's own shares.
    let lambda = 1.1f64.ln() / (f.compute_share.powi(2) * 0.01 + f.attention_share.powi(2) * 0.09);
    let (lc, la) = (
        -lambda * f.compute_share * 0.01,
        -lambda * f.attention_share * 0.09,
    );
    assert!((c.ln() / lc - 1.0).abs() < 0.02, "c {c} vs {}", lc.exp());
    assert!((a.ln() / la - 1.0).abs() < 0.02, "a {a} vs {}", la.exp());
    assert!(
        (c - 0.909).abs() < 0.01 && (a - 0.904).abs() < 0.01,
        "{c} {a}"
    );
    // Round trip.
    let mut k = s.clone();
    k.calibration = f.calibration;
    assert!((step(&k) / (1.1 * t) - 1.0).abs() < 1e-4);
    assert!(
        f.explain().contains("with fused attention"),
        "{}",
        f.explain()
    );
}

#[test]
fn an_attention_factor_at_its_bound_leaves_the_rest_to_compute() {
    // One layer at 64k tokens: fused attention is ≈ 28 % of the step, compute ≈ 72 %, so
    // ln a = 3.5·ln c. A measurement 30 % faster would need a ≈ 2.4 (beyond 2.0, the spread
    // of published kernels at one shape): a stops at 2.0 and c takes the rest (≈ 1.29).
    let mut s = one_gpu_llama();
    s.model.seq_len = 65_536;
    s.model.layers = 1;
    s.training.global_batch = 1;
    let t = step(&s);
    let f = fit(&s, &Measurement::step(0.7 * t)).unwrap();
    assert_eq!(f.calibration.attention, Some(Calibration::ATTENTION_MAX));
    assert!(
        f.calibration.compute() > 1.2 && f.calibration.compute() < Calibration::COMPUTE_MAX,
        "{:?}",
        f.calibration
    );
    let mut k = s.clone();
    k.calibration = f.calibration;
    assert!((step(&k) / (0.7 * t) - 1.0).abs() < 1e-4);
    // Both at their upper bounds and still slower than measured: refused, naming the input.
    assert!(matches!(
        fit(&s, &Measurement::step(0.5 * t)),
        Err(FitError::Implausible {
            input: "step_s",
            ..
        })
    ));
}

#[test]
fn a_plan_without_fused_attention_leaves_the_attention_factor_unset() {
    // Flash attention off: the attention core is batched GEMMs and an HBM-bound softmax, which
    // the compute factor scales; nothing separates an attention factor.
    let mut s = one_gpu_llama();
    s.training.flash_attention = false;
    let t = step(&s);
    let f = fit(&s, &Measurement::step(1.1 * t)).unwrap();
    assert!(!f.attention_separable);
    assert_eq!(f.attention_share, 0.0);
    assert_eq!(f.calibration.attention, None);
    // The whole step scales with compute: c = 1/1.1 to first order (the fixed kernel
    // latencies do not scale, so a little lower).
    let c = f.calibration.compute();
    assert!(c < 1.0 / 1.1 + 1e-3 && c > 0.88, "{c}");
    assert!(
        f.explain().contains("follows the compute factor"),
        "{}",
        f.explain()
    );
    let mut k = s.clone();
    k.calibration = f.calibration;
    assert!((step(&k) / (1.1 * t) - 1.0).abs() < 1e-4);
}

#[test]
fn a_calibration_without_attention_predicts_as_before() {
    // Attention follows the compute factor when it is absent: exactly the rates a calibration
    // written before the attention factor existed scaled (bit for bit).
    for id in ["llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b"] {
        let Some(p) = model_preset(id) else { continue };
        let mut old = p.scenario();
        old.calibration.compute = Some(0.85);
        old.calibration.network = Some(0.7);
        let mut same = old.clone();
        same.calibration.attention = Some(0.85);
        let (a, b) = (estimate(&old).unwrap(), estimate(&same).unwrap());
        assert_eq!(a.time.step_s.to_bits(), b.time.step_s.to_bits(), "{id}");
        // Set apart from compute it acts when the plan runs fused attention.
        let mut fast = old.clone();
        fast.calibration.attention = Some(1.3);
        if old.training.flash_attention {
            assert!(step(&fast) < a.time.step_s, "{id}");
        } else {
            assert_eq!(step(&fast), a.time.step_s, "{id}");
        }
    }
}

#[test]
fn a_tensor_core_calibration_is_not_carried_to_fp32_gemms() {
    // BERT-large on one V100 (hf_docs_memory): fp16 on the tensor cores, fp32 on the CUDA cores.
    let runs = timed();
    let get = |id: &str| runs.iter().find(|r| r.0 == id).cloned().unwrap();
    let (_, fp16, t16) = get("hf-docs-bert-large-v100-fp16-bs4");
    let (_, fp32, _) = get("hf-docs-bert-large-v100-vanilla-fp32-bs4");
    let f = fit(&fp16, &Measurement::step(t16)).unwrap();
    assert_eq!(f.calibration.precision, Some(scenario::Precision::Fp16));
    assert!(f.calibration.compute() < 0.85, "{:?}", f.calibration);
    // On the fp32 plan the compute factor does not act: the uncalibrated step.
    let mut s = fp32.clone();
    s.calibration = f.calibration;
    assert_eq!(step(&s).to_bits(), step(&fp32).to_bits());
    // Nor does the calibrated band narrow (it did not measure this plan's kernels).
    assert!(!paracalc::evidence::interval::step_calibrated(&s));
    // Without the recorded precision (a calibration from before the field) it does.
    s.calibration.precision = None;
    assert!(step(&s) > 1.2 * step(&fp32));
    assert!(paracalc::evidence::interval::step_calibrated(&s));
    // To another tensor-core plan it is carried (the fp16 run with gradient checkpointing).
    let (_, mut other, _) = get("hf-docs-bert-large-v100-ga4-bs1-gradckpt-fp16");
    let before = step(&other);
    other.calibration = f.calibration;
    assert!(step(&other) > 1.1 * before);
    // The field survives JSON and the share link.
    let mut k = fp16.clone();
    k.calibration = f.calibration;
    let back = scenario::parse(&k.to_json_pretty()).unwrap();
    assert_eq!(back.calibration, k.calibration);
    let link = paracalc::share::encode(&k, "");
    assert!(link.contains("cal.prec=fp16"), "{link}");
    let d = paracalc::share::decode(&link).unwrap();
    assert_eq!(d.scenario.calibration, k.calibration);
}

#[test]
fn calibration_scales_time_but_not_the_mfu_denominator() {
    let s = model_preset("llama3-70b").unwrap().scenario();
    let e0 = estimate(&s).unwrap();
    let mut c = s.clone();
    c.calibration.compute = Some(0.8);
    c.calibration.network = Some(0.5);
    let e = estimate(&c).unwrap();
    assert!(e.time.step_s > e0.time.step_s);
    // MFU keeps the data-sheet peak: MFU × step is the same.
    let a = e.throughput.mfu * e.time.step_s;
    let b = e0.throughput.mfu * e0.time.step_s;
    assert!((a / b - 1.0).abs() < 1e-9, "{a} vs {b}");
    // Exposed communication alone does not get faster with a slower network.
    assert!(e.time.exposed_comm_s.total() >= e0.time.exposed_comm_s.total());
}

#[test]
fn out_of_range_factors_are_errors_naming_the_field() {
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    s.calibration = Calibration {
        compute: Some(2.0),
        attention: Some(2.5),
        network: Some(0.01),
        memory_gib: Some(f64::NAN),
        precision: None,
    };
    let err = s.validate().unwrap_err();
    let fields: Vec<&str> = err.issues.iter().map(|i| i.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "calibration.compute",
            "calibration.attention",
            "calibration.network",
            "calibration.memory_gib"
        ]
    );
    assert!(err.to_string().contains("must be between"), "{err}");
    // Unknown keys inside the section are errors too.
    let mut v: serde_json::Value = serde_json::from_str(
        &model_preset("llama3-8b")
            .unwrap()
            .scenario()
            .to_json_pretty(),
    )
    .unwrap();
    v["calibration"] = serde_json::json!({"speed": 2});
    let e = scenario::from_value(&v).unwrap_err();
    assert!(e.to_string().contains("speed"), "{e}");
}

#[test]
fn transfers_pair_every_run_with_every_other_of_its_group_on_the_same_gpu() {
    let cases = timed();
    let groups: Vec<String> = public()
        .iter()
        .filter(|c| {
            c.pointer("/measured/iteration_time_s")
                .and_then(Value::as_f64)
                .is_some()
        })
        .filter(|c| scenario::from_value(&c["scenario"]).is_ok())
        .map(|c| c["group"].as_str().unwrap_or("").to_string())
        .collect();
    let runs: Vec<Run<'_>> = cases
        .iter()
        .zip(&groups)
        .take(30)
        .map(|((_, s, t), g)| Run {
            group: g,
            scenario: s,
            step_s: *t,
        })
        .collect();
    let tr = transfers(&runs);
    let same = |a: &Run<'_>, b: &Run<'_>| {
        a.group == b.group && a.scenario.cluster.gpu_name() == b.scenario.cluster.gpu_name()
    };
    let want: usize = runs
        .iter()
        .map(|a| runs.iter().filter(|b| same(a, b)).count() - 1)
        .sum();
    assert_eq!(tr.len(), want);
    assert!(tr
        .iter()
        .all(|t| t.from != t.to && same(&runs[t.from], &runs[t.to])));
    // Calibrating a run on itself is exact, so pairs of identical plans are exact too; the mean
    // of real pairs is a positive finite number.
    let (m, n) = mape(&tr);
    assert!(n > 0 && m.is_finite() && m > 0.0);
}

/// A calibration describes one cluster: runs of one source on another GPU are not its pairs.
/// DGX Cloud's DeepSeek-V3 table has two H100 and three GB200 runs: 1·2 + 3·2 = 8 pairs, not 20.
#[test]
fn transfers_never_carry_a_calibration_to_another_gpu() {
    let cases = public();
    let scenarios: Vec<(Scenario, f64)> = cases
        .iter()
        .filter(|c| c["group"] == "moe_dgxc_deepseek_v3_2505")
        .filter_map(|c| {
            let t = c.pointer("/measured/iteration_time_s")?.as_f64()?;
            Some((scenario::from_value(&c["scenario"]).ok()?, t))
        })
        .collect();
    assert_eq!(scenarios.len(), 5);
    let runs: Vec<Run<'_>> = scenarios
        .iter()
        .map(|(s, t)| Run {
            group: "moe_dgxc_deepseek_v3_2505",
            scenario: s,
            step_s: *t,
        })
        .collect();
    let tr = transfers(&runs);
    assert_eq!(tr.len(), 8);
    assert!(tr
        .iter()
        .all(|t| runs[t.from].scenario.cluster.gpu == runs[t.to].scenario.cluster.gpu));
}

/// Where calibration misses its acceptance, the miss is the precision crossing
/// (src/calibrate/transfer.rs, "What it can do"): in moe_dgxc_grok1_2505 and
/// dgxc_maxtext_llama2_70b the pairs of one precision calibrate no worse than a pure scale
/// (0.96 against 0.97 %, 4.09 against 4.10 %); those crossing bf16 and FP8 do worse (2.77
/// against 2.73 %, 6.80 against 6.71 %).
#[test]
fn calibration_misses_the_scale_only_across_precisions() {
    let cases = public();
    for group in ["moe_dgxc_grok1_2505", "dgxc_maxtext_llama2_70b"] {
        let scenarios: Vec<(Scenario, f64)> = cases
            .iter()
            .filter(|c| c["group"] == group)
            .filter_map(|c| {
                let t = c.pointer("/measured/iteration_time_s")?.as_f64()?;
                Some((scenario::from_value(&c["scenario"]).ok()?, t))
            })
            .collect();
        let runs: Vec<Run<'_>> = scenarios
            .iter()
            .map(|(s, t)| Run {
                group,
                scenario: s,
                step_s: *t,
            })
            .collect();
        let ratio = |i: usize| step(runs[i].scenario) / runs[i].step_s;
        // (pairs, Σ|calibrated|, Σ|scale|) of one precision [0] and across precisions [1].
        let mut sums = [(0usize, 0.0, 0.0); 2];
        for t in transfers(&runs) {
            let cal = t.error_pct.unwrap_or_else(|e| panic!("{group}: {e}")).abs();
            let scale = 100.0 * (ratio(t.to) / ratio(t.from) - 1.0).abs();
            let p = |i: usize| runs[i].scenario.training.precision;
            let k = &mut sums[usize::from(p(t.from) != p(t.to))];
            *k = (k.0 + 1, k.1 + cal, k.2 + scale);
        }
        // One precision: no worse than the scale, within 0.05 points (other model changes move
        // both by hundredths); the crossing pairs are the group's whole gap.
        let [(n0, c0, s0), (n1, _, _)] = sums;
        assert!(n0 > 0 && n1 > 0, "{group}: {sums:?}");
        assert!((c0 - s0) / n0 as f64 <= 0.05, "{group}: {sums:?}");
    }
}

mod cli {
    use super::*;
    use std::process::{Command, Output};

    fn run(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_paracalc"))
            .args(args)
            .output()
            .expect("the binary runs")
    }

    fn scenario_file(test: &str, s: &Scenario) -> String {
        let d = std::env::temp_dir().join(format!("paracalc-cal-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("plan.json");
        std::fs::write(&p, s.to_json_pretty()).unwrap();
        p.to_string_lossy().into_owned()
    }

    #[test]
    fn calibrate_prints_the_scenario_that_reproduces_the_run() {
        let s = model_preset("llama3-70b").unwrap().scenario();
        let measured = 1.1 * step(&s);
        let path = scenario_file("ok", &s);
        let out = run(&[
            "calibrate",
            &path,
            "--step-s",
            &measured.to_string(),
            "--json",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let c = scenario::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
        assert!(!c.calibration.is_default());
        assert!((step(&c) / measured - 1.0).abs() < 0.005);
        // The readable form explains the split.
        let out = run(&["calibrate", &path, "--step-s", &measured.to_string()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("scales with the GPU kernels"), "{text}");
        assert!(text.contains("\"calibration\""), "{text}");
        // 10 % slower is within three bands of Llama 3 70B's similar runs; 60 % slower is not,
        // and the report says so against the uncalibrated plan.
        assert!(!text.contains("warning:"), "{text}");
        let slow = (1.6 * step(&s)).to_string();
        let out = run(&["calibrate", &path, "--step-s", &slow]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(
                "warning: The measured step is 60 % slower than predicted, more than 3 times the ±"
            ),
            "{text}"
        );
    }

    #[test]
    fn implausible_measurements_exit_2_naming_the_option() {
        let s = model_preset("llama3-70b").unwrap().scenario();
        let path = scenario_file("bad", &s);
        let fast = (0.2 * step(&s)).to_string();
        let same = step(&s).to_string();
        for (args, needle) in [
            (vec!["calibrate", &path, "--step-s", &fast], "--step-s"),
            (vec!["calibrate", &path, "--step-s", "abc"], "--step-s"),
            (vec!["calibrate", &path], "--step-s"),
            (
                vec!["calibrate", &path, "--step-s", &same, "--memory-gib", "500"],
                "--memory-gib",
            ),
        ] {
            let out = run(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(needle), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }

    #[test]
    fn validate_calibrate_reports_pairs_and_a_mape_per_group() {
        let out = run(&[
            "validate",
            "tests/data/public.json",
            "--json",
            "--calibrate",
        ]);
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let s = &v["summary"];
        let pairs = s["calibrated_pairs"].as_u64().unwrap();
        let mape = s["calibrated_time_mape_pct"].as_f64().unwrap();
        assert!(pairs > 5000, "{pairs}");
        assert!(mape > 0.0 && mape < 50.0, "{mape}");
        let g = &s["time_by_group"]["dgxc_llama31_h100"];
        assert!(g["calibrated_pairs"].as_u64().unwrap() > 100, "{g}");
        // The same targets without calibration, weighted like the pairs: in a group where every
        // pair fits, each of its n runs is the target of n − 1 pairs, so that mean is the group's
        // own MAPE (Narayanan et al.: 10 runs, 90 pairs).
        let g = &s["time_by_group"]["narayanan21_table1"];
        assert_eq!(g["calibrated_pairs"].as_u64(), Some(90), "{g}");
        let own = g["time_mape_pct"].as_f64().unwrap();
        let same = g["uncalibrated_pairs_time_mape_pct"].as_f64().unwrap();
        assert!((same - own).abs() < 1e-9, "{same} vs {own}");
        let overall = s["uncalibrated_pairs_time_mape_pct"].as_f64().unwrap();
        assert!(overall > 0.0 && overall < 50.0, "{overall}");
        // Calibration's acceptance, per group: below uncalibrated where the runs share an
        // offset larger than their spread, else no worse than a pure scale transfer (the
        // other run's measured/predicted). hf_docs_memory mixes fp32 and fp16 runs of BERT-large
        // on one V100 (predicted +0.6..+2.6 % and −15..−16 %): a compute factor fitted on the
        // tensor cores is not carried to fp32's CUDA-core GEMMs, so the group calibrates below
        // both (5.78 % against 7.10 % uncalibrated and 11.69 % scaled; 13.27 % when it was
        // carried).
        let g = &s["time_by_group"]["hf_docs_memory"];
        let cal = g["calibrated_time_mape_pct"].as_f64().unwrap();
        let scaled = g["scale_transfer_time_mape_pct"].as_f64().unwrap();
        assert!(cal < 6.5 && scaled > 11.0, "{g}");
        assert_eq!(g["calibration_acceptance"], Value::Bool(true), "{g}");
        // Where it misses, it misses by less than 0.25 points, and only in pairs that cross
        // bf16 and FP8 (src/calibrate/transfer.rs, "What it can do"): moe_dgxc_grok1_2505
        // 2.09 % against the scale's 2.07 (+0.022 ± 0.035 points, jackknife over runs) through
        // its one H100 pair (bf16 +2 %, FP8 −17 %), dgxc_maxtext_llama2_70b 5.57 against 5.52
        // (+0.048 ± 0.016); torchtitan_a100 holds by 0.014 ± 0.028.
        let acc = &s["calibration_acceptance"];
        let misses = acc["misses"].as_array().unwrap();
        // 19 of 22 since the Automodel runs state their TE attention (one more miss, below).
        assert!(acc["holds"].as_u64().unwrap() >= 19, "{acc}");
        for m in misses {
            let name = m.as_str().unwrap();
            assert!(
                [
                    "moe_dgxc_grok1_2505",
                    "torchtitan_a100",
                    "dgxc_maxtext_llama2_70b",
                    "moe_automodel_h100",
                ]
                .contains(&name),
                "{name} misses calibration's acceptance: {}",
                s["time_by_group"][name]
            );
            let g = &s["time_by_group"][name];
            let f = |k: &str| g[k].as_f64().unwrap();
            let offset = f("time_mean_error_pct").abs() > f("time_error_spread_pct");
            let limit = if offset {
                f("uncalibrated_pairs_time_mape_pct")
            } else {
                f("scale_transfer_time_mape_pct")
            };
            let gap = f("calibrated_time_mape_pct") - limit;
            // moe_automodel_h100 (15.08 against 13.47): no shared factor, the pipelined
            // 256-1024-GPU runs are 11-25 % fast, the 8-GPU ones within 3 % (issue 34).
            let most = if name == "moe_automodel_h100" {
                1.7
            } else {
                0.25
            };
            assert!(gap > 0.0 && gap < most, "{name}: {g}");
        }
        // Without the flag, no calibrated keys.
        let out = run(&["validate", "tests/data/public.json", "--json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["summary"].get("calibrated_pairs").is_none());
        // Human form: a calibrated column per group.
        let out = run(&["validate", "tests/data/public.json", "--calibrate"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("calibrated"), "{text}");
        assert!(
            text.contains("the same targets without calibration: "),
            "{text}"
        );
        assert!(
            text.contains("calibration's acceptance (below uncalibrated where a group's mean error exceeds its spread, else no worse than a pure scale): holds in "),
            "{text}"
        );
    }
}

#[test]
fn sweeps_and_the_search_use_the_calibration() {
    use paracalc::engine::search::{search, SearchSpace};
    use paracalc::engine::sweep::{sweep_gpus, Scaling};
    let s = model_preset("llama3-8b").unwrap().scenario();
    let mut c = s.clone();
    c.calibration.compute = Some(0.5);
    let counts = [8, 16, 32];
    let a = sweep_gpus(&s, &counts, Scaling::Strong);
    let b = sweep_gpus(&c, &counts, Scaling::Strong);
    for (x, y) in a.iter().zip(&b) {
        assert!(
            y.tokens_per_s < 0.75 * x.tokens_per_s,
            "{} GPUs: {} vs {}",
            x.num_gpus,
            y.tokens_per_s,
            x.tokens_per_s
        );
    }
    let ra = search(&s, &SearchSpace::default());
    let rb = search(&c, &SearchSpace::default());
    let (ta, tb) = (ra.best[0].tokens_per_s, rb.best[0].tokens_per_s);
    assert!(tb < 0.75 * ta, "best layout: {tb} vs {ta}");
}
