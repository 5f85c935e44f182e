//! `validate`'s leave-one-source-out report (issue 31): the coverage of the stated 80 % bands
//! for the step time and the peak memory, each group's runs against the band built without the
//! group ([`crate::evidence::loso`]), as text and as JSON (`summary.leave_one_source_out`).

use crate::evidence::interval::{Errors, Metric};
use crate::evidence::loso::{self, Coverage};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

/// Leave-one-source-out coverage of the stated 80 % bands for the step time and the peak
/// memory ([`crate::evidence::loso`]).
pub fn coverage(cases: &[Value]) -> (Coverage, Coverage) {
    let ev = loso::cases_of(cases);
    let errors = Errors::of(&ev);
    (
        loso::coverage(&ev, &errors, Metric::Step),
        loso::coverage(&ev, &errors, Metric::Memory),
    )
}

pub fn json(c: &Coverage) -> Value {
    let groups: Map<String, Value> = c
        .groups
        .iter()
        .map(|g| {
            (
                g.group.clone(),
                json!({
                    "runs": g.runs,
                    "inside": g.inside,
                    "coverage": g.inside as f64 / g.runs.max(1) as f64,
                    "median_width_pct": g.median_width,
                    "previous_inside": g.previous_inside,
                    "previous_median_width_pct": g.previous_median_width,
                }),
            )
        })
        .collect();
    json!({
        "runs": c.runs,
        "inside": c.inside,
        "coverage": c.fraction(),
        "median_width_pct": c.median_width,
        "previous_inside": c.previous_inside,
        "previous_coverage": c.previous_fraction(),
        "previous_median_width_pct": c.previous_median_width,
        "by_group": groups,
    })
}

pub fn text(out: &mut String, c: &Coverage) {
    let what = match c.metric {
        Metric::Step => "step time",
        Metric::Memory => "peak memory",
    };
    let _ = writeln!(
        out,
        "\nleave-one-source-out, {what}: each group's runs against the 80 % band built without \
         the group (the previous similar-runs band beside it)"
    );
    let _ = writeln!(
        out,
        "  {:<32} {:>5} {:>9} {:>7}   {:>9} {:>7}",
        "group", "runs", "covered", "width", "previous", "width"
    );
    let pct = |a: usize, n: usize| 100.0 * a as f64 / n.max(1) as f64;
    for g in &c.groups {
        let _ = writeln!(
            out,
            "  {:<32} {:>5} {:>8.0}% {:>6.1}pt   {:>8.0}% {:>6.1}pt",
            g.group,
            g.runs,
            pct(g.inside, g.runs),
            g.median_width,
            pct(g.previous_inside, g.runs),
            g.previous_median_width
        );
    }
    let _ = writeln!(
        out,
        "  {:<32} {:>5} {:>8.1}% {:>6.1}pt   {:>8.1}% {:>6.1}pt",
        "pooled",
        c.runs,
        100.0 * c.fraction(),
        c.median_width,
        100.0 * c.previous_fraction(),
        c.previous_median_width
    );
}
