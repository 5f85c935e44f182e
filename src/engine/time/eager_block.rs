//! The element-wise work of torchtitan's Llama block when it runs eagerly (no `torch.compile`,
//! `training.eager` on): every element-wise operator of the block is its own kernel that reads
//! its inputs from HBM and writes its output back, in the dtypes the code asks for.
//!
//! Counted from the code of the published runs (pytorch/torchtitan @9dec370, the version the
//! 2024-12 H100 benchmarks name in `benchmarks/llama3_h100_202412_torchtitan.md`; its Llama 3
//! configs leave `training.compile = false`, `train_configs/llama3_8b.toml`):
//! - `RMSNorm` (`torchtitan/models/norms.py`, the default `norm_type = "rmsnorm"`):
//!   `x * rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)` on `x.float()`, then `.type_as(x)` and
//!   `* weight` — two per block;
//! - rotary embeddings (`apply_rotary_emb`, `torchtitan/models/llama/model.py`): queries and keys
//!   cast to fp32, multiplied as complex numbers by `freqs_cis`, cast back;
//! - `repeat_kv`: `expand` + `reshape` copies K and V from the K/V heads to the query heads when
//!   they differ (grouped-query attention);
//! - the two residual adds of `TransformerBlock.forward`;
//! - the MLP activation `F.silu(self.w1(x)) * self.w3(x)` (two kernels; GELU one).
//!
//! The SDPA inputs and output are transposed views that the attention kernel reads and writes in
//! place (no copy), and the GEMMs are priced elsewhere. Backward kernels follow PyTorch's
//! autograd formulas (`tools/autograd/derivatives.yaml`: `mul` → `grad * other` and
//! `grad * self` reduced to a broadcast operand's shape; `pow` → `grad * 2 * self.pow(1)`;
//! `mean` → the gradient expanded and divided; `_to_copy` → a cast back), plus one addition per
//! tensor that feeds two operators (the block input and `h`, each into a norm and a residual;
//! the norm's fp32 input, into `pow` and the product).
//!
//! A compiled block fuses these into a few kernels; that is the default
//! [`super::layer`] element-wise model. Bytes are per element of the width each operator spans:
//! the hidden state `h` (÷t with sequence parallelism), the query and K/V widths (÷t) and the
//! MLP width (÷t) on one tensor-parallel rank.
//!
//! Formulas, sources and what was checked: [host.md](crate::docs::formulas::host) §2.

use super::inputs::Inputs;
use crate::engine::shape::Shape;

/// fp32 bytes of one `RMSNorm` forward per element, besides its casts and the weight product:
/// `pow(2)` (read 4, write 4), `mean` (read 4; one value per token written), the product with
/// the per-token `rsqrt` (read 4, write 4).
pub const RMSNORM_FWD_F32: f64 = 8.0 + 4.0 + 8.0;

/// fp32 bytes of one `RMSNorm` backward per element, besides the casts and the weight product:
/// the product's gradients `grad * r` (read 4, write 4) and `sum(grad * x, -1)` (read 8, write 4,
/// the reduction reads 4), `mean`'s expanded gradient (write 4), `pow`'s `grad * (2 *
/// x.pow(1))` (three kernels: read 4 write 4, read 4 write 4, read 8 write 4), the sum of the
/// two gradients of `x.float()` (read 8, write 4).
pub const RMSNORM_BWD_F32: f64 = 8.0 + 16.0 + 4.0 + 28.0 + 12.0;

/// fp32 bytes per element of the complex rotary product, forward or backward: read 4, write 4
/// (`freqs_cis` has one value per position and frequency, shared by every head; its reads are
/// left out).
pub const ROPE_F32: f64 = 8.0;

/// Kernels of one block's forward: two norms of 8 (cast, `pow`, `mean`, `+ eps`, `rsqrt`,
/// product, cast back, weight), rotary 3 each for queries and keys, the `repeat_kv` copies of K
/// and V, two residual adds, the activation's two.
pub const FWD_KERNELS: f64 = 16.0 + 6.0 + 2.0 + 2.0 + 2.0;

/// Kernels of one block's backward: two norms of 14 (the weight product's `grad * weight`,
/// `grad * out` and its reduction 3, the two casts 2, the product's `grad * r`, `grad * x` and
/// its row sum 3, `rsqrt` 1, `mean` 1, `pow` 3, the sum of `x.float()`'s two gradients 1),
/// rotary 3 each for queries and keys, the two `repeat_kv` sums, the two residual gradient sums,
/// the activation's three.
pub const BWD_KERNELS: f64 = 28.0 + 6.0 + 2.0 + 2.0 + 3.0;

