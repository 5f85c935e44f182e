//! torchao's float8 training with row-wise scales on Hopper, priced from torchao's own H100
//! microbenchmark of a float8 linear against bf16, by the forward GEMM's shape.
//!
//! What the recipe runs (pytorch/ao @6243040, 2025-06-13, the torchao of the held-out torchtitan
//! June 2025 runs; `torchao/float8/config.py` `Float8LinearConfig.from_recipe_name("rowwise")`,
//! `float8_linear.py` `matmul_with_hp_or_float8_args`): input, weight and output gradient are
//! each scaled per row (`ScalingGranularity.AXISWISE`, power-of-two scales); the forward saves
//! the bf16 input and weight, and the backward quantizes again along the other axis for each
//! GEMM (the output gradient along dim −1 for the input gradient and along dim 0 for the weight
//! gradient, the input along dim 0, the weight along dim −1): four activation casts per linear
//! and micro-batch, two of them reductions down the token dimension. The GEMMs are
//! `torch._scaled_mm` with row-wise scales, a CUTLASS kernel in PyTorch, where per-tensor
//! scaling calls cuBLAS ("row-wise mode is substantially slower than tensor-wise mode", "a long
//! tail going down to 50 %", pytorch/pytorch #147971); the two backward GEMMs run without fast
//! accumulation (`gemm_config_grad_input`, `gemm_config_grad_weight` default
//! `use_fast_accum=False`).
//!
//! What it costs, as measured: torchao's table "Speedup observed vs bfloat16 for LayerNorm ->
//! Linear -> Sigmoid fwd + bwd by forward M, K, N, dynamic row-wise scaling, PyTorch version
//! 2.8.0a0+git48807d5" on an H100 (pytorch/ao `docs/static/fp8-rowwise-perf.png`, added to
//! `torchao/float8/README.md` "Rowwise scaling" by fdddb2cfa, 2025-06-06;
//! `benchmarks/float8/float8_roofline.py`). It covers M, K, N from 1024 to 32768 and is below 1
//! for every shape with K or N ≤ 2048 (0.38-0.87), reaching 1.2-1.7 only when M, K and N are all
//! ≥ 8192. The engine divides the linear's bf16 time by the table's speedup at its shape:
//! - interpolated linearly in `log₂` of each of M, K and N;
//! - clamped to the table's range: larger M (TP-sharded micro-batches of 100k+ tokens) would
//!   only gain, smaller K or N (a GQA K or V projection split by TP, 128 columns) only lose, so
//!   the clamp under-prices the loss of the smallest linears;
//! - the block's LayerNorm and sigmoid (whose casts fuse into the block) are taken with the
//!   linear: the ratio is applied to the GEMMs' time alone.
//!
//! torchtitan's issue #1207 ("float8 rowwise vanilla TP low throughput", 2025-05-20) found the
//! same in training: Llama 3 8B on 4 H100s (FSDP 2, TP 2) ran 5189 tokens/s rowwise against
//! 5378 bf16, the K and V projections "so small that float8 rowwise conversion resulted in
//! significant slowdown (approx 40 %)" (pytorch/ao PR #2410, 2025-06-18, which then filters such
//! linears out by shape; the June 2025 runs predate it).

/// Table axes: M, K and N from 2¹⁰ to 2¹⁵.
const LOG2_MIN: f64 = 10.0;
/// Points per axis.
const POINTS: usize = 6;

