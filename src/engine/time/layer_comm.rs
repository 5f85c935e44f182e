//! Collectives inside one layer: tensor/sequence parallelism and the context-parallel K/V ring,
//! per micro-batch, with the part that compute hides.

use super::async_tp::{AsyncTpLayer, BlockGemms};
pub use super::cp_exchange::CpCosts;
use super::inputs::Inputs;
use super::stack::CpMechanism;
use super::userbuffers::{sm_count, UbLayer};
use crate::engine::framework::TpOverlap;
use crate::scenario::Recompute;

/// TP/SP collectives of one layer, seconds per micro-batch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TpCosts {
    /// One of the layer's forward activation collectives (an all-reduce of `T·h`, or with SP a
    /// reduce-scatter + all-gather pair).
    pub coll: f64,
    /// The same collective in 16 bits (the output layer's, which is not an FP8 module).
    pub coll_16: f64,
    /// Activation message `T·h` bytes.
    pub msg: f64,
    /// All collectives forward.
    pub fwd_total: f64,
    /// All collectives backward.
    pub bwd_total: f64,
    /// Exposed forward.
    pub fwd_exp: f64,
    /// Exposed backward.
    pub bwd_exp: f64,
    /// Exposed in the recomputed forward (full recomputation repeats the collectives).
    pub rc_exp: f64,
    /// Every collective of the layer including recomputation.
    pub total: f64,
    /// Exposed time, plus the SM share the hidden part takes from compute.
    pub exposed: f64,
    /// Part of `exposed`: that SM share ([`super::contention`]). NCCL collectives take their SM
    /// share of the hidden time; userbuffers' SM cost is its margins, already in the exposed
    /// time; async TP hides only what the copy engines move: 0 for both.
    pub contention: f64,
}

impl TpCosts {
    /// TP/SP collectives per layer, in four steps: the collectives themselves
    /// ([`Collectives::of`]), the part the stack's overlap hides ([`Hiding::of`],
    /// [`Hiding::exposure`]), the K/V all-gather of more TP ranks than KV heads
    /// ([`qkv_gather_s`]) and what a recomputation repeats ([`recomputed`]); the hidden part then
    /// takes its SM share from compute ([`super::contention`]). `gemm_fwd` and `gemm_col_fwd` are
    /// the forward GEMMs of the `blocks` the collectives belong to, `per_block` each block's own
    /// (only async TP reads them), and `stops_early` says a full recomputation stops before the
    /// MLP's output GEMM ([`crate::scenario::Scenario::recompute_early_stop`]).
    pub(crate) fn of(
        x: &Inputs,
        blocks: f64,
        gemm_fwd: f64,
        gemm_col_fwd: f64,
        per_block: [BlockGemms; 2],
        stops_early: bool,
    ) -> TpCosts {
        let c = Collectives::of(x, blocks);
        let hiding = Hiding::of(x);
        let e = hiding.exposure(x, &c, blocks, gemm_fwd, gemm_col_fwd, per_block);
        let qkv_gather = qkv_gather_s(x);
        let (fwd_total, fwd_exp) = (blocks * c.coll + qkv_gather, e.fwd + qkv_gather);
        let (bwd_total, bwd_exp) = (e.bwd_total + qkv_gather, e.bwd + qkv_gather);
        let (rc_total, rc_exp) = recomputed(
            x,
            Forward {
                total: fwd_total,
                exposed: fwd_exp,
                closing: c.closing,
                gathers: c.gathers,
            },
            stops_early,
            e.regather,
            hiding.overlaps().then_some(gemm_fwd),
        );
        let total = fwd_total + bwd_total + rc_total;
        let exp = fwd_exp + bwd_exp + rc_exp;
        let contention = match hiding.holds_nccl_sms() {
            true => super::contention::charge(total, exp, x.collective_sm_share(&x.groups.tp)),
            false => 0.0,
        };
        TpCosts {
            coll: c.coll,
            coll_16: c.coll_16,
            msg: c.msg,
            fwd_total,
            bwd_total,
            fwd_exp,
            bwd_exp,
            rc_exp,
            total,
            exposed: exp + contention,
            contention,
        }
    }
}

