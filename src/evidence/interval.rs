//! The 80 % band for a run from a source paracalc has not seen: how far the measured step time,
//! throughput, MFU and peak memory of *your* run may sit from the prediction, built only from
//! errors that were not fitted on that run's source.
//!
//! # The model
//! A published run's signed error `e = 100·(predicted/measured − 1)` is the sum of its source's
//! offset (one cluster, one software stack, one way of measuring: what the sources share is not
//! the model's) and the run's own scatter inside its source:
//!
//! ```text
//! e = μ_source + r,     μ_source ~ (c, σ_b²) over sources,   r ~ (0, σ_w²) within one source
//! ```
//!
//! A new source draws a new offset, so the band for a plan is `c ± z₈₀·√(f_G·σ_b² + σ_w²)`
//! (`z₈₀` = [`Z80`], the 10th and 90th percentiles of a normal distribution), where, over the
//! published runs of the same kind as the plan (dense or MoE; the other kind too when fewer
//! than [`MIN_SOURCES`] sources of this kind exist):
//! - `c` is the mean of the per-source mean errors (each source counts once, whatever its size);
//! - `σ_b` is the sample standard deviation of those per-source means: how a new source's offset
//!   varies (the between-source spread);
//! - `f_G` = [`new_source_factor`]`(G)` widens the between-source part for the few sources it
//!   is estimated from: the prediction interval of one new source's offset from `G` source means
//!   is `c ± t_{G−1}·σ_b·√(1 + 1/G)` (Student's t, [`T90`]), not `c ± z·σ_b`;
//! - `σ_w` is the root-mean-square deviation of the runs *most like the plan* (the similarity
//!   sets of [`super::similarity::Basis`]) from their own source's mean: the within-source spread
//!   where the plan sits.
//!
//! Nothing here is fitted to the run asked about: `validate` checks exactly this by leaving each
//! source out ([`super::loso`]) and counting how often its runs fall inside the band built
//! without it.
//!
//! **Far from every published run.** When no published run shares the plan's GPU generation,
//! or its software stack, or when the plan uses more than [`FAR_FACTOR`] times the GPUs (or
//! parameters) of the largest published run of its kind, the offset of the plan's cluster is
//! not represented among the sources: each such reason ([`Widening`]) adds one more
//! independent offset as large as the between-source one, `√(σ_b²·(1 + k) + σ_w²)` for `k`
//! reasons, and the band says why.
//!
//! **Calibrated.** Calibrating on a run of one's own cluster measures that cluster's offset:
//! the between-source part goes, and what remains is the scatter of two runs of one source
//! (the calibration run's own and the planned run's): `0 ± z₈₀·√2·σ_w`. The GPU and stack
//! widenings go with it (the calibration was measured on them); a scale widening stays
//! (`+ k·σ_b²` under the root: a calibration at a published scale does not measure a larger one).
//! The step factors narrow the step, throughput and MFU bands; the memory offset the memory
//! band.
//!
//! **The memory band** (shown beside the peak; the verdict uses the in-sample band,
//! [`super::band::memory_verdict_frac`] says why): [`memory_band_fraction`]
//! `(cases: &[Case], s: &Scenario) -> Option<(f64, String)>` gives the fraction by which the
//! measured peak may lie from the predicted one (the farther end of this band, calibrated when
//! `s` carries a memory offset) and what it rests on in words;
//! [`memory_band_fraction_with`] takes the errors already computed. [`super::band::Band`]
//! carries the same band (`memory_frac(s)`), which the app's and the CLI's caveat use.
//!
//! Measured (README, "The error band"): leaving each source of `tests/data/public.json` out,
//! the step band covers 372 of 422 runs (88.2 %, median width 26.5 points; the previous
//! similar-runs band 68.7 % at 14.9 points) and the memory band 39 of 47 (83.0 %, 39.4 points;
//! 32 of 47 at 30.6 points without [`new_source_factor`]).
//!
//! One estimate per published run ([`Errors::of`]), then sums.
//!
//! Formulas, sources and what was checked: [interval.md](crate::docs::formulas::interval) §1.

use super::similarity::{Basis, MIN_RUNS};
use super::Case;
use crate::calibrate::MemoryKind;
use crate::engine::time::compute::Generation;
use crate::engine::Estimate;
use crate::scenario::Scenario;
use crate::text::num::Fixed;

