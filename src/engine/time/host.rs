//! The host side of eager PyTorch: the CPU issues every operator of the step one by one
//! (Python, the ATen dispatcher, autograd bookkeeping, the kernel launch), so whenever the GPU
//! runs a phase's kernels faster than the host issues them, the GPU waits and the phase takes
//! `max(GPU time, host time)` ([host.md](crate::docs::formulas::host) §1).
//!
//! Two phases are priced, each against the GPU time of the same work:
//! - one micro-batch's forward, recomputation and backward: the Hugging Face Trainer tests the
//!   loss of every micro-batch for NaN/Inf in Python (`logging_nan_inf_filter`, default on since
//!   transformers v4.10, `trainer.py`: `torch.isnan(tr_loss_step) or torch.isinf(...)`), which
//!   waits for the GPU, so micro-batches do not overlap each other's host time;
//! - the optimizer phase: gradient clipping, the update and `zero_grad`, after the GradScaler's
//!   `found_inf` check (fp16) or the clipping norm has waited for the backward.
//!
//! The host time of a phase is its operators times their cost: an operator issued from Python
//! costs [`PY_OP_S`] (with autograd recording) or [`PY_OP_NO_GRAD_S`], one issued from C++
//! (autocast casts, the autograd engine's backward kernels) [`CPP_OP_S`], and every kernel adds
//! its launch [`LAUNCH_S`]. Operator counts are those of the Hugging Face BERT layer
//! ([`EagerLayer`]) and of the Trainer's optimizer loop ([`EagerOptimizer`]).
//!
//! Not priced (no cited figure): `nn.Module.__call__` overhead, Python control flow between
//! operators, the data loader, the embedding and classifier heads (a few tens of operators per
//! step), torchtitan's host time (compiled kernels) and Megatron-LM's. Megatron-LM's can bind:
//! its DeepSeek-V3 GB200 guide (`docs/discussions/deepseek-v3-gb200-optimization` @402bc50b, §2)
//! finds MXFP8 MoE layers host-bound on Grace and counts the router's kernels (72, 31 with
//! `--moe-router-fusion`, 17 with the preprocess under DeepEP), but no source counts the rest of
//! a Transformer Engine layer's operators, and the per-operator host cost on Grace is measured
//! only per module (TransformerEngine issue #2053: an `nn.Linear` forward 37 µs of CPU on GB200,
//! 13.5 µs on an x86 H100 DGX; `te.Linear` 100 µs on GB200).

use super::inputs::Inputs;
use crate::engine::memory::params::has_biases;
use crate::scenario::{Precision, Recompute};

/// Host time of one operator called from Python while autograd records it, s: 6.8 s for 10⁶
/// `y = 2*x` on a one-element tensor with `requires_grad=True` (pytorch/pytorch issue #41383,
/// "Large overhead (7 microseconds) for PyTorch operation", July 2020, PyTorch 1.5; the issue
/// is still open, and issue #44484 measured autograd's overhead growing after 1.6).
pub const PY_OP_S: f64 = 7e-6;
/// Host time of one operator called from Python without autograd, s: "still 5 microseconds per
/// operation" with `requires_grad=False` (same issue #41383).
pub const PY_OP_NO_GRAD_S: f64 = 5e-6;
/// Host time of one operator dispatched from C++ (autocast's casts, the autograd engine), s:
/// "same operation called using c++ API would take about a microsecond" (PyTorch maintainer
/// N. Gimelshein in issue #41383).
pub const CPP_OP_S: f64 = 1e-6;
/// Host time of one kernel launch, s: `cuLaunchKernel` of an empty kernel through the CUDA
/// driver, 3.0 µs (meta-pytorch/tritonbench PR #1017, "nop_triton_direct_culaunch", GB200).
pub const LAUNCH_S: f64 = 3e-6;

/// Operators of one eager Transformer layer, counted in Hugging Face transformers
/// `models/bert/modeling_bert.py` (`BertLayer` and its modules at the 2021-2022 versions that
/// the `perf_train_gpu_one.md` runs used), PyTorch 1.10.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EagerLayer {
    /// Operators called from Python in the forward.
    pub py_ops: f64,
    /// Kernels those operators launch.
    pub kernels: f64,
    /// Autocast casts (16-bit training): kernels issued from C++ in the forward, each with a
    /// cast back in the backward.
    pub casts: f64,
    /// Backward kernels (autograd engine, C++), besides the casts' and the gradient
    /// accumulation's.
    pub bwd_kernels: f64,
    /// Backward nodes without a kernel (views, permutes, transposes, bias expands).
    pub bwd_views: f64,
}

