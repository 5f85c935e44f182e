//! The software stack as physical mechanisms: what each `training.framework` runs by default.
//!
//! A framework never scales time by a factor; it selects mechanisms, each with its own cited
//! constants, that the time model then prices (DESIGN.md, `training.framework`).

use super::attention::AttentionKernel;
use super::compute::Generation;
pub use crate::engine::framework::CpMechanism;
use crate::engine::framework::{traits, Traits};
use crate::scenario::{FsdpStyle, GpuSpec, MoeDispatcher, Scenario};

/// How ZeRO-3 / FSDP gathers parameters and reduces gradients (the scenario's
/// `parallel.fsdp_style`, [`crate::scenario::FsdpStyle`]); the mechanisms priced per style:
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsdpMechanism {
    /// DeepSpeed ZeRO-3: module hooks all-gather each parameter tensor above
    /// `stage3_param_persistence_threshold` (1e5 elements) separately, prefetching the next one
    /// (`stage3_prefetch_bucket_size` 5e7 elements: at most one weight matrix of a large model
    /// ahead); gradients are reduce-scattered in `reduce_bucket_size` (5e8-element) buckets
    /// (deepspeedai/DeepSpeed `deepspeed/runtime/zero/config.py`, `partitioned_param_coordinator.py`).
    PerParameter,
    /// FSDP1 / flat-parameter FSDP (eager PyTorch, llm-foundry, Megatron-FSDP, JAX sharding): one
    /// all-gather and one reduce-scatter of the wrapped block's flat buffer, whose views are the
    /// parameters (no copy); the next block is prefetched (PyTorch `notes/fsdp.html`).
    PerBlock,
    /// FSDP2 (`fully_shard`, torchtitan): one all-gather per block as FSDP1, plus the copy-out of
    /// the gathered buffer into the parameters and the gradient copy-in
    /// (`foreach_all_gather_copy_out`, `foreach_reduce`; PyTorch PR #128884: two all-gather
    /// buffers alive, prefetch depth 1).
    PerBlockCopyOut,
    /// DeepSpeed ZeRO-3 v0.3.13–v0.5.4 (2021): each weight tensor is gathered after a
    /// `torch.cuda.synchronize()` (`partition_parameters.py` l. 798 at v0.3.16, `a12aaedc9`), so
    /// no gather overlaps compute; the gather and the per-parameter gradient reduce-scatter
    /// (l. 918–951) go through PyTorch's list collectives, which copy each rank's slice out of
    /// (or into) the flat NCCL buffer with one copy kernel per rank (c10d `ProcessGroupNCCL`
    /// `allgather` / `reduce_scatter`). DeepSpeed PR #1188 (`c0eeb69df`, v0.5.5) removed both:
    /// its message says the "async" all-gather "is not async at all" and that `all_gather`
    /// "will do implicit memcpy at the end of each ncclAllgather".
    PerParameterSync,
}

/// The mechanism of a scenario's style.
fn mechanism(style: FsdpStyle) -> FsdpMechanism {
    match style {
        FsdpStyle::PerParameter => FsdpMechanism::PerParameter,
        FsdpStyle::PerBlock => FsdpMechanism::PerBlock,
        FsdpStyle::PerBlockCopy => FsdpMechanism::PerBlockCopyOut,
        FsdpStyle::PerParameterSync => FsdpMechanism::PerParameterSync,
    }
}

/// DeepSpeed's default `reduce_bucket_size`, elements (`deepspeed/runtime/zero/config.py`).
pub const DEEPSPEED_REDUCE_BUCKET_ELEMENTS: f64 = 5e8;

/// DeepSpeed's default `stage3_max_reuse_distance`, elements: a gathered parameter is kept
/// after a module's forward only if the parameters of the modules run before its next use add
/// up to fewer elements (`deepspeed/runtime/zero/constants.py` l. 100-102 and `stage3.py`
/// `_keep_for_later`, `get_reuse_distance_in_numel` at v0.3.16 `a12aaedc9`; the same default
/// today, `zero/config.py`).
pub const DEEPSPEED_MAX_REUSE_ELEMENTS: f64 = 1e9;

