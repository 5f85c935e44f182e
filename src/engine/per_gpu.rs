//! What one GPU processes per micro-batch and per step, read by both halves of an estimate (the
//! memory model's activations and the time model's inputs): the tokens of one micro-batch on one
//! GPU, the micro-batches per step (and per pipeline round) and the bytes of one activation
//! element.

use crate::scenario::{Precision, Scenario};

/// What one GPU processes per micro-batch and per step: resolved once per estimate (the plan's
/// [`crate::engine::plan::Plan::per_gpu`]) and read by the memory and time models.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerGpu {
    /// Tokens of one micro-batch on one GPU, `b·s/c` ([`tokens_per_gpu`]).
    pub tokens: f64,
    /// Bytes of one stored activation element ([`element_bytes`]).
    pub element_bytes: f64,
    /// Micro-batches per pipeline per step ([`micro_batches`]).
    pub micro_batches: u64,
    /// Pipeline rounds per step (`parallel.pp_rounds`, at least 1 and at most
    /// [`PerGpu::micro_batches`]): each runs the schedule over [`PerGpu::round_micro_batches`].
    pub rounds: u64,
    /// Tensor-parallel degree `t` as a divisor (at least 1).
    pub tp: f64,
    /// What sequence parallelism divides the activations outside the TP regions by (norm and
    /// dropout inputs, residuals; Korthikanti et al. 2022 §4.2.2): `t` with SP, else 1.
    pub sp_div: f64,
}

impl PerGpu {
    /// The per-GPU facts of `s`.
    #[inline]
    pub fn of(s: &Scenario) -> PerGpu {
        let m = micro_batches(s);
        PerGpu {
            tokens: tokens_per_gpu(s),
            element_bytes: element_bytes(s),
            micro_batches: m,
            rounds: s.parallel.pp_rounds().clamp(1, m),
            tp: s.parallel.tp.max(1) as f64,
            sp_div: if s.parallel.sp {
                s.parallel.tp.max(1) as f64
            } else {
                1.0
            },
        }
    }

    /// Micro-batches of one pipeline round, `m / rounds`: what one run of the schedule fills
    /// and drains (the bubble, the in-flight micro-batches).
    #[inline]
    pub fn round_micro_batches(&self) -> u64 {
        (self.micro_batches / self.rounds.max(1)).max(1)
    }
}

/// Bytes of one stored activation element: 4 for fp32 training, 2 otherwise (16-bit activations;
/// FP8 training keeps bf16 activations outside the GEMMs).
fn element_bytes(s: &Scenario) -> f64 {
    element_bytes_of(s.training.precision)
}

/// [`element_bytes`] for a precision: 4 for fp32, else 2 (the time half's message and traffic
/// sizes use the same value).
pub fn element_bytes_of(precision: Precision) -> f64 {
    if precision == Precision::Fp32 {
        4.0
    } else {
        2.0
    }
}

/// Tokens of one micro-batch on one GPU: `b·s/c`.
#[inline]
fn tokens_per_gpu(s: &Scenario) -> f64 {
    s.training.micro_batch as f64 * s.model.seq_len as f64 / s.parallel.cp.max(1) as f64
}

/// Micro-batches per pipeline per step, `m = B/(b·d)` (at least 1).
#[inline]
fn micro_batches(s: &Scenario) -> u64 {
    let per = s.training.micro_batch.saturating_mul(s.parallel.dp).max(1);
    (s.training.global_batch / per).max(1)
}
