//! How DeepSpeed adds up the gradients of a step's micro-batches, per micro-batch after its
//! backward, on the compute stream. Megatron-LM has no such pass: its weight-gradient GEMMs
//! accumulate into the main gradient themselves (`gradient_accumulation_fusion`).
//!
//! - Autograd's accumulation (DeepSpeed at ZeRO ≤ 1 in 16 or 32 bits, no `BF16_Optimizer`): the
//!   layers are plain `F.linear` calls (BigScience's Megatron-DeepSpeed fork,
//!   `megatron/mpu/layers.py` @119a0d2: `copy_to_tensor_model_parallel_region` then `F.linear`;
//!   Hugging Face models under DeepSpeed use `nn.Linear`), so each micro-batch's weight gradient
//!   is a new tensor that PyTorch's `AccumulateGrad` adds into the existing `.grad` in place
//!   (`variable_grad += new_grad`, `torch/csrc/autograd/functions/accumulate_grad.h`): per
//!   parameter a read of both and a write of the sum in the parameter's bytes,
//!   [`AUTOGRAD_PASSES`]` × 2` B in 16 bits, one kernel per parameter tensor. The first micro-batch
//!   after the optimizer cleared the gradients finds no `.grad` and keeps the new tensor without a
//!   pass, so `m − 1` of the `m` micro-batches pay it.
//! - DeepSpeed's `BF16_Optimizer` ([`super::stack::Stack::bf16_optimizer`]): bf16 weights and
//!   gradients, fp32 gradient accumulation, an fp32 data-parallel all-reduce and a sharded update.
//!   In `deepspeed/runtime/bf16_optimizer.py` and `pipe/engine.py` (v0.6.3):
//!   - after every micro-batch's backward, `update_hp_grads` adds each bf16 gradient into its
//!     fp32 accumulator, `hp_grad.add_(lp.grad.to(float32))`: per parameter a read of the 2-byte
//!     gradient and a write of its 4-byte upcast, then reads of the accumulator and of the
//!     upcast and a write of the accumulator, [`ACCUMULATE_BYTES_PER_PARAM`] bytes in two kernels
//!     per parameter tensor, on every stage for every micro-batch (the bf16 `.grad` is set to
//!     `None` before each backward, `clear_lp_grads`);
//!   - at the step end `_bf16_reduce_grads` all-reduces the fp32 accumulators
//!     (`buffered_allreduce_fallback` on `get_grads_for_reduction()`, the flat fp32 gradients):
//!     a full all-reduce of 4-byte gradients, not a reduce-scatter;
//!   - the step updates this rank's shard of the fp32 master weights and all-gathers the bf16
//!     weights (`update_lp_params`, `all_gather_dp_groups`), as ZeRO-1 does.
//!
//!   The reduction is priced by [`super::data_parallel::DpStep`] (all-reduce of
//!   [`super::data_parallel::reduced_grad_bytes`] = the fp32 main gradient, then the all-gather).

use super::inputs::Inputs;
use crate::engine::framework::ParamPasses;
use crate::engine::memory::params::{has_biases, layer_tensors, linear_tensors};

/// HBM bytes per parameter of one fp32 accumulation of a bf16 gradient (module docs): upcast
/// read 2 + write 4, `add_` read 4 + 4 and write 4.
pub const ACCUMULATE_BYTES_PER_PARAM: f64 = 18.0;

/// Kernels per parameter tensor of one fp32 accumulation: the upcast and the `add_`.
pub const ACCUMULATE_KERNELS_PER_TENSOR: f64 = 2.0;

/// Passes over the gradient of autograd's in-place accumulation, each in the parameter's
/// bytes: read `.grad`, read the new gradient, write `.grad`.
pub const AUTOGRAD_PASSES: f64 = 3.0;

/// Average time per micro-batch of the gradient accumulation on a stage holding `params`
/// parameters per GPU in `layers` layers (and the embedding / output layer where it holds them),
/// seconds: `BF16_Optimizer`'s fp32 accumulation after every micro-batch, else autograd's
/// in-place accumulation after `m − 1` of the `m` micro-batches (DeepSpeed at ZeRO ≤ 1); 0 for
/// other stacks.
pub(crate) fn accumulate_s(
    x: &Inputs,
    params: f64,
    layers: f64,
    embedding: bool,
    output: bool,
) -> f64 {
    let tensors = stage_tensors(x, layers, embedding, output);
    if x.stack.bf16_optimizer {
        return x.dev.memory_s(
            ACCUMULATE_BYTES_PER_PARAM * params,
            ACCUMULATE_KERNELS_PER_TENSOR * tensors,
        );
    }
    if x.stack.fw.param_passes != ParamPasses::DeepspeedAccumulation
        || x.s.parallel.zero_stage >= 2
        || x.m <= 1
    {
        return 0.0;
    }
    (x.mf - 1.0) / x.mf * x.dev.memory_s(AUTOGRAD_PASSES * x.pbytes * params, tensors)
}

