//! What to change: the verdict on a plan, computed from the engine's own breakdown.
//!
//! [`verdict`] names the largest part of the step ([`Part`]), the largest *exposed* cost (every
//! part but the forward/backward compute: bubble, recomputation, optimizer, exposed
//! communication by kind), and ranks candidate one-step [`Change`]s (bucket size, pp, vp,
//! recomputation, TP overlap, micro-batch, ZeRO stage, SP, tp, cp) by re-running the same
//! [`estimate`](super::estimate()) on the changed scenario. Nothing here is canned text: every
//! suggestion carries the step time and peak memory the engine predicts for it, and a change is
//! suggested only when that prediction is better in the way it says ([`Goal`]).
//!
//! [`closest_fitting`] is the neighbourhood search for a plan that does not fit: every single
//! change, then every pair of changes of different kinds, on the same GPUs, keeping those that
//! fit, fewest changes first, then fastest. [`overflow`] breaks a failing plan's memory down by
//! stage and part.
//!
//! [`fixed`] names the costs a step pays once whatever the work per GPU when they take over.
//!
//! Candidates that break a rule of the scenario (divisibility, ranges) are dropped by
//! [`Scenario::validate`], and those the scenario's framework cannot run by
//! [`super::support::unsupported`], so only valid, runnable plans are ever offered.

pub mod fixed;

use super::estimate::{estimate_into, Estimate, MemoryEstimate, TimeEstimate};
use super::search::Layout;
use crate::scenario::{MoeDispatcher, Recompute, RecomputeModules, Scenario};
use crate::text::num::{Fixed, Plain};
use serde::Serialize;

/// A part of the step time, as in [`TimeEstimate`]: `step = compute + recompute + bubble +
/// optimizer + host + exposed tp + cp + ep + pp + dp` (+ offload, not advised on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// Forward and backward compute.
    Compute,
    /// Recomputed forward work.
    Recompute,
    /// Pipeline bubble.
    Bubble,
    /// Optimizer step.
    Optimizer,
    /// The GPU waiting for eager PyTorch's host ([`TimeEstimate::host_s`]).
    Host,
    /// Exposed tensor-parallel communication.
    Tp,
    /// Exposed context-parallel communication.
    Cp,
    /// Exposed expert-parallel all-to-all.
    Ep,
    /// Exposed pipeline point-to-point.
    Pp,
    /// Exposed data-parallel / ZeRO communication.
    Dp,
}

impl Part {
    /// Every part, in the order of [`TimeEstimate`]'s sum.
    pub const ALL: [Part; 10] = [
        Part::Compute,
        Part::Recompute,
        Part::Bubble,
        Part::Optimizer,
        Part::Host,
        Part::Tp,
        Part::Cp,
        Part::Ep,
        Part::Pp,
        Part::Dp,
    ];

    /// Seconds of this part in `t`.
    pub fn seconds(self, t: &TimeEstimate) -> f64 {
        let c = &t.exposed_comm_s;
        match self {
            Part::Compute => t.compute_s,
            Part::Recompute => t.recompute_s,
            Part::Bubble => t.bubble_s,
            Part::Optimizer => t.optimizer_s,
            Part::Host => t.host_s,
            Part::Tp => c.tp,
            Part::Cp => c.cp,
            Part::Ep => c.ep,
            Part::Pp => c.pp,
            Part::Dp => c.dp,
        }
    }

    /// The part in plain words.
    pub fn label(self) -> &'static str {
        match self {
            Part::Compute => "forward and backward compute",
            Part::Recompute => "activation recomputation",
            Part::Bubble => "the pipeline bubble",
            Part::Optimizer => "the optimizer step",
            Part::Host => "waiting for the eager host (CPU) to issue operators",
            Part::Tp => "exposed tensor-parallel communication",
            Part::Cp => "exposed context-parallel communication",
            Part::Ep => "exposed expert-parallel all-to-all",
            Part::Pp => "exposed pipeline send/receive",
            Part::Dp => "exposed data-parallel communication",
        }
    }
}

