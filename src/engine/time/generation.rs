//! GPU generations: the families of GPUs that share kernel efficiencies, told apart by their
//! tensor-core peaks.

use crate::scenario::GpuSpec;

/// GPU families that share kernel efficiencies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// V100: fp16 tensor cores, no bf16/tf32.
    Volta,
    /// A100: bf16/tf32 tensor cores, no FP8.
    Ampere,
    /// H100/H200 (and other ~1 PFLOP/s bf16 parts such as MI300X).
    Hopper,
    /// B200/GB200/GB300.
    Blackwell,
}

/// Dense bf16 peak, TFLOP/s, below which a GPU with FP8 is classed Hopper (H100/H200 989,
/// B200 2250: any threshold between them classifies the presets alike).
pub const HOPPER_MAX_BF16_TFLOPS: f64 = 1500.0;

impl Generation {
    /// Classifies a GPU by its tensor-core peaks (works for custom GPUs too): no bf16 → Volta;
    /// no FP8 → Ampere; bf16 below 1.5 PFLOP/s → Hopper; otherwise Blackwell.
    pub fn of(gpu: &GpuSpec) -> Generation {
        let p = gpu.peak_tflops;
        match (p.bf16, p.fp8) {
            (None, _) => Generation::Volta,
            (Some(_), None) => Generation::Ampere,
            (Some(b), Some(_)) if b < HOPPER_MAX_BF16_TFLOPS => Generation::Hopper,
            _ => Generation::Blackwell,
        }
    }
}
