//! Bytes each GPU moves per step for every kind of communication, with the link tier it uses.

use super::comm::{Collective, CommBreakdown, CommVolume, Group};
use super::data_parallel::DpStep;
use super::inputs::Inputs;
use super::layer::LayerCosts;
use super::stage::{pp_msg_bytes, StageTimes};
use crate::scenario::{MoeDispatcher, Recompute};

/// The per-step volumes of `x` whose slowest stage is `crit`.
pub(crate) fn volumes(
    x: &Inputs,
    crit: &StageTimes,
    layer: &LayerCosts,
    dp: &DpStep,
) -> CommBreakdown {
    let (mf, tf, d) = (x.mf, x.tf, &x.d);
    let g = &x.groups;
    let tp_passes = if x.s.training.recompute == Recompute::Full {
        6.0
    } else {
        4.0
    };
    CommBreakdown {
        tp: volume(
            mf * crit.layers * tp_passes * 2.0 * (tf - 1.0) / tf * layer.tp.msg,
            &g.tp,
            Collective::AllReduce,
            x.t,
        ),
        cp: volume(
            mf * crit.layers * layer.cp.bytes,
            &g.cp,
            Collective::PointToPoint,
            x.c,
        ),
        ep: volume(
            // Dispatch and combine in each pass ([`super::layer::ep_passes`]), each a copy of a
            // token per other rank it reaches: the routed copies of an NCCL all-to-all, or
            // DeepEP's copies through the NIC and over NVLink; each way in its wire bytes.
            mf * crit.moe_layers * super::layer::ep_passes(x.s) * ep_copies(x) * x.tok / x.tf
                * d.h
                * ep_wire_bytes(x),
            &g.ep,
            Collective::AllToAll,
            x.e,
        ),
        pp: volume(
            if x.p > 1 {
                mf * 2.0 * x.v as f64 * pp_msg_bytes(x)
            } else {
                0.0
            },
            &g.pp,
            Collective::PointToPoint,
            x.p,
        ),
        dp: volume(
            dp.bytes,
            &g.dp,
            if x.s.parallel.zero_stage == 0 {
                Collective::AllReduce
            } else {
                Collective::ReduceScatterAllGather
            },
            x.dp.saturating_mul(x.c),
        ),
    }
}

/// Bytes per value of one dispatch and one combine ([`super::moe::wire_bytes`]).
fn ep_wire_bytes(x: &Inputs) -> f64 {
    let (dispatch, combine) = super::moe::wire_bytes(x);
    dispatch + combine
}

/// Copies of one of its tokens a GPU sends to other expert-parallel ranks per dispatch.
fn ep_copies(x: &Inputs) -> f64 {
    let (d, ef) = (&x.d, x.e as f64);
    match x.stack.dispatcher {
        MoeDispatcher::Alltoall => (ef - 1.0) / ef * d.k,
        MoeDispatcher::Deepep => {
            let (net, nvl) = x.groups.ep.node_forwarded_copies(&x.routing);
            net + nvl
        }
    }
}

fn volume(bytes: f64, g: &Group, collective: Collective, n: u64) -> CommVolume {
    if n <= 1 || bytes <= 0.0 {
        return CommVolume::default();
    }
    CommVolume {
        bytes,
        link: g.link,
        group: n,
        collective,
    }
}
