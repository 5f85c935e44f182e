//! Wave quantization of GEMMs: the share of the SMs a GEMM's output tiles keep busy.
//!
//! cuBLAS and CUTLASS give each thread block one output tile of `Tm × Tn` elements and loop it
//! over the reduction `k`; the GPU runs the tiles in waves of one block per SM. A GEMM of
//! `T = ⌈m/Tm⌉·⌈n/Tn⌉` tiles on `S` SMs takes `⌈T/S⌉` waves, so it runs at
//! `u = T/(⌈T/S⌉·S)` of the rate a full wave sustains (NVIDIA, *Matrix Multiplication
//! Background User's Guide*, DU-09799-001, §3.2 "Wave Quantization", and §2.3 "Typical Tile
//! Dimensions in cuBLAS": 256×128 and 128×256 the most efficient, then 128×128, 128×64,
//! 64×128 and 64×64).
//!
//! The library picks the tile, and may split `k` across `s` blocks (split-k: `s·T` blocks, each
//! reducing `k/s`), to fill the machine. The fill of a GEMM is therefore the best of those
//! candidates, each counted with the engine's reduction penalty `k/(k + K0)` at its own
//! reduction length ([`super::compute::GEMM_K0`]):
//! `fill = max over (Tm, Tn, s) of u(s·T) · [(k/s)/(k/s + K0)] / [k/(k + K0)]`, at most 1.
//! Every tile runs at the same per-SM rate here (the guide's smaller tiles are less efficient,
//! so this errs fast), and the partial sums of split-k cost no extra traffic.
//!
//! Checked against Baidu DeepBench's V100 training GEMMs (baidu-research/DeepBench
//! `results/train/DeepBench_NV_V100.xlsx` @30c5115, 80 SMs, CUDA 10.1; 160 fp16 and 160 fp32
//! rows): mean |error| of the engine's GEMM time 16.9 → 16.5 % (fp16) and 14.8 → 13.5 % (fp32).
//! Without split-k the fp32 rows get worse (19.4 %): cuBLAS's SGEMMs of 14-32 tiles
//! (e.g. 2560×128×2560, 20 tiles of 128×128) run at the full-wave rate, which only split-k
//! explains.
//!
//! A GPU without a known SM count ([`crate::scenario::GpuSpec::sms`]: custom GPUs, MI300X)
//! has no wave term (fill 1).
//!
//! Formulas, sources and what was checked: [compute.md](crate::docs::formulas::compute) §2.

use crate::engine::num::{max_num, min_num};

/// Output tile shapes `(Tm, Tn)` cuBLAS chooses among (the guide's §2.3 list).
pub const TILES: [(f64, f64); 6] = [
    (256.0, 128.0),
    (128.0, 256.0),
    (128.0, 128.0),
    (128.0, 64.0),
    (64.0, 128.0),
    (64.0, 64.0),
];

/// Split-k factors considered (1 = no split).
pub const SPLITS: [f64; 3] = [1.0, 2.0, 4.0];