/// The 90th percentile of the standard normal distribution: `c ± Z80·σ` holds 80 % of a normal
/// variable.
pub const Z80: f64 = 1.2816;

/// Student's t distribution's 90th percentiles for 1 to 30 degrees of freedom (any statistics
/// table, e.g. the NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2); beyond 30 the
/// normal [`Z80`] is within 2 %.
pub const T90: [f64; 30] = [
    3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372, 1.363, 1.356, 1.350,
    1.345, 1.341, 1.337, 1.333, 1.330, 1.328, 1.325, 1.323, 1.321, 1.319, 1.318, 1.316, 1.315,
    1.314, 1.313, 1.311, 1.310,
];

/// How much wider than `σ_b²` a new source's offset varies when `c` and `σ_b` are estimated from
/// `g` source means: the prediction interval of one new draw, `c ± t_{g−1}·σ_b·√(1 + 1/g)`,
/// as a factor on `σ_b²` under [`Z80`]: `(t_{g−1}/z₈₀)²·(1 + 1/g)` (1.43² for 4 sources,
/// 1.07² for 17).
pub fn new_source_factor(g: usize) -> f64 {
    if g < 2 {
        return 1.0;
    }
    let t = T90.get(g - 2).copied().unwrap_or(Z80);
    (t / Z80).powi(2) * (1.0 + 1.0 / g as f64)
}

/// Fewest sources of the plan's kind (dense or MoE) from which the between-source spread is
/// taken; below it the other kind's sources join.
pub const MIN_SOURCES: usize = 3;

/// How many times the largest published run's GPU count (or parameter count) a plan may use
/// before its band widens for scale.
pub const FAR_FACTOR: f64 = 2.0;

/// Every case's signed errors, percent (`100·(predicted/measured − 1)`), one estimate per case.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Errors {
    /// Step time, for cases with a measured step.
    pub step_pct: Vec<Option<f64>>,
    /// Peak memory (compared as the case measured it), for cases with a measured peak.
    pub memory_pct: Vec<Option<f64>>,
}

impl Errors {
    /// The errors of `cases` with the engine as built.
    pub fn of(cases: &[Case]) -> Errors {
        let mut est = Estimate::default();
        let mut out = Errors {
            step_pct: Vec::with_capacity(cases.len()),
            memory_pct: Vec::with_capacity(cases.len()),
        };
        for c in cases {
            let ok = crate::engine::estimate_into(&c.scenario, &mut est).is_ok();
            let step = (ok && c.step_s > 0.0 && est.time.step_s > 0.0)
                .then(|| 100.0 * (est.time.step_s / c.step_s - 1.0))
                .filter(|e| e.is_finite());
            let memory = c.memory_gib.filter(|g| ok && *g > 0.0).and_then(|gib| {
                let pred = memory_kind(c.memory_kind.as_deref()).peak_gib(&est).ok()?;
                let e = 100.0 * (pred / gib - 1.0);
                e.is_finite().then_some(e)
            });
            out.step_pct.push(step);
            out.memory_pct.push(memory);
        }
        out
    }

    fn get(&self, metric: Metric, i: usize) -> Option<f64> {
        match metric {
            Metric::Step => self.step_pct.get(i).copied().flatten(),
            Metric::Memory => self.memory_pct.get(i).copied().flatten(),
        }
    }
}

/// The memory a case's `memory_kind` names (as `validate` compares it).
pub(crate) fn memory_kind(kind: Option<&str>) -> MemoryKind {
    kind.and_then(|k| MemoryKind::from_name(k).ok())
        .unwrap_or_default()
}

/// Which number a band is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// The step time (and, inverted, throughput, TFLOP/s and MFU).
    Step,
    /// The peak memory per GPU.
    Memory,
}

/// Why a band is wider than the published sources' spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Widening {
    /// No published run on the plan's GPU generation.
    Gpu,
    /// No published run on the plan's software stack.
    Stack,
    /// More than [`FAR_FACTOR`] times the GPUs of the largest published run of its kind.
    Scale,
    /// More than [`FAR_FACTOR`] times the parameters of the largest published run of its kind.
    Size,
}

