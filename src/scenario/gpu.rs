//! GPU presets: the numbers paracalc knows about each accelerator, with their sources.
//!
//! The table covers every id of the validation data's `gpus.json` with the same numbers
//! (a test compares them). Peaks are dense (non-sparsity) tensor-core TFLOP/s; bandwidths are
//! GB/s (10⁹ B/s) per GPU per direction; memory is GiB.

/// Dense peak TFLOP/s per number format; `None` where the GPU has no such tensor-core path.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PeakTflops {
    /// fp32 (non-tensor-core) peak.
    pub fp32: Option<f64>,
    /// TF32 tensor-core peak.
    pub tf32: Option<f64>,
    /// fp16 tensor-core peak.
    pub fp16: Option<f64>,
    /// bf16 tensor-core peak.
    pub bf16: Option<f64>,
    /// FP8 tensor-core peak.
    pub fp8: Option<f64>,
    /// FP4 (NVFP4) tensor-core peak, dense (Blackwell).
    pub fp4: Option<f64>,
}

/// The numbers of one GPU that the engine uses. `Copy`, so the hot path never allocates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuSpec {
    /// Dense peaks by format.
    pub peak_tflops: PeakTflops,
    /// Vendor HBM capacity, GiB.
    pub hbm_gib: f64,
    /// Memory a framework can see (nvidia-smi total), GiB, where known.
    pub usable_gib: Option<f64>,
    /// HBM bandwidth, GB/s.
    pub hbm_gbps: f64,
    /// NVLink (or XGMI) bandwidth per GPU per direction, GB/s; `None` without NVLink.
    pub nvlink_gbps: Option<f64>,
    /// GPUs sharing one NVLink domain (8 in a DGX, 72 in an NVL72 rack, 1 without NVLink).
    pub nvlink_domain_gpus: u64,
    /// Network bandwidth per GPU between nodes, GB/s.
    pub nic_gbps: Option<f64>,
    /// PCIe bandwidth per GPU, GB/s.
    pub pcie_gbps: Option<f64>,
    /// GPU↔host-memory link per GPU per direction, GB/s (PCIe to the CPU, or NVLink-C2C on Grace
    /// systems), for optimizer and activation offloading; `None` = PCIe Gen4 x16.
    pub host_link_gbps: Option<f64>,
    /// Exponentials per second of the special-function units (`MUFU.EX2`, the softmax inside
    /// fused attention) where the part differs from its generation's figure
    /// ([`crate::engine::time::compute::Efficiency::exp_per_s`]); `None` = the generation's.
    /// Only Blackwell Ultra sets it (its SFUs run `EX2` at twice Blackwell's rate).
    pub sfu_exp_per_s: Option<f64>,
    /// The 16-bit peak, TFLOP/s, that the published fused-attention rates multiply, where a
    /// power limit holds the GEMMs' clock lower than attention's
    /// ([`crate::engine::time::compute::Device`]`::attn_peak_flops`); `None` = the 16-bit peak.
    /// Only the 500 W `h100-sxm5-96gb` sets it: its GEMM peak is Meta's stated 800 TFLOP/s, while
    /// FlashAttention-3 measured on the same part runs as on a 897 TFLOP/s one (its preset notes).
    pub attn_peak_tflops: Option<f64>,
    /// Streaming multiprocessors, for the wave quantization of GEMMs
    /// ([`crate::engine::time::waves`]); `None` = unknown, no wave term (custom GPUs, MI300X,
    /// GB300). NVIDIA's architecture whitepapers: V100 80 (*Tesla V100 GPU Architecture*), A100
    /// 108 (*A100 Tensor Core GPU Architecture*), H100 SXM5 132 and PCIe 114 (*H100 Tensor Core
    /// GPU Architecture*; H800 and H200 are the SXM5 die); B200 and GB200 148 (the count
    /// `multi_processor_count` reports, which Blackwell kernels size their grids by; the same
    /// figure gives the 5e12 exponentials/s of `Efficiency::exp_per_s`). GB300 is left `None`:
    /// its SM count was not read from a source here. MI300X has 304 CUs, but hipBLASLt's tiles
    /// are not the cuBLAS list the wave term assumes.
    pub sms: Option<u32>,
}

