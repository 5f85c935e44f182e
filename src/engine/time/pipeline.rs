//! Pipeline schedule time: busy time of the slowest stage plus the bubble.
//!
//! Uniform stages (Narayanan et al. 2021 §2.2, [FORMULAS.md](crate::docs::formulas) §6): the bubble is `(p−1)/m` of the
//! ideal time for 1F1B and GPipe, `(p−1)/(v·m)` interleaved, i.e. the step is
//! `(m + (p−1)/v)·t` with `t` the time of one micro-batch (forward + backward) on one stage.
//!
//! Uneven stages **[derived]**: the first micro-batch's forward and the last one's backward pass
//! through every stage once, and the slowest stage (time `t_max` per micro-batch) sets the pace
//! in between, so the step is `m·t_max + (Σ_r t_r − t_max)/v`. With equal stages this is the
//! formula above. Interleaving with `m mod p ≠ 0` adds `(v−1)·(p − m mod p)` chunk times
//! (Calculon `llm.py`, [FORMULAS.md](crate::docs::formulas) §6).

use crate::scenario::Schedule;

/// Idle time of the slowest stage per step, seconds.
///
/// `sum_s` and `max_s` are the sum and maximum over stages of one micro-batch's time on a stage
/// (all its chunks), `p` stages, `m` micro-batches, `v` chunks per stage.
pub fn bubble_s(sum_s: f64, max_s: f64, p: u64, m: u64, v: u64, schedule: Schedule) -> f64 {
    if p <= 1 {
        return 0.0;
    }
    let v_eff = match schedule {
        Schedule::Interleaved => v.max(1),
        Schedule::OneFOneB | Schedule::Gpipe => 1,
    };
    let vf = v_eff as f64;
    let base = ((sum_s - max_s) / vf).max(0.0);
    let rem = m % p;
    let extra = if v_eff > 1 && rem != 0 {
        (vf - 1.0) * (p - rem) as f64 * max_s / vf
    } else {
        0.0
    };
    base + extra
}

/// Bubble over ideal time for uniform stages: `(p−1)/(v·m)` (Narayanan et al. 2021). Not the
/// share of the step: that is [`TimeEstimate::bubble_fraction`](crate::engine::TimeEstimate::bubble_fraction).
pub fn bubble_ratio(p: u64, m: u64, v: u64) -> f64 {
    if m == 0 {
        return 0.0;
    }
    p.saturating_sub(1) as f64 / (v.max(1) as f64 * m as f64)
}