impl Widening {
    /// Words for the band text.
    pub fn words(self) -> &'static str {
        match self {
            Widening::Gpu => "no published run on this GPU generation",
            Widening::Stack => "no published run on this software stack",
            Widening::Scale => "more GPUs than any published run",
            Widening::Size => "a larger model than any published run",
        }
    }
}

/// An 80 % band of the signed error `100·(predicted/measured − 1)` for a new source.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    /// Lower end, percent (the prediction below the measurement).
    pub lo_pct: f64,
    /// Upper end, percent.
    pub hi_pct: f64,
    /// Its centre `c`: the mean of the sources' mean errors (0 when calibrated).
    pub center_pct: f64,
    /// The between-source spread `σ_b` (0 when calibrated).
    pub between_pct: f64,
    /// The within-source spread `σ_w` of the runs most like the plan.
    pub within_pct: f64,
    /// Sources (groups) behind `c` and `σ_b`.
    pub sources: usize,
    /// Runs behind `σ_w`, and how alike they are to the plan.
    pub runs: usize,
    /// How alike the runs behind `σ_w` are.
    pub basis: Basis,
    /// Whether the other kind's sources (dense for a MoE plan) were pooled in.
    pub pooled_kinds: bool,
    /// Why the band is wider (empty: it is not).
    pub widened: Vec<Widening>,
    /// Whether this is the band after calibration (between-source part removed).
    pub calibrated: bool,
}

/// The out-of-sample 80 % band of `metric` for plan `s`, from `cases` and their `errors`, leaving
/// out the runs of group `exclude` (leave-one-source-out validation; `None` in use). `None`
/// when fewer than two sources have an error for `metric`.
pub fn interval(
    cases: &[Case],
    errors: &Errors,
    metric: Metric,
    s: &Scenario,
    exclude: Option<&str>,
) -> Option<Interval> {
    let moe = s.model.moe.is_some();
    let usable = |i: usize, c: &Case| {
        errors.get(metric, i).is_some() && exclude.is_none_or(|x| group_of(c) != x)
    };
    let same_kind = |c: &Case| c.scenario.model.moe.is_some() == moe;
    let kind_sources = sources(cases, errors, metric, |i, c| usable(i, c) && same_kind(c));
    let pooled_kinds = kind_sources.len() < MIN_SOURCES;
    let in_pool = |i: usize, c: &Case| usable(i, c) && (pooled_kinds || same_kind(c));
    let means = if pooled_kinds {
        sources(cases, errors, metric, in_pool)
    } else {
        kind_sources
    };
    let g = means.len();
    if g < 2 {
        return None;
    }
    let center = means.iter().map(|m| m.1).sum::<f64>() / g as f64;
    let between =
        (means.iter().map(|m| (m.1 - center).powi(2)).sum::<f64>() / (g - 1) as f64).sqrt();
    // Within-source spread of the runs most like the plan, around their own source's mean.
    let mean_of = |c: &Case| {
        let k = group_of(c);
        means.iter().find(|m| m.0 == k).map_or(0.0, |m| m.1)
    };
    let (mut basis, mut within, mut runs) = (Basis::All, 0.0, 0usize);
    for b in Basis::MOST_ALIKE_FIRST {
        let (mut sum, mut n) = (0.0, 0usize);
        for (i, c) in cases.iter().enumerate() {
            if in_pool(i, c) && b.admits(s, &c.scenario) {
                let e = errors.get(metric, i).unwrap_or(0.0);
                sum += (e - mean_of(c)).powi(2);
                n += 1;
            }
        }
        if n >= MIN_RUNS || (b == Basis::All && n > 0) {
            (basis, within, runs) = (b, (sum / n as f64).sqrt(), n);
            break;
        }
    }
    let widened = widenings(cases, s, |c| exclude.is_none_or(|x| group_of(c) != x));
    let k = widened.len() as f64;
    let half =
        Z80 * (between * between * new_source_factor(g) * (1.0 + k) + within * within).sqrt();
    Some(Interval {
        lo_pct: (center - half).max(-90.0),
        hi_pct: center + half,
        center_pct: center,
        between_pct: between,
        within_pct: within,
        sources: g,
        runs,
        basis,
        pooled_kinds,
        widened,
        calibrated: false,
    })
}

/// Group of a case (its id when it has none: a run of its own).
pub(crate) fn group_of(c: &Case) -> &str {
    if c.group.is_empty() {
        &c.id
    } else {
        &c.group
    }
}

