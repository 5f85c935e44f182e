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
//! - **ZB-H1** (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §2.1, Fig. 3 top):
//!   1F1B's order of forwards and input-gradient backwards `B`; each weight-gradient pass `W`
//!   waits until stage `r` has `r` newer `B`s, so the last stage runs `F B W` and the first
//!   keeps the `W`s for the cool-down. Its makespan is `m·(F + B + W) + (p − 1)·(F + B − W)`
//!   (the paper's Table 2 bubble), which the tests check for unequal `F`, `B`, `W` too.
//! - **DualPipe** and **DualPipeV** (deepseek-ai/DualPipe `dualpipe.py` / `dualpipev.py`,
//!   `step`, commit 3da1bbe): the eight phases of each rank (`nF0`, `nF0F1`, `nB1W1F1`, the main
//!   `nF0B1F1B0`, `nB1F1B0`, `nB1B0`, `nWB0`, `nW`), a forward and a backward chunk of two
//!   micro-batches run as one overlapped pair (`F&B`, started when both inputs are there).
//!   DualPipe sends half the micro-batches each way, rank `r` holding stage `r` of one
//!   direction and stage `p − 1 − r` of the other; DualPipeV runs `2p` chunks in a V. With
//!   `F = B` their bubble is the README's `(PP/2 − 1)·(F&B + B − 3W)`; the tests check it.
//! - **ZB-V** has no timeline here ([`ScheduleError::NotDrawn`]); its bubble is in the time
//!   breakdown.
//!
//! For uniform stages the makespan is `(m + p − 1)·(t_f + t_b)` for GPipe and 1F1B and
//! `(m + (p − 1)/v)·(t_f + t_b)` for interleaved 1F1B (SC21 §2.2.1–2.2.2: bubble
//! `(p − 1)·(t_f + t_b)` shrinks by `v`); the tests check both.
//!
//! This is display code for the schedule chart, not part of the per-estimate hot path: it
//! allocates, and its size is capped at [`MAX_BLOCKS`]. It never panics.
//!
//! Formulas, sources and what was checked: [pipeline.md](crate::docs::formulas::pipeline) §1.

use crate::scenario::Schedule;
use std::fmt;

/// Largest number of blocks [`timeline`] will lay out (`2·p·m·v`).
pub const MAX_BLOCKS: u64 = 1 << 18;

/// Forward or backward pass of one micro-batch through one model chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// Forward pass.
    Forward,
    /// Backward pass (including any recomputation, which the caller folds into `t_bwd`); only
    /// the input-gradient part `B` when the schedule runs `W` apart.
    Backward,
    /// Weight-gradient pass `W` run apart from its `B` (zero-bubble and DualPipe schedules).
    WeightGrad,
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
    /// The schedule's timeline is not laid out here (ZB-V), or its conditions do not hold
    /// (DualPipe: even `p`, `m ≥ 2p`, even `m`; DualPipeV: `m ≥ 2p`).
    NotDrawn,
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
            ScheduleError::NotDrawn => {
                f.write_str("this schedule's timeline is not drawn for these sizes")
            }
        }
    }
}

impl std::error::Error for ScheduleError {}

/// One operation in a stage's issue order.
#[derive(Clone, Copy)]
struct Op {
    kind: BlockKind,
    micro_batch: u64,
    /// Virtual stage: position of the chunk along the micro-batch's path, `0..S`.
    k: u64,
    /// Chunk index on the rank, for display.
    chunk: u64,
    /// A backward that leaves its `W` for a later [`BlockKind::WeightGrad`] op.
    split: bool,
    /// Starts together with the next op (DualPipe's overlapped `F&B` pair).
    paired: bool,
}

