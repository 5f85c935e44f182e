//! Costs per step that do not shrink with the work a GPU does: the gradient-norm reduction
//! ([`grad_norm_s`], priced here) and the step's fixed parts named together ([`FixedCosts`]),
//! so that the advice and the scaling chart can say when they take over ([`fixed.md`]).
//!
//! [`fixed.md`]: crate::docs::formulas::fixed

use super::breakdown::FixedCosts;
use super::comm::{log2_nodes, nccl, Protocol, GPUS_PER_PCIE_HOST};
use super::inputs::Inputs;
use crate::engine::num::min_num;
use crate::scenario::Precision;

/// Scalar all-reduces of the gradient-norm computation per step: the sum of the squared local
/// norms over the ranks holding distinct gradients (Megatron-LM @d98e8a64
/// `megatron/core/optimizer/clip_grads.py` `get_grad_norm_fp32`, one `all_reduce` over the
/// grad-stats group; PyTorch FSDP `clip_grad_norm_`, one `all_reduce` over the process group;
/// DeepSpeed ZeRO's `get_global_norm`, the same over the data- and model-parallel ranks).
pub const GRAD_NORM_ALL_REDUCES: f64 = 1.0;

/// Further scalar all-reduces per step with fp16 loss scaling: the found-inf flag, a `MAX`
/// over the same group (Megatron-LM @d98e8a64 `megatron/core/optimizer/optimizer.py`
/// `_unscale_main_grads_and_check_for_nan`; FSDP's `ShardedGradScaler`).
pub const FOUND_INF_ALL_REDUCES: f64 = 1.0;

/// One all-reduce of a scalar over `n` ranks on `nodes` NVLink domains (PCIe hosts when
/// `pcie`), seconds: latency only, NCCL's LL protocol (the lowest latency of every tier in
/// `src/graph/tuning.cc`), the lower of the ring `base + (2(n−1) − 2(N−1))·intra + 2(N−1)·net`
/// and the tree `base + 2((n/N − 1)·intra + log2(N)·net)`, as [`super::comm::Group`]'s
/// all-reduce prices them; LL's intra-node latency ×1.8 across nodes.
pub fn scalar_all_reduce_s(n: f64, nodes: f64, pcie: bool) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    let ll = Protocol::Ll as usize;
    let (mut ring_intra, mut tree_intra) = if pcie {
        (nccl::RING_PCI_US[ll], nccl::TREE_PCI_US[ll])
    } else {
        (nccl::RING_NVLINK_US[ll], nccl::TREE_NVLINK_US[ll])
    };
    let levels = if nodes > 1.0 {
        ring_intra *= nccl::LL_MULTINODE_INTRA;
        tree_intra *= nccl::LL_MULTINODE_INTRA;
        log2_nodes(nodes)
    } else {
        0.0
    };
    let inter = 2.0 * (nodes - 1.0);
    let ring = nccl::RING_BASE_US[ll]
        + (2.0 * (n - 1.0) - inter) * ring_intra
        + inter * nccl::RING_NET_US[ll];
    let tree = nccl::TREE_BASE_US[ll]
        + 2.0 * ((n / nodes - 1.0) * tree_intra + levels * nccl::TREE_NET_US[ll]);
    min_num(ring, tree) * 1e-6
}

/// The gradient-norm reduction of one step, seconds: [`GRAD_NORM_ALL_REDUCES`] (and with fp16
/// [`FOUND_INF_ALL_REDUCES`]) scalar all-reduces over the grad-stats group, which the update
/// waits for. With sharded optimizer states (ZeRO ≥ 1, FSDP, Megatron's distributed optimizer)
/// each rank holds distinct gradient shards and the group is every GPU
/// (`distrib_optimizer.py` `get_grad_stats_parallel_group`); otherwise the data-parallel
/// replicas hold equal gradients and the group is the model-parallel ranks `t·c·p`, one slice
/// per stage, on `min(N_world, p·⌈t·c/domain⌉)` domains. The pass over the gradients that forms
/// the local norm is in the update's bytes
/// ([`crate::engine::memory::states::OPTIMIZER_BYTES_PER_PARAM`]).
pub(crate) fn grad_norm_s(x: &Inputs) -> f64 {
    let pcie = x.gpu.nvlink_gbps.is_none();
    let domain = if pcie {
        GPUS_PER_PCIE_HOST
    } else {
        x.gpu.nvlink_domain_gpus.max(1)
    };
    // Whole numbers (`div_ceil`, not a float `ceil`, a libm call on baseline x86-64); the
    // degrees of a validated scenario are far below overflow.
    let slice = x.t.wrapping_mul(x.c);
    let mp = slice.wrapping_mul(x.p);
    let world = mp.wrapping_mul(x.dp);
    let world_nodes = world.div_ceil(domain);
    let (n, nodes) = if x.s.parallel.zero_stage >= 1 {
        (world, world_nodes)
    } else {
        (
            mp,
            world_nodes.min(x.p.wrapping_mul(slice.div_ceil(domain))),
        )
    };
    let calls = if x.s.training.precision == Precision::Fp16 {
        GRAD_NORM_ALL_REDUCES + FOUND_INF_ALL_REDUCES
    } else {
        GRAD_NORM_ALL_REDUCES
    };
    // Through `i64`: one conversion instruction each, where `u64` needs a branch.
    calls * scalar_all_reduce_s(n as i64 as f64, nodes as i64 as f64, pcie)
}

