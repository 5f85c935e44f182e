//! The element-wise work of Hugging Face transformers' eager BERT layer as PyTorch 1.10 runs
//! it, operator by operator: every operator is its own kernel that reads its inputs from HBM
//! and writes its output back, in the dtype the code and `torch.autocast` give it.
//!
//! Counted from the code the `perf_train_gpu_one.md` / `model_memory_anatomy.md` runs used
//! (transformers v4.16, read at huggingface/transformers @004ad5f5 `models/bert/
//! modeling_bert.py`, whose eager `BertSelfAttention`, `BertSelfOutput`, `BertIntermediate` and
//! `BertOutput` are the ones v4.16 ships; PyTorch 1.10):
//! - `nn.Linear` on a 3-D input `[b, s, h]` runs `matmul` and then `output.add_(bias)`, a
//!   separate kernel: PyTorch fused the bias into `addmm` only for 2-D inputs until the 3-D path
//!   of pytorch/pytorch PR #72728 / #74070 (2022-02/03, "for pt-1.12", issue #39661: "F.linear
//!   goes down to addmm for 2d tensors and to matmul + add_ for other cases"). Its backward
//!   reduces the output gradient over the tokens for the bias gradient.
//! - `transpose_for_scores` is `view` + `permute(0, 2, 1, 3)`; `torch.matmul` of two 4-D
//!   operands reshapes each to `[b·heads, s, d]`, which copies a permuted query, key or value
//!   when `b > 1` (batch and head dimensions cannot merge into one stride; with `b = 1` they do,
//!   and the batched GEMM reads the strided view). The backward's `view` of the permuted
//!   gradient back to `[b, s, h]` copies in either case. The context's
//!   `permute(0, 2, 1, 3).contiguous()` copies forward, and its gradient's reshape for the
//!   batched GEMM copies backward when `b > 1`.
//! - Under `torch.autocast` (fp16): `layer_norm` and `softmax` are on the fp32 list, `linear`
//!   and `matmul` on the fp16 list, GELU and dropout on neither (PyTorch 1.10
//!   `aten/src/ATen/autocast_mode.cpp`). So the residual stream is fp32: each `LayerNorm`
//!   writes fp32, the next `Linear` casts it to fp16 (once per `Linear`: `cached_cast` caches
//!   only leaf tensors, the weights, so the query, key and value each cast the same input), and
//!   `dropout(dense(x)) + input_tensor` adds fp16 to fp32 into fp32. The attention mask is the
//!   model's parameter dtype, fp32 (`get_extended_attention_mask`: `.to(dtype=self.dtype)`),
//!   so `scores / sqrt(d) + mask` promotes the scores to fp32 before the softmax
//!   ([`super::attention::AUTOCAST_SOFTMAX_BYTES`]). Autograd casts each gradient back to its
//!   input's dtype (one kernel per cast).
//! - Backward sums: the layer input feeds the query, key and value and the first residual (4
//!   gradients, 3 sums); the first `LayerNorm`'s output feeds the intermediate `Linear` and the
//!   second residual (1 sum); both in fp32.
//!
//! The GEMMs and the attention core's batched GEMMs and score chain are priced elsewhere
//! ([`super::layer`], [`super::attention`]); the weight casts and gradient accumulation with the
//! parameter passes ([`super::grad_accumulation`]).
//!
//! Formulas, sources and what was checked: [host.md](crate::docs::formulas::host) §3.

use super::inputs::Inputs;
use crate::engine::shape::Shape;

/// fp32 bytes per element of one `LayerNorm` forward: read the input, write the output (mean
/// and reciprocal deviation are one value per token).
pub const LAYER_NORM_FWD: f64 = 8.0;
/// fp32 bytes per element of one `LayerNorm` backward (PyTorch 1.10 `layer_norm_backward_cuda`):
/// the input gradient reads the output gradient and the input and writes (12), the weight and
/// bias gradients read the output gradient and the input again (8).
pub const LAYER_NORM_BWD: f64 = 20.0;
/// fp32 bytes of one gradient sum per element: read two, write one.
pub const GRAD_SUM: f64 = 12.0;
/// Gradient sums per hidden element of one layer: 3 at the layer input (query, key, value and
/// the residual), 1 at the first `LayerNorm`'s output (intermediate `Linear` and residual).
pub const GRAD_SUMS: f64 = 4.0;

