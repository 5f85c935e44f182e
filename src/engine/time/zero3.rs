//! ZeRO-3 / FSDP: per micro-batch, every layer's parameters are all-gathered forward and again
//! backward (re-gathered, since they are resharded after forward: FSDP `reshard_after_forward`,
//! DeepSpeed releases a parameter whose next use is further than `stage3_max_reuse_distance`),
//! and its gradients reduce-scattered; only the next unit is prefetched under the current
//! unit's compute. With full recomputation the recomputed forward and the backward of a block
//! share one gather under FSDP (its pre-backward hook gathers before the checkpointed forward
//! reruns); DeepSpeed releases each module's parameters after its recomputed forward too and
//! keeps only those reused within `stage3_max_reuse_distance` elements, so the weights of a
//! large layer are gathered a second time for its backward ([`regathered`]).
//!
//! How many collectives a layer issues is the framework's ([`FsdpMechanism`]): each one is a ring
//! whose latency grows with the shard group ([`super::comm::Group::gather_s`]) — this is why
//! ZeRO-3 stops scaling on hundreds of nodes while its bytes per GPU stay constant.
//! HSDP (`parallel.shard_ranks`): gathers and reduce-scatters run inside the shard group; the
//! reduced gradient shard is then all-reduced across the replicas.
//!
//! Formulas, sources and what was checked: [comm.md](crate::docs::formulas::comm) §8.

use super::comm::Group;
use super::inputs::Inputs;
use super::stack::{FsdpMechanism, DEEPSPEED_MAX_REUSE_ELEMENTS, DEEPSPEED_REDUCE_BUCKET_ELEMENTS};
use crate::engine::shape::MAX_LAYER_GEMMS;
use crate::scenario::Recompute;

/// Per-layer, per-micro-batch ZeRO-3 costs on one GPU, seconds (all zero without ZeRO-3).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Zero3Layer {
    /// All-gathers of the layer's parameters (once forward, once backward).
    pub ag: f64,
    /// The second gathers of backward: the weights DeepSpeed released after the recomputed
    /// forward ([`regathered`]; 0 elsewhere).
    pub ag_rc: f64,
    /// Bytes of those second gathers.
    pub ag_rc_bytes: f64,
    /// Reduce-scatter of the layer's gradients (and, with HSDP, the all-reduce of the shard
    /// across replicas).
    pub rs: f64,
    /// All-gather calls per layer.
    pub ag_calls: f64,
    /// Bytes per parameter of the reduced gradients.
    pub grad_bytes: f64,
    /// Copy-out of the gathered buffer forward.
    pub copy_fwd: f64,
    /// Copy-out backward and gradient copy-in.
    pub copy_bwd: f64,
    /// Every collective waits for compute and compute for it (a device synchronisation before
    /// each gather, [`FsdpMechanism::PerParameterSync`]): nothing overlaps.
    pub serial: bool,
}

