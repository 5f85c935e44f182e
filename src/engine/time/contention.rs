//! Overlap contention: what communication hidden under compute still costs the compute.
//!
//! A collective or point-to-point transfer that runs beside compute is not free: NCCL runs it
//! as kernels, one CTA per channel, each CTA holding a whole SM ("NCCL CTAs won't share an SM
//! with compute kernels", S. Jeaugey, NVIDIA/nccl issue #689), so the compute beside it runs on
//! `S − c` of the GPU's `S` SMs and ends `T·c/S` later for a transfer of `T` seconds
//! (the many-wave limit). Which transfers overlap is the stack's choice (DP reduction, ZeRO-3 /
//! FSDP gathers, TP overlap, the CP ring, pipeline sends, EP all-to-all under DualPipe); the
//! share `c/S` comes from the channel count NCCL launches ([`collective_ctas`] for collectives,
//! [`p2p_ctas`] for point-to-point transfers; [`sm_share`] turns it into the fraction lost,
//! Calculon's shares [`sm_usage`] where the count is not known). The charge is part of each
//! kind's exposed communication and is reported apart as
//! [`super::breakdown::TimeEstimate::overlap_contention_s`]
//! ([comm.md](crate::docs::formulas::comm) §7). This module owns every SM share;
//! [`super::comm`] prices the transfers' time.

use super::comm::{Group, Link};
use super::generation::Generation;

/// Fraction of compute a point-to-point transfer over NVLink takes from an overlapped kernel
/// (Calculon `systems/*.json` `processor_usage`, NVLink).
pub const NVLINK_SM_USAGE: f64 = 0.15;
/// The same over InfiniBand (Calculon `processor_usage`, InfiniBand).
pub const NETWORK_SM_USAGE: f64 = 0.02;

/// Fraction of compute lost while a collective on `link` overlaps it: NCCL runs as kernels on
/// SMs (Calculon `systems/*.json` `processor_usage`: NVLink 0.15, InfiniBand 0.02;
/// [comm.md](crate::docs::formulas::comm) §7). Used only where NCCL's channel count is not
/// known (Volta, or a GPU without an SM count); otherwise collectives use
/// [`collective_sm_share`] and point-to-point traffic (pipeline sends, all-to-all, the CP ring)
/// [`p2p_sm_share`].
pub fn sm_usage(link: Link) -> f64 {
    match link {
        Link::Nvlink => NVLINK_SM_USAGE,
        Link::Network => NETWORK_SM_USAGE,
        Link::None => 0.0,
    }
}

/// CTAs of an NCCL collective across nodes with several GPUs of the group per node: "if you are
/// on DGX with 8 NICs ... then it would use 16 SMs" (S. Jeaugey, NCCL maintainer, NVIDIA/nccl
/// issue #689; two channels per NIC), each channel one CTA holding a whole SM ("NCCL CTAs won't
/// share an SM with compute kernels", same issue).
pub const NET_RING_CTAS: f64 = 16.0;
/// CTAs of an NCCL collective across nodes with one GPU of the group per node (a ring through
/// one NIC): "a PCI system with a single NIC ... should just launch 2 SMs" (same comment).
pub const NET_SINGLE_NIC_CTAS: f64 = 2.0;
/// CTAs of an NCCL collective inside one 8-GPU NVLink domain of A100s or H100s, the ring count
/// of NCCL's topology search: "24 coll channels" in `NCCL_DEBUG=INFO` logs of 8×A100 SXM4 and
/// 8×H100 ([comm.md](crate::docs::formulas::comm) §7).
pub const NVLINK_CTAS: f64 = 24.0;
/// The same on 8×B200/GB200 NVLink 5: "32 coll channels" ([comm.md](crate::docs::formulas::comm) §7).
pub const NVLINK5_CTAS: f64 = 32.0;

/// CTAs an NCCL ring or tree collective of `g` launches on `gen` ([`NET_RING_CTAS`],
/// [`NET_SINGLE_NIC_CTAS`], [`NVLINK_CTAS`], [`NVLINK5_CTAS`]); `None` for Volta (no published
/// log read), which keeps Calculon's shares ([`sm_usage`]).
pub fn collective_ctas(g: &Group, gen: Generation) -> Option<f64> {
    match (g.link, gen) {
        (Link::None, _) => Some(0.0),
        (_, Generation::Volta) => None,
        (Link::Network, _) if g.ppn >= 2.0 => Some(NET_RING_CTAS),
        (Link::Network, _) => Some(NET_SINGLE_NIC_CTAS),
        (Link::Nvlink, Generation::Blackwell) => Some(NVLINK5_CTAS),
        (Link::Nvlink, _) => Some(NVLINK_CTAS),
    }
}

