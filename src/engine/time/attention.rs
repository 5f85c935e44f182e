//! The attention core (scores, softmax, weighted sum) of one layer, one micro-batch, one GPU.
//!
//! Formulas, sources and what was checked: [attention.md](crate::docs::formulas::attention) §1.

use super::blackwell_cudnn::{CudnnTable, B200_CUDNN_9_13, RATES_AT_TOKENS};
use super::compute::Generation;
use super::inputs::Inputs;
pub use crate::scenario::AttentionKernel;

/// Fused softmax (+ mask + dropout) traffic per attention score element in the forward pass
/// without flash attention, in activation elements: read and write the scores (2), dropout
/// read/write (2) and its 1-byte mask (≈ 0.5 element) (Korthikanti et al. 2022 §4.1 lists the
/// same tensors: softmax output, dropout mask and output).
pub const SOFTMAX_ELEMENTS: f64 = 4.5;

/// HBM bytes per attention score of Hugging Face BERT's eager score chain under
/// `torch.autocast` (16-bit scores, fp32 softmax; [`super::stack::Stack::autocast_softmax`]),
/// forward and backward, as `BertSelfAttention` writes it (transformers v4.16,
/// `models/bert/modeling_bert.py`; [`super::hf_eager_layer`]):
/// - forward 33: `scores / sqrt(d)` (read 2, write 2); `+ attention_mask`, an fp32 tensor (the
///   parameter dtype, `get_extended_attention_mask`), which promotes the sum to fp32 (read 2,
///   write 4); softmax (read 4, write 4); dropout (read 4, write 4, 1-byte mask); autocast's
///   cast down for the probabilities·V matmul (read 4, write 2);
/// - backward 37: the cast's gradient up (2 + 4), dropout's (read 4 and the mask, write 4),
///   softmax's (read the gradient and the output, 4 + 4, write 4), the add's gradient cast back
///   to the 16-bit scores (4 + 2), the division's (2 + 2).
///
/// Against 9 and 18 of the fused 16-bit kernel ([`SOFTMAX_ELEMENTS`] × 2 bytes).
pub const AUTOCAST_SOFTMAX_BYTES: (f64, f64) = (33.0, 37.0);
/// Kernels of that chain per pass: division, mask add, softmax, dropout, cast (forward); cast,
/// dropout, softmax, cast, division (backward).
pub const AUTOCAST_SOFTMAX_KERNELS: (f64, f64) = (5.0, 5.0);
/// The same chain in fp32 training (no casts): forward division (4 + 4), mask add (4 + 4),
/// softmax (4 + 4), dropout (4 + 4 + 1) = 33 bytes in 4 kernels; backward dropout (9),
/// softmax (12), division (8) = 29 bytes in 3 kernels (the add's gradient passes through).
pub const EAGER_FP32_SOFTMAX_BYTES: (f64, f64) = (33.0, 29.0);
/// Kernels of the fp32 chain, forward and backward.
pub const EAGER_FP32_SOFTMAX_KERNELS: (f64, f64) = (4.0, 3.0);