/// Lays out one step of the pipeline.
///
/// `p` stages, `m` micro-batches, `v` chunks per stage (used only by
/// [`Schedule::Interleaved`] and the V-shaped schedules; the others run one chunk), `t_fwd` /
/// `t_bwd`: forward and backward time of one micro-batch through one whole stage (all its
/// chunks; a chunk takes `1/v` of it). `t_wgrad`: the weight-gradient part of `t_bwd`, used
/// only by the schedules that run it apart ([`Schedule::splits_backward`]); `None` takes half
/// the backward (Qi et al. 2024, Table 1: `B` and `W` have the same FLOPs). Blocks come out
/// stage by stage, each stage's in time order.
///
/// # Errors
/// [`ScheduleError`] for zero sizes, bad times, or more than [`MAX_BLOCKS`] blocks;
/// [`ScheduleError::NotDrawn`] for ZB-V and for DualPipe sizes its source does not run.
///
/// # Example
/// ```
/// use paracalc::engine::schedule::{makespan, timeline};
/// use paracalc::scenario::Schedule;
/// // 1F1B, 4 stages, 8 micro-batches, t_f = 1, t_b = 2: (8 + 4 − 1)·(1 + 2) = 33.
/// let blocks = timeline(4, 8, 1, Schedule::OneFOneB, 1.0, 2.0, None)?;
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
    t_wgrad: Option<f64>,
) -> Result<Vec<Block>, ScheduleError> {
    let t_wgrad = t_wgrad.unwrap_or(t_bwd / 2.0);
    if p == 0 {
        return Err(ScheduleError::NoStages);
    }
    if m == 0 {
        return Err(ScheduleError::NoMicroBatches);
    }
    let v = match schedule {
        Schedule::Interleaved if v == 0 => return Err(ScheduleError::NoChunks),
        Schedule::Interleaved => v,
        Schedule::ZbV => return Err(ScheduleError::NotDrawn),
        Schedule::DualPipeV => 2,
        _ => 1,
    };
    if !(t_fwd.is_finite()
        && t_bwd.is_finite()
        && t_wgrad.is_finite()
        && t_fwd >= 0.0
        && t_bwd >= 0.0
        && t_wgrad >= 0.0)
    {
        return Err(ScheduleError::BadTime);
    }
    let blocks = 3u64
        .checked_mul(p)
        .and_then(|x| x.checked_mul(m))
        .and_then(|x| x.checked_mul(v))
        .unwrap_or(u64::MAX);
    if blocks > MAX_BLOCKS {
        return Err(ScheduleError::TooLarge { blocks });
    }
    match schedule {
        Schedule::DualPipe if p % 2 != 0 || m < 2 * p || m % 2 != 0 => {
            return Err(ScheduleError::NotDrawn)
        }
        Schedule::DualPipeV if m < 2 * p => return Err(ScheduleError::NotDrawn),
        _ => {}
    }
    // All sizes now fit comfortably in usize (≤ 2^18).
    let ops: Vec<Vec<Op>> = (0..p).map(|r| stage_ops(p, m, v, schedule, r)).collect();
    let w = if schedule.splits_backward() {
        t_wgrad.min(t_bwd)
    } else {
        0.0
    };
    let durations = Durations {
        f: t_fwd / v as f64,
        b: (t_bwd - w) / v as f64,
        w: w / v as f64,
    };
    let stages = if schedule == Schedule::DualPipe {
        p
    } else {
        p * v
    };
    simulate(p, m, stages, &ops, durations)
}

/// Per-chunk durations: forward, backward without the separate `W`, and `W`.
#[derive(Clone, Copy)]
struct Durations {
    f: f64,
    b: f64,
    w: f64,
}

