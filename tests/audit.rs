//! `tests/data/AUDIT.md` made reproducible: `tests/data/audit.json` lists, for every AUDIT row
//! the scenario fields can express, the `public.json` cases it names and the fields as the row's
//! source states them (scenario JSON paths). This test applies every override to a copy of the
//! cases (serde_json on the scenario object, then [`scenario::from_value`]), checks that each
//! case exists and each overridden scenario parses and validates (a typo in a path or a value
//! fails here), then estimates every case and pins, as ceilings, the step-time MAPE (all, dense,
//! MoE) and the count of runs that ran but are predicted not to fit, with every row applied.
//! `public.json` itself is never edited: the public MAPE stays computed on the data as it is
//! (`tests/validation.rs`).
#![cfg(not(target_arch = "wasm32"))]

use paracalc::engine::estimate;
use paracalc::scenario;
use serde_json::Value;

/// Step-time MAPE over the 422 timed public cases with every remaining audit row applied
/// (10.478 % at the data refresh of 2026-12-06, which applied 24 of the 29 rows in public.json
/// itself; 10.444 % as encoded): a ceiling. The rows left are the NeMo 24.07 launcher rows, which
/// the refresh did not apply (no source ties them to the run).
const ALL_MAPE_CEILING_PCT: f64 = 10.48;
/// The same over the 377 timed dense cases (9.794 %; 9.770 % as encoded).
const DENSE_MAPE_CEILING_PCT: f64 = 9.80;
/// The same over the 45 timed `moe_*` cases (14.560 %: no MoE row is left; ZeRO-3 no longer
/// gathers the Automodel runs' whole experts, issue 34).
const MOE_MAPE_CEILING_PCT: f64 = 14.57;
/// Runs that ran (not `oom`) but that the engine predicts do not fit, every row applied (18;
/// 23 as encoded, where the llm-foundry fused loss and the memory example's recipe now are).
const NOT_FITTING_CEILING: usize = 18;

fn read(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn public_cases() -> Vec<Value> {
    match read("tests/data/public.json") {
        Value::Array(a) => a,
        mut v => v["cases"]
            .take()
            .as_array()
            .cloned()
            .expect("a cases array"),
    }
}

/// Sets `path` (dot-separated, e.g. `parallel.ep`) in `scenario` to `value`: every parent must
/// already be an object; the last key is added or replaced.
fn set_path(scenario: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let mut keys: Vec<&str> = path.split('.').collect();
    let last = keys.pop().ok_or("empty path")?;
    let mut node = scenario;
    for k in keys {
        node = node
            .get_mut(k)
            .filter(|n| n.is_object())
            .ok_or_else(|| format!("{path}: `{k}` is not an object of the scenario"))?;
    }
    node.as_object_mut()
        .ok_or_else(|| format!("{path}: the parent is not an object"))?
        .insert(last.to_string(), value);
    Ok(())
}

/// The value at `path`, `Null` when absent.
fn get_path<'a>(scenario: &'a Value, path: &str) -> &'a Value {
    path.split('.')
        .fold(scenario, |n, k| n.get(k).unwrap_or(&Value::Null))
}