/// One change to a plan. Layout changes keep the GPU count (`dp` moves the other way).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Change {
    /// `parallel.bucket_mb`.
    BucketMb {
        /// New bucket size, MB.
        mb: f64,
    },
    /// `parallel.pp` and `parallel.dp` (same GPUs); a custom stage split is cleared.
    Pp {
        /// New pipeline degree.
        pp: u64,
        /// New data-parallel degree.
        dp: u64,
    },
    /// `parallel.tp` and `parallel.dp` (same GPUs).
    Tp {
        /// New tensor-parallel degree.
        tp: u64,
        /// New data-parallel degree.
        dp: u64,
    },
    /// `parallel.cp` and `parallel.dp` (same GPUs).
    Cp {
        /// New context-parallel degree.
        cp: u64,
        /// New data-parallel degree.
        dp: u64,
    },
    /// `parallel.vp` (the schedule follows: interleaved when `vp > 1`).
    Vp {
        /// New virtual-pipeline degree.
        vp: u64,
    },
    /// `training.recompute`.
    Recompute {
        /// New mode.
        mode: Recompute,
    },
    /// `training.recompute` selective with `training.recompute_modules` (Megatron-LM).
    RecomputeModules {
        /// The modules' bits ([`RecomputeModules::from_bits`]).
        bits: u8,
    },
    /// `parallel.tp_comm_overlap`.
    TpOverlap {
        /// On or off.
        on: bool,
    },
    /// `parallel.dp_comm_overlap`.
    DpOverlap {
        /// On or off.
        on: bool,
    },
    /// `training.micro_batch`.
    MicroBatch {
        /// New micro-batch size.
        b: u64,
    },
    /// `parallel.zero_stage`.
    Zero {
        /// New stage.
        stage: u8,
    },
    /// `parallel.sp`.
    Sp {
        /// On or off.
        on: bool,
    },
    /// `training.eager`: off stands for a compiled graph (`torch.compile`) with a fused
    /// optimizer, whose host time is not the step's.
    Eager {
        /// On or off.
        on: bool,
    },
    /// `training.fp8_params`: FP8 primary weights (Megatron-LM `--fp8-param-gather`), no 16-bit
    /// copy of the GEMM weights and their all-gather in FP8.
    Fp8Params {
        /// On or off.
        on: bool,
    },
    /// `parallel.moe_dispatcher`: DeepEP's kernels (a token once per GPU and node holding its
    /// experts) or an NCCL all-to-all of every routed copy.
    Dispatcher {
        /// DeepEP (true) or the all-to-all (false).
        deepep: bool,
    },
}

impl Change {
    /// Writes the change into `s`.
    pub fn apply(&self, s: &mut Scenario) {
        let p = &mut s.parallel;
        match *self {
            Change::BucketMb { mb } => p.bucket_mb = Some(mb),
            Change::Pp { pp, dp } => {
                p.pp = pp;
                p.dp = dp;
                p.layers_per_stage = None;
                if pp == 1 {
                    p.vp = 1;
                    p.schedule = None;
                }
            }
            Change::Tp { tp, dp } => {
                p.tp = tp;
                p.dp = dp;
                if tp == 1 {
                    p.sp = false;
                }
            }
            Change::Cp { cp, dp } => {
                p.cp = cp;
                p.dp = dp;
            }
            Change::Vp { vp } => {
                p.vp = vp;
                p.schedule = None;
            }
            Change::Recompute { mode } => s.training.set_recompute(mode),
            Change::RecomputeModules { bits } => {
                s.training.set_recompute(Recompute::Selective);
                s.training.recompute_modules = Some(RecomputeModules::from_bits(bits));
            }
            Change::TpOverlap { on } => p.tp_comm_overlap = Some(on),
            Change::DpOverlap { on } => p.dp_comm_overlap = Some(on),
            Change::MicroBatch { b } => s.training.micro_batch = b,
            Change::Zero { stage } => p.zero_stage = stage,
            Change::Sp { on } => p.sp = on,
            Change::Eager { on } => s.training.eager = Some(on),
            Change::Fp8Params { on } => s.training.fp8_params = Some(on),
            Change::Dispatcher { deepep } => {
                p.moe_dispatcher = Some(if deepep {
                    MoeDispatcher::Deepep
                } else {
                    MoeDispatcher::Alltoall
                })
            }
        }
    }

