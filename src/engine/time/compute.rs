//! Compute time on one GPU: GEMMs with a size-dependent efficiency, fused attention, and
//! memory-bound element-wise work at HBM bandwidth.
//!
//! A GEMM of `F` FLOPs moving `D` bytes takes (roofline plus a fixed cost per kernel)
//! `t = max(F / (peak·e_gemm), D / (HBM·e_hbm)) + τ`.
//! The FLOP rate is also scaled by the share of the SMs the GEMM's output tiles keep busy
//! ([`super::waves`], wave quantization). The fixed cost `τ` (launch, ramp-up) makes small GEMMs
//! run far below peak: the effective efficiency is `e_gemm · F/(F + τ·peak·e_gemm)`, the same shape as
//! Calculon's step curve by GEMM size (`calculon/processor.py`, [peers.md](crate::docs::formulas::peers) §2) but smooth. TP
//! shrinks every GEMM by `t`, so this is where small TP shards lose efficiency.
//!
//! The constants are per GPU generation ([`Generation`]), a handful of numbers each, chosen from
//! public kernel benchmarks (cited per constant); nothing reads the validation data.

use super::fp8::Fp8Gemms;
pub use super::generation::Generation;
use crate::engine::num::max_num;
use crate::scenario::{Fp8Recipe, GpuSpec, Precision};

/// Kernel efficiencies of one GPU generation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Efficiency {
    /// Large 16-bit GEMMs: fraction of the dense tensor-core peak cuBLAS sustains.
    pub gemm: f64,
    /// Large fp32 GEMMs (SGEMM on the CUDA cores, no TF32): fraction of the fp32 peak, with the
    /// reduction penalty of [`fp32_k0`].
    pub gemm_fp32: f64,
    /// Large FP8 GEMMs: fraction of the FP8 peak.
    pub gemm_fp8: f64,
    /// Fused (flash) attention, forward and backward together, fraction of the 16-bit peak.
    pub flash_attention: f64,
    /// Fixed cost per kernel, seconds (launch + ramp + tail wave).
    pub kernel_s: f64,
    /// Exponentials per second of the special-function units (softmax inside flash attention):
    /// SMs × 16 SFU lanes × boost clock (A100 108·16·1.41 GHz = 2.4e12; H100 SXM 132·16·1.83 GHz
    /// = 3.9e12, the figure of the FlashAttention-3 paper, Shah et al. 2024 §1; V100
    /// 80·16·1.53 GHz = 2.0e12; Blackwell 5e12, the 'Attention acceleration (SFU EX2)' row of
    /// NVIDIA's Blackwell/Blackwell Ultra table, blog 'Inside NVIDIA Blackwell Ultra', 2025-08-22:
    /// ≈ 148·16·2.1 GHz **[derived]**: 16 exponentials per clock per SM, as on H100, FA4 paper
    /// arXiv 2603.05451 and its Together AI blog, 'both the SFU count and shared memory
    /// bandwidth remains unchanged' from H100 to B200;
    /// NVIDIA's `MUFU.EX2` micro-benchmark measures 4,943 Gop/s on a GB200, blog 'Making Softmax
    /// More Efficient with NVIDIA Blackwell Ultra', 2026-02-25). A part whose SFUs differ from
    /// its generation's says so in [`GpuSpec::sfu_exp_per_s`] (Blackwell Ultra: twice Blackwell's).
    pub exp_per_s: f64,
    /// Achievable fraction of the HBM bandwidth for streaming element-wise kernels.
    pub hbm: f64,
}

