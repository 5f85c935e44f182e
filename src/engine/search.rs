//! Best-layout search: enumerate every valid parallel layout for a model, training setup and
//! cluster size, evaluate each with the same [`estimate`](super::estimate), rank the feasible
//! ones by throughput and keep the Pareto front of throughput vs memory. Layouts the scenario's
//! `training.framework` cannot run ([`super::support::unsupported`]) are counted as rejected with
//! the reason and never recommended.
//!
//! The pipeline schedule is one of the dimensions ([`SearchSpace::schedules`]): with one chunk
//! per rank the default (1F1B), ZB-H1 and DualPipe; with two, interleaved, ZB-V and DualPipeV
//! (each only where its rules hold, else rejected by the engine with the rule's field). Once the
//! enumeration is done, the fastest layouts, fitting or not, are refined with the best split of
//! Megatron-LM's first/last-stage form ([`super::split::best_first_last`]): a layout whose split
//! makes it faster, or makes it fit, joins the results with that split.

pub use super::knobs::Layout;
use super::split::{best_first_last, megatron_split};
use crate::scenario::{Recompute, Scenario, Schedule};
use serde::Serialize;
use std::collections::BTreeMap;

impl Layout {
    /// The layout of a scenario.
    pub fn of(s: &Scenario) -> Layout {
        let p = &s.parallel;
        Layout {
            tp: p.tp,
            pp: p.pp,
            dp: p.dp,
            cp: p.cp,
            ep: p.ep,
            etp: p.etp(),
            vp: p.vp,
            micro_batch: s.training.micro_batch,
            recompute: s.training.recompute,
            zero_stage: p.zero_stage,
            sp: p.sp,
            schedule: p.schedule,
            first_last: p
                .layers_per_stage
                .as_deref()
                .and_then(super::split::megatron_first_last),
        }
    }

    /// Writes this layout into `s` (other fields untouched): its schedule and its split (the
    /// default when `first_last` is `None`, or when it does not fit `s`'s layer count).
    pub fn apply(&self, s: &mut Scenario) {
        let p = &mut s.parallel;
        p.tp = self.tp;
        p.pp = self.pp;
        p.dp = self.dp;
        p.cp = self.cp;
        p.ep = self.ep;
        // The default (`etp = tp`) stays implicit so unchanged scenarios stay unchanged.
        p.etp = if self.etp == self.tp {
            None
        } else {
            Some(self.etp)
        };
        p.vp = self.vp;
        p.zero_stage = self.zero_stage;
        p.sp = self.sp;
        p.layers_per_stage = self
            .first_last
            .and_then(|(f, l)| megatron_split(s.model.layers, self.pp, f, l));
        p.schedule = self.schedule;
        s.training.micro_batch = self.micro_batch;
        s.training.set_recompute(self.recompute);
    }
}

/// One evaluated layout.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ranked {
    /// The layout.
    pub layout: Layout,
    /// Step time, s.
    pub step_s: f64,
    /// Cluster tokens per second.
    pub tokens_per_s: f64,
    /// Model FLOPs utilisation.
    pub mfu: f64,
    /// Peak per-GPU memory over stages, bytes.
    pub peak_bytes: f64,
    /// Whether it fits in GPU memory (`peak ≤ capacity`).
    pub fits: bool,
    /// The three-state verdict with the engine's band
    /// ([`super::memory::verdict::DEFAULT_BAND_FRAC`]): a layout kept as feasible may still be
    /// "may not fit".
    pub verdict: super::memory::verdict::Verdict,
}

/// What the search found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SearchReport {
    /// Layouts evaluated by the engine.
    pub evaluated: u64,
    /// Layouts that fit in memory.
    pub feasible: u64,
    /// Best feasible layouts by throughput, best first (ties broken by a stable key).
    pub best: Vec<Ranked>,
    /// Pareto front of throughput vs peak memory among feasible layouts, by memory ascending.
    pub pareto: Vec<Ranked>,
    /// A bounded, deterministic sample of feasible layouts for the scatter chart.
    pub points: Vec<Ranked>,
    /// Layouts not evaluated or not feasible, counted by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Whether the candidate cap cut the enumeration short.
    pub truncated: bool,
}