    /// Which knob it turns (two changes of one kind are never combined).
    pub fn kind(&self) -> &'static str {
        match self {
            Change::BucketMb { .. } => "bucket",
            Change::Pp { .. } => "pp",
            Change::Tp { .. } => "tp",
            Change::Cp { .. } => "cp",
            Change::Vp { .. } => "vp",
            Change::Recompute { .. } | Change::RecomputeModules { .. } => "recompute",
            Change::TpOverlap { .. } => "tp overlap",
            Change::DpOverlap { .. } => "dp overlap",
            Change::MicroBatch { .. } => "micro-batch",
            Change::Zero { .. } => "zero",
            Change::Sp { .. } => "sp",
            Change::Eager { .. } => "eager",
            Change::Fp8Params { .. } => "fp8 weights",
            Change::Dispatcher { .. } => "dispatcher",
        }
    }

    /// The change in words, from the plan `s` it applies to ("pp 4 → 8 (dp 8 → 4)").
    pub fn describe(&self, s: &Scenario) -> String {
        let p = &s.parallel;
        match *self {
            Change::BucketMb { mb } => match p.bucket_mb {
                Some(old) => format!("gradient bucket {} → {} MB", trim(old), trim(mb)),
                None => format!(
                    "gradient bucket {} MB (from the framework default)",
                    trim(mb)
                ),
            },
            Change::Pp { pp, dp } => format!("pp {} → {pp} (dp {} → {dp})", p.pp, p.dp),
            Change::Tp { tp, dp } => format!("tp {} → {tp} (dp {} → {dp})", p.tp, p.dp),
            Change::Cp { cp, dp } => format!("cp {} → {cp} (dp {} → {dp})", p.cp, p.dp),
            Change::Vp { vp } => format!("virtual stages {} → {vp}", p.vp),
            Change::Recompute { mode } => format!(
                "recompute {} → {}",
                s.training.recompute.as_str(),
                mode.as_str()
            ),
            Change::RecomputeModules { bits } => format!(
                "recompute {} → selective ({})",
                s.recompute_label(s.training.recompute),
                RecomputeModules::from_bits(bits).list()
            ),
            Change::TpOverlap { on } => format!("TP comm overlap {}", on_off(on)),
            Change::DpOverlap { on } => format!("DP comm overlap {}", on_off(on)),
            Change::MicroBatch { b } => format!("micro-batch {} → {b}", s.training.micro_batch),
            Change::Zero { stage } => format!("ZeRO stage {} → {stage}", p.zero_stage),
            Change::Sp { on } => format!("sequence parallel {}", on_off(on)),
            Change::Eager { on: false } => {
                "compiled graph and fused optimizer (torch.compile, eager off)".to_string()
            }
            Change::Eager { on: true } => "eager operator dispatch".to_string(),
            Change::Fp8Params { on } => {
                format!("FP8 primary weights {} (--fp8-param-gather)", on_off(on))
            }
            Change::Dispatcher { deepep: true } => {
                "MoE dispatch all-to-all → DeepEP (--moe-enable-deepep)".to_string()
            }
            Change::Dispatcher { deepep: false } => "MoE dispatch DeepEP → all-to-all".to_string(),
        }
    }

    /// The parts of the step this change acts on first (used to favour, among equally good
    /// changes, the one aimed at the largest exposed cost; the ranking itself is by the
    /// estimate).
    pub fn targets(&self) -> &'static [Part] {
        match self {
            Change::BucketMb { .. } | Change::DpOverlap { .. } | Change::Zero { .. } => {
                &[Part::Dp, Part::Optimizer]
            }
            Change::Pp { .. } | Change::Vp { .. } => &[Part::Bubble, Part::Dp, Part::Pp],
            Change::Tp { .. } | Change::TpOverlap { .. } | Change::Sp { .. } => &[Part::Tp],
            Change::Cp { .. } => &[Part::Cp],
            Change::Recompute { .. } | Change::RecomputeModules { .. } => &[Part::Recompute],
            Change::MicroBatch { .. } => &[Part::Bubble, Part::Compute, Part::Host],
            Change::Eager { .. } => &[Part::Host],
            Change::Fp8Params { .. } => &[Part::Dp],
            Change::Dispatcher { .. } => &[Part::Ep],
        }
    }
}

