//! The pipeline's ends: the embedding on the first stage and the output layer with the loss on
//! the last, per micro-batch.

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
/// (`memory::states`: 4 B gradients).
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
            2.0 * tok * d.h * ab + EMBEDDING_GRAD_BYTES * d.v * d.h / tf,
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