/// Element-wise bytes per token of one eager block, forward and backward, for activation
/// elements of `a` bytes and the widths one GPU holds: `h` the hidden state, `q` the queries,
/// `kv` one of K or V, `f` the MLP's intermediate width, `c_ffn` its weight-matrix count
/// ([`Shape::c_ffn`]: 3 for SwiGLU's gate, up and down, 2 for GELU), `repeat` whether
/// `repeat_kv` copies K and V to the query width.
///
/// With `a` = 4 (fp32 training) the casts to and from fp32 are no-ops and cost nothing.
pub fn bytes_per_token(
    a: f64,
    (h, q, kv, f): (f64, f64, f64, f64),
    c_ffn: f64,
    repeat: bool,
) -> (f64, f64) {
    // One cast between the activation dtype and fp32: read one, write the other.
    let cast = if a < 4.0 { a + 4.0 } else { 0.0 };
    // Weight product: forward read + write; backward `grad * weight` (2a) and `grad * out`
    // reduced over tokens (read 2a, write a, the reduction reads a).
    let norm_fwd = RMSNORM_FWD_F32 + 2.0 * cast + 2.0 * a;
    let norm_bwd = RMSNORM_BWD_F32 + 2.0 * cast + 6.0 * a;
    let rope = (ROPE_F32 + 2.0 * cast) * (q + kv);
    // `repeat_kv`: copy K and V (read kv, write q each); backward sums the repeats back.
    let rep = if repeat && q > kv {
        2.0 * a * (q + kv)
    } else {
        0.0
    };
    // Residual adds (read 2, write 1); backward the gradient sums of the block input and `h`.
    let residual = 2.0 * 3.0 * a * h;
    // SwiGLU: `silu` (read, write) and the product (read 2, write 1); backward the product's two
    // gradients (read 2, write 1 each) and `silu`'s (read 2, write 1). GELU: read, write;
    // backward read 2, write 1.
    let (act_fwd, act_bwd) = if c_ffn > 2.0 {
        (5.0 * a * f, 9.0 * a * f)
    } else {
        (2.0 * a * f, 3.0 * a * f)
    };
    (
        2.0 * norm_fwd * h + rope + rep + residual + act_fwd,
        2.0 * norm_bwd * h + rope + rep + residual + act_bwd,
    )
}

/// Forward and backward time of one eager block's element-wise work for a micro-batch, seconds,
/// on the widths of shape `d` that one GPU holds (`h_sp`: the hidden width the norms and
/// residuals span, `h/t` with sequence parallelism).
pub(crate) fn elementwise_s(x: &Inputs, d: &Shape, h_sp: f64) -> (f64, f64) {
    let tf = x.tf;
    let f_local = d.f_busiest(tf);
    let (fwd, bwd) = bytes_per_token(
        x.ab,
        (h_sp, d.q / tf, d.kv / tf, f_local),
        d.c_ffn,
        x.stack.repeat_kv,
    );
    traffic_s(x, (fwd, bwd), (FWD_KERNELS, BWD_KERNELS))
}