/// The modules a Megatron-LM plan of an MLA or MoE model can recompute for little time and much
/// memory, as DeepSeek-V3 did (report §3.2.3 and §3.3.3: RMSNorm, the MLA up-projections and the
/// experts' SwiGLU output): `layernorm`, with `mla_up_proj` for MLA and `moe_act` for MoE.
/// `None` for other stacks (no modules there) and for models with neither block.
fn memory_light_modules(s: &Scenario) -> Option<RecomputeModules> {
    let (mla, moe) = (s.model.mla.is_some(), s.model.moe.is_some());
    if !s.training.framework().traits().recompute_modules || !(mla || moe) {
        return None;
    }
    let mut m = RecomputeModules::LAYERNORM;
    if mla {
        m = m.with(RecomputeModules::MLA_UP_PROJ);
    }
    if moe {
        m = m.with(RecomputeModules::MOE_ACT);
    }
    Some(m)
}

/// The other MoE dispatcher for `s` (`Some(true)`: DeepEP), or `None` without expert
/// parallelism. Where the stack or the GPU cannot run DeepEP, validation rejects the changed plan
/// and [`evaluate`] drops it.
fn dispatcher_switch(s: &Scenario) -> Option<bool> {
    if s.model.moe.is_none() || s.parallel.ep <= 1 {
        return None;
    }
    Some(s.parallel.moe_dispatcher != Some(MoeDispatcher::Deepep))
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// A number without a useless fraction (`400`, `12.5`).
fn trim(v: f64) -> String {
    if v.fract() == 0.0 {
        Fixed(v, 0).to_string()
    } else {
        Plain(v).to_string()
    }
}

/// What a suggestion improves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// The plan fits and stays fitting; the step is shorter.
    Faster,
    /// The plan does not fit and fits after the change.
    Fits,
    /// The plan does not fit and still does not, but its peak memory is lower.
    LessMemory,
}

/// A change and what the engine predicts after it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Suggestion {
    /// The changes, applied in order (one for the verdict, up to two for [`closest_fitting`]).
    pub changes: Vec<Change>,
    /// What it improves.
    pub goal: Goal,
    /// Step time after, s.
    pub step_s: f64,
    /// Peak per-GPU memory after, bytes.
    pub peak_bytes: f64,
    /// Whether it fits after.
    pub fits: bool,
    /// MFU after.
    pub mfu: f64,
}

impl Suggestion {
    /// Applies every change to `s`.
    pub fn apply(&self, s: &mut Scenario) {
        for c in &self.changes {
            c.apply(s);
        }
    }

    /// The changes in words, joined by " and ".
    pub fn describe(&self, s: &Scenario) -> String {
        let mut s = s.clone();
        let mut parts = Vec::with_capacity(self.changes.len());
        for c in &self.changes {
            parts.push(c.describe(&s));
            c.apply(&mut s);
        }
        parts.join(" and ")
    }
}

/// The verdict on one plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Step time, s.
    pub step_s: f64,
    /// The largest part of the step.
    pub dominant: Part,
    /// Its share of the step (0..1).
    pub dominant_share: f64,
    /// The largest part other than compute, with its seconds and share (`None` when every other
    /// part is zero).
    pub largest_exposed: Option<(Part, f64, f64)>,
    /// Whether the plan fits.
    pub fits: bool,
    /// The best changes, best first (at most [`MAX_SUGGESTIONS`]).
    pub suggestions: Vec<Suggestion>,
    /// What the plan needs from its stack's version, and its cost without
    /// ([`super::stack_notes`]).
    pub stack_notes: Vec<super::stack_notes::StackNote>,
    /// The costs paid once per step whatever the work per GPU, when they take over
    /// ([`fixed::note`]).
    pub fixed: Option<fixed::FixedNote>,
}

/// Suggestions the verdict keeps.
pub const MAX_SUGGESTIONS: usize = 2;

/// A change must shorten the step by at least this fraction to count as faster (differences
/// below it are inside any estimate's noise and not worth a click).
pub const MIN_GAIN: f64 = 0.01;

