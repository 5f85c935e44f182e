//! What each software stack (`training.framework`) can run at all, one rule function per stack
//! that the framework table points to ([`super::framework::Traits::unsupported`]): layouts a
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

use super::knobs::Layout;
use crate::scenario::Schedule;

/// The schedule `l` runs: its own, else the default for its chunks (1F1B, or interleaved when
/// `vp > 1`).
fn schedule_of(l: &Layout) -> Schedule {
    l.schedule.unwrap_or(if l.vp > 1 {
        Schedule::Interleaved
    } else {
        Schedule::OneFOneB
    })
}

/// Megatron-LM / NeMo's rules.
pub fn megatron(l: &Layout) -> Option<&'static str> {
    let (schedule, piped) = (schedule_of(l), l.pp > 1);
    if l.zero_stage == 2 {
        Some("ZeRO-2 has no Megatron-LM launch argument")
    } else if piped && matches!(schedule, Schedule::Gpipe) {
        Some("Megatron-LM has no GPipe schedule")
    } else if piped && matches!(schedule, Schedule::DualPipe | Schedule::DualPipeV) {
        Some("Megatron-LM has no DualPipe schedule")
    } else {
        None
    }
}

/// DeepSpeed's rules.
pub fn deepspeed(l: &Layout) -> Option<&'static str> {
    let (schedule, piped) = (schedule_of(l), l.pp > 1);
    if piped && schedule != Schedule::OneFOneB {
        Some("DeepSpeed's pipeline engine runs 1F1B only")
    } else if l.pp > 1 && l.zero_stage >= 2 {
        Some("DeepSpeed's pipeline engine runs with ZeRO 0 or 1 only")
    } else if l.vp > 1 {
        Some("DeepSpeed's pipeline engine has no interleaved schedule")
    } else if l.cp > 1 {
        Some("DeepSpeed has no ring context parallelism (its Ulysses is all-to-all)")
    } else {
        None
    }
}

/// torchtitan's rules.
pub fn torchtitan(l: &Layout) -> Option<&'static str> {
    if l.zero_stage == 1 && l.dp > 1 {
        Some("torchtitan has no optimizer-only (ZeRO-1) sharding")
    } else if l.pp > 1 && schedule_of(l) == Schedule::DualPipe {
        Some("torchtitan (torch.distributed.pipelining) has no bidirectional DualPipe")
    } else {
        None
    }
}

/// Eager PyTorch's rules (DDP / FSDP1).
pub fn pytorch(l: &Layout) -> Option<&'static str> {
    if l.tp > 1 || l.pp > 1 || l.cp > 1 {
        Some("eager PyTorch DDP/FSDP has no tensor, pipeline or context parallelism")
    } else if l.zero_stage == 1 && l.dp > 1 {
        Some("FSDP has no optimizer-only (ZeRO-1) sharding")
    } else {
        None
    }
}

/// JAX's rules: sharding is per mesh axis; none applied.
pub fn none(_: &Layout) -> Option<&'static str> {
    None
}
