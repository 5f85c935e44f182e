//! One owner per framework: the framework table. Each software stack (`training.framework`,
//! [`Framework`]) is one [`Traits`] row: its defaults as mechanisms (enums and switches read by
//! the scenario's defaults and rules, the memory model and the time model, the latter through
//! [`super::time::stack::Stack`]) and what it can run (its [`Rule`]s, checked by
//! [`super::support`]). [`traits`] is the one `match` on the framework; adding a stack is a
//! variant of [`Framework`] and a row here, plus the engine code of any mechanism it is the first
//! to run. Sources for each mechanism are on the functions that read its switch and on the
//! fields of [`super::time::stack::Stack`].
//!
//! The file names no scenario module but the parallel section's enums (the training section
//! re-exports [`Framework`] from here), so the scenario's defaults and rules read the table
//! without an import cycle.

use super::time::moe_bookkeeping::{Bookkeeping, FUSED_BOOKKEEPING, MEGATRON_BOOKKEEPING};
use crate::scenario::{FsdpStyle, Schedule};

/// The software stack that runs the training (`DESIGN.md`, "The software stack is an input").
/// It selects mechanisms (attention kernel, how ZeRO-3/FSDP gathers, which overlaps run), never
/// a speed factor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Framework {
    /// Megatron-LM, NeMo, Megatron-Bridge: Transformer Engine, cuDNN fused attention,
    /// distributed optimizer.
    #[default]
    Megatron,
    /// DeepSpeed ZeRO, Megatron-DeepSpeed.
    Deepspeed,
    /// torchtitan: FSDP2, torch.compile, SDPA.
    Torchtitan,
    /// Eager PyTorch DDP/FSDP1: Hugging Face Trainer, llm-foundry/Composer.
    Pytorch,
    /// JAX: MaxText, Paxml.
    Jax,
}

impl Framework {
    /// All values, for dropdowns.
    pub const ALL: &'static [Framework] = &[
        Framework::Megatron,
        Framework::Deepspeed,
        Framework::Torchtitan,
        Framework::Pytorch,
        Framework::Jax,
    ];

    /// Every framework's JSON spelling, in [`Framework::ALL`]'s order (the field table's
    /// choices for `training.framework`).
    pub const NAMES: [&'static str; Framework::ALL.len()] = {
        let mut names = [""; Framework::ALL.len()];
        let mut i = 0;
        while i < names.len() {
            names[i] = traits(Framework::ALL[i]).name;
            i += 1;
        }
        names
    };

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        traits(self).name
    }

    /// Its row of the table.
    pub fn traits(self) -> &'static Traits {
        traits(self)
    }
}

/// How context parallelism exchanges K and V between the ranks of a CP group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpMechanism {
    /// Transformer Engine's P2P ring (`AttnFuncWithCPAndKVP2P`, Megatron-LM/NeMo; the same
    /// pattern in other stacks): at each of the `c − 1` steps the K/V chunk goes to the next
    /// rank while the attention of the chunk already received runs; the backward sends K, V and
    /// their gradients the same way.
    P2pRing,
    /// PyTorch's `context_parallel` (`torch/distributed/tensor/experimental/_attention.py`,
    /// pytorch/pytorch @0123248a; torchtitan's only CP, rotate method `allgather` by default,
    /// `torchtitan/config_manager.py` @9dec370): one SDPA call per ring step, partial outputs
    /// merged in fp32 ([`super::time::ring`]); the forward all-gathers every rank's K/V once, hidden
    /// only under the first (local) step; the backward all-gathers them again and passes the
    /// fp32 K/V gradients to the next rank after every step (all-to-all), the last one waited
    /// for right after the loop.
    TorchRing,
}

/// The library of the stack's linear (and fused attention) layers, which decides how FP8
/// tensors are cast, gathered and saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerLibrary {
    /// NVIDIA Transformer Engine (Megatron-LM, NeMo): quantizes the sequence-parallel
    /// all-gather's input and keeps each linear layer's input quantized for its backward
    /// ([`super::time::fp8::tp_gather_bytes`], [`super::memory::activations::linear_input_bytes`]).
    TransformerEngine,
    /// torchao's float8 (torchtitan): tensorwise scaling gathers FP8 through its TP classes;
    /// rowwise GEMMs are priced per module from its table ([`super::time::rowwise`]).
    Torchao,
    /// Plain PyTorch or XLA layers: 16-bit gathers and saved inputs.
    Plain,
}

