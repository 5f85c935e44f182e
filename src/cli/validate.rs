//! `paracalc validate CASES.json [--json] [--calibrate]`: predicted vs published measurements;
//! `--calibrate` adds the calibrated step-time error over every ordered pair of timed cases of
//! one group ([`calibrated`]).
//!
//! Reads the case format of the validation data (`{"id", "group", "scenario", "measured"}`,
//! an array, or an object with a `cases` array) and compares, for every case, each metric it
//! measured: the step time (`iteration_time_s`, seconds), the per-GPU memory (`memory_gib`, GiB,
//! compared as the case's `memory_kind` says) and out-of-memory runs (`oom`). A case the engine
//! rejects becomes a row with `"error"` and `"predicted": null`; nothing is skipped silently.
//! The metrics are only read to compare, after the prediction is made.
//!
//! With a first-sight record (`--first-sight FILE`, by default `first_sight.json` beside the
//! cases file when there is one) it adds, per group, the error now beside the error at first
//! sight and a constant-MFU rule of thumb ([`first_sight`]).
//!
//! Children not named above:
//! - [`loso`]: `validate`'s leave-one-source-out report (issue 31).

mod calibrated;
mod first_sight;
mod loso;

use calibrated::{calibrated, calibrated_by_group, calibrated_overall, CalGroup, Pair};

use super::args::{read_file, Args};
use super::error::CliError;
use crate::calibrate::MemoryKind;
use crate::engine::estimate;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

use crate::engine::memory::overhead::GIB;

/// What `--calibrate` evaluated: the pairs, the pairs that failed, each timed run's group and
/// signed error ([`calibrated`]).
type Calibrated = (Vec<Pair>, usize, Vec<(String, f64)>);

/// One compared metric of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Case id.
    pub id: String,
    /// Case group (source table), "" when absent.
    pub group: String,
    /// `time` (s), `memory` (GiB) or `oom` (1 = out of memory).
    pub metric: &'static str,
    /// Measured value.
    pub measured: f64,
    /// Predicted value, or `None` when the case could not be evaluated.
    pub predicted: Option<f64>,
    /// Why the case could not be evaluated.
    pub error: Option<String>,
}

impl Row {
    /// `100·(predicted − measured)/measured`, when both exist.
    pub fn error_pct(&self) -> Option<f64> {
        match self.predicted {
            Some(p) if self.metric != "oom" && self.measured != 0.0 => {
                Some(100.0 * (p - self.measured) / self.measured)
            }
            _ => None,
        }
    }
}

/// The summary of a validation run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Cases in the file.
    pub cases: usize,
    /// Cases with a measured step time.
    pub time_measured: usize,
    /// Evaluated step-time rows.
    pub time_cases: usize,
    /// Mean absolute percentage error of the step time.
    pub time_mape_pct: f64,
    /// Fraction of evaluated step times within ±10 %.
    pub time_within_10pct: f64,
    /// Evaluated memory rows.
    pub memory_cases: usize,
    /// Mean absolute percentage error of the memory.
    pub memory_mape_pct: f64,
    /// Evaluated out-of-memory rows.
    pub oom_cases: usize,
    /// Out-of-memory rows predicted correctly.
    pub oom_correct: usize,
}

/// What [`compare`] finds.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    /// One row per measured metric of every case.
    pub rows: Vec<Row>,
    /// The runs that ran (not `oom`) but that the engine predicts do not fit:
    /// `(id, predicted peak GiB, usable GiB)`, in file order. A prediction the public runs
    /// contradict: most carry an assumed setting (recomputation "none" where the source is
    /// silent) or a memory saving the scenario cannot state.
    pub not_fitting: Vec<(String, f64, f64)>,
    /// The three-state memory verdict of every case the engine estimates
    /// ([`crate::engine::memory::verdict`], judged with the band of the published runs most
    /// like it, [`crate::evidence::band::memory_verdict_frac`]), in file order.
    pub verdicts: Vec<CaseVerdict>,
}

/// One case's memory verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseVerdict {
    /// Case id.
    pub id: String,
    /// Case group.
    pub group: String,
    /// Whether the run ran out of memory (`measured.oom`).
    pub oom: bool,
    /// Whether its source states every memory-relevant setting ([`fully_stated`]).
    pub fully_stated: bool,
    /// The verdict and its flip.
    pub fit: crate::engine::memory::verdict::Fit,
    /// Predicted peak and usable capacity, GiB.
    pub peak_gib: f64,
    /// Usable capacity, GiB.
    pub capacity_gib: f64,
}

