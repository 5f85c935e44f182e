//! The app state: one [`Scenario`] (plus the pinned A of a comparison, the preset it is relative
//! to, link notices and the selected chart), changed only through [`Action`]s.
//!
//! The URL query is the state, encoded by [`crate::share`]: [`State::from_query`] decodes a link
//! (never failing: what it cannot use becomes a notice) and [`State::to_query`] encodes it back.

use std::rc::Rc;

use yew::Reducible;

use crate::app::charts::ChartKind;
use crate::engine::search::Layout;
use crate::presets::{self, model_preset, network_preset};
use crate::scenario::{
    gpu_preset, CustomGpu, FfnAct, GpuChoice, Model, Moe, Precision, Recompute, Scenario, Schedule,
};
use crate::share::{self, Notice, Pinned, View};

/// Everything the page shows is derived from this.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The scenario being planned (B of a comparison).
    pub scenario: Scenario,
    /// The model preset the scenario is encoded against in links (`model=`).
    pub preset: &'static str,
    /// The pinned scenario A of an A/B comparison.
    pub pinned: Option<Pinned>,
    /// What the link that opened the page could not use (plain text).
    pub notices: Vec<Notice>,
    /// The chart selected in the full app (`chart=`).
    pub chart: Option<ChartKind>,
    /// Embed mode with this chart (`embed=`).
    pub embed: Option<ChartKind>,
    /// A one-off message from the last import (plain text), `(is_error, text)`.
    pub message: Option<(bool, String)>,
}

impl Default for State {
    /// The default preset (`presets::DEFAULT_MODEL_PRESET`), as a link without keys opens.
    fn default() -> State {
        let p = presets::default_model_preset();
        State {
            scenario: p.scenario(),
            preset: p.id,
            pinned: None,
            notices: Vec::new(),
            chart: None,
            embed: None,
            message: None,
        }
    }
}

/// A numeric field of the scenario that the form edits. [`Num::path`] is the field path that the
/// engine's [`Issue`](crate::scenario::Issue)s use, so errors land at the right input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Num {
    Layers,
    Hidden,
    Heads,
    KvHeads,
    FfnHidden,
    Vocab,
    SeqLen,
    Experts,
    TopK,
    ExpertFfn,
    GlobalBatch,
    MicroBatch,
    TrainTokens,
    OptOffload,
    ActOffload,
    Tp,
    Pp,
    Dp,
    Cp,
    Ep,
    Vp,
    BucketMb,
    NumGpus,
    GpusPerNode,
    IntraGbps,
    InterGbps,
    Price,
    CtxGib,
    CommBufGib,
    ReservePct,
    GpuHbm,
    GpuUsable,
    GpuMemBw,
    GpuBf16,
    GpuFp16,
    GpuFp8,
    GpuTf32,
    GpuFp32,
    GpuNvlink,
    GpuDomain,
    GpuNic,
    GpuHostLink,
}

impl Num {
    /// Every numeric field, in form order (tests walk them all).
    pub const ALL: &'static [Num] = &[
        Num::Layers,
        Num::Hidden,
        Num::Heads,
        Num::KvHeads,
        Num::FfnHidden,
        Num::Vocab,
        Num::SeqLen,
        Num::Experts,
        Num::TopK,
        Num::ExpertFfn,
        Num::GlobalBatch,
        Num::MicroBatch,
        Num::TrainTokens,
        Num::OptOffload,
        Num::ActOffload,
        Num::Tp,
        Num::Pp,
        Num::Dp,
        Num::Cp,
        Num::Ep,
        Num::Vp,
        Num::BucketMb,
        Num::NumGpus,
        Num::GpusPerNode,
        Num::IntraGbps,
        Num::InterGbps,
        Num::Price,
        Num::CtxGib,
        Num::CommBufGib,
        Num::ReservePct,
        Num::GpuHbm,
        Num::GpuUsable,
        Num::GpuMemBw,
        Num::GpuBf16,
        Num::GpuFp16,
        Num::GpuFp8,
        Num::GpuTf32,
        Num::GpuFp32,
        Num::GpuNvlink,
        Num::GpuDomain,
        Num::GpuNic,
        Num::GpuHostLink,
    ];
}

/// How a numeric field is shown and checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NumSpec {
    /// Scenario field path (`parallel.tp`), also the input's id with `.` → `-`.
    pub path: &'static str,
    /// Label.
    pub label: &'static str,
    /// Unit shown next to the input.
    pub unit: &'static str,
    /// One-line help.
    pub help: &'static str,
    /// Whole numbers only.
    pub whole: bool,
    /// May be left empty (then the default applies).
    pub optional: bool,
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
}