/// The order in which stage `r` issues its operations.
fn stage_ops(p: u64, m: u64, v: u64, schedule: Schedule, r: u64) -> Vec<Op> {
    let op = |kind, micro_batch, k, chunk| Op {
        kind,
        micro_batch,
        k,
        chunk,
        split: false,
        paired: false,
    };
    let fwd = |micro_batch, chunk| op(BlockKind::Forward, micro_batch, chunk * p + r, chunk);
    let bwd = |micro_batch, chunk| op(BlockKind::Backward, micro_batch, chunk * p + r, chunk);
    let mut ops = Vec::with_capacity((3 * m * v) as usize);
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
        Schedule::ZbH1 => {
            // 1F1B's F and B order; stage r keeps its r newest W's pending (Qi et al. §2.1).
            let warm = (p - r - 1).min(m);
            let split = |i| Op {
                split: true,
                ..bwd(i, 0)
            };
            let wgrad = |i| op(BlockKind::WeightGrad, i, r, 0);
            ops.extend((0..warm).map(|i| fwd(i, 0)));
            let mut next_w = 0;
            for i in 0..m {
                if i + warm < m {
                    ops.push(fwd(warm + i, 0));
                }
                ops.push(split(i));
                if i + 1 - next_w > r {
                    ops.push(wgrad(next_w));
                    next_w += 1;
                }
            }
            ops.extend((next_w..m).map(wgrad));
        }
        Schedule::DualPipe | Schedule::DualPipeV => dual_ops(&mut ops, p, m, schedule, r),
        Schedule::ZbV => {}
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

/// DualPipe and DualPipeV issue order of rank `r` (deepseek-ai/DualPipe `step`, commit 3da1bbe;
/// module docs): its eight steps, in the source's names (`F0` a forward of phase 0, `B1` a
/// backward of phase 1, `W` a queued weight-gradient pass). Phase 0 is the rank's first chunk
/// (DualPipe: the direction entering at rank 0; DualPipeV: the way down), phase 1 the other.
fn dual_ops(ops: &mut Vec<Op>, p: u64, m: u64, schedule: Schedule, rank: u64) {
    let mut q = DualRank::new(ops, p, m, schedule, rank);
    let (n, r) = (q.n, q.r);
    // Step 1, nF0.
    for _ in 0..(n - r - 1) * 2 {
        q.forward(0, false);
    }
    // Step 2, nF0F1.
    for _ in 0..r + 1 {
        q.forward(0, false);
        q.forward(1, false);
    }
    // Step 3, nB1W1F1 (zero bubble).
    for _ in 0..n - r - 1 {
        q.backward(1, true);
        q.weight();
        q.forward(1, false);
    }
    // Step 4, the main step, nF0B1F1B0: overlapped pairs, but for DualPipeV's last rank and
    // DualPipe's two middle ranks, whose first pair is not overlapped.
    let middle = r == n - 1;
    for i in 0..(q.per_phase + r + 1).saturating_sub(2 * n) {
        q.forward(0, !(i == 0 && middle));
        q.backward(1, false);
        q.forward(1, true);
        q.backward(0, false);
    }
    // Step 5, nB1F1B0.
    for _ in 0..n - r - 1 {
        q.backward(1, false);
        q.forward(1, true);
        q.backward(0, false);
    }
    // Step 6, nB1B0: the second half of this phase runs zero-bubble backwards.
    let mut zb = false;
    let step6 = r + 1;
    for i in 0..step6 {
        if i == step6 / 2 && r % 2 == 1 {
            zb = true;
        }
        q.backward(1, zb);
        if i == step6 / 2 && r % 2 == 0 {
            zb = true;
        }
        q.backward(0, zb);
    }
    // Step 7, nWB0 (zero bubble).
    for _ in 0..n - r - 1 {
        q.weight();
        q.backward(0, true);
    }
    // Step 8, the weight-gradient passes left.
    while !q.wq.is_empty() {
        q.weight();
    }
}

/// One DualPipe rank while it issues its operations: where each phase's chunk sits, how many
/// forwards and backwards each phase has issued, and the queue of deferred weight-gradient
/// passes (DualPipe's `_forward_chunk`, `_backward_chunk` and `_weight_chunk`).
struct DualRank<'a> {
    ops: &'a mut Vec<Op>,
    p: u64,
    rank: u64,
    v_shape: bool,
    /// DualPipe: the rank is in the second half (its phase 0 is the direction entering at the
    /// last rank).
    second_half: bool,
    /// Ranks of the schedule as DualPipe's `step` counts them (DualPipe: half of them).
    n: u64,
    /// The rank's position among those `n` (DualPipe: its distance from the nearer end).
    r: u64,
    /// Micro-batches per phase (DualPipe: each direction takes m/2).
    per_phase: u64,
    /// Forwards and backwards issued, per phase.
    nf: [u64; 2],
    nb: [u64; 2],
    /// Deferred weight-gradient passes: (micro-batch, virtual stage, phase).
    wq: std::collections::VecDeque<(u64, u64, u64)>,
}

