//! How far to trust a command-line estimate: the app's error bands ([`crate::evidence::band`]),
//! from the published runs the repository ships (`static/evidence.json`, built into the binary
//! so the CLI reads nothing beside it), printed by `estimate` and `calibrate`.

use crate::engine::Estimate;
use crate::evidence::band::{self, Band};
use crate::evidence::interval::Interval;
use crate::evidence::{self, Case};
use crate::scenario::Scenario;
use crate::text;
use serde_json::{json, Value};
use std::fmt::Write;

/// The evidence file the app fetches, as built (`tests/evidence.rs` keeps it fresh).
const EVIDENCE: &str = include_str!("../../static/evidence.json");

/// The shipped published runs (empty if the file cannot be read, which its test rules out).
pub fn cases() -> Vec<Case> {
    evidence::parse(EVIDENCE).unwrap_or_default()
}

/// The band of `s` and, when `s` is calibrated, the calibrated step band of the same runs.
pub fn bands(cases: &[Case], s: &Scenario) -> Option<(Band, Option<(f64, usize)>)> {
    let b = band::band(cases, s)?;
    let cal = if s.calibration.is_default() {
        None
    } else {
        band::calibrated(cases, &b.runs)
    };
    Some((b, cal))
}

/// The "How far to trust it" section of `estimate`'s report (empty without a band).
pub fn section(cases: &[Case], s: &Scenario, e: &Estimate) -> String {
    let Some((b, cal)) = bands(cases, s) else {
        return String::new();
    };
    let mut o = String::from(
        "How far to trust it (measured value over predicted, 80 % band for a cluster paracalc \
         has not seen; built from errors on published sources other than yours)\n",
    );
    let _ = writeln!(o, "  step time {}", band::step_text(&b, s, cal));
    if let Some(r) = b.step_reach_for(s) {
        let _ = writeln!(o, "    {}", text::capitalized(&r.basis_text()));
    }
    if cal.is_none() {
        let _ = writeln!(
            o,
            "    in sample: {}; {}",
            b.text(b.time_pct),
            b.spread.text()
        );
    }
    let _ = writeln!(o, "  throughput, TFLOP/s, MFU {}", b.rate_text(s));
    if let Some(mem) = b.memory_text(s) {
        let _ = writeln!(o, "  peak memory {mem}");
    }
    if let Some(r) = b.memory_reach_for(s) {
        let _ = writeln!(o, "    {}", text::capitalized(&r.basis_text()));
    }
    if let Some(m) = b.memory_spread {
        let _ = writeln!(o, "    {}", m.peak_text());
    }
    if let Some(w) = fit_warning(&b, s, e) {
        let _ = writeln!(o, "  {w}");
    }
    o
}

/// The memory verdict's caveat when the limit lies inside the memory band
/// ([`band::fit_caveat`], worded as in the app).
pub fn fit_warning(b: &Band, s: &Scenario, e: &Estimate) -> Option<String> {
    band::fit_caveat(
        e.memory.peak_bytes,
        e.memory.capacity_bytes,
        b.memory_frac(s)?,
    )
}

/// The bands as JSON for `estimate --json` (`null` without a band): percentages and run counts.
pub fn to_json(cases: &[Case], s: &Scenario, e: &Estimate) -> Value {
    let Some((b, cal)) = bands(cases, s) else {
        return Value::Null;
    };
    json!({
        "basis": b.basis.words(),
        "runs": b.runs.len(),
        "step_pct": b.time_pct,
        "step_signed_pct": {
            "mean": b.spread.mean_pct,
            "low": b.spread.lo_pct,
            "high": b.spread.hi_pct,
            "runs_in_range": b.spread.within,
        },
        "rate_pct": b.rate_pct,
        "calibrated_step_pct": cal.map(|c| c.0),
        "calibrated_pairs": cal.map(|c| c.1),
        "memory_pct": b.memory.map(|m| m.0),
        "memory_runs": b.memory.map(|m| m.1),
        "memory_signed_pct": b.memory_spread.map(|m| json!({
            "mean": m.mean_pct,
            "low": m.lo_pct,
            "high": m.hi_pct,
            "runs_in_range": m.within,
        })),
        "memory_fit_uncertain": fit_warning(&b, s, e).is_some(),
        "step_band_80": b.step_reach_for(s).map(|r| reach_json(&r)),
        "memory_band_80": b.memory_reach_for(s).map(|r| reach_json(&r)),
    })
}

/// An out-of-sample band as JSON: the signed-error ends (`predicted/measured − 1`, percent), the
/// measured value as multiples of the predicted one, and what it rests on.
fn reach_json(r: &Interval) -> Value {
    let (lo, hi) = r.measured_over_predicted();
    json!({
        "error_low_pct": r.lo_pct,
        "error_high_pct": r.hi_pct,
        "measured_over_predicted": [lo, hi],
        "center_pct": r.center_pct,
        "between_source_pct": r.between_pct,
        "within_source_pct": r.within_pct,
        "sources": r.sources,
        "runs": r.runs,
        "calibrated": r.calibrated,
        "widened_because": r.widened.iter().map(|w| w.words()).collect::<Vec<_>>(),
        "basis": r.basis_text(),
    })
}