/// A layer's TP/SP activation collectives before any overlap, seconds per micro-batch.
struct Collectives {
    /// Activation message `T·h` bytes.
    msg: f64,
    /// One block's forward collective.
    coll: f64,
    /// One block's backward collective.
    coll_bwd: f64,
    /// The forward collective in 16 bits.
    coll_16: f64,
    /// The collective that closes a block: its reduce-scatter with SP, its all-reduce without.
    closing: f64,
    /// The forward all-gathers of all blocks (0 without SP).
    gathers: f64,
    /// Bytes per element the forward and backward all-gathers move
    /// ([`super::fp8::tp_gather_bytes`]; the 16-bit size without SP, which gathers nothing).
    gather_bytes: (f64, f64),
}

impl Collectives {
    /// One all-reduce of `T·h` per block (attention, MLP) forward and one backward; with SP each
    /// is a reduce-scatter + all-gather pair of the same volume (Korthikanti et al. 2022
    /// §4.2.2). An MoE layer has one such block, its attention: the MoE MLP's tensor-parallel
    /// traffic is its token dispatcher's (the expert-tensor gather and reduce-scatter of
    /// [`super::moe::MoeCosts`]; Megatron-Core requires sequence parallelism for MoE with TP, so
    /// tokens reach the router sharded).
    ///
    /// Under FP8 the sequence-parallel all-gather of each pair moves what the stack quantized
    /// before gathering ([`super::fp8::tp_gather_bytes`]); the reduce-scatter stays 16-bit.
    #[inline]
    fn of(x: &Inputs, blocks: f64) -> Collectives {
        let g = &x.groups.tp;
        let msg = x.tok * x.d.h * x.ab;
        if !x.s.parallel.sp {
            let ar = g.all_reduce_s(msg);
            return Collectives {
                msg,
                coll: ar,
                coll_bwd: ar,
                coll_16: ar,
                closing: ar,
                gathers: 0.0,
                gather_bytes: (x.ab, x.ab),
            };
        }
        let gather_bytes = super::fp8::tp_gather_bytes(
            x.stack.fw.layers,
            x.s.training.precision,
            x.s.training.fp8_recipe(),
            x.ab,
        );
        let rs = g.gather_s(msg);
        // An all-gather of 16-bit activations moves what the reduce-scatter moves: the same
        // collective, priced once.
        let ag = |b: f64| {
            if b == x.ab {
                rs
            } else {
                g.gather_s(x.tok * x.d.h * b)
            }
        };
        let ag_fwd = ag(gather_bytes.0);
        Collectives {
            msg,
            coll: ag_fwd + rs,
            coll_bwd: ag(gather_bytes.1) + rs,
            coll_16: 2.0 * rs,
            closing: rs,
            gathers: blocks * ag_fwd,
            gather_bytes,
        }
    }
}

/// How the stack hides a layer's TP collectives under its GEMMs: `parallel.tp_comm_overlap`
/// selects the stack's mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hiding {
    /// PyTorch's micro-pipelined async TP under torchtitan with SP ([`AsyncTpLayer`], which
    /// needs each block's own GEMMs: attention, then the MLP).
    AsyncTp,
    /// Transformer Engine's userbuffers under Megatron-LM with SP ([`UbLayer`]): split GEMMs,
    /// SM margins, exposed tails.
    Userbuffers,
    /// Any other stack's overlap (Megatron-LM without SP, DeepSpeed, plain PyTorch): a
    /// collective hides under its neighbouring GEMM.
    NeighbourGemm,
    /// No overlap asked for, but the backward's column-parallel input-gradient reduction runs
    /// under the weight-gradient GEMM (Megatron-LM `async_tensor_model_parallel_allreduce`, on
    /// by default since 2021; [`super::stack::Stack::tp_bwd_overlap`]).
    BackwardReduction,
    /// Nothing overlaps (torchtitan without SP has no all-gather or reduce-scatter for its
    /// pass to fuse).
    Nothing,
}

/// The exposed part of a layer's TP collectives, seconds per micro-batch.
struct Exposure {
    /// Exposed forward.
    fwd: f64,
    /// Exposed backward.
    bwd: f64,
    /// All collectives backward (userbuffers' three per block).
    bwd_total: f64,
    /// Async TP's exposed re-gathers under per-op selective checkpointing.
    regather: Option<f64>,
}

