//! Every prediction pinned: the step time and the peak memory per GPU that the engine predicts
//! for each case of `tests/data/public.json`, kept in `tests/data/predictions.json`. A change
//! that moves any case by more than [`TOLERANCE`] fails here, so every behaviour change of the
//! engine shows up as a diff of named cases in the commit that makes it.
//!
//! Regenerate on purpose (and say in the commit which cases moved and why):
//!
//! ```text
//! PARACALC_WRITE_PREDICTIONS=1 cargo test --test predictions
//! ```
#![cfg(not(target_arch = "wasm32"))]

use paracalc::{engine, scenario};
use serde_json::{json, Map, Value};

/// Largest relative change of a pinned number that is not a behaviour change (0.5 %).
const TOLERANCE: f64 = 0.005;
const PUBLIC: &str = include_str!("data/public.json");
const PINNED: &str = "tests/data/predictions.json";

/// `id → {"step_s", "peak_gib"}` for every case, or `{"error"}` for a case the engine rejects.
fn predict_all() -> Map<String, Value> {
    let cases: Vec<Value> = serde_json::from_str(PUBLIC).expect("public.json is a JSON array");
    let mut out = Map::new();
    for case in &cases {
        let id = case["id"]
            .as_str()
            .expect("every case has an id")
            .to_string();
        let row = match scenario::from_value(&case["scenario"]).and_then(|s| engine::estimate(&s)) {
            Ok(e) => json!({
                "step_s": round6(e.time.step_s),
                "peak_gib": round6(e.memory.peak_bytes / (1u64 << 30) as f64),
            }),
            Err(err) => json!({ "error": err.to_string() }),
        };
        out.insert(id, row);
    }
    out
}

/// Six significant digits: far below the tolerance, and stable diffs.
fn round6(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(5 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// One case per line, sorted by id, so a regeneration reads as a diff of named cases.
fn render(rows: &Map<String, Value>) -> String {
    let mut ids: Vec<&String> = rows.keys().collect();
    ids.sort();
    let mut s = String::from("{\n");
    for (i, id) in ids.iter().enumerate() {
        let comma = if i + 1 < ids.len() { "," } else { "" };
        s += &format!("  {}: {}{comma}\n", json!(id), rows[id.as_str()]);
    }
    s + "}\n"
}

#[test]
fn every_prediction_matches_its_pin() {
    let now = predict_all();
    if std::env::var_os("PARACALC_WRITE_PREDICTIONS").is_some() {
        std::fs::write(PINNED, render(&now)).expect("write tests/data/predictions.json");
    }
    let pinned: Map<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(PINNED).expect("tests/data/predictions.json exists"),
    )
    .expect("predictions.json is a JSON object");
    let mut moved = Vec::new();
    for (id, want) in &pinned {
        let Some(got) = now.get(id) else {
            moved.push(format!("{id}: pinned but no longer in public.json"));
            continue;
        };
        for key in ["step_s", "peak_gib"] {
            match (want[key].as_f64(), got[key].as_f64()) {
                (Some(w), Some(g)) if ((g - w) / w).abs() <= TOLERANCE => {}
                (None, None) => {}
                (w, g) => moved.push(format!("{id} {key}: pinned {w:?}, now {g:?}")),
            }
        }
        if want.get("error") != got.get("error") {
            moved.push(format!(
                "{id}: error pinned {:?}, now {:?}",
                want.get("error"),
                got.get("error")
            ));
        }
    }
    for id in now.keys().filter(|id| !pinned.contains_key(*id)) {
        moved.push(format!("{id}: not pinned"));
    }
    assert!(
        moved.is_empty(),
        "{} predictions moved by more than {}% (regenerate on purpose with \
         PARACALC_WRITE_PREDICTIONS=1 cargo test --test predictions):\n{}",
        moved.len(),
        TOLERANCE * 100.0,
        moved.join("\n")
    );
}

#[test]
fn the_pin_covers_every_case_and_every_case_is_predicted() {
    let now = predict_all();
    let cases: Vec<Value> = serde_json::from_str(PUBLIC).unwrap();
    assert_eq!(now.len(), cases.len(), "ids are unique");
    let rejected: Vec<&String> = now
        .iter()
        .filter(|(_, r)| r.get("error").is_some())
        .map(|(id, _)| id)
        .collect();
    assert!(rejected.is_empty(), "the engine rejects {rejected:?}");
    for (id, r) in &now {
        let (t, m) = (
            r["step_s"].as_f64().unwrap(),
            r["peak_gib"].as_f64().unwrap(),
        );
        assert!(
            t > 0.0 && t.is_finite() && m > 0.0 && m.is_finite(),
            "{id}: {r}"
        );
    }
}

#[test]
fn rounding_keeps_six_significant_digits() {
    assert_eq!(round6(21.634_271_9), 21.6343);
    assert_eq!(round6(0.000_123_456_78), 0.000_123_457);
    assert_eq!(round6(123_456_789.0), 123_457_000.0);
}
