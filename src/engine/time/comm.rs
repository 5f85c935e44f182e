//! Collectives priced by the algorithm NCCL runs, per link tier.
//!
//! NCCL picks an (algorithm, protocol) pair per call by minimising its own cost model
//! `t = latency + S_alg / bw` (NVIDIA/nccl `src/graph/tuning.cc`, `ncclTopoTuneModel` and
//! `ncclTopoGetAlgoTime`); this module evaluates the same model with NCCL's constants, so it
//! reproduces both NCCL's choice and its time:
//! - **ring** all-gather / reduce-scatter: `n−1` steps, each paying a per-step latency (the
//!   NVLink one for steps inside a node, the network one for the `N−1` steps that cross nodes);
//!   bandwidth term `(n−1)/n·S/B`. NCCL has no other AG/RS algorithm on multi-GPU nodes
//!   (PAT needs one GPU per node, NVLS/CollNet multi-node need a collnet plugin);
//! - **ring** all-reduce: `2(n−1)` steps and `2(n−1)/n·S/B`; multi-node Simple pays NCCL's
//!   ×1.4 "plateau" latency factor;
//! - **tree** all-reduce: latency `2·((ppn−1)·intra + log2(N)·net)` — logarithmic in nodes —
//!   at 0.92 of the bus bandwidth and half the algorithm bandwidth;
//! - **NVLS** (NVLink SHARP) all-reduce inside an NVSwitch domain of Hopper/Blackwell parts:
//!   fixed latency, the reduction done in the switch;
//! - **all-to-all**: NCCL expands it into `n−1` send/receive pairs (`src/enqueue.cc`), so
//!   `n−1` per-peer latencies, and each GPU's off-node share goes through its own NIC;
//! - **point-to-point**: one ring step.
//!
//! Protocols: LL (8-byte flag words: half the bandwidth, lowest latency), LL128 (0.92 of the
//! bandwidth), Simple (full bandwidth, highest latency); NCCL takes the fastest.
//!
//! Rank placement is Megatron's: TP innermost, then CP, then DP, then PP. A group of `n` ranks
//! with stride `st` keeps `k = clamp(domain/st, 1, n)` members inside one NVLink domain, and
//! spans `N = ⌈n/k⌉` domains. Across domains every node carries the traffic of its `k` members
//! on `k` NICs, so a ring's bus bandwidth is `min(B_nvlink, k·B_nic)` ([comm.md](crate::docs::formulas::comm) §4).

use super::compute::Generation;
use super::routing::Routing;
use crate::engine::num::{max_num, min_num};
use crate::scenario::GpuSpec;
use serde::Serialize;

/// Achieved fraction of the NVLink per-GPU bandwidth for large NCCL ring collectives. nccl-tests
/// on DGX A100 show all-reduce bus bandwidth ≈ 230-240 GB/s of 300; DGX H100 ≈ 360-370 of 450;
/// 8×B200 ring ≈ 0.78-0.82 of 900 (ml-engineering `network/README.md`, 740 GB/s at 4 GiB).
pub const NVLINK_EFFICIENCY: f64 = 0.78;
/// Achieved fraction of the NIC line rate (InfiniBand HDR/NDR, RoCE): nccl-tests multi-node
/// bus bandwidth ≈ 20-23 GB/s per 25 GB/s HDR port, Calculon's IB tier uses 0.9.
pub const NIC_EFFICIENCY: f64 = 0.85;
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

/// NCCL protocols, in NCCL's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Low-latency: 8-byte stores carrying a flag.
    Ll,
    /// 128-byte lines with a flag word.
    Ll128,
    /// Bulk copies with step counters.
    Simple,
}

/// The three protocols.
pub const PROTOCOLS: [Protocol; 3] = [Protocol::Ll, Protocol::Ll128, Protocol::Simple];