/// Forward and backward time of the attention core, seconds. With flash attention the causal
/// kernel skips the masked half of the score matrix; without it, two batched GEMMs and the
/// memory-bound softmax.
pub(crate) fn core_s(x: &Inputs) -> (f64, f64) {
    let (d, dev, b) = (&x.d, &x.dev, x.b);
    let heads_local = d.heads / x.tf;
    let sq = d.s / x.cf;
    if x.s.training.flash_attention {
        let elements = 0.5 * b * heads_local * sq * d.s;
        // MLA: QKᵀ reduces over d_qk, attention·V produces d_v: FLOPs use their mean d_attn.
        match kernel_rates(x.gen, x.stack.attention) {
            Some(r) => {
                let peak = x.dev.attn_peak_flops;
                let hd = head_dim_factor(d.d_h);
                // Blackwell cuDNN: the measured part's own table (GB300's, with Blackwell
                // Ultra's faster exponentials, or B200's).
                let table = CudnnTable::of(dev);
                let blackwell =
                    x.gen == Generation::Blackwell && x.stack.attention == AttentionKernel::Cudnn;
                let r = if blackwell { table.rates_16k() } else { r };
                let (ramp_f, ramp_b) = kernel_cp_ramps(x.gen, x.stack.attention, table, d.s, x.cf);
                (
                    4.0 * d.d_attn * elements / (peak * r.0 * ramp_f * hd) + dev.kernel_s,
                    10.0 * d.d_attn * elements / (peak * r.1 * ramp_b * hd) + dev.kernel_s,
                )
            }
            None if x.cf > 1.0 => {
                // The generic rate has no sequence dependence of its own (it stands for the
                // whole sequence); context parallelism still cuts the work into shorter blocks,
                // slower by the published kernels' ramp relative to the whole sequence.
                let slow = seq_ramp(d.s) / cp_ramp(d.s, x.cf);
                let (f, b) = dev.flash_s(elements, d.d_attn);
                let k = dev.kernel_s;
                ((f - k) * slow + k, (b - k) * slow + k)
            }
            None => dev.flash_s(elements, d.d_attn),
        }
    } else {
        let batch = b * heads_local;
        let mm = dev.bmm16_s(batch, sq, d.d_h, d.s); // QKᵀ
        let mm2 = dev.bmm16_s(batch, sq, d.s, 2.0 * d.d_attn - d.d_h); // attention·V (d_v)
        let scores = batch * sq * d.s;
        if x.stack.autocast_softmax {
            let ((f, b), (kf, kb)) = if x.ab == 2.0 {
                (AUTOCAST_SOFTMAX_BYTES, AUTOCAST_SOFTMAX_KERNELS)
            } else {
                (EAGER_FP32_SOFTMAX_BYTES, EAGER_FP32_SOFTMAX_KERNELS)
            };
            let sm_f = dev.memory_s(f * scores, kf);
            let sm_b = dev.memory_s(b * scores, kb);
            return (mm + mm2 + sm_f, 2.0 * (mm + mm2) + sm_b);
        }
        let sm = dev.memory_s(SOFTMAX_ELEMENTS * x.ab * scores, 2.0);
        (mm + mm2 + sm, 2.0 * (mm + mm2) + 2.0 * sm)
    }
}

/// FlashAttention-2 on H100 SXM5, causal, head dim 128, 16k tokens: forward 335/989, backward
/// 322/989 of the dense 16-bit peak (FlashAttention-3 paper, arXiv 2407.08608, forward and
/// backward figures).
pub const HOPPER_FA2: (f64, f64) = (0.34, 0.33);
/// cuDNN's fused attention on H100 SXM5, same shape and figures: 539/989, 516/989.
pub const HOPPER_CUDNN: (f64, f64) = (0.55, 0.52);
/// FlashAttention-3 on H100 SXM5, same shape and figures: 616/989, 561/989.
pub const HOPPER_FA3: (f64, f64) = (0.62, 0.57);
/// Head-dimension ramp of fused attention, `d/(d + HEAD_DIM_RAMP)`, normalised at
/// [`RATES_AT_HEAD_DIM`] ([`head_dim_factor`]) **[derived]**.
pub const HEAD_DIM_RAMP: f64 = 16.0;
/// Head dimension of the published fused-attention fractions.
pub const RATES_AT_HEAD_DIM: f64 = 128.0;

