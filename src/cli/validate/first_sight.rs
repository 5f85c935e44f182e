//! `validate`'s first-sight columns (issue 31): per group, the error the engine makes now beside
//! the error it made the first time it saw the group's source ([`crate::evidence::first_sight`],
//! `tests/data/first_sight.json`), over the same runs, and a rule of thumb to beat: each run
//! predicted with one MFU fitted on every other group.
//!
//! The current error is in-sample for the groups the model was shaped with; the first-sight
//! error is not. A run whose current version has no record of its own but descends from a
//! recorded one through the file's `changes` is compared with that earlier record (counted in
//! `earlier`); its first-sight error is against the measurement as it was then.

use crate::calibrate::MemoryKind;
use crate::engine::{estimate, Estimate};
use crate::evidence::first_sight::{case_digest, Book, Sight};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::path::Path;

/// One run's step times: now and at first sight.
struct Run {
    group: String,
    /// Current signed error, %.
    now: f64,
    /// First-sight signed error, % (from its record).
    first: Option<f64>,
    /// The record is of an earlier version of the run.
    earlier: bool,
    /// The first sight's engine commit.
    commit: Option<String>,
    /// Model FLOPs per GPU over peak, s (step × MFU: the step at 100 % MFU).
    ideal_s: f64,
    /// Measured step, s.
    measured_s: f64,
    /// Current and first-sight memory errors, %.
    memory: Option<(f64, Option<f64>)>,
}

/// Mean absolute and signed mean of `e`, % (zeros when empty).
fn stats(e: &[f64]) -> (f64, f64) {
    if e.is_empty() {
        return (0.0, 0.0);
    }
    let n = e.len() as f64;
    (
        e.iter().map(|x| x.abs()).sum::<f64>() / n,
        e.iter().sum::<f64>() / n,
    )
}

/// Per group (first-seen order): errors over the runs that have both a current and a
/// first-sight error.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Group name; "all" for the pooled row.
    pub group: String,
    /// Timed runs compared.
    pub n: usize,
    /// Of those, compared with a record of an earlier version of the run.
    pub earlier: usize,
    /// Current step-time MAPE and signed mean, %.
    pub now: (f64, f64),
    /// First-sight step-time MAPE and signed mean, %.
    pub first: (f64, f64),
    /// Constant-MFU baseline (MFU fitted on the other groups) MAPE and signed mean, %.
    pub const_mfu: (f64, f64),
    /// Memory runs compared, current and first-sight MAPE, %.
    pub memory: (usize, f64, f64),
    /// Runs that ran (not `oom`) with a recorded fit: `(runs, predicted not to fit now, at
    /// first sight)`.
    pub not_fitting: (usize, usize, usize),
    /// The first-sight engines' commits.
    pub commits: Vec<String>,
}

/// A case's `id` and `group`, when it has both.
fn id_and_group(case: &Value) -> Option<(&str, &str)> {
    Some((
        case.get("id").and_then(Value::as_str)?,
        case.get("group").and_then(Value::as_str)?,
    ))
}

/// Per group, the runs that ran (not `oom`) whose first sight recorded a fit: `(group, runs,
/// predicted not to fit now, at first sight)`.
fn not_fitting(
    cases: &[Value],
    estimates: &[Option<Estimate>],
    book: &Book,
) -> Vec<(String, usize, usize, usize)> {
    let mut out: Vec<(String, usize, usize, usize)> = Vec::new();
    for (case, e) in cases.iter().zip(estimates) {
        let Some((id, group)) = id_and_group(case) else {
            continue;
        };
        if case.pointer("/measured/oom").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let first = match book.sight(id, &case_digest(case)) {
            Sight::Exact(r) | Sight::Earlier(r) => r.predicted_fits,
            Sight::None => None,
        };
        let now = e.as_ref().map(|e| e.memory.fits);
        let (Some(first), Some(now)) = (first, now) else {
            continue;
        };
        let i = match out.iter().position(|g| g.0 == group) {
            Some(i) => i,
            None => {
                out.push((group.to_string(), 0, 0, 0));
                out.len() - 1
            }
        };
        out[i].1 += 1;
        out[i].2 += usize::from(!now);
        out[i].3 += usize::from(!first);
    }
    out
}

