//! Built-in presets: model presets (a whole default [`Scenario`]) and cluster network presets.
//!
//! A **model preset** is a complete, valid starting point: the architecture from the model's paper
//! or released `config.json`, a training setup and a parallel layout on a cluster. Where a
//! published run or benchmark exists, the setup is that run's (cited in `static/sources.json`);
//! otherwise it is a plain choice that validates, marked "paracalc's choice".
//!
//! | id | architecture source | setup |
//! |---|---|---|
//! | `gpt3-125m` … `gpt3-175b` | Brown et al. 2020, *Language Models are Few-Shot Learners*, Table 2.1 | 175B: Korthikanti et al. 2022 / DESIGN.md example; smaller: paracalc's choice |
//! | `llama2-7b/13b/70b` | Touvron et al. 2023, *Llama 2* (arXiv 2307.09288) Table 1 + HF `config.json` | NVIDIA NeMo performance summary (24.07) layouts, batch 4M tokens (paper §2.2) |
//! | `llama3-8b/70b`, `llama3.1-8b/70b/405b` | Llama Team 2024, *The Llama 3 Herd of Models* (arXiv 2407.21783) Table 3 + HF `config.json` | NVIDIA dgxc-benchmarking v25.04 llama3.1 layouts |
//! | `mixtral-8x7b` | Jiang et al. 2024, *Mixtral of Experts* (arXiv 2401.04088) Table 1 | paracalc's choice (NeMo-style TP1/PP4/EP8) |
//! | `mixtral-8x22b` | `mistralai/Mixtral-8x22B-v0.1` `config.json` | paracalc's choice |
//! | `deepseek-v3-2048-h800` | `deepseek-ai/DeepSeek-V3` `config.json` with its node-limited routing; DeepSeek-V3 Technical Report (arXiv 2412.19437) | the plan as the report runs it (DualPipe, PP16, EP64, DeepEP-style dispatch to at most 4 nodes in FP8, blockwise FP8, its recomputation, no TP) |
//! | `deepseek-v3` (retired) | as above | the report's layout under 1F1B with the all-to-all dispatcher, which the report did not run |
//! | `deepseek-v3-report` (retired) | as above | the report's plan without its FP8 dispatch (`parallel.moe_dispatch_fp8` came later) |
//! | `gpt-oss-120b`, `gpt-oss-20b` | `openai/gpt-oss-*` `config.json` and model card | paracalc's choice after the Automodel performance summary |
//! | `llama4-maverick-512-h100` | `meta-llama/Llama-4-Maverick-17B-128E` `config.json` | dgxc-benchmarking v25.05 H100 row, with the stack its NeMo recipe sets (TP comm overlap, 16-bit gradient buffers, master-weight remainders) |
//! | `llama4-maverick` (retired) | as above | the same row without the recipe's stack settings |
//! | `bloom-176b-384-a100` | BigScience 2022 (arXiv 2211.05100); `bigscience/bloom` `config.json` | the production run (bigscience tr11-176B-ml README) under Megatron-DeepSpeed on Jean Zay's network |
//! | `bloom-176b` (retired) | as above | the same layout under Megatron-LM on a DGX A100 network |
//! | `nemotron4-340b-6144-h100` | NVIDIA 2024, *Nemotron-4 340B Technical Report* (arXiv 2406.11704) Table 1 | the same report, §3.1 and Table 2 (6144 GPUs, pipeline with interleaving: 2 chunks per rank, the degree paracalc's choice) |
//! | `nemotron4-340b` (retired) | as above | the same layout without the interleaving the report names |
//! | `qwen2-72b` | Qwen Team 2024, *Qwen2 Technical Report* (arXiv 2407.10671) Table 1 + `Qwen/Qwen2-72B` `config.json` | paracalc's choice |
//! | `mistral-7b` | Jiang et al. 2023, *Mistral 7B* (arXiv 2310.06825) Table 1 | paracalc's choice |
//! | `falcon-40b` | `tiiuae/falcon-40b` `config.json` and model card | the model card (384 A100 40GB, TP 8, PP 4, DP 12, ZeRO, batch 1152) |
//!
//! # Stability
//! Share links (see [`crate::share`]) store only the differences from a preset, so **a preset's
//! scenario is part of the link format**: editing a number here changes what every old link
//! means. Never edit a preset in place; add a new id, or bump the link version and keep a frozen
//! copy of the old table for the old version. `tests/share.rs` pins every preset's full scenario
//! (golden links), so an accidental edit fails the tests.
//!
//! A preset found wrong (a plan the run it cites did not run) is **retired**: a new id carries
//! the corrected plan and takes its place in the picker, and the old one stays in
//! [`MODEL_PRESETS`] with [`ModelPreset::replaced_by`] set, so old links still decode to what
//! they meant. A retired preset is not offered ([`ModelPreset::listed`]), not chosen as the base
//! of a new link ([`crate::share::nearest_preset`]), and shown only to a page opened from a
//! link that names it. `tests/presets.rs` checks that every listed preset fits and, where it is
//! a published run, that its step is within its own error band of that run.
//!
//! Presets are data: each model preset's scenario is a JSON file, `src/presets/<id>.json` (the
//! scenario format of `DESIGN.md`, compiled in and read by the scenario parser,
//! [`crate::scenario::parse`]); this file keeps only the table of ids and names. Each preset's
//! sources are its entry in `static/sources.json` ([`crate::sources`]; the web app fetches them
//! when they are unfolded). A new preset is a new JSON file, one line in [`MODEL_PRESETS`] and
//! its sources' entry. Names are rendered as text only.

