//! Fitting a scenario's [`Calibration`] to one measured run of the user's own cluster.
//!
//! # What is fitted, from what
//! One measured step time `M` and the plan that produced it. The model predicts `T(c, a, n)`,
//! the step with the compute efficiency factor `c` (GEMMs, HBM-bound kernels), the attention
//! efficiency factor `a` (the fused-attention kernels) and the network efficiency factor `n`
//! ([`crate::scenario::Calibration`]: meaning and bounds). One number cannot determine three
//! unknowns, so the fit makes the fewest assumptions that pick one answer:
//!
//! 1. **Each part answers for its own share of the step.** The sensitivities
//!    `s_c = −∂ln T/∂ln c`, `s_a = −∂ln T/∂ln a` and `s_n = −∂ln T/∂ln n` are the fractions of
//!    the step that scale with the GEMM and HBM rates (compute, recompute, the bubble that
//!    compute makes, the optimizer), with the fused-attention rates, and with the link
//!    bandwidths (exposed communication). They are measured on the plan itself by finite
//!    differences, so every mechanism of the engine counts as it should (a bubble grows with
//!    compute, an overlapped collective counts only where it is exposed).
//! 2. **The smallest change, weighed by how much each rate varies between clusters.** Among all
//!    `(c, a, n)` that reproduce `M`, take the one that minimises
//!    `(ln c/σ_c)² + (ln a/σ_a)² + (ln n/σ_n)²`. To first order the solution moves each
//!    `ln f` in proportion to `s_f·σ_f²`: `ln c = −λ·s_c·σ_c²`, `ln a = −λ·s_a·σ_a²`,
//!    `ln n = −λ·s_n·σ_n²`, with the one number `λ` solved exactly (bisection on the full
//!    model, not the linearisation) so that `T = M`.
//!    [`SIGMA_COMPUTE`] = 0.1: the same GPU sustains GEMM rates within about ±10 % across
//!    clusters (clocks under a power cap, library versions; H100 SXM cuBLAS bf16 650-750 TFLOP/s,
//!    `engine::time::compute`). [`SIGMA_ATTENTION`] = 0.3: the same GPU and shape run fused
//!    attention at very different rates by backend and library version — H100 SXM5, forward,
//!    causal, head dim 128, 16k tokens: FlashAttention-2 335, cuDNN 539, FlashAttention-3
//!    616 TFLOP/s (Shah et al. 2024, arXiv 2407.08608); Blackwell SDPA in NVIDIA's
//!    cudnn-frontend benchmark tables (causal, d 128): cuDNN 9.13.1 on a B200 (@0b1577c) against
//!    9.17.0 on a GB200 (@b372d39), forward 856 → 1386 TFLOP/s at 4k tokens (1.6×), 1171 → 1584
//!    at 8k (1.35×), 1332 → 1668 at 16k (1.25×; `engine::time::blackwell_cudnn`) — about three
//!    times GEMM's spread. [`SIGMA_NETWORK`] = 0.3: NCCL bus bandwidth on fabrics
//!    of one nominal rate spreads about as widely (rails, adaptive routing, SHARP, NCCL version
//!    and topology detection).
//! 3. **Bounds are hard.** A factor that reaches its bound stays there and the others take the
//!    rest; if all are at their bounds and `M` is still not reached, the measurement is refused
//!    with a message naming the input (`--step-s`): faster than the hardware allows, or so slow
//!    that the measured run cannot be the plan that was entered.
//!
//! **When the factors cannot be separated.** A plan with (almost) no exposed communication has
//! `s_n ≈ 0`: the network factor then stays at 1 and the report says so ("not separable from
//! this run"); the whole difference lands on the kernels. A plan without fused attention
//! (flash attention off: the attention core is batched GEMMs and an HBM-bound softmax, which
//! are compute's) has `s_a = 0`: the attention factor is left unset, so attention follows the
//! compute factor ([`crate::scenario::Calibration::attention`]) — in the fit and wherever the
//! calibration is carried — and the report says so. A plan whose step is mostly communication
//! moves mostly `n`. Either way the split is an assumption, not a measurement; runs with
//! different attention and communication shares would separate them, which is what
//! `validate --calibrate` tests across published runs.
//!
//! The memory offset is simpler: the measured peak minus the predicted peak (of the same kind),
//! added to every stage; refused above the GPU's memory or outside the offset's bounds.
//!
//! The fit records the run's training precision beside the factors: the compute factor
//! describes the GEMM units that ran (tensor cores, or the CUDA cores in fp32) and acts only on
//! plans that run their GEMMs on the same units ([`crate::scenario::Calibration::carries_to`]).
//!
//! A fit replaces any calibration the scenario already had.
//!
//! Children: [`logline`] reads a measurement from one pasted training-log line; [`transfer`]
//! says how well a calibration carries over to another plan.

