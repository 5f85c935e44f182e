//! Built-in presets: model presets (a whole default [`Scenario`]) and cluster network presets.
//!
//! A **model preset** is a complete, valid starting point: the architecture from the model's paper
//! or released `config.json`, a training setup and a parallel layout on a cluster. Where a
//! published run or benchmark exists, the setup is that run's (cited in `setup_source`);
//! otherwise it is a plain choice that validates, marked "paracalc's choice".
//!
//! | id | architecture source | setup |
//! |---|---|---|
//! | `gpt3-125m` … `gpt3-175b` | Brown et al. 2020, *Language Models are Few-Shot Learners*, Table 2.1 | 175B: Korthikanti et al. 2022 / DESIGN.md example; smaller: paracalc's choice |
//! | `llama2-7b/13b/70b` | Touvron et al. 2023, *Llama 2* (arXiv 2307.09288) Table 1 + HF `config.json` | NVIDIA NeMo performance summary (24.07) layouts, batch 4M tokens (paper §2.2) |
//! | `llama3-8b/70b`, `llama3.1-8b/70b/405b` | Llama Team 2024, *The Llama 3 Herd of Models* (arXiv 2407.21783) Table 3 + HF `config.json` | NVIDIA dgxc-benchmarking v25.04 llama3.1 layouts |
//! | `mixtral-8x7b` | Jiang et al. 2024, *Mixtral of Experts* (arXiv 2401.04088) Table 1 | paracalc's choice (NeMo-style TP1/PP4/EP8) |
//! | `mixtral-8x22b` | `mistralai/Mixtral-8x22B-v0.1` `config.json` | paracalc's choice |
//! | `deepseek-v3` | `deepseek-ai/DeepSeek-V3` `config.json`; DeepSeek-V3 Technical Report (arXiv 2412.19437) | the report's 2048-H800 layout (PP16, EP64, ZeRO-1, FP8) under 1F1B with the all-to-all dispatcher: the plan old links name, kept as it was |
//! | `deepseek-v3-report` | as `deepseek-v3`, with its node-limited routing | the plan as the report runs it (DualPipe, DeepEP-style dispatch to at most 4 nodes, blockwise FP8, its recomputation) |
//! | `gpt-oss-120b`, `gpt-oss-20b` | `openai/gpt-oss-*` `config.json` and model card | paracalc's choice after the Automodel performance summary |
//! | `llama4-maverick` | `meta-llama/Llama-4-Maverick-17B-128E` `config.json` | dgxc-benchmarking v25.05 H100 row |
//! | `bloom-176b` | BigScience 2022 (arXiv 2211.05100); `bigscience/bloom` `config.json` | the production run (bigscience tr11-176B-ml README) |
//! | `nemotron4-340b` | NVIDIA 2024, *Nemotron-4 340B Technical Report* (arXiv 2406.11704) Table 1 | the same report, Table 2 (6144 GPUs) |
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
//! Presets are data: each model preset's scenario is a JSON file, `src/presets/<id>.json` (the
//! scenario format of `DESIGN.md`, compiled in and read by the scenario parser,
//! [`crate::scenario::parse`]); this file keeps only the table of ids, names and sources. A new
//! preset is a new JSON file and one line in [`MODEL_PRESETS`]. Names are rendered as text only.

use crate::scenario::{Cluster, Model, Overhead, Parallel, Scenario, Training};

/// A model preset: a complete default scenario (its JSON file) with its sources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelPreset {
    /// Stable id used in share links (`model=llama3-70b`) and the name of its file,
    /// `src/presets/<id>.json`. Never renamed.
    pub id: &'static str,
    /// Display name (plain text).
    pub name: &'static str,
    /// Where the architecture numbers come from.
    pub source: &'static str,
    /// Where the setup comes from ("paracalc's choice" when not a published run).
    pub setup_source: &'static str,
    /// The scenario as JSON (the file's text).
    pub json: &'static str,
}