impl Zero3Layer {
    /// The ZeRO-3 costs of one layer of `x`.
    pub(crate) fn of(x: &Inputs) -> Zero3Layer {
        if !x.zero3 {
            return Zero3Layer::default();
        }
        // The layer's parameters ZeRO shards: the routed experts only when their shard degree is
        // above 1 (whole experts have nothing to gather or reduce-scatter; NeMo Automodel leaves
        // them out of FSDP then, `nemo_automodel/components/moe/parallelizer.py` @89e3a9fdd
        // l.158-162, memory/states.md 11).
        let experts = if x.experts_sharded {
            x.sharded.layer_experts
        } else {
            0.0
        };
        let params = x.sharded.layer_dense + experts;
        let bytes = params * x.pbytes;
        let g = &x.groups.shard;
        // The layer's weight tensors (the small norms and biases stay resident under
        // DeepSpeed's persistence threshold), as the stack's model code holds them.
        let tensors = || weight_tensors(x).1.max(1) as f64;
        let (ag_calls, rs_calls) = match x.stack.fsdp {
            // One gather per weight tensor; gradients in reduce buckets spanning layers.
            FsdpMechanism::PerParameter => (
                tensors(),
                (params / DEEPSPEED_REDUCE_BUCKET_ELEMENTS).max(1e-3),
            ),
            // One gather per weight tensor (the small biases and norms stay resident under
            // `param_persistence_threshold`, 1e5 elements), and one reduce-scatter per
            // parameter with a gradient, the resident ones too: DeepSpeed v0.3.16 reduces a
            // bucket by looping over its parameters, one `reduce_scatter` each
            // (`_reduce_scatter_gradients` → `_reduce_scatter_gradient`,
            // `runtime/zero/partition_parameters.py` l. 887-955; `average_tensor`,
            // `stage3.py` l. 1947).
            FsdpMechanism::PerParameterSync => (tensors(), param_tensors(x)),
            FsdpMechanism::PerBlock | FsdpMechanism::PerBlockCopyOut => (1.0, 1.0),
        };
        let (re_share, re_calls) = match x.stack.fsdp {
            FsdpMechanism::PerParameter | FsdpMechanism::PerParameterSync
                if x.s.training.recompute == Recompute::Full =>
            {
                regathered(x)
            }
            _ => (0.0, 0.0),
        };
        // FSDP2 reduces in `MixedPrecisionPolicy.reduce_dtype`, fp32 in torchtitan
        // (`training.mixed_precision_reduce` default "float32", `torchtitan/config_manager.py`
        // and `parallelisms/parallelize_llama.py` @9dec370): the 16-bit gradients are cast into an
        // fp32 reduce-scatter input (`foreach_reduce`), so the reduction moves the main-gradient
        // bytes (`training.grad_reduce_in_fp32`, default true). The other styles reduce the
        // gradients in the parameter dtype.
        let grad_bytes = match x.stack.fsdp {
            FsdpMechanism::PerBlockCopyOut => params * x.main_grad_bytes,
            _ => bytes,
        };
        let replicas = &x.groups.replica;
        let shard_ar = replicas.all_reduce_s(grad_bytes / g.n.max(1.0));
        let (copy_fwd, copy_bwd) = match x.stack.fsdp {
            // Read + write the gathered buffer forward and backward; read the gradients and
            // write them into the reduce-scatter input (in the reduce dtype).
            FsdpMechanism::PerBlockCopyOut => (
                x.dev.memory_s(2.0 * bytes, 1.0),
                x.dev.memory_s(3.0 * bytes + grad_bytes, 2.0),
            ),
            // Per rank and call, two eager PyTorch ops on the host: DeepSpeed's Python loop
            // cuts the rank's slice (`narrow`, `partition_parameters.py` l. 810-814 and
            // 925-948 at v0.3.16) and c10d copies it out of (or into) the flat NCCL buffer with
            // one copy kernel. Each costs about one kernel launch ([`Device::kernel_s`]: ATen
            // dispatch plus `cudaLaunchKernel`, ≈ 5 µs; the slices are too small for their
            // bytes to matter), and with a synchronisation before every gather the host's time
            // is the step's. Forward's gathers, then backward's gathers and reduce-scatters.
            FsdpMechanism::PerParameterSync => {
                let per_call = 2.0 * g.n * x.dev.kernel_s;
                (
                    ag_calls * per_call,
                    (ag_calls + re_calls + rs_calls) * per_call,
                )
            }
            FsdpMechanism::PerParameter | FsdpMechanism::PerBlock => (0.0, 0.0),
        };
        let ag_rc = if re_calls > 0.0 {
            calls_s(g, re_calls, re_share * bytes)
        } else {
            0.0
        };
        Zero3Layer {
            ag: calls_s(g, ag_calls, bytes),
            ag_rc,
            ag_rc_bytes: re_share * bytes,
            rs: calls_s(g, rs_calls, grad_bytes) + shard_ar,
            ag_calls,
            grad_bytes: grad_bytes / params.max(1.0),
            copy_fwd,
            copy_bwd,
            serial: x.stack.fsdp == FsdpMechanism::PerParameterSync,
        }
    }

