//! FP8 recipes: the rate of the FP8 GEMM kernels and the quantization work each recipe adds.
//!
//! An FP8 linear layer costs its GEMMs at the FP8 kernel rate plus the casts that feed them
//! (TransformerEngine `pytorch/module/linear.py` @d0067d0: per micro-batch the input is
//! quantized for the forward GEMM and the output gradient for the backward GEMMs, each by one
//! fused cast kernel that also records the amax; weights are quantized once per step, since
//! Megatron passes `is_first_microbatch`, and are left out here). The casts are memory-bound:
//! priced as bytes over the HBM bandwidth, they explain TE's own autocast overhead (its 5B-model
//! GEMM benchmark on H200: 2.2 ms of quantization per layer for ≈ 8.9 GB of casts,
//! `docs/examples/gemm_profiling`), and they are why the same recipe gains less on a GPU with
//! less HBM bandwidth per FLOP (H100 against H200) and on small GEMMs.
//!
//! Which GEMMs stay 16-bit: the output layer (`Device::gemm16_s`), the router, attention's core.
//!
//! Formulas, sources and what was checked: [fp8.md](crate::docs::formulas::fp8) §1.

use super::generation::Generation;
use crate::engine::framework::LayerLibrary;
use crate::scenario::{Fp8Recipe, GpuSpec, Precision};

/// How one FP8 recipe runs linear layers on one GPU generation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fp8Gemms {
    /// FP8 kernels plus explicit casts (Hopper).
    Casts {
        /// The recipe's GEMM kernel rate as a multiple of the per-tensor-scaled FP8 kernel
        /// (`peak_fp8 · e_gemm_fp8`): 1 for per-tensor scaling.
        kernel: f64,
        /// HBM bytes of quantization per element of a GEMM's activation input (forward) and of
        /// its output gradient (backward).
        cast_bytes: f64,
    },
    /// The recipe's speedup over bf16 as TE measured it with autocast, quantization included
    /// (Blackwell, measured on B300 itself).
    Autocast {
        /// GEMM time in bf16 over GEMM time in FP8.
        speedup: f64,
    },
    /// torchao's rowwise recipe on Hopper: the bf16 GEMM's time over torchao's measured
    /// speedup at the GEMM's shape ([`super::rowwise::speedup`]), quantization included.
    RowwiseTable,
}

/// Cast bytes per element of delayed scaling on Hopper: one fused cast-transpose reads bf16 (2)
/// and writes both FP8 layouts (1 + 1); TE `performance_considerations.rst` l. 99-110.
pub const DELAYED_CAST_BYTES: f64 = 4.0;
/// Current (per-tensor) scaling: the same plus one read for the amax (2).
pub const CURRENT_CAST_BYTES: f64 = 6.0;
/// Blockwise scaling: both layouts with their block scales in the cast pass.
pub const BLOCKWISE_CAST_BYTES: f64 = 4.0;
/// TE's autocast speedup over bf16 on an H200, blockwise scaling
/// (`docs/features/low_precision_training/speedups.rst` @d0067d0da).
pub const TE_H200_BLOCKWISE_AUTOCAST: f64 = 1.41;
/// The same, current scaling.
pub const TE_H200_CURRENT_AUTOCAST: f64 = 1.57;
/// TE's autocast speedup over bf16 on a B300, delayed scaling (the same table).
pub const TE_B300_DELAYED_AUTOCAST: f64 = 1.61;
/// The same, current scaling.
pub const TE_B300_CURRENT_AUTOCAST: f64 = 1.41;
/// The same, blockwise scaling.
pub const TE_B300_BLOCKWISE_AUTOCAST: f64 = 1.30;
/// The same, MXFP8.
pub const TE_B300_MXFP8_AUTOCAST: f64 = 1.44;

