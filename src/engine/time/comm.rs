//! α–β cost of collectives per link tier, and which tier a parallel group uses.
//!
//! Costs (Thakur, Rabenseifner & Gropp 2005; nccl-tests `doc/PERFORMANCE.md`, [FORMULAS.md](crate::docs::formulas) §7.1-7.2),
//! with `S` the full buffer, `n` ranks and `B` the bus bandwidth the group achieves:
//! - ring all-reduce `α + 2(n−1)/n·S/B`;
//! - reduce-scatter or all-gather `α + (n−1)/n·S/B`;
//! - all-to-all `α + (n−1)/n·S/B`;
//! - point-to-point `α + S/B`.
//!
//! Rank placement is Megatron's: TP innermost, then CP, then DP, then PP. A group of `n` ranks
//! with stride `st` keeps `k = clamp(domain/st, 1, n)` members inside one NVLink domain. If `k = n`
//! it runs on NVLink; otherwise it crosses the network, and since every node carries the traffic of
//! its `k` members on `k` NICs, the ring's bus bandwidth is `min(B_nvlink, k·B_nic)` (the
//! hierarchical argument of [FORMULAS.md](crate::docs::formulas) §7.4).

use crate::scenario::GpuSpec;
use serde::Serialize;

/// Achieved fraction of the NVLink per-GPU bandwidth for large NCCL collectives. nccl-tests on
/// DGX A100 show all-reduce bus bandwidth ≈ 230-240 GB/s of 300; DGX H100 ≈ 360-370 of 450.
pub const NVLINK_EFFICIENCY: f64 = 0.78;
/// Achieved fraction of the NIC line rate (InfiniBand HDR/NDR, RoCE): nccl-tests multi-node
/// bus bandwidth ≈ 20-23 GB/s per 25 GB/s HDR port, Calculon's IB tier uses 0.9.
pub const NIC_EFFICIENCY: f64 = 0.85;
/// Fixed latency of one NVLink collective, s (Calculon `systems/a100_80g.json` NVLink tier: 10 µs;
/// NCCL `tuning.cc` ring/Simple base 8.4 µs).
pub const NVLINK_LATENCY_S: f64 = 10e-6;
/// Fixed latency of one collective that crosses the network, s (Calculon IB tier: 20 µs).
pub const NIC_LATENCY_S: f64 = 20e-6;
/// PCIe bandwidth assumed for a custom GPU with neither NVLink nor a PCIe figure, GB/s per
/// direction: PCIe Gen3 ×16 (15.75 GB/s), the slowest link such a GPU would have.
pub const DEFAULT_PCIE_GBPS: f64 = 16.0;
/// GPUs sharing one host's PCIe fabric when there is no NVLink: the usual 8-GPU server.
pub const GPUS_PER_PCIE_HOST: u64 = 8;
/// NIC bandwidth assumed for a custom GPU without a NIC figure, GB/s per GPU: one 100 Gb/s
/// port (EDR InfiniBand / 100 GbE), the common floor of training clusters.
pub const DEFAULT_NIC_GBPS: f64 = 12.5;
/// PCIe link efficiency when GPUs have no NVLink (measured PCIe Gen4/5 copies ≈ 0.8 of line rate).
pub const PCIE_EFFICIENCY: f64 = 0.8;

/// Which link a group's traffic uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Link {
    /// No traffic (group of one).
    #[default]
    None,
    /// NVLink (or PCIe when the GPU has no NVLink) inside the NVLink domain.
    Nvlink,
    /// The network between nodes.
    Network,
}

/// A communication group: its size, link, bus bandwidth and latency.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Group {
    /// Ranks.
    pub n: f64,
    /// Link tier.
    pub link: Link,
    /// Achieved bus bandwidth, B/s.
    pub bus_bps: f64,
    /// Latency per collective, s.
    pub latency_s: f64,
}