/// Fraction of the full-wave GEMM rate that `batch` GEMMs of `[m×k]·[k×n]` run at when their
/// tiles share one launch on `sms` SMs, with reduction penalty `k0`; 1 when `sms` is 0.
///
/// No allocation and few divisions: tile counts by exact power-of-two scaling, waves by one
/// multiplication (`⌈(T − ½)/S⌉ = ⌈T/S⌉` for whole `T`, `S`), candidates compared by
/// cross-multiplication, the split-k penalty as `(k + K0)/(k + s·K0)`; the tile shapes are those
/// of [`TILES`] and the splits [`SPLITS`]. Also 1 where the counts would not be whole numbers
/// ([`ceil_pos`]): a dimension not in `(0, 2⁵²)`, a batch of `2⁵²` or more (or not a number).
#[inline]
pub fn fill(sms: f64, batch: f64, m: f64, k: f64, n: f64, k0: f64) -> f64 {
    // One pair of comparisons a dimension (NaN fails them), none for the infinities apart.
    let dim = |x: f64| x > 0.0 && x < TWO_52;
    if !(sms >= 1.0 && dim(m) && dim(n) && dim(k) && batch.abs() < TWO_52) {
        return 1.0;
    }
    let inv_sms = 1.0 / sms;
    let b = ceil_pos(max_num(batch, 1.0));
    let mut kept = [0.0_f64; 6];
    // With `m` and `n` whole multiples of 256 every tile but 64×64 is dropped below (each count
    // doubles exactly into the next smaller tile's), and 64×64 counts `(m/64)·(n/64)` exactly:
    // no ceiling needed.
    let candidates: &[f64] = if whole(m * 0.00390625) && whole(n * 0.00390625) {
        kept[0] = (m * 0.015625) * (n * 0.015625);
        &kept[..1]
    } else {
        // ⌈m/64⌉, ⌈m/128⌉, ⌈m/256⌉ (multiplying by 2⁻ⁿ is exact).
        let (m64, m128, m256) = (
            ceil_pos(m * 0.015625),
            ceil_pos(m * 0.0078125),
            ceil_pos(m * 0.00390625),
        );
        let (n64, n128, n256) = (
            ceil_pos(n * 0.015625),
            ceil_pos(n * 0.0078125),
            ceil_pos(n * 0.00390625),
        );
        // The same order as [`TILES`].
        let tiles = [
            m256 * n128,
            m128 * n256,
            m128 * n128,
            m128 * n64,
            m64 * n128,
            m64 * n64,
        ];
        // A tile whose count another tile doubles exactly is never the best:
        // `⌈2T/S⌉ ≤ 2⌈T/S⌉`, so `u(2T) ≥ u(T)`, and each split of it loses to the same split of
        // the doubling tile (same penalty, twice the blocks). Dropping it changes no result; a
        // chain of doublings keeps only its last tile. Tested against the definition below.
        let (m_halves, m_quarters) = (m64 == 2.0 * m128, m128 == 2.0 * m256);
        let (n_halves, n_quarters) = (n64 == 2.0 * n128, n128 == 2.0 * n256);
        let dominated = [
            m_quarters,           // 256×128 → 128×128
            n_quarters,           // 128×256 → 128×128
            m_halves || n_halves, // 128×128 → 64×128 or 128×64
            m_halves,             // 128×64 → 64×64
            n_halves,             // 64×128 → 64×64
            false,                // 64×64
        ];
        let mut len = 0;
        for (t, skip) in tiles.iter().zip(dominated) {
            if !skip {
                kept[len] = *t;
                len += 1;
            }
        }
        &kept[..len]
    };
    // The best candidate as a fraction `num/den` (`penalty·blocks` over `waves`), compared by
    // cross-multiplication so that the loop divides nowhere; fill = num/(den·S).
    // Waves of `blocks` blocks: `⌈(T − ½)/S⌉`, one multiplication.
    let waves_of = |blocks: f64| ceil_pos((blocks - 0.5) * inv_sms);
    let scan = |tiles: &[f64], s: f64, penalty: f64, (mut num, mut den): (f64, f64)| {
        for &t in tiles {
            let blocks = t * b * s;
            let waves = waves_of(blocks);
            let cand = penalty * blocks;
            if cand * den > num * waves {
                (num, den) = (cand, waves);
            }
        }
        (num, den)
    };
    // No split (`SPLITS[0]`, penalty 1): the first tile shape is the best so far (nothing to
    // compare it with), then the others.
    let Some((&first, others)) = candidates.split_first() else {
        return 1.0;
    };
    let blocks = first * b;
    let (mut num, mut den) = scan(others, 1.0, 1.0, (blocks, waves_of(blocks)));
    for &s in &SPLITS[1..] {
        // (k/s)/(k/s + K0) over k/(k + K0): no candidate with this split beats it, so once the
        // best fill so far reaches it the larger splits are skipped (most GEMMs stop at s = 1).
        let penalty = (k + k0) / (k + s * k0);
        if num * inv_sms >= penalty * den {
            break;
        }
        (num, den) = scan(candidates, s, penalty, (num, den));
    }
    min_num(num * inv_sms / den, 1.0)
}

/// `2⁵²`: a non-negative number below it plus `2⁵²` keeps no fraction bits, so [`ceil_pos`] and
/// [`whole`] round it exactly.
const TWO_52: f64 = 4_503_599_627_370_496.0;

/// Whether `0 ≤ x < 2⁵²` is a whole number ([`ceil_pos`]'s rounding).
#[inline(always)]
fn whole(x: f64) -> bool {
    (x + TWO_52) - TWO_52 == x
}