    /// Exposed ZeRO-3 time of a stage of `nl` layers per micro-batch, given the stage's forward,
    /// backward and recompute time: the first gather forward and the last reduce-scatter
    /// backward are exposed; with DP overlap on, the others run under the neighbouring layer's
    /// compute (prefetch depth 1), and what does not fit is exposed; hidden collectives still
    /// take their SM share ([`Inputs::collective_sm_share`]). Returns `(exposed, contention)`,
    /// the second the part of the first that share is ([`super::contention`]).
    pub(crate) fn stage_exposed_s(
        &self,
        x: &Inputs,
        nl: f64,
        fwd: f64,
        bwd: f64,
        rc: f64,
    ) -> (f64, f64) {
        let ag_total = nl * self.ag;
        let ag_bwd = ag_total + nl * self.ag_rc - self.kept_last_s(x);
        let fwd_exp = self.ag + (ag_total - self.ag - fwd).max(0.0);
        let bwd_exp = self.rs + (ag_bwd + nl * self.rs - self.rs - bwd - rc).max(0.0);
        let total = ag_total + ag_bwd + nl * self.rs;
        let copies = nl * (self.copy_fwd + self.copy_bwd);
        if x.s.dp_comm_overlap() && !self.serial {
            let exposed = (fwd_exp + bwd_exp).min(total);
            let c =
                super::contention::charge(total, exposed, x.collective_sm_share(&x.groups.shard));
            (copies + exposed + c, c)
        } else {
            (copies + total, 0.0)
        }
    }

    /// The FSDP2 root unit's collectives, seconds, exposed: the parameters outside the
    /// Transformer blocks (the input embedding, the final norm and the output layer a GPU
    /// holds, as `ends` says: embedding, output) are one FSDP unit, the root (torchtitan `apply_fsdp`,
    /// `torchtitan/parallelisms/parallelize_llama.py` @9dec370: `fully_shard` on each block,
    /// then on the whole model). The root gathers before the embedding, first in the forward,
    /// with nothing to hide under, and keeps its parameters until the backward (PyTorch
    /// `fully_shard` docstring: the root's `reshard_after_forward` is set to `False`, "since
    /// its parameters would typically be immediately all-gathered for backward"); its
    /// gradients are complete only when the embedding's, the last of the backward, are, so its
    /// reduce-scatter (in the reduce dtype) ends the backward, exposed too. Only for FSDP2
    /// ([`FsdpMechanism::PerBlockCopyOut`]) in a stack that wraps the ends so
    /// ([`super::stack::Stack::fsdp_root_ends`]); the other styles' end parameters are not
    /// priced (FSDP1 wrapping and XLA's sharding were not checked; DeepSpeed reduces in buckets
    /// spanning modules). 0 without ZeRO-3.
    pub(crate) fn root_unit_s(&self, x: &Inputs, ends: (bool, bool)) -> f64 {
        if !x.zero3 || !x.stack.fsdp_root_ends {
            return 0.0;
        }
        match x.stack.fsdp {
            FsdpMechanism::PerBlockCopyOut => {
                let params = x
                    .sharded
                    .placed(crate::engine::layers::LayerMix::default(), ends.0, ends.1)
                    .total();
                if params <= 0.0 {
                    return 0.0;
                }
                let g = &x.groups.shard;
                let grad = params * self.grad_bytes;
                g.gather_s(params * x.pbytes)
                    + g.gather_s(grad)
                    + x.groups.replica.all_reduce_s(grad / g.n.max(1.0))
            }
            FsdpMechanism::PerBlock
            | FsdpMechanism::PerParameter
            | FsdpMechanism::PerParameterSync => 0.0,
        }
    }