/// How `parallel.tp_comm_overlap` hides the tensor-parallel collectives
/// ([`super::time::layer_comm`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TpOverlap {
    /// Transformer Engine's userbuffers, with sequence parallelism ([`super::time::userbuffers`]).
    Userbuffers,
    /// PyTorch's async TP pass, with sequence parallelism only ([`super::time::async_tp`]).
    AsyncTp,
    /// The generic overlap of the collectives with the neighbouring GEMMs.
    Generic,
}

/// The passes a stack runs over a stage's parameters per micro-batch besides its layers' GEMMs
/// ([`super::time::grad_accumulation`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamPasses {
    /// DeepSpeed's gradient accumulation after each backward (ZeRO ≤ 1, more than one
    /// micro-batch; its `BF16_Optimizer`'s fp32 accumulation).
    DeepspeedAccumulation,
    /// Unsharded eager PyTorch's autocast casts and `.grad` accumulation (ZeRO 0).
    EagerAutocast,
    /// Not counted.
    None,
}

/// A communicator a stack opens beyond one per parallel group ([`Traits::pipeline_communicators`]),
/// each holding NCCL's buffers ([`super::memory::overhead::comm_buffers_bytes`],
/// [states.md](crate::docs::formulas::states) §13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Communicator {
    /// Another on the `t` ranks of a TP group.
    Tp,
    /// Another on the ranks of a data-parallel group.
    Dp,
    /// Another two-rank one between pipeline stages: the tied embedding's pair on the first and
    /// the last stage, the second neighbour's send/receive pair on the others (with a tied
    /// embedding or more than two stages).
    PipelinePair,
    /// The `p` ranks of one pipeline, `t·c·d` apart.
    Pipeline,
    /// The TP ranks of every stage of one pipeline: `t·p` ranks.
    ModelParallel,
    /// Every rank.
    World,
}

/// One rule of what a stack cannot run, on the knobs of a layout
/// ([`super::knobs::Layout`]; [`super::support`] checks them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// This ZeRO stage.
    ZeroStage(u8),
    /// This ZeRO stage with more than one data-parallel replica.
    ZeroStageWithDp(u8),
    /// This pipeline schedule, with more than one stage.
    PipelineSchedule(Schedule),
    /// Any pipeline schedule but this one, with more than one stage.
    PipelineOtherThan(Schedule),
    /// A ZeRO stage from this one on, with more than one stage.
    PipelineZeroFrom(u8),
    /// Virtual pipeline chunks (`vp > 1`).
    Interleaved,
    /// Context parallelism (`cp > 1`).
    ContextParallel,
    /// Tensor, pipeline or context parallelism.
    ModelParallel,
}