/// `⌈x⌉` for `0 ≤ x < 2⁵²` in plain floating-point arithmetic: adding and subtracting 2⁵² rounds
/// `x` to the nearest whole number (the sum has no fraction bits left), then one step up if that
/// fell below `x`. `f64::ceil` is a call into libm on the baseline x86-64 target (no SSE4.1
/// rounding instruction), and a float-to-integer cast carries saturation checks; this is four
/// instructions and vectorises.
#[inline(always)]
fn ceil_pos(x: f64) -> f64 {
    let r = (x + TWO_52) - TWO_52;
    // `r + 0` is `r` (`r ≥ +0`): a mask and an add, no blend of two values.
    r + if r < x { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain definition: every tile × every split, `f64::ceil`, division per candidate.
    fn fill_by_definition(sms: f64, batch: f64, m: f64, k: f64, n: f64, k0: f64) -> f64 {
        let mut best: f64 = 0.0;
        for &s in &SPLITS {
            let penalty = (k / s) / (k / s + k0) / (k / (k + k0));
            for &(tm, tn) in &TILES {
                let blocks = (m / tm).ceil() * (n / tn).ceil() * batch.max(1.0).ceil() * s;
                best = best.max(penalty * blocks / ((blocks / sms).ceil() * sms));
            }
        }
        best.min(1.0)
    }

    /// `fill` equals [`fill_by_definition`] for this GEMM (K0 = 128).
    fn assert_as_defined(sms: f64, b: f64, m: f64, k: f64, n: f64) {
        let (got, want) = (
            fill(sms, b, m, k, n, 128.0),
            fill_by_definition(sms, b, m, k, n, 128.0),
        );
        assert!(
            (got - want).abs() < 1e-12,
            "{sms} SMs, {b} × {m}×{k}×{n}: {got} vs {want}"
        );
    }

    #[test]
    fn pruned_search_equals_the_definition() {
        // Aligned and unaligned shapes (odd and even counts of 64-, 128- and 256-wide tiles),
        // small and large, on every SM count of the presets.
        for sms in [80.0, 108.0, 114.0, 132.0, 148.0] {
            for m in [
                64.0, 192.0, 200.0, 256.0, 320.0, 448.0, 512.0, 576.0, 1000.0, 2048.0, 4096.0,
                8192.0, 12288.0, 16384.0,
            ] {
                for n in [
                    64.0, 128.0, 192.0, 320.0, 384.0, 512.0, 700.0, 1536.0, 4608.0, 14336.0,
                ] {
                    for (k, b) in [(128.0, 1.0), (1024.0, 1.0), (4096.0, 3.0), (12288.0, 1.0)] {
                        assert_as_defined(sms, b, m, k, n);
                    }
                }
            }
        }
    }

    #[test]
    fn pruned_search_equals_the_definition_on_random_shapes() {
        // 20,000 shapes from a fixed linear congruential sequence: `m`, `n` any whole number up
        // to 20,000 or a multiple of 64 (where the tile counts double exactly), `k` up to
        // 16,384, 1-16 groups, every preset SM count.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |below: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % below
        };
        for i in 0..20_000 {
            let sms = [80.0, 108.0, 114.0, 132.0, 148.0][i % 5];
            let mut dim = || {
                if next(2) == 0 {
                    1.0 + next(20_000) as f64
                } else {
                    64.0 * (1 + next(300)) as f64
                }
            };
            let (m, n) = (dim(), dim());
            let k = 1.0 + next(16_384) as f64;
            let b = 1.0 + next(16) as f64;
            assert_as_defined(sms, b, m, k, n);
        }
    }

    #[test]
    fn ceil_without_libm() {
        let xs = [
            0.0,
            0.25,
            0.5,
            0.75,
            1.0,
            1.5,
            2.5,
            3.0,
            127.999,
            1e6 + 0.5,
            1125899906842625.0,
            // Up to 2⁵², where the numbers still carry a half.
            2251799813685248.5,
            4503599627370495.5,
        ];
        for x in xs {
            assert_eq!(ceil_pos(x), x.ceil(), "{x}");
        }
    }

    #[test]
    fn large_gemms_fill_the_machine() {
        // 8192×8192 at 128×128: 4096 tiles on 132 SMs = 31.03 → 32 waves, u = 0.970; 64×64:
        // 16384 tiles, 125 waves (16500), u = 0.993; 256×128 … the best of them is ≥ 0.99.
        let f = fill(132.0, 1.0, 8192.0, 8192.0, 8192.0, 128.0);
        assert!(f > 0.99 && f <= 1.0, "{f}");
        // Without an SM count: no wave term.
        assert_eq!(fill(0.0, 1.0, 64.0, 64.0, 64.0, 128.0), 1.0);
        // Nor where the tile counts would not be whole: a dimension that is not a number, not
        // positive or not below 2⁵², a batch of 2⁵² or more.
        for (b, m) in [
            (1.0, f64::NAN),
            (1.0, -64.0),
            (1.0, f64::INFINITY),
            (1.0, TWO_52),
            (f64::NEG_INFINITY, 64.0),
            (f64::NAN, 64.0),
            (TWO_52, 64.0),
        ] {
            assert_eq!(fill(132.0, b, m, 64.0, 64.0, 128.0), 1.0, "{b} × {m}");
        }
    }

    #[test]
    fn mamf_best_shapes_fill_their_waves() {
        // The best-shape matmuls of the MAMF table (stas00/ml-engineering
        // `compute/accelerator/README.md` @744d01e, M×N×K, bf16): A100 SXM 6912×16384×2048 is
        // 27·128 = 3456 tiles of 256×128 = exactly 32 waves on 108 SMs (fill 1); A100 PCIe
        // 2304×5120×1536: 64×64 gives 36·80 = 2880 tiles, 27 waves (2916), 0.9877; H100 SXM
        // 6144×17920×2816: 128×128 gives 48·140 = 6720, 51 waves (6732), 0.9982. The measured
        // maxima sit where the waves are (nearly) full.
        assert_eq!(fill(108.0, 1.0, 6912.0, 2048.0, 16384.0, 128.0), 1.0);
        let pcie = fill(108.0, 1.0, 2304.0, 1536.0, 5120.0, 128.0);
        assert!((pcie - 2880.0 / 2916.0).abs() < 1e-12, "{pcie}");
        let h100 = fill(132.0, 1.0, 6144.0, 2816.0, 17920.0, 128.0);
        assert!((h100 - 6720.0 / 6732.0).abs() < 1e-12, "{h100}");
    }

    #[test]
    fn bert_large_on_a_v100() {
        // 2048×1024×1024 on 80 SMs, K0 = 128. Candidates (s = 1): 256×128 and 128×256: 64 tiles,
        // 1 wave, 0.8; 128×128: 128 tiles, 2 waves (160), 0.8; 128×64 / 64×128: 256 tiles, 4
        // waves (320), 0.8; 64×64: 512 tiles, 7 waves (560), 0.9143. Split-k 2 of 128×64: 512
        // blocks = 0.9143 of the slots, times (512/640)/(1024/1152) = 0.9 → 0.823. Best 0.9143.
        let f = fill(80.0, 1.0, 2048.0, 1024.0, 1024.0, 128.0);
        assert!((f - 512.0 / 560.0).abs() < 1e-12, "{f}");
        // Micro-batch 1: 512×1024×1024. 64×64: 128 tiles, 2 waves, 0.8; split 2: 256 blocks,
        // 4 waves (320), 0.8 × 0.9 = 0.72; 128×128 split 4: 128 blocks, 0.8 × (256/384)/(1024/
        // 1152) = 0.6. 64×64 split-k 4: 512 blocks, 0.9143 × 0.75 = 0.686. Best 0.8.
        let f1 = fill(80.0, 1.0, 512.0, 1024.0, 1024.0, 128.0);
        assert!((f1 - 0.8).abs() < 1e-12, "{f1}");
    }

    #[test]
    fn deepbench_v100_medium_gemm() {
        // DeepBench V100 fp16 (@30c5115, 'Results - FP16 ip, Mixed math'): 1024×700×512 NN in
        // 0.018 ms. Tiles: 64×64 → 16·11 = 176 blocks, 3 waves (240), 0.733; 128×64 → 8·11 =
        // 88, 2 waves (160), 0.55; 64×128 → 16·6 = 96, 0.6; split 2 of 64×128: 192 blocks,
        // 0.8 × (256/384)/(512/640) = 0.667. Best 0.7333. Engine time: 2·1024·700·512 =
        // 734.0 MFLOP at 100 TFLOP/s × 512/640 = 80 TFLOP/s → 9.175 µs; / 0.7333 = 12.51 µs;
        // + 5 µs = 17.5 µs against 18 measured (−2.8 %; without the wave term 14.2, −21 %).
        let f = fill(80.0, 1.0, 1024.0, 512.0, 700.0, 128.0);
        assert!((f - 176.0 / 240.0).abs() < 1e-12, "{f}");
        let t = 2.0 * 1024.0 * 700.0 * 512.0 / (100e12 * 512.0 / 640.0) / f + 5e-6;
        assert!(((t - 18e-6) / 18e-6).abs() < 0.15, "{t}");
    }

    #[test]
    fn deepbench_v100_sgemm_needs_split_k() {
        // DeepBench V100 fp32 ('Results FP32'): 2560×128×2560 NN in 0.128 ms, 20 tiles of
        // 128×128 on 80 SMs. K0 = 16.08 (fp32). 64×64: 40·2 = 80 tiles, 1 wave, u = 1 → fill 1:
        // the engine's full-wave time 2·2560·128·2560/(15.7e12·0.85·2560/2576.08) = 0.1259 ms
        // + 5 µs = 0.131 ms (+2.3 %).
        let f = fill(80.0, 1.0, 2560.0, 2560.0, 128.0, 128.0 * 15.7 / 125.0);
        assert_eq!(f, 1.0);
        // 1760×64×1760 NN (0.056 ms): 64×64 gives 28 tiles; split-k 2: 56 blocks (0.7), split 4:
        // 112 blocks, 2 waves (160), 0.7; fill = 0.7 × (880/896.08)/(1760/1776.08) = 0.6937.
        let k0 = 128.0 * 15.7 / 125.0;
        let g = fill(80.0, 1.0, 1760.0, 1760.0, 64.0, k0);
        let want = 0.7 * (880.0 / (880.0 + k0)) / (1760.0 / (1760.0 + k0));
        assert!((g - want).abs() < 1e-12, "{g} {want}");
    }
}