    /// The backward gather the last block skips, seconds: torchtitan does not reshard the last
    /// Transformer block after its forward without pipeline parallelism, "since FSDP would
    /// prefetch it immediately" (`apply_fsdp`, `torchtitan/parallelisms/parallelize_llama.py`
    /// @9dec370: `reshard_after_forward = int(layer_id) < len(model.layers) - 1`), so its
    /// parameters stay gathered for its backward ([`super::stack::Stack::fsdp_root_ends`], the
    /// same wrapping). With PP torchtitan reshards no block after forward; not priced here.
    pub(crate) fn kept_last_s(&self, x: &Inputs) -> f64 {
        if x.stack.fsdp_root_ends && x.p == 1 && x.stack.fsdp == FsdpMechanism::PerBlockCopyOut {
            self.ag
        } else {
            0.0
        }
    }

    /// Collective time of a stage of `nl` layers per micro-batch (hidden or not).
    pub fn stage_total_s(&self, nl: f64) -> f64 {
        nl * (2.0 * self.ag + self.ag_rc + self.rs)
    }
}

/// Whether the stack's model code fuses the query, key and value projections into one weight
/// tensor, and SwiGLU's gate and up projections into another: Megatron-LM (`linear_qkv`,
/// `linear_fc1` of `2·ffn` outputs, `megatron/core/transformer/attention.py` and `mlp.py`) and
/// the Megatron-DeepSpeed GPT that DeepSpeed's ZeRO-3 ran in 2021 (`query_key_value`,
/// `dense_h_to_4h`, `megatron/model/transformer.py`: a GPT layer holds 4 weight matrices).
/// The Llama-style models of the other stacks (torchtitan `wq`, `wk`, `wv`; Hugging Face
/// `q_proj`, `k_proj`, `v_proj`; MaxText `query`, `key`, `value`) keep them apart.
fn fuses_projections(x: &Inputs) -> bool {
    x.stack.fw.fused_projections
}

/// The weight tensors of one layer in forward order, elements each on one GPU of the TP group,
/// as the stack's model code holds them ([`fuses_projections`]): [`Shape::layer_gemms`] with
/// Q, K and V one tensor (not for MLA, whose projections are separate modules) and SwiGLU's
/// gate and up one tensor where the stack fuses them. GPT-3 in Megatron-DeepSpeed: QKV `3h²`,
/// O `h²`, FC1 `4h²`, FC2 `4h²`, 4 tensors (6 with separate projections).
///
/// [`Shape::layer_gemms`]: crate::engine::shape::Shape::layer_gemms
pub(crate) fn weight_tensors(x: &Inputs) -> ([f64; MAX_LAYER_GEMMS], usize) {
    let (gemms, n) = x.d.layer_gemms();
    let mut out = [0.0; MAX_LAYER_GEMMS];
    let fused = fuses_projections(x);
    // Q, K, V: the first three of standard attention; SwiGLU's gate and up: the first two MLP
    // GEMMs when the MLP has three.
    let qkv = fused && !x.d.is_mla();
    let mlp = x.d.attention_gemms();
    let gate_up = fused && n >= mlp + 3;
    let mut m = 0;
    for (i, g) in gemms.iter().enumerate().take(n) {
        let size = g.k * g.n / x.tf;
        let joins = (qkv && (i == 1 || i == 2)) || (gate_up && i == mlp + 1);
        if joins && m > 0 {
            out[m - 1] += size;
        } else {
            out[m] = size;
            m += 1;
        }
    }
    (out, m)
}

/// Parameter tensors of one layer as the stack's model code holds them: its [`weight_tensors`]
/// with a bias each for GELU models, and the two norms (weight and bias for LayerNorm)
/// ([`crate::engine::memory::params::layer_tensors`]). GPT-3 in Megatron-DeepSpeed: 12.
pub(crate) fn param_tensors(x: &Inputs) -> f64 {
    let linears = weight_tensors(x).1 as f64;
    crate::engine::memory::params::layer_tensors(&x.s.model, linears, 0.0)
}