impl Efficiency {
    /// The constants of `g`.
    ///
    /// Where the numbers come from. Each is a physical fraction read from public kernel
    /// benchmarks, then placed inside that range where the published training runs (the public
    /// validation set, as a whole, never per case or group) sit; no constant depends on a case.
    /// - `gemm`, A100 0.72: cuBLAS bf16 square GEMMs ≥ 4096 reach 250-270 of 312 TFLOP/s
    ///   (0.80-0.86; Calculon `a100_80g.json` 0.9-0.99 for ≥ 16 GFLOP ops), but the
    ///   rectangular, TP-sharded shapes of training and the clock drop under sustained load give
    ///   0.65-0.8; 0.72 with the separate `k/(k+K0)` reduction penalty.
    /// - `gemm`, H100 SXM 0.70 (bf16) and `gemm_fp8` 0.63: cuBLAS bf16 ≈ 650-750 of 989 TFLOP/s
    ///   at 700 W, FP8 ≈ 1200-1350 of 1979 (Hopper is power-limited on dense GEMMs).
    /// - `flash_attention` 0.40 (tensor-core part only; the softmax exponentials are priced
    ///   separately on the SFUs, see [`Device::flash_s`]): FlashAttention-2 on A100 reaches
    ///   0.5-0.73 of peak forward and 0.4-0.6 backward at head dim 128, FlashAttention-1 and the
    ///   Triton kernel 0.3-0.45 (Dao 2023, Figs. 4-6); on H100 FlashAttention-2 runs at ≈ 0.35
    ///   overall and FlashAttention-3/cuDNN at 0.6-0.75 (Shah et al. 2024, Fig. 5). 0.40 sits in
    ///   the middle of the kernels that published runs used.
    /// - V100 fp16 `gemm` 0.80: cuBLAS fp16 ≈ 95-105 of 125 TFLOP/s; V100 has no flash attention
    ///   kernels (Ampere's value is kept for custom inputs).
    /// - Blackwell: Hopper's GEMM fractions scaled by the measured matmul ceilings (MAMF,
    ///   ml-engineering), see the constants; generic attention and kernel costs as Hopper; the
    ///   SFU exponential rate its own (5e12, see `exp_per_s`). Blackwell Ultra (B300/GB300) has
    ///   the same dense bf16/FP8 peaks and a matmul ceiling measured equal to B200's (MAMF B300
    ///   bf16 1769 vs B200 1745 TFLOP/s, FP8 3353 vs 3432), so it shares these constants; it
    ///   differs in its SFUs ([`GpuSpec::sfu_exp_per_s`]).
    /// - `gemm_fp32`, V100 0.85: Baidu DeepBench's V100 training results (baidu-research/
    ///   DeepBench `results/train/DeepBench_NV_V100.xlsx` @30c5115, sheet 'Results FP32', DGX-1,
    ///   CUDA 10.1): the 74 dense GEMMs with `M·N ≥ 3e6` and `K ≥ 1000` sustain 12.3-14.8 of 15.7
    ///   TFLOP/s (0.85 at K = 1024 and 2048, 0.90 at K = 4096); divided by `k/(k + K0_fp32)`
    ///   ([`fp32_k0`], 16.1) their median is 0.851. Other generations keep their 16-bit
    ///   fraction (no fp32 measurement read; no validation run trains in fp32 there).
    ///   The same sheet's fp16 tensor-core rows give 0.848 with `k/(k + 128)` (0.755 of peak at
    ///   K = 1024, 0.86 at 4096); `gemm` stays 0.80 because the same table's medium shapes
    ///   (`M·N` 0.2-1 M, e.g. 3072×128×1024 in 24 µs, 4096×128×4096 in 67-71 µs) run 1.2-2× slower
    ///   than this model prices them, which 0.85 would widen. Those shapes are skinny
    ///   (`n ≤ 128`) and priced at the HBM roof; the wave term ([`super::waves`]) explains only
    ///   a third of their loss (3072×128×1024: −37 → −27 %).
    /// - `kernel_s` 5 µs: CUDA launch latency ≈ 3-5 µs plus ramp-up; the partial last wave of a
    ///   GEMM's tiles is priced separately ([`super::waves`]) where the SM count is known.
    /// - `hbm` 0.80: STREAM-like copy kernels reach 0.8-0.9 of the HBM bandwidth.
    pub fn of(g: Generation) -> Efficiency {
        match g {
            Generation::Volta => Efficiency {
                gemm: 0.80,
                gemm_fp32: 0.85,
                gemm_fp8: 0.80,
                flash_attention: 0.40,
                kernel_s: 5e-6,
                exp_per_s: 2.0e12,
                hbm: 0.80,
            },
            Generation::Ampere => Efficiency {
                gemm: 0.72,
                gemm_fp32: 0.72,
                gemm_fp8: 0.72,
                flash_attention: 0.40,
                kernel_s: 5e-6,
                exp_per_s: 2.4e12,
                hbm: 0.80,
            },
            Generation::Hopper => Efficiency {
                gemm: 0.70,
                gemm_fp32: 0.70,
                gemm_fp8: 0.63,
                flash_attention: 0.40,
                kernel_s: 5e-6,
                exp_per_s: 3.9e12,
                hbm: 0.80,
            },
            // Hopper's fractions scaled by the measured best-shape matmul ratio ("MAMF",
            // stas00/ml-engineering `compute/accelerator/README.md` @744d01e): bf16 H100 80.3 %,
            // B200 77.6 % → 0.70·0.776/0.803 = 0.676; fp8 H100 70.9 %, B200 76.3 % →
            // 0.63·0.763/0.709 = 0.678. GB200/GB300 (2.5 PF parts) use [`BLACKWELL_NVL_GEMM`].
            Generation::Blackwell => Efficiency {
                gemm: 0.676,
                gemm_fp32: 0.676,
                gemm_fp8: 0.678,
                flash_attention: 0.40,
                kernel_s: 5e-6,
                exp_per_s: 5.0e12,
                hbm: 0.80,
            },
        }
    }
}

/// GB200/GB300 GEMM fractions of their 2.5 PF (bf16) / 5 PF (fp8) peaks: MAMF 72.9 % bf16,
/// 72.3 % fp8 (ml-engineering `compute/accelerator/README.md`: 1822 / 3615.6 TFLOP/s), scaled
/// like B200's: 0.70·0.729/0.803 = 0.636 and 0.63·0.723/0.709 = 0.642. The spec peak is not
/// reached; achieved matmul rates are only 4 % above B200's. GB300 takes GB200's: the same
/// table has no GB300 row, and its B300 row (1769 bf16 / 3353 fp8 TFLOP/s, "same as B200")
/// shows no Blackwell Ultra matmul gain; GB300's higher power limit (1.4 vs 1.2 kW, NVIDIA
/// Mission Control power FAQ) has no published matmul measurement.
pub const BLACKWELL_NVL_GEMM: (f64, f64) = (0.636, 0.642);

/// Dense 16-bit peak, TFLOP/s, from which a Blackwell part is one of the 2.5 PF NVL parts
/// ([`BLACKWELL_NVL_GEMM`]): GB200/GB300 2500 against B200's 2250 (data sheets).
pub const BLACKWELL_NVL_MIN_TFLOPS: f64 = 2400.0;

/// The fp32 peak of a GPU without an fp32 figure, as a divisor of its 16-bit peak: V100's
/// 125/15.7 ≈ 8 (A100 and H100 are nearer 16, so this errs fast) ([`peak_tflops`]).
pub const FP32_FALLBACK_DIVISOR: f64 = 8.0;

/// Share of a GB200/GB300's 2.5 PF spec peak that the Blackwell fused-attention fractions refer
/// to. Those fractions were measured on a B200 (2.25 PF; cuDNN 9.13.1, 1332 TFLOP/s forward at
/// 16k tokens, [`super::blackwell_cudnn::B200_CUDNN_9_13`]), and attention is bound by the SMs'
/// exponential units and shared memory, not by the spec peak (FA4 paper, arXiv 2603.05451), so
/// a GB200 runs it at B200's absolute rate times the ratio of the two parts' measured matmul
/// rates (MAMF 1822 vs 1745 TFLOP/s, ml-engineering `compute/accelerator/README.md` @744d01e):
/// 2250·(1822/1745)/2500 = 0.9397 **[derived]**, i.e. cuDNN forward ≈ 1391 TFLOP/s at 16k
/// rather than 0.592·2500 = 1480.
pub const BLACKWELL_NVL_ATTENTION_PEAK: f64 = 2250.0 * (1822.0 / 1745.0) / 2500.0;