/// `(group, mean error)` of every group with a run admitted by `keep`, in first-seen order.
fn sources<'a>(
    cases: &'a [Case],
    errors: &Errors,
    metric: Metric,
    keep: impl Fn(usize, &Case) -> bool,
) -> Vec<(&'a str, f64)> {
    let mut acc: Vec<(&str, f64, usize)> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let Some(e) = errors.get(metric, i).filter(|_| keep(i, c)) else {
            continue;
        };
        let k = group_of(c);
        match acc.iter_mut().find(|a| a.0 == k) {
            Some(a) => {
                a.1 += e;
                a.2 += 1;
            }
            None => acc.push((k, e, 1)),
        }
    }
    acc.into_iter().map(|(k, s, n)| (k, s / n as f64)).collect()
}

/// Why plan `s` is far from every published run admitted by `keep`.
fn widenings(cases: &[Case], s: &Scenario, keep: impl Fn(&Case) -> bool) -> Vec<Widening> {
    let gen = |x: &Scenario| x.gpu().map(|g| Generation::of(&g));
    let moe = s.model.moe.is_some();
    let (mut same_gen, mut same_stack, mut gpus, mut size) = (false, false, 0u64, 0.0f64);
    for c in cases.iter().filter(|c| keep(c)) {
        let r = &c.scenario;
        same_gen |= gen(r) == gen(s);
        same_stack |= r.training.framework() == s.training.framework();
        if r.model.moe.is_some() == moe {
            gpus = gpus.max(r.cluster.num_gpus);
            size = size.max(super::size(r));
        }
    }
    let mut out = Vec::new();
    if !same_gen {
        out.push(Widening::Gpu);
    }
    if !same_stack {
        out.push(Widening::Stack);
    }
    if gpus > 0 && s.cluster.num_gpus as f64 > FAR_FACTOR * gpus as f64 {
        out.push(Widening::Scale);
    }
    if size > 0.0 && super::size(s) > FAR_FACTOR * size {
        out.push(Widening::Size);
    }
    out
}

impl Interval {
    /// The band after a calibration on the user's own cluster: centred, the source's offset
    /// gone, two runs' scatter left, `0 ± z₈₀·√(2σ_w² + k·σ_b²)` where `k` counts the scale
    /// widenings (a calibration at a published scale does not measure a larger one; the GPU and
    /// stack widenings go: the calibration measured them).
    pub fn calibrated(&self) -> Interval {
        let widened: Vec<Widening> = self
            .widened
            .iter()
            .copied()
            .filter(|w| matches!(w, Widening::Scale | Widening::Size))
            .collect();
        let k = widened.len() as f64;
        let between_sq = self.between_pct * self.between_pct * new_source_factor(self.sources);
        let half = Z80 * (2.0 * self.within_pct * self.within_pct + k * between_sq).sqrt();
        Interval {
            lo_pct: (-half).max(-90.0),
            hi_pct: half,
            center_pct: 0.0,
            widened,
            calibrated: true,
            ..self.clone()
        }
    }

    /// Whether the signed error `e_pct` lies in the band.
    pub fn contains(&self, e_pct: f64) -> bool {
        (self.lo_pct..=self.hi_pct).contains(&e_pct)
    }

    /// Width in percentage points.
    pub fn width(&self) -> f64 {
        self.hi_pct - self.lo_pct
    }

    /// The measured value as multiples of the predicted one for a quantity that grows with the
    /// step time or the memory (`measured = predicted/(1 + e)`): `(low, high)`.
    pub fn measured_over_predicted(&self) -> (f64, f64) {
        (
            1.0 / (1.0 + self.hi_pct / 100.0),
            1.0 / (1.0 + self.lo_pct / 100.0),
        )
    }

    /// The same for a rate (throughput, TFLOP/s, MFU: `∝ 1/step`): `(1 + lo, 1 + hi)`.
    pub fn rate_measured_over_predicted(&self) -> (f64, f64) {
        (1.0 + self.lo_pct / 100.0, 1.0 + self.hi_pct / 100.0)
    }

    /// The largest relative distance of the measured value from the prediction at either end of
    /// the band, a fraction (0.12: the measured value may lie 12 % from the prediction).
    pub fn fraction(&self) -> f64 {
        let (a, b) = self.measured_over_predicted();
        (1.0 - a).abs().max((b - 1.0).abs())
    }