/// NCCL's latency constants, µs, indexed by protocol (LL, LL128, Simple): NVIDIA/nccl
/// `src/graph/tuning.cc` v2.28-v2.30 (`baseLatencies`, `hwLatencies`; the v2.28.7 base
/// latencies are quoted verbatim in public write-ups, the hardware ones read at 2.30.7 and
/// unchanged since v2.18.3, where the network Simple latencies rose from 9.6 to 14 µs).
pub mod nccl {
    /// Ring base latency per call.
    pub const RING_BASE_US: [f64; 3] = [6.6, 14.0, 8.4];
    /// Ring per-step latency over NVLink.
    pub const RING_NVLINK_US: [f64; 3] = [0.6, 1.9, 3.4];
    /// Ring per-step latency over PCIe.
    pub const RING_PCI_US: [f64; 3] = [1.0, 2.5, 5.7];
    /// Ring per-step latency over the network.
    pub const RING_NET_US: [f64; 3] = [2.7, 4.0, 14.0];
    /// Tree base latency per call.
    pub const TREE_BASE_US: [f64; 3] = [6.8, 14.0, 8.4];
    /// Tree per-level latency over NVLink.
    pub const TREE_NVLINK_US: [f64; 3] = [0.6, 1.25, 4.0];
    /// Tree per-level latency over PCIe.
    pub const TREE_PCI_US: [f64; 3] = [1.0, 1.9, 4.0];
    /// Tree per-level latency over the network.
    pub const TREE_NET_US: [f64; 3] = [5.0, 8.5, 14.0];
    /// NVLS latency inside one NVLink domain (Simple only).
    pub const NVLS_NVLINK_US: f64 = 25.0;
    /// Host-side cost of posting one network send or receive (`getNetOverhead`: 1 µs on
    /// Intel/ARM hosts, 2 µs on AMD).
    pub const NET_POST_US: f64 = 1.0;
    /// Multi-node ring all-reduce, Simple: latency ×1.4 ("plateau effect of ring").
    pub const RING_AR_PLATEAU: f64 = 1.4;
    /// LL on multi-node communicators: intra-node latency ×1.8.
    pub const LL_MULTINODE_INTRA: f64 = 1.8;
    /// LL carries half the bus bandwidth (one flag word per data word).
    pub const LL_BW: f64 = 0.5;
    /// LL128 carries 120 of 128 bytes: 0.92 of the bus bandwidth.
    pub const LL128_BW: f64 = 0.92;
    /// Tree all-reduce bus bandwidth: 0.92 of the ring's.
    pub const TREE_BW: f64 = 0.92;
    /// LL's ceiling per communicator on one node, GB/s (`llMaxBws`: Volta 39, Ampere 87.7,
    /// Hopper 141, Blackwell 282 — the first column).
    pub const LL_MAX_GBPS: [f64; 4] = [39.0, 87.7, 141.0, 282.0];
}

/// NVLS all-reduce algorithm bandwidth as a fraction of the NVLink wire rate per GPU (Hopper,
/// Blackwell). Read from published all-reduce sweeps: 8×H100 NVLS ≈ 480 GB/s bus bandwidth =
/// 274 GB/s algorithm bandwidth, 0.61 of 450 (stas00/ml-engineering
/// `network/benchmarks/README.md` @744d01e); 8×B200, NCCL 2.27.7, 1-16 GiB: 723-846 GB/s bus
/// bandwidth, middle 787 = 450 GB/s algorithm bandwidth, 0.50 of 900 (ml-engineering
/// `network/README.md` @744d01e, P6-B200). The Blackwell/Hopper ratio 0.82 is close to NCCL's
/// own `nvlsEfficiency` ratio 0.74/0.85 = 0.87 (tuning.cc 2.30.7).
pub const NVLS_ALG_EFFICIENCY: [f64; 2] = [0.61, 0.50];

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

/// Least NVLink bandwidth per GPU of an NVSwitch domain that multicasts (NVLS): NVLink 4,
/// H100/H200's 450 GB/s per direction.
pub const NVLS_MIN_NVLINK_GBPS: f64 = 450.0;
/// Least GPUs of an NVLS domain (one NVSwitch tray of 8 GPUs).
pub const NVLS_MIN_DOMAIN: u64 = 8;

/// A communication group: its size, placement, link and bandwidths.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Group {
    /// Ranks `n`.
    pub n: f64,
    /// NVLink domains (nodes) the group spans, `N`.
    pub nodes: f64,
    /// Members per domain, `k = n/N`.
    pub ppn: f64,
    /// Link tier.
    pub link: Link,
    /// Ring bus bandwidth the group achieves, B/s: `min(B_nvlink, k·B_nic)` across nodes.
    pub bus_bps: f64,
    /// Per-GPU bandwidth inside the domain, B/s.
    pub intra_bps: f64,
    /// Per-GPU NIC bandwidth, B/s.
    pub nic_bps: f64,
    /// NVLS all-reduce algorithm bandwidth, B/s (0 without NVLink SHARP).
    pub nvls_bps: f64,
    /// LL bandwidth ceiling, B/s.
    pub ll_max_bps: f64,
    /// The domain's links are PCIe rather than NVLink.
    pub pcie: bool,
}

/// What NCCL would run for one collective, and its time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Protocol.
    pub protocol: Protocol,
    /// Latency part, s.
    pub latency_s: f64,
    /// Total time, s.
    pub time_s: f64,
}

