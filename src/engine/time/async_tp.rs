//! PyTorch's async tensor parallelism (`parallel.tp_comm_overlap` under torchtitan): Inductor's
//! micro-pipeline pass fuses a sequence-parallel all-gather with the GEMMs that consume it and a
//! GEMM with the reduce-scatter that consumes it, each into a decomposed op on symmetric memory,
//! priced by which collectives the pass can match and what the decomposed ops run.
//!
//! The code the held-out June 2025 runs used (torchtitan 820504e sets
//! `torch._inductor.config._micro_pipeline_tp = True` and `enable_symm_mem_for_group` for the TP
//! group, `models/llama3/parallelize_llama.py` l. 205-209; torch 38410cf9, 2025-06-14):
//! - **Which collectives fuse** (`torch/_inductor/fx_passes/micro_pipeline_tp.py`, pytorch/pytorch
//!   @5f65158a, the 2025 pass with `_ScaledMatmul`): an all-gather fuses when its result's direct
//!   users are matmuls that take it as the left operand (`_find_consumer_matmuls`: `mm` or
//!   `_scaled_mm`, possibly behind a reshape); a reduce-scatter fuses when its input is produced
//!   by one matmul with no other user (`_find_producer_matmul`, `len(input_node.users) != 1`).
//!   The pass runs on the forward and the backward graphs alike. In torchtitan's Llama block
//!   (`apply_tp`: `PrepareModuleInput` gathers once for `wq`, `wk`, `wv`, and once for `w1`,
//!   `w3`) that fuses, per block: the forward all-gather (its consumers are the block's
//!   column-parallel GEMMs), the forward reduce-scatter (produced by `wo` or `w2`), and the
//!   backward all-gather of the output gradient (consumed by the row-parallel layer's
//!   input-gradient GEMM). It does **not** fuse the backward reduce-scatter of the block input's
//!   gradient: that gradient is the sum of the input gradients of the two or three
//!   column-parallel layers sharing the input, an `add`, not a matmul. Under torchao's rowwise
//!   float8 recipe torchtitan gathers in bf16 and quantizes after the gather
//!   (`parallelize_llama.py` l. 62-65: "For rowwise recipes, we use regular TP and all-gather
//!   happens in high precision"), so the gathered tensor feeds the cast kernels, not a matmul:
//!   neither all-gather fuses, only the forward reduce-scatters do.
//! - **What a fused all-gather runs** (`torch/distributed/_symmetric_memory/__init__.py`,
//!   `_pipelined_all_gather_and_consume`, walked through by D. Vega-Myhre, "Deep dive:
//!   overlapping compute and comms in tensor parallelism", 2025-05-26, with the code of
//!   pytorch/pytorch @e89ee1e2): the local shard is first copied into the symmetric buffer and
//!   all ranks meet at a barrier, not overlapped ("we are giving up the chance to overlap "mv"
//!   and "b" with the first shard_consumer"); then the consumer GEMMs run as `tp` chunks of
//!   `1/tp` of the rows, the local chunk first, each remote shard pulled by the copy engines
//!   (`copy_`, no SMs) while the previous chunk computes, on two alternating streams. Exposed:
//!   the copy-in, `max(0, t_AG − t_GEMM)` when the pulls outrun the chunks, and the `tp − 1`
//!   extra GEMM kernels.
//! - **What a fused reduce-scatter runs** (same file, `_fused_matmul_reduce_scatter_impl`): the
//!   producer GEMM runs as `tp` row chunks, each chunk pushed to its destination by the copy
//!   engines (`_pipelined_produce_and_all2all`), then one `reduce_partials` kernel sums the `tp`
//!   received partials: it reads `T·h` elements and writes `T·h/tp`, after the last chunk,
//!   exposed.
//! - Copy-engine transfers take no SMs, so the hidden part of a fused collective costs compute
//!   nothing (NCCL's collectives take [`super::contention::collective_sm_share`] of the time they hide).
//!
//! Published: the PyTorch team's first release measured "up to ~29 % forward pass speedup and
//! ~8 % E2E speedup in Llama3 7B; up to ~20 % forward pass speedup and ~8 % E2E speedup in
//! Llama3 70B" (Wang et al., "[Distributed w/ TorchTitan] Introducing Async Tensor Parallelism
//! in PyTorch", discuss.pytorch.org/t/209487, 2024): most of the gain is the forward's.
//!
//! Full recomputation repeats the forward's fused collectives; per-op selective checkpointing
//! regathers each block's input in the backward (the all-gather is not in torchtitan's
//! `_save_list`), where the pass fuses it with the column-parallel GEMMs the policy recomputes
//! (every other `mm`: `wk` and `w3` of a Llama block, `parallelize_llama.py` l. 255-263).