/// Forward and backward throughput of `kernel` on `gen` as fractions of the dense 16-bit peak,
/// causal, head dim 128, long sequences (16k), softmax included — FLOPs counted as the
/// kernels' authors do (`4·s²·d·h` forward non-causal, halved causal, backward 2.5× forward).
/// `None`: no published figure (the engine then prices the tensor-core work at the generic
/// fused-attention efficiency plus the softmax exponentials, [`super::compute::Device::flash_s`]).
/// - Hopper FA2: forward 335/989 = 0.34 (FA3 paper, arXiv 2407.08608, Fig. "forward, head dim
///   128, causal", H100 SXM5), backward 322/989 = 0.33 (same paper, backward figure, d 128).
/// - Hopper cuDNN: forward 539/989 = 0.55, backward 516/989 = 0.52 (same figures).
/// - Hopper FA3: forward 616/989 = 0.62, backward 561/989 = 0.57 (same figures).
/// - Blackwell cuDNN 9.13: forward 1332.4/2250 = 0.592, backward 1074.8/2250 = 0.478, NVIDIA's
///   own measurement on a B200 (cuDNN 9.13.1, causal, head dim 128, 128 query / 8 KV heads, 16k
///   tokens; [`B200_CUDNN_9_13`]; a GB300 uses its own table, [`CudnnTable::of`]). (The FA4 paper, arXiv 2603.05451, gives cuDNN 9.13's
///   forward only as a ratio, FA4's 1605 TFLOP/s "up to 1.3×" it, and no backward; the engine
///   used 0.55 and Hopper's backward/forward ratio, 0.52, before.) Its sequence dependence is
///   its own ([`CudnnTable::ramps`]), not the FlashAttention-2 ramp.
/// - Ampere: FlashAttention-2's published 0.61 (fwd+bwd, causal, d 128, flash-attention
///   `assets/flash2_a100_fwd_bwd_benchmark.png`) is not reached by the A100 training runs of the
///   validation set; the generic model stays in use there (`None`). Nor are the slower
///   first-generation kernels an entry: llm-foundry's A100 table ran MPT's Triton kernel
///   (`attn_impl: triton`, the default of `scripts/train/benchmarking/submit_benchmarks.py` at
///   `b2a43a147`; Tri Dao's `flash_attn_triton.py`, "overall slightly slower than" the CUDA
///   FlashAttention-1), and the published A100 rates of that class (FlashAttention-1 causal
///   fwd+bwd at 16k: 97 TFLOP/s at head dim 64, 83 at 128; the Triton bars 80 and 80; same
///   figure) would make those runs' long sequences 20-25 % slow (the group's MAPE 6.8 → 16 %),
///   where the generic model (≈ 112-118 TFLOP/s) leaves them 8-14 % fast: the kernel that ran
///   reached ≈ 100 TFLOP/s, between the two, and no published figure measures it.
/// - Hopper, MPT's Triton kernel ([`AttentionKernel::Triton`]): [`TRITON_ON_HOPPER`].
pub fn kernel_rates(gen: Generation, kernel: AttentionKernel) -> Option<(f64, f64)> {
    match (gen, kernel) {
        (Generation::Hopper, AttentionKernel::Fa2) => Some(HOPPER_FA2),
        (Generation::Hopper, AttentionKernel::Triton) => Some(TRITON_ON_HOPPER),
        (Generation::Hopper, AttentionKernel::Cudnn) => Some(HOPPER_CUDNN),
        (Generation::Hopper, AttentionKernel::Fa3) => Some(HOPPER_FA3),
        (Generation::Blackwell, AttentionKernel::Cudnn) => Some(B200_CUDNN_9_13.rates_16k()),
        _ => None,
    }
}

/// FlashAttention-2's Hopper/Ampere throughput ratio, causal, head dim 128, forward + backward at
/// 16k tokens: 328 TFLOP/s on H100 SXM5 over 189 on A100 (flash-attention
/// `assets/flash2_h100_fwd_bwd_benchmark.png` and `flash2_a100_fwd_bwd_benchmark.png`). Both
/// runs are the same kernel built on Ampere's synchronous `mma.sync` tensor-core instructions
/// (FlashAttention-2 has no Hopper `wgmma`/TMA path; the FA3 paper, arXiv 2407.08608, §1, puts
/// FA2 at 35 % of H100's peak for that reason), so the ratio is what a kernel without Hopper
/// instructions gains from A100 to H100: 1.735, not the peak ratio 989/312 = 3.17.
pub const MMA_SYNC_HOPPER_OVER_AMPERE: f64 = 328.0 / 189.0;

