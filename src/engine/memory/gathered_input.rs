//! Which copy of a sequence-parallel GEMM input the backward keeps: the shard or the gathered
//! tensor.
//!
//! With sequence parallelism the input of a column-parallel GEMM is all-gathered along the
//! sequence before the GEMM. Megatron-LM keeps the shard and gathers it again in backward for
//! the weight gradient (`megatron/core/tensor_parallel/layers.py`,
//! `LinearWithGradAccumulationAndAsyncCommunication`, NVIDIA/Megatron-LM @d98e8a64), so a
//! stored input costs `e·h/t` per token. PyTorch's DTensor tensor parallelism, which torchtitan
//! uses, gathers in the module's input hook (`ColwiseParallel(input_layouts=Shard(1))`
//! redistributes its input to `Replicate()`, `torch/distributed/tensor/parallel/style.py`) and
//! the GEMM's autograd node saves the gathered tensor it was given: `e·h` per token on every TP
//! rank.
//!
//! The engine applies this to torchtitan's output layer (`"output": ColwiseParallel(
//! input_layouts=Shard(1), …)`, `torchtitan/parallelisms/parallelize_llama.py` `apply_tp`,
//! pytorch/torchtitan @9dec370), which runs outside the checkpointed blocks, in 16 bits
//! (torchtitan's float8 converter skips `output`, `torchtitan/float8.py`
//! `module_filter_fn`), and whose saved input is alive at the loss. Inside the blocks the same
//! holds for the attention's and the MLP's gathered inputs, but torchtitan checkpoints the blocks
//! (full recompute keeps only each block's input; its op policy does not save the all-gather,
//! which is replayed), so there it changes only the recompute working set (not priced).
//!
//! Formulas, sources and what was checked: [activations.md](crate::docs::formulas::activations) §7.

use crate::scenario::Scenario;

/// Whether the output GEMM keeps its sequence-gathered input (DTensor TP with SP: torchtitan,
/// `tp > 1`, `sp`).
pub fn output_keeps_gathered_input(s: &Scenario) -> bool {
    s.training.framework().traits().dtensor_sp && s.parallel.tp > 1 && s.parallel.sp
}

/// The divisor of the output GEMM's saved input, per token `e·h/div`: `t` with sequence
/// parallelism (the shard), 1 when the gathered tensor is kept ([`output_keeps_gathered_input`])
/// or without sequence parallelism (every rank holds the whole input).
pub fn output_input_div(s: &Scenario) -> f64 {
    if s.parallel.sp && !output_keeps_gathered_input(s) {
        s.parallel.tp.max(1) as f64
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::activations::output_bytes;
    use crate::scenario::Framework;

    /// The public `torchtitan-h100-t4-10` plan ([`super::super::loss_parallel`]'s fixture) with
    /// sequence parallelism on or off.
    fn llama70b(framework: Framework, sp: bool) -> Scenario {
        let mut s = crate::engine::memory::loss_parallel::tests::llama70b_tp8(framework);
        s.parallel.sp = sp;
        s
    }

    #[test]
    fn torchtitan_keeps_the_gathered_output_input() {
        // 131,072 tokens × 8192 × 2 B = 2,147,483,648 B gathered, against the 1/8 shard
        // 268,435,456 B Megatron-LM keeps: 1,879,048,192 B more at the same loss.
        let tt = llama70b(Framework::Torchtitan, true);
        let mg = llama70b(Framework::Megatron, true);
        assert!(output_keeps_gathered_input(&tt) && !output_keeps_gathered_input(&mg));
        assert_eq!(output_input_div(&tt), 1.0);
        assert_eq!(output_input_div(&mg), 8.0);
        let mut mg_unfused = mg.clone();
        mg_unfused.training.loss_kernel = Some(crate::scenario::LossKernel::Unfused);
        assert_eq!(
            output_bytes(&tt) - output_bytes(&mg_unfused),
            1_879_048_192.0
        );
        // Without SP every rank holds the whole input under either stack.
        assert_eq!(
            output_input_div(&llama70b(Framework::Torchtitan, false)),
            1.0
        );
        assert_eq!(output_input_div(&llama70b(Framework::Megatron, false)), 1.0);
    }
}
