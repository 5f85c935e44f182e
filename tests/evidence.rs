//! The evidence file shipped to the browser (`static/evidence.json`) is exactly what
//! `paracalc::evidence::generate` makes from the validation data — the shared public runs and the
//! repository's own further published runs (`tests/data/extra.json`) — so it never drifts.
//!
//! Regenerate: `PARACALC_WRITE_EVIDENCE=1 cargo test --test evidence`.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::evidence::{self, generate};
use paracalc::presets::model_preset;

const PUBLIC: &str = include_str!("data/public.json");
const EXTRA: &str = include_str!("data/extra.json");
/// What the evidence file is made from.
const FILES: [&str; 2] = [PUBLIC, EXTRA];

#[test]
fn shipped_file_matches_the_generator() {
    let want = generate(&FILES).expect("public.json reads");
    if std::env::var_os("PARACALC_WRITE_EVIDENCE").is_some() {
        std::fs::write("static/evidence.json", &want).expect("write static/evidence.json");
    }
    let shipped = std::fs::read_to_string("static/evidence.json").expect("static/evidence.json");
    assert!(
        shipped == want,
        "static/evidence.json is stale: run PARACALC_WRITE_EVIDENCE=1 cargo test --test evidence"
    );
}

#[test]
fn every_timed_case_is_shipped_and_predictable() {
    let cases = evidence::parse(&generate(&FILES).unwrap()).unwrap();
    // public.json has 422 cases with a measured step time, 45 of them MoE
    // (tests/validation.rs counts the same); extra.json 124 (tests/extra_runs.rs).
    assert_eq!(cases.len(), 422 + 124);
    let mut ok = 0;
    for c in &cases {
        assert!(c.step_s > 0.0, "{}", c.id);
        if paracalc::engine::estimate(&c.scenario).is_ok() {
            ok += 1;
        }
    }
    assert_eq!(ok, cases.len(), "every shipped case has a valid scenario");
}

#[test]
fn nearest_runs_are_the_same_model_and_gpu() {
    let cases = evidence::parse(&generate(&FILES).unwrap()).unwrap();
    // GPT-3 175B on A100s: the nearest published runs are 175B-class runs on A100s
    // (Narayanan et al. 2021 Table 1 and Korthikanti et al. 2022 rows).
    let s = model_preset("gpt3-175b").unwrap().scenario();
    let near = evidence::nearest(&cases, &s, 5);
    assert_eq!(near.len(), 5);
    for c in &near {
        let gpu = format!("{:?}", c.scenario.cluster.gpu).to_lowercase();
        assert!(gpu.contains("a100"), "{}: {gpu}", c.id);
        let d = evidence::distance(&s, &c.scenario);
        assert!(d < 1.5, "{}: distance {d}", c.id);
    }
    // Nearest first.
    let d: Vec<f64> = near
        .iter()
        .map(|c| evidence::distance(&s, &c.scenario))
        .collect();
    assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
    // Identical scenario: distance 0.
    assert_eq!(evidence::distance(&s, &s), 0.0);
}