/// Fraction of compute lost while an NCCL collective of `g` overlaps it on a GPU of `sms` SMs:
/// its [`collective_ctas`] hold `c` of the `S` SMs for the collective's duration `T`, so the
/// compute beside it advances at `(S − c)/S` and finishes `T·c/S` later (the many-wave limit;
/// a GEMM of one wave pushed into a second by the CTAs loses more, forums.developer.nvidia.com
/// /t/337991, not priced). HBM and L2 traffic of the collective are not priced either.
pub fn collective_sm_share(g: &Group, gen: Generation, sms: f64) -> f64 {
    sm_share(collective_ctas(g, gen), sms, g.link)
}

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

/// CTAs an NCCL point-to-point transfer of pattern `kind` on `g` launches on `gen`:
/// [`NVLINK_P2P_CTAS`] inside an NVLink domain; across nodes [`NET_P2P_CTAS_PER_PEER`] for each
/// of a ring's two peers, or an all-to-all's [`collective_ctas`]. `None` for Volta, which keeps
/// Calculon's shares ([`sm_usage`]).
pub fn p2p_ctas(g: &Group, gen: Generation, kind: P2p) -> Option<f64> {
    match (g.link, kind) {
        (Link::None, _) => Some(0.0),
        _ if gen == Generation::Volta => None,
        (Link::Network, P2p::Ring) => Some(2.0 * NET_P2P_CTAS_PER_PEER),
        (Link::Network, P2p::AllToAll) => collective_ctas(g, gen),
        (Link::Nvlink, _) => Some(NVLINK_P2P_CTAS),
    }
}

/// Fraction of compute lost while an NCCL point-to-point transfer of pattern `kind` on `g` runs
/// beside it on a GPU of `sms` SMs: its [`p2p_ctas`] over the SMs, as for a collective
/// ([`collective_sm_share`]).
pub fn p2p_sm_share(g: &Group, gen: Generation, sms: f64, kind: P2p) -> f64 {
    sm_share(p2p_ctas(g, gen, kind), sms, g.link)
}

/// The share of `sms` SMs that `ctas` CTAs hold (at most all of them); where the CTA count or
/// the SM count is not known, Calculon's share for the `link` ([`sm_usage`]).
#[inline]
pub fn sm_share(ctas: Option<f64>, sms: f64, link: Link) -> f64 {
    match ctas {
        Some(c) if sms > 0.0 => (c / sms).min(1.0),
        _ => sm_usage(link),
    }
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
    use crate::scenario::{gpu_preset, GpuSpec};

    fn spec_of(id: &str) -> GpuSpec {
        gpu_preset(id).unwrap().spec
    }

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

    #[test]
    fn collectives_take_their_ctas_share_of_the_sms() {
        // FSDP over 16 nodes of 8 H100s: 16 CTAs of 132 SMs; a DP ring with one GPU per node
        // (TP 8): 2 of 132; inside one node: 24 of 108 on A100, 32 of 148 on B200.
        let h100 = spec_of("h100-sxm5-80gb");
        let a100 = spec_of("a100-sxm4-80gb");
        let share = |g: &GpuSpec, n: u64, stride: u64, sms: f64| {
            collective_sm_share(&Group::new(g, n, stride), Generation::of(g), sms)
        };
        assert_eq!(share(&h100, 128, 1, 132.0), 16.0 / 132.0);
        assert_eq!(share(&h100, 16, 8, 132.0), 2.0 / 132.0);
        assert_eq!(share(&a100, 8, 1, 108.0), 24.0 / 108.0);
        assert_eq!(share(&spec_of("b200-sxm-180gb"), 8, 1, 148.0), 32.0 / 148.0);
        assert_eq!(share(&h100, 1, 1, 132.0), 0.0);
        // Volta keeps Calculon's shares; so does an unknown SM count.
        let v100 = spec_of("v100-sxm2-32gb");
        assert_eq!(share(&v100, 64, 1, 80.0), sm_usage(Link::Network));
        assert_eq!(share(&h100, 8, 1, 0.0), sm_usage(Link::Nvlink));
    }
}
