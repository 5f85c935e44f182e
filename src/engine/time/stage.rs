//! Step 2 of the time model: per-micro-batch time of every pipeline stage (all its chunks), and
//! the slowest (critical) stage that paces the pipeline.

use super::breakdown::CommTimes;
use super::contention::{charge, P2p};
use super::ends::EndCosts;
use super::inputs::Inputs;
use super::layer::{AttentionCosts, LayerCosts};
use super::zero3::Zero3Layer;
use crate::engine::plan::Plan;
use crate::engine::runs::{Holds, Run};
use crate::scenario::Schedule;

/// The costs of both kinds of layer ([`crate::engine::layers`]): a dense-MLP layer and an MoE
/// layer (the same as the dense one for a dense model).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerKinds {
    /// A dense-MLP layer.
    pub dense: LayerCosts,
    /// An MoE layer.
    pub moe: LayerCosts,
}

impl LayerKinds {
    /// Both kinds for `x`.
    pub(crate) fn of(x: &Inputs) -> LayerKinds {
        // Their attention is the same; only the MLP differs.
        let dense_shape = x.d.dense_layer();
        let attn = AttentionCosts::of(x, &dense_shape);
        let dense = LayerCosts::with_attention(x, &dense_shape, &attn);
        let moe = if x.d.is_moe() {
            LayerCosts::with_attention(x, x.d, &attn)
        } else {
            dense
        };
        LayerKinds { dense, moe }
    }
}

/// Per-micro-batch times of one stage (all its chunks), seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// Stage index.
    pub stage: u64,
    /// Layers on the stage.
    pub layers_u: u64,
    /// Layers as a float.
    pub layers: f64,
    /// MoE layers among them (MTP modules' included), whose all-to-alls the volumes count.
    pub moe_layers: f64,
    /// Forward compute.
    pub fwd: f64,
    /// Backward compute.
    pub bwd: f64,
    /// Part of `bwd`: the weight-gradient GEMMs (`W`, which the zero-bubble and DualPipe
    /// schedules run apart; one per forward GEMM, Qi et al. 2024 Table 1).
    pub wgrad: f64,
    /// Part of `fwd + bwd`: the MoE layers' token bookkeeping ([`LayerCosts::moe_tokens`]).
    pub moe_tokens: f64,
    /// EP communication hidden under the paired chunk (DualPipe), not in `total`.
    pub hidden_ep: f64,
    /// PP communication hidden under the paired chunk (DualPipe), not in `total`.
    pub hidden_pp: f64,
    /// Recomputation.
    pub rc: f64,
    /// Exposed TP/SP collectives.
    pub tp: f64,
    /// Exposed CP ring.
    pub cp: f64,
    /// EP all-to-all.
    pub ep: f64,
    /// Pipeline sends and receives.
    pub pp: f64,
    /// Exposed ZeRO-3 gathers, reduce-scatters and copies.
    pub dp: f64,
    /// Part of `tp`, `cp`, `ep`, `pp` and `dp`, by kind: the compute that their hidden part
    /// takes ([`super::contention`]).
    pub contention: CommTimes,
}

impl StageTimes {
    /// Total per micro-batch.
    pub fn total(&self) -> f64 {
        self.fwd + self.bwd + self.rc + self.tp + self.cp + self.ep + self.pp + self.dp
    }
}

/// The stages summed and their slowest one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stages {
    /// Σ over stages of one micro-batch's time.
    pub sum_s: f64,
    /// The slowest stage.
    pub crit: StageTimes,
    /// What the slowest stage holds.
    pub crit_holds: Holds,
    /// The place of the slowest stage's run among the plan's runs ([`Plan::runs`], the order
    /// the memory rows keep them in too).
    pub crit_run: usize,
}

impl Stages {
    /// What the bubble depends on ([`super::pipeline::StageSums`]).
    pub fn sums(&self) -> super::pipeline::StageSums {
        super::pipeline::StageSums {
            sum: self.sum_s,
            max: self.crit.total().max(0.0),
            fwd: self.crit.fwd,
            wgrad: self.crit.wgrad,
        }
    }
}