#[test]
fn bands_come_from_the_runs_most_like_the_plan() {
    use paracalc::evidence::band::{band, calibrated, Basis, MIN_RUNS};
    let cases = evidence::parse(&generate(&FILES).unwrap()).unwrap();
    // Llama 3.1 405B on H100s with Megatron, pipeline parallel: the dgxc runs are its peers.
    let s = model_preset("llama3-70b").unwrap().scenario();
    let b = band(&cases, &s).expect("a band");
    assert_eq!(b.basis, Basis::SimilarLength);
    assert!(b.runs.len() >= MIN_RUNS);
    for &i in &b.runs {
        let c = &cases[i].scenario;
        assert!(c.model.seq_len <= 8192, "{}", cases[i].id);
        assert_eq!(
            c.training.framework(),
            s.training.framework(),
            "{}",
            cases[i].id
        );
        assert!(
            c.parallel.pp > 1 && c.parallel.zero_stage < 3,
            "{}",
            cases[i].id
        );
    }
    // The band is the mean absolute error over exactly those runs, recomputed here, and its
    // spread the mean, least and greatest signed error of the same runs.
    let (mut sum, mut signed) = (0.0, Vec::new());
    for &i in &b.runs {
        let p = paracalc::engine::estimate(&cases[i].scenario)
            .unwrap()
            .time
            .step_s;
        let e = 100.0 * (p / cases[i].step_s - 1.0);
        sum += e.abs() / 100.0;
        signed.push(e);
    }
    let want = 100.0 * sum / b.runs.len() as f64;
    assert!((b.time_pct - want).abs() < 1e-9, "{} vs {want}", b.time_pct);
    let n = signed.len();
    let mean = signed.iter().sum::<f64>() / n as f64;
    assert!((b.spread.mean_pct - mean).abs() < 1e-9, "{:?}", b.spread);
    assert!(b.spread.mean_pct.abs() <= b.time_pct + 1e-9);
    // The range: the ⌈n/10⌉-th and ⌈9n/10⌉-th smallest signed errors.
    signed.sort_by(f64::total_cmp);
    let rank = |q: f64| (q * n as f64).ceil() as usize - 1;
    assert_eq!(
        (b.spread.lo_pct, b.spread.hi_pct, b.spread.of),
        (signed[rank(0.1)], signed[rank(0.9)], n)
    );
    assert!(b.time_pct > 0.0 && b.time_pct < 50.0);
    let text = b.text(b.time_pct);
    assert!(
        text.starts_with('±') && text.contains("similar published runs"),
        "{text}"
    );
    // The calibrated band pairs runs of one group only.
    let (pct, pairs) = calibrated(&cases, &b.runs).expect("pairs");
    assert!(pairs > 0 && pct.is_finite());
    // A GPU nobody published on falls back to wider sets, and says so.
    let mut v = model_preset("llama3-8b").unwrap().scenario();
    v.cluster.gpu = paracalc::scenario::GpuChoice::Preset("v100-sxm2-32gb".into());
    v.training.framework = Some(paracalc::scenario::Framework::Jax);
    let b = band(&cases, &v).expect("a band");
    assert_ne!(b.basis, Basis::Similar);
}

#[test]
fn the_memory_band_widens_until_runs_report_memory() {
    use paracalc::evidence::band::{band, MIN_MEMORY_RUNS};
    let cases = evidence::parse(&generate(&FILES).unwrap()).unwrap();
    let s = model_preset("llama3-8b").unwrap().scenario();
    let b = band(&cases, &s).unwrap();
    let (pct, n, basis) = b.memory.expect("some published runs report memory");
    assert!(
        n >= MIN_MEMORY_RUNS && pct.is_finite() && pct > 0.0,
        "{pct} {n}"
    );
    assert!(matches!(
        basis,
        paracalc::evidence::band::Basis::SimilarLength
            | paracalc::evidence::band::Basis::Similar
            | paracalc::evidence::band::Basis::SameStack
            | paracalc::evidence::band::Basis::SameGeneration
            | paracalc::evidence::band::Basis::All
    ));
    // The shown memory band is the out-of-sample one (tests/bands.rs).
    let text = b.memory_text(&s).unwrap();
    assert!(
        text.starts_with("80 % band ") && text.contains("for a new cluster"),
        "{text}"
    );
    // Its signed spread is over the same runs: as many, and a mean no larger than the MAPE.
    let spread = b
        .memory_spread
        .expect("a memory spread beside the memory band");
    assert_eq!(spread.of, n);
    assert!(spread.mean_pct.abs() <= pct + 1e-9, "{spread:?} vs {pct}");
    assert!(spread.lo_pct <= spread.hi_pct);
    assert!(spread.peak_text().contains("paracalc's peak was"));
}