/// The mechanisms one scenario's stack runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stack {
    /// The framework's row of the table (its switches the time model reads directly).
    pub fw: &'static Traits,
    /// ZeRO-3 / FSDP style.
    pub fsdp: FsdpMechanism,
    /// Fused attention kernel: `training.attention_kernel`, else Megatron-LM/NeMo (Transformer Engine) and JAX (XLA) use cuDNN's
    /// fused attention on Hopper and Blackwell (TE `DotProductAttention` backend selection,
    /// MaxText `attention: cudnn_flash_te`); torchtitan, eager PyTorch and DeepSpeed stacks use
    /// PyTorch SDPA's flash backend or flash-attn 2, i.e. FlashAttention-2.
    pub attention: AttentionKernel,
    /// Pipeline sends and receives of the interleaved schedule run under the next chunk's
    /// compute: Megatron-LM's `overlap_p2p_comm`, on by default (`--no-overlap-p2p-communication`
    /// turns it off, `megatron/training/arguments.py`) and used by the interleaved schedule only
    /// (`megatron/core/pipeline_parallel/schedules.py`).
    pub pp_overlap: bool,
    /// The backward input-gradient reduction of a column-parallel layer runs under its
    /// weight-gradient GEMM: Megatron-LM's `async_tensor_model_parallel_allreduce` (on by default
    /// since 2021) issues the collective before the weight-gradient GEMM. PyTorch's DTensor
    /// tensor parallelism (torchtitan, eager PyTorch) does not: `nn.Linear`'s backward computes
    /// the input and weight gradients in one autograd node, and the redistribution's collective
    /// runs after it (`torch/distributed/tensor/parallel/style.py`); nor do DeepSpeed stacks:
    /// BigScience's Megatron-DeepSpeed fork (BLOOM, 2022) runs `copy_to_tensor_model_parallel_
    /// region` then a plain `F.linear` (`megatron/mpu/layers.py` @119a0d2), whose backward
    /// all-reduce waits for both gradients, and Hugging Face models under DeepSpeed use
    /// `nn.Linear`. Only torchtitan's opt-in async TP and Transformer Engine's userbuffers
    /// overlap, which `parallel.tp_comm_overlap` states (also for later Megatron-DeepSpeed
    /// versions that took Megatron-LM's asynchronous layers).
    pub tp_bwd_overlap: bool,
    /// Without flash attention the score chain runs operator by operator: eager PyTorch (the
    /// Hugging Face Trainer's BERT) divides, adds the fp32 mask (promoting the scores to fp32),
    /// soft-maxes and drops out in fp32 ("CUDA Ops that can autocast to float32", PyTorch
    /// `amp.html`) and casts back down for the next matmul under `torch.autocast`
    /// ([`super::attention::AUTOCAST_SOFTMAX_BYTES`]; fp32 training:
    /// [`super::attention::EAGER_FP32_SOFTMAX_BYTES`]). Megatron-LM and Megatron-DeepSpeed run
    /// their fused scaled-masked-softmax kernel on 16-bit scores instead.
    pub autocast_softmax: bool,
    /// The layer's other element-wise work runs operator by operator as Hugging Face's eager
    /// BERT layer under PyTorch 1.10 ([`super::hf_eager_layer`]: unfused bias adds, the
    /// attention's reshape copies, autocast's casts into each `Linear`, the fp32 residual
    /// stream): eager PyTorch without flash attention, the stack of the Hugging Face Trainer
    /// runs whose operators [`super::host`] counts. With flash attention (llm-foundry's MPT,
    /// whose model code differs) the fused model stays.
    pub hf_eager_layer: bool,
    /// MoE token dispatch: `parallel.moe_dispatcher`, else an NCCL all-to-all in every
    /// framework (Megatron-Core recipes set `--moe-token-dispatcher-type alltoall`, DeepEP needs
    /// `flex` plus `--moe-enable-deepep`; torchtitan's `expert_parallel` uses
    /// `all_to_all_single`, DeepEP through an opt-in communication backend).
    pub dispatcher: MoeDispatcher,
    /// Context-parallel exchange: PyTorch's `context_parallel` for torchtitan and eager
    /// PyTorch, Transformer Engine's P2P ring otherwise.
    pub cp: CpMechanism,
    /// The attention repeats the K/V heads to the query heads before the kernel, so CP moves
    /// (and merges gradients of) `heads`, not `kv_heads`, per token: torchtitan's Llama
    /// (`torchtitan/models/llama/model.py` @9dec370, `repeat_kv` before
    /// `F.scaled_dot_product_attention`, l. 201-209).
    pub repeat_kv: bool,
    /// The CPU issues every operator from Python, one by one, and the GPU waits when the host
    /// is slower ([`super::host`]): `training.eager`, else eager PyTorch (the Hugging Face
    /// Trainer, llm-foundry/Composer). JAX and `torch.compile` (torchtitan) run compiled graphs;
    /// Megatron-LM and DeepSpeed's fused layers launch few kernels, whose host time is not
    /// priced.
    pub eager: bool,
    /// The block's element-wise operators run one kernel each, in the dtypes the model code
    /// asks for ([`super::eager_block`]): torchtitan's Llama without `torch.compile`
    /// (`training.eager` on; torchtitan's own configs leave `training.compile = false`,
    /// `train_configs/llama3_8b.toml` @9dec370). Hugging Face's eager BERT layer has its own count
    /// ([`Stack::hf_eager_layer`]); MPT (llm-foundry) keeps the fused model.
    pub unfused_elementwise: bool,
    /// Full recomputation stops once the backward's saved tensors are rebuilt, before a dense
    /// layer's MLP output GEMM: `training.recompute_early_stop`
    /// ([`crate::scenario::Scenario::recompute_early_stop`]; PyTorch's non-reentrant checkpoint).
    pub recompute_early_stop: bool,
    /// DeepSpeed's `BF16_Optimizer` runs the step ([`super::grad_accumulation`]): bf16 training
    /// through DeepSpeed's pipeline engine (`p > 1`) at ZeRO ≤ 1 with gradients accumulated and
    /// reduced in fp32 (`training.grad_reduce_in_fp32`, on by default). Its pipeline engine has
    /// no other bf16 path: `_exec_reduce_grads` raises `NotImplementedError` for bf16 with ZeRO-1
    /// (`deepspeed/runtime/pipe/engine.py`, v0.6.3), so BLOOM-176B ran ZeRO stage 0, whose
    /// `BF16_Optimizer` "implements its own zero stage 1 equivalent" (bigscience-workshop/
    /// bigscience `train/tr11-176B-ml/tr11-176B-ml.slurm`).
    pub bf16_optimizer: bool,
    /// Per-op selective checkpointing repeats the sequence-parallel all-gathers in the
    /// backward: torchtitan's op policy saves `mm` (every other one), the SDPA outputs,
    /// `max` and `_c10d_functional.reduce_scatter_tensor`, and marks every other op, the
    /// all-gather included, `PREFER_RECOMPUTE` (`torchtitan/models/llama3/parallelize_llama.py`
    /// `_save_list` and `_custom_policy` @820504e); eagerly the checkpoint replays the
    /// forward, and under `torch.compile` the partitioner treats `PREFER_RECOMPUTE` as
    /// must-recompute (pytorch `torch/_functorch/partitioners.py` `must_recompute`). The
    /// recomputed wk/wv and w3 GEMMs need the gathered block input again. Megatron's
    /// `selective` recomputes only the attention core, with no collective.
    pub sac_regathers: bool,
    /// The embedding, final norm and output layer are FSDP2's root unit, gathered first in the
    /// forward and reduce-scattered last in the backward ([`super::zero3::Zero3Layer::root_unit_s`]):
    /// torchtitan's `apply_fsdp` shards each block and then the whole model
    /// (`torchtitan/parallelisms/parallelize_llama.py` @9dec370). Other FSDP2 stacks wrap the
    /// ends differently (NeMo Automodel shards `embed_tokens` and `lm_head` as units of their
    /// own, `nemo_automodel/components/moe/parallelizer.py`), not priced here.
    pub fsdp_root_ends: bool,
    /// FlashAttention-2's variable-length kernel runs on unpadded rows: the query, key and value
    /// are gathered and the output scattered back every layer ([`super::unpad`]): eager PyTorch
    /// (llm-foundry's `flash_attn_fn` with `attn_impl: flash`, which unpads with an all-ones
    /// mask) with flash attention on the FA2 kernel.
    pub flash_unpad: bool,
}