/// Collective algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Ring.
    Ring,
    /// Double binary tree (all-reduce).
    Tree,
    /// NVLink SHARP (all-reduce in the switch).
    Nvls,
    /// Pairwise send/receive.
    PointToPoint,
}

const US: f64 = 1e-6;

/// `log2(n)` of a node count `n ≥ 1`: for a power of two (the usual cluster) its binary
/// exponent, the exact value libm returns too, without the call; libm otherwise.
#[inline]
pub(super) fn log2_nodes(n: f64) -> f64 {
    const MANTISSA: u64 = (1 << 52) - 1;
    let bits = n.to_bits();
    if n >= 1.0 && bits & MANTISSA == 0 {
        ((bits >> 52) as i64 - 1023) as f64
    } else {
        n.log2()
    }
}

/// The links of one GPU type as every group of a layout sees them: the NVLink (or PCIe) domain
/// and its bandwidth, the NIC, NVLS and the LL ceiling of its generation. Read once per layout
/// ([`super::groups::Groups::of`]) rather than once per group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fabric {
    /// Per-GPU bandwidth inside the domain, B/s: NVLink, else PCIe, at its efficiency.
    intra_bps: f64,
    /// GPUs per NVLink domain (per PCIe host without NVLink).
    domain: u64,
    /// The domain's links are PCIe rather than NVLink.
    pcie: bool,
    /// Per-GPU NIC bandwidth, B/s.
    nic_bps: f64,
    /// NVLS all-reduce algorithm bandwidth for a group inside one domain, B/s (0 without
    /// NVLink SHARP).
    nvls_bps: f64,
    /// LL bandwidth ceiling, B/s.
    ll_max_bps: f64,
}

impl Fabric {
    /// The links of `gpu`.
    pub fn of(gpu: &GpuSpec) -> Fabric {
        let gen = Generation::of(gpu);
        let (intra_bps, domain, pcie) = match gpu.nvlink_gbps {
            Some(b) => (
                b * 1e9 * NVLINK_EFFICIENCY,
                gpu.nvlink_domain_gpus.max(1),
                false,
            ),
            None => (
                gpu.pcie_gbps.unwrap_or(DEFAULT_PCIE_GBPS) * 1e9 * PCIE_EFFICIENCY,
                GPUS_PER_PCIE_HOST,
                true,
            ),
        };
        let (gi, nvls_eff) = match gen {
            Generation::Volta => (0, 0.0),
            Generation::Ampere => (1, 0.0),
            Generation::Hopper => (2, NVLS_ALG_EFFICIENCY[0]),
            Generation::Blackwell => (3, NVLS_ALG_EFFICIENCY[1]),
        };
        // NVLS needs an NVSwitch domain of NVLink 4 or newer (H100/H200: 450 GB/s, B200/GB200:
        // 900 GB/s); PCIe, A100's NVLink 3 and point-to-point meshes (MI300X XGMI, 448 GB/s
        // aggregate) have no multicast switch.
        let nvls_bps = match gpu.nvlink_gbps {
            Some(b) if nvls_eff > 0.0 && b >= NVLS_MIN_NVLINK_GBPS && domain >= NVLS_MIN_DOMAIN => {
                b * 1e9 * nvls_eff
            }
            _ => 0.0,
        };
        Fabric {
            intra_bps,
            domain,
            pcie,
            nic_bps: gpu.nic_gbps.unwrap_or(DEFAULT_NIC_GBPS) * 1e9 * NIC_EFFICIENCY,
            nvls_bps,
            ll_max_bps: nccl::LL_MAX_GBPS[gi] * 1e9,
        }
    }
}

impl Group {
    /// The group of `n` ranks whose members are `stride` ranks apart, on `gpu`.
    pub fn new(gpu: &GpuSpec, n: u64, stride: u64) -> Group {
        Group::on(&Fabric::of(gpu), n, stride)
    }