/// The public cases with every row of `audit` applied; panics naming the row and case when a
/// case is missing, an override does not change what the copy encodes, or the scenario does
/// not parse or validate.
fn apply(rows: &[Value], mut cases: Vec<Value>) -> Vec<Value> {
    for row in rows {
        let name = row["row"].as_str().expect("row name");
        assert!(
            row["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: no source"
        );
        let set = row["set"].as_object().expect("row set");
        assert!(!set.is_empty(), "{name}: no override");
        let ids = row["cases"].as_array().expect("row cases");
        assert!(!ids.is_empty(), "{name}: no case");
        for id in ids {
            let id = id.as_str().expect("case id");
            let case = cases
                .iter_mut()
                .find(|c| c["id"] == id)
                .unwrap_or_else(|| panic!("{name}: case {id} is not in public.json"));
            let sc = &mut case["scenario"];
            for (path, value) in set {
                assert_ne!(
                    get_path(sc, path),
                    value,
                    "{name}: {id} already encodes {path} = {value}"
                );
                set_path(sc, path, value.clone()).unwrap_or_else(|e| panic!("{name}: {id}: {e}"));
            }
            let s = scenario::from_value(sc)
                .unwrap_or_else(|e| panic!("{name}: {id} does not parse: {e}"));
            s.validate()
                .unwrap_or_else(|e| panic!("{name}: {id} does not validate: {e}"));
        }
    }
    cases
}

/// One estimated case: id, group, |step-time error| in % when the case is timed, and whether
/// it ran but is predicted not to fit (`paracalc validate`'s `not_fitting`: a run not marked
/// `oom` whose predicted peak exceeds the device).
struct Row {
    id: String,
    group: String,
    abs_err: Option<f64>,
    peak_gib: f64,
    not_fitting: bool,
}

fn estimate_all(cases: &[Value]) -> Vec<Row> {
    cases
        .iter()
        .map(|c| {
            let id = c["id"].as_str().unwrap().to_string();
            let s = scenario::from_value(&c["scenario"]).unwrap_or_else(|e| panic!("{id}: {e}"));
            let e = estimate(&s).unwrap_or_else(|e| panic!("{id}: {e}"));
            let m = &c["measured"];
            let abs_err = m["iteration_time_s"]
                .as_f64()
                .map(|t| (100.0 * (e.time.step_s - t) / t).abs());
            let oom = m["oom"].as_bool().unwrap_or(false);
            Row {
                group: c["group"].as_str().unwrap_or("").to_string(),
                abs_err,
                peak_gib: e.memory.peak_bytes / 1_073_741_824.0,
                not_fitting: !oom && !e.memory.fits && !e.memory.rows.is_empty(),
                id,
            }
        })
        .collect()
}

struct Totals {
    all: f64,
    dense: f64,
    moe: f64,
    timed: usize,
    not_fitting: usize,
}

fn totals(rows: &[Row]) -> Totals {
    let (mut sum, mut n) = ([0.0; 2], [0usize; 2]);
    for (r, e) in rows.iter().filter_map(|r| r.abs_err.map(|e| (r, e))) {
        let k = usize::from(r.group.starts_with("moe_"));
        sum[k] += e;
        n[k] += 1;
    }
    Totals {
        all: (sum[0] + sum[1]) / (n[0] + n[1]) as f64,
        dense: sum[0] / n[0] as f64,
        moe: sum[1] / n[1] as f64,
        timed: n[0] + n[1],
        not_fitting: rows.iter().filter(|r| r.not_fitting).count(),
    }
}

/// Step-time MAPE per group, in first-seen order.
fn by_group(rows: &[Row]) -> Vec<(String, usize, f64)> {
    let mut out: Vec<(String, usize, f64)> = Vec::new();
    for (r, e) in rows.iter().filter_map(|r| r.abs_err.map(|e| (r, e))) {
        match out.iter_mut().find(|g| g.0 == r.group) {
            Some(g) => {
                g.1 += 1;
                g.2 += e;
            }
            None => out.push((r.group.clone(), 1, e)),
        }
    }
    for g in &mut out {
        g.2 /= g.1 as f64;
    }
    out
}

#[test]
fn audit_rows_apply_and_their_totals_do_not_regress() {
    let audit = read("tests/data/audit.json");
    let public = public_cases();
    let rows = audit["rows"].as_array().expect("audit.json: rows");
    assert!(!rows.is_empty());
    let applied = apply(rows, public.clone());
    let (before, after) = (estimate_all(&public), estimate_all(&applied));
    let (b, a) = (totals(&before), totals(&after));
    assert_eq!((b.timed, a.timed), (422, 422));
    eprintln!(
        "step-time MAPE as encoded -> every audit row applied: all {:.3} -> {:.3} %, dense {:.3} -> {:.3} %, MoE {:.3} -> {:.3} %; runs that ran but are predicted not to fit {} -> {}",
        b.all, a.all, b.dense, a.dense, b.moe, a.moe, b.not_fitting, a.not_fitting
    );
    let groups_before = by_group(&before);
    for (g, n, m) in by_group(&after) {
        let (_, _, m0) = groups_before.iter().find(|x| x.0 == g).unwrap();
        if (m - m0).abs() >= 0.005 {
            eprintln!("  {g} ({n}): {m0:.2} -> {m:.2} %");
        }
    }
    for r in after.iter().filter(|r| r.not_fitting) {
        eprintln!(
            "  still predicted not to fit: {} ({:.1} GiB)",
            r.id, r.peak_gib
        );
    }
    // Each row alone, to read AUDIT.md's per-row figures (`--nocapture`).
    for row in rows {
        let t = totals(&estimate_all(&apply(
            std::slice::from_ref(row),
            public.clone(),
        )));
        eprintln!(
            "  {} alone: all {:.3} %, dense {:.3} %, MoE {:.3} %, not fitting {}",
            row["row"].as_str().unwrap(),
            t.all,
            t.dense,
            t.moe,
            t.not_fitting
        );
    }
    assert!(a.all <= ALL_MAPE_CEILING_PCT, "all {:.2} %", a.all);
    assert!(a.dense <= DENSE_MAPE_CEILING_PCT, "dense {:.2} %", a.dense);
    assert!(a.moe <= MOE_MAPE_CEILING_PCT, "MoE {:.2} %", a.moe);
    assert!(a.not_fitting <= NOT_FITTING_CEILING, "{}", a.not_fitting);
}

#[test]
fn a_typo_in_an_override_is_caught() {
    let mut sc = public_cases()[0]["scenario"].clone();
    set_path(
        &mut sc,
        "training.recompute_modulez",
        Value::from(vec!["core_attn"]),
    )
    .unwrap();
    assert!(scenario::from_value(&sc).is_err());
    let mut sc = public_cases()[0]["scenario"].clone();
    set_path(&mut sc, "training.attention_kernel", Value::from("fa4")).unwrap();
    assert!(scenario::from_value(&sc).is_err());
    assert!(set_path(&mut sc, "trainig.eager", Value::from(true)).is_err());
}

#[test]
fn every_not_expressed_entry_gives_a_reason() {
    let audit = read("tests/data/audit.json");
    for e in audit["not_expressed"].as_array().expect("not_expressed") {
        for k in ["row", "what", "reason"] {
            assert!(e[k].as_str().is_some_and(|s| !s.is_empty()), "{e}: no {k}");
        }
    }
}