/// Whether a case's source states every memory-relevant setting: its `assumed` list names no
/// path under `scenario.model`, `scenario.parallel` or `scenario.training` other than
/// `scenario.training.framework`. Not memory-relevant: `scenario.training.framework` (the
/// settings a stack selects that change memory — loss kernel, recomputation, gradient dtype —
/// are fields of their own), `scenario.cluster.*` (the network, and the GPU's form factor
/// where the source states its memory size: SXM vs PCIe of "A100-80GB", "H100 80GB") and
/// `measured.*`.
pub fn fully_stated(case: &Value) -> bool {
    case.get("assumed")
        .and_then(Value::as_array)
        .is_none_or(|a| {
            a.iter().filter_map(Value::as_str).all(|p| {
                let relevant = [
                    "scenario.model.",
                    "scenario.parallel.",
                    "scenario.training.",
                ]
                .iter()
                .any(|pre| p.starts_with(pre));
                !relevant || p == "scenario.training.framework"
            })
        })
}

/// Compares every case of `cases` (already parsed JSON) with the engine, one estimate per case:
/// a row per measured metric ([`Measured`]), the runs that ran but are predicted not to fit, and
/// every case's memory verdict.
pub fn compare(cases: &[Value]) -> Comparison {
    let mut rows = Vec::new();
    let mut not_fitting = Vec::new();
    let mut verdicts = Vec::new();
    let evidence = super::trust::cases();
    let evidence_errors = crate::evidence::interval::Errors::of(&evidence);
    for (i, case) in cases.iter().enumerate() {
        let id = case
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("case {i}"), str::to_string);
        let group = case
            .get("group")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let measured = Measured::of(case);
        let scenario = case
            .get("scenario")
            .ok_or_else(|| "the case has no \"scenario\".".to_string())
            .and_then(|v| crate::scenario::from_value(v).map_err(|e| e.to_string()));
        let est = scenario
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|s| estimate(s).map_err(|e| e.to_string()));
        if let (Ok(e), Ok(sc)) = (&est, &scenario) {
            let (peak, cap) = (e.memory.peak_bytes / GIB, e.memory.capacity_bytes / GIB);
            if !measured.oom && !e.memory.fits && !e.memory.rows.is_empty() {
                not_fitting.push((id.clone(), peak, cap));
            }
            if !e.memory.rows.is_empty() {
                let frac = crate::evidence::band::memory_verdict_frac_with(
                    &evidence,
                    &evidence_errors,
                    sc,
                );
                verdicts.push(CaseVerdict {
                    id: id.clone(),
                    group: group.clone(),
                    oom: measured.oom,
                    fully_stated: fully_stated(case),
                    fit: e.memory.fit_with(frac),
                    peak_gib: peak,
                    capacity_gib: cap,
                });
            }
        }
        // The estimate, or why there is none, for each metric's prediction.
        let est = || est.as_ref().map_err(Clone::clone);
        let mut push = |metric, measured, pred| rows.push(row(&id, &group, metric, measured, pred));
        if let Some(t) = measured.time_s {
            push("time", t, est().map(|e| e.time.step_s));
        }
        if let Some(gib) = measured.memory_gib {
            let kind = MemoryKind::from_name(&measured.memory_kind);
            push(
                "memory",
                gib,
                est().and_then(|e| kind.and_then(|k| k.peak_gib(e))),
            );
        }
        if measured.oom {
            push("oom", 1.0, est().and_then(predicted_oom));
        }
    }
    Comparison {
        rows,
        not_fitting,
        verdicts,
    }
}

/// What a case measured (its `measured` object): the step time, the memory and which kind of
/// memory figure it is (`device_used` when not said), and whether the run ran out of memory.
struct Measured {
    time_s: Option<f64>,
    memory_gib: Option<f64>,
    memory_kind: String,
    oom: bool,
}