    /// [`Group::new`] on the links `f` of the GPU.
    pub fn on(f: &Fabric, n: u64, stride: u64) -> Group {
        if n <= 1 {
            return Group {
                n: 1.0,
                nodes: 1.0,
                ppn: 1.0,
                ..Group::default()
            };
        }
        let (intra_bps, domain) = (f.intra_bps, f.domain);
        let stride = stride.max(1);
        let k = (domain / stride).clamp(1, n);
        let one_domain = k >= n && stride.saturating_mul(n) <= domain.max(1);
        let nodes = if one_domain {
            1.0
        } else {
            // ⌈n/k⌉ in integers: the same value as the float ceiling below 2⁵³ ranks, without
            // a libm call.
            n.div_ceil(k) as f64
        };
        Group {
            n: n as f64,
            nodes,
            ppn: n as f64 / nodes,
            link: if one_domain {
                Link::Nvlink
            } else {
                Link::Network
            },
            bus_bps: if one_domain {
                max_num(intra_bps, 1.0)
            } else {
                max_num(min_num(k as f64 * f.nic_bps, intra_bps), 1.0)
            },
            intra_bps: max_num(intra_bps, 1.0),
            nic_bps: max_num(f.nic_bps, 1.0),
            nvls_bps: if one_domain { f.nvls_bps } else { 0.0 },
            ll_max_bps: f.ll_max_bps,
            pcie: f.pcie,
        }
    }

    fn multi_node(&self) -> bool {
        self.nodes > 1.0
    }

    /// Per-step intra-domain and network latency of `proto` for `ring` or tree, µs.
    fn hop_us(&self, ring: bool, proto: Protocol) -> (f64, f64) {
        let i = proto as usize;
        let (nvl, pci, net) = if ring {
            (nccl::RING_NVLINK_US, nccl::RING_PCI_US, nccl::RING_NET_US)
        } else {
            (nccl::TREE_NVLINK_US, nccl::TREE_PCI_US, nccl::TREE_NET_US)
        };
        let mut intra = if self.pcie { pci[i] } else { nvl[i] };
        if self.multi_node() && proto == Protocol::Ll {
            intra *= nccl::LL_MULTINODE_INTRA;
        }
        (intra, net[i])
    }

    /// Ring bus bandwidth of `proto`, B/s.
    fn ring_bw(&self, proto: Protocol) -> f64 {
        match proto {
            Protocol::Ll => min_num(nccl::LL_BW * self.bus_bps, self.ll_max_bps),
            Protocol::Ll128 => nccl::LL128_BW * self.bus_bps,
            Protocol::Simple => self.bus_bps,
        }
    }

    /// Ring latency of a collective with `steps` steps of which `inter` cross nodes, µs.
    fn ring_latency_us(&self, proto: Protocol, steps: f64, inter: f64) -> f64 {
        let (intra, net) = self.hop_us(true, proto);
        nccl::RING_BASE_US[proto as usize] + (steps - inter) * intra + inter * net
    }

    /// NCCL's choice and time for a ring all-gather or reduce-scatter of a full buffer of
    /// `bytes`: `base + (n−N)·intra + (N−1)·net` latency, `(n−1)/n·S/B` transfer.
    pub fn gather_choice(&self, bytes: f64) -> Option<Choice> {
        if self.n <= 1.0 || bytes <= 0.0 {
            return None;
        }
        let (steps, inter) = (self.n - 1.0, self.nodes - 1.0);
        let mut best: Option<Choice> = None;
        for proto in PROTOCOLS {
            let lat = self.ring_latency_us(proto, steps, inter) * US;
            let t = lat + steps / self.n * bytes / self.ring_bw(proto);
            best = better(best, Algorithm::Ring, proto, lat, t);
        }
        best
    }

    /// NCCL's choice and time for an all-reduce of `bytes`: ring, tree, or NVLS inside an
    /// NVSwitch domain, each with its protocols; the fastest.
    pub fn all_reduce_choice(&self, bytes: f64) -> Option<Choice> {
        if self.n <= 1.0 || bytes <= 0.0 {
            return None;
        }
        let (steps, inter) = (2.0 * (self.n - 1.0), 2.0 * (self.nodes - 1.0));
        // The tree's levels across nodes, `log2(N)`: none inside one node.
        let levels = if self.multi_node() {
            log2_nodes(self.nodes)
        } else {
            0.0
        };
        let mut best: Option<Choice> = None;
        for proto in PROTOCOLS {
            // Ring.
            let mut lat = self.ring_latency_us(proto, steps, inter) * US;
            if self.multi_node() && proto == Protocol::Simple {
                lat *= nccl::RING_AR_PLATEAU;
            }
            let t = lat + steps / self.n * bytes / self.ring_bw(proto);
            best = better(best, Algorithm::Ring, proto, lat, t);
            // Tree: up and down a chain inside the node and a binary tree across nodes.
            let (intra, net) = self.hop_us(false, proto);
            let lat = (nccl::TREE_BASE_US[proto as usize]
                + 2.0 * ((self.ppn - 1.0) * intra + levels * net))
                * US;
            let tree_bw = nccl::TREE_BW * self.ring_bw(proto) * 0.5;
            best = better(best, Algorithm::Tree, proto, lat, lat + bytes / tree_bw);
        }
        if self.nvls_bps > 0.0 {
            let lat = nccl::NVLS_NVLINK_US * US;
            best = better(
                best,
                Algorithm::Nvls,
                Protocol::Simple,
                lat,
                lat + bytes / self.nvls_bps,
            );
        }
        best
    }