/// Reduction steps' worth of fixed work per GEMM output tile (pipeline fill + epilogue):
/// two 64-wide k-tiles (CUTLASS/cuBLAS multistage kernels keep 2-4 k-tiles in flight and the
/// epilogue writes a 128×256 tile, about the time of two k-tiles of MMA).
pub const GEMM_K0: f64 = 128.0;

/// The GPU whose balance [`GEMM_K0`] is stated at: the A100 SXM4 80GB, 312 TFLOP/s of 16-bit
/// tensor-core peak over 2039 GB/s of HBM, 0.153 FLOP per byte.
pub const GEMM_K0_REF_FLOPS_PER_BYTE: f64 = 312.0 / 2039.0;

/// The reduction penalty's `K0` for tensor-core GEMMs on a GPU of `p16_tflops` 16-bit peak and
/// `hbm_gbps` memory bandwidth: [`GEMM_K0`] scaled by the GPU's FLOPs per byte over the
/// A100's ([`GEMM_K0_REF_FLOPS_PER_BYTE`]) **[derived]**. A tile's fixed work (the pipeline
/// fill, loading its first k-tiles, and the epilogue, storing the output tile) moves the same
/// bytes on every part and runs at the memory system's pace, while one k-step of MMA runs at
/// the tensor cores' pace; the SM count cancels. So the fixed work is worth more k-steps where
/// the tensor cores outgrew the memory: H100 SXM 989/3350 = 0.295 FLOP/B, 1.93× the A100's,
/// K0 = 247 (a k = 2048 GEMM at 0.89 of its large-k rate, against 0.94 on A100); B200 2250/8000,
/// 235; V100 125/900, 116. The same argument, with the tensor cores' pace against the CUDA
/// cores', gives fp32's [`fp32_k0`]. V100 keeps DeepBench's fp16 rows: 1024/(1024 + 116) ×
/// 0.848 = 0.762 of peak at K = 1024 (measured 0.755; 0.754 with 128).
pub fn tensor_k0(p16_tflops: f64, hbm_gbps: f64) -> f64 {
    GEMM_K0 * (p16_tflops / hbm_gbps.max(1.0)) / GEMM_K0_REF_FLOPS_PER_BYTE
}

/// The reduction penalty's `K0` of Hopper's FP8 GEMM kernels: [`tensor_k0`] at the FP8 peak
/// `p8_tflops` **[derived]**. A tile's fixed work (pipeline fill, epilogue) takes the same time
/// as in a 16-bit kernel: the epilogue writes the same 16-bit output tile, and each pipeline
/// stage loads the same bytes (an FP8 k-tile holds twice the elements), while the tensor cores
/// run each step of the `k` loop twice as fast (FP8 peak = 2 × 16-bit). So the fixed work is
/// worth twice as many `k` elements: H100 SXM 1979/3350 FLOP/B, K0 = 494 (a k = 2048 GEMM at
/// 0.81 of its large-k FP8 rate, against 0.89 in bf16). DeepGEMM's FP8 GEMMs on an H800 fall off
/// faster still with `k` (deepseek-ai/DeepGEMM PR #74, base 128×128 tiles, M 4096, N 7168:
/// K 2048 1031 TFLOP/s against K 16384 1404, 0.73; this K0 gives 0.83, 16-bit's 0.92).
pub fn fp8_k0(p8_tflops: f64, hbm_gbps: f64) -> f64 {
    tensor_k0(p8_tflops, hbm_gbps)
}

/// The reduction penalty's `K0` for fp32 GEMMs on the CUDA cores (no tensor cores): the fill
/// and the epilogue of an output tile take about the same time as in a tensor-core kernel (they
/// move the same tile through shared memory and HBM), but each step of the `k` loop takes
/// `p16/p32` times longer, so they are worth `GEMM_K0 · p32/p16` steps: V100 128·15.7/125 =
/// 16.1 **[derived]**. DeepBench's V100 SGEMMs bear it out: 0.85 of peak already at K = 1024,
/// 0.90 at 4096 (see [`Efficiency::of`], `gemm_fp32`), where `k/(k + 128)` would predict a 9 %
/// spread; the tensor-core rows of the same table spread 0.755 → 0.86.
pub fn fp32_k0(gpu: &GpuSpec) -> f64 {
    let p32 = peak_tflops(gpu, Precision::Fp32);
    GEMM_K0 * (p32 / sixteen_bit_tflops(gpu)).min(1.0)
}

/// The 16-bit tensor-core peak, TFLOP/s: bf16, else fp16, else fp32 (at least 1).
fn sixteen_bit_tflops(gpu: &GpuSpec) -> f64 {
    let p = gpu.peak_tflops;
    p.bf16.or(p.fp16).or(p.fp32).unwrap_or(1.0)
}

/// Dense peak of the training precision's GEMMs, TFLOP/s (vendor data sheets via the GPU
/// presets): fp32 (no TF32: PyTorch leaves `allow_tf32` off for matmuls; without a figure, an
/// eighth of the 16-bit peak — V100's ratio 15.7/125; A100 and H100 are nearer 1/16, so this
/// errs fast), fp16, bf16,
/// FP8 (without an FP8 peak the GEMMs run 16-bit). Used both for compute and as the MFU/HFU
/// denominator.
pub fn peak_tflops(gpu: &GpuSpec, precision: Precision) -> f64 {
    let p = gpu.peak_tflops;
    let p16 = sixteen_bit_tflops(gpu);
    match precision {
        Precision::Fp32 => p.fp32.unwrap_or(p16 / FP32_FALLBACK_DIVISOR),
        Precision::Fp16 => p.fp16.unwrap_or(p16),
        Precision::Bf16 => p16,
        Precision::Fp8 => p.fp8.unwrap_or(p16),
        Precision::Nvfp4 => p.fp4.or(p.fp8).unwrap_or(p16),
    }
}