impl<'a> DualRank<'a> {
    fn new(ops: &'a mut Vec<Op>, p: u64, m: u64, schedule: Schedule, rank: u64) -> Self {
        let v_shape = schedule == Schedule::DualPipeV;
        // DualPipe works on the half of the ranks nearer its end; each direction takes m/2.
        let (n, r, per_phase) = if v_shape {
            (p, rank, m)
        } else {
            (p / 2, rank.min(p - 1 - rank), m / 2)
        };
        DualRank {
            ops,
            p,
            rank,
            v_shape,
            second_half: !v_shape && rank >= p / 2,
            n,
            r,
            per_phase,
            nf: [0; 2],
            nb: [0; 2],
            wq: std::collections::VecDeque::new(),
        }
    }

    /// Virtual stage of phase `ph` on this rank.
    fn k_of(&self, ph: u64) -> u64 {
        if self.v_shape {
            if ph == 0 {
                self.rank
            } else {
                2 * self.p - 1 - self.rank
            }
        } else if (ph == 0) != self.second_half {
            self.rank // the direction entering at rank 0
        } else {
            self.p - 1 - self.rank
        }
    }

    /// Micro-batch id of the `i`-th item of phase `ph`.
    fn mb_of(&self, ph: u64, i: u64) -> u64 {
        if self.v_shape || (ph == 0) != self.second_half {
            i
        } else {
            self.per_phase + i
        }
    }

    /// The next forward of phase `ph`, `paired` with the op after it.
    fn forward(&mut self, ph: u64, paired: bool) {
        let i = self.nf[ph as usize];
        self.nf[ph as usize] += 1;
        let (micro_batch, k) = (self.mb_of(ph, i), self.k_of(ph));
        self.ops.push(Op {
            kind: BlockKind::Forward,
            micro_batch,
            k,
            chunk: ph,
            split: false,
            paired,
        });
    }

    /// The next backward of phase `ph`; with `zb` (zero bubble) its weight gradient is queued.
    fn backward(&mut self, ph: u64, zb: bool) {
        let i = self.nb[ph as usize];
        self.nb[ph as usize] += 1;
        let (micro_batch, k) = (self.mb_of(ph, i), self.k_of(ph));
        if zb {
            self.wq.push_back((micro_batch, k, ph));
        }
        self.ops.push(Op {
            kind: BlockKind::Backward,
            micro_batch,
            k,
            chunk: ph,
            split: zb,
            paired: false,
        });
    }

    /// The oldest queued weight-gradient pass, if any.
    fn weight(&mut self) {
        if let Some((micro_batch, k, ph)) = self.wq.pop_front() {
            self.ops.push(Op {
                kind: BlockKind::WeightGrad,
                micro_batch,
                k,
                chunk: ph,
                split: false,
                paired: false,
            });
        }
    }
}

/// Runs every stage through its operation list, each operation starting when the stage is free
/// and its inputs have finished ([`Finished::input_of`]); an overlapped pair starts when both of
/// its inputs are there. Blocks come out sorted by stage, then start.
fn simulate(
    p: u64,
    m: u64,
    stages: u64,
    ops: &[Vec<Op>],
    d: Durations,
) -> Result<Vec<Block>, ScheduleError> {
    let mut finished = Finished::new(stages, m);
    let mut next = vec![0usize; p as usize];
    let mut clock = vec![0.0f64; p as usize];
    let total: usize = ops.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total + total / 2);
    let mut ran = 0usize;
    while ran < total {
        let mut progress = false;
        for stage in 0..p {
            let s = stage as usize;
            let (Some(list), Some(ptr), Some(free)) =
                (ops.get(s), next.get_mut(s), clock.get_mut(s))
            else {
                return Err(ScheduleError::Stalled);
            };
            while let Some(op) = list.get(*ptr) {
                let n = if op.paired { 2 } else { 1 };
                let group = list
                    .get(*ptr..(*ptr + n).min(list.len()))
                    .unwrap_or_default();
                let Some(ready) = finished.ready(group) else {
                    break;
                };
                *free = run_group(group, stage, free.max(ready), d, &mut finished, &mut out);
                *ptr += group.len();
                ran += group.len();
                progress = true;
            }
        }
        if !progress {
            return Err(ScheduleError::Stalled);
        }
    }
    crate::sort::sort_by(&mut out, |a, b| {
        a.stage.cmp(&b.stage).then(a.start.total_cmp(&b.start))
    });
    Ok(out)
}