const fn w(
    path: &'static str,
    label: &'static str,
    unit: &'static str,
    help: &'static str,
    max: f64,
) -> NumSpec {
    NumSpec {
        path,
        label,
        unit,
        help,
        whole: true,
        optional: false,
        min: 1.0,
        max,
    }
}

const fn real(
    path: &'static str,
    label: &'static str,
    unit: &'static str,
    help: &'static str,
    min: f64,
    max: f64,
) -> NumSpec {
    NumSpec {
        path,
        label,
        unit,
        help,
        whole: false,
        optional: true,
        min,
        max,
    }
}

impl Num {
    /// Display and limits. Limits are the validator's per-field ones, tighter where no real run
    /// comes near them.
    pub fn spec(self) -> NumSpec {
        use Num::*;
        match self {
            Layers => w("model.layers", "Layers", "layers", "Transformer blocks in the model.", 100_000.0),
            Hidden => w("model.hidden", "Hidden size", "dims", "Width of the residual stream (d_model).", 10_000_000.0),
            Heads => w("model.heads", "Attention heads", "heads", "Query heads per layer; must divide the hidden size.", 1_000_000.0),
            KvHeads => NumSpec { optional: true, ..w("model.kv_heads", "KV heads", "heads", "Key/value heads (GQA); empty = one per attention head (MHA), 1 = MQA.", 1_000_000.0) },
            FfnHidden => NumSpec { optional: true, ..w("model.ffn_hidden", "FFN size", "dims", "Inner size of the MLP; empty = 4 × hidden.", 80_000_000.0) },
            Vocab => w("model.vocab", "Vocabulary", "tokens", "Vocabulary size as trained (incl. padding).", 100_000_000.0),
            SeqLen => w("model.seq_len", "Sequence length", "tokens", "Tokens per training sequence.", 10_000_000.0),
            Experts => w("model.moe.experts", "Experts", "experts", "Experts per MoE layer.", 1_000_000.0),
            TopK => w("model.moe.top_k", "Top-k", "experts/token", "Experts each token is routed to.", 1_000_000.0),
            ExpertFfn => w("model.moe.expert_ffn_hidden", "Expert FFN size", "dims", "Inner MLP size of one expert.", 80_000_000.0),
            GlobalBatch => w("training.global_batch", "Global batch", "sequences", "Sequences per optimizer step, over all data-parallel ranks.", 10_000_000.0),
            MicroBatch => w("training.micro_batch", "Micro-batch", "sequences", "Sequences per forward/backward pass on one pipeline.", 10_000_000.0),
            TrainTokens => real("training.train_tokens", "Train tokens", "tokens", "Tokens to train on, for time and cost to train (e.g. 1.5e13); optional.", 1.0, 1e18),
            OptOffload => NumSpec { min: 0.0, ..real("training.optimizer_offload", "Optimizer offload", "fraction", "Share of the fp32 master weights and Adam moments kept in CPU memory (Megatron --optimizer-offload-fraction, ZeRO-Offload); costs host-link time each step; empty = none.", 0.0, 1.0) },
            ActOffload => NumSpec { min: 0.0, ..real("training.activation_offload", "Activation offload", "fraction", "Share of stored activations parked in CPU memory between forward and backward (Megatron --cpu-offloading); empty = none.", 0.0, 1.0) },
            Tp => w("parallel.tp", "Tensor parallel (tp)", "GPUs", "GPUs splitting each layer's matrices; keep inside a node.", 1_000_000.0),
            Pp => w("parallel.pp", "Pipeline parallel (pp)", "stages", "Pipeline stages; each holds a slice of the layers.", 100_000.0),
            Dp => w("parallel.dp", "Data parallel (dp)", "replicas", "Model replicas; GPUs = tp × pp × dp × cp.", 100_000_000.0),
            Cp => w("parallel.cp", "Context parallel (cp)", "GPUs", "GPUs splitting each sequence (ring attention).", 1_000_000.0),
            Ep => w("parallel.ep", "Expert parallel (ep)", "GPUs", "GPUs the experts are spread over, inside dp (MoE only).", 1_000_000.0),
            Vp => w("parallel.vp", "Virtual stages (vp)", "chunks/GPU", "Model chunks per pipeline rank (interleaved 1F1B shrinks the bubble).", 100_000.0),
            BucketMb => real("parallel.bucket_mb", "Gradient bucket", "MB", "Gradient bucket size for DP reduction; empty = framework default.", 0.001, 1e6),
            NumGpus => w("cluster.num_gpus", "GPUs", "GPUs", "Total GPUs; changing it recomputes dp.", 100_000_000.0),
            GpusPerNode => w("cluster.gpus_per_node", "GPUs per node", "GPUs", "GPUs per server (NVLink island); tp beyond it crosses the network.", 1_000_000.0),
            IntraGbps => real("cluster.intra_node_gbps", "NVLink per GPU", "GB/s", "Intra-node bandwidth per GPU per direction; empty = the GPU's.", 0.001, 1e6),
            InterGbps => real("cluster.inter_node_gbps", "Network per GPU", "GB/s", "Inter-node bandwidth per GPU per direction (400 Gb/s = 50 GB/s); empty = the GPU's.", 0.001, 1e6),
            Price => NumSpec { min: 0.0, ..real("cluster.price_per_gpu_hour", "Price", "$/GPU·h", "Price of one GPU-hour, for the cost to train; optional.", 0.0, 1e6) },
            CtxGib => NumSpec { min: 0.0, ..real("overhead.cuda_context_gib", "CUDA context", "GiB", "Per GPU, outside PyTorch's allocator; empty = 1.3.", 0.0, 1e4) },
            CommBufGib => NumSpec { min: 0.0, ..real("overhead.comm_buffers_gib", "NCCL buffers", "GiB", "Per GPU, all communicators; empty = 0.25 per communicator.", 0.0, 1e4) },
            ReservePct => NumSpec { min: 0.0, ..real("overhead.allocator_reserve_pct", "Allocator reserve", "%", "Caching-allocator overhead on allocated bytes; empty = 5 %.", 0.0, 100.0) },
            GpuHbm => NumSpec { optional: false, ..real("cluster.gpu.hbm_gib", "HBM capacity", "GiB", "Memory per GPU.", 0.001, 1e6) },
            GpuUsable => real("cluster.gpu.usable_gib", "Usable memory", "GiB", "What the framework sees (nvidia-smi total); empty = HBM capacity.", 0.001, 1e6),
            GpuMemBw => NumSpec { optional: false, ..real("cluster.gpu.hbm_gbps", "HBM bandwidth", "GB/s", "Memory bandwidth per GPU.", 0.001, 1e6) },
            GpuBf16 => real("cluster.gpu.peak_tflops.bf16", "Peak bf16", "TFLOP/s", "Dense bf16 tensor-core peak; empty = none.", 0.001, 1e7),
            GpuFp16 => real("cluster.gpu.peak_tflops.fp16", "Peak fp16", "TFLOP/s", "Dense fp16 tensor-core peak; empty = none.", 0.001, 1e7),
            GpuFp8 => real("cluster.gpu.peak_tflops.fp8", "Peak fp8", "TFLOP/s", "Dense FP8 tensor-core peak; empty = none.", 0.001, 1e7),
            GpuTf32 => real("cluster.gpu.peak_tflops.tf32", "Peak tf32", "TFLOP/s", "Dense TF32 tensor-core peak; empty = none.", 0.001, 1e7),
            GpuFp32 => real("cluster.gpu.peak_tflops.fp32", "Peak fp32", "TFLOP/s", "fp32 (non-tensor-core) peak; empty = none.", 0.001, 1e7),
            GpuNvlink => real("cluster.gpu.nvlink_gbps", "NVLink", "GB/s", "NVLink per GPU per direction; empty = none.", 0.001, 1e6),
            GpuDomain => NumSpec { optional: false, ..w("cluster.gpu.nvlink_domain_gpus", "NVLink domain", "GPUs", "GPUs sharing one NVLink domain (8 in a DGX, 72 in NVL72).", 1_000_000.0) },
            GpuNic => real("cluster.gpu.nic_gbps", "NIC", "GB/s", "Network per GPU per direction; empty = none.", 0.001, 1e6),
            GpuHostLink => real("cluster.gpu.host_link_gbps", "Host link", "GB/s", "GPU to CPU memory per direction (PCIe Gen5 x16 = 63, NVLink-C2C = 450), for offloading; empty = the PCIe figure.", 0.001, 1e6),
        }
    }

