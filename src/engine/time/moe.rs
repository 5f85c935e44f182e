//! One mixture-of-experts MLP, one micro-batch, the busiest GPU: router, permutation, token
//! dispatch and combine, grouped expert GEMMs and shared experts.
//!
//! Token flow (Megatron-Core `MoEAlltoAllTokenDispatcher`, MoE parallel folding, Liu et al.
//! 2025 arXiv 2504.14960 §3; see [`crate::engine::memory::experts`]): each TP rank routes its
//! `tok/t` tokens (sequence parallel), permutes their `k` copies by destination, sends them over
//! the `ep` ranks of its expert group (all-to-all), the `etp` ranks that split each expert
//! gather them (all-gather), the local experts run as one grouped GEMM per projection, and the
//! way back mirrors it (reduce-scatter, all-to-all, unpermute with the routing weights).
//! Backward repeats both all-to-alls and the gathers.
//!
//! - **Busiest rank.** The GPU with `imbalance ×` the mean rows (`model.moe.imbalance`) sets the
//!   pace of every all-to-all and of the layer (all EP ranks wait for it).
//! - **Grouped GEMMs.** Each local expert gets `m_e = rows/(E/ep)` rows; the kernel works in
//!   tiles of [`M_TILE`] rows, so an expert's GEMM costs as if its rows were rounded up to a
//!   whole tile (tile quantization, NVIDIA *Matrix Multiplication Background User's Guide*,
//!   "Tile Quantization"; CUTLASS/cuBLAS Hopper GEMMs use 128-row tiles), on top of the
//!   roofline and short-reduction penalty of [`Device::gemm_s`]; one launch per projection.
//! - **Router, permute, unpermute** are memory-bound ([`Device::memory_s`]).
//! - **All-to-all** ([`Group::all_to_all_s`] of the expert-parallel group, whose members are
//!   `etp` ranks apart): a GPU's bytes to members in its own NVLink domain go over NVLink, the
//!   rest through its own NIC, concurrently. With DeepEP (`parallel.moe_dispatcher`) a token
//!   crosses the network once per node holding its experts and fans out over NVLink there
//!   ([`Group::node_forwarded_all_to_all_s`]).
//! - **Overlap.** None of the frameworks' defaults overlaps the dispatch with compute
//!   (Megatron-Core's `--overlap-moe-expert-parallel-comm` and `--moe-shared-expert-overlap`
//!   are opt-in), so the all-to-all time is exposed.

use super::comm::Group;
use super::compute::Device;
use super::inputs::Inputs;
use crate::engine::shape::Shape;
use crate::scenario::MoeDispatcher;

/// Rows per tile of a grouped GEMM (module docs).
pub const M_TILE: f64 = 128.0;

/// Costs of one MoE MLP for one micro-batch on the busiest GPU, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoeCosts {
    /// Forward compute: router, permutations, grouped GEMMs, shared experts.
    pub fwd: f64,
    /// Backward compute (GEMMs twice, memory-bound work once more).
    pub bwd: f64,
    /// Forward GEMMs alone (what full recomputation repeats besides the rest of `fwd`).
    pub gemm_fwd: f64,
    /// Part of `gemm_fwd`: the shared experts, a tensor-parallel MLP like a dense layer's.
    pub shared_fwd: f64,
    /// Dispatch + combine all-to-alls (and expert-tensor gathers) of one pass.
    pub comm_pass: f64,
    /// Bytes one GPU sends in one dispatch all-to-all.
    pub a2a_bytes: f64,
}

/// Time of a grouped GEMM: `groups` GEMMs of `[m×k]·[k×n]`, each `m` rounded up to whole
/// [`M_TILE`] tiles, one launch.
pub(crate) fn grouped_gemm_s(dev: &Device, groups: f64, m: f64, k: f64, n: f64) -> f64 {
    if groups <= 0.0 || m <= 0.0 {
        return 0.0;
    }
    let m_tiles = (m / M_TILE).ceil().max(1.0) * M_TILE;
    // Each group reads its own weights (the roofline of `gemm_s` counts them).
    groups * (dev.gemm_s(m_tiles, k, n) - dev.kernel_s) + dev.kernel_s
}