use super::inputs::Inputs;
use crate::engine::framework::TpOverlap;

/// Whether a layer's TP collectives run through this pass: `parallel.tp_comm_overlap` under
/// torchtitan with sequence parallelism (without SP there is no all-gather or reduce-scatter
/// for the pass to fuse, and nothing overlaps).
pub(crate) fn applies(x: &Inputs) -> bool {
    x.s.parallel.tp_comm_overlap() && x.s.parallel.sp && x.stack.fw.tp_overlap == TpOverlap::AsyncTp
}

/// One TP block's forward GEMM times on one rank, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlockGemms {
    /// Column-parallel GEMMs (the consumers of the block's all-gather: QKV, or FC1 and gate).
    pub col: f64,
    /// Row-parallel GEMM (the producer of the block's reduce-scatter: output projection, FC2).
    pub row: f64,
    /// The column-parallel GEMMs per-op selective checkpointing recomputes in the backward
    /// (what a regather fuses with); 0 without it.
    pub col_rc: f64,
}

/// One layer's TP collectives under async TP, seconds per micro-batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AsyncTpLayer {
    /// The layer's TP blocks (attention, then the MLP; one for an MoE layer without shared
    /// experts, whose second entry is ignored).
    pub blocks: [BlockGemms; 2],
    /// How many of `blocks` the layer has (1 or 2).
    pub n_blocks: usize,
    /// Tensor-parallel size.
    pub tp: f64,
    /// One block's forward all-gather.
    pub ag_fwd: f64,
    /// One block's backward all-gather of the output gradient.
    pub ag_bwd: f64,
    /// One block's reduce-scatter.
    pub rs: f64,
    /// Whether the all-gathers fuse (false when the stack quantizes after gathering: torchao
    /// rowwise).
    pub gathers_fuse: bool,
    /// The copy of the local shard into the symmetric buffer before a fused all-gather, forward
    /// and backward (read and write the shard: `2·T·h·b/tp` bytes over HBM, one kernel), s.
    pub copy_in: (f64, f64),
    /// The `reduce_partials` kernel after a fused reduce-scatter (`(1 + 1/tp)·T·h·e` bytes), s.
    pub reduce: f64,
    /// Fixed cost of one GEMM kernel.
    pub kernel_s: f64,
}

/// Exposed time of an async-TP layer, seconds per micro-batch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AsyncTpCosts {
    /// Forward.
    pub fwd: f64,
    /// Backward (the unfused input-gradient reduce-scatters in full).
    pub bwd: f64,
    /// Per-op selective checkpointing's regathers.
    pub regather: f64,
}

impl AsyncTpLayer {
    /// A fused all-gather under consumer GEMMs taking `gemm` seconds: the copy-in, what the
    /// pulls do not hide, and the chunked GEMM's `tp − 1` extra kernels.
    fn fused_gather(&self, ag: f64, copy_in: f64, gemm: f64) -> f64 {
        copy_in + (ag - gemm).max(0.0) + (self.tp - 1.0) * self.kernel_s
    }