impl GpuSpec {
    /// Memory the framework can use, GiB: `usable_gib` where known, else the vendor capacity.
    pub fn capacity_gib(&self) -> f64 {
        self.usable_gib.unwrap_or(self.hbm_gib)
    }

    /// A plain 80 GiB, 2000 GB/s GPU with no peaks: the last resort of code that needs some GPU
    /// when even the preset table is empty (it never is).
    pub fn fallback() -> GpuSpec {
        GpuSpec {
            peak_tflops: PeakTflops::default(),
            hbm_gib: 80.0,
            usable_gib: None,
            hbm_gbps: 2000.0,
            nvlink_gbps: None,
            nvlink_domain_gpus: 8,
            nic_gbps: None,
            pcie_gbps: None,
            host_link_gbps: None,
            sfu_exp_per_s: None,
            attn_peak_tflops: None,
            sms: None,
        }
    }
}

/// A built-in GPU with its identity and sources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuPreset {
    /// Stable id used in scenarios (`a100-sxm4-80gb`).
    pub id: &'static str,
    /// Human name.
    pub name: &'static str,
    /// The numbers.
    pub spec: GpuSpec,
    /// Published range of the bf16 peak where the exact value is unknown (`h100-sxm5-96gb`).
    pub peak_bounds_bf16: Option<(f64, f64)>,
    /// The bf16 peak a vendor's benchmark pages use for MFU, where it differs.
    pub peak_for_mfu_bf16: Option<f64>,
    /// Where the numbers come from.
    pub source: &'static str,
    /// Caveats.
    pub notes: &'static str,
}

/// Looks up a preset by id (case-insensitive).
pub fn gpu_preset(id: &str) -> Option<&'static GpuPreset> {
    // Ids are distinct ignoring case, so the exact match (a cheap comparison, and what every
    // estimate of a preset scenario asks for) is the same preset the case-insensitive one finds.
    GPU_PRESETS
        .iter()
        .find(|p| p.id == id)
        .or_else(|| GPU_PRESETS.iter().find(|p| p.id.eq_ignore_ascii_case(id)))
}

/// The V100 SXM2 board (80 SMs, NVLink 2): the 16 and 32 GB parts differ in memory and, in a
/// DGX-2, in the 16-GPU NVSwitch domain.
const V100_SXM2: GpuSpec = GpuSpec {
    peak_tflops: PeakTflops {
        fp32: Some(15.7),
        tf32: None,
        fp16: Some(125.0),
        bf16: None,
        fp8: None,
        fp4: None,
    },
    hbm_gib: 16.0,
    usable_gib: Some(15.78),
    hbm_gbps: 900.0,
    nvlink_gbps: Some(150.0),
    nvlink_domain_gpus: 8,
    nic_gbps: Some(6.25),
    pcie_gbps: None,
    host_link_gbps: Some(15.75),
    sfu_exp_per_s: None,
    attn_peak_tflops: None,
    sms: Some(80),
};

/// The A100 SXM4 board (108 SMs, NVLink 3, PCIe Gen4): the 40 and 80 GB parts differ only in
/// their HBM.
const A100_SXM4: GpuSpec = GpuSpec {
    peak_tflops: PeakTflops {
        fp32: Some(19.5),
        tf32: Some(156.0),
        fp16: Some(312.0),
        bf16: Some(312.0),
        fp8: None,
        fp4: None,
    },
    hbm_gib: 40.0,
    usable_gib: None,
    hbm_gbps: 1555.0,
    nvlink_gbps: Some(300.0),
    nvlink_domain_gpus: 8,
    nic_gbps: Some(25.0),
    pcie_gbps: Some(31.0),
    host_link_gbps: Some(31.5),
    sfu_exp_per_s: None,
    attn_peak_tflops: None,
    sms: Some(108),
};

