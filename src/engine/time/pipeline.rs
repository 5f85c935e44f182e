//! Pipeline schedule time: busy time of the slowest stage plus the bubble.
//!
//! Uniform stages (Narayanan et al. 2021 §2.2, [pipeline.md](crate::docs::formulas::pipeline) §1): the bubble is `(p−1)/m` of the
//! ideal time for 1F1B and GPipe, `(p−1)/(v·m)` interleaved, i.e. the step is
//! `(m + (p−1)/v)·t` with `t` the time of one micro-batch (forward + backward) on one stage.
//!
//! Uneven stages **[derived]**: the first micro-batch's forward and the last one's backward pass
//! through every stage once, and the slowest stage (time `t_max` per micro-batch) sets the pace
//! in between, so the step is `m·t_max + (Σ_r t_r − t_max)/v`. With equal stages this is the
//! formula above. Interleaving with `m mod p ≠ 0` adds `(v−1)·(p − m mod p)` chunk times
//! (Calculon `llm.py`, [pipeline.md](crate::docs::formulas::pipeline) §1).
//!
//! Schedules that split the backward into input-gradient work `B` and weight-gradient work `W`
//! ([`bubble_split_s`]) take their bubble from their sources, with `F`, `B`, `W` the slowest
//! rank's per-micro-batch times and `T = F + B + W`:
//! - ZB-H1: `(p−1)·(T_F + T_B − T_W)` (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024,
//!   Table 2), against 1F1B's `(p−1)·(T_F + T_B + T_W)`;
//! - DualPipe: `(PP/2 − 1)·(F&B + B − 3W)` (deepseek-ai/DualPipe README, "Pipeline Bubbles and
//!   Memory Usage Comparison", commit 3da1bbe), `B` there the full backward of a chunk (one
//!   stage) and `F&B` a forward and a backward chunk run overlapped, priced `F + B` (the overlap
//!   hides communication, not compute): `(p/2 − 1)·(2T − F − 3W)`;
//! - DualPipeV: the same row with `PP = 2p` chunks of half a rank: `(p − 1)·(2T − F − 3W)/2`;
//! - ZB-V **[derived]**: two chunks of half a rank in a V, scheduled as ZB-H2 (bubble
//!   `(p−1)·(T_F + T_B − 2T_W)`, Qi et al. Table 2) on chunks: `(p−1)·(T − 3W)/2`, which is 0
//!   when `T_F = T_B = T_W` as the sail-sg/zero-bubble-pipeline-parallelism README table gives
//!   (commit 39f2c18), never below 0.
//!
//! With uneven ranks the factor `p − 1` becomes `(Σ_r t_r − t_max)/t_max`, as for 1F1B above.
//!
//! A trainer that runs the schedule several times per step (`parallel.pp_rounds`, NeMo
//! Automodel's one `schedule.step` per gradient-accumulation step) fills and drains the pipeline
//! each time: the step's bubble is `rounds ×` that of one round of `m/rounds` micro-batches
//! ([`rounds_bubble`]).

use crate::scenario::Schedule;

/// Per-micro-batch times of the pipeline's ranks that the bubble depends on, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageSums {
    /// Sum over ranks of one micro-batch's time on the rank (all its chunks).
    pub sum: f64,
    /// The slowest rank's time `T`.
    pub max: f64,
    /// The slowest rank's forward `F`.
    pub fwd: f64,
    /// The slowest rank's weight-gradient work `W` (part of its backward).
    pub wgrad: f64,
}

/// Idle time of the slowest rank per step for any schedule, seconds: [`bubble_s`] for 1F1B,
/// GPipe and interleaved, [`bubble_split_s`] for the zero-bubble and DualPipe schedules.
pub fn bubble(t: &StageSums, p: u64, m: u64, v: u64, schedule: Schedule) -> f64 {
    if schedule.splits_backward() {
        bubble_split_s(t, p, schedule)
    } else {
        bubble_s(t.sum, t.max, p, m, v, schedule)
    }
}

/// The bubble of a step whose schedule runs `g.rounds` times ([`PerGpu::rounds`],
/// `parallel.pp_rounds`), each over `g.round_micro_batches()` micro-batches: every round fills
/// and drains the pipeline, so the step idles `rounds ×` one round's [`bubble`]. NeMo Automodel
/// calls `schedule.step` once per gradient-accumulation step with the local batch
/// (`recipes/llm/benchmark.py` l.168-186, `train_ft.py` `_forward_backward_step` l.921-938
/// @89e3a9fdd; `n_microbatches` = local batch / `pp_microbatch_size`, l.736-738), and
/// `torch.distributed.pipelining`'s `step` runs the whole schedule (fill, steady state, drain)
/// over those micro-batches. One round (the default) is [`bubble`] over all `m`.
///
/// [`PerGpu::rounds`]: crate::engine::per_gpu::PerGpu::rounds
pub fn rounds_bubble(
    t: &StageSums,
    p: u64,
    g: &crate::engine::per_gpu::PerGpu,
    v: u64,
    schedule: Schedule,
) -> f64 {
    g.rounds.max(1) as f64 * bubble(t, p, g.round_micro_batches(), v, schedule)
}

