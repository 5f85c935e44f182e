//! The optimizer step: a memory-bound pass over this GPU's share of the optimizer state.

use super::inputs::Inputs;

/// Adam step bytes per local parameter: read fp32 grad (4), read+write fp32 master (8), both
/// moments (16), write the 16-bit copy (2), grad-norm read (4), zero the grad (4) ≈ 38
/// (memory-bound multi-tensor apply; llm-analysis prices the update at model-state bytes / HBM).
pub const OPTIMIZER_BYTES_PER_PARAM: f64 = 38.0;
/// Kernels of the optimizer step: gradient norm, clipping scale, the multi-tensor Adam update and
/// the copy to the 16-bit weights (Megatron / Apex `multi_tensor_applier`, one launch each).
pub const OPTIMIZER_KERNELS: f64 = 4.0;

/// Optimizer step time for a stage of `stage_params` parameters on one GPU, seconds: ZeRO-1 and
/// above update only the `1/(d·c)` shard ([`local_params`]); the share offloaded to the host
/// (`training.optimizer_offload`) is updated by the CPU instead ([`super::offload`]).
pub(crate) fn optimizer_s(x: &Inputs, stage_params: f64) -> f64 {
    let on_gpu = 1.0 - x.s.training.optimizer_offload();
    x.dev.memory_s(
        on_gpu * local_params(x, stage_params) * OPTIMIZER_BYTES_PER_PARAM,
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