/// The runs of `cases` with a measured step time the engine evaluates now.
fn runs(cases: &[Value], estimates: &[Option<Estimate>], book: &Book) -> Vec<Run> {
    let mut out = Vec::new();
    for (case, e) in cases.iter().zip(estimates) {
        let Some((id, group)) = id_and_group(case) else {
            continue;
        };
        let Some(measured_s) = case
            .pointer("/measured/iteration_time_s")
            .and_then(Value::as_f64)
        else {
            continue;
        };
        let Some(e) = e else {
            continue;
        };
        let step = e.time.step_s;
        if !(step.is_finite() && measured_s > 0.0) {
            continue;
        }
        let (first, earlier, commit, rec) = match book.sight(id, &case_digest(case)) {
            Sight::Exact(r) => (r.step_error_pct, false, Some(r.commit.clone()), Some(r)),
            Sight::Earlier(r) => (r.step_error_pct, true, Some(r.commit.clone()), Some(r)),
            Sight::None => (None, false, None, None),
        };
        let kind = case
            .pointer("/measured/memory_kind")
            .and_then(Value::as_str)
            .unwrap_or("device_used");
        let memory = case
            .pointer("/measured/memory_gib")
            .and_then(Value::as_f64)
            .zip(MemoryKind::from_name(kind).and_then(|k| k.peak_gib(e)).ok())
            .map(|(m, p)| (100.0 * (p - m) / m, rec.and_then(|r| r.memory_error_pct)));
        out.push(Run {
            group: group.to_string(),
            now: 100.0 * (step - measured_s) / measured_s,
            first,
            earlier,
            commit,
            ideal_s: step * e.throughput.mfu,
            measured_s,
            memory,
        });
    }
    out
}

/// The geometric mean of the measured MFU of the runs outside `group` (the MFU that minimises
/// the squared log error of a constant-MFU prediction on them); `None` without such runs.
fn mfu_without(runs: &[Run], group: &str) -> Option<f64> {
    let logs: Vec<f64> = runs
        .iter()
        .filter(|r| r.group != group && r.ideal_s > 0.0)
        .map(|r| (r.ideal_s / r.measured_s).ln())
        .collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// Per-group comparison (groups without a first-sight step error are left out) and the pooled
/// row over all their runs, last.
pub fn compare(cases: &[Value], book: &Book) -> Vec<Group> {
    // One estimate per case, read by both the step-time runs and the fit counts.
    let estimates: Vec<Option<Estimate>> = cases
        .iter()
        .map(|case| {
            case.get("scenario")
                .and_then(|v| crate::scenario::from_value(v).ok())
                .and_then(|s| estimate(&s).ok())
        })
        .collect();
    let runs = runs(cases, &estimates, book);
    let fits = not_fitting(cases, &estimates, book);
    let mut all_fits = (0, 0, 0);
    let mut names: Vec<&str> = Vec::new();
    for r in &runs {
        if !names.contains(&r.group.as_str()) {
            names.push(&r.group);
        }
    }
    let mut out = Vec::new();
    let (mut all_now, mut all_first, mut all_base) = (Vec::new(), Vec::new(), Vec::new());
    let (mut all_mem_now, mut all_mem_first, mut all_earlier) = (Vec::new(), Vec::new(), 0);
    for g in names {
        let mfu = mfu_without(&runs, g);
        let (mut now, mut first, mut base, mut commits) = (vec![], vec![], vec![], vec![]);
        let (mut mem_now, mut mem_first, mut earlier) = (vec![], vec![], 0);
        for r in runs.iter().filter(|r| r.group == g) {
            if let Some((m, Some(f))) = r.memory {
                mem_now.push(m);
                mem_first.push(f);
            }
            let Some(f) = r.first else { continue };
            now.push(r.now);
            first.push(f);
            earlier += usize::from(r.earlier);
            if let Some(m) = mfu {
                base.push(100.0 * (r.ideal_s / m - r.measured_s) / r.measured_s);
            }
            if let Some(c) = &r.commit {
                if !commits.contains(c) {
                    commits.push(c.clone());
                }
            }
        }
        if now.is_empty() {
            continue;
        }
        let nf = fits
            .iter()
            .find(|f| f.0 == g)
            .map_or((0, 0, 0), |f| (f.1, f.2, f.3));
        all_fits = (all_fits.0 + nf.0, all_fits.1 + nf.1, all_fits.2 + nf.2);
        out.push(Group {
            group: g.to_string(),
            n: now.len(),
            earlier,
            now: stats(&now),
            first: stats(&first),
            const_mfu: stats(&base),
            memory: (mem_now.len(), stats(&mem_now).0, stats(&mem_first).0),
            not_fitting: nf,
            commits,
        });
        all_now.extend(now);
        all_first.extend(first);
        all_base.extend(base);
        all_mem_now.extend(mem_now);
        all_mem_first.extend(mem_first);
        all_earlier += earlier;
    }
    if !out.is_empty() {
        out.push(Group {
            group: "all".into(),
            n: all_now.len(),
            earlier: all_earlier,
            now: stats(&all_now),
            first: stats(&all_first),
            const_mfu: stats(&all_base),
            memory: (
                all_mem_now.len(),
                stats(&all_mem_now).0,
                stats(&all_mem_first).0,
            ),
            not_fitting: all_fits,
            commits: Vec::new(),
        });
    }
    out
}

/// The first-sight file for `cases_path`: `flag` when given, else `first_sight.json` beside the
/// cases file when it exists.
pub fn path_for(cases_path: &str, flag: Option<&str>) -> Option<String> {
    if let Some(f) = flag {
        return Some(f.to_string());
    }
    let beside = Path::new(cases_path).with_file_name("first_sight.json");
    beside
        .is_file()
        .then(|| beside.to_string_lossy().into_owned())
}

/// Reads and parses the first-sight file.
pub fn load(path: &str) -> Result<Book, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| format!("{path}: not valid JSON: {e}"))?;
    Book::parse(&v).map_err(|e| format!("{path}: {e}"))
}