use crate::scenario::{Cluster, Model, Overhead, Parallel, Scenario, Training};

/// A model preset: a complete default scenario (its JSON file); its sources are in
/// [`crate::sources`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelPreset {
    /// Stable id used in share links (`model=llama3-70b`) and the name of its file,
    /// `src/presets/<id>.json`. Never renamed.
    pub id: &'static str,
    /// Display name (plain text).
    pub name: &'static str,
    /// The scenario as JSON (the file's text).
    pub json: &'static str,
    /// For a retired preset (module docs, "Stability"): the id of the preset that replaces it.
    pub replaced_by: Option<&'static str>,
}

impl ModelPreset {
    /// Whether the app offers it: every preset but the retired ones.
    pub fn listed(&self) -> bool {
        self.replaced_by.is_none()
    }

    /// The preset as a full scenario, read from its JSON by the scenario parser. `num_gpus =
    /// tp·pp·dp·cp`. A preset that did not parse (the tests parse and validate every one) would
    /// give the sections' defaults rather than panic.
    pub fn scenario(&self) -> Scenario {
        crate::scenario::parse(self.json).unwrap_or_else(|_| Scenario {
            model: Model::default(),
            training: Training::default(),
            parallel: Parallel::default(),
            cluster: Cluster::default(),
            overhead: Overhead::default(),
            calibration: Default::default(),
        })
    }
}

/// A row of [`MODEL_PRESETS`]: id, display name, and the JSON file `src/presets/<id>.json`.
/// `retired_for: "id"` marks a retired preset and names the one that replaces it.
macro_rules! preset {
    ($id:literal, $name:literal) => {
        ModelPreset {
            id: $id,
            name: $name,
            json: include_str!(concat!("presets/", $id, ".json")),
            replaced_by: None,
        }
    };
    ($id:literal, $name:literal, retired_for: $by:literal) => {
        ModelPreset {
            replaced_by: Some($by),
            ..preset!($id, $name)
        }
    };
}

/// Looks up a model preset by id (ASCII case-insensitive).
pub fn model_preset(id: &str) -> Option<&'static ModelPreset> {
    MODEL_PRESETS.iter().find(|p| p.id.eq_ignore_ascii_case(id))
}

/// The preset a share link starts from when it names none (`v=1` links without `model=`).
/// Part of the v1 link format: never change it.
pub const DEFAULT_MODEL_PRESET: &str = "llama3-8b";

/// The default preset.
pub fn default_model_preset() -> &'static ModelPreset {
    // The id is in the table (a test checks it); fall back to the first entry regardless.
    model_preset(DEFAULT_MODEL_PRESET).unwrap_or(&MODEL_PRESETS[0])
}

