//! What each software stack (`training.framework`) can run at all: layouts a framework has no
//! mechanism for are left out of the search ([`super::search`]) and of the advice
//! ([`super::advice`]) with the reason, instead of being recommended. (How fast the mechanisms a
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
use crate::scenario::{Framework, Schedule};

/// Why `framework` cannot run `layout`, or `None` when it can (as far as these rules know).
pub fn unsupported(framework: Framework, layout: &Layout) -> Option<&'static str> {
    let l = layout;
    let schedule = l.schedule.unwrap_or(if l.vp > 1 {
        Schedule::Interleaved
    } else {
        Schedule::OneFOneB
    });
    let piped = l.pp > 1;
    match framework {
        Framework::Megatron => {
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
        Framework::Deepspeed => {
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
        Framework::Torchtitan => {
            if l.zero_stage == 1 && l.dp > 1 {
                Some("torchtitan has no optimizer-only (ZeRO-1) sharding")
            } else if piped && schedule == Schedule::DualPipe {
                Some("torchtitan (torch.distributed.pipelining) has no bidirectional DualPipe")
            } else {
                None
            }
        }
        Framework::Pytorch => {
            if l.tp > 1 || l.pp > 1 || l.cp > 1 {
                Some("eager PyTorch DDP/FSDP has no tensor, pipeline or context parallelism")
            } else if l.zero_stage == 1 && l.dp > 1 {
                Some("FSDP has no optimizer-only (ZeRO-1) sharding")
            } else {
                None
            }
        }
        Framework::Jax => None,
    }
}