/// MPT's Triton attention kernel on Hopper, forward and backward, fractions of H100's dense
/// 16-bit peak (989 TFLOP/s) at 16k tokens **[derived]**. The kernel (`attn_impl: triton`,
/// Tri Dao's `flash_attn_triton.py` compiled by `triton-pre-mlir`, the Triton fork of
/// December 2022 that llm-foundry pins) emits Ampere's `mma.sync`: Triton's Hopper
/// `wgmma`/TMA code generation came with its MLIR rewrite in 2023. So on H100 it runs at its
/// A100 rate times [`MMA_SYNC_HOPPER_OVER_AMPERE`]. Its A100 rate is the one the engine prices
/// for it there, the generic fused-attention path ([`Efficiency::flash_attention`] 0.40 of
/// 312 TFLOP/s for the tensor work, one exponential per score at 2.4e12/s): forward
/// 512 FLOPs / (512/124.8e12 + 1/2.4e12) s = 113.3 TFLOP/s, backward 1280 / (1280/124.8e12 +
/// 1/2.4e12) = 119.9 TFLOP/s per score. That A100 rate is an end-to-end figure: it sits where
/// llm-foundry's A100 runs of this kernel sit, between the published Triton (80 TFLOP/s) and
/// FlashAttention-2 (189) bars ([`kernel_rates`], Ampere). ×1.735 / 989: forward 0.1988,
/// backward 0.2104 (the `triton_on_hopper_is_its_a100_rate_times_the_mma_sync_ratio` test
/// recomputes them).
///
/// [`Efficiency::flash_attention`]: super::compute::Efficiency::flash_attention
pub const TRITON_ON_HOPPER: (f64, f64) = (0.1988, 0.2104);

/// The sequence ramps (forward, backward) of a published `kernel` on `gen` for a sequence of
/// `s` tokens split over `cp` context-parallel ranks ([`cp_ramp_with`]): Blackwell cuDNN's own
/// causal ramps from `table` ([`CudnnTable::ramps`]), every other kernel FlashAttention-2's
/// ([`seq_ramp`]) for both passes.
pub fn kernel_cp_ramps(
    gen: Generation,
    kernel: AttentionKernel,
    table: &CudnnTable,
    s: f64,
    cp: f64,
) -> (f64, f64) {
    match (gen, kernel) {
        (Generation::Blackwell, AttentionKernel::Cudnn) => (
            cp_ramp_with(s, cp, |x| table.ramps(x).0),
            cp_ramp_with(s, cp, |x| table.ramps(x).1),
        ),
        _ => {
            let r = cp_ramp(s, cp);
            (r, r)
        }
    }
}

/// Sequence ramp of the published kernels, normalised to 1 at 16k tokens:
/// `s/(s + 500)·(16384 + 500)/16384` **[derived]**: FA2 on H100, causal d 128, runs at 163 TFLOP/s
/// at 512 tokens and 328 at 16k (flash-attention `assets/flash2_h100_fwd_bwd_benchmark.png`),
/// i.e. half speed near 500 tokens; A100 (99 vs 189) gives 465.
pub fn seq_ramp(s: f64) -> f64 {
    ramp(s, ATTENTION_S_HALF)
}

/// Sequence length at which fused causal attention runs at half its long-sequence rate (see
/// [`seq_ramp`]).
pub const ATTENTION_S_HALF: f64 = 500.0;

/// The same kernels without the causal mask reach half speed near 150 tokens **[derived]**:
/// FlashAttention-2 on H100, d 128, forward + backward, unmasked: 248 TFLOP/s at 512 tokens,
/// 294 at 1k, 320 at 2k, 338 at 16k (flash-attention `assets/flash2_h100_fwd_bwd_benchmark.png`
/// @0251105, panel b); A100 the same shape (panel b: 187 at 2k, 203 at 16k). At short lengths
/// most of the causal kernel's slowness is its partly masked diagonal tiles.
pub const UNMASKED_S_HALF: f64 = 150.0;

/// `s/(s + half)`, normalised to 1 for causal attention at 16k tokens (so unmasked blocks at
/// 16k come out 2 % faster than causal ones; measured 338 vs 328 TFLOP/s on H100).
fn ramp(s: f64, half: f64) -> f64 {
    s / (s + half) * (RATES_AT_TOKENS + ATTENTION_S_HALF) / RATES_AT_TOKENS
}

/// Sequence ramp of the attention one rank computes under context parallelism `cp` (times
/// add, so the two parts mix harmonically). With causal load balancing each rank holds two
/// chunks of `s/(2cp)` tokens; the first ring step is a causal problem over its own `s/cp`
/// tokens (a share `1/cp` of its attention work), and each of the other `cp − 1` steps is an
/// unmasked block, `s/cp` queries against half a chunk pair or half the queries against a
/// whole one (Transformer Engine `AttnFuncWithCPAndKVP2P`,
/// `transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py` @9c61cd7:
/// `i == 0` causal, `i <= rank` and `i > rank` with `causal=False`; PyTorch's
/// `context_parallel` round-robin balancing does the same). Without CP: [`seq_ramp`] of `s`.
pub fn cp_ramp(s: f64, cp: f64) -> f64 {
    cp_ramp_with(s, cp, seq_ramp)
}