/// Every model preset, the retired ones included (they decode old links). Order is the order
/// shown in the app. See the module docs for sources.
pub static MODEL_PRESETS: &[ModelPreset] = &[
    // --- GPT-3 family (Brown et al. 2020, Table 2.1) ---
    preset!("gpt3-125m", "GPT-3 125M"),
    preset!("gpt3-350m", "GPT-3 350M"),
    preset!("gpt3-760m", "GPT-3 760M"),
    // Table 2.1 lists 24 heads of 128 for d_model 2048, which does not divide; 16 heads of 128
    // (as in Megatron-LM and GPT-NeoX 1.3B configs) keep d_model = heads·d_head.
    preset!("gpt3-1.3b", "GPT-3 1.3B"),
    preset!("gpt3-2.7b", "GPT-3 2.7B"),
    preset!("gpt3-6.7b", "GPT-3 6.7B"),
    // Table 2.1 prints d_model 5140 (not divisible by 40 heads); 5120 = 40·128 is the size used
    // by every reimplementation.
    preset!("gpt3-13b", "GPT-3 13B"),
    preset!("gpt3-175b", "GPT-3 175B"),
    // --- Llama 2 ---
    preset!("llama2-7b", "Llama 2 7B"),
    preset!("llama2-13b", "Llama 2 13B"),
    preset!("llama2-70b", "Llama 2 70B"),
    // --- Llama 3 / 3.1 (same architecture; 3.1 extends the context after pre-training) ---
    preset!("llama3-8b", "Llama 3 8B"),
    preset!("llama3-70b", "Llama 3 70B"),
    preset!("llama3.1-8b", "Llama 3.1 8B"),
    preset!("llama3.1-70b", "Llama 3.1 70B"),
    // 126 layers on PP8 × VP8 = 64 chunks: (126 + 2) / 64 = 2, the NeMo split (engine::layout).
    preset!("llama3.1-405b", "Llama 3.1 405B"),
    // --- Mixture of experts ---
    preset!("mixtral-8x7b", "Mixtral 8x7B"),
    preset!("mixtral-8x22b", "Mixtral 8x22B"),
    // --- Fine-grained MoE with shared experts, MLA and MTP (issue 12) ---
    // The report's plan (its FP8 dispatch included); the two retired ones before it are what
    // links of the v1 format made from them still mean.
    preset!("deepseek-v3-2048-h800", "DeepSeek-V3 671B"),
    preset!("deepseek-v3", "DeepSeek-V3 671B", retired_for: "deepseek-v3-2048-h800"),
    preset!("deepseek-v3-report", "DeepSeek-V3 671B (report plan)", retired_for: "deepseek-v3-2048-h800"),
    preset!("qwen3-30b-a3b", "Qwen3-30B-A3B"),
    preset!("qwen3-235b-a22b", "Qwen3-235B-A22B"),
    preset!("gpt-oss-120b", "gpt-oss-120b"),
    preset!("gpt-oss-20b", "gpt-oss-20b"),
    // The benchmark as its recipe runs it; the retired one left the recipe's stack at defaults.
    preset!("llama4-maverick-512-h100", "Llama 4 Maverick 400B"),
    preset!("llama4-maverick", "Llama 4 Maverick 400B", retired_for: "llama4-maverick-512-h100"),
    // --- Other large dense models people train or reproduce ---
    // The production run under Megatron-DeepSpeed on Jean Zay; the retired one had neither.
    preset!("bloom-176b-384-a100", "BLOOM-176B"),
    preset!("bloom-176b", "BLOOM-176B", retired_for: "bloom-176b-384-a100"),
    // Squared-ReLU MLP: two h×f GEMMs like GELU, so ffn_act "gelu" (the non-gated shape).
    // The report trains with interleaved pipeline stages (§3.1); the retired one has none.
    preset!("nemotron4-340b-6144-h100", "Nemotron-4 340B"),
    preset!("nemotron4-340b", "Nemotron-4 340B", retired_for: "nemotron4-340b-6144-h100"),
    preset!("qwen2-72b", "Qwen2 72B"),
    preset!("mistral-7b", "Mistral 7B"),
    preset!("falcon-40b", "Falcon-40B"),
];

/// A cluster network preset: node size and per-GPU link bandwidths, applied on top of the GPU
/// preset's own numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkPreset {
    /// Stable id.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// GPUs per node (server or compute tray).
    pub gpus_per_node: u64,
    /// NVLink per GPU per direction, GB/s.
    pub intra_node_gbps: f64,
    /// Network per GPU per direction, GB/s.
    pub inter_node_gbps: f64,
    /// Where the numbers come from.
    pub source: &'static str,
}

impl NetworkPreset {
    /// Sets `cluster`'s node size and link overrides to this preset's.
    pub fn apply(&self, cluster: &mut Cluster) {
        cluster.gpus_per_node = self.gpus_per_node;
        cluster.intra_node_gbps = Some(self.intra_node_gbps);
        cluster.inter_node_gbps = Some(self.inter_node_gbps);
    }
}

/// Looks up a network preset by id (ASCII case-insensitive).
pub fn network_preset(id: &str) -> Option<&'static NetworkPreset> {
    NETWORK_PRESETS
        .iter()
        .find(|p| p.id.eq_ignore_ascii_case(id))
}

