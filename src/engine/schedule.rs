//! Pipeline schedule timelines: which stage runs which forward or backward block, and when.
//!
//! [`timeline`] lays out one optimizer step of a `p`-stage pipeline with `m` micro-batches (and
//! `v` model chunks per stage for the interleaved schedule) as a list of [`Block`]s, by simulating
//! each stage executing its operations in the order Megatron-LM issues them, every operation
//! starting as soon as its stage is free and its input has arrived (point-to-point transfers are
//! taken as instantaneous; their cost is in the time breakdown, not here):
//!
//! - **GPipe** (Huang et al. 2019, §2.3): every stage runs all `m` forwards, then all `m`
//!   backwards in the same order.
//! - **1F1B** (PipeDream-Flush; Narayanan et al. SC21 §2.2.1, Fig. 3 top; Megatron-LM
//!   `megatron/core/pipeline_parallel/schedules.py`, `forward_backward_pipelining_without_interleaving`):
//!   stage `r` first runs `min(p − r − 1, m)` warm-up forwards, then alternates one forward and
//!   one backward, then drains the remaining backwards.
//! - **Interleaved 1F1B** (Narayanan et al. SC21 §2.2.2, Fig. 4; the same file,
//!   `forward_backward_pipelining_with_interleaving`): each stage holds `v` chunks; the `m·v`
//!   (micro-batch, chunk) forwards are issued in groups of `p` micro-batches, chunk by chunk
//!   (`chunk = (k mod p·v) div p`, micro-batch `= (k div p·v)·p + k mod p` when `p | m`), the
//!   backwards in the same order with the chunk reversed; stage `r` warms up with
//!   `2·(p − r − 1) + (v − 1)·p` forwards (all of them when `m = p`).
//!
//! For uniform stages the makespan is `(m + p − 1)·(t_f + t_b)` for GPipe and 1F1B and
//! `(m + (p − 1)/v)·(t_f + t_b)` for interleaved 1F1B (SC21 §2.2.1–2.2.2: bubble
//! `(p − 1)·(t_f + t_b)` shrinks by `v`); the tests check both.
//!
//! This is display code for the schedule chart, not part of the per-estimate hot path: it
//! allocates, and its size is capped at [`MAX_BLOCKS`]. It never panics.

use crate::scenario::Schedule;
use std::fmt;

/// Largest number of blocks [`timeline`] will lay out (`2·p·m·v`).
pub const MAX_BLOCKS: u64 = 1 << 18;

/// Forward or backward pass of one micro-batch through one model chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// Forward pass.
    Forward,
    /// Backward pass (including any recomputation, which the caller folds into `t_bwd`).
    Backward,
}

/// One forward or backward block on one stage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Block {
    /// Pipeline stage (rank), from 0.
    pub stage: u64,
    /// Micro-batch, from 0.
    pub micro_batch: u64,
    /// Model chunk on this stage, from 0 (always 0 unless interleaved).
    pub chunk: u64,
    /// Forward or backward.
    pub kind: BlockKind,
    /// Start time, in the unit of `t_fwd`/`t_bwd`.
    pub start: f64,
    /// End time.
    pub end: f64,
}

/// Why a timeline could not be laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleError {
    /// `p = 0`.
    NoStages,
    /// `m = 0`.
    NoMicroBatches,
    /// `v = 0` with the interleaved schedule.
    NoChunks,
    /// A time is negative, infinite or NaN.
    BadTime,
    /// `2·p·m·v` exceeds [`MAX_BLOCKS`].
    TooLarge {
        /// Blocks that would be needed.
        blocks: u64,
    },
    /// The operation order cannot make progress (should not happen for Megatron's orders).
    Stalled,
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleError::NoStages => f.write_str("the pipeline has no stages"),
            ScheduleError::NoMicroBatches => f.write_str("there are no micro-batches"),
            ScheduleError::NoChunks => f.write_str("the interleaved schedule needs vp ≥ 1"),
            ScheduleError::BadTime => {
                f.write_str("forward and backward times must be finite and not negative")
            }
            ScheduleError::TooLarge { blocks } => write!(
                f,
                "the timeline would have {blocks} blocks, more than the limit of {MAX_BLOCKS}"
            ),
            ScheduleError::Stalled => f.write_str("the schedule cannot make progress"),
        }
    }
}

impl std::error::Error for ScheduleError {}

/// One operation in a stage's issue order.
#[derive(Clone, Copy)]
struct Op {
    kind: BlockKind,
    micro_batch: u64,
    chunk: u64,
}

