//! Leave-one-source-out coverage of the error bands (`paracalc validate`, issue 31): for each
//! group (one source table), the stated 80 % band of each of its runs is built *without* that
//! group's runs ([`super::interval::interval`] with `exclude`), and the run counts as covered
//! when its measured error lies inside. This is the band's honest test: a user's run comes
//! from a source the bands never saw.
//!
//! Beside it, the same test of the band stated before issue 31 ("previous"): the 10th-90th
//! percentile range of the signed errors of the runs most like the plan ([`super::band::Spread`]),
//! also built without the group, which covered far less than 80 % on unseen sources.

use super::band::band_with;
use super::interval::{group_of, interval, Errors, Metric};
use super::Case;
use serde_json::Value;

/// One group's leave-one-out result.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupCoverage {
    /// The group.
    pub group: String,
    /// Its runs with a measured value that the engine estimates.
    pub runs: usize,
    /// Runs inside their band built without the group.
    pub inside: usize,
    /// Median width of those bands, percentage points.
    pub median_width: f64,
    /// Runs inside the previous (in-sample similar-runs) band built without the group.
    pub previous_inside: usize,
    /// Median width of the previous bands, percentage points.
    pub previous_median_width: f64,
}

/// Leave-one-source-out coverage of one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// Step time or peak memory.
    pub metric: Metric,
    /// Per group, in first-seen order.
    pub groups: Vec<GroupCoverage>,
    /// Runs over all groups.
    pub runs: usize,
    /// Of them inside their band.
    pub inside: usize,
    /// Median band width over all runs, percentage points.
    pub median_width: f64,
    /// Of them inside the previous band.
    pub previous_inside: usize,
    /// Median width of the previous band over all runs.
    pub previous_median_width: f64,
}

impl Coverage {
    /// Pooled coverage, a fraction (0 without runs).
    pub fn fraction(&self) -> f64 {
        ratio(self.inside, self.runs)
    }

    /// Pooled coverage of the previous band, a fraction.
    pub fn previous_fraction(&self) -> f64 {
        ratio(self.previous_inside, self.runs)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The cases of a validation file (parsed JSON) as evidence cases: every case with a scenario
/// paracalc reads and a measured step time or peak memory (`step_s` 0 when only the memory was
/// measured).
pub fn cases_of(values: &[Value]) -> Vec<Case> {
    let text = |c: &Value, k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    values
        .iter()
        .filter_map(|c| {
            let scenario = crate::scenario::from_value(c.get("scenario")?).ok()?;
            let step_s = c
                .pointer("/measured/iteration_time_s")
                .and_then(Value::as_f64);
            let memory_gib = c.pointer("/measured/memory_gib").and_then(Value::as_f64);
            (step_s.is_some() || memory_gib.is_some()).then(|| Case {
                id: text(c, "id"),
                source: text(c, "source"),
                scenario,
                step_s: step_s.unwrap_or(0.0),
                group: text(c, "group"),
                memory_gib,
                memory_kind: c
                    .pointer("/measured/memory_kind")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            })
        })
        .collect()
}

/// Leave-one-source-out coverage of `metric` over `cases` (with their `errors`).
pub fn coverage(cases: &[Case], errors: &Errors, metric: Metric) -> Coverage {
    let err = |i: usize| match metric {
        Metric::Step => errors.step_pct[i],
        Metric::Memory => errors.memory_pct[i],
    };
    let mut order: Vec<&str> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        if err(i).is_some() && !order.contains(&group_of(c)) {
            order.push(group_of(c));
        }
    }
    let (mut widths, mut previous_widths) = (Vec::new(), Vec::new());
    let mut groups = Vec::with_capacity(order.len());
    for g in order {
        // The other groups' runs, for the previous band.
        let keep: Vec<usize> = (0..cases.len())
            .filter(|&i| group_of(&cases[i]) != g)
            .collect();
        let others: Vec<Case> = keep.iter().map(|&i| cases[i].clone()).collect();
        let other_errors = Errors {
            step_pct: keep.iter().map(|&i| errors.step_pct[i]).collect(),
            memory_pct: keep.iter().map(|&i| errors.memory_pct[i]).collect(),
        };
        let (mut w, mut pw) = (Vec::new(), Vec::new());
        let mut gc = GroupCoverage {
            group: g.to_string(),
            runs: 0,
            inside: 0,
            median_width: 0.0,
            previous_inside: 0,
            previous_median_width: 0.0,
        };
        for (i, c) in cases.iter().enumerate() {
            let Some(e) = err(i).filter(|_| group_of(c) == g) else {
                continue;
            };
            let Some(b) = interval(cases, errors, metric, &c.scenario, Some(g)) else {
                continue;
            };
            gc.runs += 1;
            gc.inside += usize::from(b.contains(e));
            w.push(b.width());
            let previous =
                band_with(&others, &other_errors, &c.scenario).and_then(|p| match metric {
                    Metric::Step => Some(p.spread),
                    Metric::Memory => p.memory_spread,
                });
            if let Some(p) = previous {
                gc.previous_inside += usize::from((p.lo_pct..=p.hi_pct).contains(&e));
                pw.push(p.hi_pct - p.lo_pct);
            }
        }
        gc.median_width = median(&mut w.clone());
        gc.previous_median_width = median(&mut pw.clone());
        widths.extend(w);
        previous_widths.extend(pw);
        groups.push(gc);
    }
    Coverage {
        metric,
        runs: groups.iter().map(|g| g.runs).sum(),
        inside: groups.iter().map(|g| g.inside).sum(),
        previous_inside: groups.iter().map(|g| g.previous_inside).sum(),
        median_width: median(&mut widths),
        previous_median_width: median(&mut previous_widths),
        groups,
    }
}

/// The median of `xs` (reordered; 0 when empty).
fn median(xs: &mut [f64]) -> f64 {
    let n = xs.len();
    if n == 0 {
        return 0.0;
    }
    crate::sort::sort_by(xs, f64::total_cmp);
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        0.5 * (xs[n / 2 - 1] + xs[n / 2])
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }
}
