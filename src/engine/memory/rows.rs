//! The per-rank memory rows of one estimate, worked out when read rather than when estimated.
//!
//! A rank's row is what its run of ranks ([`crate::engine::runs`]) shares (parameters, model
//! states, the CUDA context and buffers: [`RunRows::shared`]) plus what follows from its own
//! in-flight micro-batches (activations, the allocator reserve and the total: [`row`]). The
//! memory model keeps the first part once per run and the in-flight counts as a closed form
//! ([`InFlight`]), so an estimate writes O(runs) numbers instead of a row per rank;
//! [`Rows::iter`] and [`Rows::get`] give any rank's row from the same formula, bit for bit the
//! row the rank's own computation gives.
//!
//! The peak stage is found without every row where the totals cannot rise along a run (see
//! [`RunRows::peak_candidates`]).

use super::activations::InFlight;
use crate::engine::num::max_num;
use serde::{Serialize, Serializer};

/// Memory of one GPU of one pipeline stage (all its `vp` chunks), in bytes.
/// `total_bytes = weights + gradients + optimizer + activations + other`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StageMemory {
    /// Pipeline rank, from 0.
    pub stage: u64,
    /// Transformer layers on this stage.
    pub layers: u64,
    /// Parameters held by one GPU of this stage (after TP/PP/EP/ZeRO-3 sharding).
    pub params: f64,
    /// Weights (working copies in the training precision, FP8 copies included), bytes.
    pub weights_bytes: f64,
    /// Gradients (incl. fp32 accumulation buffers), bytes.
    pub gradients_bytes: f64,
    /// Optimizer states (fp32 master weights and Adam moments), bytes.
    pub optimizer_bytes: f64,
    /// Activations of all in-flight micro-batches (incl. embedding/logits terms), bytes.
    pub activations_bytes: f64,
    /// Framework overhead: `cuda_context + comm_buffers + allocator_reserve + other_buffers`.
    pub other_bytes: f64,
    /// Part of `other_bytes`: CUDA context.
    pub cuda_context_bytes: f64,
    /// Part of `other_bytes`: NCCL/communication buffers.
    pub comm_buffers_bytes: f64,
    /// Part of `other_bytes`: allocator reserve and fragmentation.
    pub allocator_reserve_bytes: f64,
    /// Part of `other_bytes`: transient buffers (gathered ZeRO-3 parameters, gradient buckets…).
    pub other_buffers_bytes: f64,
    /// Part of `weights_bytes`: the routed experts' weights (0 for a dense model).
    pub expert_weights_bytes: f64,
    /// Part of `gradients_bytes`: the routed experts' gradients.
    pub expert_gradients_bytes: f64,
    /// Part of `optimizer_bytes`: the routed experts' optimizer states.
    pub expert_optimizer_bytes: f64,
    /// Micro-batches whose activations this stage holds at its peak.
    pub in_flight_micro_batches: f64,
    /// Host (CPU) memory this GPU's offloaded optimizer states and activations take, bytes;
    /// not part of `total_bytes` (`training.optimizer_offload`, `training.activation_offload`).
    pub host_bytes: f64,
    /// Sum of the five parts.
    pub total_bytes: f64,
}

impl StageMemory {
    /// What PyTorch's caching allocator reserves (`torch.cuda.max_memory_reserved()`): the total
    /// without the CUDA context and the NCCL buffers, which are allocated outside it.
    pub fn allocator_reserved_bytes(&self) -> f64 {
        self.total_bytes - self.cuda_context_bytes - self.comm_buffers_bytes
    }

    /// `weights + gradients + optimizer`.
    pub fn model_states_bytes(&self) -> f64 {
        self.weights_bytes + self.gradients_bytes + self.optimizer_bytes
    }
}

/// What every rank's row of one estimate reads besides its run: the per-stage terms that do
/// not depend on what a rank holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RowTerms {
    /// The input embedding's activations per micro-batch, bytes.
    pub embedding: f64,
    /// The output layer's activations per micro-batch and pass through the head, bytes.
    pub output: f64,
    /// CUDA context, bytes.
    pub cuda_context: f64,
    /// NCCL buffers, bytes.
    pub comm_buffers: f64,
    /// Allocator reserve as a fraction of what the allocator holds.
    pub reserve: f64,
    /// The calibration's memory offset, bytes.
    pub calibration_offset: f64,
    /// Offloaded fraction of the layer activations.
    pub act_off: f64,
    /// Whether one micro-batch of the output layer is alive at a time (DualPipe, V shapes).
    pub out_once: bool,
    /// Under DualPipe, the pipeline's in-flight counts, read for the two stages of each rank
    /// ([`InFlight::dualpipe_counts`]); `None` for other schedules, whose rows read none.
    pub dualpipe: Option<InFlight>,
}

