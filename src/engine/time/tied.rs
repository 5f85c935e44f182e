//! The step-end all-reduce of a tied embedding's gradient between the first and the last
//! pipeline stage.
//!
//! With tied input and output embeddings and `p > 1` stages, the first stage holds the word
//! embedding and the last stage a copy of it as the output layer; each computes a gradient for
//! its copy, and the two are summed once per step so that both copies stay equal:
//! - Megatron-LM: `finalize_model_grads` finishes the data-parallel gradient sync, then
//!   `_allreduce_word_embedding_grads` all-reduces the embedding's main gradient over the
//!   embedding group, before the optimizer step (`megatron/core/distributed/
//!   finalize_model_grads.py`, commit d98e8a64; Megatron-LM of 2021 did the same in
//!   `training.py` `train_step`, "All-reduce word_embeddings' grad across first and last
//!   stages");
//! - DeepSpeed's `PipelineEngine`: the training schedule ends each step with `ReduceTiedGrads`,
//!   `ReduceGrads`, `OptimizerStep` (`deepspeed/runtime/pipe/schedule.py` `TrainSchedule`,
//!   v0.5.10), and `ReduceTiedGrads` calls `PipelineModule.allreduce_tied_weight_gradients`,
//!   a `dist.all_reduce(weight.grad)` over the tied stages (`pipe/module.py`); from v0.6.3 the
//!   engine reduces `weight._hp_grad`, the fp32 accumulator, under bf16
//!   ([`super::grad_accumulation`]; `_exec_reduce_tied_grads` in `pipe/engine.py`).
//!
//! Both run after the last backward and outside any overlap, so the whole collective is exposed.
//! Its buffer is the vocab-parallel table `V·h/t` in the bytes of the reduced gradient
//! ([`super::data_parallel::reduced_grad_bytes`]: the fp32 main gradient in Megatron-LM with
//! `grad_reduce_in_fp32`, the 16-bit `.grad` in DeepSpeed, its fp32 accumulator under
//! `BF16_Optimizer`); it crosses the link between the first
//! and the last stage ([`super::groups::Groups::embd`]).

use super::data_parallel::reduced_grad_bytes;
use super::inputs::Inputs;

/// Exposed time of the tied-embedding gradient all-reduce per step, seconds (0 without tied
/// embeddings or without pipeline parallelism).
pub(crate) fn tied_embedding_sync_s(x: &Inputs) -> f64 {
    if !x.s.model.tied_embeddings || x.p <= 1 {
        return 0.0;
    }
    x.groups
        .embd
        .all_reduce_s(x.d.v * x.d.h / x.tf * reduced_grad_bytes(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::inputs::{bloom_176b, with_inputs};
    use crate::scenario::Scenario;

    /// BLOOM-176B ([`bloom_176b`]) in fp16 with `tp`, `pp`, `dp` (tp·pp·dp = 384): the first
    /// and the last stage of a 32- or 64-rank stage sit on different nodes.
    fn bloom(tp: u64, pp: u64, dp: u64, tied: bool) -> Scenario {
        let mut s = bloom_176b();
        s.training.precision = crate::scenario::Precision::Fp16;
        // Each layout below keeps tp·pp·dp = 384.
        s.parallel.tp = tp;
        s.parallel.pp = pp;
        s.parallel.dp = dp;
        s.model.tied_embeddings = tied;
        s
    }

    #[test]
    fn two_rank_all_reduce_of_the_vocab_parallel_table() {
        // tp 8: 250 880 · 14336 / 8 = 450 M elements · 2 B (DeepSpeed fp16 `.grad`) = 899 MB.
        // A two-rank ring all-reduce moves 2·(2−1)/2 = 1 buffer over the 6.25 GB/s link at
        // NCCL's network efficiency (`comm::NIC_EFFICIENCY`, 0.85): 0.899 / 5.3125 = 0.1693 s,
        // plus a few hop latencies (< 1 ms).
        let t = with_inputs(&bloom(8, 6, 8, true), tied_embedding_sync_s);
        let bw = 250_880.0 * 14336.0 / 8.0 * 2.0 / (6.25e9 * 0.85);
        assert!(t >= bw && t < bw + 1e-3, "{t} vs {bw}");
        // tp 4: twice the table per GPU, twice the time.
        let t4 = with_inputs(&bloom(4, 12, 8, true), tied_embedding_sync_s);
        assert!(t4 >= 2.0 * bw && t4 < 2.0 * bw + 1e-3, "{t4}");
    }

    #[test]
    fn nothing_without_tying_or_pipeline() {
        assert_eq!(
            with_inputs(&bloom(8, 6, 8, false), tied_embedding_sync_s),
            0.0
        );
        assert_eq!(
            with_inputs(&bloom(8, 1, 48, true), tied_embedding_sync_s),
            0.0
        );
    }

    #[test]
    fn megatron_reduces_the_fp32_main_gradient() {
        // The same layout under Megatron-LM: the fp32 main gradient (4 B), twice DeepSpeed's.
        let ds = with_inputs(&bloom(8, 6, 8, true), tied_embedding_sync_s);
        let mut s = bloom(8, 6, 8, true);
        s.training.framework = Some(crate::scenario::Framework::Megatron);
        let mg = with_inputs(&s, tied_embedding_sync_s);
        assert!((mg / ds - 2.0).abs() < 0.01, "{mg} vs {ds}");
    }

    #[test]
    fn the_step_counts_it_with_the_pipeline() {
        // Untying removes exactly the all-reduce from the exposed PP time and from the step (the
        // output layer's compute is the same either way).
        let (a, b) = (bloom(8, 6, 8, true), bloom(8, 6, 8, false));
        let tied = with_inputs(&a, tied_embedding_sync_s);
        let ea = crate::engine::estimate::estimate(&a).expect("estimate");
        let eb = crate::engine::estimate::estimate(&b).expect("estimate");
        let (ta, tb) = (&ea.time, &eb.time);
        assert!((ta.exposed_comm_s.pp - tb.exposed_comm_s.pp - tied).abs() < 1e-9);
        assert!((ta.step_s - tb.step_s - tied).abs() < 1e-9);
    }
}