/// The text table.
pub fn text(groups: &[Group]) -> String {
    let mut o = String::from(
        "\nstep time now and at first sight (the engine before any change made with the group in \
         view), same runs;\nMAPE % and signed mean % (+: predicted slower); const MFU: one MFU \
         fitted on every other group of the file\n",
    );
    let w = groups
        .iter()
        .map(|g| g.group.len())
        .max()
        .unwrap_or(0)
        .max(5);
    let _ = writeln!(
        o,
        "  {:<w$} {:>4} {:>14} {:>14} {:>14}  first-sight engine",
        "group", "runs", "now", "first sight", "const MFU"
    );
    let pair = |(m, s): (f64, f64)| format!("{m:>5.1} {s:>+7.1}");
    for g in groups {
        let runs = if g.earlier > 0 {
            format!("{}*", g.n)
        } else {
            g.n.to_string()
        };
        let _ = writeln!(
            o,
            "  {:<w$} {:>4} {:>14} {:>14} {:>14}  {}",
            g.group,
            runs,
            pair(g.now),
            pair(g.first),
            pair(g.const_mfu),
            g.commits.join(" ")
        );
    }
    if groups.iter().any(|g| g.earlier > 0) {
        o.push_str(
            "  *: some runs changed since their first sight; their first-sight error is against \
             the measurement as it was then\n",
        );
    }
    if let Some(all) = groups.last().filter(|g| g.memory.0 > 0) {
        let _ = writeln!(
            o,
            "memory, runs with a first sight: {} runs, MAPE now {:.1} %, at first sight {:.1} %",
            all.memory.0, all.memory.1, all.memory.2
        );
    }
    if let Some(all) = groups.last().filter(|g| g.not_fitting.0 > 0) {
        let _ = writeln!(
            o,
            "runs that ran, predicted not to fit: {} of {} now, {} at first sight",
            all.not_fitting.1, all.not_fitting.0, all.not_fitting.2
        );
    }
    o
}

/// The JSON object (`summary.first_sight`): per group and pooled (`all`).
pub fn json(groups: &[Group]) -> Value {
    let mut m = Map::new();
    for g in groups {
        m.insert(
            g.group.clone(),
            json!({
                "time_cases": g.n,
                "earlier_version_cases": g.earlier,
                "time_mape_pct": g.now.0,
                "time_signed_mean_pct": g.now.1,
                "first_sight_time_mape_pct": g.first.0,
                "first_sight_time_signed_mean_pct": g.first.1,
                "const_mfu_time_mape_pct": g.const_mfu.0,
                "const_mfu_time_signed_mean_pct": g.const_mfu.1,
                "memory_cases": g.memory.0,
                "memory_mape_pct": g.memory.1,
                "first_sight_memory_mape_pct": g.memory.2,
                "ran_with_recorded_fit": g.not_fitting.0,
                "ran_predicted_not_to_fit": g.not_fitting.1,
                "first_sight_ran_predicted_not_to_fit": g.not_fitting.2,
                "first_sight_commits": g.commits,
            }),
        );
    }
    Value::Object(m)
}
