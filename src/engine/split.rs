//! The best split of layers over pipeline stages.
//!
//! Stages are not equal even when their layer counts are: stage 0 also runs the embedding and
//! holds the most in-flight micro-batches (1F1B: `p`, pipeline.md §2), the last stage runs the
//! output layer and the loss, MoE models start with dense layers and end with MTP modules, and
//! the V-shaped and DualPipe schedules place the embedding and the loss elsewhere
//! ([`super::layout`]). [`best_split`] searches `parallel.layers_per_stage` with the engine itself
//! as the judge, in this order of preference ([`Goal::Fastest`]):
//! 1. every stage fits (while none does, the lowest peak memory);
//! 2. the shortest step;
//! 3. at equal step time, the lowest peak memory, then the smallest spread between the
//!    fullest and the emptiest stage.
//!
//! [`lightest_split`] answers the other question a planner asks ([`Goal::Lightest`]): the split
//! with the lowest peak memory, then the smallest spread, among those no slower than the
//! scenario's own. The fastest split often piles layers where the pipeline has slack, so the two
//! differ: DeepSeek-V3 on pp 16 with DualPipe (H200) is fastest as 1, 4, 3, 3, 4, … , 6 (spread
//! 25.5 GiB) and lightest at the same speed as 1, 4, … , 4 (spread 5.0 GiB, from 19.0).
//!
//! The search is a steepest descent over single-layer moves between any two stages, from the
//! scenario's own split (an even split's neighbourhood is where Megatron's and NeMo's rules
//! live). Each round tries `p·(p − 1)` moves, each a full [`estimate_into`], so a proposal
//! costs a few thousand estimates (milliseconds natively); it allocates and is not meant for the
//! per-layout hot path of the search, which calls it for its best layouts only.
//!
//! The result is given as `parallel.layers_per_stage` and, when every middle stage has the
//! same count and there is one chunk per rank, as Megatron-LM's
//! `--decoder-first-pipeline-num-layers` / `--decoder-last-pipeline-num-layers` (Megatron-Core
//! `transformer_block.py` / `get_transformer_layer_offset`: the first and the last pipeline stage
//! take the given counts and the middle stages split the rest evenly).

use super::estimate::{estimate_into, Estimate};
use super::layout;
use crate::scenario::{Scenario, ScenarioError, Schedule};

/// Most improving moves taken before the search stops.
const MAX_ROUNDS: usize = 256;
/// Most estimates one proposal makes. A round tries `p·(p − 1)` moves, so deep pipelines (pp 64:
/// 4,032 per round) would otherwise take a second or more in the browser, where the parallel
/// form proposes a split on every edit; at the budget the search takes the best move of the
/// round so far and stops, so the proposal is still no worse than the scenario's own split.
/// Pipelines up to pp 32 finish well inside it.
const MAX_ESTIMATES: usize = 6_000;
/// Step times within this relative difference count as equal.
const STEP_TOL: f64 = 1e-9;

/// What a proposal optimises (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Fit, then the shortest step, then the lowest peak memory and spread.
    Fastest,
    /// Fit, then no slower than the scenario's own split, then the lowest peak memory, then the
    /// smallest spread between the fullest and the emptiest stage.
    Lightest,
}

/// A split of layers over pipeline stages and what it gives.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitProposal {
    /// What the split was chosen for.
    pub goal: Goal,
    /// Layers per pipeline rank (`parallel.layers_per_stage`).
    pub layers_per_stage: Vec<u64>,
    /// Megatron-LM's `--decoder-first-pipeline-num-layers` and
    /// `--decoder-last-pipeline-num-layers` for this split, when it has that form.
    pub megatron_first_last: Option<(u64, u64)>,
    /// Step time with this split, s.
    pub step_s: f64,
    /// Peak memory over the stages with this split, bytes.
    pub peak_bytes: f64,
    /// Fullest minus emptiest stage, bytes.
    pub spread_bytes: f64,
    /// Whether every stage fits.
    pub fits: bool,
    /// The scenario's own split, for comparison.
    pub base_layers_per_stage: Vec<u64>,
    /// Step time with the scenario's own split, s.
    pub base_step_s: f64,
    /// Peak memory with the scenario's own split, bytes.
    pub base_peak_bytes: f64,
    /// Spread with the scenario's own split, bytes.
    pub base_spread_bytes: f64,
    /// Whether the scenario's own split fits.
    pub base_fits: bool,
}