    /// All-reduce of `bytes`, seconds ([`Group::all_reduce_choice`]).
    pub fn all_reduce_s(&self, bytes: f64) -> f64 {
        self.all_reduce_choice(bytes).map_or(0.0, |c| c.time_s)
    }

    /// Reduce-scatter or all-gather of a full buffer of `bytes`, seconds
    /// ([`Group::gather_choice`]).
    pub fn gather_s(&self, bytes: f64) -> f64 {
        self.gather_choice(bytes).map_or(0.0, |c| c.time_s)
    }

    /// Point-to-point send of `bytes` to a neighbour: one ring step (Simple base latency plus
    /// the hop's latency) and `S/B` at the sender's own link (NVLink, or its one NIC).
    pub fn p2p_s(&self, bytes: f64) -> f64 {
        if self.n <= 1.0 || bytes <= 0.0 {
            return 0.0;
        }
        let (intra, net) = self.hop_us(true, Protocol::Simple);
        let (hop, bw) = if self.multi_node() {
            (net, min_num(self.nic_bps, self.intra_bps))
        } else {
            (intra, self.intra_bps)
        };
        (nccl::RING_BASE_US[2] + hop) * US + bytes / bw
    }

    /// All-to-all in which every rank holds `bytes` destined, in equal parts, to all `n` ranks
    /// (MoE dispatch or combine), seconds. NCCL runs it as `n−1` send/receive pairs
    /// (NVIDIA/nccl `src/enqueue.cc`, all-to-all expanded into per-peer p2p tasks; PyTorch
    /// `all_to_all_single` issues the same grouped send/recv), posted together in one grouped
    /// launch: one base latency and one hop of each tier for the messages in flight, plus the
    /// host's network post overhead for every remote peer ([`nccl::NET_POST_US`]); NVLink peers
    /// at the NVLink rate and off-node peers through this GPU's own NIC (every GPU of a node
    /// sends at once, so the node's `k` NICs are not pooled).
    pub fn all_to_all_s(&self, bytes: f64) -> f64 {
        if self.n <= 1.0 || bytes <= 0.0 {
            return 0.0;
        }
        let (intra, net) = self.hop_us(true, Protocol::Simple);
        let local_peers = self.ppn - 1.0;
        let remote_peers = self.n - self.ppn;
        let mut lat = nccl::RING_BASE_US[2] + intra;
        if remote_peers > 0.0 {
            lat += net + remote_peers * nccl::NET_POST_US;
        }
        let per_peer = bytes / self.n;
        let t_local = local_peers * per_peer / self.intra_bps;
        let t_remote = remote_peers * per_peer / self.nic_bps;
        lat * US + t_local.max(t_remote)
    }

    /// MoE dispatch (or combine) by DeepEP's normal kernels, seconds: this GPU's tokens, one
    /// copy of `token_bytes` in all, each routed as `routing` says to experts spread evenly over
    /// the group's GPUs. DeepEP sends a token once per GPU that holds at least one of its
    /// experts, not once per routed copy; the receiving GPU expands it to its local experts, and
    /// the combine returns one row per token and GPU, reduced over that GPU's experts, the same
    /// bytes backwards (moe.md §1 cites the kernels' lines).
    /// - Inside one NVLink domain (`intranode.cu`): `(n−1)·p_gpu` copies of a token go to the
    ///   other GPUs, `p_gpu` = [`Routing::reach`] over the `n` GPUs.
    /// - Across nodes (`internode.cu`; deepseek-ai/DeepEP README, "Normal kernels with NVLink
    ///   and RDMA forwarding"; DeepSeek-V3 technical report §3.2.2, arXiv 2412.19437): a token
    ///   crosses the network once per remote node that holds one of its experts,
    ///   `(N−1)·p_node` copies instead of NCCL's `k(N−1)/N`, to the GPU with the same in-node
    ///   index, which forwards it over NVLink once per other GPU of its node holding one of the
    ///   experts (its own node's share included). Every GPU forwards for one source GPU per
    ///   node, so its NVLink carries `N·(ppn−1)·p_gpu = (n−N)·p_gpu` copies per own token, the
    ///   intranode count at `N = 1`. The two hops run as a pipeline; one RDMA peer per remote
    ///   node.
    ///
    /// Latency and bandwidths are those of [`Group::all_to_all_s`]: one Simple base latency and
    /// NVLink hop, plus a network hop and a post per remote node when the group spans nodes.
    pub fn node_forwarded_all_to_all_s(&self, token_bytes: f64, routing: &Routing) -> f64 {
        if self.n <= 1.0 || token_bytes <= 0.0 || routing.k <= 0.0 {
            return 0.0;
        }
        let (intra, net) = self.hop_us(true, Protocol::Simple);
        let mut lat = nccl::RING_BASE_US[2] + intra;
        let (remote_nodes, nvlink_gpus) = self.node_forwarded_copies(routing);
        if self.multi_node() {
            lat += net + (self.nodes - 1.0) * nccl::NET_POST_US;
        }
        let t_net = token_bytes * remote_nodes / self.nic_bps;
        let t_nvl = token_bytes * nvlink_gpus / self.intra_bps;
        lat * US + t_net.max(t_nvl)
    }

