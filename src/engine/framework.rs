//! One owner per framework: the framework table. Each software stack (`training.framework`)
//! is one [`Traits`] row: its defaults as mechanisms (enums and switches the time and memory
//! models read through [`super::time::stack::Stack`]) and what it can run (its rule function in
//! [`super::support`]). [`traits`] is the one `match` on the framework here; adding a stack is
//! a variant of [`Framework`] and a row, plus the engine code of any mechanism it is the first
//! to run. Sources for each mechanism are on the fields of [`super::time::stack::Stack`].

use super::knobs::Layout;
use super::time::moe_bookkeeping::{Bookkeeping, FUSED_BOOKKEEPING, MEGATRON_BOOKKEEPING};
use crate::scenario::{AttentionKernel, Framework, FsdpStyle};

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

/// One framework's row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Traits {
    /// ZeRO-3's sharding style by default (`parallel.fsdp_style` overrides).
    pub fsdp_style: FsdpStyle,
    /// The attention kernel by default on Hopper and Blackwell (FA2 before them;
    /// `training.attention_kernel` overrides).
    pub attention_hopper: AttentionKernel,
    /// Pipeline send/receive overlapped under the interleaved schedule by default
    /// (`parallel.pp_comm_overlap` overrides).
    pub pp_overlap_interleaved: bool,
    /// The MoE token bookkeeping kernels it launches.
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
    /// DeepSpeed's `BF16_Optimizer` can run the step (bf16 pipeline at ZeRO ≤ 1).
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
    /// Why it cannot run a layout, or `None` ([`super::support`]).
    pub unsupported: fn(&Layout) -> Option<&'static str>,
}

/// The plain stack every row starts from: FA2, ZeRO-3 per block, fused MoE bookkeeping, the
/// P2P ring for context parallelism, none of the switches, no support rule.
const fn plain() -> Traits {
    Traits {
        fsdp_style: FsdpStyle::PerBlock,
        attention_hopper: AttentionKernel::Fa2,
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
        unsupported: super::support::none,
    }
}

/// Megatron-LM, NeMo, Megatron-Bridge.
static MEGATRON: Traits = Traits {
    attention_hopper: AttentionKernel::Cudnn,
    pp_overlap_interleaved: true,
    moe_bookkeeping: MEGATRON_BOOKKEEPING,
    tp_bwd_overlap: true,
    dropout: true,
    unsupported: super::support::megatron,
    ..plain()
};

/// DeepSpeed ZeRO, Megatron-DeepSpeed.
static DEEPSPEED: Traits = Traits {
    fsdp_style: FsdpStyle::PerParameter,
    bf16_optimizer: true,
    dropout: true,
    unsupported: super::support::deepspeed,
    ..plain()
};

/// torchtitan: FSDP2, torch.compile, SDPA.
static TORCHTITAN: Traits = Traits {
    fsdp_style: FsdpStyle::PerBlockCopy,
    cp: CpMechanism::TorchRing,
    repeat_kv: true,
    unfused_eager_elementwise: true,
    sac_regathers: true,
    fsdp_root_ends: true,
    unsupported: super::support::torchtitan,
    ..plain()
};

/// Eager PyTorch DDP/FSDP1: the Hugging Face Trainer, llm-foundry/Composer.
static PYTORCH: Traits = Traits {
    autocast_softmax: true,
    eager_bert_layer: true,
    cp: CpMechanism::TorchRing,
    flash_unpad: true,
    dropout: true,
    unsupported: super::support::pytorch,
    ..plain()
};

/// JAX: MaxText, Paxml.
static JAX: Traits = Traits {
    attention_hopper: AttentionKernel::Cudnn,
    tp_bwd_overlap: true,
    ..plain()
};

/// The row of `framework`.
pub fn traits(framework: Framework) -> &'static Traits {
    match framework {
        Framework::Megatron => &MEGATRON,
        Framework::Deepspeed => &DEEPSPEED,
        Framework::Torchtitan => &TORCHTITAN,
        Framework::Pytorch => &PYTORCH,
        Framework::Jax => &JAX,
    }
}

/// Why `framework` cannot run `layout`, or `None` when it can (as far as its rules know).
pub fn unsupported(framework: Framework, layout: &Layout) -> Option<&'static str> {
    (traits(framework).unsupported)(layout)
}