/// Candidate single changes from plan `s`: every knob one step each way, keeping the GPU count.
/// Invalid ones are filtered later by the estimate's validation.
pub fn candidates(s: &Scenario) -> Vec<Change> {
    let p = &s.parallel;
    let t = &s.training;
    let mut out = Vec::new();
    // Degrees that trade with dp (×2 / ÷2), GPU count unchanged.
    if p.dp % 2 == 0 {
        out.push(Change::Pp {
            pp: p.pp * 2,
            dp: p.dp / 2,
        });
        out.push(Change::Tp {
            tp: p.tp * 2,
            dp: p.dp / 2,
        });
        out.push(Change::Cp {
            cp: p.cp * 2,
            dp: p.dp / 2,
        });
    }
    if p.pp % 2 == 0 {
        out.push(Change::Pp {
            pp: p.pp / 2,
            dp: p.dp.saturating_mul(2),
        });
    }
    if p.tp % 2 == 0 {
        out.push(Change::Tp {
            tp: p.tp / 2,
            dp: p.dp.saturating_mul(2),
        });
    }
    if p.cp % 2 == 0 {
        out.push(Change::Cp {
            cp: p.cp / 2,
            dp: p.dp.saturating_mul(2),
        });
    }
    // Virtual stages: the next counts up and down that split the layers evenly.
    if p.pp > 1 {
        let chunks_ok = |vp: u64| {
            let c = p.pp * vp;
            c <= s.model.layers && s.model.layers % c == 0
        };
        if let Some(vp) = (p.vp + 1..=p.vp * 2 + 1).find(|&v| chunks_ok(v)) {
            out.push(Change::Vp { vp });
        }
        if let Some(vp) = (1..p.vp).rev().find(|&v| chunks_ok(v)) {
            out.push(Change::Vp { vp });
        }
    }
    for &mode in Recompute::ALL {
        if mode != t.recompute {
            out.push(Change::Recompute { mode });
        }
    }
    if let Some(light) = memory_light_modules(s) {
        if s.recompute_modules() != Some(light) {
            out.push(Change::RecomputeModules { bits: light.bits() });
        }
    }
    if p.tp > 1 {
        out.push(Change::TpOverlap {
            on: !p.tp_comm_overlap(),
        });
        out.push(Change::Sp { on: !p.sp });
    }
    if !s.dp_comm_overlap() {
        out.push(Change::DpOverlap { on: true });
    }
    if t.eager() {
        out.push(Change::Eager { on: false });
    }
    // FP8 primary weights where Megatron-LM runs them (the validation's rule).
    if !t.fp8_params() && crate::scenario::validate::fp8_params_unsupported(s).is_none() {
        out.push(Change::Fp8Params { on: true });
    }
    // The MoE dispatcher (validation keeps DeepEP to the stacks and GPUs that run it).
    if let Some(deepep) = dispatcher_switch(s) {
        out.push(Change::Dispatcher { deepep });
    }
    // Micro-batch ×2 / ÷2 (must divide the batch per replica: validation checks).
    out.push(Change::MicroBatch {
        b: t.micro_batch.saturating_mul(2),
    });
    if t.micro_batch > 1 {
        out.push(Change::MicroBatch {
            b: t.micro_batch / 2,
        });
    }
    if p.dp.saturating_mul(p.cp) > 1 {
        for stage in 0..=3u8 {
            if stage != p.zero_stage {
                out.push(Change::Zero { stage });
            }
        }
        // Buckets: a quarter and four times the one the estimate models.
        let cur = crate::engine::plan::bucket_of(s).mb();
        for mb in [cur / 4.0, cur * 4.0] {
            if (1.0..=1e5).contains(&mb) {
                out.push(Change::BucketMb { mb: mb.round() });
            }
        }
    }
    out
}

/// Applies `changes` to a copy of `s` in `work` and estimates it into `est`; `false` when the
/// result is not a new, valid plan the framework can run.
fn evaluate(s: &Scenario, changes: &[Change], work: &mut Scenario, est: &mut Estimate) -> bool {
    work.clone_from(s);
    for c in changes {
        c.apply(work);
    }
    work != s
        && super::support::unsupported(work.training.framework(), &Layout::of(work)).is_none()
        && estimate_into(work, est).is_ok()
        && est.time.step_s.is_finite()
}