    /// "0.92–1.28×": the range as multiples of the predicted value.
    fn multiples(range: (f64, f64)) -> String {
        format!("{}–{}×", Fixed(range.0, 2), Fixed(range.1, 2))
    }

    /// What the band rests on, in words: "a new cluster: the offsets of 18 sources and the
    /// scatter of 31 similar published runs; calibrating on your own run removes the offset",
    /// with the widenings.
    pub fn basis_text(&self) -> String {
        let mut t = if self.calibrated {
            format!(
                "after calibration: the scatter inside one source, of {} {}",
                self.runs,
                self.basis.words()
            )
        } else {
            format!(
                "a new cluster: the offsets of {} sources{} and the scatter of {} {}; \
                 calibrating on your own run removes the offset",
                self.sources,
                if self.pooled_kinds {
                    " (dense and MoE)"
                } else {
                    ""
                },
                self.runs,
                self.basis.words()
            )
        };
        t.push_str(&self.widened_text());
        t
    }

    /// "; wider: no published run on this GPU generation", or empty.
    fn widened_text(&self) -> String {
        if self.widened.is_empty() {
            return String::new();
        }
        let words: Vec<&str> = self.widened.iter().map(|w| w.words()).collect();
        format!("; wider: {}", words.join(", "))
    }

    /// The short form for a tile: "80 % band 0.92–1.28× for a new cluster (18 sources, 31
    /// runs)", "… after calibration (31 runs)", with the widenings.
    fn short(&self, range: (f64, f64)) -> String {
        let whose = if self.calibrated {
            format!("after calibration ({} runs)", self.runs)
        } else {
            format!(
                "for a new cluster ({} sources, {} runs)",
                self.sources, self.runs
            )
        };
        format!(
            "80 % band {} {whose}{}",
            Self::multiples(range),
            self.widened_text()
        )
    }

    /// The band of the step time or the peak memory as measured over predicted, short.
    pub fn text(&self) -> String {
        self.short(self.measured_over_predicted())
    }

    /// The band of throughput, TFLOP/s and MFU (the step's, inverted), short.
    pub fn rate_text(&self) -> String {
        self.short(self.rate_measured_over_predicted())
    }
}

/// Whether `s` carries step-time factors (compute, attention or network) from a calibration
/// measured on its GEMM units: a calibration from a run on the other units
/// ([`crate::scenario::Calibration::carries_to`]) did not measure this plan's kernels, so it
/// does not remove the between-source part of the band.
pub fn step_calibrated(s: &Scenario) -> bool {
    let c = &s.calibration;
    (c.compute.is_some() || c.attention.is_some() || c.network.is_some())
        && c.carries_to(s.training.precision)
}

/// The band of `metric` as shown for `s`: [`Interval::calibrated`] when `s` carries that
/// metric's calibration (step factors for the step, the memory offset for memory).
pub fn for_plan(b: &Interval, metric: Metric, s: &Scenario) -> Interval {
    let calibrated = match metric {
        Metric::Step => step_calibrated(s),
        Metric::Memory => s.calibration.memory_gib.is_some(),
    };
    if calibrated {
        b.calibrated()
    } else {
        b.clone()
    }
}

/// The fraction by which a plan's measured peak memory may lie from the predicted one, with
/// what that rests on in words, for the memory verdict ("it may not fit"): the out-of-sample
/// 80 % memory band for a new cluster ([`interval`] of [`Metric::Memory`], [`Interval::fraction`]:
/// its farther end), or after a memory calibration its within-source part. `None` when no
/// published run reports memory. One estimate per published run; [`memory_band_fraction_with`]
/// reuses errors already computed.
pub fn memory_band_fraction(cases: &[Case], s: &Scenario) -> Option<(f64, String)> {
    memory_band_fraction_with(cases, &Errors::of(cases), s)
}

/// [`memory_band_fraction`] with the published runs' errors already computed.
pub fn memory_band_fraction_with(
    cases: &[Case],
    errors: &Errors,
    s: &Scenario,
) -> Option<(f64, String)> {
    let b = for_plan(
        &interval(cases, errors, Metric::Memory, s, None)?,
        Metric::Memory,
        s,
    );
    Some((b.fraction(), b.basis_text()))
}
