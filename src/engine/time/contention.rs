//! Overlap contention: what communication hidden under compute still costs the compute.
//!
//! A collective or point-to-point transfer that runs beside compute is not free: NCCL runs it
//! as kernels, one CTA per channel, each CTA holding a whole SM ("NCCL CTAs won't share an SM
//! with compute kernels", S. Jeaugey, NVIDIA/nccl issue #689), so the compute beside it runs on
//! `S − c` of the GPU's `S` SMs and ends `T·c/S` later for a transfer of `T` seconds
//! (the many-wave limit). Which transfers overlap is the stack's choice (DP reduction, ZeRO-3 /
//! FSDP gathers, TP overlap, the CP ring, pipeline sends, EP all-to-all under DualPipe); the
//! share `c/S` comes from the channel count NCCL launches ([`super::comm::collective_sm_share`]
//! for collectives). The charge is part of each kind's exposed communication and is reported
//! apart as [`super::breakdown::TimeEstimate::overlap_contention_s`]
//! ([comm.md](crate::docs::formulas::comm) §7).

use super::comm::{collective_ctas, sm_usage, Group, Link};
use super::generation::Generation;

/// CTAs NCCL point-to-point transfers launch inside an NVLink domain of A100s, H100s or
/// B200s: `p2pnChannels` = the collective channel count (24 on 8×A100 and 8×H100, 32 on 8×B200)
/// rounded up to a power of two, every channel usable by one peer (NVIDIA/nccl
/// `src/graph/paths.cc` `ncclTopoComputeP2pChannels`; per NVLink peer `2·links` channels,
/// `ncclTopoGetNchannels`). Logs: "24 coll channels, ... 32 p2p channels, 32 p2p channels per
/// peer" on 8×A100 SXM4 and 8×H100 (AWS p5), and on a pair of H20s under NCCL 2.27.5
/// (NVIDIA/nccl issue #1781).
pub const NVLINK_P2P_CTAS: f64 = 32.0;
/// Channels (CTAs) of an NCCL point-to-point transfer per network peer:
/// `NCCL_NCHANNELS_PER_NET_PEER` defaults to 2 from NCCL 2.12 to 2.27 (`src/graph/paths.cc`
/// at 3c223c10; 2.28 derives it from the NIC's bandwidth, 14 GB/s a channel); "2 p2p channels
/// per peer" in the issue #1781 log of two ranks on two network endpoints.
pub const NET_P2P_CTAS_PER_PEER: f64 = 2.0;

/// The point-to-point pattern of a transfer, which decides how many NCCL channels it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum P2p {
    /// A ring step or pipeline exchange: send to one neighbour, receive from the other (two
    /// peers at once).
    Ring,
    /// An all-to-all over the group: every peer at once, as many channels as the
    /// communicator's collectives use ([`collective_ctas`], `p2pnChannels`).
    AllToAll,
}

/// Fraction of compute lost while an NCCL point-to-point transfer of pattern `kind` on `g` runs
/// beside it on a GPU of `sms` SMs: its CTAs over the SMs — [`NVLINK_P2P_CTAS`] inside an NVLink
/// domain; across nodes [`NET_P2P_CTAS_PER_PEER`] for each of a ring's two peers, or an
/// all-to-all's [`collective_ctas`]. Volta and an unknown SM count keep Calculon's shares
/// ([`sm_usage`]).
pub fn p2p_sm_share(g: &Group, gen: Generation, sms: f64, kind: P2p) -> f64 {
    if g.link == Link::None {
        return 0.0;
    }
    if gen == Generation::Volta || sms <= 0.0 {
        return sm_usage(g.link);
    }
    let ctas = match (g.link, kind) {
        (Link::Network, P2p::Ring) => 2.0 * NET_P2P_CTAS_PER_PEER,
        (Link::Network, P2p::AllToAll) => collective_ctas(g, gen).unwrap_or(0.0),
        _ => NVLINK_P2P_CTAS,
    };
    (ctas / sms).min(1.0)
}

/// The compute lost while the hidden part of a transfer runs: `share` of its hidden time
/// `total − exposed` (never negative), seconds.
#[inline]
pub fn charge(total: f64, exposed: f64, share: f64) -> f64 {
    share * (total - exposed).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::gpu_preset;

    #[test]
    fn point_to_point_holds_nccls_p2p_channels() {
        let h100 = gpu_preset("h100-sxm5-80gb").unwrap().spec;
        let a100 = gpu_preset("a100-sxm4-80gb").unwrap().spec;
        let share = |g: &crate::scenario::GpuSpec, n: u64, stride: u64, sms: f64, k: P2p| {
            p2p_sm_share(&Group::new(g, n, stride), Generation::of(g), sms, k)
        };
        // A CP ring inside one node: 32 of 132 (H100) or 108 (A100) SMs.
        assert!((share(&h100, 8, 1, 132.0, P2p::Ring) - 32.0 / 132.0).abs() < 1e-15);
        assert!((share(&a100, 4, 1, 108.0, P2p::Ring) - 32.0 / 108.0).abs() < 1e-15);
        // Pipeline sends across nodes: 2 channels to each of two peers, 4 of 132.
        assert!((share(&h100, 4, 8, 132.0, P2p::Ring) - 4.0 / 132.0).abs() < 1e-15);
        // An all-to-all over 16 GPUs on two nodes: the collectives' 16 channels.
        assert!((share(&h100, 16, 1, 132.0, P2p::AllToAll) - 16.0 / 132.0).abs() < 1e-15);
        // One GPU: nothing; an unknown SM count keeps Calculon's NVLink 0.15.
        assert_eq!(share(&h100, 1, 1, 132.0, P2p::Ring), 0.0);
        assert_eq!(share(&h100, 8, 1, 0.0, P2p::Ring), sm_usage(Link::Nvlink));
    }

    #[test]
    fn only_the_hidden_part_is_charged() {
        // 10 ms of which 4 ms exposed, 24 of 132 SMs: 6 ms · 24/132 = 1.0909 ms.
        assert!((charge(0.010, 0.004, 24.0 / 132.0) - 0.006 * 24.0 / 132.0).abs() < 1e-15);
        // Nothing hidden, nothing charged.
        assert_eq!(charge(0.004, 0.004, 0.2), 0.0);
        assert_eq!(charge(0.003, 0.004, 0.2), 0.0);
    }
}