/// Lays out one step of the pipeline.
///
/// `p` stages, `m` micro-batches, `v` chunks per stage (used only by
/// [`Schedule::Interleaved`]; the others run one chunk), `t_fwd` / `t_bwd`: forward and backward
/// time of one micro-batch through one whole stage (all its chunks; a chunk takes `1/v` of it).
/// Blocks come out stage by stage, each stage's in time order.
///
/// # Errors
/// [`ScheduleError`] for zero sizes, bad times, or more than [`MAX_BLOCKS`] blocks.
///
/// # Example
/// ```
/// use paracalc::engine::schedule::{makespan, timeline};
/// use paracalc::scenario::Schedule;
/// // 1F1B, 4 stages, 8 micro-batches, t_f = 1, t_b = 2: (8 + 4 − 1)·(1 + 2) = 33.
/// let blocks = timeline(4, 8, 1, Schedule::OneFOneB, 1.0, 2.0)?;
/// assert_eq!(blocks.len(), 2 * 4 * 8);
/// assert_eq!(makespan(&blocks), 33.0);
/// Ok::<(), paracalc::engine::schedule::ScheduleError>(())
/// ```
pub fn timeline(
    p: u64,
    m: u64,
    v: u64,
    schedule: Schedule,
    t_fwd: f64,
    t_bwd: f64,
) -> Result<Vec<Block>, ScheduleError> {
    if p == 0 {
        return Err(ScheduleError::NoStages);
    }
    if m == 0 {
        return Err(ScheduleError::NoMicroBatches);
    }
    let v = match schedule {
        Schedule::Interleaved if v == 0 => return Err(ScheduleError::NoChunks),
        Schedule::Interleaved => v,
        Schedule::OneFOneB | Schedule::Gpipe => 1,
    };
    if !(t_fwd.is_finite() && t_bwd.is_finite() && t_fwd >= 0.0 && t_bwd >= 0.0) {
        return Err(ScheduleError::BadTime);
    }
    let blocks = 2u64
        .checked_mul(p)
        .and_then(|x| x.checked_mul(m))
        .and_then(|x| x.checked_mul(v))
        .unwrap_or(u64::MAX);
    if blocks > MAX_BLOCKS {
        return Err(ScheduleError::TooLarge { blocks });
    }
    // All sizes now fit comfortably in usize (≤ 2^18).
    let ops: Vec<Vec<Op>> = (0..p).map(|r| stage_ops(p, m, v, schedule, r)).collect();
    simulate(p, m, v, &ops, t_fwd / v as f64, t_bwd / v as f64)
}

/// The order in which stage `r` issues its operations.
fn stage_ops(p: u64, m: u64, v: u64, schedule: Schedule, r: u64) -> Vec<Op> {
    let fwd = |micro_batch, chunk| Op {
        kind: BlockKind::Forward,
        micro_batch,
        chunk,
    };
    let bwd = |micro_batch, chunk| Op {
        kind: BlockKind::Backward,
        micro_batch,
        chunk,
    };
    let mut ops = Vec::with_capacity((2 * m * v) as usize);
    match schedule {
        Schedule::Gpipe => {
            ops.extend((0..m).map(|i| fwd(i, 0)));
            ops.extend((0..m).map(|i| bwd(i, 0)));
        }
        Schedule::OneFOneB => {
            let warm = (p - r - 1).min(m);
            ops.extend((0..warm).map(|i| fwd(i, 0)));
            for i in 0..m - warm {
                ops.push(fwd(warm + i, 0));
                ops.push(bwd(i, 0));
            }
            ops.extend((m - warm..m).map(|i| bwd(i, 0)));
        }
        Schedule::Interleaved => {
            // (micro-batch, chunk) in forward issue order: groups of p micro-batches, each group
            // through chunk 0, then chunk 1, …; a last, smaller group takes the remainder.
            let mut order = Vec::with_capacity((m * v) as usize);
            let mut first = 0;
            while first < m {
                let last = (first + p).min(m);
                for chunk in 0..v {
                    order.extend((first..last).map(|mb| (mb, chunk)));
                }
                first = last;
            }
            let total = m * v;
            let warm = if m == p {
                total
            } else {
                (2 * (p - r - 1) + (v - 1) * p).min(total)
            };
            let f = |k: u64| {
                let (mb, c) = order.get(k as usize).copied().unwrap_or((0, 0));
                fwd(mb, c)
            };
            let b = |k: u64| {
                let (mb, c) = order.get(k as usize).copied().unwrap_or((0, 0));
                bwd(mb, v - 1 - c)
            };
            ops.extend((0..warm).map(f));
            for i in 0..total - warm {
                ops.push(f(warm + i));
                ops.push(b(i));
            }
            ops.extend((total - warm..total).map(b));
        }
    }
    ops
}