    /// The input's element id (`parallel-tp`).
    pub fn id(self) -> String {
        self.spec().path.replace('.', "-")
    }

    /// The current value in `s` (`None`: empty, i.e. the default, or not applicable).
    pub fn get(self, s: &Scenario) -> Option<f64> {
        use Num::*;
        let m = &s.model;
        let t = &s.training;
        let p = &s.parallel;
        let c = &s.cluster;
        let o = &s.overhead;
        let u = |v: u64| Some(v as f64);
        let custom = match &c.gpu {
            GpuChoice::Custom(g) => Some(g),
            GpuChoice::Preset(_) => None,
        };
        match self {
            Layers => u(m.layers),
            Hidden => u(m.hidden),
            Heads => u(m.heads),
            KvHeads => m.kv_heads.map(|v| v as f64),
            FfnHidden => m.ffn_hidden.map(|v| v as f64),
            Vocab => u(m.vocab),
            SeqLen => u(m.seq_len),
            Experts => m.moe.map(|e| e.experts as f64),
            TopK => m.moe.map(|e| e.top_k as f64),
            ExpertFfn => m.moe.map(|e| e.expert_ffn_hidden as f64),
            GlobalBatch => u(t.global_batch),
            MicroBatch => u(t.micro_batch),
            TrainTokens => t.train_tokens,
            OptOffload => t.optimizer_offload,
            ActOffload => t.activation_offload,
            Tp => u(p.tp),
            Pp => u(p.pp),
            Dp => u(p.dp),
            Cp => u(p.cp),
            Ep => u(p.ep),
            Vp => u(p.vp),
            BucketMb => p.bucket_mb,
            NumGpus => u(c.num_gpus),
            GpusPerNode => u(c.gpus_per_node),
            IntraGbps => c.intra_node_gbps,
            InterGbps => c.inter_node_gbps,
            Price => c.price_per_gpu_hour,
            CtxGib => o.cuda_context_gib,
            CommBufGib => o.comm_buffers_gib,
            ReservePct => o.allocator_reserve_pct,
            GpuHbm => custom.map(|g| g.hbm_gib),
            GpuUsable => custom.and_then(|g| g.usable_gib),
            GpuMemBw => custom.map(|g| g.hbm_gbps),
            GpuBf16 => custom.and_then(|g| g.peak_tflops.bf16),
            GpuFp16 => custom.and_then(|g| g.peak_tflops.fp16),
            GpuFp8 => custom.and_then(|g| g.peak_tflops.fp8),
            GpuTf32 => custom.and_then(|g| g.peak_tflops.tf32),
            GpuFp32 => custom.and_then(|g| g.peak_tflops.fp32),
            GpuNvlink => custom.and_then(|g| g.nvlink_gbps),
            GpuDomain => custom.map(|g| g.nvlink_domain_gpus as f64),
            GpuNic => custom.and_then(|g| g.nic_gbps),
            GpuHostLink => custom.and_then(|g| g.host_link_gbps),
        }
    }