/// Runs the operations of `group` on `stage` one after the other from `start`: records when
/// each finishes and adds its blocks to `out` (a whole backward of a split-backward schedule as
/// its `B`, then its `W`). Returns when the last one ends.
fn run_group(
    group: &[Op],
    stage: u64,
    mut start: f64,
    d: Durations,
    finished: &mut Finished,
    out: &mut Vec<Block>,
) -> f64 {
    for o in group {
        let end = start + d.of(o);
        finished.set(o.kind, o.k, o.micro_batch, end);
        let block = |kind, start, end| Block {
            stage,
            micro_batch: o.micro_batch,
            chunk: o.chunk,
            kind,
            start,
            end,
        };
        if o.kind == BlockKind::Backward && !o.split && d.w > 0.0 {
            finished.set(BlockKind::WeightGrad, o.k, o.micro_batch, end);
            out.push(block(BlockKind::Backward, start, end - d.w));
            out.push(block(BlockKind::WeightGrad, end - d.w, end));
        } else {
            out.push(block(o.kind, start, end));
        }
        start = end;
    }
    start
}

impl Durations {
    /// How long `o` runs: a backward that does not leave its `W` for later runs it too.
    fn of(&self, o: &Op) -> f64 {
        match o.kind {
            BlockKind::Forward => self.f,
            BlockKind::Backward if o.split => self.b,
            BlockKind::Backward => self.b + self.w,
            BlockKind::WeightGrad => self.w,
        }
    }
}

/// When each operation of a simulation finished, by (kind, virtual stage, micro-batch).
struct Finished {
    stages: u64,
    micro_batches: usize,
    /// End times; negative = not yet run.
    end: Vec<f64>,
}

impl Finished {
    fn new(stages: u64, m: u64) -> Finished {
        Finished {
            stages,
            micro_batches: m as usize,
            end: vec![-1.0f64; 3 * stages as usize * m as usize],
        }
    }

    /// The slot of operation (`kind`, virtual stage `k`, micro-batch `mb`).
    fn slot(&self, kind: BlockKind, k: u64, mb: u64) -> usize {
        let kk = match kind {
            BlockKind::Forward => 0,
            BlockKind::Backward => 1,
            BlockKind::WeightGrad => 2,
        };
        (kk * self.stages as usize + k as usize) * self.micro_batches + mb as usize
    }

    /// The slot of what `o` waits for: the forward of the previous virtual stage, the backward
    /// of the next one (or the own forward at the end of the path), the own backward for a `W`;
    /// `None` for the first forward of the path.
    fn input_of(&self, o: &Op) -> Option<usize> {
        match o.kind {
            BlockKind::Forward if o.k > 0 => {
                Some(self.slot(BlockKind::Forward, o.k - 1, o.micro_batch))
            }
            BlockKind::Forward => None,
            BlockKind::Backward if o.k + 1 < self.stages => {
                Some(self.slot(BlockKind::Backward, o.k + 1, o.micro_batch))
            }
            BlockKind::Backward => Some(self.slot(BlockKind::Forward, o.k, o.micro_batch)),
            BlockKind::WeightGrad => Some(self.slot(BlockKind::Backward, o.k, o.micro_batch)),
        }
    }

    /// When every input of `group` has finished (0 without inputs); `None` while one has not.
    fn ready(&self, group: &[Op]) -> Option<f64> {
        let mut ready = 0.0f64;
        let mut blocked = false;
        for o in group {
            if let Some(i) = self.input_of(o) {
                match self.end.get(i) {
                    Some(&t) if t >= 0.0 => ready = ready.max(t),
                    _ => blocked = true,
                }
            }
        }
        (!blocked).then_some(ready)
    }