impl SplitProposal {
    /// Whether the proposal beats the scenario's own split (by the module's order).
    pub fn is_better(&self) -> bool {
        let base = Score {
            fits: self.base_fits,
            step: self.base_step_s,
            peak: self.base_peak_bytes,
            spread: self.base_spread_bytes,
        };
        self.layers_per_stage != self.base_layers_per_stage
            && better_for(
                self.goal,
                &base,
                &Score {
                    fits: self.fits,
                    step: self.step_s,
                    peak: self.peak_bytes,
                    spread: self.spread_bytes,
                },
                &base,
            )
    }

    /// Step time saved against the scenario's own split, s (negative: slower).
    pub fn time_saved_s(&self) -> f64 {
        self.base_step_s - self.step_s
    }

    /// Peak memory saved against the scenario's own split, bytes (negative: more).
    pub fn memory_saved_bytes(&self) -> f64 {
        self.base_peak_bytes - self.peak_bytes
    }
}

/// What the search compares: whether every stage fits, the step time, the peak memory and the
/// spread between the fullest and the emptiest stage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// Every stage fits.
    pub fits: bool,
    /// Step time, s.
    pub step: f64,
    /// Peak memory, bytes.
    pub peak: f64,
    /// Fullest minus emptiest stage, bytes.
    pub spread: f64,
}

impl Score {
    fn of(e: &Estimate) -> Score {
        let (lo, hi) = e
            .memory
            .rows
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
                (lo.min(s.total_bytes), hi.max(s.total_bytes))
            });
        Score {
            fits: e.memory.fits,
            step: e.time.step_s,
            peak: e.memory.peak_bytes,
            spread: if hi >= lo { hi - lo } else { 0.0 },
        }
    }
}

/// Whether `a` is strictly better than `b`.
fn better(a: &Score, b: &Score) -> bool {
    if a.fits != b.fits {
        return a.fits;
    }
    let same_step = (a.step - b.step).abs() <= STEP_TOL * b.step.abs().max(1e-30);
    if !a.fits {
        // Nothing fits yet: get the peak down first.
        if a.peak != b.peak {
            return a.peak < b.peak;
        }
        return !same_step && a.step < b.step;
    }
    if !same_step {
        return a.step < b.step;
    }
    if a.peak != b.peak {
        return a.peak < b.peak;
    }
    a.spread < b.spread
}

/// Whether `a` is strictly better than `b` for `goal`, `base` being the scenario's own split
/// (whose step time bounds [`Goal::Lightest`]).
fn better_for(goal: Goal, base: &Score, a: &Score, b: &Score) -> bool {
    match goal {
        Goal::Fastest => better(a, b),
        Goal::Lightest => {
            if a.fits != b.fits {
                return a.fits;
            }
            let limit = base.step * (1.0 + STEP_TOL);
            let (a_ok, b_ok) = (a.step <= limit, b.step <= limit);
            if a_ok != b_ok {
                return a_ok;
            }
            if !a_ok {
                return a.step < b.step;
            }
            if a.peak != b.peak {
                return a.peak < b.peak;
            }
            a.spread < b.spread
        }
    }
}

/// The layers of every rank under the scenario's own split (its `layers_per_stage`, else the
/// default rule of [`layout`]), in the list form `parallel.layers_per_stage` takes for its
/// schedule (per stage in model order for DualPipe, per rank otherwise).
pub fn current_split(s: &Scenario) -> Vec<u64> {
    let p = &s.parallel;
    let (pp, vp) = (p.pp.max(1), p.vp.max(1));
    let sched = p.schedule();
    let custom = p.layers_per_stage.as_deref();
    (0..pp)
        .map(|r| {
            if sched.v_shape() {
                layout::rank_layers(s.model.layers, pp, vp, custom, sched, r)
            } else {
                layout::stage_layers(s.model.layers, pp, vp, custom, r)
            }
        })
        .collect()
}