    /// Sets the field (a whole-number field takes the value rounded; `None` on a required field
    /// is ignored). Does not keep `num_gpus = tp·pp·dp·cp`; [`State::apply`] does.
    pub fn set(self, s: &mut Scenario, v: Option<f64>) {
        use Num::*;
        let spec = self.spec();
        let v = v
            .filter(|x| x.is_finite())
            .map(|x| x.clamp(spec.min, spec.max));
        let whole = v.map(|x| x.round() as u64);
        let m = &mut s.model;
        let t = &mut s.training;
        let p = &mut s.parallel;
        let c = &mut s.cluster;
        let o = &mut s.overhead;
        macro_rules! req {
            ($slot:expr) => {
                if let Some(x) = whole {
                    $slot = x;
                }
            };
        }
        match self {
            Layers => req!(m.layers),
            Hidden => req!(m.hidden),
            Heads => req!(m.heads),
            KvHeads => m.kv_heads = whole,
            FfnHidden => m.ffn_hidden = whole,
            Vocab => req!(m.vocab),
            SeqLen => req!(m.seq_len),
            Experts | TopK | ExpertFfn => {
                if let (Some(moe), Some(x)) = (m.moe.as_mut(), whole) {
                    match self {
                        Experts => moe.experts = x,
                        TopK => moe.top_k = x,
                        _ => moe.expert_ffn_hidden = x,
                    }
                }
            }
            GlobalBatch => req!(t.global_batch),
            MicroBatch => req!(t.micro_batch),
            TrainTokens => t.train_tokens = v,
            OptOffload => t.optimizer_offload = v,
            ActOffload => t.activation_offload = v,
            Tp => req!(p.tp),
            Pp => req!(p.pp),
            Dp => req!(p.dp),
            Cp => req!(p.cp),
            Ep => req!(p.ep),
            Vp => req!(p.vp),
            BucketMb => p.bucket_mb = v,
            NumGpus => req!(c.num_gpus),
            GpusPerNode => req!(c.gpus_per_node),
            IntraGbps => c.intra_node_gbps = v,
            InterGbps => c.inter_node_gbps = v,
            Price => c.price_per_gpu_hour = v,
            CtxGib => o.cuda_context_gib = v,
            CommBufGib => o.comm_buffers_gib = v,
            ReservePct => o.allocator_reserve_pct = v,
            _ => {
                let GpuChoice::Custom(g) = &mut c.gpu else {
                    return;
                };
                match self {
                    GpuHbm => {
                        if let Some(x) = v {
                            g.hbm_gib = x;
                        }
                    }
                    GpuUsable => g.usable_gib = v,
                    GpuMemBw => {
                        if let Some(x) = v {
                            g.hbm_gbps = x;
                        }
                    }
                    GpuBf16 => g.peak_tflops.bf16 = v,
                    GpuFp16 => g.peak_tflops.fp16 = v,
                    GpuFp8 => g.peak_tflops.fp8 = v,
                    GpuTf32 => g.peak_tflops.tf32 = v,
                    GpuFp32 => g.peak_tflops.fp32 = v,
                    GpuNvlink => g.nvlink_gbps = v,
                    GpuDomain => {
                        if let Some(x) = whole {
                            g.nvlink_domain_gpus = x;
                        }
                    }
                    GpuNic => g.nic_gbps = v,
                    GpuHostLink => g.host_link_gbps = v,
                    _ => {}
                }
            }
        }
    }
}