/// What the search may vary, and its limits. [`SearchSpace::default`] varies everything.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSpace {
    /// GPUs to lay out; `None` keeps the scenario's `cluster.num_gpus`.
    pub num_gpus: Option<u64>,
    /// Allow layer counts that do not divide `pp·vp` (uneven stages).
    pub allow_uneven: bool,
    /// Largest micro-batch tried.
    pub max_micro_batch: u64,
    /// Largest virtual-pipeline degree tried.
    pub max_vp: u64,
    /// Try context parallelism (`cp > 1`).
    pub vary_cp: bool,
    /// Recompute modes tried.
    pub recompute: Vec<Recompute>,
    /// ZeRO stages tried.
    pub zero_stages: Vec<u8>,
    /// Pipeline schedules tried (`None` = the default for `vp`); each only with the chunk
    /// count it runs ([`Schedule::needs_vp`]).
    pub schedules: Vec<Option<Schedule>>,
    /// Refine the fastest layouts with the best first/last-stage split.
    pub refine_splits: bool,
    /// How many of the best layouts to keep.
    pub top: usize,
    /// Stop after this many candidates (the report says `truncated`).
    pub max_candidates: u64,
}

impl Default for SearchSpace {
    fn default() -> SearchSpace {
        SearchSpace {
            num_gpus: None,
            allow_uneven: false,
            max_micro_batch: 16,
            max_vp: 8,
            vary_cp: true,
            recompute: Recompute::ALL.to_vec(),
            zero_stages: vec![0, 1, 2, 3],
            schedules: vec![
                None,
                Some(Schedule::ZbH1),
                Some(Schedule::DualPipe),
                Some(Schedule::ZbV),
                Some(Schedule::DualPipeV),
            ],
            refine_splits: true,
            top: 10,
            max_candidates: 5_000_000,
        }
    }
}

/// Cap on the scatter sample in [`SearchReport::points`].
const MAX_POINTS: usize = 400;

/// The layout-level part of a candidate (everything but micro-batch, recompute, ZeRO, SP).
#[derive(Clone, Debug)]
struct Outer {
    tp: u64,
    pp: u64,
    dp: u64,
    cp: u64,
    ep: u64,
    etp: u64,
    vp: u64,
    schedule: Option<Schedule>,
    micro_batches: Vec<u64>,
}

/// An incremental search: build it, call [`Searcher::step`] until it returns `true`, then read
/// [`Searcher::report`]. The app runs it in slices so the page never freezes; [`search`] runs it
/// to the end.
#[derive(Debug)]
pub struct Searcher {
    work: Scenario,
    space: SearchSpace,
    outers: Vec<Outer>,
    /// Position: outer index, then the inner mixed-radix index.
    outer: usize,
    inner: usize,
    total: u64,
    done: u64,
    estimate: super::estimate::Estimate,
    feasible: Vec<Ranked>,
    /// The fastest layouts that do not fit (at most `top`), for the split refinement.
    near: Vec<Ranked>,
    refined: bool,
    report: SearchReport,
    /// Scratch for building a rejection reason without allocating.
    reason: String,
}

/// Inner candidates of one layout: micro-batches × recompute modes × ZeRO stages (only 0 when
/// `dp = 1`) × SP (both values when `tp > 1`).
fn inner_count(space: &SearchSpace, tp: u64, dp: u64, micro_batches: usize) -> u64 {
    (micro_batches * space.recompute.len() * zero_choices(space, dp) * sp_choices(tp)) as u64
}

/// ZeRO stages tried for a data-parallel degree: all of them, or only 0 without data parallelism.
fn zero_choices(space: &SearchSpace, dp: u64) -> usize {
    if dp > 1 {
        space.zero_stages.len()
    } else {
        usize::from(space.zero_stages.contains(&0))
    }
}

/// SP values tried: on and off with tensor parallelism, off without.
fn sp_choices(tp: u64) -> usize {
    if tp > 1 {
        2
    } else {
        1
    }
}