/// Megatron-LM's first/last stage layer counts for `list`, when the middle stages are equal
/// and each holds at least one layer (`pp ≥ 3`; with `pp = 2` any split has the form).
pub fn megatron_first_last(list: &[u64]) -> Option<(u64, u64)> {
    let (&first, rest) = list.split_first()?;
    let (&last, middle) = rest.split_last()?;
    match middle.first() {
        None => Some((first, last)),
        Some(&m) if m > 0 && middle.iter().all(|&x| x == m) => Some((first, last)),
        Some(_) => None,
    }
}

/// The best split of `s`'s layers over its pipeline stages (module docs), or `None` without a
/// pipeline (`pp = 1`).
///
/// # Errors
/// The scenario's own validation errors.
///
/// # Example
/// ```
/// use paracalc::engine::split::best_split;
/// let mut s = paracalc::presets::model_preset("gpt3-175b").unwrap().scenario();
/// let p = best_split(&s)?.unwrap();
/// assert!(p.step_s <= p.base_step_s * (1.0 + 1e-9));
/// assert_eq!(p.layers_per_stage.iter().sum::<u64>(), 96);
/// Ok::<(), paracalc::scenario::ScenarioError>(())
/// ```
pub fn best_split(s: &Scenario) -> Result<Option<SplitProposal>, ScenarioError> {
    split_for(s, Goal::Fastest)
}

/// The split with the lowest peak memory (then the smallest spread) among those no slower than
/// the scenario's own ([`Goal::Lightest`]), or `None` without a pipeline.
///
/// # Errors
/// The scenario's own validation errors.
pub fn lightest_split(s: &Scenario) -> Result<Option<SplitProposal>, ScenarioError> {
    split_for(s, Goal::Lightest)
}

/// The proposals worth showing for `s`, fastest first: each of [`best_split`] and
/// [`lightest_split`] that beats the scenario's own split, the lightest only when it is not the
/// same split as the fastest. Empty without a pipeline, on an invalid scenario, or when the
/// scenario's own split is best for both goals.
pub fn proposals(s: &Scenario) -> Vec<SplitProposal> {
    let mut out: Vec<SplitProposal> = Vec::with_capacity(2);
    for p in [best_split(s), lightest_split(s)]
        .into_iter()
        .filter_map(|r| r.ok().flatten())
    {
        if p.is_better() && out.iter().all(|q| q.layers_per_stage != p.layers_per_stage) {
            out.push(p);
        }
    }
    out
}

/// The steepest descent of the module docs for `goal`.
fn split_for(s: &Scenario, goal: Goal) -> Result<Option<SplitProposal>, ScenarioError> {
    let pp = s.parallel.pp.max(1);
    if pp == 1 {
        s.validate()?;
        return Ok(None);
    }
    let min_layers = s.parallel.vp.max(1);
    let mut work = s.clone();
    let mut est = Estimate::default();
    estimate_into(&work, &mut est)?;
    let base = Score::of(&est);
    let base_list = current_split(s);
    let mut list = base_list.clone();
    let mut score = base;
    let mut estimates = 0usize;
    for _ in 0..MAX_ROUNDS {
        let mut best: Option<(usize, usize, Score)> = None;
        'moves: for from in 0..list.len() {
            if list[from] <= min_layers {
                continue;
            }
            for to in 0..list.len() {
                if to == from {
                    continue;
                }
                if estimates >= MAX_ESTIMATES {
                    break 'moves;
                }
                estimates += 1;
                list[from] -= 1;
                list[to] += 1;
                work.parallel.layers_per_stage = Some(list.clone());
                let ok = estimate_into(&work, &mut est).is_ok();
                list[from] += 1;
                list[to] -= 1;
                if !ok {
                    continue;
                }
                let cand = Score::of(&est);
                let target = best.map_or(score, |(_, _, b)| b);
                if better_for(goal, &base, &cand, &target) {
                    best = Some((from, to, cand));
                }
            }
        }
        match best {
            Some((from, to, cand)) => {
                list[from] -= 1;
                list[to] += 1;
                score = cand;
                if estimates >= MAX_ESTIMATES {
                    break;
                }
            }
            None => break,
        }
    }
    let sched = s.parallel.schedule();
    let megatron = if s.parallel.vp <= 1 && !sched.v_shape() && sched != Schedule::DualPipe {
        megatron_first_last(&list)
    } else {
        None
    };
    Ok(Some(SplitProposal {
        goal,
        layers_per_stage: list,
        megatron_first_last: megatron,
        step_s: score.step,
        peak_bytes: score.peak,
        spread_bytes: score.spread,
        fits: score.fits,
        base_layers_per_stage: base_list,
        base_step_s: base.step,
        base_peak_bytes: base.peak,
        base_spread_bytes: base.spread,
        base_fits: base.fits,
    }))
}