impl Hiding {
    /// The mechanism of `x`'s stack.
    #[inline]
    fn of(x: &Inputs) -> Hiding {
        let titan = x.stack.fw.tp_overlap == TpOverlap::AsyncTp;
        let overlap = x.s.parallel.tp_comm_overlap() && (x.s.parallel.sp || !titan);
        if super::async_tp::applies(x) {
            Hiding::AsyncTp
        } else if overlap && x.s.parallel.sp && x.stack.fw.tp_overlap == TpOverlap::Userbuffers {
            Hiding::Userbuffers
        } else if overlap {
            Hiding::NeighbourGemm
        } else if x.stack.tp_bwd_overlap {
            Hiding::BackwardReduction
        } else {
            Hiding::Nothing
        }
    }

    /// Whether the collectives overlap GEMMs at all (then a recomputed one hides under its
    /// neighbouring GEMM too).
    fn overlaps(self) -> bool {
        matches!(
            self,
            Hiding::AsyncTp | Hiding::Userbuffers | Hiding::NeighbourGemm
        )
    }

    /// Whether the hidden part runs as NCCL kernels holding SMs: userbuffers' SM cost is its
    /// margins, already in the exposed time; async TP hides only what the copy engines move.
    fn holds_nccl_sms(self) -> bool {
        !matches!(self, Hiding::AsyncTp | Hiding::Userbuffers)
    }

    /// The exposed part of the collectives `c` of `blocks` blocks whose forward GEMMs take
    /// `gemm_fwd` (`gemm_col_fwd` of them column-parallel; `per_block` each block's own).
    #[inline]
    fn exposure(
        self,
        x: &Inputs,
        c: &Collectives,
        blocks: f64,
        gemm_fwd: f64,
        gemm_col_fwd: f64,
        per_block: [BlockGemms; 2],
    ) -> Exposure {
        let (fwd_total, bwd_total) = (blocks * c.coll, blocks * c.coll_bwd);
        let (fwd, bwd) = match self {
            Hiding::AsyncTp => return async_tp_exposure(x, c, blocks, per_block),
            Hiding::Userbuffers => {
                let ub = UbLayer {
                    blocks,
                    tp: x.tf,
                    ag_fwd: c.coll - c.closing,
                    ag_bwd: c.coll_bwd - c.closing,
                    rs: c.closing,
                    gemm_col: gemm_col_fwd,
                    gemm_row: gemm_fwd - gemm_col_fwd,
                    kernel_s: x.dev.kernel_s,
                    sms: sm_count(x.gen),
                }
                .costs();
                return Exposure {
                    fwd: ub.fwd,
                    bwd: ub.bwd,
                    bwd_total: ub.bwd_total,
                    regather: None,
                };
            }
            Hiding::NeighbourGemm => (
                (fwd_total - gemm_fwd).max(0.0),
                (bwd_total - 2.0 * gemm_fwd).max(0.0),
            ),
            Hiding::BackwardReduction => (
                fwd_total,
                (blocks - 1.0) * c.coll_bwd + (c.coll_bwd - gemm_col_fwd).max(0.0),
            ),
            Hiding::Nothing => (fwd_total, bwd_total),
        };
        Exposure {
            fwd,
            bwd,
            bwd_total,
            regather: None,
        }
    }
}

/// Async TP's exposure ([`AsyncTpLayer`]): each fused all-gather first copies the local shard
/// into the symmetric buffer (`2·T·h·b/tp` bytes over HBM, `b` the gathered bytes per element),
/// each fused reduce-scatter ends in a `reduce_partials` kernel (`(1 + 1/tp)·T·h·e` bytes);
/// the all-gathers do not fuse where the stack quantizes after gathering (torchao rowwise).
#[inline]
fn async_tp_exposure(
    x: &Inputs,
    c: &Collectives,
    blocks: f64,
    per_block: [BlockGemms; 2],
) -> Exposure {
    let (fwd_b, bwd_b) = c.gather_bytes;
    let shard = x.tok * x.d.h / x.tf;
    let copy_in = |b: f64| x.dev.memory_s(2.0 * shard * b, 1.0);
    let rowwise = x.s.training.precision == crate::scenario::Precision::Fp8
        && x.s.training.fp8_recipe() == Some(crate::scenario::Fp8Recipe::Rowwise);
    let a = AsyncTpLayer {
        blocks: per_block,
        n_blocks: if blocks > 1.5 { 2 } else { 1 },
        tp: x.tf,
        ag_fwd: c.coll - c.closing,
        ag_bwd: c.coll_bwd - c.closing,
        rs: c.closing,
        gathers_fuse: !rowwise,
        copy_in: (copy_in(fwd_b), copy_in(bwd_b)),
        reduce: x
            .dev
            .memory_s((1.0 + 1.0 / x.tf) * x.tok * x.d.h * x.ab, 1.0),
        kernel_s: x.dev.kernel_s,
    }
    .costs();
    Exposure {
        fwd: a.fwd,
        bwd: a.bwd,
        bwd_total: blocks * c.coll_bwd,
        regather: Some(a.regather),
    }
}