    /// Copies of one own token a GPU sends in DeepEP's dispatch (and receives back in its
    /// combine), `(network, NVLink)`: `(N−1)·p_node` through its NIC (0 inside one node) and
    /// `(n−N)·p_gpu` forwarded over NVLink ([`Group::node_forwarded_all_to_all_s`]).
    pub fn node_forwarded_copies(&self, routing: &Routing) -> (f64, f64) {
        if self.n <= 1.0 {
            return (0.0, 0.0);
        }
        let net = if self.multi_node() {
            (self.nodes - 1.0) * routing.reach(self.nodes)
        } else {
            0.0
        };
        (net, (self.n - self.nodes) * routing.reach(self.n))
    }
}

fn better(
    best: Option<Choice>,
    algorithm: Algorithm,
    protocol: Protocol,
    latency_s: f64,
    time_s: f64,
) -> Option<Choice> {
    match best {
        Some(b) if b.time_s <= time_s => Some(b),
        _ => Some(Choice {
            algorithm,
            protocol,
            latency_s,
            time_s,
        }),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::gpu_preset;

    use crate::engine::memory::overhead::GIB;

    fn spec(id: &str) -> GpuSpec {
        gpu_preset(id).unwrap().spec
    }

    /// nccl-tests bus bandwidth of an all-reduce: `S/t · 2(n−1)/n`.
    fn ar_busbw(g: &Group, bytes: f64) -> f64 {
        bytes / g.all_reduce_s(bytes) * 2.0 * (g.n - 1.0) / g.n
    }

    fn within(model: f64, measured: f64, tol: f64) -> bool {
        ((model - measured) / measured).abs() <= tol
    }

    #[test]
    fn nvlink_all_reduce_matches_published_sweeps() {
        // 8×B200 in one node (ml-engineering network/README.md @744d01e, NCCL 2.27.7):
        // 1 GiB 723, 4 GiB 741, 16 GiB 846 GB/s bus bandwidth. NCCL runs NVLS here.
        let g = Group::new(&spec("b200-sxm-180gb"), 8, 1);
        assert_eq!(g.link, Link::Nvlink);
        for (size, busbw) in [(1.0, 723e9), (4.0, 741e9), (16.0, 846e9)] {
            let c = g.all_reduce_choice(size * GIB).unwrap();
            assert_eq!(c.algorithm, Algorithm::Nvls);
            let m = ar_busbw(&g, size * GIB);
            assert!(within(m, busbw, 0.15), "{size} GiB: {m:e} vs {busbw:e}");
        }
        // 8×H100 NVLS ≈ 480 GB/s (ml-engineering network/benchmarks/README.md), 8×A100 ring
        // 230-250 GB/s (no NVLS on NVLink 3).
        let h = Group::new(&spec("h100-sxm5-80gb"), 8, 1);
        assert!(within(ar_busbw(&h, 4.0 * GIB), 480e9, 0.15));
        let a = Group::new(&spec("a100-sxm4-80gb"), 8, 1);
        assert_eq!(a.all_reduce_choice(GIB).unwrap().algorithm, Algorithm::Ring);
        assert!(within(ar_busbw(&a, 4.0 * GIB), 240e9, 0.15));
    }

    #[test]
    fn cross_node_all_reduce_matches_published_sweep() {
        // 4 nodes × 8 B200, 8×400 Gb/s EFA per node (ml-engineering network/README.md):
        // 1 GiB 362, 4 GiB 377, 16 GiB 382 GB/s bus bandwidth. Ring/Simple: the 8 NICs carry
        // the node's traffic, 8·50·0.85 = 340 GB/s, minus the ring's latency.
        let g = Group::new(&spec("b200-sxm-180gb"), 32, 1);
        assert_eq!((g.link, g.nodes, g.ppn), (Link::Network, 4.0, 8.0));
        for (size, busbw) in [(1.0, 362e9), (4.0, 377e9), (16.0, 382e9)] {
            let c = g.all_reduce_choice(size * GIB).unwrap();
            assert_eq!(
                (c.algorithm, c.protocol),
                (Algorithm::Ring, Protocol::Simple)
            );
            let m = ar_busbw(&g, size * GIB);
            assert!(within(m, busbw, 0.15), "{size} GiB: {m:e} vs {busbw:e}");
        }
    }

    #[test]
    fn ring_latency_is_ncclss_formula() {
        // All-gather over 1536 A100s (192 nodes × 8): Simple latency 8.4 + (1536−192)·3.4 +
        // 191·14 µs = 7252.0 µs; LL 6.6 + 1344·0.6·1.8 + 191·2.7 = 2124.9 µs (tuning.cc).
        let g = Group::new(&spec("a100-sxm4-80gb"), 1536, 1);
        assert_eq!((g.nodes, g.ppn), (192.0, 8.0));
        let simple = g.ring_latency_us(Protocol::Simple, 1535.0, 191.0);
        assert!((simple - 7252.0).abs() < 1e-9, "{simple}");
        let ll = g.ring_latency_us(Protocol::Ll, 1535.0, 191.0);
        assert!((ll - (6.6 + 1344.0 * 0.6 * 1.8 + 191.0 * 2.7)).abs() < 1e-9);
        // A 1 GB gather: Simple would take 7.252 ms + 1535/1536·1e9/170e9 = 13.13 ms; LL128's
        // lower latency (14 + 1344·1.9 + 191·4.0 = 3331.6 µs) wins at 0.92 of the bandwidth:
        // 3.3316 ms + 6.39 ms = 9.72 ms — NCCL's model picks LL128.
        let bus = 8.0 * 25e9 * NIC_EFFICIENCY;
        let c = g.gather_choice(1e9).unwrap();
        assert_eq!(c.protocol, Protocol::Ll128);
        let want = 3331.6e-6 + 1535.0 / 1536.0 * 1e9 / (0.92 * bus);
        assert!((c.time_s - want).abs() < 1e-9, "{} vs {want}", c.time_s);
        // Latency grows linearly with the ring: 768 ranks pay about half.
        let half = Group::new(&spec("a100-sxm4-80gb"), 768, 1)
            .gather_choice(1e6)
            .unwrap();
        let full = g.gather_choice(1e6).unwrap();
        assert!(full.latency_s > 1.9 * half.latency_s);
        // A small all-reduce at scale takes the tree: log2(192) levels instead of 2·1535 steps.
        let ar = g.all_reduce_choice(1e6).unwrap();
        assert_eq!(ar.algorithm, Algorithm::Tree);
        assert!(ar.time_s < 1e-3, "{}", ar.time_s);
    }

    #[test]
    fn node_levels_are_libms_log2() {
        for n in 1..=5000_u32 {
            let n = f64::from(n);
            assert_eq!(log2_nodes(n).to_bits(), n.log2().to_bits(), "{n}");
        }
        assert_eq!(log2_nodes(1024.0), 10.0);
        assert_eq!(log2_nodes(3.0), 3.0_f64.log2());
    }

    #[test]
    fn deepep_crosses_the_network_once_per_node() {
        // DeepSeek-V3's routing over 64 H100s on 8 nodes: 256 experts, 32 per node, 4 per GPU,
        // top-8. Per node P0 = (224·223·…·217)/(256·255·…·249) = 0.338 (checked by hand in
        // `routing`), so 7·0.662 = 4.633 remote copies per token instead of NCCL's 8·7/8 = 7.
        let d = 7.0 * Routing::uniform(8.0, 256.0).reach(8.0);
        assert!((d - 4.633).abs() < 1e-3, "{d}");
        // One expert per token (top-1) has nothing to deduplicate: (N−1)/N of a copy.
        assert!((7.0 * Routing::uniform(1.0, 128.0).reach(8.0) - 7.0 / 8.0).abs() < 1e-12);
        // More experts per token than on the other nodes together: every node is reached.
        assert!((Routing::uniform(8.0, 8.0).reach(8.0) - 1.0).abs() < 1e-12);
        // Per GPU P0 = (252·251·…·245)/(256·255·…·249) = 0.88007, so a forwarding GPU sends a
        // token over NVLink to 56·0.11993 = 6.716 GPUs of the 8 nodes' 7 non-forwarding ones
        // each, where the routed copies would be 8·7/8 = 7.
        let nvl = 56.0 * Routing::uniform(8.0, 256.0).reach(64.0);
        assert!((nvl - 6.716).abs() < 1e-3, "{nvl}");
        // The time: 4096 tokens × 7168 × 2 bytes; the network part, 4.63 copies through a
        // 42.5 GB/s NIC, outlasts the NVLink forwarding of 6.72 copies at 450·0.78 GB/s.
        let g = Group::new(&spec("h100-sxm5-80gb"), 64, 1);
        let tb = 4096.0 * 7168.0 * 2.0;
        let lat = (8.4 + 3.4 + 14.0 + 7.0) * 1e-6;
        let want = lat + tb * d / 42.5e9;
        assert!(
            (g.node_forwarded_all_to_all_s(tb, &Routing::uniform(8.0, 256.0)) - want).abs() < 1e-12
        );
        assert!(tb * nvl / (450e9 * NVLINK_EFFICIENCY) < tb * d / 42.5e9);
        // NCCL's all-to-all of the same 8 copies sends 56/64 of them through the NIC.
        let nccl = g.all_to_all_s(tb * 8.0);
        assert!(nccl > 1.45 * g.node_forwarded_all_to_all_s(tb, &Routing::uniform(8.0, 256.0)));
    }

    #[test]
    fn deepep_intranode_sends_a_token_once_per_gpu() {
        // Qwen3-235B-A22B at EP 8 inside one H100 node: 128 experts, 16 per GPU, top-8. A GPU
        // holds none of a token's experts with P0 = (112·111·…·105)/(128·127·…·121) = 0.33258,
        // so a token goes to 7·0.66742 = 4.672 of the 7 other GPUs, not its 8·7/8 = 7 routed
        // copies (P0 checked by hand in `routing`). At TP 4 a GPU routes 1024 tokens × 4096 × 2 B
        // = 8,388,608 B: 39.19 MB per call cross NVLink instead of 58.72 MB.
        let gpus = 7.0 * Routing::uniform(8.0, 128.0).reach(8.0);
        assert!((gpus - 4.672).abs() < 1e-3, "{gpus}");
        let tb = 1024.0 * 4096.0 * 2.0;
        assert!((tb * gpus / 1e6 - 39.19).abs() < 0.01);
        // Time: Simple base 8.4 µs + NVLink hop 3.4 µs, 39.19 MB at 450 GB/s × 0.78 = 351 GB/s
        // = 111.66 µs; the NCCL all-to-all of the 8 routed copies moves 58.72 MB, 167.29 µs.
        let n = Group::new(&spec("h100-sxm5-80gb"), 8, 1);
        let want = (8.4 + 3.4) * 1e-6 + tb * gpus / 351e9;
        let t = n.node_forwarded_all_to_all_s(tb, &Routing::uniform(8.0, 128.0));
        assert!((t - want).abs() < 1e-12, "{t}");
        assert!((t - 123.455e-6).abs() < 0.001e-6, "{t}");
        let nccl = n.all_to_all_s(tb * 8.0);
        assert!(
            (nccl - (11.8e-6 + tb * 7.0 / 351e9)).abs() < 1e-12,
            "{nccl}"
        );
        // Top-1 has nothing to deduplicate: the all-to-all of the one copy.
        assert!(
            (n.node_forwarded_all_to_all_s(tb, &Routing::uniform(1.0, 128.0)) - n.all_to_all_s(tb))
                .abs()
                < 1e-14
        );
    }

    #[test]
    fn all_to_all_pays_per_peer_and_own_nic() {
        // 16 H100s on two nodes: 7 NVLink peers and 8 network peers, 8.4 + 3.4 + 14 + 8·1 µs;
        // the 8 remote sixteenths of 160 MB go through this GPU's 50·0.85 GB/s NIC.
        let g = Group::new(&spec("h100-sxm5-80gb"), 16, 1);
        let s = 160e6;
        let want = (8.4 + 3.4 + 14.0 + 8.0) * 1e-6 + 8.0 * s / 16.0 / 42.5e9;
        assert!((g.all_to_all_s(s) - want).abs() < 1e-12);
        // Inside one node the all-to-all stays on NVLink.
        let n = Group::new(&spec("h100-sxm5-80gb"), 8, 1);
        let want = (8.4 + 3.4) * 1e-6 + 7.0 * s / 8.0 / (450e9 * NVLINK_EFFICIENCY);
        assert!((n.all_to_all_s(s) - want).abs() < 1e-12);
    }
}