/// The verdict on plan `s` with its estimate `e`: the dominant part, the largest exposed cost
/// and the best [`MAX_SUGGESTIONS`] single changes by the engine's own prediction.
///
/// Ranking: a plan that fits gets changes that keep it fitting and shorten the step by at least
/// [`MIN_GAIN`], shortest step first. A plan that does not fit gets changes that make it fit,
/// shortest step first, or, when none does, those that lower its peak memory most. One
/// suggestion per kind of knob.
pub fn verdict(s: &Scenario, e: &Estimate) -> Verdict {
    let t = &e.time;
    let step = t.step_s.max(f64::MIN_POSITIVE);
    let mut dominant = Part::Compute;
    let mut largest: Option<(Part, f64, f64)> = None;
    for part in Part::ALL {
        let sec = part.seconds(t);
        if sec > dominant.seconds(t) {
            dominant = part;
        }
        if part != Part::Compute && sec > 0.0 && largest.is_none_or(|(_, best, _)| sec > best) {
            largest = Some((part, sec, sec / step));
        }
    }
    let fits = e.memory.fits;
    let mut work = s.clone();
    let mut est = Estimate::default();
    let mut scored: Vec<Suggestion> = Vec::new();
    for c in candidates(s) {
        if !evaluate(s, &[c], &mut work, &mut est) {
            continue;
        }
        let after = suggestion(vec![c], &est, fits, e);
        if let Some(sug) = after {
            scored.push(sug);
        }
    }
    let target = largest.map(|(p, _, _)| p);
    sort_suggestions(&mut scored, target);
    let mut kinds: Vec<&'static str> = Vec::new();
    scored.retain(|x| {
        let k = x.changes[0].kind();
        if kinds.contains(&k) {
            false
        } else {
            kinds.push(k);
            true
        }
    });
    scored.truncate(MAX_SUGGESTIONS);
    Verdict {
        step_s: t.step_s,
        dominant,
        dominant_share: dominant.seconds(t) / step,
        largest_exposed: largest,
        fits,
        suggestions: scored,
        stack_notes: super::stack_notes::stack_notes(s),
        fixed: fixed::note(t),
    }
}

/// The suggestion for `changes` with estimate `after`, if it improves on `before` as its goal
/// says.
fn suggestion(
    changes: Vec<Change>,
    after: &Estimate,
    was_fitting: bool,
    before: &Estimate,
) -> Option<Suggestion> {
    let fits = after.memory.fits;
    let goal = if was_fitting {
        (fits && after.time.step_s < before.time.step_s * (1.0 - MIN_GAIN)).then_some(Goal::Faster)
    } else if fits {
        Some(Goal::Fits)
    } else {
        (after.memory.peak_bytes < before.memory.peak_bytes * (1.0 - MIN_GAIN))
            .then_some(Goal::LessMemory)
    }?;
    Some(Suggestion {
        changes,
        goal,
        step_s: after.time.step_s,
        peak_bytes: after.memory.peak_bytes,
        fits,
        mfu: after.throughput.mfu,
    })
}

/// Best first: fitting before not; among fitting the shorter step (a change aimed at `target`
/// wins a tie within 0.1 %); among not fitting the lower peak memory.
fn sort_suggestions(v: &mut [Suggestion], target: Option<Part>) {
    let aims =
        |x: &Suggestion| target.is_some_and(|t| x.changes.iter().any(|c| c.targets().contains(&t)));
    crate::sort::sort_by(v, |a, b| {
        b.fits.cmp(&a.fits).then_with(|| {
            if a.fits {
                let close = (a.step_s - b.step_s).abs() <= 1e-3 * a.step_s.max(b.step_s);
                if close && aims(a) != aims(b) {
                    aims(b).cmp(&aims(a))
                } else {
                    a.step_s.total_cmp(&b.step_s)
                }
            } else {
                a.peak_bytes.total_cmp(&b.peak_bytes)
            }
        })
    });
}