/// Per micro-batch GPU time of the stack's passes over a stage's parameters besides its layers'
/// GEMMs, seconds, as (forward, backward, recomputation), for a stage of `layers` layers of
/// `mix` (and the embedding / output layer where it holds them): DeepSpeed's gradient
/// accumulation after the backward ([`accumulate_s`]), unsharded PyTorch's autocast casts and
/// accumulation ([`pytorch_param_passes_s`]); `None` for the other stacks, whose parameters
/// are not counted then.
pub(crate) fn param_passes_s(
    x: &Inputs,
    mix: crate::engine::layers::LayerMix,
    layers: f64,
    embedding: bool,
    output: bool,
) -> Option<(f64, f64, f64)> {
    let pytorch = match x.stack.fw.param_passes {
        ParamPasses::DeepspeedAccumulation => false,
        ParamPasses::EagerAutocast => true,
        ParamPasses::None => return None,
    };
    let params = x.sharded.placed(mix, embedding, output).total();
    Some(if pytorch {
        pytorch_param_passes_s(x, params, layers, embedding, output)
    } else {
        (0.0, accumulate_s(x, params, layers, embedding, output), 0.0)
    })
}

/// Bytes per parameter of `torch.autocast`'s 16-bit copy of an fp32 weight or bias: read 4,
/// write 2; the same for its backward (`_to_copy`'s gradient, the 16-bit weight gradient cast
/// back up to the fp32 parameter: read 2, write 4).
pub const AUTOCAST_CAST_BYTES_PER_PARAM: f64 = 6.0;

/// Bytes per parameter of autograd's in-place accumulation of an fp32 `.grad`
/// ([`AUTOGRAD_PASSES`] × 4): eager PyTorch keeps fp32 parameters and gradients in fp32 and in
/// mixed precision alike (`torch.autocast` casts inside the operators, PyTorch `amp.html`).
pub const EAGER_ACCUMULATE_BYTES_PER_PARAM: f64 = AUTOGRAD_PASSES * 4.0;

/// Per micro-batch GPU time of unsharded PyTorch's parameter-sized passes on a stage of
/// `layers` layers holding `params` parameters, seconds, as (forward, backward, recomputation)
/// ([host.md](crate::docs::formulas::host) §1). Only for framework `pytorch` at ZeRO 0 (a plain
/// module or DDP: one `.grad` per parameter tensor); 0 otherwise. Eager or compiled alike:
/// `AccumulateGrad` runs outside a compiled graph, and the graph still reads each fp32 weight to
/// make its 16-bit copy, so `training.eager` (the host's wait) does not turn these off.
/// - Backward, every precision: `AccumulateGrad` adds each new gradient into the existing fp32
///   `.grad` in place (`variable_grad += new_grad`, `torch/csrc/autograd/functions/
///   accumulate_grad.h`, PyTorch 1.10), [`EAGER_ACCUMULATE_BYTES_PER_PARAM`] per parameter and
///   one kernel per tensor, on every micro-batch: the Hugging Face Trainer clears the gradients
///   with `model.zero_grad()` (transformers v4.16 `trainer.py`), which in PyTorch 1.x zeroes
///   them instead of setting them to `None` (`set_to_none=False`), so `.grad` always exists.
/// - 16-bit (`torch.autocast`): `linear` is on autocast's fp16 list, so every forward casts each
///   linear layer's fp32 weight and bias to 16 bits (`cached_cast` in `aten/src/ATen/
///   autocast_mode.cpp`, PyTorch 1.10: cached only within one autocast region, the cache cleared
///   when the outermost region exits), [`AUTOCAST_CAST_BYTES_PER_PARAM`] per parameter and one
///   kernel per tensor, and the backward casts each 16-bit gradient back up (the same bytes
///   and kernels). With full recomputation the recomputed forward casts them again:
///   `torch.utils.checkpoint`'s backward (PyTorch 1.10, re-entrant) reruns the layer under a
///   fresh `torch.cuda.amp.autocast(ctx.had_autocast_in_fwd)` region, outside the Trainer's
///   `with autocast()` of the forward, whose exit already cleared the cache. LayerNorm
///   (fp32 list) and the embedding (on no list) keep their fp32 parameters uncast.
pub(crate) fn pytorch_param_passes_s(
    x: &Inputs,
    params: f64,
    layers: f64,
    embedding: bool,
    output: bool,
) -> (f64, f64, f64) {
    if x.stack.fw.param_passes != ParamPasses::EagerAutocast
        || x.s.parallel.zero_stage != 0
        || layers == 0.0
    {
        return (0.0, 0.0, 0.0);
    }
    let tensors = super::host::stage_tensors(x, layers, embedding, output);
    let accumulate = x
        .dev
        .memory_s(EAGER_ACCUMULATE_BYTES_PER_PARAM * params, tensors);
    if x.s.training.precision == crate::scenario::Precision::Fp32 {
        return (0.0, accumulate, 0.0);
    }
    let m = &x.s.model;
    let linear_params = layers
        * (crate::engine::memory::params::attention_params_of(m, x.d)
            + crate::engine::memory::params::mlp_params_of(m, m.ffn_hidden()))
        / x.tf;
    let cast_tensors = layers * linear_tensors(m, 4.0, x.d.c_ffn);
    let cast = x
        .dev
        .memory_s(AUTOCAST_CAST_BYTES_PER_PARAM * linear_params, cast_tensors);
    let rc = if x.s.training.recompute == crate::scenario::Recompute::Full {
        cast
    } else {
        0.0
    };
    (cast, accumulate + cast, rc)
}