/// One framework's row of the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Traits {
    /// Its spelling in a scenario (`training.framework`).
    pub name: &'static str,
    /// ZeRO-3's sharding style by default (`parallel.fsdp_style` overrides).
    pub fsdp_style: FsdpStyle,
    /// cuDNN's fused attention by default on Hopper and Blackwell, else FlashAttention-2
    /// (FA2 before them; `training.attention_kernel` overrides).
    pub cudnn_attention: bool,
    /// Pipeline send/receive overlapped under the interleaved schedule by default
    /// (`parallel.pp_comm_overlap` overrides).
    pub pp_overlap_interleaved: bool,
    /// The MoE token bookkeeping kernels it launches ([`Bookkeeping`]: Megatron-LM's unfused
    /// defaults, else a fused few; the time model reads them here, `Stack::fw`).
    pub moe_bookkeeping: Bookkeeping,
    /// PyTorch autocast's fp32 softmax in unfused attention.
    pub autocast_softmax: bool,
    /// Hugging Face's eager BERT layer, operator by operator, when eager without flash attention.
    pub eager_bert_layer: bool,
    /// The TP collectives of the backward overlap the GEMMs (Megatron/NeMo, JAX).
    pub tp_bwd_overlap: bool,
    /// How context parallelism exchanges K and V.
    pub cp: CpMechanism,
    /// K and V repeated to the query heads before attention (torchtitan's `repeat_kv`).
    pub repeat_kv: bool,
    /// Element-wise operators one kernel each when eager (torchtitan without `torch.compile`).
    pub unfused_eager_elementwise: bool,
    /// DeepSpeed's `BF16_Optimizer` can run the step (bf16 pipeline at ZeRO ≤ 1), and its
    /// 16-bit `.grad`s stay alive beside its fp32 buffer
    /// ([`super::memory::states::deepspeed_bf16_lp_grads`]).
    pub bf16_optimizer: bool,
    /// Per-op selective checkpointing re-gathers the sequence-parallel inputs.
    pub sac_regathers: bool,
    /// The embedding and output layer are FSDP2's root unit.
    pub fsdp_root_ends: bool,
    /// FlashAttention-2 runs on unpadded rows, gathered and scattered back every layer
    /// ([`crate::engine::time::unpad`]).
    pub flash_unpad: bool,
    /// A model without a gated MLP runs dropout with p > 0 unless told otherwise (the stack's
    /// argument or model-config default; [`crate::engine::memory::activations::dropout`]).
    pub dropout: bool,
    /// The library of its linear layers.
    pub layers: LayerLibrary,
    /// How `parallel.tp_comm_overlap` hides the TP collectives.
    pub tp_overlap: TpOverlap,
    /// Q, K and V (and SwiGLU's gate and up) are one weight tensor each
    /// ([`super::time::zero3`]).
    pub fused_projections: bool,
    /// The embedding's gradient is added into a main-gradient buffer by a hook every
    /// micro-batch ([`super::time::ends::embedding_grad_bytes`]).
    pub main_grad_hooks: bool,
    /// The per-micro-batch passes over the parameters it runs.
    pub param_passes: ParamPasses,
    /// The data-parallel reduction moves the 16-bit gradients at every ZeRO stage
    /// ([`super::bucket::GradBucket::with`]).
    pub reduces_16bit_grads: bool,
    /// ZeRO-3 keeps the fp32 parameter as the shard ([`super::memory::states::fp32_shard_is_master`]).
    pub fp32_shard_is_master: bool,
    /// DTensor sequence parallelism: the output GEMM keeps its gathered input
    /// ([`super::memory::gathered_input`]) and the loss runs as loss parallel
    /// ([`super::memory::loss_parallel`]).
    pub dtensor_sp: bool,
    /// Every operator is issued eagerly by default (`training.eager` overrides).
    pub eager: bool,
    /// Megatron-LM's vocab-parallel cross-entropy by default (`training.loss_kernel` overrides).
    pub vocab_parallel_loss: bool,
    /// The routed experts apply the routing probabilities in their activation, by default and
    /// only here (`training.moe_probs_in_experts`).
    pub moe_probs_in_experts: bool,
    /// Megatron-LM's precision-aware optimizer: bf16 moments with the distributed optimizer
    /// only, and 16-bit master remainders (`training.master_weights`).
    pub precision_aware_optimizer: bool,
    /// bf16 Adam moments can be chosen (`training.optimizer_states`).
    pub bf16_moments: bool,
    /// Megatron-LM's `--recompute-modules` (selective recomputation's modules, `core_attn` by
    /// default).
    pub recompute_modules: bool,
    /// A TP degree may be a multiple of the key/value heads
    /// ([`crate::scenario::Scenario::tp_splits_kv_heads`]).
    pub tp_multiple_of_kv_heads: bool,
    /// The data-parallel reduction overlaps compute below ZeRO-3 by default
    /// (`parallel.dp_comm_overlap` overrides).
    pub dp_overlap_below_zero3: bool,
    /// Full recomputation stops early under FSDP (ZeRO-3) by default
    /// (`training.recompute_early_stop` overrides).
    pub fsdp_recompute_early_stop: bool,
    /// DeepSpeed's 2021 ZeRO-3 (`parallel.fsdp_style` `per_parameter_sync`).
    pub zero3_2021: bool,
    /// DeepEP can dispatch its MoE tokens (`parallel.moe_dispatcher`).
    pub deepep: bool,
    /// Megatron-Core's FP8 SwiGLU input (`training.swiglu_fp8_input`).
    pub swiglu_fp8_input: bool,
    /// Megatron-LM's FP8 primary weights (`training.fp8_params`).
    pub fp8_param_gather: bool,
    /// Device memory comes from PyTorch's CUDA caching allocator (every stack but JAX, whose
    /// XLA runtime plans its buffers per compiled program).
    pub caching_allocator: bool,
    /// The communicators it opens beyond one per parallel group when the layout has pipeline
    /// stages, each a process group some NCCL collective of the run uses (PyTorch creates a
    /// group's NCCL communicator at its first collective). Empty: not read in the stack's code,
    /// one per parallel group.
    pub pipeline_communicators: &'static [Communicator],
    /// What it cannot run, each rule with its reason, checked in order.
    pub rules: &'static [(Rule, &'static str)],
}