/// The fitting plans nearest to `s` on the same GPUs: every single [`candidates`] change, then
/// every pair of changes of different kinds (the second drawn from the candidates of the plan
/// after the first), keeping those that fit. Fewest changes first, then the shortest step; at
/// most `n`. Empty when nothing within two changes fits (the full search may still find one).
pub fn closest_fitting(s: &Scenario, n: usize) -> Vec<Suggestion> {
    let mut work = s.clone();
    let mut est = Estimate::default();
    let mut ones: Vec<Suggestion> = Vec::new();
    let mut twos: Vec<Suggestion> = Vec::new();
    let firsts = candidates(s);
    for &c in &firsts {
        if evaluate(s, &[c], &mut work, &mut est) && est.memory.fits {
            ones.push(fitting(vec![c], &est));
        }
    }
    if ones.len() < n {
        let mut after_first = s.clone();
        for &c in &firsts {
            after_first.clone_from(s);
            c.apply(&mut after_first);
            for c2 in candidates(&after_first) {
                if c2.kind() == c.kind() {
                    continue;
                }
                if evaluate(s, &[c, c2], &mut work, &mut est) && est.memory.fits {
                    twos.push(fitting(vec![c, c2], &est));
                }
            }
        }
    }
    let by_step = |a: &Suggestion, b: &Suggestion| a.step_s.total_cmp(&b.step_s);
    crate::sort::sort_by(&mut ones, by_step);
    crate::sort::sort_by(&mut twos, by_step);
    // The same plan reached by two orders of one pair appears once.
    let mut out: Vec<Suggestion> = Vec::with_capacity(n);
    let mut seen: Vec<Scenario> = Vec::new();
    for sug in ones.into_iter().chain(twos) {
        if out.len() >= n {
            break;
        }
        work.clone_from(s);
        sug.apply(&mut work);
        if seen.contains(&work) {
            continue;
        }
        seen.push(work.clone());
        out.push(sug);
    }
    out
}

fn fitting(changes: Vec<Change>, est: &Estimate) -> Suggestion {
    Suggestion {
        changes,
        goal: Goal::Fits,
        step_s: est.time.step_s,
        peak_bytes: est.memory.peak_bytes,
        fits: true,
        mfu: est.throughput.mfu,
    }
}

/// One stage over capacity, with its memory by part.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Overflow {
    /// Pipeline rank.
    pub stage: u64,
    /// Bytes over capacity.
    pub over_bytes: f64,
    /// `(part, bytes)`: weights, gradients, optimizer, activations, other; they add up to the
    /// stage total.
    pub parts: [(&'static str, f64); 5],
}

/// The stages of `m` that do not fit, largest overflow first, each broken down by part.
pub fn overflow(m: &MemoryEstimate) -> Vec<Overflow> {
    let mut out: Vec<Overflow> = m
        .rows
        .iter()
        .filter(|st| st.total_bytes > m.capacity_bytes)
        .map(|st| Overflow {
            stage: st.stage,
            over_bytes: st.total_bytes - m.capacity_bytes,
            parts: [
                ("weights", st.weights_bytes),
                ("gradients", st.gradients_bytes),
                ("optimizer states", st.optimizer_bytes),
                ("activations", st.activations_bytes),
                ("other", st.other_bytes),
            ],
        })
        .collect();
    crate::sort::sort_by(&mut out, |a, b| b.over_bytes.total_cmp(&a.over_bytes));
    out
}

/// The verdict in one plain sentence (without the suggestions, which the caller lists with
/// their buttons): "Compute is 71 % of the 5.2 s step; the largest exposed cost is the pipeline
/// bubble, 14 % (0.71 s)."
pub fn sentence(v: &Verdict) -> String {
    let pct = |x: f64| format!("{} %", Fixed(100.0 * x, 0));
    let head = format!(
        "{} is {} of the {} step",
        crate::text::capitalized(v.dominant.label()),
        pct(v.dominant_share),
        crate::text::secs(v.step_s)
    );
    let line = match v.largest_exposed {
        Some((_, _, share)) if share < 0.01 => {
            format!("{head}; every other part is under 1 % of the step.")
        }
        Some((part, sec, share)) if part != v.dominant => format!(
            "{head}; the largest exposed cost is {}, {} ({}).",
            part.label(),
            pct(share),
            crate::text::secs(sec)
        ),
        Some(_) => format!("{head}; it is the largest exposed cost."),
        None => format!("{head}; nothing else is exposed."),
    };
    match &v.fixed {
        Some(n) => format!("{line} {}", fixed::sentence(n)),
        None => line,
    }
}