/// The list of Megatron-LM's first/last-stage form: `first` layers on stage 0, `last` on stage
/// `pp − 1`, the rest split evenly over the middle stages; `None` when it does not split evenly
/// or leaves a stage empty.
pub fn megatron_split(layers: u64, pp: u64, first: u64, last: u64) -> Option<Vec<u64>> {
    if pp < 2 || first == 0 || last == 0 || first.checked_add(last)? > layers {
        return None;
    }
    let rest = layers - first - last;
    let mid = pp - 2;
    if mid == 0 {
        return (rest == 0).then(|| vec![first, last]);
    }
    if rest % mid != 0 || rest / mid == 0 {
        return None;
    }
    let mut list = vec![rest / mid; pp as usize];
    list[0] = first;
    list[pp as usize - 1] = last;
    Some(list)
}

/// The best split of Megatron-LM's first/last-stage form ([`megatron_split`]) for `s`, when it
/// beats the scenario's own split by the module's order: every `(first, last)` whose middle
/// stages split evenly, a few dozen estimates. `None` for schedules Megatron-LM does not run
/// with such a split (more than one chunk per rank, V shapes, DualPipe) and without a pipeline.
/// The search refines its best layouts with it ([`super::search`]).
pub fn best_first_last(s: &Scenario, est: &mut Estimate) -> Option<(u64, u64, Score)> {
    let p = &s.parallel;
    let sched = p.schedule();
    if p.pp < 2 || p.vp > 1 || sched.v_shape() || sched == Schedule::DualPipe {
        return None;
    }
    estimate_into(s, est).ok()?;
    let base = Score::of(est);
    let mut work = s.clone();
    let layers = s.model.layers;
    let mut best: Option<(u64, u64, Score)> = None;
    for first in 1..layers {
        for last in 1..=(layers - first) {
            let Some(list) = megatron_split(layers, p.pp, first, last) else {
                continue;
            };
            work.parallel.layers_per_stage = Some(list);
            if estimate_into(&work, est).is_err() {
                continue;
            }
            let cand = Score::of(est);
            if better(&cand, &best.map_or(base, |b| b.2)) {
                best = Some((first, last, cand));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 16 stages of `middle` layers but for `first` on the first and `last` on the last.
    fn ends(middle: u64, first: u64, last: u64) -> Vec<u64> {
        let mut l = vec![middle; 16];
        l[0] = first;
        l[15] = last;
        l
    }

    #[test]
    fn megatron_split_lists() {
        assert_eq!(megatron_split(96, 16, 4, 8), Some(ends(6, 4, 8)));
        assert_eq!(megatron_split(126, 16, 7, 7), Some(ends(8, 7, 7)));
        assert_eq!(megatron_split(126, 16, 7, 8), None); // 111 over 14 stages
        assert_eq!(megatron_split(10, 2, 4, 6), Some(vec![4, 6]));
        assert_eq!(megatron_split(10, 2, 4, 5), None);
        assert_eq!(megatron_split(10, 4, 9, 1), None); // empty middle
    }

    #[test]
    fn megatron_form_needs_equal_middle_stages() {
        assert_eq!(megatron_first_last(&[7, 8, 8, 8, 7]), Some((7, 7)));
        assert_eq!(megatron_first_last(&[5, 9]), Some((5, 9)));
        assert_eq!(megatron_first_last(&[7, 8, 9, 8, 7]), None);
        assert_eq!(megatron_first_last(&[7]), None);
    }
}