#[test]
fn a_measured_step_far_outside_the_band_is_flagged() {
    use paracalc::evidence::band::unusual_miss;
    // llm-foundry MPT-30B at 8k tokens: measured 38.4 % slower than its prediction against a
    // ±6 % band: 0.384 > 3 · 0.06 = 0.18.
    let w = unusual_miss(10.0, 13.84, 0.06).expect("flagged");
    assert!(
        w.starts_with(
            "The measured step is 38 % slower than predicted, more than 3 times the ±6 %"
        ),
        "{w}"
    );
    // 15 % faster against ±6 %: 0.15 ≤ 0.18, ordinary.
    assert_eq!(unusual_miss(10.0, 8.5, 0.06), None);
    // 20 % faster: flagged as faster.
    assert!(unusual_miss(10.0, 8.0, 0.06)
        .unwrap()
        .contains("20 % faster"));
    // No band or no prediction: nothing to say.
    assert_eq!(unusual_miss(10.0, 20.0, 0.0), None);
    assert_eq!(unusual_miss(0.0, 20.0, 0.06), None);
    assert_eq!(unusual_miss(10.0, f64::NAN, 0.06), None);
}

#[test]
fn a_memory_verdict_inside_the_band_is_uncertain() {
    use paracalc::evidence::band::fit_is_uncertain;
    // BLOOM 181B tp8 pp2 (public `bloom-prequel-0225-181b-dp24tp8pp2mbs1gbs2016`, which ran):
    // peak 80.13 of 80.00 GiB, 0.13 over; a ±8 % band spans 73.7..86.5 GiB.
    assert!(fit_is_uncertain(80.13, 80.0, 0.08));
    // Llama 3 8B on 8 H100s at cp 2: 67.07 of 79.65 GiB, 12.58 free > 0.10 · 67.07 = 6.71.
    assert!(!fit_is_uncertain(67.07, 79.65, 0.10));
    // 72.5 GiB: 7.15 free ≤ 7.25: fits, but the band reaches past the limit.
    assert!(fit_is_uncertain(72.5, 79.65, 0.10));
    // 88.90 GiB (cp 1): 9.25 over > 8.89: does not fit, whatever the band says.
    assert!(!fit_is_uncertain(88.90, 79.65, 0.10));
    // No band, no uncertainty.
    assert!(!fit_is_uncertain(80.13, 80.0, 0.0));
    // The caveat the app and the CLI print, both ways.
    use paracalc::evidence::band::fit_caveat;
    assert_eq!(
        fit_caveat(80.13, 80.0, 0.08).as_deref(),
        Some("The limit is inside the ±8 % memory error: it may fit.")
    );
    assert_eq!(
        fit_caveat(72.5, 79.65, 0.10).as_deref(),
        Some("The limit is inside the ±10 % memory error: it may not fit.")
    );
    assert_eq!(fit_caveat(67.07, 79.65, 0.10), None);
    // The verdict's band of a published-like plan is the narrower of the in-sample MAPE its
    // text shows and the out-of-sample band's farther end.
    let cases = evidence::parse(&generate(&FILES).unwrap()).unwrap();
    let b = paracalc::evidence::band::band(&cases, &model_preset("llama3-8b").unwrap().scenario())
        .unwrap();
    let s = model_preset("llama3-8b").unwrap().scenario();
    let frac = b.memory_frac(&s).unwrap();
    let (lo, hi) = b.memory_reach.as_ref().unwrap().measured_over_predicted();
    let in_sample = b.memory.unwrap().0 / 100.0;
    let out_of_sample = (1.0 - lo).max(hi - 1.0);
    assert!(in_sample < out_of_sample, "{in_sample} {out_of_sample}");
    assert!((frac - in_sample).abs() < 1e-12, "{frac} {in_sample}");
}