/// The BERT layer, forward: query, key and value `Linear` with `view` + `permute` each (9),
/// `key.transpose`, `matmul`, `/ sqrt(d)`, `+ mask`, `Softmax`, `Dropout`, `matmul`,
/// `permute`, `contiguous`, `view` (10), output `Linear`, `Dropout`, residual add, `LayerNorm`
/// (4), intermediate `Linear`, GELU (2), output `Linear`, `Dropout`, add, `LayerNorm` (4): 29
/// Python operators, 20 of which launch a kernel (6 GEMMs, 2 batched GEMMs, 12 element-wise
/// and norms). Under `torch.autocast` (fp16 list: `linear`, `matmul`; fp32 list: `softmax`,
/// `layer_norm`, PyTorch `amp.html`) 18 casts: the 6 weights and 6 biases, the fp32 LayerNorm
/// output into the query, key, value and intermediate GEMMs (4), the scores up to fp32 for
/// the softmax and the probabilities down for the second `matmul` (2). Backward: 6 × 3 for the
/// GEMMs (input and weight gradients, bias reduction), 4 batched GEMMs, the division,
/// softmax, 3 dropouts, GELU, 2 × 2 LayerNorm kernels, 4 gradient sums where a tensor feeds
/// several operators, 4 copies of non-contiguous view gradients: 40; 21 kernel-free nodes.
pub const BERT_LAYER: EagerLayer = EagerLayer {
    py_ops: 29.0,
    kernels: 20.0,
    casts: 18.0,
    bwd_kernels: 40.0,
    bwd_views: 21.0,
};

/// What fused attention (`scaled_dot_product_attention` / flash-attn) replaces in
/// [`BERT_LAYER`]: the key transpose and the six operators from the first `matmul` to the
/// second become one call with one kernel (7 Python operators, 6 kernels fewer), the two
/// softmax casts go, and the backward's 4 batched GEMMs, division, softmax and dropout (7)
/// become one kernel.
pub const FLASH_SAVES: EagerLayer = EagerLayer {
    py_ops: 6.0,
    kernels: 5.0,
    casts: 2.0,
    bwd_kernels: 6.0,
    bwd_views: 1.0,
};

/// Operators per parameter tensor of the optimizer phase, each called from Python without
/// autograd.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EagerOptimizer {
    /// Operators called from Python.
    pub py_ops: f64,
    /// Kernels they launch.
    pub kernels: f64,
}

/// The Hugging Face Trainer's optimizer phase per parameter tensor (transformers v4.x before
/// `adamw_torch` became the default): transformers' `AdamW` ("adamw_hf", `optimization.py`)
/// loops over the parameters calling `mul_`, `add_`, `mul_`, `addcmul_`, `sqrt`, `add_`,
/// `addcdiv_` (7, each a kernel; weight decay 0 by default skips the eighth);
/// `clip_grad_norm_` (`max_grad_norm` 1.0 by default; PyTorch 1.10 `torch/nn/utils/clip_grad.py`)
/// calls `detach` + `norm` per gradient, then `detach` + `mul_` per gradient (4, 2 kernels);
/// `model.zero_grad()` with `set_to_none=False` (the PyTorch 1.x default) calls
/// `requires_grad_(False)` + `zero_()` (2, 1 kernel). The per-tensor `.to(device)` no-ops of the
/// clipping and the Python-only bookkeeping are left out.
pub const HF_ADAMW: EagerOptimizer = EagerOptimizer {
    py_ops: 13.0,
    kernels: 10.0,
};

/// Parameter tensors of one layer as eager Hugging Face code holds them: separate query, key,
/// value and output projections and `c_ffn` MLP matrices, with a bias each and two LayerNorms
/// of weight and bias for GELU models (BERT: 16), bias-free with two RMSNorm weights for
/// SwiGLU models (Llama: 9) ([`has_biases`]).
pub(crate) fn layer_tensors(x: &Inputs) -> f64 {
    crate::engine::memory::params::layer_tensors(&x.s.model, 4.0, x.d.c_ffn)
}

/// The eager layer of `x`: [`BERT_LAYER`], less [`FLASH_SAVES`] with flash attention, without
/// casts in fp32.
pub(crate) fn eager_layer(x: &Inputs) -> EagerLayer {
    let mut l = BERT_LAYER;
    if x.s.training.flash_attention {
        l.py_ops -= FLASH_SAVES.py_ops;
        l.kernels -= FLASH_SAVES.kernels;
        l.casts -= FLASH_SAVES.casts;
        l.bwd_kernels -= FLASH_SAVES.bwd_kernels;
        l.bwd_views -= FLASH_SAVES.bwd_views;
    }
    if x.s.training.precision == Precision::Fp32 {
        l.casts = 0.0;
    }
    l
}

