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

/// A built-in GPU with its identity; its sources are in [`crate::sources`].
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

/// Every built-in GPU, from the validation data's `gpus.json` (same numbers; the same sources in
/// `static/sources.json`).
pub static GPU_PRESETS: &[GpuPreset] = &[
    GpuPreset {
        id: "v100-sxm2-16gb",
        name: "NVIDIA V100 SXM2 16GB",
        spec: V100_SXM2,
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
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
    },
    GpuPreset {
        id: "a100-sxm4-40gb",
        name: "NVIDIA A100 SXM4 40GB",
        spec: A100_SXM4,
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
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
    },
    GpuPreset {
        id: "h100-sxm5-80gb",
        name: "NVIDIA H100 SXM5 80GB (700 W)",
        spec: H100_SXM5,
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
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
    },
    GpuPreset {
        id: "h100-pcie-80gb",
        name: "NVIDIA H100 PCIe 80GB",
        spec: GpuSpec {
            peak_tflops: PeakTflops {
                fp32: Some(51.0),
                tf32: Some(378.0),
                fp16: Some(756.0),
                bf16: Some(756.0),
                fp8: Some(1513.0),
                fp4: None,
            },
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
    },
    GpuPreset {
        id: "h100-sxm5-96gb",
        name: "NVIDIA H100 96GB HBM2e, 500 W (Meta Grand Teton, torchtitan benchmarks)",
        spec: GpuSpec {
            peak_tflops: PeakTflops {
                fp32: None,
                tf32: None,
                fp16: Some(800.0),
                bf16: Some(800.0),
                fp8: Some(1600.0),
                fp4: None,
            },
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
    },
    GpuPreset {
        id: "b200-sxm-180gb",
        name: "NVIDIA B200 (DGX B200, 180GB)",
        spec: GpuSpec {
            peak_tflops: PeakTflops {
                fp32: Some(80.0),
                tf32: Some(1125.0),
                fp16: Some(2250.0),
                bf16: Some(2250.0),
                fp8: Some(4500.0),
                fp4: Some(9000.0),
            },
            hbm_gib: 180.0,
            usable_gib: Some(179.06),
            nvlink_domain_gpus: 8,
            host_link_gbps: Some(63.0),
            ..GB200
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
    },
    GpuPreset {
        id: "gb200",
        name: "NVIDIA GB200 NVL72 (per Blackwell GPU)",
        spec: GB200,
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: Some(2450.0),
    },
    GpuPreset {
        id: "gb300",
        name: "NVIDIA GB300 NVL72 (per Blackwell Ultra GPU)",
        spec: GpuSpec {
            peak_tflops: PeakTflops {
                fp4: Some(15000.0),
                ..GB200.peak_tflops
            },
            hbm_gib: 288.0,
            nic_gbps: Some(100.0),
            sfu_exp_per_s: Some(10.0e12),
            sms: None,
            ..GB200
        },
        peak_bounds_bf16: None,
        peak_for_mfu_bf16: None,
    },
    GpuPreset {
        id: "mi300x",
        name: "AMD Instinct MI300X",
        spec: GpuSpec {
            peak_tflops: PeakTflops {
                fp32: Some(163.4),
                tf32: Some(653.7),
                fp16: Some(1300.0),
                bf16: Some(1300.0),
                fp8: Some(2610.0),
                fp4: None,
            },
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
    },
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
            let sources = crate::sources::builtin().unwrap();
            assert!(
                sources.gpu(p.id).is_some_and(|s| !s.host_link.is_empty()),
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