/// Cluster networks: DGX-style nodes (8 GPUs on NVLink, one NIC per GPU) and NVL72 racks.
/// Bandwidths are GB/s per GPU per direction (400 Gb/s = 50 GB/s).
pub static NETWORK_PRESETS: &[NetworkPreset] = &[
    NetworkPreset {
        id: "dgx-a100",
        name: "DGX A100: 8 × NVLink3 (300 GB/s), 8 × HDR 200 Gb/s InfiniBand",
        gpus_per_node: 8,
        intra_node_gbps: 300.0,
        inter_node_gbps: 25.0,
        source: "NVIDIA DGX A100 System Architecture whitepaper: NVLink3 600 GB/s bidirectional per GPU, eight ConnectX-6 200 Gb/s HCAs for compute",
    },
    NetworkPreset {
        id: "dgx-h100",
        name: "DGX H100: 8 × NVLink4 (450 GB/s), 8 × NDR 400 Gb/s InfiniBand",
        gpus_per_node: 8,
        intra_node_gbps: 450.0,
        inter_node_gbps: 50.0,
        source: "NVIDIA DGX H100 user guide: NVLink4 900 GB/s bidirectional per GPU, eight ConnectX-7 400 Gb/s for compute",
    },
    NetworkPreset {
        id: "dgx-b200",
        name: "DGX B200: 8 × NVLink5 (900 GB/s), 8 × NDR 400 Gb/s InfiniBand",
        gpus_per_node: 8,
        intra_node_gbps: 900.0,
        inter_node_gbps: 50.0,
        source: "NVIDIA DGX B200 datasheet: NVLink5 1.8 TB/s bidirectional per GPU, eight ConnectX-7 400 Gb/s for compute",
    },
    NetworkPreset {
        id: "nvl72",
        name: "GB200 NVL72: 72-GPU NVLink5 domain (900 GB/s), 4 GPUs per tray, 400 Gb/s NIC per GPU",
        gpus_per_node: 4,
        intra_node_gbps: 900.0,
        inter_node_gbps: 50.0,
        source: "NVIDIA GB200 NVL72 datasheet: 72 Blackwell GPUs in one NVLink domain, 1.8 TB/s bidirectional per GPU; one ConnectX-7 400 Gb/s per GPU. The 72-GPU domain itself comes from the gb200/gb300 GPU presets (nvlink_domain_gpus)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_validates_and_ids_are_unique() {
        for (i, p) in MODEL_PRESETS.iter().enumerate() {
            let s = match crate::scenario::parse(p.json) {
                Ok(s) => s,
                Err(e) => panic!("{}: {e}", p.id),
            };
            if let Err(e) = s.validate() {
                panic!("{}: {e}", p.id);
            }
            assert_eq!(
                s.model.name, p.name,
                "{}: the file's model name is the preset's",
                p.id
            );
            assert_eq!(
                s.cluster.num_gpus,
                s.parallel.tp * s.parallel.pp * s.parallel.dp * s.parallel.cp,
                "{}",
                p.id
            );
            assert!(
                MODEL_PRESETS[..i].iter().all(|q| q.id != p.id),
                "duplicate {}",
                p.id
            );
            // Ids are URL-safe without escaping.
            assert!(p
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b)));
        }
        assert_eq!(default_model_preset().id, DEFAULT_MODEL_PRESET);
        assert!(default_model_preset().listed());
    }

    #[test]
    fn a_retired_preset_names_a_listed_one_of_the_same_model() {
        let retired: Vec<_> = MODEL_PRESETS.iter().filter(|p| !p.listed()).collect();
        assert_eq!(retired.len(), 5);
        for p in retired {
            let by = model_preset(p.replaced_by.unwrap()).unwrap();
            assert!(by.listed(), "{} -> {}", p.id, by.id);
            let (old, new) = (p.scenario(), by.scenario());
            assert_eq!(
                (old.model.layers, old.model.hidden, old.cluster.num_gpus),
                (new.model.layers, new.model.hidden, new.cluster.num_gpus),
                "{}",
                p.id
            );
        }
    }

    #[test]
    fn parameter_counts_match_the_names() {
        // 12·L·h² (+ V·h) for GPT-3 (Kaplan et al. 2020 Eq. 2.1 with d_ff = 4h):
        // 175B: 12·96·12288² = 173.95e9, + 51200·12288 = 0.63e9 → 174.58e9 ≈ "175B".
        let p = model_preset("gpt3-175b").unwrap().scenario().model;
        let n = 12 * p.layers * p.hidden * p.hidden + p.vocab * p.hidden;
        assert_eq!(n, 174_575_321_088);
        // Llama 3 70B with GQA and SwiGLU: per layer 2h² + 2·h·(h·g/a) + 3·h·f
        // = 2·8192² + 2·8192·1024 + 3·8192·28672 = 134.2M + 16.8M + 704.6M = 855.6M; ×80 = 68.45e9;
        // + 2·V·h = 2·128256·8192 = 2.10e9 → 70.55e9 ≈ "70B".
        let a = model_preset("llama3-70b").unwrap().scenario().model;
        let kv_dim = a.hidden / a.heads * a.kv_heads();
        let per_layer =
            2 * a.hidden * a.hidden + 2 * a.hidden * kv_dim + 3 * a.hidden * a.ffn_hidden();
        let n = a.layers * per_layer + 2 * a.vocab * a.hidden;
        assert_eq!(n, 70_552_387_584);
    }
}
