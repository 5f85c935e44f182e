//! The attention core (scores, softmax, weighted sum) of one layer, one micro-batch, one GPU.

use super::inputs::Inputs;

/// Fused softmax (+ mask + dropout) traffic per attention score element in the forward pass
/// without flash attention, in activation elements: read and write the scores (2), dropout
/// read/write (2) and its 1-byte mask (≈ 0.5 element) (Korthikanti et al. 2022 §4.1 lists the
/// same tensors: softmax output, dropout mask and output).
pub const SOFTMAX_ELEMENTS: f64 = 4.5;

/// Forward and backward time of the attention core, seconds. With flash attention the causal
/// kernel skips the masked half of the score matrix; without it, two batched GEMMs and the
/// memory-bound softmax.
pub(crate) fn core_s(x: &Inputs) -> (f64, f64) {
    let (d, dev, b) = (&x.d, &x.dev, x.b);
    let heads_local = d.heads / x.tf;
    let sq = d.s / x.cf;
    if x.s.training.flash_attention {
        let elements = 0.5 * b * heads_local * sq * d.s;
        dev.flash_s(elements, d.d_h)
    } else {
        let batch = b * heads_local;
        let mm = dev.bmm16_s(batch, sq, d.d_h, d.s); // QKᵀ
        let mm2 = dev.bmm16_s(batch, sq, d.s, d.d_h); // attention·V
        let scores = batch * sq * d.s;
        let sm = dev.memory_s(SOFTMAX_ELEMENTS * x.ab * scores, 2.0);
        (mm + mm2 + sm, 2.0 * (mm + mm2) + 2.0 * sm)
    }
}