impl Measured {
    fn of(case: &Value) -> Measured {
        let measured = case.get("measured").cloned().unwrap_or(Value::Null);
        Measured {
            time_s: measured.get("iteration_time_s").and_then(Value::as_f64),
            memory_gib: measured.get("memory_gib").and_then(Value::as_f64),
            memory_kind: measured
                .get("memory_kind")
                .and_then(Value::as_str)
                .unwrap_or("device_used")
                .to_string(),
            oom: measured
                .get("oom")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }
}

/// The row of case `id` for `metric`: `measured` against the prediction `pred`, or why there is
/// none (an error, or a prediction that is not a finite number).
fn row(
    id: &str,
    group: &str,
    metric: &'static str,
    measured: f64,
    pred: Result<f64, String>,
) -> Row {
    let (predicted, error) = match pred {
        Ok(p) if p.is_finite() => (Some(p), None),
        Ok(p) => (
            None,
            Some(format!("the prediction is not a finite number ({p}).")),
        ),
        Err(e) => (None, Some(e)),
    };
    Row {
        id: id.to_string(),
        group: group.to_string(),
        metric,
        measured,
        predicted,
        error,
    }
}

/// The predicted `oom` metric: 1 when the plan does not fit, 0 when it does; an error when the
/// memory model gave no stages.
fn predicted_oom(e: &crate::engine::Estimate) -> Result<f64, String> {
    if e.memory.rows.is_empty() {
        Err("the memory model gave no stages.".to_string())
    } else {
        Ok(if e.memory.fits { 0.0 } else { 1.0 })
    }
}

/// Verdict counts `[fits, may not fit, does not fit]` over the verdicts `keep` admits.
pub fn verdict_counts(verdicts: &[CaseVerdict], keep: impl Fn(&CaseVerdict) -> bool) -> [usize; 3] {
    use crate::engine::memory::verdict::Verdict;
    let mut n = [0; 3];
    for v in verdicts.iter().filter(|v| keep(v)) {
        n[match v.fit.verdict {
            Verdict::Fits => 0,
            Verdict::MayNotFit => 1,
            Verdict::DoesNotFit => 2,
        }] += 1;
    }
    n
}

/// The verdict counts `validate` prints: over the runs that ran, over those whose source
/// states every memory-relevant setting, and over the out-of-memory runs.
fn verdict_summary(verdicts: &[CaseVerdict]) -> [(&'static str, [usize; 3]); 3] {
    [
        ("ran", verdict_counts(verdicts, |v| !v.oom)),
        (
            "ran_fully_stated",
            verdict_counts(verdicts, |v| !v.oom && v.fully_stated),
        ),
        ("oom", verdict_counts(verdicts, |v| v.oom)),
    ]
}

/// Summarises `rows` for a file of `cases` cases.
pub fn summarize(cases: usize, rows: &[Row]) -> Summary {
    let mut s = Summary {
        cases,
        ..Summary::default()
    };
    let (mut t_sum, mut t_in, mut m_sum) = (0.0, 0usize, 0.0);
    for r in rows {
        match r.metric {
            "time" => {
                s.time_measured += 1;
                if let Some(e) = r.error_pct() {
                    s.time_cases += 1;
                    t_sum += e.abs();
                    t_in += usize::from(e.abs() <= 10.0);
                }
            }
            "memory" => {
                if let Some(e) = r.error_pct() {
                    s.memory_cases += 1;
                    m_sum += e.abs();
                }
            }
            _ => {
                if let Some(p) = r.predicted {
                    s.oom_cases += 1;
                    s.oom_correct += usize::from(p == r.measured);
                }
            }
        }
    }
    if s.time_cases > 0 {
        s.time_mape_pct = t_sum / s.time_cases as f64;
        s.time_within_10pct = t_in as f64 / s.time_cases as f64;
    }
    if s.memory_cases > 0 {
        s.memory_mape_pct = m_sum / s.memory_cases as f64;
    }
    s
}

/// Step-time MAPE per group, in first-seen order: `(group, evaluated, mape_pct)`.
pub fn time_by_group(rows: &[Row]) -> Vec<(String, usize, f64)> {
    let mut out: Vec<(String, usize, f64)> = Vec::new();
    for r in rows.iter().filter(|r| r.metric == "time") {
        let Some(e) = r.error_pct() else { continue };
        match out.iter_mut().find(|g| g.0 == r.group) {
            Some(g) => {
                g.1 += 1;
                g.2 += e.abs();
            }
            None => out.push((r.group.clone(), 1, e.abs())),
        }
    }
    for g in &mut out {
        g.2 /= g.1 as f64;
    }
    out
}

/// Reads a case file: a JSON array of cases, or an object with a `cases` array.
pub fn parse_cases(text: &str) -> Result<Vec<Value>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    match v {
        Value::Array(a) => Ok(a),
        Value::Object(mut o) => match o.remove("cases") {
            Some(Value::Array(a)) => Ok(a),
            _ => Err("expected an array of cases or an object with a \"cases\" array.".into()),
        },
        _ => Err("expected an array of cases or an object with a \"cases\" array.".into()),
    }
}

/// Runs `paracalc validate`.
pub fn run(args: &[String]) -> Result<String, CliError> {
    let args = Args::parse(args, &["--json", "--calibrate"], &["--first-sight"])?;
    let path = args.one("CASES.json")?;
    let text = read_file(path)?;
    let cases = parse_cases(&text).map_err(|e| CliError::input(format!("{path}: {e}")))?;
    let first = match first_sight::path_for(path, args.value("--first-sight")) {
        Some(p) => Some(first_sight::compare(
            &cases,
            &first_sight::load(&p).map_err(CliError::input)?,
        )),
        None => None,
    };
    let Comparison {
        rows,
        not_fitting: over,
        verdicts,
    } = compare(&cases);
    let counts = verdict_summary(&verdicts);
    let summary = summarize(cases.len(), &rows);
    let cal = args.has("--calibrate").then(|| calibrated(&cases));
    let loso = loso::coverage(&cases);
    if args.has("--json") {
        let mut v = to_json(&summary, &rows, cal.as_ref());
        if let Some(Value::Object(summary)) = v.get_mut("summary") {
            let ids: Vec<&str> = over.iter().map(|o| o.0.as_str()).collect();
            summary.insert("ran_predicted_not_to_fit".into(), json!(ids));
            summary.insert(
                "leave_one_source_out".into(),
                json!({"step": loso::json(&loso.0), "memory": loso::json(&loso.1)}),
            );
            let mut fit = Map::new();
            for (set, [f, m, d]) in counts {
                fit.insert(
                    set.into(),
                    json!({"fits": f, "may_not_fit": m, "does_not_fit": d}),
                );
            }
            let listed = |want: crate::engine::memory::verdict::Verdict| -> Vec<Value> {
                verdicts
                    .iter()
                    .filter(|v| !v.oom && v.fit.verdict == want)
                    .map(|v| {
                        json!({"id": v.id, "group": v.group, "fully_stated": v.fully_stated,
                               "peak_gib": v.peak_gib, "usable_gib": v.capacity_gib,
                               "band_pct": 100.0 * v.fit.band_frac,
                               "flip_term": v.fit.flip.term, "flip_pct": v.fit.flip.pct})
                    })
                    .collect()
            };
            use crate::engine::memory::verdict::Verdict;
            fit.insert("ran_may_not_fit".into(), json!(listed(Verdict::MayNotFit)));
            fit.insert(
                "ran_does_not_fit".into(),
                json!(listed(Verdict::DoesNotFit)),
            );
            summary.insert("memory_verdicts".into(), Value::Object(fit));
            if let Some(f) = &first {
                summary.insert("first_sight".into(), first_sight::json(f));
            }
        }
        Ok(v.to_string())
    } else {
        let mut text = to_text(&summary, &rows, cal.as_ref());
        loso::text(&mut text, &loso.0);
        loso::text(&mut text, &loso.1);
        let _ = writeln!(
            text,
            "\nran, but predicted not to fit: {} runs (peak / usable GiB)",
            over.len()
        );
        for (id, peak, cap) in &over {
            let _ = writeln!(text, "  {id:<48} {peak:>8.1} / {cap:.1}");
        }
        let _ = writeln!(
            text,
            "\nmemory verdicts (fits / may not fit / does not fit; band: the memory MAPE of the runs most like each):"
        );
        for (set, [f, m, d]) in counts {
            let _ = writeln!(text, "  {set:<18} {f:>4} / {m:>4} / {d:>4}");
        }
        for v in verdicts
            .iter()
            .filter(|v| !v.oom && v.fit.verdict != crate::engine::memory::verdict::Verdict::Fits)
        {
            let _ = writeln!(
                text,
                "  {:<48} {:>8.1} / {:.1} GiB  {}{}",
                v.id,
                v.peak_gib,
                v.capacity_gib,
                v.fit.text(),
                if v.fully_stated {
                    ""
                } else {
                    " [assumed settings]"
                }
            );
        }
        if let Some(f) = &first {
            text.push_str(&first_sight::text(f));
        }
        Ok(text)
    }
}

fn to_json(s: &Summary, rows: &[Row], cal: Option<&Calibrated>) -> Value {
    let mut groups = Map::new();
    for (g, n, mape) in time_by_group(rows) {
        groups.insert(g, json!({"time_cases": n, "time_mape_pct": mape}));
    }
    if let Some((pairs, _, errors)) = cal {
        for c in calibrated_by_group(pairs, errors) {
            if let Some(Value::Object(o)) = groups.get_mut(&c.group) {
                o.insert("calibrated_pairs".into(), json!(c.pairs));
                o.insert("calibrated_time_mape_pct".into(), json!(c.calibrated));
                o.insert(
                    "uncalibrated_pairs_time_mape_pct".into(),
                    json!(c.uncalibrated),
                );
                o.insert("scale_transfer_time_mape_pct".into(), json!(c.scale));
                o.insert("time_mean_error_pct".into(), json!(c.mean_pct));
                o.insert("time_error_spread_pct".into(), json!(c.spread_pct));
                o.insert("calibration_acceptance".into(), json!(c.holds()));
            }
        }
    }
    let cases: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut o = json!({
                "id": r.id,
                "group": r.group,
                "metric": r.metric,
                "measured": r.measured,
                "predicted": r.predicted,
                "error_pct": r.error_pct(),
            });
            if let (Some(e), Value::Object(m)) = (&r.error, &mut o) {
                m.insert("error".into(), Value::String(e.clone()));
            }
            o
        })
        .collect();
    let mut out = json!({
        "summary": {
            "cases": s.cases,
            "time_measured": s.time_measured,
            "time_cases": s.time_cases,
            "time_mape_pct": s.time_mape_pct,
            "time_within_10pct": s.time_within_10pct,
            "memory_cases": s.memory_cases,
            "memory_mape_pct": s.memory_mape_pct,
            "oom_cases": s.oom_cases,
            "oom_correct": s.oom_correct,
            "time_by_group": groups,
        },
        "cases": cases,
    });
    if let (Some((pairs, failed, errors)), Some(Value::Object(summary))) =
        (cal, out.get_mut("summary"))
    {
        let (n, mape, uncal) = calibrated_overall(pairs);
        let by = calibrated_by_group(pairs, errors);
        let misses: Vec<&str> = by
            .iter()
            .filter(|c| !c.holds())
            .map(|c| c.group.as_str())
            .collect();
        summary.insert(
            "calibration_acceptance".into(),
            json!({"groups": by.len(), "holds": by.len() - misses.len(), "misses": misses}),
        );
        summary.insert("calibrated_pairs".into(), json!(n));
        summary.insert("calibrated_failed_pairs".into(), json!(failed));
        summary.insert("calibrated_time_mape_pct".into(), json!(mape));
        summary.insert("uncalibrated_pairs_time_mape_pct".into(), json!(uncal));
    }
    out
}