impl ModelPreset {
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

/// A row of [`MODEL_PRESETS`]: id, display name, sources, and the JSON file `src/presets/<id>.json`.
macro_rules! preset {
    ($id:literal, $name:literal, $source:expr, $setup:expr $(,)?) => {
        ModelPreset {
            id: $id,
            name: $name,
            source: $source,
            setup_source: $setup,
            json: include_str!(concat!("presets/", $id, ".json")),
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

const GPT3_SRC: &str = "Brown et al. 2020, Language Models are Few-Shot Learners (arXiv 2005.14165), Table 2.1 (n_layers, d_model, n_heads, batch size in tokens; n_ctx 2048; 300B training tokens); FFN 4·d_model and tied embeddings as in GPT-2; vocab 50257 padded to 51200 (Narayanan et al. 2021, Table 1)";
const GPT3_SETUP: &str = "paracalc's choice: data parallel on A100 80GB with the distributed optimizer; global batch = the paper's batch in tokens / 2048 rounded to a power of two";
const LLAMA2_SRC: &str = "Touvron et al. 2023, Llama 2 (arXiv 2307.09288), Table 1 (context 4096, GQA for 70B, 2T tokens) and §2.2 (global batch 4M tokens = 1024 × 4096); layer sizes from meta-llama/Llama-2-{7,13,70}b-hf config.json (SwiGLU, vocab 32000, untied)";
const LLAMA2_SETUP: &str = "layouts of NVIDIA NeMo performance_summary.md (container 24.07): 7B TP1 PP1 on 8 H100; 13B TP1 PP4 VP10 on 16; 70B TP4 PP4 VP20 SP on 64; the paper's 1024-sequence batch";
const LLAMA3_SRC: &str = "Llama Team 2024, The Llama 3 Herd of Models (arXiv 2407.21783), Table 3 (layers, model dim, FFN dim, 8 KV heads, vocab 128K, 15T tokens); exact sizes from meta-llama/Meta-Llama-3-8B / -70B and Llama-3.1-405B config.json (vocab 128256, untied); pre-training sequence 8192";
const LLAMA3_SETUP: &str = "NVIDIA dgxc-benchmarking v25.04.01 llama3.1/README.md (H100, bf16): 8B TP1 PP1 CP2 on 8 GPUs, GBS 128; 70B TP4 PP4 CP2 VP5 on 64, GBS 128; 405B TP8 PP8 CP2 VP8 on 512, GBS 256; NeMo performance recipes keep gradients in bf16 (grad_reduce_in_fp32 = False)";

/// Every model preset. Order is the order shown in the app. See the module docs for sources.
pub static MODEL_PRESETS: &[ModelPreset] = &[
    // --- GPT-3 family (Brown et al. 2020, Table 2.1) ---
    preset!(
        "gpt3-125m",
        "GPT-3 125M",
        GPT3_SRC,
        GPT3_SETUP,
    ),
    preset!(
        "gpt3-350m",
        "GPT-3 350M",
        GPT3_SRC,
        GPT3_SETUP,
    ),
    preset!(
        "gpt3-760m",
        "GPT-3 760M",
        GPT3_SRC,
        GPT3_SETUP,
    ),
    // Table 2.1 lists 24 heads of 128 for d_model 2048, which does not divide; 16 heads of 128
    // (as in Megatron-LM and GPT-NeoX 1.3B configs) keep d_model = heads·d_head.
    preset!(
        "gpt3-1.3b",
        "GPT-3 1.3B",
        GPT3_SRC,
        GPT3_SETUP,
    ),
    preset!(
        "gpt3-2.7b",
        "GPT-3 2.7B",
        GPT3_SRC,
        GPT3_SETUP,
    ),
    preset!(
        "gpt3-6.7b",
        "GPT-3 6.7B",
        GPT3_SRC,
        GPT3_SETUP,
    ),
    // Table 2.1 prints d_model 5140 (not divisible by 40 heads); 5120 = 40·128 is the size used
    // by every reimplementation.
    preset!(
        "gpt3-13b",
        "GPT-3 13B",
        GPT3_SRC,
        GPT3_SETUP,
    ),
    preset!(
        "gpt3-175b",
        "GPT-3 175B",
        GPT3_SRC,
        "DESIGN.md's example scenario: TP8 PP16 DP8 on 1024 A100 80GB, selective recomputation with sequence parallelism (Korthikanti et al. 2022, Tables 3-5), batch 1536 = 3.2M tokens (Brown et al. Table 2.1)",
    ),
    // --- Llama 2 ---
    preset!(
        "llama2-7b",
        "Llama 2 7B",
        LLAMA2_SRC,
        LLAMA2_SETUP,
    ),
    preset!(
        "llama2-13b",
        "Llama 2 13B",
        LLAMA2_SRC,
        LLAMA2_SETUP,
    ),
    preset!(
        "llama2-70b",
        "Llama 2 70B",
        LLAMA2_SRC,
        LLAMA2_SETUP,
    ),
    // --- Llama 3 / 3.1 (same architecture; 3.1 extends the context after pre-training) ---
    preset!(
        "llama3-8b",
        "Llama 3 8B",
        LLAMA3_SRC,
        LLAMA3_SETUP,
    ),
    preset!(
        "llama3-70b",
        "Llama 3 70B",
        LLAMA3_SRC,
        LLAMA3_SETUP,
    ),
    preset!(
        "llama3.1-8b",
        "Llama 3.1 8B",
        LLAMA3_SRC,
        LLAMA3_SETUP,
    ),
    preset!(
        "llama3.1-70b",
        "Llama 3.1 70B",
        LLAMA3_SRC,
        LLAMA3_SETUP,
    ),
    // 126 layers on PP8 × VP8 = 64 chunks: (126 + 2) / 64 = 2, the NeMo split (engine::layout).
    preset!(
        "llama3.1-405b",
        "Llama 3.1 405B",
        LLAMA3_SRC,
        LLAMA3_SETUP,
    ),
    // --- Mixture of experts ---
    preset!(
        "mixtral-8x7b",
        "Mixtral 8x7B",
        "Jiang et al. 2024, Mixtral of Experts (arXiv 2401.04088), Table 1: dim 4096, 32 layers, head_dim 128, hidden_dim 14336, 32 heads, 8 KV heads, vocab 32000, 8 experts, top-2; trained context 32768, 4096 used here for pre-training-style runs",
        "paracalc's choice in the style of NeMo's Mixtral 8x7B recipe: TP1 PP4 VP8 EP8 on 64 H100, GBS 256, sequence 4096",
    ),
    preset!(
        "mixtral-8x22b",
        "Mixtral 8x22B",
        "mistralai/Mixtral-8x22B-v0.1 config.json: hidden_size 6144, num_hidden_layers 56, num_attention_heads 48, num_key_value_heads 8, intermediate_size 16384, vocab_size 32768, num_local_experts 8, num_experts_per_tok 2; sequence 4096 used here",
        "paracalc's choice: TP2 PP8 EP8 on 256 H100, GBS 256",
    ),
    // --- Fine-grained MoE with shared experts, MLA and MTP (issue 12) ---
    preset!(
        "deepseek-v3",
        "DeepSeek-V3 671B",
        "deepseek-ai/DeepSeek-V3 config.json: hidden_size 7168, num_hidden_layers 61, num_attention_heads 128, intermediate_size 18432 (first_k_dense_replace 3 dense layers), moe_intermediate_size 2048, n_routed_experts 256, num_experts_per_tok 8, n_shared_experts 1, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, num_nextn_predict_layers 1, vocab_size 129280, untied; DeepSeek-V3 Technical Report (arXiv 2412.19437) §2, §4.2: sequence 4096, 14.8T tokens",
        "DeepSeek-V3 Technical Report (arXiv 2412.19437) §3.1-3.3, §4.2: 2048 H800 GPUs (8 per node), 16-way pipeline, 64-way expert parallel over 8 nodes, ZeRO-1 data parallel, no tensor parallel, FP8 mixed precision, batch 15360 sequences of 4096 after warm-up. Two differences from the report, as the form shows them: the pipeline schedule is the default 1F1B (the report runs DualPipe: pick it under Schedule), and the recomputation is Megatron's selective default, core attention (the report recomputes RMSNorm, the MLA up-projections and the SwiGLU output: tick those under Recompute modules)",
    ),
    preset!(
        "deepseek-v3-report",
        "DeepSeek-V3 671B (report plan)",
        "as deepseek-v3; model.moe.expert_groups 8 and group_limit 4 from config.json n_group and topk_group (node-limited routing, report §2.1.2)",
        "DeepSeek-V3 Technical Report (arXiv 2412.19437) §3.2-3.3, §4.2, the plan as the report runs it: 2048 H800 (8 per node), DualPipe over 16 pipeline ranks, 64-way expert parallel over 8 nodes with all-to-all kernels that cross InfiniBand once per node (DeepEP-style) and routing limited to 4 nodes, ZeRO-1, no tensor parallel; FP8 with 1x128 activation tiles and 128x128 weight blocks (blockwise), the SwiGLU input cached in FP8 and its output recomputed (moe_act), RMSNorm and MLA up-projections recomputed (layernorm, mla_up_proj), BF16 Adam moments; the MTP module shares the embedding and output head, which DualPipe puts on one rank; batch 15360 sequences of 4096. The same plan as tests/data/extra.json moe_deepseek_v3_report but for the report's FP8 dispatch (section 3.3.2), a field added after the v1 link format froze this preset: add dfp8=1 (parallel.moe_dispatch_fp8). deepseek-v3 keeps the v1 link plan (1F1B, all-to-all, core_attn)",
    ),
    preset!(
        "qwen3-30b-a3b",
        "Qwen3-30B-A3B",
        "Qwen/Qwen3-30B-A3B config.json: num_hidden_layers 48, hidden_size 2048, num_attention_heads 32, num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 768, vocab_size 151936, tie_word_embeddings false; model card: 30.5B total, 3.3B activated",
        "paracalc's choice after NVIDIA-NeMo/Automodel docs/performance-summary.md (e45812012), row 'Qwen3 MoE 30B' (DGX-H100, BF16: 8 GPUs, GBS 512, MBS 4, seq 4096, EP 8, FSDP 8): 16 GPUs so that the expert states shard over 2 expert-data-parallel ranks, and full activation recomputation (without it the 4×4096-token micro-batch's dispatched expert activations alone exceed 80 GB)",
    ),
    preset!(
        "qwen3-235b-a22b",
        "Qwen3-235B-A22B",
        "Qwen/Qwen3-235B-A22B config.json: num_hidden_layers 94, hidden_size 4096, num_attention_heads 64, num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 1536, vocab_size 151936, untied; model card: 235B total, 22B activated",
        "paracalc's choice: TP2 PP8 EP32 (expert TP 1, folded over TP·DP) on 256 H100, GBS 1024, sequence 4096",
    ),
    preset!(
        "gpt-oss-120b",
        "gpt-oss-120b",
        "openai/gpt-oss-120b config.json: num_hidden_layers 36, hidden_size 2880, num_attention_heads 64, num_key_value_heads 8, head_dim 64, num_local_experts 128, num_experts_per_tok 4, intermediate_size 2880, vocab_size 201088; OpenAI gpt-oss model card: 116.83B total, 5.13B active; alternating 128-token sliding-window attention and attention sinks are priced as full attention",
        "paracalc's choice after NVIDIA-NeMo/Automodel docs/performance-summary.md (e45812012), row 'GPT-OSS 120B': 64 H100, GBS 512, MBS 2, seq 4096, FSDP 64; EP 8 and full activation recomputation chosen here (to fit 80 GB)",
    ),
    preset!(
        "gpt-oss-20b",
        "gpt-oss-20b",
        "openai/gpt-oss-20b config.json: num_hidden_layers 24, hidden_size 2880, num_attention_heads 64, num_key_value_heads 8, head_dim 64, num_local_experts 32, num_experts_per_tok 4, intermediate_size 2880, vocab_size 201088; OpenAI gpt-oss model card: 20.91B total, 3.61B active",
        "paracalc's choice after NVIDIA-NeMo/Automodel docs/performance-summary.md (e45812012), row 'GPT-OSS 20B': 8 H100, GBS 256, MBS 2, seq 4096, FSDP 8; EP 8 and full activation recomputation chosen here (to fit 80 GB)",
    ),
    preset!(
        "llama4-maverick",
        "Llama 4 Maverick 400B",
        "meta-llama/Llama-4-Maverick-17B-128E text_config: num_hidden_layers 48, hidden_size 5120, num_attention_heads 40, num_key_value_heads 8, head_dim 128, num_local_experts 128, num_experts_per_tok 1, intermediate_size 8192 (experts and the shared expert), intermediate_size_mlp 16384 (dense layers), interleave_moe_layer_step 2, vocab_size 202048",
        "NVIDIA dgxc-benchmarking v25.05.05 llama4/README.md (H100 row): 512 GPUs, TP 4, PP 1, EP 128, ETP 4, GBS 1024, MBS 1, sequence 8192",
    ),
    // --- Other large dense models people train or reproduce ---
    preset!(
        "bloom-176b",
        "BLOOM-176B",
        "BigScience 2022, BLOOM (arXiv 2211.05100), §3.2 and the model-size table (70 layers, 112 heads, hidden 14336, sequence 2048, 366B tokens); bigscience/bloom config.json (vocab 250880 = 250680 padded, tied embeddings, GELU)",
        "the production run: bigscience tr11-176B-ml README (384 A100 80GB, TP4 PP12 DP8, micro-batch 2, global batch 2048, bf16, ZeRO-1, activation checkpointing)",
    ),
    // Squared-ReLU MLP: two h×f GEMMs like GELU, so ffn_act "gelu" (the non-gated shape).
    preset!(
        "nemotron4-340b",
        "Nemotron-4 340B",
        "NVIDIA 2024, Nemotron-4 340B Technical Report (arXiv 2406.11704), Table 1: 96 layers, hidden 18432, 96 heads, 8 KV heads, sequence 4096, vocab 256000, squared-ReLU MLP (4h), untied; 9T tokens",
        "the same report, Table 2: TP8 PP12 DP64 on 6144 H100, batch 2304",
    ),
    preset!(
        "qwen2-72b",
        "Qwen2 72B",
        "Qwen Team 2024, Qwen2 Technical Report (arXiv 2407.10671), Table 1 and §3 (pre-training context 4096, 7T tokens); Qwen/Qwen2-72B config.json (hidden 8192, 80 layers, 64 heads, 8 KV heads, intermediate 29568, vocab 152064, untied)",
        "paracalc's choice: TP8 PP4 DP4 on 128 H100",
    ),
    preset!(
        "mistral-7b",
        "Mistral 7B",
        "Jiang et al. 2023, Mistral 7B (arXiv 2310.06825), Table 1: dim 4096, 32 layers, head_dim 128, hidden_dim 14336, 32 heads, 8 KV heads, context 8192, vocab 32000",
        "paracalc's choice: TP2 DP4 on 8 H100",
    ),
    preset!(
        "falcon-40b",
        "Falcon-40B",
        "tiiuae/falcon-40b config.json (hidden_size 8192, 60 layers, 128 heads, 8 KV groups, vocab 65024, GELU MLP of 4h, tied embeddings) and model card (sequence 2048, 1T tokens)",
        "the model card: 384 A100 40GB, 3D parallelism TP8 PP4 DP12 with ZeRO, batch 1152; full recomputation is paracalc's choice",
    ),
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