impl Group {
    /// The group of `n` ranks whose members are `stride` ranks apart, on `gpu`.
    pub fn new(gpu: &GpuSpec, n: u64, stride: u64) -> Group {
        if n <= 1 {
            return Group {
                n: 1.0,
                ..Group::default()
            };
        }
        let (intra_bps, domain) = match gpu.nvlink_gbps {
            Some(b) => (b * 1e9 * NVLINK_EFFICIENCY, gpu.nvlink_domain_gpus.max(1)),
            None => (
                gpu.pcie_gbps.unwrap_or(DEFAULT_PCIE_GBPS) * 1e9 * PCIE_EFFICIENCY,
                GPUS_PER_PCIE_HOST,
            ),
        };
        let nic_bps = gpu.nic_gbps.unwrap_or(DEFAULT_NIC_GBPS) * 1e9 * NIC_EFFICIENCY;
        let stride = stride.max(1);
        let k = (domain / stride).clamp(1, n);
        if k >= n && stride.saturating_mul(n) <= domain.max(1) {
            Group {
                n: n as f64,
                link: Link::Nvlink,
                bus_bps: intra_bps.max(1.0),
                latency_s: NVLINK_LATENCY_S,
            }
        } else {
            Group {
                n: n as f64,
                link: Link::Network,
                bus_bps: (k as f64 * nic_bps).min(intra_bps).max(1.0),
                latency_s: NIC_LATENCY_S,
            }
        }
    }

    /// Ring all-reduce of `bytes`: `α + 2(n−1)/n·S/B`.
    pub fn all_reduce_s(&self, bytes: f64) -> f64 {
        if self.n <= 1.0 || bytes <= 0.0 {
            return 0.0;
        }
        self.latency_s + 2.0 * (self.n - 1.0) / self.n * bytes / self.bus_bps
    }

    /// Reduce-scatter or all-gather of a full buffer of `bytes`: `α + (n−1)/n·S/B`.
    pub fn gather_s(&self, bytes: f64) -> f64 {
        if self.n <= 1.0 || bytes <= 0.0 {
            return 0.0;
        }
        self.latency_s + (self.n - 1.0) / self.n * bytes / self.bus_bps
    }

    /// Point-to-point send of `bytes`: `α + S/B`.
    pub fn p2p_s(&self, bytes: f64) -> f64 {
        if self.n <= 1.0 || bytes <= 0.0 {
            return 0.0;
        }
        self.latency_s + bytes / self.bus_bps
    }
}

/// Bytes moved per step by one GPU for one kind of communication.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CommVolume {
    /// Bytes this GPU sends per step (ring traffic: `(n−1)/n·S` per reduce-scatter/all-gather,
    /// twice that per all-reduce; the message itself for point-to-point).
    pub bytes: f64,
    /// Link tier.
    pub link: Link,
    /// Ranks in the group.
    pub group: u64,
    /// Collective used.
    pub collective: Collective,
}

/// Collective kinds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    /// Nothing.
    #[default]
    None,
    /// All-reduce (or reduce-scatter + all-gather pairs of the same volume, with SP).
    AllReduce,
    /// Reduce-scatter and all-gather (ZeRO / distributed optimizer / FSDP).
    ReduceScatterAllGather,
    /// All-to-all (MoE dispatch and combine).
    AllToAll,
    /// Point-to-point (pipeline stages, CP ring).
    PointToPoint,
}

/// Bytes per step per GPU of every kind of communication, with its link tier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CommBreakdown {
    /// Tensor/sequence-parallel collectives.
    pub tp: CommVolume,
    /// Context-parallel K/V ring.
    pub cp: CommVolume,
    /// Expert-parallel all-to-all.
    pub ep: CommVolume,
    /// Pipeline point-to-point.
    pub pp: CommVolume,
    /// Data-parallel gradient reduction (and ZeRO parameter gathers).
    pub dp: CommVolume,
}

impl CommBreakdown {
    /// Total bytes per step per GPU.
    pub fn total_bytes(&self) -> f64 {
        self.tp.bytes + self.cp.bytes + self.ep.bytes + self.pp.bytes + self.dp.bytes
    }
}
