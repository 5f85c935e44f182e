//! Helpers shared by several integration test files (`mod common;`).
#![allow(dead_code)]

use paracalc::presets::MODEL_PRESETS;
use paracalc::scenario::{Scenario, GPU_PRESETS};
use paracalc::share;

/// Every key of the share-link table, then `extra` (keys the table does not have, or spells
/// otherwise), in that order.
pub fn link_keys(extra: &[&str]) -> Vec<String> {
    share::key_table()
        .map(|(k, _)| k.to_string())
        .chain(extra.iter().map(|k| k.to_string()))
        .collect()
}

/// The ids of the model presets, in table order.
pub fn model_preset_ids() -> Vec<String> {
    MODEL_PRESETS.iter().map(|p| p.id.to_string()).collect()
}

/// The ids of the GPU presets, in table order.
pub fn gpu_preset_ids() -> Vec<String> {
    GPU_PRESETS.iter().map(|p| p.id.to_string()).collect()
}

/// The step is the sum of its named parts (`TimeEstimate`'s doc), compute is forward plus
/// backward, and every part is finite and not negative.
pub fn assert_breakdown(e: &paracalc::engine::Estimate) {
    let t = &e.time;
    let sum = t.compute_s
        + t.recompute_s
        + t.bubble_s
        + t.optimizer_s
        + t.offload_s
        + t.host_s
        + t.exposed_comm_s.total();
    assert!((t.step_s - sum).abs() <= 1e-12 * t.step_s.max(1.0), "{t:?}");
    assert!((t.compute_s - (t.forward_s + t.backward_s)).abs() <= 1e-12 * t.step_s.max(1.0));
    for x in [
        t.compute_s,
        t.recompute_s,
        t.bubble_s,
        t.optimizer_s,
        t.offload_s,
        t.host_s,
        t.exposed_comm_s.tp,
        t.exposed_comm_s.cp,
        t.exposed_comm_s.ep,
        t.exposed_comm_s.pp,
        t.exposed_comm_s.dp,
        t.hidden_comm_s.total(),
    ] {
        assert!(x.is_finite() && x >= 0.0, "{t:?}");
    }
    // Overlap contention is a part of each kind's exposed communication.
    let (oc, c) = (&t.overlap_contention_s, &t.exposed_comm_s);
    for (part, whole) in [
        (oc.tp, c.tp),
        (oc.cp, c.cp),
        (oc.ep, c.ep),
        (oc.pp, c.pp),
        (oc.dp, c.dp),
    ] {
        assert!(part >= 0.0 && part <= whole * (1.0 + 1e-12), "{t:?}");
    }
    assert!(t.step_s > 0.0);
}

/// `s` as a JSON value, read back from the text the scenario writes.
pub fn json_of(s: &Scenario) -> serde_json::Value {
    serde_json::from_str(&s.to_json_pretty()).expect("a scenario writes JSON")
}

/// `paracalc validate PATH --json`, parsed.
pub fn validate_json(path: &str) -> serde_json::Value {
    let args: Vec<String> = ["validate", path, "--json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = paracalc::cli::run(&args).expect("validate reads the file");
    serde_json::from_str(&out).expect("validate --json prints JSON")
}