/// Divisors of `n` in ascending order.
fn divisors(n: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut i = 1u64;
    while i.saturating_mul(i) <= n {
        if n % i == 0 {
            small.push(i);
            if i != n / i {
                large.push(n / i);
            }
        }
        i += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

/// Counts `count` candidates as rejected for `reason` (nothing when there are none).
fn reject(report: &mut SearchReport, reason: &str, count: u64) {
    if count > 0 {
        *report.rejected.entry(reason.to_string()).or_insert(0) += count;
    }
}

/// The largest tensor-parallel degree tried: TP stays inside one server or NVLink domain
/// (Narayanan et al. 2021 §3.3, takeaway #1: "use tensor model parallelism up to degree g", the
/// GPUs per server): its per-layer collectives across the slower network are never worth it.
fn tp_domain(base: &Scenario) -> u64 {
    base.gpu()
        .map_or(1, |g| g.nvlink_domain_gpus)
        .max(base.cluster.gpus_per_node)
        .max(1)
}

/// The first divisibility rule the layout (`tp`, `cp`, `chunks` = pp·vp pipeline chunks, `dp`)
/// breaks for `base`'s model and batch, as the reason the report counts it under; `None` when it
/// keeps them all. Layers split over the chunks evenly, or evenly once the embedding and the
/// loss count as a layer each (`layers + 2`); `space.allow_uneven` accepts any split with a
/// layer per chunk.
fn broken_rule(
    base: &Scenario,
    space: &SearchSpace,
    tp_domain: u64,
    tp: u64,
    cp: u64,
    chunks: u64,
    dp: u64,
) -> Option<&'static str> {
    let m = &base.model;
    let layers = m.layers;
    let even = layers % chunks == 0 || (layers + 2) % chunks == 0;
    if tp > tp_domain {
        Some("tp spans more than one server or NVLink domain")
    } else if m.heads.max(1) % tp != 0 || !base.tp_splits_kv_heads(tp) {
        Some("tp does not divide the attention or KV heads")
    } else if m.seq_len % cp != 0 {
        Some("cp does not divide the sequence length")
    } else if chunks > layers.saturating_add(2) || (!space.allow_uneven && !even) {
        Some("layers do not split evenly over pp·vp")
    } else if base.training.global_batch % dp != 0 {
        Some("dp does not divide the global batch")
    } else {
        None
    }
}

/// Adds `layout` (its tp, cp, pp, vp, dp and micro-batches) to `outers` once per expert layout
/// and pipeline schedule: etp = tp (Megatron-Core's default) or 1, and every ep dividing both
/// the experts and tp·cp·dp/etp (MoE parallel folding); every schedule of `space` that applies
/// (the stack's default always, a named one with pp > 1 and the vp it needs,
/// [`Schedule::needs_vp`]).
fn push_expert_layouts(
    outers: &mut Vec<Outer>,
    base: &Scenario,
    space: &SearchSpace,
    layout: Outer,
) {
    let Outer {
        tp, cp, pp, dp, vp, ..
    } = layout;
    let experts = base.model.moe.map(|x| x.experts);
    let etps: &[u64] = match experts {
        Some(_) if tp > 1 => &[tp, 1],
        _ => &[tp],
    };
    let schedules: Vec<Option<Schedule>> = space
        .schedules
        .iter()
        .copied()
        .filter(|x| match x {
            None => true,
            Some(sc) => pp > 1 && sc.needs_vp(vp),
        })
        .collect();
    for &etp in etps {
        let eps: Vec<u64> = match experts {
            Some(e) => divisors(tp * cp * dp / etp)
                .into_iter()
                .filter(|x| e % x == 0)
                .collect(),
            None => vec![1],
        };
        for (&schedule, ep) in schedules
            .iter()
            .flat_map(|sc| eps.iter().map(move |&ep| (sc, ep)))
        {
            outers.push(Outer {
                ep,
                etp,
                schedule,
                micro_batches: layout.micro_batches.clone(),
                ..layout
            });
        }
    }
}

impl Searcher {
    /// Prepares the enumeration for `base` (its model, training and cluster; the layout is
    /// replaced) over `space`. Candidates that break a divisibility rule are counted as rejected
    /// here, by reason ([`broken_rule`]), and never evaluated.
    pub fn new(base: &Scenario, space: &SearchSpace) -> Searcher {
        let mut work = base.clone();
        let n = space.num_gpus.unwrap_or(base.cluster.num_gpus).max(1);
        work.cluster.num_gpus = n;
        let mut report = SearchReport::default();
        let gb = base.training.global_batch;
        let tp_domain = tp_domain(base);
        let mut outers = Vec::new();
        let all_mb = space.max_micro_batch.max(1) as usize;
        // The space: tp | N, cp | N/tp (cp > 1 only with `vary_cp`), pp | N/(tp·cp),
        // vp in 1..=max_vp (1 when pp = 1), dp = N/(tp·cp·pp), then per layout every micro-batch
        // 1..=max_micro_batch × recompute × ZeRO stage (0 only when dp = 1) × SP (when tp > 1).
        // Each candidate breaking a rule is counted once, under the first rule it breaks.
        for tp in divisors(n) {
            for cp in divisors(n / tp) {
                if cp > 1 && !space.vary_cp {
                    continue;
                }
                for pp in divisors(n / tp / cp) {
                    let dp = n / tp / cp / pp;
                    let max_vp = if pp == 1 { 1 } else { space.max_vp.max(1) };
                    for vp in 1..=max_vp {
                        let all = inner_count(space, tp, dp, all_mb);
                        let chunks = pp * vp;
                        if let Some(rule) = broken_rule(base, space, tp_domain, tp, cp, chunks, dp)
                        {
                            reject(&mut report, rule, all);
                            continue;
                        }
                        let per_replica = gb / dp;
                        let micro_batches: Vec<u64> = (1..=all_mb as u64)
                            .filter(|b| per_replica % b == 0)
                            .collect();
                        let skipped = all_mb - micro_batches.len();
                        reject(
                            &mut report,
                            "micro-batch does not divide the batch per replica",
                            inner_count(space, tp, dp, skipped),
                        );
                        if micro_batches.is_empty() {
                            continue;
                        }
                        let layout = Outer {
                            tp,
                            pp,
                            dp,
                            cp,
                            ep: 1,
                            etp: tp,
                            vp,
                            schedule: None,
                            micro_batches,
                        };
                        push_expert_layouts(&mut outers, base, space, layout);
                    }
                }
            }
        }
        let total = outers
            .iter()
            .map(|o| inner_count(space, o.tp, o.dp, o.micro_batches.len()))
            .sum();
        Searcher {
            work,
            space: space.clone(),
            outers,
            outer: 0,
            inner: 0,
            total,
            done: 0,
            estimate: super::estimate::Estimate::default(),
            feasible: Vec::new(),
            near: Vec::new(),
            refined: false,
            reason: String::new(),
            report,
        }
    }

    /// Candidates to evaluate in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Candidates evaluated so far.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// The inner choices of outer `o`: (micro-batches, recompute modes, ZeRO stages, SP values).
    fn inner_dims(&self, o: &Outer) -> (usize, usize, usize, usize) {
        (
            o.micro_batches.len(),
            self.space.recompute.len(),
            zero_choices(&self.space, o.dp),
            sp_choices(o.tp),
        )
    }

    /// Evaluates up to `budget` candidates; returns `true` when the enumeration is complete.
    pub fn step(&mut self, budget: u64) -> bool {
        let mut left = budget;
        while left > 0 {
            if self.outer >= self.outers.len() {
                self.refine();
                return true;
            }
            if self.done >= self.space.max_candidates {
                self.report.truncated = true;
                return true;
            }
            let o = self.outers[self.outer].clone();
            let (nm, nr, nz, ns) = self.inner_dims(&o);
            let count = nm * nr * nz * ns;
            if self.inner >= count {
                self.outer += 1;
                self.inner = 0;
                continue;
            }
            let mut i = self.inner;
            let sp = i % ns == 1;
            i /= ns;
            let zi = i % nz;
            i /= nz;
            let ri = i % nr;
            i /= nr;
            let mb = o.micro_batches[i % nm];
            let zero_stage = if o.dp > 1 {
                self.space.zero_stages[zi]
            } else {
                0
            };
            let layout = Layout {
                tp: o.tp,
                pp: o.pp,
                dp: o.dp,
                cp: o.cp,
                ep: o.ep,
                etp: o.etp,
                vp: o.vp,
                micro_batch: mb,
                recompute: self.space.recompute[ri],
                zero_stage,
                sp,
                schedule: o.schedule,
                first_last: None,
            };
            match super::support::unsupported(self.work.training.framework(), &layout) {
                Some(why) => {
                    use std::fmt::Write;
                    let framework = self.work.training.framework().as_str();
                    self.reason.clear();
                    let _ = write!(self.reason, "{framework} cannot run it: {why}");
                    count_rejected(&mut self.report, &self.reason);
                }
                None => self.evaluate(layout),
            }
            self.inner += 1;
            self.done += 1;
            left -= 1;
        }
        if self.outer >= self.outers.len() {
            self.refine();
            true
        } else {
            false
        }
    }

    /// Once, after the enumeration: the best first/last-stage split for the `top` fastest
    /// feasible layouts and the `top` fastest that do not fit; each improved one is added.
    fn refine(&mut self) {
        if self.refined || !self.space.refine_splits {
            return;
        }
        self.refined = true;
        let top = self.space.top.max(1);
        let mut picks: Vec<Ranked> = self.feasible.clone();
        fastest_first(&mut picks, top, |a, b| {
            b.tokens_per_s.total_cmp(&a.tokens_per_s)
        });
        picks.extend(self.near.iter().copied());
        for r in picks {
            r.layout.apply(&mut self.work);
            let Some((f, l, _)) = best_first_last(&self.work, &mut self.estimate) else {
                continue;
            };
            let layout = Layout {
                first_last: Some((f, l)),
                ..r.layout
            };
            self.evaluate(layout);
        }
    }

    fn evaluate(&mut self, layout: Layout) {
        use super::estimate::{memory_into, time_into};
        layout.apply(&mut self.work);
        self.report.evaluated += 1;
        let gpu = match self.work.validated_gpu() {
            Ok(gpu) => gpu,
            Err(e) => {
                let reason = e
                    .issues
                    .first()
                    .map_or_else(|| "invalid".to_string(), |i| format!("invalid {}", i.field));
                count_rejected(&mut self.report, &reason);
                return;
            }
        };
        let plan = super::plan::Plan::new(&self.work, &gpu);
        memory_into(&plan, &mut self.estimate);
        let fits = self.estimate.memory.fits;
        if !fits {
            count_rejected(&mut self.report, "does not fit in GPU memory");
            // It matters only as a near miss a better split may rescue ([`Searcher::keep_near`]);
            // without that, its time is not needed.
            if !(self.refines(&layout) && self.split_may_fit()) {
                return;
            }
        }
        time_into(&plan, &mut self.estimate);
        let est = &self.estimate;
        let r = Ranked {
            layout,
            step_s: est.time.step_s,
            tokens_per_s: est.throughput.tokens_per_s,
            mfu: est.throughput.mfu,
            peak_bytes: est.memory.peak_bytes,
            fits,
            verdict: est.memory.fit.verdict,
        };
        if fits {
            self.report.feasible += 1;
            self.feasible.push(r);
        } else {
            self.keep_near(r);
        }
    }

    /// Whether some stage split of the layout just estimated may fit: every split places the
    /// same layers, so the model states summed over the stages do not change, and the fullest
    /// stage holds at least their mean. When that mean alone exceeds the GPU, no split fits.
    fn split_may_fit(&self) -> bool {
        let m = &self.estimate.memory;
        let states: f64 = m.rows.iter().map(|st| st.model_states_bytes()).sum();
        states / (m.rows.len().max(1) as f64) <= m.capacity_bytes
    }

    /// Whether a layout that does not fit may still be rescued by a better stage split (the
    /// search refines splits and the layout has a pipeline).
    fn refines(&self, layout: &Layout) -> bool {
        self.space.refine_splits && layout.pp >= 2
    }

    /// The report so far (complete once [`Searcher::step`] has returned `true`).
    pub fn report(&self) -> SearchReport {
        let mut report = self.report.clone();
        let mut by_speed: Vec<&Ranked> = self.feasible.iter().collect();
        fastest_first(&mut by_speed, self.space.top, |a, b| {
            b.tokens_per_s
                .total_cmp(&a.tokens_per_s)
                .then_with(|| a.peak_bytes.total_cmp(&b.peak_bytes))
                .then_with(|| key(&a.layout).cmp(&key(&b.layout)))
        });
        report.best = by_speed.iter().map(|r| **r).collect();
        // Pareto front: by memory ascending, keep each layout faster than every smaller one.
        let mut by_mem: Vec<&Ranked> = self.feasible.iter().collect();
        // The layout key breaks every tie, so the order does not depend on the search order.
        crate::sort::sort_by(&mut by_mem, |a, b| {
            a.peak_bytes
                .total_cmp(&b.peak_bytes)
                .then_with(|| b.tokens_per_s.total_cmp(&a.tokens_per_s))
                .then_with(|| key(&a.layout).cmp(&key(&b.layout)))
        });
        let mut best_speed = f64::NEG_INFINITY;
        for r in by_mem {
            if r.tokens_per_s > best_speed {
                best_speed = r.tokens_per_s;
                report.pareto.push(*r);
            }
        }
        // Scatter sample: the Pareto front, the best, then an even stride over the rest.
        let mut points: Vec<Ranked> = report
            .pareto
            .iter()
            .chain(report.best.iter())
            .copied()
            .collect();
        let stride = (self.feasible.len() / MAX_POINTS).max(1);
        points.extend(self.feasible.iter().step_by(stride).copied());
        crate::sort::sort_by_key(&mut points, |a| key(&a.layout));
        points.dedup_by(|a, b| a.layout == b.layout);
        points.truncate(MAX_POINTS.max(report.pareto.len() + report.best.len()));
        report.points = points;
        report
    }
}

/// Adds one rejection for `reason`, allocating its key only the first time it is seen.
fn count_rejected(report: &mut SearchReport, reason: &str) {
    match report.rejected.get_mut(reason) {
        Some(n) => *n += 1,
        None => {
            report.rejected.insert(reason.to_string(), 1);
        }
    }
}

/// Keeps the `top` first elements of `v` under `cmp`, in order: a selection, then a sort of
/// those only (O(n + top·log top) instead of sorting all of `v`).
fn fastest_first<T>(v: &mut Vec<T>, top: usize, cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    if top == 0 {
        v.clear();
        return;
    }
    if v.len() > top {
        v.select_nth_unstable_by(top - 1, &cmp);
        v.truncate(top);
    }
    crate::sort::sort_by(v, cmp);
}

impl Searcher {
    /// Keeps `r` among the `top` fastest layouts that do not fit.
    fn keep_near(&mut self, r: Ranked) {
        if !self.refines(&r.layout) || !r.tokens_per_s.is_finite() {
            return;
        }
        let top = self.space.top.max(1);
        if self.near.len() < top {
            self.near.push(r);
            return;
        }
        let slowest = self
            .near
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.tokens_per_s.total_cmp(&b.1.tokens_per_s))
            .map(|(i, x)| (i, x.tokens_per_s));
        if let Some((i, t)) = slowest {
            if r.tokens_per_s > t {
                self.near[i] = r;
            }
        }
    }
}