/// Forward and backward time of eager element-wise work for a micro-batch, seconds: `bytes`
/// per token moved through HBM by `kernels` launches each way (every eager operator is its own
/// memory-bound kernel). Shared by this block and [`super::hf_eager_layer`].
pub(crate) fn traffic_s(x: &Inputs, bytes: (f64, f64), kernels: (f64, f64)) -> (f64, f64) {
    (
        x.dev.memory_s(x.tok * bytes.0, kernels.0),
        x.dev.memory_s(x.tok * bytes.1, kernels.1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Framework;

    #[test]
    fn llama3_8b_block_bytes_by_hand() {
        // bf16 (a = 2): a cast is 6 bytes; a norm forward 20 + 12 + 4 = 36 per element, backward
        // 68 + 12 + 12 = 92; rotary 8 + 12 = 20 per query or key element.
        // Llama 3 8B on one GPU: h = q = 4096, kv = 1024, f = 14336, SwiGLU, GQA.
        // Forward: 2·36·4096 = 294 912; rotary 20·5120 = 102 400; repeat_kv 2·2·5120 = 20 480;
        // residuals 12·4096 = 49 152; SwiGLU 10·14336 = 143 360: 610 304 bytes per token.
        // Backward: 2·92·4096 = 753 664; 102 400; 20 480; 49 152; 18·14336 = 258 048:
        // 1 183 744.
        let (f, b) = bytes_per_token(2.0, (4096.0, 4096.0, 1024.0, 14336.0), 3.0, true);
        assert_eq!(f, 610_304.0);
        assert_eq!(b, 1_183_744.0);
        // Against the fused model's 2·(10·4096 + 3·14336 + 2·5120) = 188 416 bytes forward
        // (`layer::ELEMENTWISE_PER_H`), the eager block moves 3.24 times as much.
        let fused = 2.0 * (10.0 * 4096.0 + 3.0 * 14336.0 + 2.0 * 5120.0);
        assert!((f / fused - 3.2391).abs() < 1e-4, "{}", f / fused);
    }

    /// The `llama3-8b` preset (8192 tokens) as one micro-batch on one 96 GB H100 under
    /// `framework`, per-op selective recomputation, `training.eager` set to `eager` when given.
    fn llama8b(framework: Framework, eager: Option<bool>) -> crate::scenario::Scenario {
        let mut s = crate::presets::model_preset("llama3-8b")
            .unwrap()
            .scenario();
        s.training.global_batch = 1;
        s.training.micro_batch = 1;
        s.training.recompute = crate::scenario::Recompute::Selective;
        s.training.framework = Some(framework);
        s.training.eager = eager;
        s.parallel.dp = 1;
        s.parallel.cp = 1;
        s.cluster.num_gpus = 1;
        s.cluster.gpu = crate::scenario::GpuChoice::Preset("h100-sxm5-96gb".into());
        s
    }

    #[test]
    fn an_eager_torchtitan_layer_moves_the_counted_bytes() {
        use super::super::inputs::with_inputs;
        use super::super::layer::LayerCosts;
        // 8192 tokens at 0.8·2400 GB/s = 1.92e12 B/s, 5 µs per kernel:
        // forward 8192·610 304 / 1.92e12 + 28·5e-6 = 2.60396 + 0.14 = 2.74396 ms;
        // backward 8192·1 183 744 / 1.92e12 + 41·5e-6 = 5.05064 + 0.205 = 5.25564 ms.
        let s = llama8b(Framework::Torchtitan, Some(true));
        with_inputs(&s, |x| {
            assert!(x.stack.unfused_elementwise);
            assert!((x.dev.hbm_bps - 1.92e12).abs() < 1.0);
            let l = LayerCosts::of(x);
            assert!((l.ew_fwd - 2.743_96e-3).abs() < 1e-8, "{}", l.ew_fwd);
            assert!((l.ew_bwd - 5.255_64e-3).abs() < 1e-8, "{}", l.ew_bwd);
        });
        // Compiled torchtitan (the default) and eager PyTorch with flash attention keep the fused
        // model: 8192·188 416 / 1.92e12 + 8·5e-6 = 0.80390 + 0.04 = 0.84390 ms forward; eager
        // PyTorch on FA2 adds the unpadding ([`super::super::unpad`]): 8192·(2·2·6144 + 3·2·4096)
        // = 8192·49 152 B / 1.92e12 + 24·5e-6 = 0.20972 + 0.12 = 0.32972 ms.
        for (s, want) in [
            (llama8b(Framework::Torchtitan, None), 0.843_91e-3),
            (llama8b(Framework::Pytorch, None), 0.843_91e-3 + 0.329_72e-3),
        ] {
            with_inputs(&s, |x| {
                assert!(!x.stack.unfused_elementwise);
                let l = LayerCosts::of(x);
                assert!((l.ew_fwd - want).abs() < 1e-8, "{}", l.ew_fwd);
            });
        }
    }

    #[test]
    fn fp32_has_no_casts_and_mha_no_copies() {
        // fp32 (a = 4), multi-head (kv = q), GELU: norm forward 20 + 8 = 28, backward 68 + 24 =
        // 92; rotary 8 per element; no repeat_kv; residuals 24 per element; GELU 8 per f.
        // h = q = kv = 1024, f = 4096: forward 2·28·1024 + 8·2048 + 24·1024 + 8·4096 =
        // 57 344 + 16 384 + 24 576 + 32 768 = 131 072; backward 2·92·1024 + 16 384 + 24 576 +
        // 12·4096 = 188 416 + 16 384 + 24 576 + 49 152 = 278 528.
        let (f, b) = bytes_per_token(4.0, (1024.0, 1024.0, 1024.0, 4096.0), 2.0, true);
        assert_eq!(f, 131_072.0);
        assert_eq!(b, 278_528.0);
    }
}