/// What one GPU can do, in base units (FLOP/s, B/s), for one training precision.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Device {
    /// Sustained GEMM FLOP/s for the precision's GEMMs (peak × efficiency).
    pub gemm_flops: f64,
    /// Sustained 16-bit GEMM FLOP/s (attention core GEMMs without flash, FP8 runs keep them 16-bit).
    pub gemm16_flops: f64,
    /// The 16-bit peak, FLOP/s, that the published fused-attention fractions
    /// ([`super::attention::kernel_rates`]) multiply: the dense 16-bit peak, except on the 2.5 PF
    /// Blackwell parts ([`BLACKWELL_NVL_ATTENTION_PEAK`]) and on a part whose power limit slows
    /// GEMMs more than attention ([`GpuSpec::attn_peak_tflops`]).
    pub attn_peak_flops: f64,
    /// Sustained fused-attention FLOP/s of the generic path: the fused-attention efficiency of
    /// the 16-bit peak, or of the part's own attention peak ([`GpuSpec::attn_peak_tflops`]).
    pub flash_flops: f64,
    /// Sustained HBM bytes/s.
    pub hbm_bps: f64,
    /// Fixed cost per kernel, s.
    pub kernel_s: f64,
    /// The reduction penalty's `K0` of the precision's GEMMs: [`GEMM_K0`] on tensor cores
    /// ([`tensor_k0`], at the FP8 peak for Hopper's FP8 kernels, [`fp8_k0`]), [`fp32_k0`] for
    /// fp32 training.
    pub gemm_k0: f64,
    /// The same for the 16-bit GEMMs ([`Device::gemm16_s`], [`Device::bmm16_s`]): `gemm_k0`
    /// except under FP8 on Hopper.
    pub gemm16_k0: f64,
    /// Exponentials per second (flash-attention softmax): the part's own SFU rate
    /// ([`GpuSpec::sfu_exp_per_s`]), else its generation's.
    pub exp_per_s: f64,
    /// Exponentials per second of the GPU the published fused-attention fractions
    /// ([`super::attention::kernel_rates`]) were measured on: the generation's rate (H100 for
    /// Hopper, B200 for Blackwell). Equal to `exp_per_s` except on a part with faster SFUs.
    pub attn_exp_ref_per_s: f64,
    /// Streaming multiprocessors for the GEMMs' wave quantization ([`super::waves`]); 0 = no
    /// wave term (the GPU's SM count is unknown).
    pub sms: f64,
    /// Bytes of one activation element (2 for 16-bit and FP8 runs, 4 for fp32).
    pub act_bytes: f64,
    /// Bytes of one GEMM operand element (1 for FP8).
    pub gemm_bytes: f64,
    /// FP8 quantization bytes per element of a GEMM's input and of its output gradient
    /// ([`super::fp8::Fp8Gemms::cast_bytes`]; 0 without FP8).
    pub cast_bytes: f64,
    /// torchao's rowwise recipe on Hopper: GEMMs at the bf16 time over torchao's measured
    /// speedup at their shape ([`super::rowwise::speedup`]).
    pub rowwise_table: bool,
}

impl Device {
    /// Builds the sustained rates of `gpu` for `precision`. Peaks missing for a format fall back
    /// to the next wider one (fp8 → bf16 → fp16 → fp32); never zero (at least 1 FLOP/s).
    pub fn new(gpu: &GpuSpec, precision: Precision, recipe: Option<Fp8Recipe>) -> Device {
        let gen = Generation::of(gpu);
        let mut e = Efficiency::of(gen);
        let mut attn_peak_share = 1.0;
        if gen == Generation::Blackwell && sixteen_bit_tflops(gpu) >= BLACKWELL_NVL_MIN_TFLOPS {
            (e.gemm, e.gemm_fp8) = BLACKWELL_NVL_GEMM;
            attn_peak_share = BLACKWELL_NVL_ATTENTION_PEAK;
        }
        let p = gpu.peak_tflops;
        let p16 = sixteen_bit_tflops(gpu);
        // Activations are 16-bit outside fp32 training, FP8 included (the memory half's
        // `element_bytes_of`); FP8 GEMM operands are 1 byte.
        let act_bytes = crate::engine::per_gpu::element_bytes_of(precision);
        let peak = peak_tflops(gpu, precision);
        // FP8: the recipe's kernel rate and its casts ([`super::fp8::gemms`]); without an
        // FP8 recipe for this GPU the GEMMs run 16-bit.
        let fp8 = match (precision, p.fp8) {
            (Precision::Fp8, Some(_)) => super::fp8::gemms(gen, recipe.unwrap_or_default()),
            (Precision::Nvfp4, _) => {
                super::fp8::nvfp4_speedup(gpu).map(|speedup| Fp8Gemms::Autocast { speedup })
            }
            _ => None,
        };
        let quantized_bytes = if precision == Precision::Nvfp4 {
            super::fp8::NVFP4_BYTES
        } else {
            1.0
        };
        let (gemm_flops, gemm_bytes, cast_bytes) = match (precision, fp8) {
            (Precision::Fp32, _) => (peak * e.gemm_fp32, 4.0, 0.0),
            (Precision::Fp8 | Precision::Nvfp4, Some(Fp8Gemms::Casts { kernel, cast_bytes })) => {
                (peak * e.gemm_fp8 * kernel, quantized_bytes, cast_bytes)
            }
            (Precision::Fp8 | Precision::Nvfp4, Some(Fp8Gemms::Autocast { speedup })) => {
                (p16 * e.gemm * speedup, quantized_bytes, 0.0)
            }
            // Priced per shape in `gemm_s`; the rate here is the bf16 one the table divides.
            (Precision::Fp8 | Precision::Nvfp4, Some(Fp8Gemms::RowwiseTable)) => {
                (p16 * e.gemm, 2.0, 0.0)
            }
            (Precision::Fp8 | Precision::Nvfp4, None) => (p16 * e.gemm, 2.0, 0.0),
            _ => (peak * e.gemm, 2.0, 0.0),
        };
        let fp32 = precision == Precision::Fp32;
        let p16_eff = if fp32 { peak } else { p16 };
        // The attention core's batched GEMMs run in the training precision's kernels too.
        let bmm_eff = if fp32 { e.gemm_fp32 } else { e.gemm };
        // Fused attention's peak: the part's own where its power limit binds the GEMMs harder
        // than attention ([`GpuSpec::attn_peak_tflops`]), else the 16-bit peak (times the
        // Blackwell NVL share). fp32 training keeps the fp32 peak.
        let part_attn = gpu
            .attn_peak_tflops
            .filter(|a| !fp32 && a.is_finite() && *a > 0.0);
        let attn_peak = part_attn.unwrap_or(p16_eff * attn_peak_share);
        let gemm16_k0 = if fp32 {
            fp32_k0(gpu)
        } else {
            tensor_k0(p16_eff, gpu.hbm_gbps)
        };
        let gemm_k0 = match fp8 {
            Some(Fp8Gemms::Casts { .. }) => fp8_k0(peak, gpu.hbm_gbps),
            _ => gemm16_k0,
        };
        Device {
            gemm_flops: (gemm_flops * 1e12).max(1.0),
            gemm16_flops: (p16_eff * bmm_eff * 1e12).max(1.0),
            attn_peak_flops: (attn_peak * 1e12).max(1.0),
            flash_flops: (part_attn.unwrap_or(p16_eff) * e.flash_attention * 1e12).max(1.0),
            hbm_bps: (gpu.hbm_gbps * 1e9 * e.hbm).max(1.0),
            kernel_s: e.kernel_s,
            gemm_k0,
            gemm16_k0,
            exp_per_s: gpu
                .sfu_exp_per_s
                .filter(|r| r.is_finite() && *r > 0.0)
                .unwrap_or(e.exp_per_s),
            attn_exp_ref_per_s: e.exp_per_s,
            sms: gpu.sms.map_or(0.0, f64::from),
            act_bytes,
            gemm_bytes,
            cast_bytes,
            rowwise_table: fp8 == Some(Fp8Gemms::RowwiseTable),
        }
    }