/// The FP8 linear-layer costs of `recipe` on `gen`; `None` where the recipe does not run
/// (MXFP8 needs Blackwell; FP8 needs Hopper or newer).
///
/// **Hopper: kernels plus casts.** TE's autocast table was measured on an H200; H100 has 30 %
/// less HBM bandwidth per FLOP, so the casts are priced by their bytes here rather than taken
/// from the table, which the model then reproduces on the H200 (a test: within 8 %).
///
/// Kernel rates (per-tensor scaling is the MAMF-measured FP8 efficiency of
/// [`Efficiency::gemm_fp8`]):
/// - `delayed`, `tensorwise` (current scaling): per-tensor scaling, 1.
/// - `blockwise` (1×128 / 128×128 scales): **[derived]** from TE's autocast speedups on H200,
///   blockwise ÷ current scaling: 1.41/1.57 = 0.90
///   (`docs/features/low_precision_training/speedups.rst` @d0067d0da).
/// - `rowwise` (torchao): not a kernel rate but torchao's measured H100 speedup of a rowwise
///   float8 linear over bf16 by shape, quantization included ([`super::rowwise`]): below 1
///   for any K or N ≤ 2048, so a TP-sharded linear can run slower than in bf16.
///
/// Cast bytes per element (read bf16 = 2, write FP8 = 1 per layout):
/// - `delayed`: 4 on Hopper — one fused cast-transpose writes the row-major and the transposed
///   copy (Hopper's FP8 GEMM cannot read a column-major operand, TE
///   `performance_considerations.rst` l. 99-110), the amax recorded in the same pass and the
///   scale taken from the amax history.
/// - `tensorwise` (current scaling): the same plus a pass that reads the tensor for its amax
///   before casting it: 6.
/// - `blockwise`: both layouts, each with its own block scales computed in the cast pass: 4.
/// - `rowwise` on Hopper: in torchao's table ([`super::rowwise`]).
///
/// **Blackwell: TE's autocast speedups measured on B300** (the same table): delayed 1.61,
/// current scaling 1.41, MXFP8 1.44, blockwise 1.30; rowwise tensorwise's ×
/// [`ROWWISE_VS_TENSORWISE`] (no Blackwell table for torchao's rowwise recipe). Bytes of casts
/// alone (3 B/element without Hopper's transposes) would predict 1.7-1.85: Blackwell's
/// block-scaled quantization kernels run below the HBM bandwidth, which the measured figures
/// include.
pub fn gemms(gen: Generation, recipe: Fp8Recipe) -> Option<Fp8Gemms> {
    let casts = |kernel, cast_bytes| Some(Fp8Gemms::Casts { kernel, cast_bytes });
    let autocast = |speedup| Some(Fp8Gemms::Autocast { speedup });
    match (gen, recipe) {
        (Generation::Volta | Generation::Ampere, _) => None,
        (Generation::Hopper, Fp8Recipe::Delayed) => casts(1.0, DELAYED_CAST_BYTES),
        (Generation::Hopper, Fp8Recipe::Tensorwise) => casts(1.0, CURRENT_CAST_BYTES),
        (Generation::Hopper, Fp8Recipe::Blockwise) => casts(
            TE_H200_BLOCKWISE_AUTOCAST / TE_H200_CURRENT_AUTOCAST,
            BLOCKWISE_CAST_BYTES,
        ),
        (Generation::Hopper, Fp8Recipe::Rowwise) => Some(Fp8Gemms::RowwiseTable),
        (Generation::Hopper, Fp8Recipe::Mxfp8) => None,
        (Generation::Blackwell, Fp8Recipe::Delayed) => autocast(TE_B300_DELAYED_AUTOCAST),
        (Generation::Blackwell, Fp8Recipe::Tensorwise) => autocast(TE_B300_CURRENT_AUTOCAST),
        (Generation::Blackwell, Fp8Recipe::Blockwise) => autocast(TE_B300_BLOCKWISE_AUTOCAST),
        (Generation::Blackwell, Fp8Recipe::Mxfp8) => autocast(TE_B300_MXFP8_AUTOCAST),
        (Generation::Blackwell, Fp8Recipe::Rowwise) => {
            autocast(TE_B300_CURRENT_AUTOCAST * ROWWISE_VS_TENSORWISE)
        }
    }
}

/// NVFP4 over bf16 on TE's 5B-model GEMMs on a B300, quantization included ("autocast"):
/// 2.03× (TransformerEngine `docs/features/low_precision_training/speedups.rst` @d0067d0da).
pub const TE_B300_NVFP4_AUTOCAST: f64 = 2.03;
/// The same with inputs already quantized ("pre-quantized"), the kernels alone: 3.55× (same).
pub const TE_B300_NVFP4_KERNELS: f64 = 3.55;
/// A B300's dense FP4 peak over its bf16 peak: 12600 / 2250 TFLOP/s (HGX B300; ml-engineering
/// `compute/accelerator/README.md` TFLOPS table, as in `PHYSICS.md` §e.1).
pub const B300_FP4_OVER_BF16: f64 = 12600.0 / 2250.0;