/// A total order on layouts, for deterministic tie-breaking.
#[allow(clippy::type_complexity)]
fn key(
    l: &Layout,
) -> (
    (u64, u64, u64, u64, u64, u64, u64, u64, u8, u8, bool),
    (u8, (u64, u64)),
) {
    let rc = match l.recompute {
        Recompute::None => 0,
        Recompute::Selective => 1,
        Recompute::Full => 2,
    };
    (
        (
            l.tp,
            l.pp,
            l.dp,
            l.cp,
            l.ep,
            l.etp,
            l.vp,
            l.micro_batch,
            rc,
            l.zero_stage,
            l.sp,
        ),
        (
            l.schedule
                .and_then(|x| Schedule::ALL.iter().position(|y| *y == x))
                .map_or(0, |i| i as u8 + 1),
            l.first_last.unwrap_or((0, 0)),
        ),
    )
}

/// Runs the whole search for `base` over `space`.
///
/// # Example
/// ```
/// use paracalc::engine::search::{search, SearchSpace};
/// let s = paracalc::scenario::parse(r#"{
///   "model": {"layers": 24, "hidden": 2048, "heads": 16, "vocab": 50304, "seq_len": 2048},
///   "training": {"global_batch": 256, "micro_batch": 4, "precision": "bf16", "recompute": "none"},
///   "parallel": {"tp": 1, "pp": 1, "dp": 8},
///   "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}
/// }"#)?;
/// let report = search(&s, &SearchSpace::default());
/// assert!(report.evaluated > 0);
/// Ok::<(), paracalc::scenario::ScenarioError>(())
/// ```
pub fn search(base: &Scenario, space: &SearchSpace) -> SearchReport {
    let mut s = Searcher::new(base, space);
    while !s.step(1 << 16) {}
    s.report()
}