/// A change to the [`State`], dispatched by the form and the toolbar.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Set a numeric field. `tp`, `pp`, `cp` and the GPU count recompute `dp` when the GPUs split
    /// evenly; `dp` sets the GPU count to `tp·pp·dp·cp`.
    SetNum(Num, Option<f64>),
    /// `model.name`.
    SetName(String),
    /// `model.ffn_act`.
    SetAct(FfnAct),
    /// `model.tied_embeddings`.
    SetTied(bool),
    /// Dense (false) or mixture-of-experts (true; starts from 8 experts, top-2).
    SetMoe(bool),
    /// `training.precision`.
    SetPrecision(Precision),
    /// `training.recompute`.
    SetRecompute(Recompute),
    /// `training.flash_attention`.
    SetFlash(bool),
    /// `parallel.sp`.
    SetSp(bool),
    /// `parallel.zero_stage`.
    SetZero(u8),
    /// `parallel.schedule` (`None`: the default for `vp`).
    SetSchedule(Option<Schedule>),
    /// `parallel.layers_per_stage` as typed (comma-separated; empty = even split). Text that is
    /// not a list of whole numbers is ignored.
    SetLayersPerStage(String),
    /// `parallel.tp_comm_overlap`.
    SetTpOverlap(Option<bool>),
    /// `training.grad_reduce_in_fp32`.
    SetGradFp32(Option<bool>),
    /// `parallel.dp_comm_overlap`.
    SetDpOverlap(Option<bool>),
    /// A GPU preset id, or `"custom"` to edit the current GPU's numbers.
    SetGpu(String),
    /// Apply a cluster network preset (node size and link bandwidths).
    ApplyNetwork(String),
    /// Start over from a model preset (its whole scenario).
    LoadPreset(String),
    /// Replace the model section (Hugging Face import), with a message for the user.
    ImportModel(Box<Model>, String),
    /// Replace the whole scenario (JSON import).
    ReplaceScenario(Box<Scenario>),
    /// Show a message (import failures).
    Message(bool, String),
    /// Set `dp = num_gpus / (tp·pp·cp)`.
    FixDp,
    /// Set `num_gpus = tp·pp·dp·cp`.
    FixGpus,
    /// Round `global_batch` to the nearest multiple of `micro_batch·dp` (at least one).
    FixGlobalBatch,
    /// A layout picked in the search chart ([`Layout::apply`]).
    ApplyLayout(Layout),
    /// Pin the current scenario as A.
    Pin,
    /// Drop the pinned A.
    Unpin,
    /// Swap A and B.
    Swap,
    /// The chart tab changed.
    SelectChart(ChartKind),
    /// Hide the link notices and the import message.
    Dismiss,
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.apply(action);
        Rc::new(next)
    }
}

/// `tp·pp·cp` (saturating).
fn model_parallel(s: &Scenario) -> u64 {
    let p = &s.parallel;
    p.tp.saturating_mul(p.pp).saturating_mul(p.cp)
}

/// `tp·pp·dp·cp` (saturating): the GPUs the layout uses.
pub fn layout_gpus(s: &Scenario) -> u64 {
    model_parallel(s).saturating_mul(s.parallel.dp)
}

/// [`layout_gpus`] capped at the largest GPU count a scenario may have (the validator then
/// reports the mismatch instead of the link refusing the number).
fn capped_layout_gpus(s: &Scenario) -> u64 {
    layout_gpus(s).min(Num::NumGpus.spec().max as u64)
}

/// The `dp` that makes the layout use exactly `num_gpus`, if the GPUs split evenly.
pub fn fitting_dp(s: &Scenario) -> Option<u64> {
    let mp = model_parallel(s);
    (mp > 0 && s.cluster.num_gpus % mp == 0 && s.cluster.num_gpus >= mp)
        .then(|| s.cluster.num_gpus / mp)
}