/// Host time of one layer's forward, s; `py_op_s` is [`PY_OP_S`] with autograd recording,
/// [`PY_OP_NO_GRAD_S`] without (the first forward of a checkpointed layer).
pub fn layer_fwd_host_s(l: &EagerLayer, py_op_s: f64) -> f64 {
    l.py_ops * py_op_s + l.kernels * LAUNCH_S + l.casts * (CPP_OP_S + LAUNCH_S)
}

/// Host time of one layer's backward, s: its kernels, the casts back and one gradient
/// accumulation (`AccumulateGrad`, an `add_` into the existing `.grad`) per parameter tensor,
/// issued from C++, and the kernel-free nodes.
pub fn layer_bwd_host_s(l: &EagerLayer, tensors: f64) -> f64 {
    (l.bwd_kernels + l.casts + tensors) * (CPP_OP_S + LAUNCH_S) + l.bwd_views * CPP_OP_S
}

/// Host time of one micro-batch on a stage of `layers` layers, s: forward and backward, and
/// with full recomputation (`torch.utils.checkpoint`) also the first forward without autograd.
/// 0 unless the stack is eager.
pub(crate) fn micro_batch_host_s(x: &Inputs, layers: f64) -> f64 {
    if !x.stack.eager {
        return 0.0;
    }
    let l = eager_layer(x);
    let mut per_layer = layer_fwd_host_s(&l, PY_OP_S) + layer_bwd_host_s(&l, layer_tensors(x));
    if x.s.training.recompute == Recompute::Full {
        per_layer += layer_fwd_host_s(&l, PY_OP_NO_GRAD_S);
    }
    layers * per_layer
}

/// Host time of the optimizer phase for `tensors` parameter tensors, s ([`HF_ADAMW`]); 0 unless
/// the stack is eager.
pub(crate) fn optimizer_host_s(x: &Inputs, tensors: f64) -> f64 {
    if !x.stack.eager {
        return 0.0;
    }
    tensors * (HF_ADAMW.py_ops * PY_OP_NO_GRAD_S + HF_ADAMW.kernels * LAUNCH_S)
}

/// Parameter tensors of a stage holding `layers` layers and, if `embedding`, the embedding
/// table, if `output`, the final norm and an untied output matrix.
pub(crate) fn stage_tensors(x: &Inputs, layers: f64, embedding: bool, output: bool) -> f64 {
    let norm = if has_biases(&x.s.model) { 2.0 } else { 1.0 };
    let mut n = layers * layer_tensors(x);
    if embedding {
        n += 1.0;
    }
    if output {
        n += norm + if x.s.model.tied_embeddings { 0.0 } else { 1.0 };
    }
    n
}

/// How long the GPU waits for the host: per micro-batch and in the optimizer phase, s.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostStall {
    /// Host time of one micro-batch.
    pub micro_batch_host_s: f64,
    /// Host time of the optimizer phase.
    pub optimizer_host_s: f64,
    /// `max(0, host − GPU)` of one micro-batch.
    pub micro_batch_s: f64,
    /// `max(0, host − GPU)` of the optimizer phase.
    pub optimizer_s: f64,
}

impl HostStall {
    /// The stall of a stage of `layers` layers (and the embedding, the output layer where it
    /// holds them, [`stage_tensors`]) whose GPU takes `gpu_micro_batch_s` per micro-batch and
    /// `gpu_optimizer_s` for the update; nothing is worked out for a stack that is not eager.
    pub(crate) fn of(
        x: &Inputs,
        layers: f64,
        (embedding, output): (bool, bool),
        gpu_micro_batch_s: f64,
        gpu_optimizer_s: f64,
    ) -> HostStall {
        if !x.stack.eager {
            return HostStall::default();
        }
        let mb = micro_batch_host_s(x, layers);
        let opt = optimizer_host_s(x, stage_tensors(x, layers, embedding, output));
        HostStall {
            micro_batch_host_s: mb,
            optimizer_host_s: opt,
            micro_batch_s: (mb - gpu_micro_batch_s).max(0.0),
            optimizer_s: (opt - gpu_optimizer_s).max(0.0),
        }
    }