/// The bubble of the schedules with a split backward (module docs for the formulas), seconds.
pub fn bubble_split_s(t: &StageSums, p: u64, schedule: Schedule) -> f64 {
    if p <= 1 || t.max <= 0.0 {
        return 0.0;
    }
    let pm1 = ((t.sum - t.max) / t.max).max(0.0);
    let (tt, f, w) = (t.max, t.fwd, t.wgrad);
    let b = match schedule {
        Schedule::ZbH1 => pm1 * (tt - 2.0 * w),
        Schedule::ZbV => pm1 * (tt - 3.0 * w) / 2.0,
        Schedule::DualPipe => {
            let half = p as f64 / 2.0 - 1.0;
            pm1 * half / (p as f64 - 1.0) * (2.0 * tt - f - 3.0 * w)
        }
        Schedule::DualPipeV => pm1 * (2.0 * tt - f - 3.0 * w) / 2.0,
        _ => t.sum - t.max,
    };
    b.max(0.0)
}

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
        _ => 1,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform ranks with `F = B = W = 1` (`T = 3`), the sources' setting.
    fn uniform(p: u64, f: f64, b: f64, w: f64) -> StageSums {
        let t = f + b + w;
        StageSums {
            sum: p as f64 * t,
            max: t,
            fwd: f,
            wgrad: w,
        }
    }

    #[test]
    fn each_pipeline_round_fills_and_drains() {
        // DeepSeek-V3 on 1024 GPUs in NeMo Automodel: p 4, v 8, 32 micro-batches a step in
        // 4 rounds of 8. Uniform ranks of T = 3 per micro-batch: one round's interleaved bubble
        // is (p−1)·T/v = 9/8 (8 mod 4 = 0, no extra), the step's 4·9/8 = 4.5, against 9/8 for
        // all 32 in one schedule.
        let t = uniform(4, 1.0, 1.0, 1.0);
        let g = |rounds| crate::engine::per_gpu::PerGpu {
            micro_batches: 32,
            rounds,
            ..Default::default()
        };
        let one = rounds_bubble(&t, 4, &g(1), 8, Schedule::Interleaved);
        assert_eq!(one, bubble(&t, 4, 32, 8, Schedule::Interleaved));
        assert!((one - 9.0 / 8.0).abs() < 1e-12, "{one}");
        let four = rounds_bubble(&t, 4, &g(4), 8, Schedule::Interleaved);
        assert!((four - 4.5).abs() < 1e-12, "{four}");
        // Rounds of 6 micro-batches on 4 ranks: 6 mod 4 = 2 adds (v−1)·(p−2)·T/v = 7·2·3/8 per
        // round (Calculon's extra bubble).
        let g6 = crate::engine::per_gpu::PerGpu {
            micro_batches: 12,
            rounds: 2,
            ..Default::default()
        };
        let six = rounds_bubble(&t, 4, &g6, 8, Schedule::Interleaved);
        assert!(
            (six - 2.0 * (9.0 / 8.0 + 42.0 / 8.0)).abs() < 1e-12,
            "{six}"
        );
        // No pipeline, no bubble, whatever the rounds.
        assert_eq!(
            rounds_bubble(&uniform(1, 1.0, 1.0, 1.0), 1, &g(4), 1, Schedule::OneFOneB),
            0.0
        );
    }

    #[test]
    fn zb_h1_is_a_third_of_1f1b_with_equal_passes() {
        // Qi et al. Table 2: 1F1B (p−1)(F+B+W) = 3(p−1), ZB-H1 (p−1)(F+B−W) = (p−1).
        for p in [2u64, 4, 8, 16] {
            let t = uniform(p, 1.0, 1.0, 1.0);
            let one = bubble(&t, p, 64, 1, Schedule::OneFOneB);
            let zb = bubble(&t, p, 64, 1, Schedule::ZbH1);
            assert!((one - 3.0 * (p - 1) as f64).abs() < 1e-12);
            assert!((zb - (p - 1) as f64).abs() < 1e-12, "{zb}");
        }
        // Unequal passes: F = 1, B = 2, W = 1.5: (p−1)(1 + 2 − 1.5) = 1.5(p−1).
        let t = uniform(8, 1.0, 2.0, 1.5);
        assert!((bubble(&t, 8, 64, 1, Schedule::ZbH1) - 10.5).abs() < 1e-12);
    }

    #[test]
    fn zb_v_is_zero_with_equal_passes() {
        // sail-sg README table: ZB-V bubble 0 when T_F = T_B = T_W.
        let t = uniform(8, 1.0, 1.0, 1.0);
        assert_eq!(bubble(&t, 8, 64, 2, Schedule::ZbV), 0.0);
        // F = 1, B = 2, W = 1 (T = 4): (p−1)(T − 3W)/2 = 7·1/2.
        let t = uniform(8, 1.0, 2.0, 1.0);
        assert!((bubble(&t, 8, 64, 2, Schedule::ZbV) - 3.5).abs() < 1e-12);
    }

    #[test]
    fn dualpipe_rows_of_the_readme_table() {
        // DualPipe README: (PP/2 − 1)(F&B + B − 3W) with chunk times. p = 8 ranks, a chunk is
        // a rank's stage: F = 1, B (full) = 2 (input 1 + weight 1), W = 1, F&B = 3:
        // (4 − 1)(3 + 2 − 3) = 6.
        let t = uniform(8, 1.0, 1.0, 1.0);
        assert!((bubble(&t, 8, 64, 1, Schedule::DualPipe) - 6.0).abs() < 1e-12);
        // DualPipeV on 8 ranks = 16 chunks of half a rank: F = 0.5, B = 1, W = 0.5, F&B = 1.5:
        // (16/2 − 1)(1.5 + 1 − 1.5) = 7.
        assert!((bubble(&t, 8, 64, 2, Schedule::DualPipeV) - 7.0).abs() < 1e-12);
        // Two ranks: DualPipe has no bubble ((2/2 − 1) = 0).
        let t = uniform(2, 1.0, 1.0, 1.0);
        assert_eq!(bubble(&t, 2, 8, 1, Schedule::DualPipe), 0.0);
    }
}
