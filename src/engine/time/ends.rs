//! The pipeline's ends: the embedding on the first stage and the output layer with the loss on
//! the last, per micro-batch.
//!
//! Formulas, sources and what was checked: [compute.md](crate::docs::formulas::compute) §3.

use super::inputs::Inputs;
use super::layer_comm::TpCosts;

/// Cross-entropy memory traffic per logit over forward and backward, bytes (PyTorch's unfused
/// `cross_entropy` on upcast logits, vocab-parallel: each rank its `V/t` columns). Tally:
/// forward read the 16-bit logits 2 + write the fp32 upcast 4, max and sum-of-exponentials reads
/// 4 + 4, log-softmax write 4 and read 4 for the target gather; backward read 4, gradient write
/// 4, cast back read 4 + write 2, gradient of the upcast read 4 ≈ 40. Half is charged to each
/// pass. Megatron's fused vocab-parallel cross-entropy moves less; this is the conservative side.
pub const CE_BYTES_PER_LOGIT: f64 = 40.0;
/// Kernels of the loss over both passes: upcast, max, sum-exp, log-softmax, gather forward, and
/// their backward counterparts (one launch each, PyTorch eager).
pub const CE_KERNELS: f64 = 10.0;
/// fp32 bytes per embedding-table element touched in the embedding backward: the dense
/// gradient of the (vocab-parallel) table `V·h/t` is written in fp32 main-grad precision
/// (`memory::states`: 4 B gradients). Megatron-LM's passes: [`embedding_grad_bytes`].
pub const EMBEDDING_GRAD_BYTES: f64 = 4.0;

/// Per-micro-batch times of the embedding and the output layer + loss, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EndCosts {
    /// Embedding lookup forward (+ its TP all-reduce).
    pub emb_fwd: f64,
    /// Embedding backward: gradient scatter into the fp32 table gradient.
    pub emb_bwd: f64,
    /// Logit GEMM + loss forward (+ TP collective).
    pub out_fwd: f64,
    /// Logit GEMMs + loss backward (+ TP collective).
    pub out_bwd: f64,
    /// Part of `out_bwd`: the output layer's weight-gradient GEMM.
    pub out_wgrad: f64,
}

impl EndCosts {
    /// The end costs of `x`; `tp` gives the TP activation collective of one layer.
    pub(crate) fn of(x: &Inputs, tp: &TpCosts) -> EndCosts {
        let (dev, d, tok, tf, ab) = (&x.dev, &x.d, x.tok, x.tf, x.ab);
        let tp_on = x.t > 1;
        let emb_fwd = dev.memory_s(2.0 * tok * d.h * ab, 1.0)
            + if tp_on {
                x.groups.tp.all_reduce_s(tp.msg)
            } else {
                0.0
            };
        let emb_bwd = dev.memory_s(
            2.0 * tok * d.h * ab + embedding_grad_bytes(x) * d.v * d.h / tf,
            2.0,
        );
        // The output layer stays 16-bit under every FP8 recipe (`Device::gemm16_s`).
        let logit_gemm = dev.gemm16_s(tok, d.h, d.v / tf);
        let ce = dev.memory_s(CE_BYTES_PER_LOGIT * tok * d.v / tf, CE_KERNELS);
        let coll = if tp_on { tp.coll_16 } else { 0.0 };
        EndCosts {
            emb_fwd,
            emb_bwd,
            out_fwd: logit_gemm + 0.5 * ce + coll,
            out_bwd: 2.0 * logit_gemm + 0.5 * ce + coll,
            out_wgrad: logit_gemm,
        }
    }
}

/// HBM bytes per embedding-table element (`V·h/t` on the stage holding the embedding) of one
/// micro-batch's embedding backward. Megatron-LM: the table's gradient goes through autograd,
/// not a fused weight-gradient GEMM: `F.embedding`'s dense backward zero-fills a gradient of the
/// table's size in the weight's dtype and scatters the rows into it, then the data-parallel
/// wrapper's backward hook adds it into the main gradient, `param.main_grad.add_(param.grad)`,
/// every micro-batch (`megatron/core/tensor_parallel/layers.py` l. 257-260 and
/// `distributed/distributed_data_parallel.py` l. 377 at core_v0.10.0; l. 415 at 7094270):
/// `2·e + 2·g` (write and read the 16-bit gradient, read and write the main gradient), 12 B in
/// bf16 with fp32 main gradients. Other stacks: [`EMBEDDING_GRAD_BYTES`].
pub(crate) fn embedding_grad_bytes(x: &Inputs) -> f64 {
    if x.stack.fw.main_grad_hooks {
        2.0 * x.ab + 2.0 * x.main_grad_bytes
    } else {
        EMBEDDING_GRAD_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Llama-like model (vocab 32000, hidden 4096) on one H100, bf16, under `framework`.
    fn scenario(framework: &str, grad_reduce_in_fp32: bool) -> crate::scenario::Scenario {
        crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "7B", "layers": 32, "hidden": 4096, "heads": 32,
                 "ffn_hidden": 11008, "ffn_act": "swiglu", "vocab": 32000, "seq_len": 4096}},
              "training": {{"global_batch": 8, "micro_batch": 1, "precision": "bf16",
                 "recompute": "none", "framework": "{framework}",
                 "grad_reduce_in_fp32": {grad_reduce_in_fp32}}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 1}},
              "cluster": {{"gpu": "h100-sxm5-80gb", "num_gpus": 1}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn megatron_embedding_gradient_passes_by_hand() {
        let bytes = |fw: &str, fp32: bool| {
            super::super::inputs::with_inputs(&scenario(fw, fp32), embedding_grad_bytes)
        };
        // Megatron, bf16 weights, fp32 main gradients: zero-fill 2 + read 2 of the autograd
        // gradient, read 4 + write 4 of the main gradient = 12 B per table element; with 16-bit
        // main gradients 2 + 2 + 2 + 2 = 8 B; other stacks the fp32 write alone, 4 B.
        assert_eq!(bytes("megatron", true), 12.0);
        assert_eq!(bytes("megatron", false), 8.0);
        assert_eq!(bytes("torchtitan", true), EMBEDDING_GRAD_BYTES);
        // The table is 32000 × 4096 = 131,072,000 elements: Megatron's backward moves
        // 8 B × 131,072,000 = 1,048,576,000 B more than the fp32 write alone, at
        // 3350 GB/s × 0.8 = 2.68e12 B/s 391.259 µs more per micro-batch.
        let extra = super::super::inputs::with_inputs(&scenario("megatron", true), |x| {
            let n = x.d.v * x.d.h / x.tf;
            x.dev.memory_s(embedding_grad_bytes(x) * n, 2.0)
                - x.dev.memory_s(EMBEDDING_GRAD_BYTES * n, 2.0)
        });
        assert!((extra - 1_048_576_000.0 / 2.68e12).abs() < 1e-12, "{extra}");
    }
}