/// The share of a layer's weights, and how many weight tensors, DeepSpeed gathers again for the
/// backward after its full recomputation. In the recomputation each weight is used in its
/// module's forward and next in that module's backward; between the two run the recomputed
/// forwards of the layer's later modules and their backwards, so the reuse distance of weight
/// `i` (in forward order, sizes `n_j` of the TP rank's shards) is `2·Σ_{j>i} n_j` elements.
/// Above [`DEEPSPEED_MAX_REUSE_ELEMENTS`] the weight is released after the recomputed forward
/// and gathered again (`post_sub_module_forward_function` → `release_sub_module`, then
/// `pre_sub_module_backward_function` → `fetch_sub_module`, `stage3.py` at `a12aaedc9`).
/// GPT-3 175B without TP: FC2 (604 M) stays, FC1 (distance 1.21 G), the output projection and
/// the fused QKV are gathered again: 67 % of the layer, in 3 calls. The tensors are those of
/// [`weight_tensors`] (an MoE layer's by one routed copy of its MLP).
pub(crate) fn regathered(x: &Inputs) -> (f64, f64) {
    let (tensors, n) = weight_tensors(x);
    let size = |i: usize| tensors[i];
    let all: f64 = (0..n).map(size).sum();
    let (mut later, mut share, mut calls) = (0.0, 0.0, 0.0);
    for i in (0..n).rev() {
        if 2.0 * later >= DEEPSPEED_MAX_REUSE_ELEMENTS {
            share += size(i);
            calls += 1.0;
        }
        later += size(i);
    }
    if all > 0.0 {
        (share / all, calls)
    } else {
        (0.0, 0.0)
    }
}