/// More TP ranks than KV heads (Megatron-LM f7dfb99, PR #2565, `SelfAttention.
/// get_query_key_value_tensors`): each rank all-gathers the fused QKV output over TP
/// (`all_gather_last_dim_from_tensor_parallel_region`) and keeps its group's slice; the
/// backward reduce-scatters the gradient back. Nothing overlaps them. Seconds each way.
#[inline]
fn qkv_gather_s(x: &Inputs) -> f64 {
    if x.s.tp_replicates_kv_heads() {
        x.groups.tp.gather_s(x.tok * (x.d.q + 2.0 * x.d.kv) * x.ab)
    } else {
        0.0
    }
}

/// The forward TP collectives of a layer, what its recomputation may repeat: their `total` and
/// `exposed` time, the collective that `closing`s the layer and the all-gathers (`gathers`).
struct Forward {
    total: f64,
    exposed: f64,
    closing: f64,
    gathers: f64,
}

/// The TP collectives a recomputation repeats, `(total, exposed)` seconds. Full recomputation
/// repeats every forward collective; one that `stops_early`
/// ([`crate::scenario::Scenario::recompute_early_stop`]) stops before the MLP's output GEMM and
/// so never issues the collective that closes the layer (the all-reduce after FC2, or with SP
/// its reduce-scatter), and the exposed share of the rest is the forward's;
/// per-op selective checkpointing (with flash attention) of a stack that recomputes the
/// all-gathers ([`super::stack::Stack::sac_regathers`]) repeats those, saving the
/// reduce-scatters; async TP's re-gather is `regather_exp`, and a collective that overlaps its
/// neighbouring GEMM hides under `hiding_gemm` when one is given.
fn recomputed(
    x: &Inputs,
    f: Forward,
    stops_early: bool,
    regather_exp: Option<f64>,
    hiding_gemm: Option<f64>,
) -> (f64, f64) {
    let full = x.s.training.recompute == Recompute::Full;
    let op_sac = x.s.training.recompute == Recompute::Selective
        && x.s.recompute_modules().is_none()
        && x.stack.sac_regathers;
    let total = match (full, stops_early) {
        (true, false) => f.total,
        (true, true) => (f.total - f.closing).max(0.0),
        (false, _) if op_sac => f.gathers,
        (false, _) => 0.0,
    };
    let exposed = match (full, stops_early) {
        (true, false) => f.exposed,
        (true, true) if f.total > 0.0 => f.exposed * total / f.total,
        (true, true) => 0.0,
        (false, _) if op_sac && regather_exp.is_some() => regather_exp.unwrap_or(total),
        (false, _) => match hiding_gemm {
            Some(gemm) => (total - gemm).max(0.0),
            None => total,
        },
    };
    (total, exposed)
}

impl CpCosts {
    /// The exchange of `x`'s stack ([`CpMechanism`]): PyTorch's ring ([`super::ring::costs`]) or
    /// the P2P ring ([`CpCosts::p2p`]); `attn_fwd`, `attn_bwd` are the attention kernels'
    /// times, what the exchange hides under.
    pub(crate) fn of(x: &Inputs, attn_fwd: f64, attn_bwd: f64) -> CpCosts {
        match x.stack.cp {
            CpMechanism::TorchRing => super::ring::costs(x, attn_fwd, attn_bwd),
            CpMechanism::P2pRing => CpCosts::p2p(x, attn_fwd, attn_bwd),
        }
    }

