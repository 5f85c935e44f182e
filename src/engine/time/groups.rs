//! The communication groups of one layout, one per parallel dimension.
//!
//! Rank placement is Megatron-LM's (`parallel_state.py`, `order="tp-cp-ep-dp-pp"`): TP innermost,
//! then CP, then DP, then PP; the EP group spans TP·CP-strided ranks. Each group's link tier and
//! bandwidth follow from its size and stride ([`Group::on`]) on the GPU's links ([`Fabric`]).

use super::comm::{Fabric, Group};
use crate::scenario::{GpuSpec, Parallel};

/// The groups of every parallel dimension of one layout on one GPU type.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Groups {
    /// Tensor (and sequence) parallel group: `t` adjacent ranks.
    pub tp: Group,
    /// Context-parallel group: `c` ranks `t` apart.
    pub cp: Group,
    /// Data-parallel group of the gradient reduction: `d·c` ranks (CP ranks also hold replicas of
    /// the weights), `t` apart.
    pub dp: Group,
    /// Expert-parallel group: `e` ranks `t·c` apart.
    pub ep: Group,
    /// Pipeline neighbours: two ranks `t·c·d` apart (none without PP).
    pub pp: Group,
    /// Embedding group of a tied embedding: the first and the last pipeline rank, `t·c·d·(p−1)`
    /// apart (Megatron-LM `megatron/core/parallel_state.py` `default_embedding_ranks`, commit
    /// d98e8a64: the first and the last rank of each pipeline group; none without PP).
    pub embd: Group,
    /// ZeRO/FSDP shard group: `shard_ranks·c` ranks `t` apart (all of `d·c` without HSDP).
    pub shard: Group,
    /// HSDP replicas of one shard: `d/shard_ranks` ranks `t·c·shard_ranks` apart.
    pub replica: Group,
}

impl Groups {
    /// The groups of `par` on `gpu` (inlined: built in place in the time model's inputs).
    #[inline]
    pub fn of(gpu: &GpuSpec, par: &Parallel) -> Groups {
        let (t, p, dp, c, e) = (
            par.tp.max(1),
            par.pp.max(1),
            par.dp.max(1),
            par.cp.max(1),
            par.ep.max(1),
        );
        let shard = par.shard_ranks().clamp(1, dp);
        // The GPU's links, read once for every group.
        let f = &Fabric::of(gpu);
        let dp_group = Group::on(f, dp.saturating_mul(c), t);
        Groups {
            tp: Group::on(f, t, 1),
            cp: Group::on(f, c, t),
            dp: dp_group,
            // Expert ranks fold over tp·cp·dp with expert-tensor ranks innermost (Megatron-Core
            // MoE parallel folding): EP members are `etp` ranks apart.
            ep: Group::on(f, e, par.etp().max(1)),
            pp: Group::on(
                f,
                if p > 1 { 2 } else { 1 },
                t.saturating_mul(c).saturating_mul(dp),
            ),
            embd: Group::on(
                f,
                if p > 1 { 2 } else { 1 },
                t.saturating_mul(c)
                    .saturating_mul(dp)
                    .saturating_mul(p.saturating_sub(1).max(1)),
            ),
            // Without HSDP the shard group is the DP group.
            shard: if shard == dp {
                dp_group
            } else {
                Group::on(f, shard.saturating_mul(c), t)
            },
            replica: Group::on(f, dp / shard, t.saturating_mul(c).saturating_mul(shard)),
        }
    }
}