/// The plain stack every row starts from: FA2, ZeRO-3 per block, fused MoE bookkeeping, the
/// P2P ring for context parallelism, plain layers, none of the switches, no rule.
const fn plain(name: &'static str) -> Traits {
    Traits {
        name,
        fsdp_style: FsdpStyle::PerBlock,
        cudnn_attention: false,
        pp_overlap_interleaved: false,
        moe_bookkeeping: FUSED_BOOKKEEPING,
        autocast_softmax: false,
        eager_bert_layer: false,
        tp_bwd_overlap: false,
        cp: CpMechanism::P2pRing,
        repeat_kv: false,
        unfused_eager_elementwise: false,
        bf16_optimizer: false,
        sac_regathers: false,
        fsdp_root_ends: false,
        flash_unpad: false,
        dropout: false,
        layers: LayerLibrary::Plain,
        tp_overlap: TpOverlap::Generic,
        fused_projections: false,
        main_grad_hooks: false,
        param_passes: ParamPasses::None,
        reduces_16bit_grads: false,
        fp32_shard_is_master: false,
        dtensor_sp: false,
        eager: false,
        vocab_parallel_loss: false,
        moe_probs_in_experts: false,
        precision_aware_optimizer: false,
        bf16_moments: false,
        recompute_modules: false,
        tp_multiple_of_kv_heads: false,
        dp_overlap_below_zero3: true,
        fsdp_recompute_early_stop: false,
        zero3_2021: false,
        deepep: true,
        swiglu_fp8_input: false,
        fp8_param_gather: false,
        caching_allocator: true,
        pipeline_communicators: &[],
        rules: &[],
    }
}

/// Megatron-LM, NeMo, Megatron-Bridge.
static MEGATRON: Traits = Traits {
    cudnn_attention: true,
    pp_overlap_interleaved: true,
    moe_bookkeeping: MEGATRON_BOOKKEEPING,
    tp_bwd_overlap: true,
    layers: LayerLibrary::TransformerEngine,
    tp_overlap: TpOverlap::Userbuffers,
    fused_projections: true,
    main_grad_hooks: true,
    dropout: true,
    vocab_parallel_loss: true,
    moe_probs_in_experts: true,
    precision_aware_optimizer: true,
    bf16_moments: true,
    recompute_modules: true,
    tp_multiple_of_kv_heads: true,
    swiglu_fp8_input: true,
    fp8_param_gather: true,
    rules: &[
        (
            Rule::ZeroStage(2),
            "ZeRO-2 has no Megatron-LM launch argument",
        ),
        (
            Rule::PipelineSchedule(Schedule::Gpipe),
            "Megatron-LM has no GPipe schedule",
        ),
        (
            Rule::PipelineSchedule(Schedule::DualPipe),
            "Megatron-LM has no DualPipe schedule",
        ),
        (
            Rule::PipelineSchedule(Schedule::DualPipeV),
            "Megatron-LM has no DualPipe schedule",
        ),
    ],
    ..plain("megatron")
};

/// The communicators Megatron-DeepSpeed opens under DeepSpeed's pipeline engine beyond one per
/// parallel group (bigscience-workshop/Megatron-DeepSpeed @49d21af2, microsoft/DeepSpeed
/// @2151c787a, the same lines in the BigScience branch @15293139f; PyTorch 1.11's
/// `ProcessGroupNCCL` creates a group's communicator at its first collective, `getNCCLComm`, and
/// `barrier()` is an all-reduce of one byte on it):
/// - the pipeline grid's `slice_proc_group` on the TP ranks (`deepspeed/runtime/pipe/topology.py`
///   l. 360-365), all-gathering the partitioned activations every micro-batch (`pipe/engine.py`
///   l. 131 and 613-724), beside Megatron's own TP group;
/// - Megatron's data-parallel and pipeline groups, each all-reduced once as the dataset's index
///   is built on TP rank 0 (`megatron/data/gpt_dataset.py` l. 386-387, `training.py` l. 1090),
///   beside the grid's (`deepspeed.initialize` gets no `mpu`, `training.py` l. 385-390, so
///   DeepSpeed reduces over the grid's data-parallel group);
/// - the tied embedding's pair (`pipe/module.py` l. 420, every step) or, on a middle stage, the
///   send/receive pair of its second neighbour (`pipe/p2p.py` l. 61-62 and 82-83: `dist.send` and
///   `dist.recv` on the world group, a communicator per pair);
/// - the grid's pipeline group (`pipe/engine.py` l. 510-542, the loss broadcast every step);
/// - the grid's model-parallel group, the TP ranks of every stage (`topology.py` l. 304-311 and 442;
///   `pipe/engine.py` l. 146 at start-up, ZeRO's overflow check and gradient norm,
///   `zero/stage_1_and_2.py` l. 1484-1492);
/// - the world group (`torch.distributed.barrier()` in Megatron's `_compile_dependencies`,
///   `megatron/initialize.py` l. 215-228, and `print_datetime`, `training.py` l. 64).
const MEGATRON_DEEPSPEED_COMMUNICATORS: &[Communicator] = &[
    Communicator::Tp,
    Communicator::Dp,
    Communicator::PipelinePair,
    Communicator::Pipeline,
    Communicator::Pipeline,
    Communicator::ModelParallel,
    Communicator::World,
];