/// One run of ranks: the part of a row its ranks share and what their own parts follow from.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RunRows {
    /// The run's first rank.
    pub first: u64,
    /// The rank after its last.
    pub end: u64,
    /// Its ranks' rows without their per-rank parts (`stage`, activations, the reserve, the
    /// in-flight count, host memory and the total).
    pub shared: StageMemory,
    /// One layer's stored activations × the run's layers per micro-batch, bytes.
    pub stored: f64,
    /// Under DualPipe, the part of `stored` that is model stage `r` of rank `r`
    /// ([`crate::engine::runs::Holds::near`]), bytes; 0 otherwise.
    pub near: f64,
    /// The recompute working set or the loss's logits copy, bytes.
    pub transient: f64,
    /// Reserved bytes no tensor uses at the run's peak: the 16-bit logits' block at the unfused
    /// loss's backward, beyond what `transient` already covers
    /// ([`super::activations::logits_block_bytes_per_gpu`]); part of the allocator reserve.
    pub hole: f64,
    /// Weights + gradients + optimizer states, bytes.
    pub states: f64,
    /// Offloaded optimizer states in host memory, bytes.
    pub opt_host: f64,
    /// Passes through the output head per micro-batch (1 + MTP modules).
    pub heads: f64,
    /// Whether the run holds the input embedding.
    pub has_emb: bool,
    /// Whether it holds the output layer.
    pub has_out: bool,
}

impl RunRows {
    /// The ranks whose totals the peak needs: the first rank alone when no later rank of the run
    /// can hold more. In-flight counts never rise with the rank inside a pipeline ([`InFlight`]),
    /// and without activation offload and with a calibration offset of at least 0 a row's total
    /// is a chain of roundings each non-decreasing in the count (the byte terms are at least 0,
    /// the reserve is `reserve·allocated + offset ≥ −allocated`), so the first rank's total is
    /// the run's largest and the first of equals, as a scan of every rank finds it. Under
    /// DualPipe a rank's layer activations are affine in its rank inside a run
    /// ([`InFlight::dualpipe_counts`]: `p − r` and `r + 1` micro-batches of its two stages), rising
    /// or falling, so the first and the last rank (read in that order). Otherwise (offload
    /// subtracts, a negative offset clamps) every rank.
    fn peak_candidates(&self, t: &RowTerms) -> [std::ops::Range<u64>; 2] {
        if t.act_off != 0.0 || t.calibration_offset < 0.0 {
            return [self.first..self.end, self.end..self.end];
        }
        let first = self.first..(self.first + 1).min(self.end);
        if t.dualpipe.is_some() && self.end > first.end {
            [first, self.end - 1..self.end]
        } else {
            [first, self.end..self.end]
        }
    }
}

/// Rank `r`'s row in `run`, holding `in_flight` micro-batches (under DualPipe, each of its two
/// stages its own count, [`InFlight::dualpipe_counts`], and `in_flight` their mean weighted by
/// the stages' activations).
#[inline]
pub(crate) fn row(t: &RowTerms, run: &RunRows, r: u64, in_flight: f64) -> StageMemory {
    let (stored, states, other_buffers) = (run.stored, run.states, run.shared.other_buffers_bytes);
    // The layers' activations of the in-flight micro-batches, the count they amount to, and the
    // count of stage 0's (the embedding's).
    let (layers_act, in_flight, emb_in_flight) = match t
        .dualpipe
        .and_then(|f| Some((f.dualpipe_counts(r)?, f.dualpipe_counts(0)?)))
    {
        Some(((near, far), (stage0, _))) => {
            let a = run.near * near + (stored - run.near) * far;
            let n = if stored > 0.0 { a / stored } else { in_flight };
            (a, n, stage0)
        }
        None => (stored * in_flight, in_flight, in_flight),
    };
    // Activation offload: the offloaded share of every in-flight micro-batch's layer
    // activations waits in host memory; one micro-batch's share stays on the GPU while it is
    // copied out or back in (double buffering). Nothing without offload.
    let act_host = if t.act_off > 0.0 {
        stored * t.act_off * (in_flight - 1.0).max(0.0)
    } else {
        0.0
    };
    let mut act = layers_act - act_host;
    if run.has_emb {
        act += t.embedding * emb_in_flight;
    }
    if run.has_out {
        // The output layer, and each MTP module's pass through the shared head.
        let out_in_flight = if t.out_once { 1.0 } else { in_flight };
        act += run.heads * t.output * out_in_flight;
    }
    act += run.transient;
    let allocated = states + act + other_buffers;
    // The calibration's memory offset (scenario::calibration) is reserve the model does not
    // count; a negative one never takes the stage below its CUDA context and buffers.
    let allocator_reserve = max_num(
        t.reserve * allocated + t.calibration_offset + run.hole,
        -allocated,
    );
    let other = t.cuda_context + t.comm_buffers + allocator_reserve + other_buffers;
    let total = states + act + other;
    StageMemory {
        stage: r,
        activations_bytes: act,
        other_bytes: other,
        allocator_reserve_bytes: allocator_reserve,
        in_flight_micro_batches: in_flight,
        host_bytes: run.opt_host + act_host,
        total_bytes: total,
        ..run.shared
    }
}

