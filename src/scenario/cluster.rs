//! The cluster section: which GPU, how many, and the links between them.

use super::gpu::{gpu_preset, GpuSpec};

/// The hardware: GPU model, GPU count, node size and optional link overrides.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// A preset id (`"h100-sxm5-80gb"`) or a custom GPU object.
    pub gpu: GpuChoice,
    /// Total GPUs; must equal `tp·pp·dp·cp`.
    pub num_gpus: u64,
    /// GPUs per node (servers); default 8. Counts nodes (launch scripts, the TP + DP scaling
    /// variant); it places no communication: the GPU's `nvlink_domain_gpus` decides which
    /// groups stay on NVLink.
    pub gpus_per_node: u64,
    /// Override: NVLink bandwidth per GPU inside the GPU's NVLink domain, GB/s.
    pub intra_node_gbps: Option<f64>,
    /// Override: network bandwidth per GPU between NVLink domains, GB/s.
    pub inter_node_gbps: Option<f64>,
    /// Price of one GPU-hour (any currency), for the cost to train.
    pub price_per_gpu_hour: Option<f64>,
}

impl Default for Cluster {
    /// An unnamed GPU preset (set `gpu`), one GPU, 8 per node and every optional field at its
    /// default: a base for struct update (`Cluster { num_gpus: 64, ..Cluster::default() }`), so a
    /// new optional field needs no change where clusters are built.
    fn default() -> Cluster {
        Cluster {
            gpu: GpuChoice::Preset(String::new()),
            num_gpus: 1,
            gpus_per_node: 8,
            intra_node_gbps: None,
            inter_node_gbps: None,
            price_per_gpu_hour: None,
        }
    }
}

/// The GPU of a cluster: a built-in preset by id, or a custom description.
// The custom variant is large, but a scenario holds one GpuChoice and the engine copies the
// GpuSpec out of it once per estimate: boxing would only add an allocation per clone.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum GpuChoice {
    /// A preset id from [`super::GPU_PRESETS`].
    Preset(String),
    /// A GPU described in the scenario, with the fields of `gpus.json`.
    Custom(CustomGpu),
}

/// A GPU described inline, with the same fields as the presets (`gpus.json`; its bookkeeping
/// keys are accepted and ignored: [`super::json::GPU_BOOKKEEPING`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CustomGpu {
    /// Optional id.
    pub id: String,
    /// Optional name.
    pub name: String,
    /// Its numbers. The preset-only ones (`sfu_exp_per_s`, `attn_peak_tflops`, `sms`) are not
    /// fields of `gpus.json` or of the scenario contract: [`Self::spec`] leaves them out.
    pub spec: GpuSpec,
}

impl CustomGpu {
    /// A custom GPU with `spec`'s numbers.
    pub fn from_spec(id: String, name: String, spec: GpuSpec) -> CustomGpu {
        // `host_link_gbps` is not carried, so a link that customises a preset keeps decoding to
        // the same scenario as before the field existed; `GpuSpec::host_link_gbps` falls back
        // to the PCIe figure.
        let spec = GpuSpec {
            host_link_gbps: None,
            ..spec
        };
        CustomGpu {
            id,
            name,
            spec: Self::contract(spec),
        }
    }

    /// `spec` without the preset-only numbers: a custom GPU takes its generation's exponential
    /// rate (a customised GB300 loses Blackwell Ultra's SFUs), prices attention at its GEMM
    /// peak (a customised `h100-sxm5-96gb` too) and has no wave term (its SM count is not asked
    /// for).
    fn contract(spec: GpuSpec) -> GpuSpec {
        GpuSpec {
            sfu_exp_per_s: None,
            attn_peak_tflops: None,
            sms: None,
            ..spec
        }
    }

    /// This GPU's numbers; the inverse of [`Self::from_spec`].
    pub fn spec(&self) -> GpuSpec {
        Self::contract(self.spec)
    }
}

impl Cluster {
    /// The GPU's numbers with the link overrides applied; `None` for an unknown preset id.
    pub fn gpu_spec(&self) -> Option<GpuSpec> {
        let mut spec = match &self.gpu {
            GpuChoice::Preset(id) => gpu_preset(id)?.spec,
            GpuChoice::Custom(c) => c.spec(),
        };
        if let Some(b) = self.intra_node_gbps {
            spec.nvlink_gbps = Some(b);
        }
        if let Some(b) = self.inter_node_gbps {
            spec.nic_gbps = Some(b);
        }
        Some(spec)
    }

    /// [`Cluster::gpu_spec`] where it is a preset's own numbers (no link override), borrowed
    /// from the preset table; `None` otherwise (a custom GPU, a link override, an unknown id).
    pub fn preset_spec(&self) -> Option<&'static GpuSpec> {
        match (&self.gpu, self.intra_node_gbps, self.inter_node_gbps) {
            (GpuChoice::Preset(id), None, None) => gpu_preset(id).map(|p| &p.spec),
            _ => None,
        }
    }

    /// Display name of the GPU: the preset's name, the custom name, or the id.
    pub fn gpu_name(&self) -> String {
        match &self.gpu {
            GpuChoice::Preset(id) => {
                gpu_preset(id).map_or_else(|| id.clone(), |p| p.name.to_string())
            }
            GpuChoice::Custom(c) if !c.name.is_empty() => c.name.clone(),
            GpuChoice::Custom(_) => "custom GPU".to_string(),
        }
    }

    /// Number of nodes, rounded up.
    pub fn num_nodes(&self) -> u64 {
        self.num_gpus.div_ceil(self.gpus_per_node.max(1))
    }
}