/// The text report: a line per row, the summary, the step-time MAPE by group (with the
/// calibration's figures when `cal` is given) and the calibration's overall result.
fn to_text(s: &Summary, rows: &[Row], cal: Option<&Calibrated>) -> String {
    let mut out = String::new();
    write_rows(&mut out, rows);
    write_summary(&mut out, s);
    let by_cal = cal.map(|(pairs, _, errors)| calibrated_by_group(pairs, errors));
    write_groups(&mut out, rows, by_cal.as_deref());
    if let Some((pairs, failed, _)) = cal {
        write_calibration(&mut out, pairs, *failed, by_cal.as_deref());
    }
    out
}

/// One line per row: case, metric, measured, predicted and the error (or why there is none).
fn write_rows(out: &mut String, rows: &[Row]) {
    let _ = writeln!(
        out,
        "{:<48} {:<7} {:>12} {:>12} {:>8}",
        "case", "metric", "measured", "predicted", "error"
    );
    for r in rows {
        let unit = match r.metric {
            "time" => "s",
            "memory" => "GiB",
            _ => "",
        };
        let measured = fmt_value(r.metric, r.measured, unit);
        match (r.predicted, &r.error) {
            (Some(p), _) => {
                let err = r.error_pct().map_or_else(
                    || {
                        if p == r.measured {
                            "ok".into()
                        } else {
                            "WRONG".into()
                        }
                    },
                    |e| format!("{e:+.1}%"),
                );
                let _ = writeln!(
                    out,
                    "{:<48} {:<7} {:>12} {:>12} {:>8}",
                    r.id,
                    r.metric,
                    measured,
                    fmt_value(r.metric, p, unit),
                    err
                );
            }
            (None, e) => {
                let _ = writeln!(
                    out,
                    "{:<48} {:<7} {:>12} {:>12}  error: {}",
                    r.id,
                    r.metric,
                    measured,
                    "-",
                    e.as_deref().unwrap_or("not evaluated")
                );
            }
        }
    }
}