/// The H100 SXM5 die at 700 W (132 SMs, NVLink 4, PCIe Gen5): the H800 is it with reduced
/// NVLink, the H200 with more and faster HBM.
const H100_SXM5: GpuSpec = GpuSpec {
    peak_tflops: PeakTflops {
        fp32: Some(67.0),
        tf32: Some(494.5),
        fp16: Some(989.0),
        bf16: Some(989.0),
        fp8: Some(1979.0),
        fp4: None,
    },
    hbm_gib: 80.0,
    usable_gib: Some(79.65),
    hbm_gbps: 3350.0,
    nvlink_gbps: Some(450.0),
    nvlink_domain_gpus: 8,
    nic_gbps: Some(50.0),
    pcie_gbps: Some(63.0),
    host_link_gbps: Some(63.0),
    sfu_exp_per_s: None,
    attn_peak_tflops: None,
    sms: Some(132),
};

/// The Blackwell die (148 SMs, NVLink 5) as one GPU of a GB200 NVL72 rack (a 72-GPU NVLink
/// domain, NVLink-C2C to Grace): a DGX B200 runs it at lower clocks with less HBM, in 8-GPU
/// domains on PCIe hosts; the GB300 rack's Blackwell Ultra differs in FP4, HBM, NIC and SFUs.
const GB200: GpuSpec = GpuSpec {
    peak_tflops: PeakTflops {
        fp32: Some(80.0),
        tf32: Some(1250.0),
        fp16: Some(2500.0),
        bf16: Some(2500.0),
        fp8: Some(5000.0),
        fp4: Some(10000.0),
    },
    hbm_gib: 186.0,
    usable_gib: None,
    hbm_gbps: 8000.0,
    nvlink_gbps: Some(900.0),
    nvlink_domain_gpus: 72,
    nic_gbps: Some(50.0),
    pcie_gbps: None,
    host_link_gbps: Some(450.0),
    sfu_exp_per_s: None,
    attn_peak_tflops: None,
    sms: Some(148),
};