/// Every rank's row of one estimate, as runs ([`RunRows`]), in rank order; or rows given whole
/// (`From<Vec<StageMemory>>`: a chart's or a test's hand-made estimate).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    pub(crate) terms: RowTerms,
    pub(crate) flight: Option<InFlight>,
    pub(crate) runs: Vec<RunRows>,
    /// Rows given whole, before the runs' ranks.
    given: Vec<StageMemory>,
}

impl From<Vec<StageMemory>> for Rows {
    fn from(given: Vec<StageMemory>) -> Rows {
        Rows {
            given,
            ..Rows::default()
        }
    }
}

impl Rows {
    /// Empties the rows, keeping the buffer.
    pub(crate) fn clear(&mut self) {
        self.runs.clear();
        self.given.clear();
        self.flight = None;
    }

    /// Every rank's row, in rank order.
    pub fn iter(&self) -> impl Iterator<Item = StageMemory> + '_ {
        let t = &self.terms;
        let computed = self.runs.iter().flat_map(move |run| {
            self.flight
                .iter()
                .flat_map(move |f| f.over(run.first..run.end))
                .map(move |(r, in_flight)| row(t, run, r, in_flight))
        });
        self.given.iter().copied().chain(computed)
    }

    /// Ranks.
    pub fn len(&self) -> usize {
        self.given.len() + self.runs.last().map_or(0, |run| run.end as usize)
    }

    /// Whether there is no rank.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The run holding rank `r`.
    pub(crate) fn run_of(&self, r: u64) -> Option<&RunRows> {
        self.runs
            .iter()
            .find(|run| (run.first..run.end).contains(&r))
    }

    /// The run holding rank `r`, looked up first as the `i`-th run (its place among the plan's
    /// runs, which the time model's stages read in the same order), else by rank.
    pub(crate) fn run_at(&self, i: usize, r: u64) -> Option<&RunRows> {
        match self.runs.get(i) {
            Some(run) if (run.first..run.end).contains(&r) => Some(run),
            _ => self.run_of(r),
        }
    }

    /// Rank `r`'s row.
    pub fn get(&self, r: u64) -> Option<StageMemory> {
        if let Some(given) = self.given.get(r as usize) {
            return Some(*given);
        }
        let (run, f) = (self.run_of(r)?, self.flight.as_ref()?);
        Some(row(&self.terms, run, r, f.at(r)))
    }

    /// The largest total, its rank (the first of equals) and that rank's row ([`Rows::get`]), as
    /// a scan of every rank's row finds them, reading only the ranks that can hold it
    /// ([`RunRows::peak_candidates`]); `(−∞, 0, None)` without ranks.
    pub(crate) fn peak(&self) -> (f64, u64, Option<StageMemory>) {
        let (mut peak, mut peak_stage) = (f64::NEG_INFINITY, 0);
        let Some(f) = &self.flight else {
            return (peak, peak_stage, None);
        };
        let mut at = None;
        for run in &self.runs {
            let [a, b] = run.peak_candidates(&self.terms);
            for (r, in_flight) in f.over(a).chain(f.over(b)) {
                let total = row(&self.terms, run, r, in_flight).total_bytes;
                if total > peak {
                    peak = total;
                    peak_stage = r;
                    at = Some((run, in_flight));
                }
            }
        }
        // The peak rank's row once more, not looked up again by rank.
        let peak_row = at.map(|(run, in_flight)| row(&self.terms, run, peak_stage, in_flight));
        (peak, peak_stage, peak_row)
    }
}

impl Serialize for Rows {
    /// As the list of every rank's row.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}