/// The counts and MAPEs of the summary.
fn write_summary(out: &mut String, s: &Summary) {
    let _ = writeln!(out);
    let _ = writeln!(out, "cases in file:        {}", s.cases);
    let _ = writeln!(
        out,
        "step time:            {} of {} evaluated, MAPE {:.2}%, {:.1}% within ±10%",
        s.time_cases,
        s.time_measured,
        s.time_mape_pct,
        100.0 * s.time_within_10pct
    );
    let _ = writeln!(
        out,
        "memory:               {} evaluated, MAPE {:.2}%",
        s.memory_cases, s.memory_mape_pct
    );
    let _ = writeln!(
        out,
        "out of memory:        {} of {} predicted correctly",
        s.oom_correct, s.oom_cases
    );
}

/// Step-time MAPE by group, with each group's calibration figures when there are some.
fn write_groups(out: &mut String, rows: &[Row], by_cal: Option<&[CalGroup]>) {
    let _ = writeln!(out, "\nstep-time MAPE by group:");
    for (g, n, mape) in time_by_group(rows) {
        let _ = write!(out, "  {:<32} {:>4} cases  {:>6.2}%", g, n, mape);
        if let Some(c) = by_cal
            .as_ref()
            .and_then(|b| b.iter().find(|x| x.group == g))
        {
            let _ = write!(
                out,
                "   calibrated {:>6.2}% ({} pairs; {:.2}% without, {:.2}% scaled; {})",
                c.calibrated,
                c.pairs,
                c.uncalibrated,
                c.scale,
                if c.holds() { "holds" } else { "misses" }
            );
        }
        let _ = writeln!(out);
    }
}