pub mod logline;
pub mod transfer;

use crate::engine::{estimate, Estimate};
use crate::scenario::{Calibration, Scenario, ScenarioError};
use crate::text::num::{Fixed, Plain};
use std::fmt;

/// Assumed spread of sustained kernel rates between clusters with the same GPU (see module docs).
pub const SIGMA_COMPUTE: f64 = 0.1;
/// Assumed spread of fused-attention kernel rates between clusters with the same GPU (backends
/// and library versions; see module docs).
pub const SIGMA_ATTENTION: f64 = 0.3;
/// Assumed spread of achieved link bandwidth between clusters of one nominal fabric.
pub const SIGMA_NETWORK: f64 = 0.3;
/// Below this share of the step, exposed communication does not separate the network factor
/// from the compute factor (it is left at 1 and the report says so), nor fused attention the
/// attention factor (it is left unset: attention follows compute).
pub const MIN_SEPARABLE_SHARE: f64 = 0.02;
/// Relative step-time tolerance of the fit (the round trip reproduces `M` to well within 0.5 %).
pub const TOLERANCE: f64 = 1e-6;

use crate::engine::memory::overhead::GIB;

/// Which memory a measurement reports (as the validation cases' `memory_kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryKind {
    /// The whole device, as nvidia-smi shows it (CUDA context and NCCL buffers included).
    #[default]
    DeviceUsed,
    /// PyTorch's `max_memory_reserved` (no CUDA context, no NCCL buffers).
    AllocatorReserved,
    /// PyTorch's `max_memory_allocated` (also without the allocator's reserve).
    AllocatorPeak,
}

impl MemoryKind {
    /// The kind a validation case's `memory_kind` names: `device_used`, `allocator_reserved`
    /// or `allocator_peak`.
    ///
    /// # Errors
    /// Any other name, in a sentence.
    pub fn from_name(name: &str) -> Result<MemoryKind, String> {
        match name {
            "device_used" => Ok(MemoryKind::DeviceUsed),
            "allocator_reserved" => Ok(MemoryKind::AllocatorReserved),
            "allocator_peak" => Ok(MemoryKind::AllocatorPeak),
            other => Err(format!("unknown memory_kind \"{other}\".")),
        }
    }

    /// The peak over stages of this kind, GiB: what `validate` compares a case's measured
    /// memory with.
    ///
    /// # Errors
    /// An estimate without stages.
    pub fn peak_gib(self, e: &Estimate) -> Result<f64, String> {
        if e.memory.rows.is_empty() {
            return Err("the memory model gave no stages.".to_string());
        }
        Ok(self.peak_bytes(e) / GIB)
    }

    /// The peak over stages of this kind, bytes.
    pub fn peak_bytes(self, e: &Estimate) -> f64 {
        e.memory
            .rows
            .iter()
            .map(|s| match self {
                MemoryKind::DeviceUsed => s.total_bytes,
                MemoryKind::AllocatorReserved => s.allocator_reserved_bytes(),
                MemoryKind::AllocatorPeak => {
                    s.allocator_reserved_bytes() - s.allocator_reserve_bytes
                }
            })
            .fold(0.0, f64::max)
    }
}

/// One measured run of the scenario's plan.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measurement {
    /// Seconds per optimizer step (iteration).
    pub step_s: f64,
    /// Peak memory per GPU, GiB, if measured.
    pub memory_gib: Option<f64>,
    /// What the memory figure counts.
    pub memory_kind: MemoryKind,
}

impl Measurement {
    /// A measured step time alone (no memory).
    pub fn step(step_s: f64) -> Measurement {
        Measurement {
            step_s,
            ..Measurement::default()
        }
    }
}

/// Why a measurement cannot be fitted.
#[derive(Clone, Debug, PartialEq)]
pub enum FitError {
    /// The scenario itself is invalid.
    Scenario(ScenarioError),
    /// A measured value is implausible; `input` names it (`step_s`, `memory_gib`).
    Implausible {
        /// The measured input at fault.
        input: &'static str,
        /// A full sentence saying why.
        message: String,
    },
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::Scenario(e) => write!(f, "{e}"),
            FitError::Implausible { input, message } => write!(f, "{input}: {message}"),
        }
    }
}