/// Parameter tensors of a stage as Megatron-DeepSpeed's layers hold them: per layer the fused
/// QKV, the attention projection and the `c_ffn` MLP matrices, each with a bias, and two
/// LayerNorms of weight and bias (GELU: 12); bias-free with two RMSNorm weights otherwise
/// ([`has_biases`]); the embedding table on the first stage, the final norm on the last.
fn stage_tensors(x: &Inputs, layers: f64, embedding: bool, output: bool) -> f64 {
    let per_layer = layer_tensors(&x.s.model, 2.0, x.d.c_ffn);
    let norm = if has_biases(&x.s.model) { 2.0 } else { 1.0 };
    layers * per_layer + if embedding { 1.0 } else { 0.0 } + if output { norm } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::inputs::{bloom_176b, with_inputs};
    use crate::scenario::{Framework, Precision, Scenario};

    /// BLOOM-176B's production layout ([`bloom_176b`]) in `precision` under `framework` with
    /// `pp` stages.
    fn bloom(precision: Precision, framework: Framework, pp: u64) -> Scenario {
        let mut s = bloom_176b();
        s.training.precision = precision;
        s.training.framework = Some(framework);
        s.parallel.pp = pp;
        s.parallel.dp = 96 / pp;
        s
    }

    #[test]
    fn only_deepspeed_bf16_pipelines_run_it() {
        let on = |s: &Scenario| with_inputs(s, |x| x.stack.bf16_optimizer);
        assert!(on(&bloom(Precision::Bf16, Framework::Deepspeed, 12)));
        assert!(!on(&bloom(Precision::Fp16, Framework::Deepspeed, 12)));
        assert!(!on(&bloom(Precision::Bf16, Framework::Megatron, 12)));
        assert!(!on(&bloom(Precision::Bf16, Framework::Deepspeed, 1)));
        let mut s = bloom(Precision::Bf16, Framework::Deepspeed, 12);
        s.training.grad_reduce_in_fp32 = Some(false);
        assert!(!on(&s));
    }

    #[test]
    fn accumulation_streams_18_bytes_per_parameter() {
        // A stage of 6 layers holding 1e9 parameters: 18 GB through HBM plus 2 launches per
        // tensor (6 layers × 12 tensors: QKV, projection, two MLP matrices, two LayerNorms,
        // each with a bias).
        let s = bloom(Precision::Bf16, Framework::Deepspeed, 12);
        with_inputs(&s, |x| {
            let t = accumulate_s(x, 1e9, 6.0, false, false);
            let want = x.dev.memory_s(18e9, 2.0 * 6.0 * 12.0);
            assert!((t - want).abs() < 1e-12, "{t} vs {want}");
            // A100 80 GB: 18 GB at ≈ 1.5-1.8 TB/s sustained is 10-12 ms.
            assert!(t > 0.009 && t < 0.013, "{t}");
        });
        // fp16 under DeepSpeed: autograd's in-place add of 2-byte gradients, 3 passes (6 GB)
        // and one launch per tensor, after 127 of the 128 micro-batches (2048 / (2 · 8)).
        let fp16 = bloom(Precision::Fp16, Framework::Deepspeed, 12);
        with_inputs(&fp16, |x| {
            assert_eq!(x.m, 128);
            let t = accumulate_s(x, 1e9, 6.0, false, false);
            let want = 127.0 / 128.0 * x.dev.memory_s(6e9, 6.0 * 12.0);
            assert!((t - want).abs() < 1e-12, "{t} vs {want}");
        });
        // Megatron-LM accumulates inside its weight-gradient GEMMs: nothing.
        let megatron = bloom(Precision::Bf16, Framework::Megatron, 12);
        assert_eq!(
            with_inputs(&megatron, |x| accumulate_s(x, 1e9, 6.0, false, false)),
            0.0
        );
    }

    /// BERT-large (24 layers, h 1024, FFN 4096, GELU) on one V100 under `framework`.
    fn bert(precision: &str, recompute: &str, framework: &str, zero: u64) -> Scenario {
        crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "bert-large", "layers": 24, "hidden": 1024, "heads": 16,
                 "ffn_hidden": 4096, "ffn_act": "gelu", "vocab": 30522, "seq_len": 512,
                 "tied_embeddings": true}},
              "training": {{"global_batch": 4, "micro_batch": 1, "precision": "{precision}",
                 "recompute": "{recompute}", "flash_attention": false, "framework": "{framework}"}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 1, "zero_stage": {zero}}},
              "cluster": {{"gpu": "v100-sxm2-16gb", "num_gpus": 1}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn pytorch_casts_and_accumulation_by_hand() {
        // V100: 720 GB/s sustained (0.8 of 900), 5 µs per kernel.
        let s = bert("fp16", "full", "pytorch", 0);
        with_inputs(&s, |x| {
            assert!((x.dev.hbm_bps - 720e9).abs() < 1.0);
            assert!((x.dev.kernel_s - 5e-6).abs() < 1e-15);
            let (f, b, rc) = pytorch_param_passes_s(x, 1e9, 24.0, false, false);
            // Linear parameters per layer: attention 4·1024² + 4·1024 = 4 198 400, MLP
            // 2·1024·4096 + 4096 + 1024 = 8 393 728: 12 592 128, 24 layers 302 211 072, in 12
            // tensors each (288). Cast: 6·302 211 072 / 720e9 + 288·5 µs = 2.518 + 1.440 ms.
            let cast = 6.0 * 302_211_072.0 / 720e9 + 288.0 * 5e-6;
            assert!((f - cast).abs() < 1e-12, "{f} vs {cast}");
            assert!((rc - cast).abs() < 1e-12);
            // Accumulation: 12 B × 1e9 / 720e9 + 24·16 tensors · 5 µs = 16.667 + 1.920 ms.
            let acc = 12e9 / 720e9 + 384.0 * 5e-6;
            assert!((b - (acc + cast)).abs() < 1e-12, "{b}");
        });
        // fp32: no casts, the accumulation alone; no recomputed casts without recomputation.
        let s = bert("fp32", "full", "pytorch", 0);
        with_inputs(&s, |x| {
            let (f, b, rc) = pytorch_param_passes_s(x, 1e9, 24.0, false, false);
            assert_eq!((f, rc), (0.0, 0.0));
            assert!((b - (12e9 / 720e9 + 384.0 * 5e-6)).abs() < 1e-12);
        });
        let s = bert("fp16", "none", "pytorch", 0);
        with_inputs(&s, |x| {
            let (f, _, rc) = pytorch_param_passes_s(x, 1e9, 24.0, false, false);
            assert!(f > 0.0);
            assert_eq!(rc, 0.0);
        });
        // Sharded (FSDP) or non-PyTorch stacks: not this mechanism.
        for (fw, zero) in [
            ("pytorch", 3),
            ("megatron", 0),
            ("torchtitan", 0),
            ("deepspeed", 0),
        ] {
            let s = bert("fp16", "full", fw, zero);
            with_inputs(&s, |x| {
                assert_eq!(
                    pytorch_param_passes_s(x, 1e9, 24.0, false, false),
                    (0.0, 0.0, 0.0),
                    "{fw} {zero}"
                );
            });
        }
    }

    #[test]
    fn fp32_all_reduce_then_bf16_all_gather() {
        // Per parameter of the critical stage, the ZeRO optimizer path (grad_reduce_in_fp32
        // off) moves (n−1)/n·(2 + 2) B (bf16 reduce-scatter + all-gather); BF16_Optimizer moves
        // (n−1)/n·(2·4 + 2) B (fp32 all-reduce + bf16 all-gather): 2.5 times as much. Two
        // stages of 35 layers, each with a copy of the tied embedding, hold the same parameters
        // up to the final norm, whichever of them is the slowest.
        let mut on = bloom(Precision::Bf16, Framework::Deepspeed, 2);
        on.training.global_batch = 2016; // a multiple of micro-batch 2 × dp 48
        let mut off = on.clone();
        off.training.grad_reduce_in_fp32 = Some(false);
        let e_on = crate::engine::estimate::estimate(&on).expect("estimate");
        let e_off = crate::engine::estimate::estimate(&off).expect("estimate");
        let ratio = e_on.comm.dp.bytes / e_off.comm.dp.bytes;
        assert!((ratio - 2.5).abs() < 1e-6, "{ratio}");
        // And every micro-batch's backward carries the accumulation.
        assert!(e_on.time.backward_s > e_off.time.backward_s);
    }
}