    /// Time of one forward GEMM `[m×k]·[k×n]` (roofline + fixed cost), seconds.
    ///
    /// Each output tile runs a loop over the reduction dimension `k`, then an epilogue that
    /// stores the tile; the epilogue and the pipeline fill cost about [`GEMM_K0`] steps of the
    /// loop, so the sustained rate is `gemm_flops · k/(k + K0)` (short reductions — small hidden
    /// sizes, TP-sharded inputs — run below peak).
    ///
    /// Under FP8 it includes the quantization that feeds the layer's GEMMs: a linear layer casts
    /// its input (`m×k`) forward and its output gradient (`m×n`) backward, one kernel each;
    /// the time model counts a layer's backward as two forward GEMMs, so each of the three
    /// carries a third of the casts' bytes and kernels, and the three together carry them all.
    ///
    /// The rate is scaled by the fill of the SMs' waves ([`super::waves::fill`]). Under torchao's
    /// rowwise recipe on Hopper it is the bf16 GEMM's time over torchao's measured speedup at
    /// this shape, quantization included ([`super::rowwise::speedup`]).
    #[inline]
    pub fn gemm_s(&self, m: f64, k: f64, n: f64) -> f64 {
        self.gemm_in_group_s(1.0, m, k, n)
    }

    /// [`Device::gemm_s`] of one of `groups` equal GEMMs that share one launch (a grouped
    /// GEMM): the waves are filled by the tiles of all the groups together.
    #[inline]
    pub fn gemm_in_group_s(&self, groups: f64, m: f64, k: f64, n: f64) -> f64 {
        if self.rowwise_table {
            return self.gemm_at(
                (self.gemm_flops, self.gemm_k0),
                self.gemm_bytes,
                groups,
                m,
                k,
                n,
            ) / super::rowwise::speedup(m, k, n);
        }
        let casts = if self.cast_bytes > 0.0 {
            (self.cast_bytes * m * (k + n) / self.hbm_bps + 2.0 * self.kernel_s) / 3.0
        } else {
            0.0
        };
        self.gemm_at(
            (self.gemm_flops, self.gemm_k0),
            self.gemm_bytes,
            groups,
            m,
            k,
            n,
        ) + casts
    }

    /// [`Device::gemm_s`] in 16 bits whatever the training precision: the GEMMs an FP8 recipe
    /// leaves in bf16. The output layer is one: Megatron-LM's `output_layer` is a plain
    /// `ColumnParallelLinear`, not a Transformer Engine module, so `fp8_autocast` does not
    /// reach it (`megatron/core/models/gpt/gpt_model.py`), and torchtitan's float8 converter
    /// skips it (`filter_fqns` default `["output"]`, `torchtitan/components/quantization`).
    pub fn gemm16_s(&self, m: f64, k: f64, n: f64) -> f64 {
        self.gemm_at(
            (self.gemm16_flops, self.gemm16_k0),
            self.act_bytes,
            1.0,
            m,
            k,
            n,
        )
    }

    #[inline]
    fn gemm_at(
        &self,
        (flops_per_s, k0): (f64, f64),
        operand_bytes: f64,
        groups: f64,
        m: f64,
        k: f64,
        n: f64,
    ) -> f64 {
        let flops = 2.0 * m * k * n;
        let bytes = operand_bytes * (m * k + k * n) + self.act_bytes * m * n;
        let fill = super::waves::fill(self.sms, groups, m, k, n, k0);
        let rate = flops_per_s * k / (k + k0) * fill;
        max_num(flops / max_num(rate, 1.0), bytes / self.hbm_bps) + self.kernel_s
    }