/// `calls` gathers (or reduce-scatters) that together move `bytes`, seconds.
fn calls_s(g: &Group, calls: f64, bytes: f64) -> f64 {
    calls * g.gather_s(bytes / calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Llama 3 8B (untied, SwiGLU, 8 KV heads) at 8192 tokens on 64 H100s under ZeRO-3 without
    /// recomputation, on `framework`'s stack.
    fn llama3_8b_fsdp64(framework: &str) -> crate::scenario::Scenario {
        crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "m", "layers": 32, "hidden": 4096, "heads": 32,
                 "kv_heads": 8, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256,
                 "seq_len": 8192}},
              "training": {{"global_batch": 64, "micro_batch": 1, "precision": "bf16",
                 "recompute": "none", "flash_attention": true, "framework": "{framework}"}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 64, "zero_stage": 3}},
              "cluster": {{"gpu": "h100-sxm5-80gb", "num_gpus": 64}}}}"#
        ))
        .unwrap()
    }

    /// [`regathered`] for GPT-3 175B under DeepSpeed ZeRO-3 with full recomputation and
    /// tensor parallelism `tp`.
    fn gpt3_regathered(tp: u32) -> (f64, f64) {
        let s = crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "m", "layers": 96, "hidden": 12288, "heads": 96,
                 "vocab": 51200, "seq_len": 2048}},
              "training": {{"global_batch": 1536, "micro_batch": 1, "precision": "fp16",
                 "recompute": "full", "framework": "deepspeed"}},
              "parallel": {{"tp": {tp}, "pp": 1, "dp": 64, "zero_stage": 3}},
              "cluster": {{"gpu": "a100-sxm4-80gb", "num_gpus": {}}}}}"#,
            64 * tp
        ))
        .unwrap();
        super::super::inputs::with_inputs(&s, regathered)
    }

    /// The ZeRO-3 layer costs of a Llama-3-8B-like model under `framework` (bf16, FSDP over 64).
    fn llama_layer(framework: &str) -> (Zero3Layer, f64) {
        let s = crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "m", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
                 "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192}},
              "training": {{"global_batch": 64, "micro_batch": 1, "precision": "bf16",
                 "recompute": "none", "flash_attention": true, "framework": "{framework}"}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 64, "zero_stage": 3}},
              "cluster": {{"gpu": "h100-sxm5-80gb", "num_gpus": 64}}}}"#
        ))
        .unwrap();
        super::super::inputs::with_inputs(&s, |x| (Zero3Layer::of(x), x.sharded.layer()))
    }

    /// The ZeRO-3 layer of a Qwen3-30B-A3B-like MoE under torchtitan, dp 8, with `ep` ranks.
    fn moe_layer(ep: u64) -> (Zero3Layer, f64, f64) {
        let s = crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "m", "layers": 48, "hidden": 2048, "heads": 32, "kv_heads": 4,
                 "head_dim": 128, "ffn_hidden": 6144, "ffn_act": "swiglu", "vocab": 151936,
                 "seq_len": 4096, "moe": {{"experts": 128, "top_k": 8, "expert_ffn_hidden": 768}}}},
              "training": {{"global_batch": 64, "micro_batch": 1, "precision": "bf16",
                 "recompute": "full", "flash_attention": true, "framework": "torchtitan"}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 8, "ep": {ep}, "zero_stage": 3}},
              "cluster": {{"gpu": "h100-sxm5-80gb", "num_gpus": 8}}}}"#
        ))
        .unwrap();
        super::super::inputs::with_inputs(&s, |x| {
            (Zero3Layer::of(x), x.sharded.layer_dense, x.sharded.layer())
        })
    }

    #[test]
    fn whole_experts_are_not_gathered() {
        // ep 8 = dp 8: each GPU holds its 16 experts whole (shard degree 1), so the layer's
        // gather moves its dense parameters only; ep 2 (degree 4) gathers the experts too. The
        // all-gather time is the same function of the bytes, so the ratio of the two gathers'
        // bandwidth parts is that of the parameters gathered.
        let (whole, dense, _) = moe_layer(8);
        let (sharded, dense2, layer2) = moe_layer(2);
        assert_eq!(dense, dense2);
        assert!(layer2 > 10.0 * dense2, "{layer2} vs {dense2}");
        assert!(
            whole.ag > 0.0 && sharded.ag > 4.0 * whole.ag,
            "{} vs {}",
            sharded.ag,
            whole.ag
        );
    }

    #[test]
    fn fsdp2_reduces_gradients_in_fp32() {
        // torchtitan (FSDP2, reduce_dtype fp32) reduce-scatters 4 bytes per parameter, FSDP1
        // under eager PyTorch 2 (the parameter dtype); both gather 2.
        let (tt, params) = llama_layer("torchtitan");
        let (pt, _) = llama_layer("pytorch");
        assert_eq!((tt.grad_bytes, pt.grad_bytes), (4.0, 2.0));
        assert_eq!(tt.ag, pt.ag);
        // 218 M parameters a layer: twice the bytes; the ring latency does not double (1.86×).
        assert!(params > 2.1e8 && params < 2.3e8, "{params}");
        let r = tt.rs / pt.rs;
        assert!(r > 1.8 && r < 2.0, "{r}");
    }

    #[test]
    fn torchtitan_fsdp2_wrapping_root_unit_and_last_block() {
        // Llama-3-8B (untied): the root holds the embedding and the output layer, 128256·4096
        // each, and the final norm, 4096: P = 1 050 677 248 + 4096 parameters, gathered in
        // bf16 (2 B) and reduce-scattered in fp32 (4 B) over the 64-GPU shard group.
        let p = 2.0 * 128_256.0 * 4096.0 + 4096.0;
        let s = |framework: &str| llama3_8b_fsdp64(framework);
        let (root, expected) = super::super::inputs::with_inputs(&s("torchtitan"), |x| {
            let held = x
                .sharded
                .placed(crate::engine::layers::LayerMix::default(), true, true)
                .total();
            assert!((held - p).abs() < 1.0, "{held}");
            let g = &x.groups.shard;
            (
                Zero3Layer::of(x).root_unit_s(x, (true, true)),
                g.gather_s(2.0 * p) + g.gather_s(4.0 * p),
            )
        });
        assert!((root - expected).abs() < 1e-15, "{root} vs {expected}");
        // 6.3 GB through the 64-GPU ring: tens of milliseconds, not nothing.
        assert!(root > 0.01 && root < 0.2, "{root}");
        // The last block stays gathered for its backward (pp 1): one layer's gather fewer.
        let (kept, ag) = super::super::inputs::with_inputs(&s("torchtitan"), |x| {
            let z = Zero3Layer::of(x);
            (z.kept_last_s(x), z.ag)
        });
        assert!(ag > 0.0);
        assert_eq!(kept, ag);
        // FSDP1 (eager PyTorch's style) does not price it.
        let fsdp1 = super::super::inputs::with_inputs(&s("pytorch"), |x| {
            let z = Zero3Layer::of(x);
            (z.root_unit_s(x, (true, true)), z.kept_last_s(x))
        });
        assert_eq!(fsdp1, (0.0, 0.0));
    }

    #[test]
    fn megatron_code_fuses_the_projections_other_stacks_do_not() {
        // GPT-3 175B (GELU) under DeepSpeed (Megatron-DeepSpeed's GPT): 4 tensors, 12h² in all;
        // Llama 3 8B (SwiGLU, GQA) under torchtitan: 7 (wq, wk, wv, wo, w1, w3, w2); under
        // Megatron-LM: 4 (linear_qkv, linear_proj, linear_fc1 of 2·ffn outputs, linear_fc2).
        let gpt = crate::scenario::parse(
            r#"{"model": {"name": "m", "layers": 96, "hidden": 12288, "heads": 96,
                 "vocab": 51200, "seq_len": 2048},
              "training": {"global_batch": 1536, "micro_batch": 1, "precision": "fp16",
                 "recompute": "full", "framework": "deepspeed"},
              "parallel": {"tp": 1, "pp": 1, "dp": 64, "zero_stage": 3},
              "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 64}}"#,
        )
        .unwrap();
        let ((t, n), all) =
            super::super::inputs::with_inputs(&gpt, |x| (weight_tensors(x), param_tensors(x)));
        let h2 = 12288.0 * 12288.0;
        assert_eq!(n, 4);
        assert_eq!(&t[..4], &[3.0 * h2, h2, 4.0 * h2, 4.0 * h2]);
        // With their 4 biases and 2 LayerNorms (weight, bias): 12 tensors with a gradient.
        assert_eq!(all, 12.0);
        for (framework, want) in [("torchtitan", 7), ("megatron", 4), ("deepspeed", 4)] {
            let s = llama3_8b_fsdp64(framework);
            let (t, n) = super::super::inputs::with_inputs(&s, weight_tensors);
            assert_eq!(n, want, "{framework}");
            // The same 218,103,808 weights however they are grouped.
            assert_eq!(t[..n].iter().sum::<f64>(), 218_103_808.0, "{framework}");
        }
    }

    #[test]
    fn deepspeed_regathers_weights_beyond_the_reuse_distance() {
        // h² = 151.0 M. Megatron-DeepSpeed's GPT layer in forward order: the fused QKV (3h²),
        // O (h²), FC1, FC2 (4h² each); reuse distance 2·(later weights): FC2 0, FC1 2·4h² =
        // 1.21 G ≥ 1 G, O 2·8h², QKV more: all but FC2 are gathered again, 8h² of 12h², in 3
        // calls.
        let (share, calls) = gpt3_regathered(1);
        assert!((share - 8.0 / 12.0).abs() < 1e-12, "{share}");
        assert_eq!(calls, 3.0);
        // TP 8 shrinks every shard eightfold: QKV's distance 2·9h²/8 = 340 M, all kept.
        assert_eq!(gpt3_regathered(8), (0.0, 0.0));
    }
}