#[test]
fn a_long_sequence_or_moe_plan_is_not_matched_to_dense_8k_runs() {
    let cases = evidence::parse(&generate(&FILES).unwrap()).unwrap();
    // Llama 3 70B at 8K tokens on H100s has similar published runs.
    let s = model_preset("llama3-70b").unwrap().scenario();
    let near = evidence::nearest(&cases, &s, 6);
    assert!(near.iter().any(|c| evidence::similar(&s, &c.scenario)));
    // At 128K tokens the nearest runs are long-sequence ones where any exist, and none of the
    // 8K runs counts as similar.
    let mut long = s.clone();
    long.model.seq_len = 131_072;
    for c in evidence::nearest(&cases, &long, 6) {
        if c.scenario.model.seq_len <= 8192 {
            assert!(!evidence::similar(&long, &c.scenario), "{}", c.id);
            let diffs = evidence::differences(&long, &c.scenario);
            assert!(
                diffs.iter().any(|d| d.starts_with("sequence ")),
                "{}: {diffs:?}",
                c.id
            );
        }
    }
    // Mixtral: MoE runs come first, and a dense run is never similar.
    let moe = model_preset("mixtral-8x7b").unwrap().scenario();
    let near = evidence::nearest(&cases, &moe, 6);
    assert!(near[0].scenario.model.moe.is_some(), "{}", near[0].id);
    for c in &cases {
        if c.scenario.model.moe.is_none() {
            assert!(!evidence::similar(&moe, &c.scenario));
        }
    }
    // Distance terms: another framework adds ½, another precision class ½, a parallel
    // dimension used by one only ¼, a 2× longer sequence ½.
    let mut other = s.clone();
    other.training.framework = Some(paracalc::scenario::Framework::Deepspeed);
    assert_eq!(evidence::distance(&s, &other), 0.5);
    let mut other = s.clone();
    other.training.precision = paracalc::scenario::Precision::Fp8;
    assert_eq!(evidence::distance(&s, &other), 0.5);
    let mut other = s.clone();
    other.parallel.cp = 1;
    assert_eq!(evidence::distance(&s, &other), 0.25);
    let mut other = s.clone();
    other.model.seq_len *= 2;
    assert_eq!(evidence::distance(&s, &other), 0.5);
    assert_eq!(
        evidence::layout_text(&s),
        format!(
            "tp {} · pp {} · dp {} · cp {} · vp {}",
            s.parallel.tp, s.parallel.pp, s.parallel.dp, s.parallel.cp, s.parallel.vp
        )
    );
}

#[test]
fn published_like_requires_gpu_generation_framework_and_parallel_style() {
    let cases = evidence::parse(&generate(&FILES).unwrap()).unwrap();
    let s = model_preset("llama3-70b").unwrap().scenario();
    let like = evidence::published_like(&cases, &s).expect("NeMo Llama 3 70B runs on H100s");
    let r = &like.scenario;
    assert_eq!(r.training.framework(), s.training.framework());
    assert_eq!(r.model.moe.is_some(), s.model.moe.is_some());
    for (a, b) in [
        (r.parallel.tp, s.parallel.tp),
        (r.parallel.pp, s.parallel.pp),
        (r.parallel.cp, s.parallel.cp),
    ] {
        assert_eq!(a > 1, b > 1, "{}", like.id);
    }
    assert!(
        format!("{:?}", r.cluster.gpu)
            .to_lowercase()
            .contains("h100"),
        "{}",
        like.id
    );
    // The same plan under a framework no published run used with this style: extrapolated.
    let mut jax = s.clone();
    jax.training.framework = Some(paracalc::scenario::Framework::Jax);
    jax.parallel.cp = 1;
    jax.parallel.pp = 1;
    jax.parallel.ep = 4;
    assert!(evidence::published_like(&cases, &jax).is_none());
}

/// A long-context plan's band comes from long-context runs: torchtitan on H100 at 131K tokens
/// with context parallelism is matched to the torchtitan H100 runs above 32K tokens, whose
/// errors are larger than those of the same stack at 8K.
#[test]
fn a_long_context_band_comes_from_long_context_runs() {
    use paracalc::evidence::band::{band, Basis};
    let cases = evidence::parse(&generate(&FILES).unwrap()).unwrap();
    let long = cases
        .iter()
        .find(|c| c.id == "torchtitan-h100-t2-5")
        .expect("the 131K case")
        .scenario
        .clone();
    assert_eq!(long.model.seq_len, 131072);
    let b = band(&cases, &long).expect("a band");
    assert_eq!(b.basis, Basis::SimilarLength, "{:?}", b.basis);
    for &i in &b.runs {
        assert!(cases[i].scenario.model.seq_len > 32768, "{}", cases[i].id);
    }
    let mut short = long.clone();
    short.model.seq_len = 8192;
    let s = band(&cases, &short).expect("a band");
    assert!(b.time_pct > s.time_pct, "{} vs {}", b.time_pct, s.time_pct);
    assert!(b.text(b.time_pct).contains("at this context length"));
}
