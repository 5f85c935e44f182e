//! The resolved plan: what an estimate reads from the scenario, worked out once.
//!
//! [`Plan::new`] turns a validated scenario on its GPU into the facts both halves of an estimate
//! (and the advice, the charts and the exports) read: the model's dimensions ([`Shape`]), the
//! per-GPU parameter counts ([`ShardedParams`]), the bytes per parameter of the model states
//! ([`ParamBytes`]) and of one activation element, the tokens of one micro-batch on one GPU and
//! the micro-batches per step, the communication groups ([`Groups`]), the software stack's mechanisms ([`Stack`], from the framework
//! table [`super::framework`]), the one gradient bucket ([`GradBucket`]) and the runs of pipeline
//! ranks that hold the same ([`Plan::runs`]). Nothing downstream works these out again from the
//! scenario. Building a plan allocates nothing.

use super::bucket::GradBucket;
use super::layers::StageMixer;
use super::memory::params::ShardedParams;
use super::memory::states::ParamBytes;
use super::per_gpu::PerGpu;
use super::runs::{Holds, Run, Runs};
use super::shape::Shape;
use super::time::groups::Groups;
use super::time::stack::Stack;
use crate::scenario::{GpuSpec, Scenario};

/// One scenario resolved for an estimate (all plain values but the scenario and the stage
/// mixer's borrows; no allocation).
#[derive(Clone, Debug)]
pub struct Plan<'a> {
    /// The scenario (validated by the caller of [`Plan::new`]).
    pub s: &'a Scenario,
    /// The GPU, as the scenario names it (memory capacity, peaks).
    pub gpu: &'a GpuSpec,

    /// The model's dimensions (its MoE layer for an MoE model, [`Shape::of`]).
    pub shape: Shape,
    /// Per-GPU parameter counts of each kind of layer and of the ends.
    pub sharded: ShardedParams,

    /// Bytes per parameter of the weights, main gradients and optimizer states before ZeRO.
    pub param_bytes: ParamBytes,
    /// Tokens of one micro-batch on one GPU, bytes of one activation element, micro-batches
    /// per step.
    pub per_gpu: PerGpu,

    /// The communication groups of the layout on the GPU's links as the calibration scales them
    /// ([`Groups::of`]): the time model's collectives and the memory model's NCCL buffers read
    /// the same groups.
    pub groups: Groups,

    /// The mechanisms of the software stack (the framework's defaults, overridden where the
    /// scenario says).
    pub stack: Stack,
    /// The gradient bucket of the data-parallel reduction.
    pub bucket: GradBucket,

    /// Which layers each pipeline rank holds ([`Plan::runs`]).
    pub mixer: StageMixer<'a>,
    /// The runs of ranks, worked out once when there are at most [`RUNS_KEPT`] of them.
    kept: KeptRuns,
}

/// How many runs of ranks a plan keeps (an even split is at most three; DeepSeek-V3's 61 layers
/// under DualPipe on 16 ranks are five; a pipeline with more runs than this is walked again by
/// each reader, [`Plan::runs`]; a larger array costs its copy in every estimate).
pub const RUNS_KEPT: usize = 6;

/// The first [`RUNS_KEPT`] runs of ranks as `(first, end, holds)`, and whether they are all.
#[derive(Clone, Copy, Debug)]
struct KeptRuns {
    n: usize,
    complete: bool,
    runs: [(u64, u64, Holds); RUNS_KEPT],
}

impl KeptRuns {
    /// The runs of `mixer`'s pipeline, when there are at most [`RUNS_KEPT`].
    fn of(mixer: &StageMixer) -> KeptRuns {
        let mut kept = KeptRuns {
            n: 0,
            complete: true,
            runs: [(0, 0, Holds::default()); RUNS_KEPT],
        };
        for run in Runs::new(mixer, |r| mixer.mix(r)) {
            if kept.n == RUNS_KEPT {
                kept.n = 0;
                kept.complete = false;
                break;
            }
            kept.runs[kept.n] = (run.ranks.start, run.ranks.end, run.holds);
            kept.n += 1;
        }
        kept
    }
}

impl<'a> Plan<'a> {
    /// Resolves `s` (already validated) on `gpu`. Never panics, even on an unvalidated
    /// scenario (the memory model's tests build plans of those too).
    pub fn new(s: &'a Scenario, gpu: &'a GpuSpec) -> Plan<'a> {
        // The groups first: built after the other facts, their eight groups were spilled and
        // copied into the plan a field at a time (`paracalc bench`, about 13 instructions).
        let groups = Groups::of(&super::calibration::links(gpu, &s.calibration), &s.parallel);
        let shape = Shape::of(&s.model);
        let param_bytes = ParamBytes::of(s);
        let stack = Stack::of(s, gpu);
        let mixer = StageMixer::new(s);
        Plan {
            s,
            gpu,
            shape,
            groups,
            sharded: ShardedParams::with_shape(s, &shape),
            param_bytes,
            per_gpu: PerGpu::of(s),
            stack,
            bucket: GradBucket::with(s, &param_bytes, stack.bf16_optimizer),
            kept: KeptRuns::of(&mixer),
            mixer,
        }
    }

    /// The runs of consecutive pipeline ranks that hold the same things ([`super::runs`]), in
    /// rank order: memory and time each price a run once. Worked out in [`Plan::new`] (walked
    /// again here only past [`RUNS_KEPT`] runs).
    pub fn runs(&self) -> PlanRuns<'_, 'a> {
        PlanRuns {
            plan: self,
            i: 0,
            next: 0,
        }
    }
}

/// The runs of a plan ([`Plan::runs`]): its kept runs, else a walk of its pipeline (a walk that
/// starts again at each run: only for pipelines of more than [`RUNS_KEPT`] runs).
#[derive(Clone, Debug)]
pub struct PlanRuns<'p, 'a> {
    plan: &'p Plan<'a>,
    /// The next kept run.
    i: usize,
    /// The first rank of the next walked run.
    next: u64,
}

impl Iterator for PlanRuns<'_, '_> {
    type Item = Run;

    #[inline(always)]
    fn next(&mut self) -> Option<Run> {
        let kept = &self.plan.kept;
        if kept.complete {
            let &(first, end, holds) = kept.runs[..kept.n].get(self.i)?;
            self.i += 1;
            return Some(Run {
                ranks: first..end,
                holds,
            });
        }
        let mixer = &self.plan.mixer;
        let run = Runs::new(mixer, |r| mixer.mix(r))
            .starting_at(self.next)
            .next()?;
        self.next = run.ranks.end;
        Some(run)
    }
}

/// The gradient bucket of `s` for a caller without a plan (the advice, the Megatron-LM export):
/// the resolution of [`Plan::new`] (the bucket does not depend on the GPU).
pub fn bucket_of(s: &Scenario) -> GradBucket {
    GradBucket::with(s, &ParamBytes::of(s), Stack::bf16_optimizer_of(s))
}