/// PP: one send forward and one backward per micro-batch per chunk, `T·h/t` per TP rank
/// (scatter-gather / SP-sharded boundary, Narayanan et al. 2021 §4.1), bytes per message.
pub(crate) fn pp_msg_bytes(x: &Inputs) -> f64 {
    x.tok * x.d.h * x.ab / x.tf
}

/// PP time of any stage per micro-batch: one send forward and one backward per chunk
/// ([`pp_msg_bytes`]); overlapped sends still take their SM share from compute. The same for
/// every stage, so [`stages`] prices it once. Returns `(exposed, contention)`, the second the
/// part of the first that SM share is ([`super::contention`]).
pub(crate) fn stage_pp_s(x: &Inputs) -> (f64, f64) {
    let pp_total = if x.p > 1 {
        2.0 * x.v as f64 * x.groups.pp.p2p_s(pp_msg_bytes(x))
    } else {
        0.0
    };
    if x.stack.pp_overlap {
        let c = charge(pp_total, 0.0, x.p2p_sm_share(&x.groups.pp, P2p::Ring));
        (c, c)
    } else {
        (pp_total, 0.0)
    }
}

/// Time of stage `r` per micro-batch, holding `holds`; `pp` is [`stage_pp_s`].
pub(crate) fn stage_times(
    x: &Inputs,
    r: u64,
    holds: Holds,
    pp: (f64, f64),
    kinds: &LayerKinds,
    ends: &EndCosts,
    z3: &Zero3Layer,
) -> StageTimes {
    let schedule = x.s.parallel.schedule();
    let mix = holds.mix;
    let nl_u = mix.layers();
    // DualPipe: a rank holds two stages and runs half the micro-batches through each, so one
    // micro-batch costs it half its layers (and half of the embedding and the output layer).
    let share = if schedule == Schedule::DualPipe {
        0.5
    } else {
        1.0
    };
    let (nd, nm) = (
        share * mix.dense_with_mtp() as f64,
        share * mix.moe_with_mtp() as f64,
    );
    let nl = nd + nm;
    let (dl, ml) = (&kinds.dense, &kinds.moe);
    let mut st = StageTimes {
        stage: r,
        layers_u: nl_u,
        layers: nl,
        moe_layers: nm,
        fwd: nd * dl.fwd + nm * ml.fwd,
        bwd: nd * dl.bwd + nm * ml.bwd,
        wgrad: nd * dl.gemm_fwd + nm * ml.gemm_fwd,
        moe_tokens: nm * ml.moe_tokens,
        hidden_ep: 0.0,
        hidden_pp: 0.0,
        rc: nd * dl.rc + nm * ml.rc,
        tp: nd * dl.tp.exposed + nm * ml.tp.exposed,
        cp: nd * dl.cp.exposed + nm * ml.cp.exposed,
        ep: nm * ml.ep,
        pp: pp.0,
        dp: 0.0,
        contention: CommTimes {
            tp: nd * dl.tp.contention + nm * ml.tp.contention,
            cp: nd * dl.cp.contention + nm * ml.cp.contention,
            pp: pp.1,
            ..CommTimes::default()
        },
    };
    // MTP modules (last stage): their layer is counted above; each also projects the
    // concatenated hidden state and embedding (`2h→h`) and runs the shared output head again.
    if mix.mtp > 0 {
        let n = share * mix.mtp as f64;
        let proj = x.dev.gemm_s(x.tok, 2.0 * x.d.h, x.d.h / x.tf);
        st.fwd += n * (proj + ends.out_fwd);
        st.bwd += n * (2.0 * proj + ends.out_bwd);
    }
    // The stack's passes over the stage's parameters per micro-batch (DeepSpeed's gradient
    // accumulation; unsharded PyTorch's autocast casts and accumulation).
    if let Some((f, b, rc)) =
        super::grad_accumulation::param_passes_s(x, mix, nl_u as f64, holds.embedding, holds.output)
    {
        st.fwd += share * f;
        st.bwd += share * b;
        st.rc += share * rc;
    }
    if holds.embedding {
        st.fwd += share * ends.emb_fwd;
        st.bwd += share * ends.emb_bwd;
    }
    if holds.output {
        st.fwd += share * ends.out_fwd;
        st.bwd += share * ends.out_bwd;
        st.wgrad += share * ends.out_wgrad;
    }
    if schedule.overlaps_chunks() {
        // DualPipe(V) runs a forward and a backward chunk of two micro-batches together, each
        // one's all-to-all and pipeline sends under the other's compute (DeepSeek-V3 technical
        // report §3.2.1, Fig. 4); only what compute cannot cover stays exposed. While the
        // hidden part runs, its kernels hold SMs the compute gives up ([`overlap_sm_share`]),
        // charged to the communication as everywhere else in the engine.
        let comm = st.ep + st.pp;
        let exposed = (comm - st.fwd - st.bwd).max(0.0);
        let k = if comm > 0.0 { exposed / comm } else { 0.0 };
        st.hidden_ep = st.ep * (1.0 - k);
        st.hidden_pp = st.pp * (1.0 - k);
        let (u_ep, u_pp) = overlap_sm_share(x);
        let (c_ep, c_pp) = (u_ep * st.hidden_ep, u_pp * st.hidden_pp);
        st.ep = st.ep * k + c_ep;
        st.pp = st.pp * k + c_pp;
        st.contention.ep = c_ep;
        st.contention.pp = st.contention.pp * k + c_pp;
        st.hidden_ep *= 1.0 - u_ep;
        st.hidden_pp *= 1.0 - u_pp;
    }
    if x.zero3 {
        (st.dp, st.contention.dp) = z3.stage_exposed_s(x, nl, st.fwd, st.bwd, st.rc);
    }
    st
}