/// Element-wise bytes per token of one eager BERT layer, forward and backward, besides the
/// attention core's score chain: activation elements of `a` bytes (2 under fp16 autocast, 4 in
/// fp32), the fp32 residual stream, widths `h` (hidden), `q`, `kv` (one of K or V), `o` (the
/// attention output's input), `f` (intermediate), and whether the micro-batch holds more than
/// one sequence (`batched`: the query, key and value copies of `torch.matmul`'s reshape).
///
/// Forward: input casts of the 4 `Linear`s fed by a `LayerNorm` (query, key, value,
/// intermediate) `c = 4 + a` each (0 in fp32); bias adds `2a` per output element of the 6
/// `Linear`s; copies `2a` (query, key, value when batched; the context always); 2 dropouts
/// `2a + 1` (1-byte mask); 2 residual adds `a + 4 + 4`; 2 `LayerNorm`s; GELU `2a`.
/// Backward: 2 `LayerNorm`s; the residual adds' casts of the gradient back to `a` (2) and the
/// 4 input casts' back to fp32, `c` each; 2 dropouts; bias gradients `a` per output element;
/// GELU `3a`; [`GRAD_SUMS`] fp32 sums; copies `2a` (query, key, value always; the context when
/// batched).
pub fn bytes_per_token(
    a: f64,
    (h, q, kv, o, f): (f64, f64, f64, f64, f64),
    batched: bool,
) -> (f64, f64) {
    let cast = if a < 4.0 { 4.0 + a } else { 0.0 };
    let qkv = q + 2.0 * kv;
    let linear_out = qkv + h + f + h;
    let batch = if batched { 1.0 } else { 0.0 };
    let dropout = 2.0 * a + 1.0;
    let fwd = 4.0 * cast * h
        + 2.0 * a * linear_out
        + 2.0 * a * (batch * qkv + o)
        + 2.0 * dropout * h
        + 2.0 * (a + 8.0) * h
        + 2.0 * LAYER_NORM_FWD * h
        + 2.0 * a * f;
    let bwd = 2.0 * LAYER_NORM_BWD * h
        + 2.0 * cast * h
        + 4.0 * cast * h
        + 2.0 * dropout * h
        + a * linear_out
        + 3.0 * a * f
        + GRAD_SUMS * GRAD_SUM * h
        + 2.0 * a * (qkv + batch * o);
    (fwd, bwd)
}

/// Kernels of one layer's element-wise work, forward and backward (besides the score chain):
/// forward 4 casts (16-bit), 6 bias adds, the copies (3 when batched, the context 1), 2
/// dropouts, 2 residual adds, 2 `LayerNorm`s, GELU; backward 4 `LayerNorm` kernels, 6 casts
/// (16-bit), 2 dropouts, 6 bias reductions, GELU, 4 sums, the copies (3, the context's when
/// batched).
pub fn kernels(a: f64, batched: bool) -> (f64, f64) {
    let (casts, batch) = (
        if a < 4.0 { 1.0 } else { 0.0 },
        if batched { 1.0 } else { 0.0 },
    );
    (
        4.0 * casts + 6.0 + 3.0 * batch + 1.0 + 2.0 + 2.0 + 2.0 + 1.0,
        4.0 + 6.0 * casts + 2.0 + 6.0 + 1.0 + GRAD_SUMS + 3.0 + batch,
    )
}