    /// Flash attention forward and backward for `elements` score elements (`b·heads·s_q·s_k`,
    /// causal already halved) of head dimension `d_h`, seconds: the tensor-core work
    /// (forward 4·d_h FLOPs per element, backward 10·d_h: five GEMMs including the recomputed
    /// scores) at the fused-attention efficiency plus one exponential per element in each pass
    /// on the special-function units, which FlashAttention-2 does not overlap with the GEMMs
    /// (Shah et al. 2024, FlashAttention-3 §1-3).
    pub fn flash_s(&self, elements: f64, d_h: f64) -> (f64, f64) {
        let exp = elements / self.exp_per_s;
        (
            4.0 * d_h * elements / self.flash_flops + exp + self.kernel_s,
            10.0 * d_h * elements / self.flash_flops + exp + self.kernel_s,
        )
    }

    /// Time of a 16-bit batched GEMM (`batch` products of `[m×k]·[k×n]`, attention without
    /// flash), seconds, with the same short-reduction penalty as [`Device::gemm_s`]: the score
    /// GEMM `QKᵀ` reduces over the head dimension only (`k = d_h`, typically 64-128).
    pub fn bmm16_s(&self, batch: f64, m: f64, k: f64, n: f64) -> f64 {
        let flops = 2.0 * batch * m * k * n;
        let bytes = self.act_bytes * batch * (m * k + k * n + m * n);
        let fill = super::waves::fill(self.sms, batch, m, k, n, self.gemm16_k0);
        let rate = self.gemm16_flops * k / (k + self.gemm16_k0) * fill;
        max_num(flops / max_num(rate, 1.0), bytes / self.hbm_bps) + self.kernel_s
    }

    /// Time to stream `bytes` through HBM in `kernels` kernels, seconds.
    pub fn memory_s(&self, bytes: f64, kernels: f64) -> f64 {
        bytes / self.hbm_bps + kernels * self.kernel_s
    }
}

/// The device of the GPU preset `id` at precision `p` (delayed FP8 scaling), for unit tests.
#[cfg(test)]
pub(crate) fn preset_device(id: &str, p: Precision) -> Device {
    Device::new(&crate::scenario::gpu_preset(id).unwrap().spec, p, None)
}

#[cfg(test)]
mod tests {
    use super::preset_device as dev;
    use super::*;
    use crate::scenario::gpu_preset;

    #[test]
    fn generations() {
        let g = |id: &str| Generation::of(&gpu_preset(id).unwrap().spec);
        assert_eq!(g("v100-sxm2-32gb"), Generation::Volta);
        assert_eq!(g("a100-sxm4-80gb"), Generation::Ampere);
        assert_eq!(g("h100-sxm5-80gb"), Generation::Hopper);
        assert_eq!(g("h200-sxm-141gb"), Generation::Hopper);
        assert_eq!(g("b200-sxm-180gb"), Generation::Blackwell);
    }

    #[test]
    fn torchao_rowwise_is_the_bf16_gemm_over_the_measured_speedup() {
        // On the 500 W H100 (bf16 800 TFLOP/s × 0.70 = 560 TFLOP/s, 2400 GB/s: K0
        // 128·(800/2400)/(312/2039) = 278.84, 132 SMs): Llama 3 8B's FC1 split by TP 8,
        // [32768×4096]·[4096×1792]: the best wave fill is 64×64 tiles, 512·28 = 14336 on 132
        // SMs, 109 waves (14388), 0.99639; 4.8103e11 FLOP / (5.6e14 · 4096/4374.84 ·
        // 0.99639) + 5 µs = 0.92580 ms in bf16; torchao's table at M 32768, K 4096, N 1792
        // (log₂ N = 10.807, 0.807 of the way from 1024's 0.59 to 2048's 0.81: 0.7676) →
        // 1.2061 ms, slower than bf16.
        let spec = gpu_preset("h100-sxm5-96gb").unwrap().spec;
        let bf = Device::new(&spec, Precision::Bf16, None);
        let rw = Device::new(&spec, Precision::Fp8, Some(Fp8Recipe::Rowwise));
        let (m, k, n) = (32768.0, 4096.0, 1792.0);
        let fill = 14336.0 / 14388.0;
        let k0 = tensor_k0(800.0, 2400.0);
        let bf16 = 2.0 * m * k * n / (560e12 * 4096.0 / (4096.0 + k0) * fill) + 5e-6;
        assert!((bf.gemm_s(m, k, n) - bf16).abs() < 1e-12);
        let f = (1792f64.log2() - 10.0).clamp(0.0, 1.0);
        let s = 0.59 + f * (0.81 - 0.59);
        assert!((rw.gemm_s(m, k, n) - bf16 / s).abs() < 1e-12);
        assert!((bf16 / s - 1.2061e-3).abs() < 1e-6, "{}", bf16 / s);
        // The 16-bit GEMMs keep their rate.
        assert_eq!(rw.gemm16_s(m, k, n), bf.gemm16_s(m, k, n));
    }

