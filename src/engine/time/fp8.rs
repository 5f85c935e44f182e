//! FP8 recipes: how much faster a linear layer's GEMMs run than in bf16, including the
//! quantization (amax, scale, cast, Hopper's transposes) each recipe does.
//!
//! The recipe decides the real FP8 GEMM rate: FP8 linear time = bf16 GEMM time / speedup, with
//! the speedup measured with autocast (quantization included) — never the 2× of the peaks
//! (TransformerEngine `docs/features/low_precision_training/speedups.rst` @d0067d0da, 5B-model
//! layer GEMMs, h 4096, ffn 16384).

use super::compute::Generation;
use crate::scenario::Fp8Recipe;

/// GEMM-time speedup of FP8 over bf16 for the linear layers, quantization included, on
/// `gen` with `recipe`; `None` where the recipe does not run (MXFP8 needs Blackwell; FP8 needs
/// Hopper or newer).
///
/// - Hopper (TE on H200, autocast): delayed 1.69, current scaling (`tensorwise`) 1.57,
///   blockwise 1.41.
/// - Blackwell (TE on B300, autocast): delayed 1.61, current 1.41, MXFP8 1.44, blockwise 1.30.
/// - `rowwise` (torchao): not in TE's table. **[derived]** from torchao's end-to-end
///   Llama3-8B/8×H100 figures (pytorch/ao `docs/source/workflows/training.md`: tensorwise
///   +25.0 %, rowwise +10.1 % over bf16): with tensorwise's GEMM speedup 1.57, +25 % end to end
///   means the linear GEMMs are 55 % of the bf16 step, and +10.1 % then needs a rowwise GEMM
///   speedup of 1.20 (rowwise scales each row and column separately and ran a slower CUTLASS
///   kernel, pytorch/ao PR #2185). On Blackwell scaled by the current-scaling ratio 1.41/1.57.
pub fn gemm_speedup(gen: Generation, recipe: Fp8Recipe) -> Option<f64> {
    match (gen, recipe) {
        (Generation::Volta | Generation::Ampere, _) => None,
        (Generation::Hopper, Fp8Recipe::Delayed) => Some(1.69),
        (Generation::Hopper, Fp8Recipe::Tensorwise) => Some(1.57),
        (Generation::Hopper, Fp8Recipe::Blockwise) => Some(1.41),
        (Generation::Hopper, Fp8Recipe::Rowwise) => Some(ROWWISE_HOPPER),
        (Generation::Hopper, Fp8Recipe::Mxfp8) => None,
        (Generation::Blackwell, Fp8Recipe::Delayed) => Some(1.61),
        (Generation::Blackwell, Fp8Recipe::Tensorwise) => Some(1.41),
        (Generation::Blackwell, Fp8Recipe::Blockwise) => Some(1.30),
        (Generation::Blackwell, Fp8Recipe::Mxfp8) => Some(1.44),
        (Generation::Blackwell, Fp8Recipe::Rowwise) => Some(ROWWISE_HOPPER * 1.41 / 1.57),
    }
}

/// torchao rowwise GEMM speedup on Hopper **[derived]** (see [`gemm_speedup`]).
pub const ROWWISE_HOPPER: f64 = 1.20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rowwise_is_slowest_and_mxfp8_needs_blackwell() {
        // The rowwise derivation: GEMM share f from tensorwise's +25 %, then rowwise's speedup.
        let f = (1.0 - 1.0 / 1.25) / (1.0 - 1.0 / 1.57);
        let s = f / (1.0 / 1.101 - (1.0 - f));
        assert!((s - ROWWISE_HOPPER).abs() < 0.02, "{s}");
        for g in [Generation::Hopper, Generation::Blackwell] {
            let r = gemm_speedup(g, Fp8Recipe::Rowwise).unwrap();
            for recipe in [
                Fp8Recipe::Delayed,
                Fp8Recipe::Tensorwise,
                Fp8Recipe::Blockwise,
            ] {
                assert!(gemm_speedup(g, recipe).unwrap() > r);
            }
        }
        assert_eq!(gemm_speedup(Generation::Hopper, Fp8Recipe::Mxfp8), None);
        assert_eq!(gemm_speedup(Generation::Ampere, Fp8Recipe::Delayed), None);
        assert_eq!(
            gemm_speedup(Generation::Blackwell, Fp8Recipe::Mxfp8),
            Some(1.44)
        );
    }
}