/// NVFP4's linear-layer GEMMs on `gpu` as a speedup over its bf16 GEMMs, quantization included
/// (all 12 GEMMs of a layer, forward, data and weight gradients, in NVFP4 as TE's recipe runs
/// them), **[derived]** from TE's B300 measurements; `None` without an FP4 peak:
/// - the kernels: 3.55× bf16 on a part whose FP4 peak is 5.6× its bf16 peak, so NVFP4 GEMMs
///   reach `3.55/5.6` = 63 % of the peak ratio; another part reaches the same share of its own
///   ratio `fp4/bf16`;
/// - the quantization (two-level scales, the random Hadamard transform of the weight-gradient
///   inputs, both layouts of every operand): `1/2.03 − 1/3.55` = 0.211 of the bf16 GEMM time on
///   the B300, work for the CUDA cores and HBM, which all Blackwell parts have alike, so it is
///   kept as that share;
/// - so `speedup = 1 / (1/(0.63·fp4/bf16) + 0.211)`: B200 and GB200 (FP4 = 4 × bf16) 1.65×,
///   GB300 (6 ×) 2.11×, B300 2.03× by construction.
pub fn nvfp4_speedup(gpu: &GpuSpec) -> Option<f64> {
    let p = gpu.peak_tflops;
    let bf16 = p.bf16.or(p.fp16)?;
    let ratio = p.fp4? / bf16;
    if !(ratio > 0.0 && ratio.is_finite()) {
        return None;
    }
    let share = TE_B300_NVFP4_KERNELS / B300_FP4_OVER_BF16;
    let quantize = 1.0 / TE_B300_NVFP4_AUTOCAST - 1.0 / TE_B300_NVFP4_KERNELS;
    Some(1.0 / (1.0 / (share * ratio) + quantize))
}

/// Bytes per NVFP4 element with its block scale: 4 bits plus one E4M3 byte per 16 elements
/// (arXiv 2509.25149 §2).
pub const NVFP4_BYTES: f64 = 0.5 + 1.0 / 16.0;

/// torchao rowwise GEMM rate relative to tensorwise on Blackwell **[derived]** from torchao's
/// end-to-end Llama3-8B/8×H100 figures (pytorch/ao `docs/source/workflows/training.md`:
/// tensorwise +25.0 %, rowwise +10.1 % over bf16): tensorwise's TE speedup 1.57 and +25 % end
/// to end put the linear GEMMs at 55 % of the bf16 step, so +10.1 % needs a rowwise speedup of
/// 1.20, i.e. 1.20/1.57 = 0.76 of the tensorwise kernel. Hopper reads torchao's table instead
/// ([`super::rowwise`]).
pub const ROWWISE_VS_TENSORWISE: f64 = 1.20 / 1.57;

/// Bytes per element that the sequence-parallel all-gathers of an FP8 linear layer move:
/// `(forward, backward)`, the layer's input forward and its output gradient backward; `ab`
/// (16-bit) where the stack gathers first and quantizes after. The reduce-scatters carry GEMM
/// outputs and stay 16-bit in every stack.
/// - Transformer Engine (`framework` megatron) quantizes before it gathers, both ways:
///   `module/linear.py` forward `gather_along_first_dim(inputmat, tp_group, quantizer=…)`, and
///   `module/base.py` `grad_output_preprocess` ("FP8 with all-gather": quantize, then gather),
///   with the FP8, MXFP8 and blockwise gathers of `distributed.py` (`_all_gather_fp8`,
///   `_all_gather_mxfp8`, …), NVIDIA/TransformerEngine @d0067d0. One byte per element plus the
///   scales: per-tensor none, MXFP8 one E8M0 byte per 32 elements, blockwise one fp32 per 128.
/// - torchtitan (torchao `Float8Linear`, tensorwise): "float8 all-gather … for TP (by default
///   for `Float8Linear`)" (pytorch/torchtitan `docs/float8.md`): both ways. Forward,
///   `PrepareFloat8ModuleInput` and `Float8ColwiseParallel._prepare_input_fn` cast the input
///   before they redistribute it; backward, `Float8RowwiseParallel._prepare_output_fn` wraps its
///   reduce-scattered output in `NoopFwToFloat8BwDynamic`, which casts the incoming gradient
///   before it reaches the reduce-scatter's backward, the all-gather (pytorch/ao
///   `torchao/float8/float8_tensor_parallel.py` @6243040, the torchao of torchtitan's June 2025
///   runs). torchtitan uses these classes only for tensorwise (`parallelize_llama.py`
///   `enable_float8_tensorwise_tp` @820504e); rowwise gathers bf16 both ways.
/// - NVFP4 under Transformer Engine: the same, 4-bit values with their block scales
///   ([`NVFP4_BYTES`]; `distributed.py` `_all_gather_nvfp4`, same commit).
/// - Everything else, rowwise scaling, and runs without FP8: 16-bit both ways.
pub fn tp_gather_bytes(
    layers: LayerLibrary,
    precision: Precision,
    recipe: Option<Fp8Recipe>,
    ab: f64,
) -> (f64, f64) {
    use LayerLibrary::{Torchao, TransformerEngine};
    if precision == Precision::Nvfp4 && layers == TransformerEngine {
        return (NVFP4_BYTES, NVFP4_BYTES);
    }
    match (layers, recipe) {
        (TransformerEngine, Some(Fp8Recipe::Delayed | Fp8Recipe::Tensorwise)) => (1.0, 1.0),
        (TransformerEngine, Some(Fp8Recipe::Mxfp8)) => (MXFP8_BYTES, MXFP8_BYTES),
        (TransformerEngine, Some(Fp8Recipe::Blockwise)) => (BLOCKWISE_BYTES, BLOCKWISE_BYTES),
        (Torchao, Some(Fp8Recipe::Tensorwise)) => (1.0, 1.0),
        _ => (ab, ab),
    }
}

