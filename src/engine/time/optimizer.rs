//! The optimizer step: a memory-bound pass over this GPU's share of the optimizer state.

use super::inputs::Inputs;

/// Kernels of the optimizer step: gradient norm, clipping scale, the multi-tensor Adam update and
/// the copy to the 16-bit weights (Megatron / Apex `multi_tensor_applier`, one launch each).
pub const OPTIMIZER_KERNELS: f64 = 4.0;

/// Optimizer step time for a stage of `stage_params` parameters on one GPU, seconds: ZeRO-1 and
/// above update only the `1/(d·c)` shard ([`local_params`]); the share offloaded to the host
/// (`training.optimizer_offload`) is updated by the CPU instead ([`super::offload`]).
pub(crate) fn optimizer_s(x: &Inputs, stage_params: f64) -> f64 {
    let on_gpu = 1.0 - x.s.training.optimizer_offload();
    x.dev.memory_s(
        on_gpu * local_params(x, stage_params) * x.update_bytes,
        OPTIMIZER_KERNELS,
    )
}

/// Parameters whose optimizer state this GPU updates: the stage's, divided by the ZeRO shard.
pub(crate) fn local_params(x: &Inputs, stage_params: f64) -> f64 {
    let shard = if x.s.parallel.zero_stage >= 1 {
        x.groups.dp.n.max(1.0)
    } else {
        1.0
    };
    stage_params / shard
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::states::update_bytes_per_param;
    use crate::scenario::{Fp8Recipe, Framework, OptimizerStates, Precision};

    #[test]
    fn step_bytes_follow_the_states() {
        let mut s = crate::presets::default_model_preset().scenario();
        s.training.precision = Precision::Bf16;
        assert_eq!(update_bytes_per_param(&s), 38.0);
        // bf16 moments under Megatron-LM: moments 2·(2+2) = 8, master remainder 2+2 + param
        // read 2 = 6; grad 4 + bf16 write 2 + norm 4 + zero 4 = 14: 28.
        s.training.optimizer_states = Some(OptimizerStates::Bf16);
        assert_eq!(update_bytes_per_param(&s), 28.0);
        // FP8 blockwise keeps Megatron's fp32 master: 14 + 8 + 8 = 30.
        s.training.precision = Precision::Fp8;
        s.training.fp8_recipe = Some(Fp8Recipe::Blockwise);
        assert_eq!(update_bytes_per_param(&s), 30.0);
        // torchtitan: bf16 moments, fp32 master untouched: 30.
        s.training.precision = Precision::Bf16;
        s.training.framework = Some(Framework::Torchtitan);
        assert_eq!(update_bytes_per_param(&s), 30.0);
        // Megatron-LM's precision-aware optimizer with fp32 moments (NeMo's bf16 performance
        // runs): 14 + 16 + 6 = 36.
        s.training.framework = None;
        s.training.optimizer_states = None;
        s.training.master_weights = Some(crate::scenario::MasterWeights::Remainder);
        assert_eq!(update_bytes_per_param(&s), 36.0);
        // No master copy: the bf16 parameter is read (2) and written in place (counted in the
        // 14): 14 + 16 + 2 = 32 with fp32 moments, 14 + 8 + 2 = 24 with bf16 (NeMo 1
        // `dtype: bf16`).
        s.training.master_weights = Some(crate::scenario::MasterWeights::None);
        assert_eq!(update_bytes_per_param(&s), 32.0);
        s.training.optimizer_states = Some(OptimizerStates::Bf16);
        assert_eq!(update_bytes_per_param(&s), 24.0);
    }
}