/// The result of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The fitted section (replaces the scenario's).
    pub calibration: Calibration,
    /// Share of the uncalibrated step that scales with the compute factor (`s_c`): the GEMM and
    /// HBM rates, and the fused-attention rates too when attention is not separable.
    pub compute_share: f64,
    /// Share of the uncalibrated step that scales with the fused-attention rates (`s_a`).
    pub attention_share: f64,
    /// Whether the run separates the attention factor (`attention_share ≥`
    /// [`MIN_SEPARABLE_SHARE`]); if not, `attention` is left unset and follows `compute`.
    pub attention_separable: bool,
    /// Share of the uncalibrated step that scales with the link bandwidths (`s_n`).
    pub network_share: f64,
    /// Whether the run separates the network factor from the compute factor
    /// (`network_share ≥` [`MIN_SEPARABLE_SHARE`]); if not, `network` is left at 1.
    pub network_separable: bool,
    /// Step time before calibration, s.
    pub step_before_s: f64,
    /// Step time with the fitted calibration, s.
    pub step_after_s: f64,
    /// Peak memory (of the measured kind) before calibration, GiB, when memory was measured.
    pub memory_before_gib: Option<f64>,
}

impl Fit {
    /// What was fitted, in words (for the CLI report and the app).
    pub fn explain(&self) -> String {
        let kernels = if self.attention_separable {
            format!(
                "{} % of it scales with the GPU kernels other than attention, {} % with \
                 fused attention",
                Fixed(100.0 * self.compute_share, 0),
                Fixed(100.0 * self.attention_share, 0)
            )
        } else {
            format!(
                "{} % of it scales with the GPU kernels",
                Fixed(100.0 * self.compute_share, 0)
            )
        };
        let mut o = format!(
            "{}. The uncalibrated step was {} s; {kernels}, {} % with the links.",
            crate::text::capitalized(&self.calibration.describe()),
            Fixed(self.step_before_s, 4),
            Fixed(100.0 * self.network_share, 0)
        );
        if !self.attention_separable {
            o.push_str(
                " This plan runs too little fused attention to tell its rate apart: the \
                 attention factor is left unset and follows the compute factor.",
            );
        }
        if !self.network_separable {
            o.push_str(
                " Exposed communication is too small a part of this step to tell the network \
                 apart from compute: the network factor stays at 1 and the whole difference is \
                 put on the GPU kernels.",
            );
        }
        o
    }
}

/// The factors one evaluation of the fit uses: compute, attention (`None`: follows compute),
/// network.
type Factors = (f64, Option<f64>, f64);

/// The uncalibrated plan re-estimated under trial factors: one scenario and one estimate,
/// reused by every evaluation of the fit.
struct Trial {
    work: Scenario,
    out: Estimate,
}

impl Trial {
    /// The step time under factors `f`, s.
    fn step_s(&mut self, f: Factors) -> Result<f64, FitError> {
        self.work.calibration = Calibration {
            compute: Some(f.0),
            attention: f.1,
            network: Some(f.2),
            memory_gib: None,
            precision: None,
        };
        crate::engine::estimate_into(&self.work, &mut self.out).map_err(FitError::Scenario)?;
        Ok(self.out.time.step_s)
    }
}

/// How much of the uncalibrated step (`t0`) each factor moves, by finite differences (1 %
/// slower rates): `s_x = ln(t(x·0.99)/t0) / −ln 0.99`, and whether the run separates the
/// attention and network factors ([`MIN_SEPARABLE_SHARE`]).
struct Shares {
    compute: f64,
    attention: f64,
    attention_separable: bool,
    network: f64,
    network_separable: bool,
}

impl Shares {
    fn measure(trial: &mut Trial, t0: f64) -> Result<Shares, FitError> {
        // Attention first: when the plan runs (almost) no fused attention, compute's share is
        // measured with attention following it.
        let eps: f64 = 0.01;
        let lr = -(1.0 - eps).ln();
        let s_a = ((trial.step_s((1.0, Some(1.0 - eps), 1.0))? / t0).ln() / lr).max(0.0);
        let attention_separable = s_a >= MIN_SEPARABLE_SHARE;
        let a1 = attention_separable.then_some(1.0);
        let s_c = ((trial.step_s((1.0 - eps, a1, 1.0))? / t0).ln() / lr).max(0.0);
        let s_n = ((trial.step_s((1.0, a1, 1.0 - eps))? / t0).ln() / lr).max(0.0);
        Ok(Shares {
            compute: s_c,
            attention: s_a,
            attention_separable,
            network: s_n,
            network_separable: s_n >= MIN_SEPARABLE_SHARE,
        })
    }
}