/// Runs every stage through its operation list, each operation starting when the stage is free
/// and its input (previous stage's forward, next stage's backward) has finished.
fn simulate(
    p: u64,
    m: u64,
    v: u64,
    ops: &[Vec<Op>],
    dur_f: f64,
    dur_b: f64,
) -> Result<Vec<Block>, ScheduleError> {
    let (pu, mu, vu) = (p as usize, m as usize, v as usize);
    let index = |kind: BlockKind, stage: u64, chunk: u64, mb: u64| -> usize {
        let k = usize::from(kind == BlockKind::Backward);
        ((k * pu + stage as usize) * vu + chunk as usize) * mu + mb as usize
    };
    // End time of every finished operation; negative = not yet run.
    let mut done = vec![-1.0f64; 2 * pu * vu * mu];
    let mut next = vec![0usize; pu];
    let mut clock = vec![0.0f64; pu];
    let mut out = Vec::with_capacity(2 * pu * mu * vu);
    let total: usize = ops.iter().map(Vec::len).sum();
    while out.len() < total {
        let mut progress = false;
        for stage in 0..p {
            let s = stage as usize;
            let (Some(list), Some(ptr), Some(free)) =
                (ops.get(s), next.get_mut(s), clock.get_mut(s))
            else {
                return Err(ScheduleError::Stalled);
            };
            while let Some(op) = list.get(*ptr) {
                let dep = match op.kind {
                    BlockKind::Forward if stage > 0 => Some(index(
                        BlockKind::Forward,
                        stage - 1,
                        op.chunk,
                        op.micro_batch,
                    )),
                    BlockKind::Forward if op.chunk > 0 => Some(index(
                        BlockKind::Forward,
                        p - 1,
                        op.chunk - 1,
                        op.micro_batch,
                    )),
                    BlockKind::Forward => None,
                    BlockKind::Backward if stage + 1 < p => Some(index(
                        BlockKind::Backward,
                        stage + 1,
                        op.chunk,
                        op.micro_batch,
                    )),
                    BlockKind::Backward if op.chunk + 1 < v => {
                        Some(index(BlockKind::Backward, 0, op.chunk + 1, op.micro_batch))
                    }
                    BlockKind::Backward => {
                        Some(index(BlockKind::Forward, stage, op.chunk, op.micro_batch))
                    }
                };
                let ready = match dep {
                    None => 0.0,
                    Some(i) => match done.get(i) {
                        Some(&t) if t >= 0.0 => t,
                        _ => break,
                    },
                };
                let start = free.max(ready);
                let end = start
                    + match op.kind {
                        BlockKind::Forward => dur_f,
                        BlockKind::Backward => dur_b,
                    };
                if let Some(slot) = done.get_mut(index(op.kind, stage, op.chunk, op.micro_batch)) {
                    *slot = end;
                }
                *free = end;
                out.push(Block {
                    stage,
                    micro_batch: op.micro_batch,
                    chunk: op.chunk,
                    kind: op.kind,
                    start,
                    end,
                });
                *ptr += 1;
                progress = true;
            }
        }
        if !progress {
            return Err(ScheduleError::Stalled);
        }
    }
    out.sort_by(|a, b| a.stage.cmp(&b.stage).then(a.start.total_cmp(&b.start)));
    Ok(out)
}

/// Time from the first block's start (0) to the last block's end.
pub fn makespan(blocks: &[Block]) -> f64 {
    blocks.iter().map(|b| b.end).fold(0.0, f64::max)
}

