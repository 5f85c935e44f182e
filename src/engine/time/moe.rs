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
//! - **Router, permute, unpermute** are memory-bound ([`Device::memory_s`]): their bytes are
//!   small, their cost is the many small kernels the stack launches for them ([`Bookkeeping`]).
//! - **All-to-all** ([`Group::all_to_all_s`] of the expert-parallel group, whose members are
//!   `etp` ranks apart): a GPU's bytes to members in its own NVLink domain go over NVLink, the
//!   rest through its own NIC, concurrently. With DeepEP (`parallel.moe_dispatcher`) a token
//!   travels once per GPU holding at least one of its experts, not once per routed copy: it
//!   crosses the network once per node holding its experts and fans out over NVLink there
//!   ([`Group::node_forwarded_all_to_all_s`]).
//! - **Overlap.** None of the frameworks' defaults overlaps the dispatch with compute
//!   (Megatron-Core's `--overlap-moe-expert-parallel-comm` and `--moe-shared-expert-overlap`
//!   are opt-in), so the all-to-all time is exposed.
//!
//! Formulas, sources and what was checked: [moe.md](crate::docs::formulas::moe) §1.

use super::comm::Group;
use super::compute::Device;
use super::inputs::Inputs;
pub use super::moe_bookkeeping::{Bookkeeping, FUSED_BOOKKEEPING, MEGATRON_BOOKKEEPING};
use crate::engine::shape::Shape;
use crate::scenario::MoeDispatcher;

/// Rows per tile of a grouped GEMM (module docs).
pub const M_TILE: f64 = 128.0;

/// Bytes per value of an FP8 dispatch on the wire: one E4M3 byte plus a 4-byte FP32 scale per
/// 128 values (DeepEP's `per_token_cast_to_fp8`, and its benchmarks count `(1 + 4/128)/2` of
/// the BF16 bytes, deepseek-ai/DeepEP `tests/utils.py` l. 50-58, `tests/test_internode.py`
/// l. 219 @79bbb54), the same as MXFP8's one E8M0 byte per 32 (Megatron-Core
/// `moe_dispatch_fwd_dtype = 'mxfp8'`).
pub const FP8_WIRE_BYTES: f64 = 1.0 + 4.0 / 128.0;

/// Bytes per value of the dispatch and of the combine (`parallel.moe_dispatch_fp8`): FP8 the
/// way to the experts, the activations' bytes back. The backward mirrors it: the combine's
/// backward carries the gradients to the experts in FP8 and the dispatch's backward brings
/// them back in BF16 (DeepSeek-V3 report §3.3.2, "Low-Precision Communication"; Megatron-Core
/// `moe_combine_bwd_dtype`), so each pass moves one FP8 and one 16-bit all-to-all.
pub(crate) fn wire_bytes(x: &Inputs) -> (f64, f64) {
    let back = x.ab;
    if x.s.parallel.moe_dispatch_fp8() {
        (FP8_WIRE_BYTES, back)
    } else {
        (back, back)
    }
}

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
    /// Bytes one GPU sends in one dispatch all-to-all (routed copies, in the dispatch's wire
    /// bytes).
    pub a2a_bytes: f64,
}

impl MoeCosts {
    /// The token bookkeeping of `fwd` and of `bwd` (router kernels, permutation, sorting by
    /// local expert, combine): what is left of each beside its GEMMs, which the backward runs
    /// twice, seconds.
    #[inline]
    pub fn tokens(&self) -> (f64, f64) {
        (self.fwd - self.gemm_fwd, self.bwd - 2.0 * self.gemm_fwd)
    }
}

/// Time of a grouped GEMM: `groups` GEMMs of `[m×k]·[k×n]`, each `m` rounded up to whole
/// [`M_TILE`] tiles, one launch.
pub(crate) fn grouped_gemm_s(dev: &Device, groups: f64, m: f64, k: f64, n: f64) -> f64 {
    if groups <= 0.0 || m <= 0.0 {
        return 0.0;
    }
    let m_tiles = (m / M_TILE).ceil().max(1.0) * M_TILE;
    // Each group reads its own weights (the roofline of `gemm_s` counts them).
    // The groups' tiles fill the SMs' waves together (one launch).
    groups * (dev.gemm_in_group_s(groups, m_tiles, k, n) - dev.kernel_s) + dev.kernel_s
}