    /// Records that operation (`kind`, `k`, `mb`) ended at `t`.
    fn set(&mut self, kind: BlockKind, k: u64, mb: u64, t: f64) {
        let i = self.slot(kind, k, mb);
        if let Some(slot) = self.end.get_mut(i) {
            *slot = t;
        }
    }
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
                    let b = timeline(p, m, 1, Schedule::OneFOneB, tf, tb, None).unwrap();
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
                let b = timeline(p, m, 1, Schedule::Gpipe, 1.0, 2.0, None).unwrap();
                assert!(close(makespan(&b), (m + p - 1) as f64 * 3.0));
            }
        }
    }

    #[test]
    fn interleaved_bubble_shrinks_by_v() {
        // SC21 §2.2.2: (m + (p − 1)/v)·(t_f + t_b), m a multiple of p.
        // p = 4, v = 2, m = 8, t_f = t_b = 1: (8 + 3/2)·2 = 19.
        let b = timeline(4, 8, 2, Schedule::Interleaved, 1.0, 1.0, None).unwrap();
        assert_eq!(b.len(), 2 * 4 * 8 * 2);
        assert!(close(makespan(&b), 19.0), "{}", makespan(&b));
        for p in [2u64, 4, 8] {
            for v in [2u64, 3, 4] {
                for k in [1u64, 2, 3] {
                    let m = k * p;
                    let b = timeline(p, m, v, Schedule::Interleaved, 1.0, 1.0, None).unwrap();
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
        let blocks = timeline(p, 8, 1, Schedule::OneFOneB, 1.0, 2.0, None).unwrap();
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
        let blocks = timeline(4, 8, 2, Schedule::Interleaved, 1.0, 1.0, None).unwrap();
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
            let blocks = timeline(p, m, v, schedule, 1.0, 2.5, None).unwrap();
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
        let b = timeline(4, 6, 2, Schedule::Interleaved, 1.0, 2.0, None).unwrap();
        assert_eq!(b.len(), 2 * 4 * 6 * 2);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert_eq!(
            timeline(0, 4, 1, Schedule::OneFOneB, 1.0, 1.0, None),
            Err(ScheduleError::NoStages)
        );
        assert_eq!(
            timeline(4, 0, 1, Schedule::OneFOneB, 1.0, 1.0, None),
            Err(ScheduleError::NoMicroBatches)
        );
        assert_eq!(
            timeline(4, 4, 0, Schedule::Interleaved, 1.0, 1.0, None),
            Err(ScheduleError::NoChunks)
        );
        assert_eq!(
            timeline(4, 4, 1, Schedule::OneFOneB, f64::NAN, 1.0, None),
            Err(ScheduleError::BadTime)
        );
        assert!(matches!(
            timeline(
                u64::MAX,
                u64::MAX,
                u64::MAX,
                Schedule::Interleaved,
                1.0,
                1.0,
                None
            ),
            Err(ScheduleError::TooLarge { .. })
        ));
        // Zero times are allowed: everything happens at t = 0.
        let b = timeline(2, 2, 1, Schedule::OneFOneB, 0.0, 0.0, None).unwrap();
        assert_eq!(makespan(&b), 0.0);
        assert_eq!(idle_fraction(&b, 2), 0.0);
    }

    #[test]
    fn idle_fraction_is_the_bubble_fraction() {
        // 1F1B: (p − 1)/(m + p − 1) = 3/11.
        let b = timeline(4, 8, 1, Schedule::OneFOneB, 1.0, 2.0, None).unwrap();
        assert!(close(idle_fraction(&b, 4), 3.0 / 11.0));
    }

    /// The engine's bubble for uniform ranks with per-micro-batch times `f`, `b` (input
    /// gradient) and `w` on `p` ranks (`v` chunks).
    fn engine_bubble(p: u64, m: u64, v: u64, schedule: Schedule, f: f64, b: f64, w: f64) -> f64 {
        let t = f + b + w;
        let sums = crate::engine::time::pipeline::StageSums {
            sum: p as f64 * t,
            max: t,
            fwd: f,
            wgrad: w,
        };
        crate::engine::time::pipeline::bubble(&sums, p, m, v, schedule)
    }

    /// Idle time of one rank: makespan − its busy time (all ranks are equally busy here).
    fn idle_per_rank(blocks: &[Block], p: u64) -> f64 {
        let busy: f64 = blocks.iter().map(|b| b.end - b.start).sum();
        makespan(blocks) - busy / p as f64
    }

    #[test]
    fn zb_h1_timeline_has_the_papers_bubble() {
        // Qi et al. Table 2: (p − 1)(T_F + T_B − T_W), for equal and unequal passes.
        for p in [2u64, 4, 8] {
            for m in [p, 2 * p, 3 * p + 1] {
                for &(f, b, w) in &[(1.0, 1.0, 1.0), (1.0, 2.0, 1.0), (1.0, 1.0, 0.5)] {
                    let blocks = timeline(p, m, 1, Schedule::ZbH1, f, b + w, Some(w)).unwrap();
                    assert_eq!(blocks.len() as u64, 3 * p * m);
                    let want = (p - 1) as f64 * (f + b - w);
                    let idle = idle_per_rank(&blocks, p);
                    assert!(
                        close(idle, want),
                        "p={p} m={m} {f},{b},{w}: {idle} vs {want}"
                    );
                    // The chart's idle area is the engine's bubble.
                    let eng = engine_bubble(p, m, 1, Schedule::ZbH1, f, b, w);
                    assert!(close(idle, eng), "{idle} vs engine {eng}");
                }
            }
        }
    }

    #[test]
    fn zb_h1_never_holds_more_than_1f1b_in_flight() {
        // Peak activations p·M_B like 1F1B (Qi et al. Table 2): stage r holds ≤ p − r
        // micro-batches between a forward and the end of its B.
        let (p, m) = (4, 12);
        let blocks = timeline(p, m, 1, Schedule::ZbH1, 1.0, 2.0, Some(1.0)).unwrap();
        for r in 0..p {
            let mut live = 0i64;
            let mut peak = 0i64;
            for b in blocks.iter().filter(|b| b.stage == r) {
                match b.kind {
                    BlockKind::Forward => live += 1,
                    BlockKind::Backward => live -= 1,
                    BlockKind::WeightGrad => {}
                }
                peak = peak.max(live);
            }
            assert!(peak as u64 <= p - r, "stage {r}: {peak}");
        }
    }

    #[test]
    fn dualpipe_timelines_have_the_readme_bubble() {
        // deepseek-ai/DualPipe README: (PP/2 − 1)(F&B + B − 3W), chunk times, B full backward,
        // with F = B (input gradient), the setting its figures use.
        for p in [2u64, 4, 8] {
            for m in [2 * p, 2 * p + 2, 5 * p] {
                for &(f, w) in &[(1.0, 1.0), (1.0, 0.5), (2.0, 1.0)] {
                    // DualPipeV: p ranks, 2p chunks; a rank's times are two chunks'.
                    let blocks = timeline(
                        p,
                        m,
                        2,
                        Schedule::DualPipeV,
                        2.0 * f,
                        2.0 * (f + w),
                        Some(2.0 * w),
                    )
                    .unwrap();
                    assert_eq!(blocks.len() as u64, 3 * p * m * 2);
                    let readme = (p - 1) as f64 * ((f + f + w) + (f + w) - 3.0 * w);
                    let idle = idle_per_rank(&blocks, p);
                    assert!(close(idle, readme), "V p={p} m={m}: {idle} vs {readme}");
                    let eng =
                        engine_bubble(p, m, 2, Schedule::DualPipeV, 2.0 * f, 2.0 * f, 2.0 * w);
                    assert!(close(idle, eng), "V {idle} vs engine {eng}");
                    // DualPipe: p ranks, each stage one chunk.
                    let blocks = timeline(p, m, 1, Schedule::DualPipe, f, f + w, Some(w)).unwrap();
                    let readme = (p as f64 / 2.0 - 1.0) * ((f + f + w) + (f + w) - 3.0 * w);
                    let idle = idle_per_rank(&blocks, p);
                    assert!(close(idle, readme), "p={p} m={m}: {idle} vs {readme}");
                    let eng = engine_bubble(p, m, 1, Schedule::DualPipe, f, f, w);
                    assert!(close(idle, eng), "{idle} vs engine {eng}");
                }
            }
        }
    }

    #[test]
    fn dualpipe_sizes_its_source_rejects_are_not_drawn() {
        // Odd p, odd m, m < 2p; ZB-V is never laid out here.
        for (p, m, v, sched) in [
            (3, 12, 1, Schedule::DualPipe),
            (4, 9, 1, Schedule::DualPipe),
            (4, 6, 1, Schedule::DualPipe),
            (4, 7, 2, Schedule::DualPipeV),
            (4, 16, 2, Schedule::ZbV),
        ] {
            let got = timeline(p, m, v, sched, 1.0, 2.0, None);
            assert_eq!(got, Err(ScheduleError::NotDrawn), "{sched:?} p={p} m={m}");
        }
    }
}
