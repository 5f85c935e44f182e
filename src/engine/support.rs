//! What each software stack (`training.framework`) can run at all: the rules of its row of the
//! framework table ([`super::framework::Traits::rules`]), checked here ([`unsupported`]): layouts a
//! framework has no mechanism for are left out of the search ([`super::search`]) and of the
//! advice ([`super::advice`]) with the reason, instead of being recommended. (How fast the mechanisms a
//! framework does run are is the time model's business: `time::stack`.)
//!
//! Only mechanisms are checked, never speed. Sources, per rule:
//! - Megatron-LM / NeMo: data parallelism is DDP, the distributed optimizer (ZeRO-1,
//!   `--use-distributed-optimizer`) or FSDP (ZeRO-3, `--use-torch-fsdp2`); there is no launch
//!   argument for ZeRO-2 (gradient + optimizer sharding without parameter sharding)
//!   (`megatron/training/arguments.py`, Megatron-LM core_r0.12.0; paracalc's own export,
//!   [`crate::megatron`], says the same). Its pipeline schedules are 1F1B and interleaved 1F1B
//!   (`megatron/core/pipeline_parallel/schedules.py`, `get_forward_backward_func`, at
//!   `d98e8a6`): no GPipe and no DualPipe; the zero-bubble schedules run in the sail-sg fork of
//!   Megatron-LM, whose flags the export writes, so they are kept.
//! - DeepSpeed: pipeline parallelism runs with ZeRO stage 0 or 1 only ("ZeRO-2 and ZeRO-3 are
//!   incompatible with pipeline parallelism", DeepSpeed docs, Pipeline Parallelism tutorial and
//!   `deepspeed/runtime/pipe/engine.py` assertion); its pipeline engine has no interleaved
//!   schedule (`deepspeed/runtime/pipe/schedule.py`: `TrainSchedule` only); its sequence
//!   parallelism is Ulysses all-to-all, not the ring context parallelism modelled here
//!   (Jacobs et al. 2023, DeepSpeed-Ulysses). So its one pipeline schedule is 1F1B.
//! - torchtitan: data parallelism is FSDP2 sharding (ZeRO-2/3) or DDP/HSDP replication
//!   (`torchtitan/parallelisms/parallelize_llama.py`); there is no optimizer-only (ZeRO-1)
//!   sharding. Its pipeline schedules are `torch.distributed.pipelining`'s (GPipe, 1F1B,
//!   interleaved 1F1B, interleaved zero bubble, ZB-V, DualPipeV): no bidirectional DualPipe.
//! - Eager PyTorch (DDP / FSDP1 in the Hugging Face Trainer, Composer): no tensor, pipeline or
//!   context parallelism; FSDP1 offers `NO_SHARD`, `SHARD_GRAD_OP` (ZeRO-2) and `FULL_SHARD`
//!   (ZeRO-3), not ZeRO-1 (`torch.distributed.fsdp.ShardingStrategy`).
//! - JAX (MaxText, Paxml): sharding is expressed per mesh axis; no rule is applied.

use super::framework::{traits, Framework, Rule};
use super::knobs::Layout;
use crate::scenario::Schedule;

/// Why `framework` cannot run `layout` (the reason of its first rule the layout breaks, in the
/// framework table's order), or `None` when it can (as far as its rules know).
pub fn unsupported(framework: Framework, layout: &Layout) -> Option<&'static str> {
    traits(framework)
        .rules
        .iter()
        .find(|(rule, _)| rule.breaks(layout))
        .map(|&(_, why)| why)
}

/// The schedule `l` runs: its own, else the default for its chunks (1F1B, or interleaved when
/// `vp > 1`).
fn schedule_of(l: &Layout) -> Schedule {
    l.schedule.unwrap_or(if l.vp > 1 {
        Schedule::Interleaved
    } else {
        Schedule::OneFOneB
    })
}

impl Rule {
    /// Whether `l` breaks this rule.
    pub fn breaks(self, l: &Layout) -> bool {
        let piped = l.pp > 1;
        match self {
            Rule::ZeroStage(z) => l.zero_stage == z,
            Rule::ZeroStageWithDp(z) => l.zero_stage == z && l.dp > 1,
            Rule::PipelineSchedule(s) => piped && schedule_of(l) == s,
            Rule::PipelineOtherThan(s) => piped && schedule_of(l) != s,
            Rule::PipelineZeroFrom(z) => piped && l.zero_stage >= z,
            Rule::Interleaved => l.vp > 1,
            Rule::ContextParallel => l.cp > 1,
            Rule::ModelParallel => l.tp > 1 || piped || l.cp > 1,
        }
    }
}