/// Bytes per MXFP8 element with its shared exponent (one byte per 32 elements, OCP MX v1.0).
pub const MXFP8_BYTES: f64 = 1.0 + 1.0 / 32.0;
/// Bytes per blockwise-scaled FP8 element of a 1×128 block with its fp32 scale.
pub const BLOCKWISE_BYTES: f64 = 1.0 + 4.0 / 128.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::compute::Device;
    use crate::scenario::{gpu_preset, Precision};

    /// One layer of TE's 5B-model GEMM benchmark (`docs/examples/gemm_profiling`: M = 15 872
    /// tokens, h 4096, ffn 16384; QKV, projection, FC1, FC2, each forward, dgrad and wgrad),
    /// bf16 time over FP8 time on `gpu`.
    fn te_5b_speedup(gpu: &str, recipe: Fp8Recipe) -> f64 {
        let spec = gpu_preset(gpu).unwrap().spec;
        let bf = Device::new(&spec, Precision::Bf16, None);
        let f8 = Device::new(&spec, Precision::Fp8, Some(recipe));
        let m = 15872.0;
        let shapes = [
            (4096.0, 12288.0),
            (4096.0, 4096.0),
            (4096.0, 16384.0),
            (16384.0, 4096.0),
        ];
        let layer =
            |d: &Device| -> f64 { shapes.iter().map(|&(k, n)| 3.0 * d.gemm_s(m, k, n)).sum() };
        layer(&bf) / layer(&f8)
    }

    #[test]
    fn te_autocast_speedups_reproduced_within_8_percent() {
        // TE speedups.rst (H200, autocast, quantization included): delayed 1.69, current 1.57,
        // blockwise 1.41; predicted 1.633, 1.584, 1.477 with the FP8 kernels' own K0
        // (`compute::fp8_k0`; 1.678, 1.626, 1.518 with the 16-bit K0), H100 1.575, 1.511, 1.428.
        // The H200 SXM preset stands in for the benchmark's H200.
        for (recipe, te) in [
            (Fp8Recipe::Delayed, 1.69),
            (Fp8Recipe::Tensorwise, 1.57),
            (Fp8Recipe::Blockwise, 1.41),
        ] {
            let got = te_5b_speedup("h200-sxm-141gb", recipe);
            assert!(
                (got / te - 1.0).abs() < 0.08,
                "{recipe:?}: {got:.3} vs {te}"
            );
        }
        // H100 has less HBM bandwidth per FLOP: the same recipe gains less there.
        assert!(
            te_5b_speedup("h100-sxm5-80gb", Fp8Recipe::Delayed)
                < te_5b_speedup("h200-sxm-141gb", Fp8Recipe::Delayed)
        );
    }

    #[test]
    fn transformer_engine_gathers_quantized_activations() {
        use crate::scenario::Framework::{self, *};
        let both = |f: Framework, r| tp_gather_bytes(f.traits().layers, Precision::Fp8, r, 2.0);
        assert_eq!(both(Megatron, Some(Fp8Recipe::Delayed)), (1.0, 1.0));
        assert_eq!(both(Megatron, Some(Fp8Recipe::Mxfp8)), (1.03125, 1.03125));
        assert_eq!(
            both(Megatron, Some(Fp8Recipe::Blockwise)),
            (1.03125, 1.03125)
        );
        assert_eq!(both(Torchtitan, Some(Fp8Recipe::Tensorwise)), (1.0, 1.0));
        assert_eq!(both(Torchtitan, Some(Fp8Recipe::Rowwise)), (2.0, 2.0));
        assert_eq!(both(Megatron, None), (2.0, 2.0));
        assert_eq!(both(Jax, Some(Fp8Recipe::Delayed)), (2.0, 2.0));
        // NVFP4: 0.5 B + one E4M3 scale per 16 elements under TE, 16-bit elsewhere.
        let fp4 = |f: Framework| tp_gather_bytes(f.traits().layers, Precision::Nvfp4, None, 2.0);
        assert_eq!(fp4(Megatron), (0.5625, 0.5625));
        assert_eq!(fp4(Torchtitan), (2.0, 2.0));
    }

    #[test]
    fn nvfp4_speedups_by_hand() {
        // share = 3.55 / (12600/2250) = 0.633929; quantize = 1/2.03 − 1/3.55 = 0.210928.
        // B200 (9000/2250 = 4) and GB200 (10000/2500 = 4): 1/(1/2.535714 + 0.210928) = 1.6519.
        // GB300 (15000/2500 = 6): 1/(1/3.803571 + 0.210928) = 2.1103.
        let s = |id: &str| nvfp4_speedup(&gpu_preset(id).unwrap().spec);
        for (id, want) in [
            ("b200-sxm-180gb", 1.6519),
            ("gb200", 1.6519),
            ("gb300", 2.1103),
        ] {
            let got = s(id).unwrap();
            assert!((got - want).abs() < 1e-3, "{id}: {got}");
        }
        // A part with B300's ratio reproduces TE's measured 2.03× exactly.
        let mut b300 = gpu_preset("b200-sxm-180gb").unwrap().spec;
        b300.peak_tflops.fp4 = Some(12600.0);
        assert!((nvfp4_speedup(&b300).unwrap() - 2.03).abs() < 1e-12);
        // No FP4 tensor cores, no NVFP4.
        assert_eq!(s("h100-sxm5-80gb"), None);
        assert_eq!(s("a100-sxm4-80gb"), None);
    }

    #[test]
    fn nvfp4_gemms_run_at_the_derived_speedup() {
        let spec = gpu_preset("gb200").unwrap().spec;
        let bf = Device::new(&spec, Precision::Bf16, None);
        let f4 = Device::new(&spec, Precision::Nvfp4, None);
        assert!((f4.gemm_flops / bf.gemm_flops - nvfp4_speedup(&spec).unwrap()).abs() < 1e-9);
        assert_eq!(f4.gemm_bytes, NVFP4_BYTES);
        // The 16-bit GEMMs (output layer, router, attention) keep their rate.
        assert_eq!(f4.gemm16_flops, bf.gemm16_flops);
    }

    #[test]
    fn recipes_by_generation() {
        assert_eq!(gemms(Generation::Hopper, Fp8Recipe::Mxfp8), None);
        assert_eq!(gemms(Generation::Ampere, Fp8Recipe::Delayed), None);
        let h = |r| match gemms(Generation::Hopper, r) {
            Some(Fp8Gemms::Casts { kernel, cast_bytes }) => (kernel, cast_bytes),
            other => panic!("{other:?}"),
        };
        // Current scaling casts more than delayed; blockwise runs a slower kernel; rowwise
        // reads torchao's table.
        assert!(h(Fp8Recipe::Tensorwise).1 > h(Fp8Recipe::Delayed).1);
        assert!(h(Fp8Recipe::Blockwise).0 < h(Fp8Recipe::Delayed).0);
        assert_eq!(
            gemms(Generation::Hopper, Fp8Recipe::Rowwise),
            Some(Fp8Gemms::RowwiseTable)
        );
        assert_eq!(
            gemms(Generation::Blackwell, Fp8Recipe::Mxfp8),
            Some(Fp8Gemms::Autocast { speedup: 1.44 })
        );
        // Per-tensor FP8 kernels: H100 2·0.63/0.70 = 1.80× the bf16 rate (FP8 peaks are twice
        // the 16-bit ones).
        let e = crate::engine::time::compute::Efficiency::of(Generation::Hopper);
        assert!((2.0 * e.gemm_fp8 / e.gemm - 1.8).abs() < 1e-12);
    }
}