/// Fraction of `p · makespan` during which stages are idle (the pipeline bubble), 0..1.
pub fn idle_fraction(blocks: &[Block], p: u64) -> f64 {
    let span = makespan(blocks) * p as f64;
    if span <= 0.0 {
        return 0.0;
    }
    let busy: f64 = blocks.iter().map(|b| b.end - b.start).sum();
    ((span - busy) / span).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn one_f_one_b_makespan_is_m_plus_p_minus_1_slots() {
        // SC21 §2.2.1: (m + p − 1)·(t_f + t_b) with uniform stages.
        for p in 1..=8 {
            for m in 1..=12 {
                for &(tf, tb) in &[(1.0, 2.0), (1.0, 1.0), (0.5, 1.7)] {
                    let b = timeline(p, m, 1, Schedule::OneFOneB, tf, tb).unwrap();
                    assert_eq!(b.len() as u64, 2 * p * m);
                    let want = (m + p - 1) as f64 * (tf + tb);
                    assert!(close(makespan(&b), want), "p={p} m={m}: {}", makespan(&b));
                }
            }
        }
    }

    #[test]
    fn gpipe_has_the_same_makespan_as_1f1b() {
        for p in 1..=6 {
            for m in 1..=10 {
                let b = timeline(p, m, 1, Schedule::Gpipe, 1.0, 2.0).unwrap();
                assert!(close(makespan(&b), (m + p - 1) as f64 * 3.0));
            }
        }
    }

    #[test]
    fn interleaved_bubble_shrinks_by_v() {
        // SC21 §2.2.2: (m + (p − 1)/v)·(t_f + t_b), m a multiple of p.
        // p = 4, v = 2, m = 8, t_f = t_b = 1: (8 + 3/2)·2 = 19.
        let b = timeline(4, 8, 2, Schedule::Interleaved, 1.0, 1.0).unwrap();
        assert_eq!(b.len(), 2 * 4 * 8 * 2);
        assert!(close(makespan(&b), 19.0), "{}", makespan(&b));
        for p in [2u64, 4, 8] {
            for v in [2u64, 3, 4] {
                for k in [1u64, 2, 3] {
                    let m = k * p;
                    let b = timeline(p, m, v, Schedule::Interleaved, 1.0, 1.0).unwrap();
                    let want = (m as f64 + (p - 1) as f64 / v as f64) * 2.0;
                    assert!(
                        close(makespan(&b), want),
                        "p={p} v={v} m={m}: {}",
                        makespan(&b)
                    );
                }
            }
        }
    }

    #[test]
    fn warm_up_forwards_follow_megatron() {
        // 1F1B: stage r runs min(p − r − 1, m) forwards before its first backward.
        let p = 4;
        let blocks = timeline(p, 8, 1, Schedule::OneFOneB, 1.0, 2.0).unwrap();
        for r in 0..p {
            let fwd_before = blocks
                .iter()
                .filter(|b| b.stage == r)
                .take_while(|b| b.kind == BlockKind::Forward)
                .count() as u64;
            // The warm-up forwards plus the first steady-state forward.
            assert_eq!(fwd_before, p - r - 1 + 1, "stage {r}");
        }
        // Interleaved p = 4, v = 2, m = 8, stage 0: 2·3 + 1·4 = 10 warm-up forwards, + 1.
        let blocks = timeline(4, 8, 2, Schedule::Interleaved, 1.0, 1.0).unwrap();
        let fwd_before = blocks
            .iter()
            .filter(|b| b.stage == 0)
            .take_while(|b| b.kind == BlockKind::Forward)
            .count();
        assert_eq!(fwd_before, 11);
    }

    #[test]
    fn stages_never_overlap_and_every_block_runs_once() {
        for schedule in [Schedule::OneFOneB, Schedule::Interleaved, Schedule::Gpipe] {
            let (p, m, v) = (4, 12, 3);
            let blocks = timeline(p, m, v, schedule, 1.0, 2.5).unwrap();
            let v = if schedule == Schedule::Interleaved {
                v
            } else {
                1
            };
            assert_eq!(blocks.len() as u64, 2 * p * m * v);
            for r in 0..p {
                let mine: Vec<_> = blocks.iter().filter(|b| b.stage == r).collect();
                for w in mine.windows(2) {
                    assert!(w[0].end <= w[1].start + 1e-12);
                }
                let mut seen = std::collections::HashSet::new();
                for b in &mine {
                    assert!(seen.insert((b.kind, b.micro_batch, b.chunk)));
                }
            }
        }
    }

    #[test]
    fn interleaved_with_a_partial_group_still_completes() {
        let b = timeline(4, 6, 2, Schedule::Interleaved, 1.0, 2.0).unwrap();
        assert_eq!(b.len(), 2 * 4 * 6 * 2);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert_eq!(
            timeline(0, 4, 1, Schedule::OneFOneB, 1.0, 1.0),
            Err(ScheduleError::NoStages)
        );
        assert_eq!(
            timeline(4, 0, 1, Schedule::OneFOneB, 1.0, 1.0),
            Err(ScheduleError::NoMicroBatches)
        );
        assert_eq!(
            timeline(4, 4, 0, Schedule::Interleaved, 1.0, 1.0),
            Err(ScheduleError::NoChunks)
        );
        assert_eq!(
            timeline(4, 4, 1, Schedule::OneFOneB, f64::NAN, 1.0),
            Err(ScheduleError::BadTime)
        );
        assert!(matches!(
            timeline(
                u64::MAX,
                u64::MAX,
                u64::MAX,
                Schedule::Interleaved,
                1.0,
                1.0
            ),
            Err(ScheduleError::TooLarge { .. })
        ));
        // Zero times are allowed: everything happens at t = 0.
        let b = timeline(2, 2, 1, Schedule::OneFOneB, 0.0, 0.0).unwrap();
        assert_eq!(makespan(&b), 0.0);
        assert_eq!(idle_fraction(&b, 2), 0.0);
    }

    #[test]
    fn idle_fraction_is_the_bubble_fraction() {
        // 1F1B: (p − 1)/(m + p − 1) = 3/11.
        let b = timeline(4, 8, 1, Schedule::OneFOneB, 1.0, 2.0).unwrap();
        assert!(close(idle_fraction(&b, 4), 3.0 / 11.0));
    }
}