/// Every built-in GPU, from the validation data's `gpus.json` (same numbers, same sources).
pub static GPU_PRESETS: &[GpuPreset] = &[
    GpuPreset {
        id: "v100-sxm2-16gb",
        name: "NVIDIA V100 SXM2 16GB",
        spec: V100_SXM2,
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "cli99/llm-analysis llm_analysis/gpu_configs/*.json (v100-sxm-32gb: 125 TFLOPS fp16, 900 GB/s); stas00/ml-engineering network/README.md (intra-node NVLink/XGMI tables and inter-node table), which cites vendor docs (NVLink 2: 6 links, 150 GB/s uni, 300 duplex)",
        notes: "fp16 = tensor-core peak (125 TFLOP/s); V100 has no TF32/BF16/FP8 tensor cores (null). fp32 15.7 TFLOP/s is the NVIDIA datasheet figure, not re-read for this file. DGX-2H (450 W) parts run faster: ~130 TFLOP/s fp16 implied by the Megatron v1.0 blog. nic_gbps: DGX-1/DGX-2 have one 100 Gb/s EDR port per two GPUs (6.25 GB/s per GPU), standard figure. nvlink_gbps: NVLink2, 6 links, 150 GB/s per direction; DGX-1 is a hybrid cube mesh, DGX-2 has NVSwitch across 16 GPUs. usable_gib from nvidia-smi (16160 MiB). Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },
    GpuPreset {
        id: "v100-sxm2-32gb",
        name: "NVIDIA V100 SXM2/SXM3 32GB (DGX-1V / DGX-2)",
        spec: GpuSpec {
            hbm_gib: 32.0,
            usable_gib: None,
            nvlink_domain_gpus: 16,
            ..V100_SXM2
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "cli99/llm-analysis llm_analysis/gpu_configs/*.json (v100-sxm-32gb: 125 TFLOPS fp16, 900 GB/s); stas00/ml-engineering network/README.md (intra-node NVLink/XGMI tables and inter-node table), which cites vendor docs (NVLink 2: 6 links, 150 GB/s uni, 300 duplex)",
        notes: "Same compute as the 16 GB part. Used for the DGX-2 rows (16 GPUs on NVSwitch, hence nvlink_domain_gpus 16); DGX-2H parts are clocked higher (~130 TFLOP/s fp16, derived from the Megatron v1.0 blog: 62.4 TFLOP/s = 48% of peak). Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },
    GpuPreset {
        id: "a100-sxm4-40gb",
        name: "NVIDIA A100 SXM4 40GB",
        spec: A100_SXM4,
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages; cli99/llm-analysis llm_analysis/gpu_configs/*.json (a100-sxm-40gb: 1555 GB/s); stas00/ml-engineering network/README.md (intra-node NVLink/XGMI tables and inter-node table), which cites vendor docs; Narayanan et al. 2021 sec.5: 'peak device throughput of an A100 GPU with 16-bit precision is 312 teraFLOP/s'",
        notes: "Dense peaks (no sparsity); no FP8 tensor cores. nic_gbps: DGX A100 has 8x 200 Gb/s HDR InfiniBand for compute traffic (25 GB/s per GPU; Narayanan et al. 2021 sec. 5). nvidia-smi shows 40960 MiB (recent drivers) or 40536 MiB (older drivers), so usable_gib is left null. Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },
    GpuPreset {
        id: "a100-sxm4-80gb",
        name: "NVIDIA A100 SXM4 80GB",
        spec: GpuSpec {
            hbm_gib: 80.0,
            usable_gib: Some(80.0),
            hbm_gbps: 2039.0,
            ..A100_SXM4
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages; stas00/ml-engineering network/README.md (intra-node NVLink/XGMI tables and inter-node table), which cites vendor docs; cli99/llm-analysis llm_analysis/gpu_configs/*.json",
        notes: "HBM bandwidth: ml-engineering lists 2.00 TB/s, llm-analysis 2039 GB/s; 2039 used. nic_gbps: DGX A100 8x 200 Gb/s HDR (25 GB/s per GPU). usable_gib from nvidia-smi (81920 MiB). Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },
    GpuPreset {
        id: "h100-sxm5-80gb",
        name: "NVIDIA H100 SXM5 80GB (700 W)",
        spec: H100_SXM5,
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages; stas00/ml-engineering network/README.md (intra-node NVLink/XGMI tables and inter-node table), which cites vendor docs; NVIDIA/dgxc-benchmarking READMEs: 'peak theoretical throughput for H100 FP8 is 1979 TFLOPS and for H100 BF16 is 989 TFLOPS'",
        notes: "Dense peaks; 989 / 1979 TFLOP/s are also the peaks NVIDIA's benchmark pages use for MFU. nic_gbps: DGX H100 8x 400 Gb/s NDR (50 GB/s per GPU). usable_gib from nvidia-smi (81559 MiB). Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },
    GpuPreset {
        id: "h800-sxm5-80gb",
        name: "NVIDIA H800 SXM5 80GB (export H100, reduced NVLink)",
        spec: GpuSpec {
            nvlink_gbps: Some(200.0),
            ..H100_SXM5
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "DeepSeek-AI, DeepSeek-V3 Technical Report (arXiv 2412.19437) sec. 3.1-3.2.2: 2048 H800 GPUs, 8 per node on NVLink/NVSwitch, nodes on InfiniBand; 'NVLink offers a bandwidth of 160 GB/s, roughly 3.2 times that of IB (50 GB/s)'; Zhao et al. 2025, Insights into DeepSeek-V3 (ISCA '25, arXiv 2505.09343) sec. 2.3/4: H800 NVLink reduced from 900 GB/s to 400 GB/s (bidirectional), one 400 Gb/s CX7 InfiniBand NIC per GPU; compute and HBM as the H100 SXM5 (the H800 keeps the Hopper SXM5 die and HBM3)",
        notes: "Not in the validation gpus.json. nvlink_gbps 200 = 400 GB/s bidirectional per GPU, per direction; the engine's NVLink efficiency 0.78 gives 156 GB/s, DeepSeek's measured 160 GB/s. nic_gbps 50 = 400 Gb/s per GPU (DeepSeek's 50 GB/s). Peaks, HBM and usable memory as h100-sxm5-80gb (same silicon; the export limit cuts the interconnect only).",
    },
    GpuPreset {
        id: "h100-pcie-80gb",
        name: "NVIDIA H100 PCIe 80GB",
        spec: GpuSpec {
            peak_tflops: PeakTflops { fp32: Some(51.0), tf32: Some(378.0), fp16: Some(756.0), bf16: Some(756.0), fp8: Some(1513.0), fp4: None },
            hbm_gib: 80.0,
            usable_gib: None,
            hbm_gbps: 2000.0,
            nvlink_gbps: None,
            nvlink_domain_gpus: 1,
            nic_gbps: None,
            pcie_gbps: Some(63.0),
            host_link_gbps: Some(63.0),
            sfu_exp_per_s: None,
            attn_peak_tflops: None,
            sms: Some(114),
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages",
        notes: "fp16 set equal to the bf16 tensor-core peak (same units on Hopper). No NVSwitch: GPUs talk over PCIe Gen5 x16 (~63 GB/s per direction, pcie_gbps) or an NVLink bridge to one peer, so nvlink_gbps is null. There is no standard DGX/HGX system for this part, so nic_gbps is null. Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },
    GpuPreset {
        id: "h100-sxm5-96gb",
        name: "NVIDIA H100 96GB HBM2e, 500 W (Meta Grand Teton, torchtitan benchmarks)",
        spec: GpuSpec {
            peak_tflops: PeakTflops { fp32: None, tf32: None, fp16: Some(800.0), bf16: Some(800.0), fp8: Some(1600.0), fp4: None },
            hbm_gib: 96.0,
            usable_gib: None,
            hbm_gbps: 2400.0,
            nvlink_gbps: Some(450.0),
            nvlink_domain_gpus: 8,
            nic_gbps: Some(50.0),
            pcie_gbps: None,
            host_link_gbps: Some(63.0),
            sfu_exp_per_s: None,
            attn_peak_tflops: Some(897.0),
            sms: Some(132),
        },
        peak_bounds_bf16: Some((835.0, 989.0)),
        peak_for_mfu_bf16: None,
        source: "pytorch/torchtitan docs/performance.md @d4c86e37: 'Each H100 GPU is equipped with 96GB HBM2e with 2.4 TB/sec peak memory bandwidth ... default 500W power limit'; 'actual peak TFLOPs number is between SXM and NVL, and we don't know its exact value'; bounds: torchtitan utils.get_peak_flops (H100 NVL 835e12, SXM 989e12 bf16). Peak: Yang et al. (Meta), 'Context Parallelism for Scalable Million-Token Inference', MLSys 2025 (arXiv 2411.01783v3), sec. 4.1 and App. A, on the same Grand Teton Training hosts (8 H100 per host on NVLink, 96GB HBM2e at 2.4 TB/sec, 400 Gb/s RDMA per GPU): 'power limited H100 GPUs (500 Watt) ... where the BF16 peak for each H100 is 800 TF/sec, instead of 989 TF/sec for H100 HBM3 with 700 Watt'; the same appendix measures 'the standalone Flash Attention v3 causal attention benchmark using 8K context length on a single H100' at 540 TF/sec",
        notes: "bf16/fp16 800 TFLOP/s: the BF16 peak Meta states for this 500 W part (source), below torchtitan's NVL..SXM guess (peak_bounds_bf16 keeps that published range; paracalc used its midpoint, 912, until the stated figure was found). It is a peak, not a measured matmul rate (the best measured H100 SXM matmul at 700 W is 794.5 TFLOP/s, ml-engineering MAMF table), so GEMMs run at Hopper's 0.70 of it like the 700 W part's at 0.70 of 989. fp8 1600 = 2 x bf16 [derived] (Hopper's FP8 tensor-core rate is twice its bf16 rate at any clock). attn_peak_tflops 897 [derived]: the fused-attention peak that makes the FlashAttention-3 rates paracalc takes from the FA3 paper (causal, head dim 128: 0.62 of the peak forward at 16k tokens, 0.971 of that at 8k, engine/time/attention.rs) reproduce the 540 TF/sec measured on this part: 540/(0.62 x 0.9712) = 897; attention loses 9 % to the power limit against the 700 W part where GEMMs lose 19 % (800/989), as a kernel that keeps the tensor cores less busy draws less power per clock. The clock each kernel sustains under the 500 W limit is not published. 8 GPUs per host on NVLink, 400 Gb/s RDMA per GPU. The 2024-08 torchtitan page calls the same hosts 'H100 (94GB)'; both map here. Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },
    GpuPreset {
        id: "h200-sxm-141gb",
        name: "NVIDIA H200 SXM 141GB",
        spec: GpuSpec {
            hbm_gib: 141.0,
            usable_gib: Some(140.4),
            hbm_gbps: 4800.0,
            ..H100_SXM5
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages; stas00/ml-engineering network/README.md (intra-node NVLink/XGMI tables and inter-node table), which cites vendor docs",
        notes: "fp16 set equal to bf16 (hardware.json lists bf16 only). nic_gbps: 400 Gb/s per GPU (DGX H200 and the one H200 benchmark, 'CX-7 400Gb/s per GPU'). usable_gib from nvidia-smi (143771 MiB). Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },
    GpuPreset {
        id: "b200-sxm-180gb",
        name: "NVIDIA B200 (DGX B200, 180GB)",
        spec: GpuSpec {
            peak_tflops: PeakTflops { fp32: Some(80.0), tf32: Some(1125.0), fp16: Some(2250.0), bf16: Some(2250.0), fp8: Some(4500.0), fp4: Some(9000.0) },
            hbm_gib: 180.0,
            usable_gib: Some(179.06),
            nvlink_domain_gpus: 8,
            host_link_gbps: Some(63.0),
            ..GB200
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages (note 20: NVIDIA DGX B200 datasheet); stas00/ml-engineering network/README.md (intra-node NVLink/XGMI tables and inter-node table), which cites vendor docs",
        notes: "fp4 9000 TFLOP/s: the dense NVFP4 peak of the same TFLOPS table (the validation gpus.json has no fp4 column). DGX B200 dense figures; other NVIDIA pages quote 192 GB / 2.5 PF for some B200 SKUs. fp16 set equal to bf16. nic_gbps: DGX B200 ships 8x 400 Gb/s ConnectX-7 (standard figure, not re-read). usable_gib from nvidia-smi (183359 MiB). Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell. Also: fp4 9000 TFLOP/s dense.",
    },
    GpuPreset {
        id: "gb200",
        name: "NVIDIA GB200 NVL72 (per Blackwell GPU)",
        spec: GB200,
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: Some(2450.0),
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages (note 23: per-chip GB200 NVL72 spec); NVIDIA/dgxc-benchmarking v25.05 llama3.1/README.md: 'peak theoretical throughput for GB200 FP8 is 4.9 PFLOPS and for GB200 BF16 is 2.45 PFLOPS'",
        notes: "fp4 10000 TFLOP/s: the dense NVFP4 peak of the same TFLOPS table (the validation gpus.json has no fp4 column). 4 GPUs per compute tray (gpus_per_node 4 in the cases) but one NVLink5 domain of 72 GPUs (nvlink_domain_gpus): traffic between trays of the same rack stays on NVLink. NVIDIA's benchmark MFU uses 2.45 / 4.9 PFLOP/s. nic_gbps: one 400 Gb/s ConnectX-7 per GPU (standard figure, not re-read; the benchmark pages do not describe the network). Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell. Also: fp4 10000 TFLOP/s dense.",
    },
    GpuPreset {
        id: "gb300",
        name: "NVIDIA GB300 NVL72 (per Blackwell Ultra GPU)",
        spec: GpuSpec {
            peak_tflops: PeakTflops { fp4: Some(15000.0), ..GB200.peak_tflops },
            hbm_gib: 288.0,
            nic_gbps: Some(100.0),
            sfu_exp_per_s: Some(10.0e12),
            sms: None,
            ..GB200
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages; HBM from the B300-SXM entry; sfu_exp_per_s 10.0e12 = 2 x Blackwell's 5e12 [derived]: the per-SM EX2 rate doubled on the same SMs at the same clock (NVIDIA Technical Blog 'Inside NVIDIA Blackwell Ultra: The Chip Powering the AI Factory Era', 2025-08-22: attention-layer acceleration, doubled SFU throughput; 'Making Softmax More Efficient with NVIDIA Blackwell Ultra', 2026-02-25: MUFU.EX2 throughput doubled, its micro-benchmark 10,024 vs 4,943 Gop/s on GB300 vs GB200, ratio 2.03). The first blog's comparison table, row 'Attention acceleration (SFU EX2)', gives 10.7 TeraExponentials/s against Blackwell's 5: 10.7 is the full 160-SM implementation (160 x 32 x 2.09 GHz), and the micro-benchmark's 10.0e12 is what a GB300 runs (table read through verbatim copies, verda.com 'NVIDIA GB300 NVL72: GPU Architecture & Performance'; the blog itself was only readable from its beginning)",
        notes: "fp4 15000 TFLOP/s: the dense NVFP4 peak of the same TFLOPS table (the validation gpus.json has no fp4 column). hardware.json has no HBM figure for GB300; 288 GB HBM3e / 8 TB/s are the B300-SXM entry's. NVLink5 (900 GB/s per direction per GPU), 72-GPU domain, 4 GPUs per tray. nic_gbps: one 800 Gb/s ConnectX-8 per GPU (standard figure, not re-read). Dense bf16/fp8 peaks are GB200's (the GB300 NVL72 product page's '360 PF FP8 for training', as quoted by glennklockwood.com/garden/processors/B300, = 5 PF per GPU; ml-engineering note 24: 'GB200 NVL72 and GB300 NVL72 seem to be the same but faster fp4 and more memory'); the part differs for training in its special-function units (sfu_exp_per_s: twice Blackwell's rate) and its power limit (1.4 kW vs GB200's 1.2 kW, NVIDIA Mission Control power FAQ via ml-engineering's power table), which no published matmul measurement turns into a rate. The Blackwell Ultra die has 160 SMs in its full implementation ('Inside NVIDIA Blackwell Ultra'), whose resources vary by product; no GB300 document found gives more enabled SMs than a GB200's 148, and NVIDIA's measured EX2 rate is twice GB200's, not 2 x 160/148 of it. Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell. Also: fp4 15000 TFLOP/s dense.",
    },
    GpuPreset {
        id: "mi300x",
        name: "AMD Instinct MI300X",
        spec: GpuSpec {
            peak_tflops: PeakTflops { fp32: Some(163.4), tf32: Some(653.7), fp16: Some(1300.0), bf16: Some(1300.0), fp8: Some(2610.0), fp4: None },
            hbm_gib: 192.0,
            usable_gib: None,
            hbm_gbps: 5300.0,
            nvlink_gbps: Some(448.0),
            nvlink_domain_gpus: 8,
            nic_gbps: Some(50.0),
            pcie_gbps: None,
            host_link_gbps: Some(63.0),
            sfu_exp_per_s: None,
            attn_peak_tflops: None,
            sms: None,
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
        source: "stas00/ml-engineering compute/accelerator/README.md ('TFLOPS comparison table' dense/no-sparsity, memory table), which cites vendor spec pages (note 17: AMD MI300X spec page); stas00/ml-engineering network/README.md (intra-node NVLink/XGMI tables and inter-node table), which cites vendor docs",
        notes: "AMD pages give 1307.4 TFLOP/s bf16 dense; the source table rounds to 1300. nvlink_gbps here is Infinity Fabric (XGMI): 7 point-to-point links of 64 GB/s per direction, 448 GB/s aggregate; it is not a switch, so one peer gets 64 GB/s. nic_gbps: typical 8x 400 Gb/s platform (standard figure, not re-read). No validation case uses this GPU. Capacity units: vendors quote HBM in 'GB' but mean binary units (an '80GB' A100 reports 81920 MiB = 80 GiB), so hbm_gib is the vendor number read as GiB; usable_gib is the total nvidia-smi reports (MiB/1024) where a published nvidia-smi printout was found, and is a little lower on Hopper/Blackwell.",
    },];

/// Where each preset's [`GpuSpec::host_link_gbps`] comes from (the GPU↔CPU link used to price
/// optimizer and activation offloading); the validation data's `gpus.json` has no such field.
pub static HOST_LINK_SOURCES: &[(&str, &str)] = &[
    ("v100-sxm2-16gb", "PCIe Gen3 x16 to the host: 8 GT/s × 16 lanes × 128/130 = 15.75 GB/s per direction (PCI-SIG PCIe 3.0 base specification)"),
    ("v100-sxm2-32gb", "PCIe Gen3 x16: 15.75 GB/s per direction (PCI-SIG PCIe 3.0 base specification)"),
    ("a100-sxm4-40gb", "PCIe Gen4 x16: 31.5 GB/s per direction (NVIDIA A100 datasheet: PCIe Gen4 64 GB/s)"),
    ("a100-sxm4-80gb", "PCIe Gen4 x16: 31.5 GB/s per direction (NVIDIA A100 datasheet: PCIe Gen4 64 GB/s)"),
    ("h100-sxm5-80gb", "PCIe Gen5 x16: 63 GB/s per direction (NVIDIA H100 datasheet: PCIe Gen5 128 GB/s)"),
    ("h100-pcie-80gb", "PCIe Gen5 x16: 63 GB/s per direction (NVIDIA H100 datasheet: PCIe Gen5 128 GB/s)"),
    ("h100-sxm5-96gb", "PCIe Gen5 x16: 63 GB/s per direction (NVIDIA H100 datasheet: PCIe Gen5 128 GB/s)"),
    ("h200-sxm-141gb", "PCIe Gen5 x16: 63 GB/s per direction (NVIDIA H200 datasheet: PCIe Gen5 128 GB/s)"),
    ("b200-sxm-180gb", "PCIe Gen5 x16 to the host CPU: 63 GB/s per direction (NVIDIA DGX B200 datasheet: PCIe Gen5)"),
    ("gb200", "NVLink-C2C to the Grace CPU: 900 GB/s bidirectional = 450 GB/s per direction (NVIDIA GB200 NVL72 datasheet; PHYSICS.md, NVLink-C2C row)"),
    ("gb300", "NVLink-C2C to the Grace CPU: 900 GB/s bidirectional = 450 GB/s per direction (NVIDIA GB300 NVL72 datasheet)"),
    ("h800-sxm5-80gb", "PCIe Gen5 x16: 63 GB/s per direction (the H100 SXM5 board's host interface; NVIDIA H100 datasheet: PCIe Gen5 128 GB/s)"),
    ("mi300x", "PCIe Gen5 x16 host interface: 63 GB/s per direction (AMD Instinct MI300X datasheet: 128 GB/s)"),
];

/// PCIe Gen4 x16 per direction, GB/s (PCI-SIG PCIe 4.0: 16 GT/s × 16 lanes × 128/130): the
/// host link of a GPU that does not give one.
pub const DEFAULT_HOST_LINK_GBPS: f64 = 31.5;

impl GpuSpec {
    /// The GPU↔host link per direction, GB/s: the spec's, else its PCIe figure, else
    /// [`DEFAULT_HOST_LINK_GBPS`].
    pub fn host_link_gbps(&self) -> f64 {
        let ok = |g: &f64| g.is_finite() && *g > 0.0;
        self.host_link_gbps
            .filter(ok)
            .or(self.pcie_gbps.filter(ok))
            .unwrap_or(DEFAULT_HOST_LINK_GBPS)
    }
}

#[cfg(test)]
mod host_link_tests {
    use super::*;

    #[test]
    fn every_preset_has_a_sourced_host_link() {
        for p in GPU_PRESETS {
            assert!(p.spec.host_link_gbps.is_some(), "{}", p.id);
            assert!(
                HOST_LINK_SOURCES.iter().any(|(id, _)| *id == p.id),
                "{}",
                p.id
            );
        }
        // Grace systems reach host memory over NVLink-C2C, 7× a PCIe Gen5 x16 link.
        let gb200 = gpu_preset("gb200").map(|p| p.spec.host_link_gbps());
        assert_eq!(gb200, Some(450.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preset_ids_are_distinct_ignoring_case_and_lookup_ignores_case() {
        // gpu_preset's exact-match fast path relies on this.
        for (i, a) in GPU_PRESETS.iter().enumerate() {
            for b in &GPU_PRESETS[i + 1..] {
                assert!(!a.id.eq_ignore_ascii_case(b.id), "{} vs {}", a.id, b.id);
            }
        }
        assert_eq!(
            gpu_preset("A100-SXM4-80GB").map(|p| p.id),
            Some("a100-sxm4-80gb")
        );
        assert_eq!(
            gpu_preset("a100-sxm4-80gb").map(|p| p.id),
            Some("a100-sxm4-80gb")
        );
        assert!(gpu_preset("a100").is_none());
    }
}