    /// The exposed time of every block.
    pub fn costs(&self) -> AsyncTpCosts {
        let mut c = AsyncTpCosts::default();
        for b in self.blocks.iter().take(self.n_blocks.min(2)) {
            let (ag_f, ag_b, rg) = if self.gathers_fuse {
                (
                    self.fused_gather(self.ag_fwd, self.copy_in.0, b.col),
                    self.fused_gather(self.ag_bwd, self.copy_in.1, b.row),
                    self.fused_gather(self.ag_fwd, self.copy_in.0, b.col_rc),
                )
            } else {
                (self.ag_fwd, self.ag_bwd, self.ag_fwd)
            };
            let rs_f = self.reduce + (self.rs - b.row).max(0.0) + (self.tp - 1.0) * self.kernel_s;
            c.fwd += ag_f + rs_f;
            // The input gradient's reduce-scatter: a sum of GEMM outputs, never fused.
            c.bwd += ag_b + self.rs;
            c.regather += rg;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(gathers_fuse: bool) -> AsyncTpLayer {
        let block = |col, row, col_rc| BlockGemms { col, row, col_rc };
        AsyncTpLayer {
            // Attention: QKV 1.0 ms, output projection 0.7 ms, recomputed K 0.2 ms; MLP: FC1 and
            // gate 5.0 ms, FC2 2.5 ms, recomputed gate 2.5 ms.
            blocks: [block(1.0e-3, 0.7e-3, 0.2e-3), block(5.0e-3, 2.5e-3, 2.5e-3)],
            n_blocks: 2,
            tp: 8.0,
            ag_fwd: 2.0e-3,
            ag_bwd: 2.0e-3,
            rs: 2.0e-3,
            gathers_fuse,
            copy_in: (0.1e-3, 0.1e-3),
            reduce: 0.4e-3,
            kernel_s: 5e-6,
        }
    }

    /// `c`'s forward, backward and regather seconds are `fwd`, `bwd` and `regather` (to 1e-12 s).
    fn assert_costs(c: AsyncTpCosts, fwd: f64, bwd: f64, regather: f64) {
        assert!((c.fwd - fwd).abs() < 1e-12, "{}", c.fwd);
        assert!((c.bwd - bwd).abs() < 1e-12, "{}", c.bwd);
        assert!((c.regather - regather).abs() < 1e-12, "{}", c.regather);
    }

    #[test]
    fn each_collective_hides_under_its_own_gemms() {
        let c = layer(true).costs();
        // 7 extra kernels per fused op: 35 µs.
        // Forward, attention: gather 0.1 + (2.0 − 1.0) + 0.035 = 1.135 ms; scatter 0.4 +
        // (2.0 − 0.7) + 0.035 = 1.735 ms. MLP: gather 0.1 + 0 + 0.035 = 0.135; scatter 0.4 + 0 +
        // 0.035 = 0.435. Sum 3.44 ms.
        // Backward: the gradient's gather under the row-parallel input-gradient GEMM, attention
        // 0.1 + 1.3 + 0.035 = 1.435, MLP 0.135; the input gradient's scatters in full, 2 × 2.0:
        // 5.57 ms.
        // Regathers: attention under the recomputed K, 0.1 + 1.8 + 0.035 = 1.935, MLP 0.135:
        // 2.07 ms.
        assert_costs(c, 3.44e-3, 5.57e-3, 2.07e-3);
    }

    #[test]
    fn gathers_that_feed_a_cast_stay_exposed() {
        let c = layer(false).costs();
        // Forward: the gathers in full (2 × 2.0) plus the fused scatters 1.735 + 0.435: 6.17 ms.
        // Backward: nothing fuses, 4 × 2.0 ms; regathers 2 × 2.0 ms.
        assert_costs(c, 6.17e-3, 8.0e-3, 4.0e-3);
    }

    #[test]
    fn one_block_for_an_moe_layer() {
        let mut l = layer(true);
        l.n_blocks = 1;
        let c = l.costs();
        assert!((c.fwd - (1.135e-3 + 1.735e-3)).abs() < 1e-12, "{}", c.fwd);
    }
}