/// SMs DeepEP's normal (high-throughput) kernels occupy while they run: `Buffer.num_sms = 20`
/// (deepseek-ai/DeepEP `deep_ep/buffer.py` @edbb1bc, April 2025, the default every caller
/// keeps), the 20 SMs DeepSeek-V3 gives its dispatch and combine kernels ("only 20 SMs are
/// sufficient to fully utilize the bandwidths of IB and NVLink", DeepSeek-V3 technical report
/// §3.2.2, arXiv 2412.19437).
pub const DEEPEP_SMS: f64 = 20.0;

/// Fraction of the compute's SMs that the EP and the PP communication take while they run under
/// a paired chunk (DualPipe), `(ep, pp)`: DeepEP's [`DEEPEP_SMS`] of the GPU's SMs, NCCL's
/// point-to-point channels of an all-to-all and of the pipeline's sends
/// ([`Inputs::p2p_sm_share`]).
pub(crate) fn overlap_sm_share(x: &Inputs) -> (f64, f64) {
    let ep = match x.stack.dispatcher {
        crate::scenario::MoeDispatcher::Deepep => (DEEPEP_SMS / x.sms()).min(1.0),
        crate::scenario::MoeDispatcher::Alltoall => x.p2p_sm_share(&x.groups.ep, P2p::AllToAll),
    };
    (ep, x.p2p_sm_share(&x.groups.pp, P2p::Ring))
}

/// All stages: their sum and the slowest (the first of equals). A stage's time follows from
/// what it holds, so each run of ranks holding the same ([`crate::engine::runs`]) is priced
/// once ([`Plan::runs`]).
#[inline]
pub(crate) fn stages(
    x: &Inputs,
    plan: &Plan,
    kinds: &LayerKinds,
    ends: &EndCosts,
    z3: &Zero3Layer,
) -> Stages {
    let pp = stage_pp_s(x);
    let price = |run: &Run| stage_times(x, run.ranks.start, run.holds, pp, kinds, ends, z3);
    slowest(plan.runs(), price)
}

/// The sum over the ranks of `runs` of one micro-batch's time, and the slowest rank (the first
/// of equals), pricing each run once with `price`.
fn slowest(runs: impl Iterator<Item = Run>, price: impl Fn(&Run) -> StageTimes) -> Stages {
    let mut out = Stages::default();
    let mut max_t = -1.0;
    for (i, run) in runs.enumerate() {
        let st = price(&run);
        let tot = st.total();
        // Rank by rank, in order, as a sum over the stages.
        for _ in run.ranks {
            out.sum_s += tot;
        }
        if tot > max_t {
            max_t = tot;
            out.crit = st;
            out.crit_holds = run.holds;
            out.crit_run = i;
        }
    }
    out
}
