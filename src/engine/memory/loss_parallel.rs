//! PyTorch's loss parallel: `cross_entropy` on vocabulary-sharded DTensor logits, as torchtitan
//! runs it whenever tensor parallelism is on.
//!
//! torchtitan shards the output layer's logits over the vocabulary (`ColwiseParallel(…,
//! output_layouts=Shard(-1), use_local_output=False)` when loss parallel is on,
//! `torchtitan/parallelisms/parallelize_llama.py` `apply_tp`) and runs the loss and its backward
//! inside `torch.distributed.tensor.parallel.loss_parallel()` (`torchtitan/utils.py`
//! `get_train_context`, on unless `training.disable_loss_parallel`; `train.py`: `loss_fn` is
//! `cross_entropy(pred.flatten(0, 1).float(), labels)`, then `del pred` before `backward`),
//! pytorch/torchtitan @9dec370 (the commit of the published Grand Teton runs, `docs/
//! performance.md` @d4c86e375). Under that context DTensor replaces the log-softmax and the
//! NLL loss with its own handlers (`torch/distributed/tensor/parallel/loss.py`, pytorch/pytorch,
//! read at 02eef6b; the same backward in the older `torch/distributed/_tensor` layout):
//! - forward, `_log_softmax`: `shifted = x − max`, `exp(shifted)` summed, `result = shifted −
//!   log-sum-exp`, each an fp32 tensor of the local logits' size; `result` is what autograd
//!   saves (the engine's saved fp32 log-softmax, [`super::activations::output_bytes`]);
//! - backward, `_nll_loss_and_log_softmax_backward` fuses the NLL's and the log-softmax's
//!   backward: `grad_input = zeros_like(x)`, the target column set to −1, then `(grad_input +
//!   exp(x)) * grad_output` — three fp32 tensors of the logits' size (the zeros, `exp(x)` and
//!   their sum, then the sum and the product) beside the saved `result`.
//!
//! So at the start of the loss backward the rank holds the saved log-softmax and
//! [`BACKWARD_TRANSIENT_BYTES`] more per local logit, where PyTorch's own (unsharded)
//! `nll_loss_backward` + `_log_softmax_backward_data` hold two ([`UNFUSED_TRANSIENT_BYTES`]).
//! The forward holds less: the 16-bit logits `pred` (2 B), their fp32 copy (4), `shifted` (4)
//! and `exp` or `result` (4), 14 B against the backward's 4 + 12 = 16.
//!
//! Formulas, sources and what was checked: [activations.md](crate::docs::formulas::activations) §7.

use crate::scenario::{LossKernel, Scenario};

/// Bytes per local logit that PyTorch's unfused `cross_entropy` backward holds beside the
/// saved fp32 log-softmax: the NLL's input gradient and the log-softmax's, 4 B each.
pub const UNFUSED_TRANSIENT_BYTES: f64 = 8.0;

/// Bytes per local logit that the loss-parallel backward holds beside the saved fp32
/// log-softmax: three fp32 tensors (`grad_input`, `exp(x)`, their sum, then the sum and the
/// product), module docs.
pub const BACKWARD_TRANSIENT_BYTES: f64 = 12.0;

/// Whether the loss runs as DTensor loss parallel: PyTorch's `cross_entropy`
/// ([`LossKernel::Unfused`]) under torchtitan with tensor parallelism (`tp > 1`; torchtitan's
/// `loss_parallel_enabled` is `tp_enabled and enable_loss_parallel`).
pub fn applies(s: &Scenario) -> bool {
    s.training.framework().traits().dtensor_sp
        && s.parallel.tp > 1
        && s.training.loss_kernel() == LossKernel::Unfused
}

/// Bytes per local logit the unfused loss's backward holds beside its saved log-softmax:
/// [`BACKWARD_TRANSIENT_BYTES`] under loss parallel ([`applies`]), else
/// [`UNFUSED_TRANSIENT_BYTES`].
pub fn unfused_transient_bytes(s: &Scenario) -> f64 {
    if applies(s) {
        BACKWARD_TRANSIENT_BYTES
    } else {
        UNFUSED_TRANSIENT_BYTES
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::memory::activations::logits_transient_bytes;
    use crate::scenario::Framework;

    /// Llama 3 70B on torchtitan, TP 8 with SP, local batch 16 × 8192, as the public
    /// `torchtitan-h100-t4-10` run.
    pub(crate) fn llama70b_tp8(framework: Framework) -> Scenario {
        let mut s = crate::scenario::parse(
            r#"{
          "model": {"layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672,
                    "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192},
          "training": {"global_batch": 512, "micro_batch": 16, "precision": "bf16",
                       "recompute": "full", "flash_attention": true},
          "parallel": {"tp": 8, "pp": 1, "dp": 32, "sp": true, "zero_stage": 3},
          "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 256}
        }"#,
        )
        .unwrap();
        s.training.framework = Some(framework);
        s
    }

    #[test]
    fn torchtitan_tp8_holds_three_fp32_logit_copies_at_the_loss_backward() {
        // 16 × 8192 = 131,072 tokens × 128,256/8 = 16,032 local vocabulary columns
        // = 2,101,346,304 local logits; × 12 B = 25,216,155,648 B.
        let s = llama70b_tp8(Framework::Torchtitan);
        assert!(applies(&s));
        assert_eq!(logits_transient_bytes(&s), 25_216_155_648.0);
        // PyTorch FSDP without torchtitan's train step: the unsharded backward, × 8 B.
        let p = llama70b_tp8(Framework::Pytorch);
        assert!(!applies(&p));
        assert_eq!(logits_transient_bytes(&p), 16_810_770_432.0);
    }

    #[test]
    fn off_without_tensor_parallelism_or_with_another_kernel() {
        let mut s = llama70b_tp8(Framework::Torchtitan);
        s.training.loss_kernel = Some(LossKernel::Fused);
        assert!(!applies(&s));
        let mut s = llama70b_tp8(Framework::Torchtitan);
        s.parallel.tp = 1;
        s.parallel.sp = false;
        assert!(!applies(&s));
        assert_eq!(unfused_transient_bytes(&s), 8.0);
    }
}