/// The multiple of `micro_batch·dp` nearest to `global_batch` (at least one multiple).
/// Stays within the link's limit of 10¹⁰ sequences (unchanged when no multiple fits).
pub fn fitting_global_batch(s: &Scenario) -> u64 {
    const MAX: u64 = 10_000_000_000;
    let step = s.training.micro_batch.saturating_mul(s.parallel.dp).max(1);
    if step > MAX {
        return s.training.global_batch;
    }
    let n = (s.training.global_batch.saturating_add(step / 2) / step).clamp(1, MAX / step);
    n * step
}

/// A custom GPU with the numbers of `s`'s current GPU.
fn custom_of(s: &Scenario) -> CustomGpu {
    let spec = s.cluster.gpu_spec().unwrap_or_else(|| {
        gpu_preset("h100-sxm5-80gb")
            .or(crate::scenario::GPU_PRESETS.first())
            .map(|p| p.spec)
            .unwrap_or_else(crate::scenario::GpuSpec::fallback)
    });
    let (id, name) = match &s.cluster.gpu {
        GpuChoice::Custom(c) => (c.id.clone(), c.name.clone()),
        GpuChoice::Preset(_) => (
            "custom".to_string(),
            format!("Custom ({})", s.cluster.gpu_name()),
        ),
    };
    CustomGpu::from_spec(id, name, spec)
}

/// Parses `9,10,10,9` (spaces allowed; each from 1 to 100 000, the link's limits); `None` for
/// anything else.
pub fn parse_stage_list(text: &str) -> Option<Vec<u64>> {
    let list: Option<Vec<u64>> = text
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<u64>()
                .ok()
                .filter(|v| (1..=100_000).contains(v))
        })
        .collect();
    list.filter(|l| !l.is_empty() && l.len() <= 100_000)
}

impl State {
    /// Applies one action in place.
    pub fn apply(&mut self, action: Action) {
        let s = &mut self.scenario;
        match action {
            Action::SetNum(num, v) => {
                num.set(s, v);
                match num {
                    Num::Tp | Num::Pp | Num::Cp | Num::NumGpus => {
                        if let Some(dp) = fitting_dp(s) {
                            s.parallel.dp = dp;
                        }
                    }
                    Num::Dp => s.cluster.num_gpus = capped_layout_gpus(s),
                    _ => {}
                }
                if num == Num::Pp {
                    // A custom split belongs to the old stage count.
                    if s.parallel
                        .layers_per_stage
                        .as_ref()
                        .is_some_and(|l| l.len() as u64 != s.parallel.pp)
                    {
                        s.parallel.layers_per_stage = None;
                    }
                }
            }
            Action::SetName(name) => s.model.name = name.chars().take(200).collect(),
            Action::SetAct(a) => s.model.ffn_act = a,
            Action::SetTied(b) => s.model.tied_embeddings = b,
            Action::SetMoe(on) => {
                s.model.moe = if on {
                    Some(s.model.moe.unwrap_or(Moe::new(8, 2, s.model.ffn_hidden())))
                } else {
                    None
                };
                if !on {
                    s.parallel.ep = 1;
                }
            }
            Action::SetPrecision(p) => s.training.precision = p,
            Action::SetRecompute(r) => s.training.recompute = r,
            Action::SetFlash(b) => s.training.flash_attention = b,
            Action::SetSp(b) => s.parallel.sp = b,
            Action::SetZero(z) => s.parallel.zero_stage = z.min(3),
            Action::SetSchedule(x) => s.parallel.schedule = x,
            Action::SetLayersPerStage(text) => {
                if text.trim().is_empty() {
                    s.parallel.layers_per_stage = None;
                } else if let Some(list) = parse_stage_list(&text) {
                    s.parallel.layers_per_stage = Some(list);
                }
            }
            Action::SetTpOverlap(x) => s.parallel.tp_comm_overlap = x,
            Action::SetGradFp32(x) => s.training.grad_reduce_in_fp32 = x,
            Action::SetDpOverlap(x) => s.parallel.dp_comm_overlap = x,
            Action::SetGpu(id) => {
                if id == "custom" {
                    if !matches!(s.cluster.gpu, GpuChoice::Custom(_)) {
                        let custom = custom_of(s);
                        s.cluster.gpu = GpuChoice::Custom(custom);
                        // The overrides are now part of the custom GPU.
                        s.cluster.intra_node_gbps = None;
                        s.cluster.inter_node_gbps = None;
                    }
                } else if let Some(p) = gpu_preset(&id) {
                    s.cluster.gpu = GpuChoice::Preset(p.id.to_string());
                }
            }
            Action::ApplyNetwork(id) => {
                if let Some(n) = network_preset(&id) {
                    n.apply(&mut s.cluster);
                }
            }
            Action::LoadPreset(id) => {
                if let Some(p) = model_preset(&id) {
                    self.scenario = p.scenario();
                    self.preset = p.id;
                }
            }
            Action::ImportModel(model, message) => {
                s.model = *model;
                if s.model.moe.is_none() {
                    s.parallel.ep = 1;
                }
                self.message = Some((false, message));
            }
            Action::ReplaceScenario(scenario) => {
                self.scenario = *scenario;
                self.preset = share::nearest_preset(&self.scenario).id;
                self.message = Some((false, "Scenario loaded from JSON.".into()));
            }
            Action::Message(error, text) => self.message = Some((error, text)),
            Action::FixDp => {
                if let Some(dp) = fitting_dp(s) {
                    s.parallel.dp = dp;
                }
            }
            Action::FixGpus => s.cluster.num_gpus = capped_layout_gpus(s),
            Action::FixGlobalBatch => s.training.global_batch = fitting_global_batch(s),
            Action::ApplyLayout(layout) => {
                layout.apply(s);
                s.cluster.num_gpus = capped_layout_gpus(s);
            }
            Action::Pin => {
                self.pinned = Some(Pinned {
                    scenario: self.scenario.clone(),
                    preset: self.preset,
                })
            }
            Action::Unpin => self.pinned = None,
            Action::Swap => {
                if let Some(a) = self.pinned.take() {
                    self.pinned = Some(Pinned {
                        scenario: std::mem::replace(&mut self.scenario, a.scenario),
                        preset: std::mem::replace(&mut self.preset, a.preset),
                    });
                }
            }
            Action::SelectChart(c) => self.chart = Some(c),
            Action::Dismiss => {
                self.notices.clear();
                self.message = None;
            }
        }
    }