/// torchao's measured rowwise speedups over bf16, `[M][K][N]` with each axis
/// 1024, 2048, 4096, 8192, 16384, 32768 (pytorch/ao `docs/static/fp8-rowwise-perf.png`
/// @fdddb2cfa, transcribed).
const SPEEDUP: [[[f64; POINTS]; POINTS]; POINTS] = [
    [
        [0.42, 0.42, 0.50, 0.51, 0.56, 0.56],
        [0.40, 0.38, 0.42, 0.50, 0.50, 0.56],
        [0.48, 0.43, 0.46, 0.53, 0.57, 0.60],
        [0.45, 0.48, 0.54, 0.62, 0.60, 0.62],
        [0.46, 0.48, 0.54, 0.60, 0.60, 0.61],
        [0.45, 0.50, 0.55, 0.60, 0.62, 0.65],
    ],
    [
        [0.43, 0.43, 0.48, 0.55, 0.62, 0.65],
        [0.38, 0.45, 0.58, 0.65, 0.72, 0.75],
        [0.43, 0.50, 0.68, 0.78, 0.81, 0.82],
        [0.46, 0.58, 0.73, 0.82, 0.87, 0.89],
        [0.48, 0.62, 0.75, 0.83, 0.84, 0.85],
        [0.50, 0.64, 0.75, 0.84, 0.83, 0.99],
    ],
    [
        [0.45, 0.47, 0.57, 0.66, 0.72, 0.76],
        [0.43, 0.53, 0.70, 0.83, 0.90, 0.91],
        [0.44, 0.64, 0.84, 1.01, 1.01, 1.04],
        [0.53, 0.72, 0.91, 1.01, 1.07, 1.13],
        [0.53, 0.74, 0.92, 1.05, 1.10, 1.18],
        [0.54, 0.75, 0.93, 1.02, 1.17, 1.18],
    ],
    [
        [0.48, 0.52, 0.65, 0.77, 0.83, 0.84],
        [0.45, 0.64, 0.82, 1.01, 1.03, 1.06],
        [0.52, 0.76, 1.00, 1.13, 1.17, 1.19],
        [0.59, 0.85, 1.05, 1.20, 1.31, 1.41],
        [0.58, 0.82, 1.03, 1.22, 1.37, 1.40],
        [0.59, 0.82, 1.04, 1.30, 1.36, 1.46],
    ],
    [
        [0.48, 0.58, 0.73, 0.86, 0.85, 0.89],
        [0.51, 0.70, 0.90, 1.05, 1.07, 1.15],
        [0.57, 0.79, 1.02, 1.20, 1.26, 1.40],
        [0.61, 0.87, 1.08, 1.33, 1.39, 1.49],
        [0.59, 0.83, 1.07, 1.34, 1.42, 1.55],
        [0.60, 0.85, 1.16, 1.35, 1.48, 1.72],
    ],
    [
        [0.51, 0.62, 0.77, 0.87, 0.88, 0.94],
        [0.54, 0.73, 0.91, 1.08, 1.14, 1.27],
        [0.59, 0.81, 1.04, 1.28, 1.35, 1.49],
        [0.63, 0.87, 1.11, 1.41, 1.50, 1.62],
        [0.60, 0.83, 1.16, 1.39, 1.49, 1.73],
        [0.63, 0.93, 1.16, 1.48, 1.70, 1.52],
    ],
];

/// Position of `x` on a table axis: the lower index and the fraction towards the next, `log₂`
/// scale, clamped to the axis.
#[inline]
fn axis(x: f64) -> (usize, f64) {
    let top = (POINTS - 1) as f64;
    let p = if x > 0.0 && x.is_finite() {
        (x.log2() - LOG2_MIN).clamp(0.0, top)
    } else {
        0.0
    };
    let i = (p.floor() as usize).min(POINTS - 2);
    (i, p - i as f64)
}

/// torchao rowwise float8 speedup over bf16 of a linear whose forward GEMM is `[m×k]·[k×n]`
/// on an H100 (forward and backward, quantization included), interpolated in the measured
/// table (see the module docs). Allocation-free.
pub fn speedup(m: f64, k: f64, n: f64) -> f64 {
    let ((im, fm), (ik, fk), (in_, fnn)) = (axis(m), axis(k), axis(n));
    let mut s = 0.0;
    for (dm, wm) in [(0, 1.0 - fm), (1, fm)] {
        for (dk, wk) in [(0, 1.0 - fk), (1, fk)] {
            for (dn, wn) in [(0, 1.0 - fnn), (1, fnn)] {
                s += wm * wk * wn * SPEEDUP[im + dm][ik + dk][in_ + dn];
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_points_are_read_back() {
        // README's rows: M 4096, K 8192, N 16384 → 1.07; M 32768, K 4096, N 1024 → 0.59.
        assert!((speedup(4096.0, 8192.0, 16384.0) - 1.07).abs() < 1e-12);
        assert!((speedup(32768.0, 4096.0, 1024.0) - 0.59).abs() < 1e-12);
    }

    #[test]
    fn between_points_and_outside_the_table() {
        // Halfway in log₂ N between 2048 (0.81) and 4096 (1.04) at M 32768, K 4096:
        // N = 2048·√2 → 0.925.
        let n = 2048.0 * 2f64.sqrt();
        assert!((speedup(32768.0, 4096.0, n) - 0.925).abs() < 1e-12);
        // Llama 3 8B's K projection split by TP 8 on 98 304 tokens ([98304×4096]·[4096×128]):
        // clamped to M 32768, N 1024 → 0.59.
        assert!((speedup(98304.0, 4096.0, 128.0) - 0.59).abs() < 1e-12);
        // The largest shape: 1.52; below the table: M, K, N = 1024 → 0.42.
        assert!((speedup(1e6, 1e6, 1e6) - 1.52).abs() < 1e-12);
        assert!((speedup(1.0, 1.0, 1.0) - 0.42).abs() < 1e-12);
    }
}