/// The calibration's overall result: its MAPE over every pair against the same targets
/// uncalibrated, and the groups where its acceptance misses.
fn write_calibration(out: &mut String, pairs: &[Pair], failed: usize, by_cal: Option<&[CalGroup]>) {
    let (n, mape, uncal) = calibrated_overall(pairs);
    let _ = writeln!(
        out,
        "\ncalibrated on one run, predicting another of its group: {n} pairs, MAPE {mape:.2}% ({failed} pairs failed); the same targets without calibration: {uncal:.2}%"
    );
    if let Some(b) = by_cal {
        let misses: Vec<&str> = b
            .iter()
            .filter(|c| !c.holds())
            .map(|c| c.group.as_str())
            .collect();
        let _ = writeln!(
            out,
            "calibration's acceptance (below uncalibrated where a group's mean error exceeds its spread, else no worse than a pure scale): holds in {} of {} groups; misses: {}",
            b.len() - misses.len(),
            b.len(),
            if misses.is_empty() { "none".to_string() } else { misses.join(", ") }
        );
    }
}

fn fmt_value(metric: &str, v: f64, unit: &str) -> String {
    if metric == "oom" {
        return if v >= 0.5 {
            "oom".into()
        } else {
            "fits".into()
        };
    }
    if v.abs() >= 100.0 {
        format!("{v:.1} {unit}")
    } else if v.abs() >= 1.0 {
        format!("{v:.3} {unit}")
    } else {
        format!("{v:.4} {unit}")
    }
}