    /// P2P ring: (c−1) steps exchanging this rank's K and V chunk, overlapped with the attention
    /// of the chunk already received (Megatron CP doc); backward moves K, V and their gradients.
    fn p2p(x: &Inputs, attn_fwd: f64, attn_bwd: f64) -> CpCosts {
        let g = &x.groups.cp;
        let kv_msg = 2.0 * x.tok * (x.d.kv / x.tf) * x.ab;
        let step = g.p2p_s(kv_msg);
        let cpm1 = x.cf - 1.0;
        let full = x.s.training.recompute == Recompute::Full;
        CpCosts::assemble(
            x.p2p_sm_share(g, super::contention::P2p::Ring),
            kv_msg,
            (cpm1 * step, cpm1 * (step - attn_fwd / x.cf).max(0.0)),
            (
                cpm1 * 2.0 * step,
                cpm1 * (2.0 * step - attn_bwd / x.cf).max(0.0),
            ),
            full,
            // K+V forward (and again recomputed), K+V and their gradients backward.
            (if full { 4.0 } else { 3.0 }) * cpm1 * kv_msg,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_recomputation_runs_the_forward_exchange_again() {
        // Forward exchange 10 ms (4 ms exposed), backward 20 ms (1 ms exposed), the hidden part
        // taking 0.15 of its time from compute.
        let full = CpCosts::assemble(0.15, 1.0, (0.010, 0.004), (0.020, 0.001), true, 4.0);
        // Exposed 2·4 + 1 = 9 ms, hidden 2·10 + 20 − 9 = 31 ms: 9 + 0.15·31 = 13.65 ms.
        assert!((full.exposed - 0.01365).abs() < 1e-12, "{}", full.exposed);
        assert_eq!(
            (full.fwd_total, full.rc_total, full.bwd_total),
            (0.010, 0.010, 0.020)
        );
        // Without it: 5 + 0.15·(30 − 5) = 8.75 ms, nothing recomputed.
        let once = CpCosts::assemble(0.15, 1.0, (0.010, 0.004), (0.020, 0.001), false, 3.0);
        assert!((once.exposed - 0.00875).abs() < 1e-12, "{}", once.exposed);
        assert_eq!(once.rc_total, 0.0);
    }

    /// The TP costs of a Llama-3-70B layer (tp 8, SP, bf16, micro-batch 1, seq 8192) under
    /// `framework`, with its forward GEMM times.
    fn llama70b_tp(framework: &str) -> (TpCosts, f64, f64) {
        llama70b_tp_with(framework, false, "none")
    }

    /// [`llama70b_tp`] with `parallel.tp_comm_overlap` set to `overlap`.
    fn llama70b_tp_overlap(framework: &str, overlap: bool) -> (TpCosts, f64, f64) {
        llama70b_tp_with(framework, overlap, "none")
    }

    /// [`llama70b_tp`] with `training.recompute` set to `recompute`.
    fn llama70b_tp_rc(framework: &str, recompute: &str) -> (TpCosts, f64, f64) {
        llama70b_tp_with(framework, false, recompute)
    }

    /// [`llama70b_tp`] with TP overlap `overlap` and recomputation `recompute`.
    fn llama70b_tp_with(framework: &str, overlap: bool, recompute: &str) -> (TpCosts, f64, f64) {
        let s = crate::scenario::parse(&format!(
            r#"{{"model": {{"name": "m", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
                 "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192}},
              "training": {{"global_batch": 64, "micro_batch": 1, "precision": "bf16",
                 "recompute": "{recompute}", "flash_attention": true, "framework": "{framework}"}},
              "parallel": {{"tp": 8, "pp": 1, "dp": 8, "sp": true, "zero_stage": 1,
                 "tp_comm_overlap": {overlap}}},
              "cluster": {{"gpu": "h100-sxm5-80gb", "num_gpus": 64}}}}"#
        ))
        .unwrap();
        super::super::inputs::with_inputs(&s, |x| {
            let l = super::super::layer::LayerCosts::of(x);
            (l.tp, l.gemm_fwd, l.gemm_col_fwd)
        })
    }