impl Stack {
    /// Whether DeepSpeed's `BF16_Optimizer` runs the step of `s` ([`Stack::bf16_optimizer`]):
    /// the framework's (`Traits::bf16_optimizer`) with bf16 through its pipeline engine at
    /// ZeRO ≤ 1 and fp32 gradient reduction.
    pub fn bf16_optimizer_of(s: &Scenario) -> bool {
        bf16_optimizer_with(traits(s.training.framework()), s)
    }
}

/// [`Stack::bf16_optimizer_of`] with the framework's row `fw` at hand.
fn bf16_optimizer_with(fw: &Traits, s: &Scenario) -> bool {
    fw.bf16_optimizer
        && s.training.precision == crate::scenario::Precision::Bf16
        && s.parallel.pp > 1
        && s.parallel.zero_stage <= 1
        && s.training.grad_reduce_in_fp32()
}

impl Stack {
    /// The defaults of `s`'s framework ([`traits`]), overridden where the scenario says.
    pub fn of(s: &Scenario, gpu: &GpuSpec) -> Stack {
        let fw = traits(s.training.framework());
        let fsdp = mechanism(s.fsdp_style());
        let interleaved = s.parallel.schedule() == crate::scenario::Schedule::Interleaved;
        let hopper_plus = matches!(
            Generation::of(gpu),
            Generation::Hopper | Generation::Blackwell
        );
        let attention =
            s.training
                .attention_kernel
                .unwrap_or(if hopper_plus && fw.cudnn_attention {
                    AttentionKernel::Cudnn
                } else {
                    AttentionKernel::Fa2
                });
        let eager = s.training.eager();
        Stack {
            fw,
            fsdp,
            attention,
            pp_overlap: s
                .parallel
                .pp_comm_overlap
                .unwrap_or(fw.pp_overlap_interleaved && interleaved),
            dispatcher: s.parallel.moe_dispatcher.unwrap_or(MoeDispatcher::Alltoall),
            autocast_softmax: fw.autocast_softmax,
            hf_eager_layer: fw.eager_bert_layer && eager && !s.training.flash_attention,
            tp_bwd_overlap: fw.tp_bwd_overlap,
            cp: fw.cp,
            repeat_kv: fw.repeat_kv,
            eager,
            unfused_elementwise: fw.unfused_eager_elementwise && eager,
            recompute_early_stop: s.recompute_early_stop(),
            bf16_optimizer: bf16_optimizer_with(fw, s),
            sac_regathers: fw.sac_regathers,
            fsdp_root_ends: fw.fsdp_root_ends,
            flash_unpad: fw.flash_unpad
                && s.training.flash_attention
                && attention == AttentionKernel::Fa2,
        }
    }
}