    #[test]
    fn gemm_time_by_hand() {
        // A100 bf16: 312 TFLOP/s × 0.72 = 224.64 TFLOP/s; k = 4096 → × 4096/4224.
        // [8192×4096]·[4096×4096]: 2048 tiles of 128×128 on 108 SMs, 19 waves (2052): wave fill
        // 2048/2052 (128×64, 64×64 give the same; split-k's penalty 4224/4352 is lower).
        // 2.749e11 FLOP / (2.2464e14 · 0.969697 · 0.998051) = 1.2645 ms, + 5 µs = 1.2695 ms.
        let d = dev("a100-sxm4-80gb", Precision::Bf16);
        let fill = 2048.0 / 2052.0;
        let want = 2.0 * 8192.0 * 4096.0 * 4096.0 / (312e12 * 0.72 * 4096.0 / 4224.0 * fill) + 5e-6;
        assert!((d.gemm_s(8192.0, 4096.0, 4096.0) - want).abs() < 1e-12);
        assert!((want - 1.2695e-3).abs() < 1e-6, "{want}");
        // A skinny GEMM is memory-bound: [1×4096]·[4096×4096] moves 2·4096² bytes of weights
        // at 2039 GB/s × 0.8: 20.57 µs + 5 µs.
        let t = d.gemm_s(1.0, 4096.0, 4096.0);
        assert!(
            (t - (2.0 * (4096.0 + 4096.0 * 4096.0) + 2.0 * 4096.0) / (2039e9 * 0.8) - 5e-6).abs()
                < 1e-12
        );
        // FP8 on H100 (delayed scaling): the FP8 kernel at 1979 TFLOP/s × 0.63 = 1246.77 TFLOP/s,
        // plus the casts of the input (8192×4096) and the output gradient (8192×4096) at
        // 4 B/element, a third per GEMM: 4·8192·8192/3 B at 3350 GB/s × 0.8 = 33.38 µs, plus
        // two thirds of a 5 µs kernel. Operands 1 B, output 2 B: compute-bound. On 132 SMs the
        // best tile is 64×64: 8192 tiles, 63 waves (8316), fill 8192/8316 = 0.98509 (128×128:
        // 2048 in 16 waves, 0.9697). K0 at the FP8 peak's balance ([`fp8_k0`]): 494.17, twice
        // the 16-bit GEMMs' 246.96 (1979/989).
        let h = dev("h100-sxm5-80gb", Precision::Fp8);
        assert!((h.gemm_flops - 1979e12 * 0.63).abs() < 1.0);
        assert!((h.gemm16_flops - 989e12 * 0.70).abs() < 1.0);
        assert!((h.gemm_k0 - 494.17).abs() < 0.01, "{}", h.gemm_k0);
        let hfill = 8192.0 / 8316.0;
        let h8 = 4096.0 / (4096.0 + fp8_k0(1979.0, 3350.0));
        let hk = 4096.0 / (4096.0 + tensor_k0(989.0, 3350.0));
        let gemm = 2.0 * 8192.0 * 4096.0 * 4096.0 / (1979e12 * 0.63 * h8 * hfill) + 5e-6;
        let casts = (4.0 * 8192.0 * 8192.0 / (3350e9 * 0.8) + 2.0 * 5e-6) / 3.0;
        assert!((h.gemm_s(8192.0, 4096.0, 4096.0) - (gemm + casts)).abs() < 1e-12);
        assert!((casts - 3.672e-5).abs() < 1e-7, "{casts}");
        // The output layer's GEMM stays 16-bit.
        let bf = 2.0 * 8192.0 * 4096.0 * 4096.0 / (989e12 * 0.70 * hk * hfill) + 5e-6;
        assert!((h.gemm16_s(8192.0, 4096.0, 4096.0) - bf).abs() < 1e-12);
    }

    #[test]
    fn v100_sgemm_by_hand() {
        // V100 fp32: 15.7 TFLOP/s × 0.85 (DeepBench SGEMM) with K0 = 128·15.7/125 = 16.0768.
        // BERT-large FC1 of 2048 tokens, [2048×1024]·[1024×4096]: 1.7180e10 FLOP at
        // 13.345 TFLOP/s × 1024/1040.0768 = 13.138 TFLOP/s → 1.3076 ms; on 80 SMs the best
        // tile is 64×64 (or 128×64): 2048 tiles, 26 waves (2080), fill 0.98462 (128×128: 512
        // in 7 waves, 0.914; split-k 2 of 64×64: 0.98462 × 1040.08/1056.15 = 0.9696)
        // → 1.3280 ms, + 5 µs.
        let d = dev("v100-sxm2-16gb", Precision::Fp32);
        assert!((d.gemm_k0 - 16.0768).abs() < 1e-9);
        let fill = 2048.0 / 2080.0;
        let want =
            2.0 * 2048.0 * 1024.0 * 4096.0 / (15.7e12 * 0.85 * 1024.0 / 1040.0768 * fill) + 5e-6;
        assert!((d.gemm_s(2048.0, 1024.0, 4096.0) - want).abs() < 1e-12);
        assert!((want - 1.3330e-3).abs() < 1e-6, "{want}");
        // The attention core's batched GEMMs in fp32 too: QKᵀ reduces over d_h = 64, so
        // 64/80.08 of the SGEMM rate rather than tensor cores' 64/192.
        assert_eq!(d.gemm16_flops, d.gemm_flops);
        // fp16: the tensor-core K0 at V100's balance, 128·(125/900)/(312/2039) = 116.18, and
        // 0.80.
        let h = dev("v100-sxm2-16gb", Precision::Fp16);
        assert!((h.gemm_k0 - 116.18).abs() < 0.01, "{}", h.gemm_k0);
        assert!((h.gemm_flops - 125e12 * 0.80).abs() < 1.0);
    }

    #[test]
    fn tensor_k0_follows_the_flops_per_byte() {
        // A100 80GB is the reference; H100 SXM (989 TFLOP/s, 3350 GB/s) 1.93× its balance.
        assert_eq!(dev("a100-sxm4-80gb", Precision::Bf16).gemm_k0, GEMM_K0);
        let h = dev("h100-sxm5-80gb", Precision::Bf16).gemm_k0;
        assert!((h - 246.96).abs() < 0.01, "{h}");
        // A k = 2048 GEMM keeps 2048/2295 = 0.892 of its large-k rate on H100, 0.941 on A100.
        assert!((2048.0 / (2048.0 + h) - 0.892).abs() < 0.001);
        // Hopper's FP8 kernels: twice the K0 (FP8 peak 1979), so a k = 2048 FP8 GEMM keeps
        // 2048/2542.2 = 0.806 of its large-k rate; at M 4096, N 7168, k 2048 against 16384 that
        // is 0.830 (DeepGEMM PR #74 measured 1031/1404 = 0.734 on an H800, bf16's K0 gives 0.919).
        let f = dev("h100-sxm5-80gb", Precision::Fp8).gemm_k0;
        assert!((f / h - 1979.0 / 989.0).abs() < 1e-12);
        let r = |k: f64| k / (k + f);
        assert!((r(2048.0) / r(16384.0) - 0.830).abs() < 0.001);
        // The 16-bit GEMMs of an FP8 run keep the 16-bit K0.
        assert_eq!(dev("h100-sxm5-80gb", Precision::Fp8).gemm16_k0, h);
    }