    /// The step's wait for `m` micro-batches and one optimizer phase, s.
    pub fn step_s(&self, m: f64) -> f64 {
        m * self.micro_batch_s + self.optimizer_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    fn bert(precision: &str, micro: u64, recompute: &str, framework: &str) -> scenario::Scenario {
        on_gpu(precision, micro, recompute, framework, "v100-sxm2-16gb")
    }

    fn on_gpu(
        precision: &str,
        micro: u64,
        recompute: &str,
        framework: &str,
        gpu: &str,
    ) -> scenario::Scenario {
        scenario::parse(&format!(
            r#"{{"model": {{"name": "bert-large", "layers": 24, "hidden": 1024, "heads": 16,
                 "ffn_hidden": 4096, "ffn_act": "gelu", "vocab": 30522, "seq_len": 512,
                 "tied_embeddings": true}},
              "training": {{"global_batch": 4, "micro_batch": {micro}, "precision": "{precision}",
                 "recompute": "{recompute}", "flash_attention": false, "framework": "{framework}"}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 1}},
              "cluster": {{"gpu": "{gpu}", "num_gpus": 1}}}}"#
        ))
        .unwrap()
    }

    use super::super::inputs::with_inputs as with;

    #[test]
    fn bert_layer_host_time_by_hand() {
        // fp16 forward: 29·7 + 20·3 + 18·(1 + 3) = 203 + 60 + 72 = 335 µs.
        let s = bert("fp16", 4, "none", "pytorch");
        with(&s, |x| {
            let l = eager_layer(x);
            assert_eq!(layer_tensors(x), 16.0);
            assert!((layer_fwd_host_s(&l, PY_OP_S) - 335e-6).abs() < 1e-12);
            // Backward: (40 + 18 + 16)·4 + 21·1 = 296 + 21 = 317 µs.
            assert!((layer_bwd_host_s(&l, 16.0) - 317e-6).abs() < 1e-12);
            // 24 layers: 24·652 µs = 15.648 ms per micro-batch.
            assert!((micro_batch_host_s(x, 24.0) - 24.0 * 652e-6).abs() < 1e-12);
            // Optimizer: 13·5 + 10·3 = 95 µs per tensor.
            assert!((optimizer_host_s(x, 100.0) - 100.0 * 95e-6).abs() < 1e-12);
        });
        // fp32: no casts, forward 29·7 + 20·3 = 263 µs, backward (40 + 16)·4 + 21 = 245 µs.
        let s = bert("fp32", 4, "none", "pytorch");
        with(&s, |x| {
            assert!((micro_batch_host_s(x, 1.0) - 508e-6).abs() < 1e-12);
        });
        // Full recomputation adds a forward without autograd: 29·5 + 60 + 72 = 277 µs.
        let s = bert("fp16", 1, "full", "pytorch");
        with(&s, |x| {
            assert!((micro_batch_host_s(x, 1.0) - (652e-6 + 277e-6)).abs() < 1e-12);
        });
    }

    #[test]
    fn stall_is_the_host_time_beyond_the_gpu() {
        let s = bert("fp16", 4, "none", "pytorch");
        with(&s, |x| {
            // 24 layers (16 tensors each) + embedding (1) + tied output's LayerNorm (2) = 387.
            let tensors = stage_tensors(x, 24.0, true, true);
            assert_eq!(tensors, 387.0);
            let st = HostStall::of(x, 24.0, (true, true), 0.010, 0.020);
            // 15.648 ms host vs 10 ms GPU; 387·95 µs = 36.765 ms vs 20 ms.
            assert!((st.micro_batch_s - (24.0 * 652e-6 - 0.010)).abs() < 1e-12);
            assert!((st.optimizer_s - (387.0 * 95e-6 - 0.020)).abs() < 1e-12);
            assert!((st.step_s(4.0) - (4.0 * st.micro_batch_s + st.optimizer_s)).abs() < 1e-15);
            // A GPU slower than the host: no wait.
            let slow = HostStall::of(x, 24.0, (true, true), 1.0, 1.0);
            assert_eq!(slow.step_s(4.0), 0.0);
        });
    }

    #[test]
    fn only_eager_stacks_pay_the_host() {
        for fw in ["megatron", "torchtitan", "jax", "deepspeed"] {
            let s = bert("fp16", 4, "none", fw);
            with(&s, |x| {
                assert_eq!(micro_batch_host_s(x, 24.0), 0.0, "{fw}");
                assert_eq!(optimizer_host_s(x, 387.0), 0.0, "{fw}");
            });
        }
        // The field overrides the framework either way.
        let mut s = bert("fp16", 4, "none", "pytorch");
        s.training.eager = Some(false);
        with(&s, |x| assert_eq!(micro_batch_host_s(x, 24.0), 0.0));
        let mut s = bert("fp16", 4, "none", "megatron");
        s.training.eager = Some(true);
        with(&s, |x| assert!(micro_batch_host_s(x, 24.0) > 0.0));
    }

    #[test]
    fn flash_attention_issues_fewer_operators() {
        let mut s = on_gpu("bf16", 4, "none", "pytorch", "a100-sxm4-80gb");
        s.training.flash_attention = true;
        s.model.ffn_act = scenario::FfnAct::Swiglu;
        with(&s, |x| {
            let l = eager_layer(x);
            // 23 Python operators, 15 kernels, 16 casts; Llama-style layer: 7 + 2 = 9 tensors.
            assert_eq!((l.py_ops, l.kernels, l.casts), (23.0, 15.0, 16.0));
            assert_eq!(layer_tensors(x), 9.0);
        });
    }
}