/// The one-parameter path the fit searches along: each factor is `exp(−λ·w)` within its
/// bounds, with weight `w = share·σ²` (0 for a factor the run does not separate).
struct Path {
    wc: f64,
    wa: f64,
    wn: f64,
    attention: bool,
}

impl Path {
    fn of(sh: &Shares) -> Path {
        let weight = |on: bool, s: f64, sigma: f64| if on { s * sigma * sigma } else { 0.0 };
        Path {
            wc: weight(true, sh.compute, SIGMA_COMPUTE),
            wa: weight(sh.attention_separable, sh.attention, SIGMA_ATTENTION),
            wn: weight(sh.network_separable, sh.network, SIGMA_NETWORK),
            attention: sh.attention_separable,
        }
    }

    /// The factors at `lambda`.
    fn at(&self, lambda: f64) -> Factors {
        (
            (-lambda * self.wc)
                .exp()
                .clamp(Calibration::COMPUTE_MIN, Calibration::COMPUTE_MAX),
            self.attention.then(|| {
                (-lambda * self.wa)
                    .exp()
                    .clamp(Calibration::ATTENTION_MIN, Calibration::ATTENTION_MAX)
            }),
            (-lambda * self.wn)
                .exp()
                .clamp(Calibration::NETWORK_MIN, Calibration::NETWORK_MAX),
        )
    }

    /// The λ at which every factor sits at its bounds (at `−λ` at the other ones).
    fn l_max(&self) -> f64 {
        let span = |w: f64, lo: f64, hi: f64| {
            if w > 0.0 {
                (-lo.ln()).max(hi.ln()) / w
            } else {
                0.0
            }
        };
        span(self.wc, Calibration::COMPUTE_MIN, Calibration::COMPUTE_MAX)
            .max(span(
                self.wa,
                Calibration::ATTENTION_MIN,
                Calibration::ATTENTION_MAX,
            ))
            .max(span(
                self.wn,
                Calibration::NETWORK_MIN,
                Calibration::NETWORK_MAX,
            ))
    }

    /// Whether no factor moves along the path (every weight 0).
    fn is_fixed(&self) -> bool {
        self.wc + self.wa + self.wn <= 0.0
    }
}

/// The measured step `m_s` against the `fastest` and `slowest` steps the path reaches (`t0`:
/// the uncalibrated prediction; `fixed`: no factor moves): a step outside them is another plan
/// or another unit.
fn check_reachable(
    m_s: f64,
    fastest: f64,
    slowest: f64,
    t0: f64,
    fixed: bool,
) -> Result<(), FitError> {
    if m_s < fastest * (1.0 - TOLERANCE) {
        return Err(FitError::Implausible {
            input: "step_s",
            message: format!(
                "the measured step time {} s is faster than this hardware allows: with the GPU \
                 kernels at the data-sheet peak (and the links at their line rate where they \
                 matter), this plan takes at least {} s (the model predicts {} s). Check that it is seconds \
                 per optimizer step (not per micro-batch) and that the plan (global batch, \
                 sequence length, GPU count, precision) is the one that was measured.",
                Fixed(m_s, 4),
                Fixed(fastest, 4),
                Fixed(t0, 4)
            ),
        });
    }
    if fixed || m_s > slowest * (1.0 + TOLERANCE) {
        return Err(FitError::Implausible {
            input: "step_s",
            message: format!(
                "the measured step time {} s is more than this plan can take on this \
                 hardware even at a quarter of the modelled kernel rates (and a tenth of the \
                 link bandwidth where it matters) ({} s; the model predicts {} s). The measured run is \
                 probably another plan: check the global batch, micro-batch, recomputation, \
                 precision and GPU count.",
                Fixed(m_s, 4),
                Fixed(slowest, 4),
                Fixed(t0, 4)
            ),
        });
    }
    Ok(())
}