/// [`cp_ramp`] with the kernel's own causal ramp `causal` (the unmasked blocks keep
/// FlashAttention-2's, the only published unmasked curve).
pub fn cp_ramp_with(s: f64, cp: f64, causal: impl Fn(f64) -> f64) -> f64 {
    if cp <= 1.0 {
        return causal(s);
    }
    let local = s / cp;
    let first = 1.0 / cp;
    1.0 / (first / causal(local) + (1.0 - first) / ramp(local, UNMASKED_S_HALF))
}

/// Head-dimension factor, 1 at 128: `d/(d + 16)·144/128` **[derived]**: head dim 64 runs at 0.90
/// of head dim 128 (FA2 A100 causal 171 vs 189 TFLOP/s; H100 0.88), 256 at 1.06 (FA3 forward 642
/// vs 616 causal).
pub fn head_dim_factor(d_h: f64) -> f64 {
    d_h / (d_h + HEAD_DIM_RAMP) * (RATES_AT_HEAD_DIM + HEAD_DIM_RAMP) / RATES_AT_HEAD_DIM
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Modelled TFLOP/s of `kernel` on H100 (989 TFLOP/s bf16) at sequence `s`, head dim `d`:
    /// forward (weight 1) and backward (weight 2.5) together, or forward alone.
    fn h100_tflops(kernel: AttentionKernel, s: f64, d: f64, fwd_only: bool) -> f64 {
        let (f, b) = kernel_rates(Generation::Hopper, kernel).unwrap();
        let eff = if fwd_only {
            f
        } else {
            3.5 / (1.0 / f + 2.5 / b)
        };
        989.0 * eff * seq_ramp(s) * head_dim_factor(d)
    }

    fn within(model: f64, measured: f64) -> bool {
        ((model - measured) / measured).abs() <= 0.15
    }

    #[test]
    fn published_attention_throughputs() {
        use AttentionKernel::*;
        // FlashAttention-2 on H100 SXM5, causal, forward + backward (flash-attention
        // `assets/flash2_h100_fwd_bwd_benchmark.png`): d 128: 163 (512), 265 (2k), 328 (16k);
        // d 64: 141 (512), 284 (16k) TFLOP/s.
        for (s, d, tf) in [
            (512.0, 128.0, 163.0),
            (2048.0, 128.0, 265.0),
            (16384.0, 128.0, 328.0),
            (512.0, 64.0, 141.0),
            (16384.0, 64.0, 284.0),
        ] {
            let m = h100_tflops(Fa2, s, d, false);
            assert!(within(m, tf), "FA2 s {s} d {d}: {m} vs {tf}");
        }
        // Forward alone at 16k, causal, d 128 (FA3 paper Fig. forward): FA2 335, cuDNN 539,
        // FA3 616; d 256 FA3 642.
        for (k, d, tf) in [
            (Fa2, 128.0, 335.0),
            (Cudnn, 128.0, 539.0),
            (Fa3, 128.0, 616.0),
            (Fa3, 256.0, 642.0),
        ] {
            let m = h100_tflops(k, 16384.0, d, true);
            assert!(within(m, tf), "{k:?} d {d}: {m} vs {tf}");
        }
        // Blackwell cuDNN 9.13.1 on a B200, causal, d 128 (cudnn-frontend @0b1577c): 16k
        // forward 1332.4, backward 1074.8 TFLOP/s; at 8k 1171.3 / 942.5 and at 4k 855.7 / 701.3,
        // the table's own ramp (far steeper than FlashAttention-2's on H100, which would give
        // 0.971 and 0.918 of the 16k rate).
        let (f, b) = kernel_rates(Generation::Blackwell, Cudnn).unwrap();
        assert!((2250.0 * f - 1332.415).abs() < 1e-9 && (2250.0 * b - 1074.776).abs() < 1e-9);
        let (rf, rb) = B200_CUDNN_9_13.ramps(8192.0);
        assert!((2250.0 * f * rf - 1171.278).abs() < 1e-9);
        assert!((2250.0 * b * rb - 942.509).abs() < 1e-9);
        // Without context parallelism both passes keep their own ramp; CP mixes each with the
        // unmasked blocks exactly as `cp_ramp` mixes FlashAttention-2's.
        let t = &B200_CUDNN_9_13;
        let (cf, cb) = kernel_cp_ramps(Generation::Blackwell, Cudnn, t, 8192.0, 1.0);
        assert_eq!((cf, cb), (rf, rb));
        let (cf2, _) = kernel_cp_ramps(Generation::Blackwell, Cudnn, t, 8192.0, 2.0);
        let local = t.ramps(4096.0).0;
        let want = 1.0 / (0.5 / local + 0.5 / ramp(4096.0, UNMASKED_S_HALF));
        assert!((cf2 - want).abs() < 1e-12);
        // Hopper keeps FlashAttention-2's ramp for both passes.
        let h = kernel_cp_ramps(Generation::Hopper, Cudnn, t, 8192.0, 2.0);
        assert_eq!(h, (cp_ramp(8192.0, 2.0), cp_ramp(8192.0, 2.0)));
        // Unmasked blocks (the ring steps of context parallelism), FlashAttention-2 on H100,
        // d 128, forward + backward, relative to the causal 16k rate (328 TFLOP/s): 248 (512),
        // 294 (1k), 320 (2k), 338 (16k); on A100 (causal 16k: 189): 187 (2k), 203 (16k).
        for (causal16k, s, tf) in [
            (328.0, 512.0, 248.0),
            (328.0, 1024.0, 294.0),
            (328.0, 2048.0, 320.0),
            (328.0, 16384.0, 338.0),
            (189.0, 2048.0, 187.0),
            (189.0, 16384.0, 203.0),
        ] {
            let m = causal16k * ramp(s, UNMASKED_S_HALF);
            assert!(((m - tf) / tf).abs() <= 0.06, "unmasked s {s}: {m} vs {tf}");
        }
        // No published rate on Ampere in this model: the generic path is used.
        assert_eq!(kernel_rates(Generation::Ampere, Fa2), None);
        assert_eq!(kernel_rates(Generation::Ampere, Triton), None);
    }

    #[test]
    fn triton_on_hopper_is_its_a100_rate_times_the_mma_sync_ratio() {
        // The A100's generic fused-attention rate per score (tensor work at 0.40 of 312 TFLOP/s
        // plus one exponential at 2.4e12/s), scaled by FlashAttention-2's H100/A100 ratio.
        let a = crate::engine::time::compute::Efficiency::of(Generation::Ampere);
        let tensor = a.flash_attention * 312e12;
        let rate = |flops: f64| flops / (flops / tensor + 1.0 / a.exp_per_s);
        let (f, b) = (rate(512.0), rate(1280.0));
        assert!((f / 1e12 - 113.3).abs() < 0.05 && (b / 1e12 - 119.9).abs() < 0.05);
        let (tf, tb) = TRITON_ON_HOPPER;
        assert!(
            (f * MMA_SYNC_HOPPER_OVER_AMPERE / 989e12 - tf).abs() < 1e-4,
            "{tf}"
        );
        assert!(
            (b * MMA_SYNC_HOPPER_OVER_AMPERE / 989e12 - tb).abs() < 1e-4,
            "{tb}"
        );
        // About six tenths of FlashAttention-2's Hopper rate.
        let fa2 = kernel_rates(Generation::Hopper, AttentionKernel::Fa2).unwrap();
        assert!(tf / fa2.0 > 0.55 && tb / fa2.1 < 0.65);
    }

    #[test]
    fn context_parallel_mixes_one_causal_step_with_unmasked_blocks() {
        // No CP: the causal ramp of the whole sequence, exactly.
        assert_eq!(cp_ramp(8192.0, 1.0), seq_ramp(8192.0));
        // s 2048, cp 4: 512 local tokens. Causal step (share 1/4): 512/1012·16884/16384 =
        // 0.52137; unmasked steps (3/4): 512/662·16884/16384 = 0.79702;
        // 1/(0.25/0.52137 + 0.75/0.79702) = 0.70397, against 0.82830 for the whole sequence's
        // causal ramp: attention 18 % slower than CP was priced before.
        let r = cp_ramp(2048.0, 4.0);
        assert!((r - 0.70397).abs() < 5e-5, "{r}");
        assert!((seq_ramp(2048.0) - 0.82830).abs() < 5e-5);
        // Long sequences lose little (s 131072, cp 8: 16k local tokens): 1.01847 vs 1.02660.
        let long = cp_ramp(131072.0, 8.0) / seq_ramp(131072.0);
        assert!((long - 0.99208).abs() < 5e-5, "{long}");
    }

    /// `core_s` and the device of a scenario given as JSON.
    fn core_of(json: &str) -> (f64, f64, crate::engine::time::compute::Device) {
        let s = crate::scenario::parse(json).unwrap();
        super::super::inputs::with_inputs(&s, |x| {
            let (f, b) = core_s(x);
            (f, b, x.dev)
        })
    }

    #[test]
    fn autocast_runs_the_unfused_softmax_in_fp32() {
        // BERT-large's attention (16 heads, seq 512, micro-batch 4) on a V100 in fp16 without
        // flash attention: eager PyTorch (autocast) against Megatron's fused 16-bit softmax.
        let bert = |precision: &str, framework: &str| {
            core_of(&format!(
                r#"{{"model": {{"name": "m", "layers": 24, "hidden": 1024, "heads": 16,
                     "vocab": 30522, "seq_len": 512}},
                  "training": {{"global_batch": 4, "micro_batch": 4, "precision": "{precision}",
                     "recompute": "none", "flash_attention": false, "framework": "{framework}"}},
                  "parallel": {{"tp": 1, "pp": 1, "dp": 1, "zero_stage": 0}},
                  "cluster": {{"gpu": "v100-sxm2-16gb", "num_gpus": 1}}}}"#
            ))
        };
        let (pf, pb, dev) = bert("fp16", "pytorch");
        let (mf, mb, _) = bert("fp16", "megatron");
        // 4·16·512² = 16.78 M scores: forward 33 vs 9 bytes each and 5 vs 2 kernels, backward
        // 37 vs 18 bytes and 5 vs 4 kernels.
        let scores = 4.0 * 16.0 * 512.0 * 512.0;
        let fwd = 24.0 * scores / dev.hbm_bps + 3.0 * dev.kernel_s;
        let bwd = 19.0 * scores / dev.hbm_bps + dev.kernel_s;
        assert!(((pf - mf) - fwd).abs() < 1e-12, "{} vs {fwd}", pf - mf);
        assert!(((pb - mb) - bwd).abs() < 1e-12, "{} vs {bwd}", pb - mb);
        // 0.559 ms more forward per layer at the V100's sustained 720 GB/s (0.8 of 900).
        assert!((dev.hbm_bps - 720e9).abs() < 1.0);
        assert!((fwd - 3.0 * dev.kernel_s - 0.5592e-3).abs() < 1e-6, "{fwd}");
        // fp32 training runs the same chain without casts: forward 33 bytes in 4 kernels,
        // backward 29 in 3, against the fused kernel's 4.5·4 = 18 and 36 in 2 and 4.
        let ((pf, pb, _), (mf, mb, _)) = (bert("fp32", "pytorch"), bert("fp32", "megatron"));
        let fwd = 15.0 * scores / dev.hbm_bps + 2.0 * dev.kernel_s;
        let bwd = -7.0 * scores / dev.hbm_bps - dev.kernel_s;
        assert!(((pf - mf) - fwd).abs() < 1e-12, "{} vs {fwd}", pf - mf);
        assert!(((pb - mb) - bwd).abs() < 1e-12, "{} vs {bwd}", pb - mb);
    }

    /// `core_s` of one Megatron-LM layer (64 heads of 128, seq 4096, micro-batch 1, cuDNN fused
    /// attention) on `gpu`.
    fn megatron_core(gpu: &str) -> (f64, f64, crate::engine::time::compute::Device) {
        let model = serde_json::json!({"name": "m", "layers": 8, "hidden": 8192, "heads": 64,
            "vocab": 32000, "seq_len": 4096});
        let training = serde_json::json!({"global_batch": 8, "micro_batch": 1,
            "precision": "bf16", "recompute": "none", "flash_attention": true,
            "framework": "megatron"});
        let scenario = serde_json::json!({"model": model, "training": training,
            "parallel": {"tp": 1, "pp": 1, "dp": 4, "zero_stage": 1},
            "cluster": {"gpu": gpu, "num_gpus": 4, "gpus_per_node": 4}});
        core_of(&scenario.to_string())
    }

    #[test]
    fn blackwell_parts_run_their_measured_cudnn_tables() {
        // 0.5·64·4096² = 536,870,912 causal score elements, 4·128 FLOPs each forward
        // (2.7488e11), 10·128 backward (6.8719e11).
        let (f2, b2, dev) = megatron_core("gb200");
        let (f3, b3, _) = megatron_core("gb300");
        let (fwd, bwd) = (512.0 * 536_870_912.0, 1280.0 * 536_870_912.0);
        // GB200: cuDNN 9.13's B200 rates at 4096 tokens, 855.678 / 701.265 of 2250 TFLOP/s, on
        // an attention peak of 2349.28 TFLOP/s (B200's × MAMF 1822/1745): 893.44 / 732.19
        // TFLOP/s; forward 307.66 µs + 5 µs = 312.66 µs, backward 938.52 + 5 = 943.52 µs.
        let peak = 2250e12 * 1822.0 / 1745.0;
        let want = fwd / (peak * 855.678 / 2250.0) + dev.kernel_s;
        assert!((f2 - want).abs() < 1e-12, "{f2} vs {want}");
        assert!((f2 - 312.66e-6).abs() < 0.01e-6, "{f2}");
        assert!((b2 - (bwd / (peak * 701.265 / 2250.0) + dev.kernel_s)).abs() < 1e-12);
        assert!((b2 - 943.52e-6).abs() < 0.01e-6, "{b2}");
        // GB300 (Blackwell Ultra): its own table, 1144.867 / 892.572 TFLOP/s at 4096 tokens:
        // forward 240.10 + 5 = 245.10 µs (22 % shorter), backward 769.90 + 5 = 774.90 µs.
        assert!(
            (f3 - (fwd / 1144.867e12 + dev.kernel_s)).abs() < 1e-12,
            "{f3}"
        );
        assert!((f3 - 245.10e-6).abs() < 0.01e-6, "{f3}");
        assert!(
            (b3 - (bwd / 892.572e12 + dev.kernel_s)).abs() < 1e-12,
            "{b3}"
        );
        assert!((b3 - 774.90e-6).abs() < 0.01e-6, "{b3}");
    }

    /// `core_s` of a GPT-3-like layer (96 heads of 128, seq 2048, micro-batch 1) on A100 with
    /// flash attention, tensor parallel 8, context parallel `cp`.
    fn a100_core(cp: u32) -> (f64, f64, f64) {
        let (f, b, dev) = core_of(&format!(
            r#"{{"model": {{"name": "m", "layers": 8, "hidden": 12288, "heads": 96,
                 "vocab": 51200, "seq_len": 2048}},
              "training": {{"global_batch": 8, "micro_batch": 1, "precision": "bf16",
                 "recompute": "none", "flash_attention": true}},
              "parallel": {{"tp": 8, "pp": 1, "cp": {cp}, "dp": 1, "sp": true,
                 "zero_stage": 1}},
              "cluster": {{"gpu": "a100-sxm4-80gb", "num_gpus": {}}}}}"#,
            8 * cp
        ));
        (f, b, dev.kernel_s)
    }

    #[test]
    fn generic_path_slows_context_parallel_blocks_by_the_ramp() {
        // A100 has no published-rate entry, so the generic fused-attention path prices the
        // work; CP 4 gives each rank a quarter of the (causal) work in 512-token blocks, which
        // run at 0.70397/0.82830 = 0.84990 of the whole sequence's rate
        // (`context_parallel_mixes_one_causal_step_with_unmasked_blocks`).
        let (f1, b1, k) = a100_core(1);
        let (f4, b4, _) = a100_core(4);
        let expect = 0.82830 / 0.70397 / 4.0;
        for (one, four) in [(f1, f4), (b1, b4)] {
            let r = (four - k) / (one - k);
            assert!((r - expect).abs() < 1e-4 * expect, "{r} vs {expect}");
        }
    }
}