/// The routing weights' own exchange in one pass, seconds. Megatron-Core's all-to-all
/// dispatcher sends each routed row's weight to its expert's GPU in a second all-to-all over
/// the expert-parallel group right after the tokens' (`all_to_all(self.ep_group,
/// permuted_probs, …)`) and, with expert-tensor parallelism, gathers them over the
/// expert-tensor group (`gather_from_sequence_parallel_region(global_probs, …)`)
/// (`megatron/core/transformer/moe/token_dispatcher.py` l. 515 and 529 at NVIDIA/Megatron-LM
/// 7094270, `core_r0.12.0`, the commit the DGX Cloud v25.05 DeepSeek-V3 and Llama 4 recipes
/// run; there since the weighting moved into the experts, Megatron-Core !2668). Backward runs
/// their mirror images (the all-to-all back, a reduce-scatter), so a pass costs the same
/// either way. One weight per routed row in the logits' dtype (`type_as(logits)`,
/// `moe_utils.py` l. 539-545): `a2a_bytes` per GPU, `1/h` of the tokens', so each call costs
/// the collective's latency, an NCCL grouped send/receive to every peer
/// ([`Group::all_to_all_s`]).
pub(crate) fn probs_exchange_s(ep: &Group, etp: &Group, a2a_bytes: f64, gather_bytes: f64) -> f64 {
    ep.all_to_all_s(a2a_bytes) + etp.gather_s(gather_bytes)
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
        // Router: read logits, write scores and the top-k (fp32), in the stack's kernels.
        let kern = &x.stack.fw.moe_bookkeeping;
        let router_bytes = tok_sp * d.experts * (x.ab + 4.0 + 4.0);
        // Sort the received rows by local expert (read + write) and back, both ways.
        let ab = x.ab;
        let (sort, sort_fwd, sort_bwd) = if local > 1.0 {
            (2.0 * rows * d.h * ab, kern.sort_fwd, kern.sort_bwd)
        } else {
            (0.0, 0.0, 0.0)
        };
        // Passes over the routed copies and the tokens ([`Bookkeeping::passes_fwd`]), and the
        // combine's weighting where the probabilities are not applied inside the experts.
        let (copy_row, token_row) = (tok_sp * d.k * d.h * ab, tok_sp * d.h * ab);
        let (w_fwd, w_bwd) = if x.s.training.moe_probs_in_experts() {
            (0.0, 0.0)
        } else {
            kern.weighting_passes
        };
        let passes =
            |(rows, tokens): (f64, f64), w: f64| (rows + w) * copy_row + tokens * token_row;
        let perm_fwd = passes(kern.passes_fwd, w_fwd) + 2.0 * sort;
        let perm_bwd = passes(kern.passes_bwd, w_bwd) + 2.0 * sort;
        // The routing weights' own exchange: collectives where they travel to the experts
        // (priced below), else the stack's kernels.
        let probs_travel = kern.probs_fwd > 0.0
            && x.stack.dispatcher == MoeDispatcher::Alltoall
            && x.s.training.moe_probs_in_experts();
        let (probs_fwd, probs_bwd) = if probs_travel {
            (0.0, 0.0)
        } else {
            (kern.probs_fwd, kern.probs_bwd)
        };
        let fwd = gemm_fwd
            + dev.memory_s(router_bytes, kern.router_fwd)
            + dev.memory_s(perm_fwd, kern.permute_fwd + sort_fwd + probs_fwd);
        let bwd = 2.0 * gemm_fwd
            + dev.memory_s(router_bytes, kern.router_bwd)
            + dev.memory_s(perm_bwd, kern.permute_bwd + sort_bwd + probs_bwd);
        // Dispatch and combine: this GPU sends its tokens' k copies; the busiest receives
        // `imbalance ×` that, each way in its wire bytes. Expert-tensor gather/scatter of the
        // received rows.
        let a2a_s = |b: f64| match x.stack.dispatcher {
            MoeDispatcher::Alltoall => x
                .groups
                .ep
                .all_to_all_s(tok_sp * d.k * d.h * b * d.imbalance),
            MoeDispatcher::Deepep => x
                .groups
                .ep
                .node_forwarded_all_to_all_s(tok_sp * d.h * b * d.imbalance, &x.routing),
        };
        // Each call costs its latency plus its bytes at a fixed rate, so a dispatch and a
        // combine cost two calls at their mean bytes.
        let (dispatch_b, combine_b) = wire_bytes(x);
        let a2a_bytes = tok_sp * d.k * d.h * dispatch_b;
        let a2a = 2.0 * a2a_s((dispatch_b + combine_b) / 2.0);
        let etp_g = Group::new(x.gpu, par.etp().max(1), 1);
        let gather = etp_g.gather_s(rows * d.h * ab);
        let probs = if probs_travel {
            probs_exchange_s(
                &x.groups.ep,
                &etp_g,
                tok_sp * d.k * ab * d.imbalance,
                rows * ab,
            )
        } else {
            0.0
        };
        MoeCosts {
            fwd,
            bwd,
            gemm_fwd,
            shared_fwd: shared,
            comm_pass: a2a + 2.0 * gather + probs,
            a2a_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::compute::preset_device;
    use super::*;

    /// An 8-expert top-2 MoE layer (hidden 4096, expert ffn 14336, seq 4096) on 8 H100s,
    /// ep 8, one expert per GPU, bf16, under `framework`.
    fn mixtral_like(framework: &str) -> crate::scenario::Scenario {
        crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "8x7B", "layers": 32, "hidden": 4096, "heads": 32,
                 "kv_heads": 8, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 32000,
                 "seq_len": 4096, "moe": {{"experts": 8, "top_k": 2,
                 "expert_ffn_hidden": 14336}}}},
              "training": {{"global_batch": 64, "micro_batch": 1, "precision": "bf16",
                 "recompute": "none", "framework": "{framework}"}},
              "parallel": {{"tp": 1, "pp": 1, "dp": 8, "ep": 8, "zero_stage": 1}},
              "cluster": {{"gpu": "h100-sxm5-80gb", "num_gpus": 8}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn megatron_bookkeeping_kernels_by_hand() {
        // 4096 tokens T, no TP, 8192 routed copies R: router bytes 4096·8·(2 + 4 + 4) =
        // 327,680 B; HBM 3350 GB/s × 0.8 = 2.68e12 B/s; 5 µs per kernel; one expert per GPU,
        // so no sort by local expert. Rows of 4096 × 2 B.
        // Megatron (18 + 22 kernels forward, 7 + 6 backward; the routing weights' exchange is
        // priced as collectives, `probs_exchange_s`; weighted inside the experts): permutation
        // passes forward 2R + 3T = 28,672 rows = 234,881,024 B (87.642 µs), backward 3R + 2T =
        // 32,768 rows = 268,435,456 B (100.163 µs):
        //   forward  0.1223 + 90 + 87.642 + 110 µs = 287.764 µs,
        //   backward 0.1223 + 35 + 100.163 + 30 µs = 165.285 µs;
        // fused stacks (3 + 4 kernels each way, 2R + 2T both ways, 75.122 µs):
        //   0.1223 + 15 + 75.122 + 20 = 110.244 µs.
        let extra = |fw: &str| {
            super::super::inputs::with_inputs(&mixtral_like(fw), |x| MoeCosts::of(x, x.d).tokens())
        };
        let (f, b) = extra("megatron");
        assert!((f - 287.764_442e-6).abs() < 1e-11, "{f}");
        assert!((b - 165.284_752e-6).abs() < 1e-11, "{b}");
        let (f, b) = extra("torchtitan");
        assert!((f - 110.244e-6).abs() < 1e-9, "{f}");
        assert!((b - 110.244e-6).abs() < 1e-9, "{b}");
    }

    #[test]
    fn the_estimate_names_the_token_bookkeeping() {
        // Megatron, the layer above: 287.764 + 165.285 = 453.049 µs of bookkeeping per MoE
        // layer and micro-batch; 32 layers on one stage, 64/8 = 8 micro-batches per step:
        // 0.115981 s, a part of the compute.
        let t = crate::engine::estimate(&mixtral_like("megatron"))
            .unwrap()
            .time;
        let want = 8.0 * 32.0 * (287.764_442e-6 + 165.284_752e-6);
        assert!((t.moe_tokens_s - want).abs() < 1e-8, "{}", t.moe_tokens_s);
        assert!(t.moe_tokens_s < t.compute_s);
        // A dense model has none.
        let mut dense = mixtral_like("megatron");
        dense.model.moe = None;
        dense.parallel.ep = 1;
        assert_eq!(
            crate::engine::estimate(&dense).unwrap().time.moe_tokens_s,
            0.0
        );
    }

    #[test]
    fn routing_weights_travel_in_their_own_all_to_all() {
        // Megatron, 8 H100s of one node, ep 8, tp = etp = 1. Per pass the weights' all-to-all
        // carries 4096·2 rows × 2 B = 16,384 B: Simple base 8.4 µs + NVLink hop 3.4 µs, and 7
        // local peers × 2,048 B at 450 GB/s × 0.78 = 351 GB/s = 0.040843 µs; no expert-tensor
        // gather (etp 1). The tokens' own passes are unchanged, so the pass costs 11.840843 µs
        // more than before, and the three kernels (2 forward, 1 backward) leave the compute.
        let pass = |moe_probs_in_experts: bool| {
            let mut s = mixtral_like("megatron");
            s.training.moe_probs_in_experts = Some(moe_probs_in_experts);
            super::super::inputs::with_inputs(&s, |x| {
                let m = MoeCosts::of(x, x.d);
                let (f, b) = m.tokens();
                (m.comm_pass, f, b)
            })
        };
        let (travel, f, b) = pass(true);
        let (kept, f_old, b_old) = pass(false);
        let want = (8.4 + 3.4 + 7.0 * 2048.0 / 351e3) * 1e-6;
        assert!((travel - kept - want).abs() < 1e-12, "{}", travel - kept);
        // Weighted in the combine (Megatron-Core 0.12.0 and older): the kernels stay, and the
        // unpermute's multiply passes over the 8192 routed rows of 4096 × 2 B, 67,108,864 B,
        // twice forward (50.081 µs at 2.68e12 B/s) and six times backward (150.244 µs).
        let rows: f64 = 8192.0 * 4096.0 * 2.0 / 2.68e12;
        let (w_f, w_b) = (2.0 * rows, 6.0 * rows);
        assert!((w_f - 50.081_242e-6).abs() < 1e-12 && (w_b - 150.243_725e-6).abs() < 1e-12);
        assert!((f_old - f - 10e-6 - w_f).abs() < 1e-12, "{f_old} {f}");
        assert!((b_old - b - 5e-6 - w_b).abs() < 1e-12, "{b_old} {b}");
        // DeepEP carries the weights inside its own dispatch: no second collective, the kernels
        // stay (weighted inside the experts: no multiply).
        let mut s = mixtral_like("megatron");
        s.parallel.moe_dispatcher = Some(MoeDispatcher::Deepep);
        let (deepep_f, deepep_b) =
            super::super::inputs::with_inputs(&s, |x| MoeCosts::of(x, x.d).tokens());
        assert!((deepep_f - (f + 10e-6)).abs() < 1e-12 && (deepep_b - (b + 5e-6)).abs() < 1e-12);
    }

    #[test]
    fn fp8_dispatch_sends_the_way_out_in_fp8_and_back_in_bf16() {
        // Megatron, FP8, 8 H100s of one node, ep 8, NCCL all-to-all: a dispatch carries
        // 4096·2 copies × 4096 values, 7/8 of them to the 7 other GPUs, 29,360,128 values at
        // 351 GB/s (450 × 0.78). In FP8 the dispatch moves 1 + 4/128 = 1.03125 B per value
        // instead of 2, the combine still 2: each pass is 29,360,128 × 0.96875 / 351e9 =
        // 81.033 µs shorter, and the step's EP bytes are (1.03125 + 2)/(2 + 2) of BF16's.
        let run = |fp8_wire: bool| {
            let mut s = mixtral_like("megatron");
            s.training.precision = crate::scenario::Precision::Fp8;
            s.parallel.moe_dispatch_fp8 = Some(fp8_wire);
            let pass = super::super::inputs::with_inputs(&s, |x| MoeCosts::of(x, x.d).comm_pass);
            (pass, crate::engine::estimate(&s).unwrap().comm.ep.bytes)
        };
        let ((fp8, fp8_bytes), (bf16, bf16_bytes)) = (run(true), run(false));
        let want = 29_360_128.0 * 0.96875 / 351e9;
        assert!((bf16 - fp8 - want).abs() < 1e-12, "{}", bf16 - fp8);
        assert!((fp8_bytes / bf16_bytes - 3.03125 / 4.0).abs() < 1e-12);
        // A BF16 run has no FP8 expert input to send: the field is refused, by name.
        let mut s = mixtral_like("megatron");
        s.parallel.moe_dispatch_fp8 = Some(true);
        let err = crate::engine::estimate(&s).unwrap_err().to_string();
        assert!(err.contains("parallel.moe_dispatch_fp8"), "{err}");
    }

    #[test]
    fn small_expert_gemms_pay_for_whole_tiles() {
        let dev = preset_device("h100-sxm5-80gb", crate::scenario::Precision::Bf16);
        // 8 experts of 100 rows cost as 8 of 128 rows, one launch.
        let a = grouped_gemm_s(&dev, 8.0, 100.0, 7168.0, 4096.0);
        let b = grouped_gemm_s(&dev, 8.0, 128.0, 7168.0, 4096.0);
        assert_eq!(a, b);
        let k = dev.kernel_s;
        assert!(
            (b - (8.0 * (dev.gemm_in_group_s(8.0, 128.0, 7168.0, 4096.0) - k) + k)).abs() < 1e-15
        );
        // 128-row experts are memory-bound (each reads its own 7168×4096 weights): far slower
        // than one 1024-row GEMM sharing one weight matrix.
        assert!(b > 1.5 * dev.gemm_s(1024.0, 7168.0, 4096.0));
        // Large experts run near the dense rate.
        let big = grouped_gemm_s(&dev, 4.0, 8192.0, 7168.0, 4096.0);
        assert!(big < 1.05 * 4.0 * dev.gemm_s(8192.0, 7168.0, 4096.0));
    }

    #[test]
    fn grouped_gemm_tiles_fill_the_waves_together() {
        // V100 fp16 (80 SMs, 100 TFLOP/s sustained, K0 116.18, `tensor_k0`): 4 experts of
        // [128×1024]·[1024×1024]. One expert alone: 64×64 gives 2·16 = 32 tiles (0.4); split-k 2
        // of them 64 blocks, 0.8 × 1140.18/1256.36 = 0.7260, the best. The
        // four in one launch: 128 tiles of 64×64, 2 waves (160), fill 0.8. Per expert 2.684e8
        // FLOP at 100e12 × 1024/1140.18 × 0.8 = 3.736 µs (its 2.36 MB at 720
        // GB/s take 3.28 µs: compute-bound), so 4 × 3.736 + 5 = 19.94 µs
        // rather than at the lone expert's fill.
        let dev = preset_device("v100-sxm2-16gb", crate::scenario::Precision::Fp16);
        let t = grouped_gemm_s(&dev, 4.0, 128.0, 1024.0, 1024.0);
        let k0 = super::super::compute::tensor_k0(125.0, 900.0);
        let member = 2.0 * 128.0 * 1024.0 * 1024.0 / (100e12 * 1024.0 / (1024.0 + k0) * 0.8);
        assert!((t - (4.0 * member + 5e-6)).abs() < 1e-12, "{t}");
        assert!((t - 19.94e-6).abs() < 1e-8, "{t}");
        let alone = dev.gemm_s(128.0, 1024.0, 1024.0) - 5e-6;
        let split = 0.8 * (1024.0 + k0) / (1024.0 + 2.0 * k0);
        assert!((alone - member * 0.8 / split).abs() < 1e-12, "{alone}");
    }
}