impl FixedCosts {
    /// The named fixed parts of a step whose `optimizer_s` holds `grad_norm_s`, whose pipeline
    /// bubble is `bubble_s`, whose data-parallel tail after the last backward is `dp_tail_s`,
    /// tied-embedding all-reduce `tied_s` and eager optimizer-phase stall `host_optimizer_s`.
    pub(crate) fn of(
        optimizer_s: f64,
        grad_norm_s: f64,
        bubble_s: f64,
        dp_tail_s: f64,
        tied_s: f64,
        host_optimizer_s: f64,
    ) -> FixedCosts {
        FixedCosts {
            update_s: optimizer_s - grad_norm_s,
            grad_norm_s,
            bubble_s,
            dp_tail_s,
            tied_s,
            host_optimizer_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_all_reduce_is_ncclss_ll_latency() {
        // One node of 8 NVLink GPUs: ring 6.6 + 14·0.6 = 15.0 µs; tree 6.8 + 2·7·0.6 = 15.2.
        assert!((scalar_all_reduce_s(8.0, 1.0, false) - 15.0e-6).abs() < 1e-12);
        // 512 GPUs on 64 nodes: tree 6.8 + 2·(7·0.6·1.8 + 6·5.0) = 81.92 µs; the ring's
        // 6.6 + (1022 − 126)·1.08 + 126·2.7 = 1314.5 µs loses.
        let t = scalar_all_reduce_s(512.0, 64.0, false);
        assert!((t - 81.92e-6).abs() < 1e-12, "{t}");
        assert_eq!(scalar_all_reduce_s(1.0, 1.0, false), 0.0);
    }

    #[test]
    fn grad_norm_group_follows_the_optimizer_sharding() {
        use crate::engine::estimate::estimate;
        let mut s = crate::presets::default_model_preset().scenario();
        s.parallel.zero_stage = 1;
        let sharded = estimate(&s).unwrap().time.grad_norm_s;
        s.parallel.zero_stage = 0;
        let replicated = estimate(&s).unwrap().time.grad_norm_s;
        // Every GPU against the model-parallel ranks only: more ranks, longer latency.
        assert!(
            sharded > replicated && replicated >= 0.0,
            "{sharded} {replicated}"
        );
        s.training.precision = Precision::Fp16;
        s.parallel.zero_stage = 1;
        let fp16 = estimate(&s).unwrap().time.grad_norm_s;
        assert!((fp16 - 2.0 * sharded).abs() < 1e-15);
    }

    #[test]
    fn fixed_parts_add_up_inside_the_step() {
        use crate::engine::estimate::estimate;
        for p in crate::presets::MODEL_PRESETS {
            let e = estimate(&p.scenario()).unwrap();
            let f = &e.time.fixed;
            let sum = f.update_s
                + f.grad_norm_s
                + f.bubble_s
                + f.dp_tail_s
                + f.tied_s
                + f.host_optimizer_s;
            assert_eq!(f.total_s(), sum, "{}", p.id);
            assert!(
                sum > 0.0 && sum <= e.time.step_s * (1.0 + 1e-12),
                "{}",
                p.id
            );
            assert!((f.update_s + f.grad_norm_s - e.time.optimizer_s).abs() < 1e-12);
            assert_eq!(f.bubble_s, e.time.bubble_s);
        }
    }
}