impl MoeCosts {
    /// The MoE MLP of shape `d` for the inputs `x`.
    pub(crate) fn of(x: &Inputs, d: &Shape) -> MoeCosts {
        if !d.is_moe() {
            return MoeCosts::default();
        }
        let par = &x.s.parallel;
        let dev = &x.dev;
        let (t, etp, ep) = (x.tf, par.etp().max(1) as f64, x.e as f64);
        let tok_sp = x.tok / t;
        let rows = x.tok * crate::engine::memory::experts::rows_per_token(x.s, d);
        let local = (d.experts / ep).max(1.0);
        let m_e = rows / local;
        let f_e = d.f_expert / etp;
        let fc1 = grouped_gemm_s(dev, local, m_e, d.h, (d.c_ffn - 1.0) * f_e);
        let fc2 = grouped_gemm_s(dev, local, m_e, f_e, d.h);
        let shared = if d.f_shared > 0.0 {
            dev.gemm_s(x.tok, d.h, (d.c_ffn - 1.0) * d.f_shared / t)
                + dev.gemm_s(x.tok, d.f_shared / t, d.h)
        } else {
            0.0
        };
        // The router stays 16-bit under FP8 (Megatron-Core `router.py`, `moe_router_dtype`).
        let router_gemm = dev.gemm16_s(tok_sp, d.h, d.experts);
        let gemm_fwd = fc1 + fc2 + shared + router_gemm;
        // Router: read logits, write scores and the top-k (fp32), ~3 kernels.
        let router_mem = dev.memory_s(tok_sp * d.experts * (x.ab + 4.0 + 4.0), 3.0);
        // Permute before dispatch (read tok·h, write k copies), sort received rows by local
        // expert (read + write), and the mirror images on the way back.
        let ab = x.ab;
        let sort = if local > 1.0 {
            2.0 * rows * d.h * ab
        } else {
            0.0
        };
        let perm_bytes = 2.0 * (tok_sp * d.h * ab + tok_sp * d.k * d.h * ab) + 2.0 * sort;
        let permute = dev.memory_s(perm_bytes, 4.0);
        let fwd = gemm_fwd + router_mem + permute;
        let bwd = 2.0 * gemm_fwd + router_mem + permute;
        // Dispatch and combine: this GPU sends its tokens' k copies; the busiest receives
        // `imbalance ×` that. Expert-tensor gather/scatter of the received rows.
        let a2a_bytes = tok_sp * d.k * d.h * ab;
        let a2a = match x.stack.dispatcher {
            MoeDispatcher::Alltoall => x.groups.ep.all_to_all_s(a2a_bytes * d.imbalance),
            MoeDispatcher::Deepep => x.groups.ep.node_forwarded_all_to_all_s(
                tok_sp * d.h * ab * d.imbalance,
                d.k,
                d.experts,
            ),
        };
        let etp_g = Group::new(x.gpu, par.etp().max(1), 1);
        let gather = etp_g.gather_s(rows * d.h * ab);
        MoeCosts {
            fwd,
            bwd,
            gemm_fwd,
            shared_fwd: shared,
            comm_pass: 2.0 * (a2a + gather),
            a2a_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::gpu_preset;

    #[test]
    fn small_expert_gemms_pay_for_whole_tiles() {
        let dev = Device::new(
            &gpu_preset("h100-sxm5-80gb").unwrap().spec,
            crate::scenario::Precision::Bf16,
            None,
        );
        // 8 experts of 100 rows cost as 8 of 128 rows, one launch.
        let a = grouped_gemm_s(&dev, 8.0, 100.0, 7168.0, 4096.0);
        let b = grouped_gemm_s(&dev, 8.0, 128.0, 7168.0, 4096.0);
        assert_eq!(a, b);
        let k = dev.kernel_s;
        assert!((b - (8.0 * (dev.gemm_s(128.0, 7168.0, 4096.0) - k) + k)).abs() < 1e-15);
        // 128-row experts are memory-bound (each reads its own 7168×4096 weights): far slower
        // than one 1024-row GEMM sharing one weight matrix.
        assert!(b > 1.5 * dev.gemm_s(1024.0, 7168.0, 4096.0));
        // Large experts run near the dense rate.
        let big = grouped_gemm_s(&dev, 4.0, 8192.0, 7168.0, 4096.0);
        assert!(big < 1.05 * 4.0 * dev.gemm_s(8192.0, 7168.0, 4096.0));
    }
}