/// Forward and backward time of one eager BERT layer's element-wise work for a micro-batch,
/// seconds, on the widths of shape `d` that one GPU holds (`h_sp`: the hidden width the norms
/// and residuals span).
pub(crate) fn elementwise_s(x: &Inputs, d: &Shape, h_sp: f64) -> (f64, f64) {
    let tf = x.tf;
    let f_local = d.f_busiest(tf);
    let batched = x.b > 1.0;
    let (fwd, bwd) = bytes_per_token(
        x.ab,
        (h_sp, d.q / tf, d.kv / tf, d.o / tf, f_local),
        batched,
    );
    super::eager_block::traffic_s(x, (fwd, bwd), kernels(x.ab, batched))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bert_large_fp16_bytes_by_hand() {
        // fp16 autocast (a = 2, cast 6), BERT-large h = q = kv = o = 1024, f = 4096, b = 4.
        // Forward per h: casts 4·6 = 24; bias adds 2·2·(3 + 1 + 4 + 1) = 36; copies 2·2·(3 + 1)
        // = 16; dropouts 2·5 = 10; residuals 2·10 = 20; LayerNorms 16; GELU 2·2·4 = 16: 138.
        // Backward per h: LayerNorms 40; residual casts 12; input casts 24; dropouts 10; bias
        // gradients 2·9 = 18; GELU 6·4 = 24; sums 48; copies 2·2·(3 + 1) = 16: 192.
        let w = (1024.0, 1024.0, 1024.0, 1024.0, 4096.0);
        let (f, b) = bytes_per_token(2.0, w, true);
        assert_eq!(f, 138.0 * 1024.0);
        assert_eq!(b, 192.0 * 1024.0);
        assert_eq!(kernels(2.0, true), (21.0, 27.0));
        // One sequence per micro-batch: no query/key/value copies forward (12 per h), none for
        // the context's gradient backward (4 per h).
        let (f1, b1) = bytes_per_token(2.0, w, false);
        assert_eq!((f - f1, b - b1), (12.0 * 1024.0, 4.0 * 1024.0));
        assert_eq!(kernels(2.0, false), (18.0, 26.0));
    }

    #[test]
    fn bert_large_fp32_has_no_casts() {
        // fp32 (a = 4): forward per h: bias adds 8·9 = 72; copies 8·4 = 32; dropouts 18;
        // residuals 24; LayerNorms 16; GELU 32: 194. Backward: LayerNorms 40; dropouts 18; bias
        // gradients 36; GELU 48; sums 48; copies 32: 222.
        let (f, b) = bytes_per_token(4.0, (1024.0, 1024.0, 1024.0, 1024.0, 4096.0), true);
        assert_eq!(f, 194.0 * 1024.0);
        assert_eq!(b, 222.0 * 1024.0);
        assert_eq!(kernels(4.0, true), (17.0, 21.0));
    }

    /// BERT-large on one V100, micro-batch 4 × 512 tokens, fp16, no flash attention, under
    /// `framework` with `flash` attention.
    fn bert(framework: &str, flash: bool) -> crate::scenario::Scenario {
        crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "m", "layers": 24, "hidden": 1024, "heads": 16,
                 "ffn_hidden": 4096, "ffn_act": "gelu", "vocab": 30522, "seq_len": 512}},
              "training": {{"global_batch": 4, "micro_batch": 4, "precision": "fp16",
                 "recompute": "none", "flash_attention": {flash}, "framework": "{framework}"}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 1, "zero_stage": 0}},
              "cluster": {{"gpu": "v100-sxm2-16gb", "num_gpus": 1}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn eager_pytorch_without_flash_runs_the_bert_layer() {
        use super::super::inputs::with_inputs;
        use super::super::layer::LayerCosts;
        // 2048 tokens at 0.8·900 GB/s = 720 GB/s, 5 µs per kernel: forward
        // 2048·138·1024 / 720e9 + 21·5e-6 = 0.401954 + 0.105 = 0.506954 ms; backward
        // 2048·192·1024 / 720e9 + 27·5e-6 = 0.559241 + 0.135 = 0.694241 ms.
        with_inputs(&bert("pytorch", false), |x| {
            assert!(x.stack.hf_eager_layer);
            let l = LayerCosts::of(x);
            assert!((l.ew_fwd - 0.506_954e-3).abs() < 1e-9, "{}", l.ew_fwd);
            assert!((l.ew_bwd - 0.694_241e-3).abs() < 1e-9, "{}", l.ew_bwd);
        });
        // With flash attention (llm-foundry's MPT runs) and under Megatron-LM: the fused model.
        for s in [bert("pytorch", true), bert("megatron", false)] {
            with_inputs(&s, |x| assert!(!x.stack.hf_eager_layer));
        }
    }
}