    #[test]
    fn more_tp_ranks_than_kv_heads_gather_the_fused_qkv() {
        // A Llama-3-70B-like layer with 4 KV heads at TP 8 (Megatron-LM f7dfb99): the same layer
        // with 8 KV heads moves the same SP collectives; with 4 each rank also all-gathers the
        // QKV output, 8192 tokens × (8192 + 2·512) × 2 B, forward, and reduce-scatters its
        // gradient backward, both exposed.
        let layer = |kv_heads: u64, framework: &str| {
            let s = crate::scenario::parse(&format!(
                r#"{{"model": {{"name": "m", "layers": 80, "hidden": 8192, "heads": 64,
                     "kv_heads": {kv_heads}, "ffn_hidden": 28672, "ffn_act": "swiglu",
                     "vocab": 128256, "seq_len": 8192}},
                  "training": {{"global_batch": 64, "micro_batch": 1, "precision": "bf16",
                     "recompute": "none", "flash_attention": true, "framework": "{framework}"}},
                  "parallel": {{"tp": 8, "pp": 1, "dp": 8, "sp": true, "zero_stage": 1}},
                  "cluster": {{"gpu": "h100-sxm5-80gb", "num_gpus": 64}}}}"#
            ))
            .unwrap();
            let g = super::super::inputs::with_inputs(&s, |x| {
                x.groups.tp.gather_s(8192.0 * (8192.0 + 2.0 * 512.0) * 2.0)
            });
            let tp = super::super::inputs::with_inputs(&s, |x| {
                super::super::layer::LayerCosts::of(x).tp
            });
            (tp, g, s)
        };
        let (four, g, s) = layer(4, "megatron");
        let (eight, _, _) = layer(8, "megatron");
        assert!(s.tp_replicates_kv_heads());
        assert!(g > 0.0);
        assert!((four.fwd_total - eight.fwd_total - g).abs() < 1e-12);
        assert!((four.bwd_total - eight.bwd_total - g).abs() < 1e-12);
        assert!((four.fwd_exp - eight.fwd_exp - g).abs() < 1e-12);
        assert!((four.bwd_exp - eight.bwd_exp - g).abs() < 1e-12);
        // Other stacks need the KV heads to split evenly: validation rejects the layout.
        assert!(!s.tp_splits_kv_heads(6) && s.tp_splits_kv_heads(16));
        let mut titan = s.clone();
        titan.training.framework = Some(crate::scenario::Framework::Torchtitan);
        assert!(!titan.tp_splits_kv_heads(8));
        assert!(titan.validate().is_err());
    }

    /// The TP costs of the MPT-7B-like layer of the layer tests (h 4096, bf16, 8 × 2048 tokens,
    /// eager PyTorch, full recomputation) at tp 2 without SP, dp 4, ZeRO-1; `early` sets
    /// `training.recompute_early_stop`.
    fn eager_tp2(early: bool) -> TpCosts {
        let mut s = super::super::layer::tests::mpt_like(early, false);
        s.training.global_batch = 64;
        (s.parallel.tp, s.parallel.dp, s.parallel.zero_stage) = (2, 4, 1);
        super::super::inputs::with_inputs(&s, |x| super::super::layer::LayerCosts::of(x).tp)
    }

    #[test]
    fn early_stopping_recomputation_skips_the_closing_all_reduce() {
        let (on, off) = (eager_tp2(true), eager_tp2(false));
        // Two all-reduces per block pair forward (after the attention and the MLP output
        // projections), the same backward; eager PyTorch hides none of them. The whole
        // recomputation repeats both; stopping early before FC2 leaves out the second.
        assert_eq!((on.fwd_total, on.bwd_total), (off.fwd_total, off.bwd_total));
        assert_eq!(off.rc_exp, off.fwd_exp);
        assert!((off.total - (2.0 * off.fwd_total + off.bwd_total)).abs() < 1e-15);
        assert!((off.fwd_total - 2.0 * off.coll).abs() < 1e-15);
        assert!((off.total - on.total - on.coll).abs() < 1e-15);
        // Nothing is hidden here, so the recomputed exchange is exposed whole: one collective.
        assert_eq!(off.fwd_exp, off.fwd_total);
        assert!(
            (on.rc_exp - on.coll).abs() < 1e-15,
            "{} vs {}",
            on.rc_exp,
            on.coll
        );
    }

    #[test]
    fn torchtitan_op_sac_gathers_the_block_inputs_again() {
        let (none, _, _) = llama70b_tp("torchtitan");
        let (titan, _, _) = llama70b_tp_rc("torchtitan", "selective");
        let (mega, _, _) = llama70b_tp_rc("megatron", "selective");
        // bf16: each block's SP pair is an all-gather and a reduce-scatter of the same T·h
        // message, priced alike, so one all-gather is coll/2; the recomputed forward repeats
        // the two blocks' all-gathers (not the saved reduce-scatters): 2·coll/2 = coll, exposed
        // (vanilla DTensor TP overlaps nothing).
        assert!(
            (titan.rc_exp - titan.coll).abs() < 1e-15,
            "{}",
            titan.rc_exp
        );
        assert!(titan.coll > 0.0);
        let collectives = titan.fwd_total + titan.bwd_total + titan.coll;
        assert!((titan.total - collectives).abs() < 1e-15);
        assert_eq!((titan.fwd_exp, titan.bwd_exp), (none.fwd_exp, none.bwd_exp));
        // Megatron's selective recomputation (the attention core) runs no collective.
        assert_eq!(mega.rc_exp, 0.0);
        assert_eq!(mega.total, mega.fwd_total + mega.bwd_total);
    }

    #[test]
    fn only_megatron_hides_the_dgrad_reduction_under_the_wgrad_gemm() {
        let (mega, _, col) = llama70b_tp("megatron");
        let (titan, _, _) = llama70b_tp("torchtitan");
        // Same collectives, same forward exposure.
        assert_eq!(
            (mega.fwd_total, mega.bwd_total),
            (titan.fwd_total, titan.bwd_total)
        );
        assert_eq!(mega.fwd_exp, titan.fwd_exp);
        // torchtitan's DTensor TP: every backward collective exposed. Megatron: one block's
        // collective hides under the column-parallel weight-gradient GEMMs, up to their time.
        assert_eq!(titan.bwd_exp, titan.bwd_total);
        let hidden = mega.coll.min(col);
        assert!((titan.bwd_exp - mega.bwd_exp - hidden).abs() < 1e-15);
        assert!(hidden > 0.0);
    }

    #[test]
    fn megatron_tp_overlap_is_priced_as_userbuffers_runs_it() {
        let (ub, gemm, col) = llama70b_tp_overlap("megatron", true);
        let (plain, _, _) = llama70b_tp_overlap("megatron", false);
        // 16-bit: each block's all-gather costs what its reduce-scatter does, coll = 2·rs.
        let rs = ub.coll / 2.0;
        let want = UbLayer {
            blocks: 2.0,
            tp: 8.0,
            ag_fwd: rs,
            ag_bwd: rs,
            rs,
            gemm_col: col,
            gemm_row: gemm - col,
            kernel_s: 5e-6,
            sms: 132.0,
        }
        .costs();
        assert_eq!((ub.fwd_exp, ub.bwd_exp), (want.fwd, want.bwd));
        // No NCCL SM share on top: the margins are the SM cost.
        assert_eq!(ub.exposed, want.fwd + want.bwd);
        // Backward re-gathers the input for the weight gradient: three collectives per block.
        assert!((ub.bwd_total - 6.0 * rs).abs() < 1e-15);
        // Cheaper than the plain exchange, dearer than hiding every collective for free.
        assert!(ub.exposed < plain.exposed && ub.exposed > 0.0);
    }

    #[test]
    fn torchtitan_async_tp_leaves_the_input_gradient_scatters_exposed() {
        let (titan, _, _) = llama70b_tp_overlap("torchtitan", true);
        let (plain, _, _) = llama70b_tp_overlap("torchtitan", false);
        let rs = titan.coll / 2.0;
        // Backward: the two blocks' input-gradient reduce-scatters (sums of the column-parallel
        // layers' input gradients, which the pass cannot fuse) stay exposed in full; the
        // gradient all-gathers hide, in part, under the row-parallel input-gradient GEMMs.
        assert!(titan.bwd_exp >= 2.0 * rs && titan.bwd_exp < plain.bwd_exp);
        // Forward: both gathers and both scatters fused, something left exposed (copy-in,
        // reduce_partials, split-GEMM kernels).
        assert!(titan.fwd_exp > 0.0 && titan.fwd_exp < plain.fwd_exp);
        // The copy engines move the hidden part: no NCCL SM share on top.
        assert_eq!(titan.exposed, titan.fwd_exp + titan.bwd_exp + titan.rc_exp);
        // The other stacks' model would hide every collective of this layer.
        assert!(titan.exposed > 0.25 * plain.exposed);
    }
}