/// DeepSpeed ZeRO, Megatron-DeepSpeed.
static DEEPSPEED: Traits = Traits {
    fsdp_style: FsdpStyle::PerParameter,
    bf16_optimizer: true,
    fused_projections: true,
    dropout: true,
    param_passes: ParamPasses::DeepspeedAccumulation,
    reduces_16bit_grads: true,
    dp_overlap_below_zero3: false,
    zero3_2021: true,
    deepep: false,
    pipeline_communicators: MEGATRON_DEEPSPEED_COMMUNICATORS,
    rules: &[
        (
            Rule::PipelineOtherThan(Schedule::OneFOneB),
            "DeepSpeed's pipeline engine runs 1F1B only",
        ),
        (
            Rule::PipelineZeroFrom(2),
            "DeepSpeed's pipeline engine runs with ZeRO 0 or 1 only",
        ),
        (
            Rule::Interleaved,
            "DeepSpeed's pipeline engine has no interleaved schedule",
        ),
        (
            Rule::ContextParallel,
            "DeepSpeed has no ring context parallelism (its Ulysses is all-to-all)",
        ),
    ],
    ..plain("deepspeed")
};

/// torchtitan: FSDP2, torch.compile, SDPA.
static TORCHTITAN: Traits = Traits {
    fsdp_style: FsdpStyle::PerBlockCopy,
    cp: CpMechanism::TorchRing,
    repeat_kv: true,
    unfused_eager_elementwise: true,
    sac_regathers: true,
    fsdp_root_ends: true,
    layers: LayerLibrary::Torchao,
    tp_overlap: TpOverlap::AsyncTp,
    fp32_shard_is_master: true,
    dtensor_sp: true,
    bf16_moments: true,
    rules: &[
        (
            Rule::ZeroStageWithDp(1),
            "torchtitan has no optimizer-only (ZeRO-1) sharding",
        ),
        (
            Rule::PipelineSchedule(Schedule::DualPipe),
            "torchtitan (torch.distributed.pipelining) has no bidirectional DualPipe",
        ),
    ],
    ..plain("torchtitan")
};

/// Eager PyTorch DDP/FSDP1: the Hugging Face Trainer, llm-foundry/Composer.
static PYTORCH: Traits = Traits {
    autocast_softmax: true,
    eager_bert_layer: true,
    cp: CpMechanism::TorchRing,
    flash_unpad: true,
    param_passes: ParamPasses::EagerAutocast,
    dropout: true,
    fp32_shard_is_master: true,
    eager: true,
    fsdp_recompute_early_stop: true,
    rules: &[
        (
            Rule::ModelParallel,
            "eager PyTorch DDP/FSDP has no tensor, pipeline or context parallelism",
        ),
        (
            Rule::ZeroStageWithDp(1),
            "FSDP has no optimizer-only (ZeRO-1) sharding",
        ),
    ],
    ..plain("pytorch")
};

/// JAX: MaxText, Paxml (sharding per mesh axis: no rule applied).
static JAX: Traits = Traits {
    cudnn_attention: true,
    tp_bwd_overlap: true,
    fp32_shard_is_master: true,
    deepep: false,
    caching_allocator: false,
    ..plain("jax")
};

/// The row of `framework`: the one `match` on the framework.
pub const fn traits(framework: Framework) -> &'static Traits {
    match framework {
        Framework::Megatron => &MEGATRON,
        Framework::Deepspeed => &DEEPSPEED,
        Framework::Torchtitan => &TORCHTITAN,
        Framework::Pytorch => &PYTORCH,
        Framework::Jax => &JAX,
    }
}