    #[test]
    fn gb200_attention_at_b200_absolute_rate() {
        // The Blackwell attention fractions were measured on a B200 (2250 TFLOP/s); a GB200
        // (2500 spec) runs attention at B200's rate × 1822/1745 (MAMF): cuDNN 9.13's 16k
        // forward 1332.415 · 1822/1745 = 1391.2 TFLOP/s, not 1332.415/2250 · 2500 = 1480.5.
        let gb = dev("gb200", Precision::Bf16);
        assert!((1332.415 / 2250.0 * gb.attn_peak_flops / 1e12 - 1391.2).abs() < 0.1);
        // B200 and Hopper: the spec peak itself.
        assert_eq!(
            dev("b200-sxm-180gb", Precision::Bf16).attn_peak_flops,
            2250e12
        );
        assert_eq!(
            dev("h100-sxm5-80gb", Precision::Fp8).attn_peak_flops,
            989e12
        );
    }

    #[test]
    fn power_limited_h100_prices_gemms_and_attention_at_their_own_peaks() {
        // The 500 W Grand Teton H100 (Yang et al., MLSys 2025, App. A): GEMMs at Hopper's 0.70 of
        // the stated 800 TF/s bf16 peak = 560 TFLOP/s (bf16) and FP8 at 0.63 of 1600 = 1008.
        let d = dev("h100-sxm5-96gb", Precision::Bf16);
        assert!((d.gemm_flops - 560e12).abs() < 1.0);
        let f = dev("h100-sxm5-96gb", Precision::Fp8);
        assert!((f.gemm_flops - 1008e12).abs() < 1.0);
        assert!((f.gemm16_flops - 560e12).abs() < 1.0);
        // Fused attention at the part's own 897 TF/s peak: FlashAttention-3 causal, head dim 128,
        // 8k tokens, forward = 0.62 · ramp(8192) · 897, ramp(8192) = 8192/8692 · 16884/16384
        // = 0.97124, = 540.1 TFLOP/s against the 540 the paper measured on this part.
        assert!((d.attn_peak_flops - 897e12).abs() < 1.0);
        let ramp = super::super::attention::seq_ramp(8192.0);
        assert!((ramp - 0.971238).abs() < 1e-6, "{ramp}");
        assert!((0.62 * ramp * d.attn_peak_flops / 1e12 - 540.1).abs() < 0.1);
        // The generic path uses the same peak: 897 · 0.40 = 358.8 TFLOP/s.
        assert!((d.flash_flops - 897e12 * 0.40).abs() < 1.0);
        // MFU's denominator is the stated peak.
        assert_eq!(
            peak_tflops(&gpu_preset("h100-sxm5-96gb").unwrap().spec, Precision::Bf16),
            800.0
        );
        // fp32 training keeps the fp32 path (no part attention peak): its 16-bit peak / 8.
        let z = dev("h100-sxm5-96gb", Precision::Fp32);
        assert!((z.attn_peak_flops - 100e12).abs() < 1.0);
    }

    #[test]
    fn blackwell_ultra_runs_its_exponentials_at_its_own_rate() {
        // Blackwell: 5e12 exponentials/s (NVIDIA's SFU EX2 row), B200 and GB200 alike; GB300
        // (Blackwell Ultra): twice that, 10.0e12, from its preset. The published attention fractions refer
        // to the generation's rate (measured on a B200) on all three.
        for (id, own) in [
            ("b200-sxm-180gb", 5.0e12),
            ("gb200", 5.0e12),
            ("gb300", 10.0e12),
            ("h100-sxm5-80gb", 3.9e12),
        ] {
            let d = dev(id, Precision::Bf16);
            assert_eq!(d.exp_per_s, own, "{id}");
            let reference = if own == 3.9e12 { 3.9e12 } else { 5.0e12 };
            assert_eq!(d.attn_exp_ref_per_s, reference, "{id}");
        }
        // Only the SFUs differ: same GEMM rates and attention peak as a GB200.
        let (gb2, gb3) = (dev("gb200", Precision::Fp8), dev("gb300", Precision::Fp8));
        assert_eq!(gb3.gemm_flops, gb2.gemm_flops);
        assert_eq!(gb3.attn_peak_flops, gb2.attn_peak_flops);
        // The generic path's softmax: 1e9 exponentials take 200 µs on a GB200, 100 µs on a
        // GB300.
        let (f2, _) = gb2.flash_s(1e9, 128.0);
        let (f3, _) = gb3.flash_s(1e9, 128.0);
        assert!(((f2 - f3) - 1.0e-4).abs() < 1e-12, "{}", f2 - f3);
    }

    #[test]
    fn flash_attention_by_hand() {
        // H100: 1e9 score elements, d_h = 128: forward 4·128·1e9 / (989e12·0.40) + 1e9/3.9e12,
        // backward 10·128·1e9 / (989e12·0.40) + 1e9/3.9e12 (+ 5 µs each).
        let h = dev("h100-sxm5-80gb", Precision::Bf16);
        let (f, b) = h.flash_s(1e9, 128.0);
        let mm = 989e12 * 0.40;
        assert!((f - (512e9 / mm + 1e9 / 3.9e12 + 5e-6)).abs() < 1e-12);
        assert!((b - (1280e9 / mm + 1e9 / 3.9e12 + 5e-6)).abs() < 1e-12);
        // Smaller heads spend relatively more on exponentials: lower FLOP efficiency.
        let (f64_, _) = h.flash_s(2e9, 64.0);
        assert!(f64_ > f);
    }
}
