//! The evidence file shipped to the browser (`static/evidence.json`) is exactly what
//! `paracalc::evidence::generate` makes from the validation data, so it never drifts.
//!
//! Regenerate: `PARACALC_WRITE_EVIDENCE=1 cargo test --test evidence`.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::evidence::{self, generate};
use paracalc::presets::model_preset;

const PUBLIC: &str = include_str!("data/public.json");

#[test]
fn shipped_file_matches_the_generator() {
    let want = generate(PUBLIC).expect("public.json reads");
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
    let cases = evidence::parse(&generate(PUBLIC).unwrap()).unwrap();
    // public.json has 237 cases with a measured step time, 45 of them MoE
    // (tests/validation.rs counts the same).
    assert_eq!(cases.len(), 237);
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
    let cases = evidence::parse(&generate(PUBLIC).unwrap()).unwrap();
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
