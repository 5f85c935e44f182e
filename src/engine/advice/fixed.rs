//! The costs a step pays once whatever the work per GPU ([`FixedCosts`]), named in the verdict
//! when they take over, and the GPU count from which they do in a scaling sweep
//! ([fixed.md](crate::docs::formulas::fixed) §2).

use crate::engine::sweep::GpuPoint;
use crate::engine::time::breakdown::{FixedCosts, TimeEstimate};
use serde::Serialize;

/// Share of the step from which the fixed costs are named: a step of fixed part `F` and compute
/// `C/N` has a scaling efficiency `1 − F/step` against a GPU count where `F` is negligible, so
/// from a tenth of the step the curve is below 90 % of linear because of them.
pub const FIXED_SHARE_NAMED: f64 = 0.1;

/// The fixed costs of one step, named.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FixedNote {
    /// Their sum, s.
    pub seconds: f64,
    /// Their share of the step (0..1).
    pub share: f64,
    /// `(what, seconds)` of each part that is at least 1 % of the sum, largest first.
    pub parts: Vec<(&'static str, f64)>,
}

/// Each fixed part in plain words, with its seconds, in [`FixedCosts`]'s order.
fn parts(f: &FixedCosts) -> [(&'static str, f64); 6] {
    [
        ("the optimizer's update", f.update_s),
        ("the gradient-norm all-reduce", f.grad_norm_s),
        ("the pipeline's warm-up and drain", f.bubble_s),
        (
            "the data-parallel reduction after the last backward",
            f.dp_tail_s,
        ),
        ("the tied embedding's all-reduce", f.tied_s),
        ("the eager host's optimizer phase", f.host_optimizer_s),
    ]
}

/// The note on `t`'s fixed costs when they are at least [`FIXED_SHARE_NAMED`] of the step.
pub fn note(t: &TimeEstimate) -> Option<FixedNote> {
    let f = &t.fixed;
    let share = f.total_s() / t.step_s;
    if !(share.is_finite() && share >= FIXED_SHARE_NAMED) {
        return None;
    }
    let mut named: Vec<(&'static str, f64)> = parts(f)
        .into_iter()
        .filter(|&(_, sec)| sec >= 0.01 * f.total_s())
        .collect();
    crate::sort::sort_by(&mut named, |a, b| b.1.total_cmp(&a.1));
    Some(FixedNote {
        seconds: f.total_s(),
        share,
        parts: named,
    })
}

/// The note in one sentence: "Costs paid once per step whatever the work per GPU are 24 % of the
/// step (31 ms): the data-parallel reduction after the last backward 30 ms, the optimizer's
/// update 1 ms; more data-parallel GPUs shrink only the rest."
pub fn sentence(n: &FixedNote) -> String {
    let list: Vec<String> = n
        .parts
        .iter()
        .map(|&(what, sec)| format!("{what} {}", crate::text::secs(sec)))
        .collect();
    format!(
        "Costs paid once per step whatever the work per GPU are {} % of the step ({}): {}; \
         more data-parallel GPUs shrink only the rest.",
        crate::text::num::Fixed(100.0 * n.share, 0),
        crate::text::secs(n.seconds),
        list.join(", ")
    )
}

/// The first point of a GPU sweep from which the fixed costs are at least
/// [`FIXED_SHARE_NAMED`] of the step, with its note: where the scaling curve bends.
pub fn bend(points: &[GpuPoint]) -> Option<(u64, FixedNote)> {
    points.iter().find_map(|p| {
        if p.error.is_some() {
            return None;
        }
        let t = TimeEstimate {
            step_s: p.step_s,
            fixed: p.fixed,
            ..TimeEstimate::default()
        };
        note(&t).map(|n| (p.num_gpus, n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::estimate::estimate;
    use crate::engine::sweep::{sweep_gpus, Scaling};

    #[test]
    fn named_when_they_take_over() {
        let mut t = TimeEstimate {
            step_s: 0.1,
            ..TimeEstimate::default()
        };
        t.fixed = FixedCosts::of(0.002, 0.0001, 0.0, 0.02, 0.0, 0.0);
        let n = note(&t).unwrap();
        assert!((n.share - 0.22).abs() < 1e-12);
        // Largest first; the gradient norm (0.5 % of the sum) is not named.
        assert_eq!(n.parts.len(), 2);
        assert_eq!(
            n.parts[0],
            ("the data-parallel reduction after the last backward", 0.02)
        );
        assert!((n.parts[1].1 - 0.0019).abs() < 1e-15);
        let s = sentence(&n);
        assert!(s.starts_with("Costs paid once per step whatever the work per GPU are 22 % of the step (22 ms): the data-parallel reduction after the last backward 20 ms, the optimizer's update 2 ms;"), "{s}");
        t.fixed = FixedCosts::of(0.002, 0.0001, 0.0, 0.005, 0.0, 0.0);
        assert!(note(&t).is_none());
    }

    #[test]
    fn a_small_model_bends_where_its_fixed_costs_take_over() {
        // GPT-3 1.3B, one sequence per GPU per micro-batch, 512 sequences per step on A100s:
        // from 8 to 512 GPUs the compute per GPU falls 64×, the gradient reduction does not.
        let mut s = crate::presets::model_preset("gpt3-1.3b")
            .unwrap()
            .scenario();
        s.training.micro_batch = 1;
        let pts = sweep_gpus(&s, &[8, 16, 32, 64, 128, 256, 512], Scaling::Strong);
        let share = |p: &GpuPoint| p.fixed.total_s() / p.step_s;
        for w in pts.windows(2) {
            assert!(share(&w[1]) > share(&w[0]), "{} GPUs", w[1].num_gpus);
        }
        let (at, n) = bend(&pts).unwrap();
        assert_eq!(at, 512);
        assert_eq!(
            n.parts[0].0,
            "the data-parallel reduction after the last backward"
        );
        // Below the bend the efficiency stays above 90 %; at it, it falls below.
        for p in &pts {
            assert_eq!(
                p.num_gpus >= at,
                p.scaling_efficiency < 0.9,
                "{}",
                p.num_gpus
            );
        }
        // The verdict names them at 512 GPUs.
        s.cluster.num_gpus = 512;
        s.parallel.dp = 512;
        let e = estimate(&s).unwrap();
        let v = crate::engine::advice::verdict(&s, &e);
        assert!(crate::engine::advice::sentence(&v).contains("Costs paid once per step"));
    }
}
