//! The calibration section: how the user's own cluster differs from the model's hardware, fitted
//! from one measured run (`paracalc calibrate`, [`crate::calibrate`]).
//!
//! Four physical numbers, each optional (absent = no correction):
//! - `compute`: the **compute efficiency factor** `c`. Every rate of the GPU's kernels that the
//!   time model derives from the data sheet — tensor-core GEMMs, the HBM-bound element-wise
//!   kernels, and fused attention unless `attention` is set — is multiplied by `c` (`c < 1`: the
//!   cluster's kernels run slower than the model assumes: lower clocks under a power cap, older
//!   cuBLAS/cuDNN, unfused kernels). Fixed per-kernel latencies are not scaled.
//! - `attention`: the **attention efficiency factor** `a`. The rates of the fused-attention
//!   kernel (its tensor-core rate and the softmax exponentials it runs on the special-function
//!   units) are multiplied by `a` instead of `c`. Absent, attention follows `c`, so a
//!   calibration written before this factor existed predicts exactly what it did. It is
//!   separate because the same GPU and shape run fused attention at rates that differ far more
//!   between backends and library versions than GEMMs do ([`crate::calibrate`]); a plan
//!   without fused attention (the unfused path runs batched GEMMs and HBM-bound softmax, which
//!   are `c`'s) does not feel it.
//! - `network`: the **network efficiency factor** `n`. The bandwidth of every link tier
//!   (NVLink/PCIe inside a node, the NICs between nodes) is multiplied by `n` (`n < 1`: a slower
//!   fabric, fewer rails, an NCCL version or topology that reaches less bus bandwidth).
//!   Collective latencies are not scaled.
//! - `precision`: the training precision of the run the step factors were fitted on. The
//!   compute factor (and attention when it follows compute) describes the GEMM units that run
//!   measured: the tensor cores for fp16, bf16, FP8 and NVFP4, the CUDA cores for fp32 (SGEMM:
//!   PyTorch leaves TF32 off for matmuls, `engine::time::compute::Efficiency::gemm_fp32`).
//!   Those are separate execution units with separate kernels and separately measured
//!   efficiencies, so a factor fitted on one does not say how the other runs: on a plan whose
//!   GEMMs run on the other units the compute factor is not applied (a fused-attention factor
//!   of its own and the network factor still are). Absent, the factors apply to every plan (a
//!   calibration written before this field predicts what it did). Hugging Face's BERT-large on
//!   one V100 (`hf_docs_memory`): the model predicts the fp32 runs 0.6-2.6 % slow and the fp16
//!   runs 15-16 % fast; the factor fitted on an fp16 run (0.77-0.80) carried to the fp32 runs
//!   made them 22-30 % slow.
//! - `memory_gib`: the **memory offset**, GiB per GPU, added to every pipeline stage as allocator
//!   reserve (memory that the user's framework holds and the model does not count: other
//!   libraries' workspaces, a larger fragmentation, a bigger CUDA context).
//!
//! # Bounds and why
//! - `compute` ∈ [[`Calibration::COMPUTE_MIN`], [`Calibration::COMPUTE_MAX`]] = [0.25, 1.35]:
//!   the model's sustained GEMM rates are 0.63-0.80 of the data-sheet peak
//!   (`engine::time::compute::Efficiency`), and a kernel cannot beat the peak, so `c` above
//!   1/0.74 ≈ 1.35 would mean faster than the silicon. Below 0.25 (a quarter of the modelled
//!   rate) the run is not the plan that was entered (another precision, recomputation, a
//!   debug build), and a factor would hide that rather than explain it.
//! - `attention` ∈ [[`Calibration::ATTENTION_MIN`], [`Calibration::ATTENTION_MAX`]] =
//!   [0.25, 2.0]: fused-attention kernels at one GPU and shape differ by up to ≈ 1.8× between
//!   backends and versions (H100, forward causal, head dim 128, 16k: FlashAttention-2 335,
//!   FlashAttention-3 616 TFLOP/s, arXiv 2407.08608), so a cluster whose kernel is a
//!   generation ahead of (or behind) the one the model prices sits within a factor 2 of it;
//!   beyond 2 the entered attention kernel (`training.attention_kernel`) is wrong, and a factor
//!   would hide that. Below 0.25, as for `compute`, the run is another plan.
//! - `network` ∈ [[`Calibration::NETWORK_MIN`], [`Calibration::NETWORK_MAX`]] = [0.1, 1.2]:
//!   the model assumes 0.78 of the NVLink rate and 0.85 of the NIC line rate
//!   (`engine::time::comm`); NCCL cannot exceed the line rate, 1/0.85 ≈ 1.2. 0.1 is NCCL over
//!   TCP sockets instead of RDMA (≈ 10 % of the line rate), the slowest fabric still in use.
//! - `memory_gib` ∈ [[`Calibration::MEMORY_MIN_GIB`], [`Calibration::MEMORY_MAX_GIB`]] =
//!   [−16, 64]: model states are exact counts, so a real run differs from the model in the
//!   overheads only (context, workspaces, fragmentation: a few GiB); larger gaps mean another
//!   plan and are refused by the fit ([`crate::calibrate`]) with a message.
//!
//! # Example
//! ```
//! let c = paracalc::scenario::Calibration {
//!     compute: Some(0.9),
//!     network: Some(0.6),
//!     ..Default::default()
//! };
//! assert_eq!(c.compute(), 0.9);
//! // Attention follows compute unless it is set.
//! assert_eq!(c.attention(), 0.9);
//! assert_eq!(c.memory_gib(), 0.0);
//! assert!(!c.is_default());
//! ```