/// The λ in `[−l_max, l_max]` at which the step is the measured `m_s` (bisection, to
/// [`TOLERANCE`]).
fn solve(trial: &mut Trial, path: &Path, l_max: f64, m_s: f64) -> Result<f64, FitError> {
    let (mut lo, mut hi) = (-l_max, l_max);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        let tm = trial.step_s(path.at(mid))?;
        if (tm / m_s - 1.0).abs() <= TOLERANCE {
            lo = mid;
            hi = mid;
            break;
        }
        if tm < m_s {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// Fits the calibration of `s` to `m` (method: module docs).
///
/// # Errors
/// An invalid scenario, or an implausible measurement naming its input.
pub fn fit(s: &Scenario, m: &Measurement) -> Result<Fit, FitError> {
    if !m.step_s.is_finite() || m.step_s <= 0.0 {
        return Err(FitError::Implausible {
            input: "step_s",
            message: format!(
                "the measured step time must be a positive number of seconds, got {}.",
                Plain(m.step_s)
            ),
        });
    }
    let base = s.uncalibrated();
    let e0 = estimate(&base).map_err(FitError::Scenario)?;
    let t0 = e0.time.step_s;
    let mut trial = Trial {
        work: base,
        out: Estimate::default(),
    };
    let shares = Shares::measure(&mut trial, t0)?;
    let path = Path::of(&shares);
    let l_max = path.l_max();
    let fastest = trial.step_s(path.at(-l_max))?;
    let slowest = trial.step_s(path.at(l_max))?;
    check_reachable(m.step_s, fastest, slowest, t0, path.is_fixed())?;
    let (c, a, n) = path.at(solve(&mut trial, &path, l_max, m.step_s)?);
    let (c, a, n) = (round6(c), a.map(round6), round6(n));
    let after = trial.step_s((c, a, n))?;
    let mut k = Calibration {
        compute: Some(c),
        attention: a,
        network: shares.network_separable.then_some(n),
        memory_gib: None,
        precision: Some(s.training.precision),
    };
    let mut memory_before_gib = None;
    if let Some(gib) = m.memory_gib {
        memory_before_gib = Some(m.memory_kind.peak_bytes(&e0) / GIB);
        k.memory_gib = Some(offset_of(&e0, gib, m.memory_kind)?);
    }
    Ok(Fit {
        calibration: k,
        compute_share: shares.compute,
        attention_share: shares.attention,
        attention_separable: shares.attention_separable,
        network_share: shares.network,
        network_separable: shares.network_separable,
        step_before_s: t0,
        step_after_s: after,
        memory_before_gib,
    })
}

/// Six significant decimals keep the JSON and the link short; the round trip stays within 1e-6.
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The memory offset (GiB) that makes the peak memory of `s` (of `kind`) equal the measured
/// `gib`, measured against the scenario without calibration; the step-time factors are left
/// alone (the app calibrates memory on its own when only memory was measured).
///
/// # Errors
/// An invalid scenario, or a measured memory above the GPU or outside the offset's bounds.
pub fn memory_offset(s: &Scenario, gib: f64, kind: MemoryKind) -> Result<f64, FitError> {
    let base = s.uncalibrated();
    let e0 = estimate(&base).map_err(FitError::Scenario)?;
    offset_of(&e0, gib, kind)
}

fn offset_of(e0: &Estimate, gib: f64, kind: MemoryKind) -> Result<f64, FitError> {
    let before = kind.peak_bytes(e0) / GIB;
    Ok(round6(offset_within(e0, gib, before)?))
}

fn offset_within(e0: &Estimate, gib: f64, before: f64) -> Result<f64, FitError> {
    let cap = e0.memory.capacity_bytes / GIB;
    if !gib.is_finite() || gib <= 0.0 {
        return Err(FitError::Implausible {
            input: "memory_gib",
            message: format!(
                "the measured memory must be a positive number of GiB, got {}.",
                Plain(gib)
            ),
        });
    }
    if gib > cap * (1.0 + 1e-9) {
        return Err(FitError::Implausible {
            input: "memory_gib",
            message: format!(
                "the measured memory {} GiB is more than the GPU has ({} GiB usable). \
                 Check the unit (GiB per GPU, not per node, not MB) and the GPU.",
                Fixed(gib, 2),
                Fixed(cap, 2)
            ),
        });
    }
    let off = gib - before;
    if !(Calibration::MEMORY_MIN_GIB..=Calibration::MEMORY_MAX_GIB).contains(&off) {
        return Err(FitError::Implausible {
            input: "memory_gib",
            message: format!(
                "the measured memory {} GiB differs from the predicted {} GiB by \
                 {:+} GiB, more than framework overheads explain ({} to {} GiB). The \
                 measured run is probably another plan: check the ZeRO stage, recomputation, \
                 micro-batch and sequence length.",
                Fixed(gib, 2),
                Fixed(before, 2),
                Fixed(off, 2),
                Plain(Calibration::MEMORY_MIN_GIB),
                Plain(Calibration::MEMORY_MAX_GIB)
            ),
        });
    }
    Ok(off)
}