    /// The state a link describes (the query with or without `?`, or a whole URL). Never fails:
    /// a link too long to read gives the default state with a notice.
    pub fn from_query(query: &str) -> State {
        match share::decode(query) {
            Ok(d) => State {
                scenario: d.scenario,
                preset: d.preset,
                pinned: d.view.pinned,
                notices: d.notices,
                chart: d.view.chart,
                embed: d.view.embed,
                message: None,
            },
            Err(e) => State {
                notices: vec![Notice {
                    key: "link".into(),
                    message: format!("{e} The default scenario is shown instead."),
                }],
                ..State::default()
            },
        }
    }

    /// The link query (without `?`) for this state, with the view keys (`chart`, `embed`) and
    /// the pinned A.
    pub fn to_query(&self) -> String {
        self.query_with(self.embed)
    }

    /// The link query with `embed` replaced (`None`: the full app; `Some`: an embed of that chart).
    pub fn query_with(&self, embed: Option<ChartKind>) -> String {
        let view = View {
            embed: embed,
            chart: self.chart,
            pinned: self.pinned.clone(),
        };
        share::encode_with_view(&self.scenario, self.preset, &view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_default_preset_and_valid() {
        let s = State::default();
        assert_eq!(s.preset, "llama3-8b");
        assert_eq!(s.scenario.validate(), Ok(()));
        assert_eq!(s.to_query(), "v=1&model=llama3-8b");
        assert_eq!(State::from_query(""), s);
        assert_eq!(State::from_query("?"), s);
    }

    #[test]
    fn every_num_reads_back_what_it_sets() {
        let mut st = State::default();
        st.apply(Action::SetMoe(true));
        st.apply(Action::SetGpu("custom".into()));
        for num in Num::ALL {
            let spec = num.spec();
            let v = if spec.whole { 3.0 } else { 2.5_f64.min(spec.max * 0.5) };
            num.set(&mut st.scenario, Some(v));
            assert_eq!(num.get(&st.scenario), Some(v), "{}", spec.path);
            assert!(!spec.help.is_empty() && !spec.unit.is_empty());
        }
    }

    #[test]
    fn layout_edits_keep_the_gpu_count() {
        // llama3-8b preset: check its layout, then tp 1 → 2 on the same GPUs halves dp.
        let mut st = State::default();
        let gpus = st.scenario.cluster.num_gpus;
        let tp = st.scenario.parallel.tp;
        st.apply(Action::SetNum(Num::Tp, Some((tp * 2) as f64)));
        assert_eq!(st.scenario.cluster.num_gpus, gpus);
        assert_eq!(layout_gpus(&st.scenario), gpus);
        // dp drives the GPU count: dp 3 → tp·pp·3·cp GPUs.
        st.apply(Action::SetNum(Num::Dp, Some(3.0)));
        let p = &st.scenario.parallel;
        assert_eq!(st.scenario.cluster.num_gpus, p.tp * p.pp * 3 * p.cp);
        // GPUs that do not split evenly leave dp alone; FixGpus repairs.
        st.apply(Action::SetNum(Num::NumGpus, Some(7.0)));
        assert_eq!(st.scenario.parallel.dp, 3);
        assert!(st.scenario.validate().is_err());
        st.apply(Action::FixGpus);
        assert_eq!(st.scenario.cluster.num_gpus, layout_gpus(&st.scenario));
    }

    #[test]
    fn pin_edit_and_the_link_carries_both() {
        let mut st = State::from_query("v=1&model=llama3-70b");
        st.apply(Action::Pin);
        st.apply(Action::SetNum(Num::MicroBatch, Some(2.0)));
        st.apply(Action::SelectChart(ChartKind::Time));
        let q = st.to_query();
        assert_eq!(
            q,
            "v=1&model=llama3-70b&mbs=2&a.model=llama3-70b&chart=time"
        );
        let back = State::from_query(&q);
        assert_eq!(back.scenario, st.scenario);
        assert_eq!(back.pinned, st.pinned);
        assert_eq!(back.chart, Some(ChartKind::Time));
        assert!(back.notices.is_empty());
        // The embed query keeps everything and adds embed=.
        assert_eq!(
            st.query_with(Some(ChartKind::Memory)),
            format!("{q}&embed=memory")
        );
        let mut swapped = back.clone();
        swapped.apply(Action::Swap);
        assert_eq!(swapped.scenario.training.micro_batch, 1);
        assert_eq!(
            swapped.pinned.map(|p| p.scenario.training.micro_batch),
            Some(2)
        );
    }

    #[test]
    fn bad_links_give_notices_and_a_working_state() {
        let st = State::from_query("?model=nope&tp=abc&zzz=1&name=%3Cb%3Ehi%3C%2Fb%3E");
        assert_eq!(st.scenario.model.name, "<b>hi</b>");
        let keys: Vec<&str> = st.notices.iter().map(|n| n.key.as_str()).collect();
        assert_eq!(keys, ["model", "tp", "zzz"]);
        let long = format!("tp={}", "9".repeat(5000));
        let st = State::from_query(&long);
        assert_eq!(st.notices.len(), 1);
        assert!(st.notices[0].message.contains("4096"));
        assert_eq!(st.scenario, State::default().scenario);
    }

    #[test]
    fn global_batch_is_rounded_to_whole_micro_batches() {
        // gpt3-175b: mbs 1, dp 8. dp 16 (tp 4) keeps 1536 = 96 × 16; mbs 5 → step 80:
        // 1536 / 80 = 19.2 → 19 × 80 = 1520.
        let mut st = State::from_query("v=1&model=gpt3-175b&tp=4&dp=16&mbs=5");
        assert!(st.scenario.validate().is_err());
        st.apply(Action::FixGlobalBatch);
        assert_eq!(st.scenario.training.global_batch, 1520);
        assert_eq!(st.scenario.validate(), Ok(()));
        // Never below one multiple.
        st.apply(Action::SetNum(Num::GlobalBatch, Some(3.0)));
        st.apply(Action::FixGlobalBatch);
        assert_eq!(st.scenario.training.global_batch, 80);
    }

    #[test]
    fn stage_list_and_layout_actions() {
        let mut st = State::from_query("v=1&model=gpt3-175b");
        st.apply(Action::SetLayersPerStage("6, 6,x".into()));
        assert_eq!(st.scenario.parallel.layers_per_stage, None);
        st.apply(Action::SetLayersPerStage("5,7".into()));
        assert_eq!(st.scenario.parallel.layers_per_stage, Some(vec![5, 7]));
        st.apply(Action::SetNum(Num::Pp, Some(4.0)));
        assert_eq!(st.scenario.parallel.layers_per_stage, None);
        let mut layout = Layout::of(&st.scenario);
        layout.tp = 4;
        layout.dp = 2;
        st.apply(Action::ApplyLayout(layout));
        assert_eq!(st.scenario.parallel.tp, 4);
        assert_eq!(st.scenario.cluster.num_gpus, 4 * 4 * 2);
    }

    #[test]
    fn custom_gpu_starts_from_the_current_one() {
        let mut st = State::default();
        let spec = st.scenario.gpu().unwrap();
        st.apply(Action::SetGpu("custom".into()));
        assert_eq!(st.scenario.gpu().unwrap().hbm_gib, spec.hbm_gib);
        st.apply(Action::SetNum(Num::GpuHbm, Some(96.0)));
        assert_eq!(st.scenario.gpu().unwrap().hbm_gib, 96.0);
        assert_eq!(st.scenario.validate(), Ok(()));
        let back = State::from_query(&st.to_query());
        assert_eq!(back.scenario, st.scenario);
        st.apply(Action::SetGpu("h100-sxm5-80gb".into()));
        assert_eq!(
            st.scenario.cluster.gpu,
            GpuChoice::Preset("h100-sxm5-80gb".into())
        );
    }
}