use super::Precision;
use crate::text::num::Fixed;

/// Factors fitted to one measured run of the user's cluster. Every field is optional; `None`
/// means no correction (see the accessors).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Calibration {
    /// Compute efficiency factor `c`: multiplies every kernel rate (GEMM, HBM, and fused
    /// attention when `attention` is not set).
    pub compute: Option<f64>,
    /// Attention efficiency factor `a`: multiplies the fused-attention kernel rates; absent,
    /// they follow `compute`.
    pub attention: Option<f64>,
    /// Network efficiency factor `n`: multiplies the bandwidth of every link tier.
    pub network: Option<f64>,
    /// Memory offset per GPU, GiB, added to every stage's allocator reserve.
    pub memory_gib: Option<f64>,
    /// Training precision of the run the step factors were fitted on: the compute factor acts
    /// only on plans whose GEMMs run on the same units ([`Calibration::compute_for`]); absent,
    /// on every plan.
    pub precision: Option<Precision>,
}

impl Calibration {
    /// Lowest compute efficiency factor (a quarter of the modelled kernel rates).
    pub const COMPUTE_MIN: f64 = 0.25;
    /// Highest compute efficiency factor (the data-sheet peak over the model's GEMM efficiency).
    pub const COMPUTE_MAX: f64 = 1.35;
    /// Lowest attention efficiency factor (as for compute: a quarter of the modelled rate).
    pub const ATTENTION_MIN: f64 = 0.25;
    /// Highest attention efficiency factor (backends at one shape differ by up to ≈ 1.8×).
    pub const ATTENTION_MAX: f64 = 2.0;
    /// Lowest network efficiency factor (NCCL over TCP sockets).
    pub const NETWORK_MIN: f64 = 0.1;
    /// Highest network efficiency factor (the line rate over the model's NIC efficiency).
    pub const NETWORK_MAX: f64 = 1.2;
    /// Most negative memory offset, GiB.
    pub const MEMORY_MIN_GIB: f64 = -16.0;
    /// Largest memory offset, GiB.
    pub const MEMORY_MAX_GIB: f64 = 64.0;

    /// Whether nothing is corrected (then the section is omitted from JSON).
    pub fn is_default(&self) -> bool {
        *self == Calibration::default()
    }

    /// The compute efficiency factor, 1 when not set.
    pub fn compute(&self) -> f64 {
        self.compute.unwrap_or(1.0)
    }

    /// The attention efficiency factor: itself when set, else the compute factor (so a
    /// calibration without it scales attention as it always did).
    pub fn attention(&self) -> f64 {
        self.attention.unwrap_or_else(|| self.compute())
    }

    /// Whether the compute factor describes the GEMM units of a plan trained in `plan`: no
    /// precision recorded, or one whose GEMMs run on the same units (tensor cores for fp16,
    /// bf16, FP8 and NVFP4; the CUDA cores for fp32).
    pub fn carries_to(&self, plan: Precision) -> bool {
        self.precision
            .is_none_or(|p| (p == Precision::Fp32) == (plan == Precision::Fp32))
    }

    /// The compute and attention factors that act on a plan trained in `plan`: both as set
    /// when [`Calibration::carries_to`] the plan; otherwise compute is 1 and attention is its
    /// own factor or 1 (the units the compute factor was measured on are not the plan's).
    pub fn compute_for(&self, plan: Precision) -> (f64, f64) {
        if self.carries_to(plan) {
            (self.compute(), self.attention())
        } else {
            (1.0, self.attention.unwrap_or(1.0))
        }
    }

    /// The network efficiency factor, 1 when not set.
    pub fn network(&self) -> f64 {
        self.network.unwrap_or(1.0)
    }

    /// The memory offset, GiB, 0 when not set.
    pub fn memory_gib(&self) -> f64 {
        self.memory_gib.unwrap_or(0.0)
    }

    /// The factors in words, for reports and the app ("kernels run at 92 % of the modelled rate;
    /// links at 61 % …").
    pub fn describe(&self) -> String {
        if self.is_default() {
            return "not calibrated: the model's hardware rates are used as they are".to_string();
        }
        let pct = |x: f64| format!("{} %", Fixed(100.0 * x, 0));
        let mut parts = Vec::new();
        if let Some(c) = self.compute {
            parts.push(format!(
                "GPU kernels run at {} of the modelled rate",
                pct(c)
            ));
        }
        if let Some(a) = self.attention {
            parts.push(format!(
                "fused attention runs at {} of the modelled rate",
                pct(a)
            ));
        }
        if let Some(n) = self.network {
            parts.push(format!("links run at {} of the modelled bandwidth", pct(n)));
        }
        if let (Some(p), true) = (self.precision, self.compute.is_some()) {
            parts.push(format!(
                "measured in {} ({})",
                p.as_str(),
                if p == Precision::Fp32 {
                    "the compute factor applies to fp32 plans only"
                } else {
                    "the compute factor does not apply to fp32 plans"
                }
            ));
        }
        if let Some(m) = self.memory_gib {
            parts.push(format!(
                "{} {} GiB per GPU {} the modelled memory",
                if m >= 0.0 { "+" } else { "−" },
                Fixed(m.abs(), 2),
                if m >= 0.0 { "above" } else { "below" }
            ));
        }
        parts.join("; ")
    }
}
