//! Published runs the project found beyond the shared validation set (`tests/data/extra.json`,
//! each case with its source and how its step time was derived): predictions checked against
//! them with a tolerance stated per run. They are not part of the public MAPE and no constant
//! was chosen with them in view.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;

/// Step-time tolerance per case, percent, with the reason.
/// - DeepSeek-V3's technical report gives a whole-pre-training average (GPU hours per token),
///   not a logged step, and leaves the micro-batch and the exact recomputation unstated: 15 %.
/// - AutoModel's Llama-3.1 70B row is a logged step of a stated recipe: 10 %.
const TOLERANCE_PCT: [(&str, f64); 2] = [
    ("deepseek-v3-report-2048-h800-fp8", 15.0),
    ("automodel-h100-llama3_70b-64gpu-gbs128-pretrain", 10.0),
];

fn validate(path: &str) -> Value {
    let args: Vec<String> = ["validate", path, "--json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = paracalc::cli::run(&args).expect("validate reads the file");
    serde_json::from_str(&out).expect("validate --json prints JSON")
}

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
    let v = validate("tests/data/extra.json");
    let rows = time_rows(&v);
    assert_eq!(
        rows.len(),
        TOLERANCE_PCT.len(),
        "one tolerance per timed run"
    );
    for (id, tol) in TOLERANCE_PCT {
        let row = rows
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} is in extra.json"));
        let err = row["error_pct"]
            .as_f64()
            .unwrap_or_else(|| panic!("{id} is evaluated, not rejected: {row}"));
        assert!(err.abs() <= tol, "{id}: {err:+.1} % (tolerance {tol} %)");
    }
}

#[test]
fn extra_runs_are_not_copies_of_public_ones() {
    let public = validate("tests/data/public.json");
    let extra = validate("tests/data/extra.json");
    for row in time_rows(&extra) {
        let id = &row["id"];
        assert!(
            time_rows(&public).iter().all(|p| &p["id"] != id),
            "{id} is already in public.json"
        );
    }
}
