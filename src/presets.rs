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
//! | `deepseek-v3` | `deepseek-ai/DeepSeek-V3` `config.json`; DeepSeek-V3 Technical Report (arXiv 2412.19437) | the report's 2048-H800 layout (PP16, EP64, ZeRO-1, FP8) |
//! | `deepseek-v3-report` | as `deepseek-v3` | the report's plan as it describes it (§3.2-3.3: DualPipe, DeepEP-style node-limited dispatch, blockwise FP8, its recomputation and BF16 moments); `deepseek-v3` keeps the v1 link plan (1F1B, all-to-all) |
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
//! Presets are plain text data: names are rendered as text only.

use crate::scenario::{
    Cluster, FfnAct, Fp8Recipe, GpuChoice, Mla, Model, Moe, MoeDispatcher, Optimizer,
    OptimizerStates, Overhead, Parallel, Precision, Recompute, RecomputeModules, Scenario,
    Schedule, Training,
};

/// The architecture part of a model preset (the numbers of [`Model`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arch {
    /// Transformer layers.
    pub layers: u64,
    /// Hidden size.
    pub hidden: u64,
    /// Attention heads.
    pub heads: u64,
    /// Key/value heads (GQA).
    pub kv_heads: u64,
    /// FFN inner size (for MoE models: one expert's).
    pub ffn_hidden: u64,
    /// FFN activation.
    pub ffn_act: FfnAct,
    /// Vocabulary as trained (padded where the framework pads).
    pub vocab: u64,
    /// Sequence length used in (pre)training.
    pub seq_len: u64,
    /// Whether the output layer shares the embedding's weights.
    pub tied_embeddings: bool,
    /// Mixture-of-experts settings.
    pub moe: Option<Moe>,
    /// Head dimension where it is not `hidden/heads` (Qwen3, gpt-oss, Llama 4).
    pub head_dim: Option<u64>,
    /// Multi-head latent attention (DeepSeek-V3).
    pub mla: Option<Mla>,
    /// Multi-token prediction modules (DeepSeek-V3: 1).
    pub mtp_layers: Option<u64>,
}

/// The training setup, layout and cluster of a model preset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    /// Sequences per step.
    pub global_batch: u64,
    /// Sequences per micro-batch.
    pub micro_batch: u64,
    /// Number format.
    pub precision: Precision,
    /// Activation recomputation.
    pub recompute: Recompute,
    /// FlashAttention.
    pub flash_attention: bool,
    /// Tokens the model was trained on, where published.
    pub train_tokens: Option<f64>,
    /// Tensor parallel.
    pub tp: u64,
    /// Pipeline parallel.
    pub pp: u64,
    /// Data parallel.
    pub dp: u64,
    /// Context parallel.
    pub cp: u64,
    /// Expert parallel.
    pub ep: u64,
    /// Virtual pipeline chunks.
    pub vp: u64,
    /// Megatron sequence parallelism.
    pub sp: bool,
    /// ZeRO stage.
    pub zero_stage: u8,
    /// GPU preset id.
    pub gpu: &'static str,
    /// `training.grad_reduce_in_fp32`; `None` = paracalc's default (fp32 gradients).
    pub grad_reduce_in_fp32: Option<bool>,
    /// GPUs per node.
    pub gpus_per_node: u64,
    /// Expert tensor parallel; `None` = `tp` (Megatron-Core's default).
    pub etp: Option<u64>,
    /// The settings of a published plan beyond the common ones; [`Tuning::NONE`] = defaults.
    pub tuning: Tuning,
}

/// Settings a published plan states beyond the common setup (each `None` = the scenario's
/// default).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tuning {
    /// `parallel.schedule`.
    pub schedule: Option<Schedule>,
    /// `parallel.moe_dispatcher`.
    pub moe_dispatcher: Option<MoeDispatcher>,
    /// `training.fp8_recipe`.
    pub fp8_recipe: Option<Fp8Recipe>,
    /// `training.recompute_modules`.
    pub recompute_modules: Option<RecomputeModules>,
    /// `training.optimizer_states`.
    pub optimizer_states: Option<OptimizerStates>,
    /// `training.swiglu_fp8_input`.
    pub swiglu_fp8_input: Option<bool>,
}

impl Tuning {
    /// Every setting at its default.
    pub const NONE: Tuning = Tuning {
        schedule: None,
        moe_dispatcher: None,
        fp8_recipe: None,
        recompute_modules: None,
        optimizer_states: None,
        swiglu_fp8_input: None,
    };
}

/// A model preset: a complete default scenario with its sources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelPreset {
    /// Stable id used in share links (`model=llama3-70b`). Never renamed.
    pub id: &'static str,
    /// Display name (plain text).
    pub name: &'static str,
    /// Architecture numbers.
    pub arch: Arch,
    /// Training setup, layout and cluster.
    pub setup: Setup,
    /// Where the architecture numbers come from.
    pub source: &'static str,
    /// Where the setup comes from ("paracalc's choice" when not a published run).
    pub setup_source: &'static str,
}

impl ModelPreset {
    /// The preset as a full scenario. `num_gpus = tp·pp·dp·cp`.
    pub fn scenario(&self) -> Scenario {
        let a = &self.arch;
        let t = &self.setup;
        Scenario {
            model: Model {
                name: self.name.to_string(),
                layers: a.layers,
                hidden: a.hidden,
                heads: a.heads,
                kv_heads: Some(a.kv_heads),
                ffn_hidden: Some(a.ffn_hidden),
                ffn_act: a.ffn_act,
                vocab: a.vocab,
                seq_len: a.seq_len,
                tied_embeddings: a.tied_embeddings,
                moe: a.moe,
                head_dim: a.head_dim,
                mla: a.mla,
                mtp_layers: a.mtp_layers,
            },
            training: Training {
                global_batch: t.global_batch,
                micro_batch: t.micro_batch,
                precision: t.precision,
                optimizer: Optimizer::Adam,
                recompute: t.recompute,
                flash_attention: t.flash_attention,
                train_tokens: t.train_tokens,
                grad_reduce_in_fp32: t.grad_reduce_in_fp32,
                fp8_recipe: t.tuning.fp8_recipe,
                recompute_modules: t.tuning.recompute_modules,
                optimizer_states: t.tuning.optimizer_states,
                swiglu_fp8_input: t.tuning.swiglu_fp8_input,
                ..Training::default()
            },
            parallel: Parallel {
                tp: t.tp,
                pp: t.pp,
                dp: t.dp,
                cp: t.cp,
                ep: t.ep,
                vp: t.vp,
                sp: t.sp,
                zero_stage: t.zero_stage,
                etp: t.etp,
                schedule: t.tuning.schedule,
                moe_dispatcher: t.tuning.moe_dispatcher,
                ..Parallel::default()
            },
            cluster: Cluster {
                gpu: GpuChoice::Preset(t.gpu.to_string()),
                num_gpus: t.tp * t.pp * t.dp * t.cp,
                gpus_per_node: t.gpus_per_node,
                ..Cluster::default()
            },
            overhead: Overhead::default(),
            calibration: Default::default(),
        }
    }
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

/// The three numbers that tell GPT-3 sizes apart (Brown et al. 2020, Table 2.1).
struct Gpt3 {
    layers: u64,
    hidden: u64,
    heads: u64,
}

/// A GPT-3 architecture: GELU FFN of 4h, tied embeddings, 2048 tokens, the GPT-2 BPE (50 257)
/// padded to 51 200 as in Megatron-LM's GPT runs (Narayanan et al. 2021, Table 1 uses V = 51 200).
const fn gpt3(g: Gpt3) -> Arch {
    Arch {
        layers: g.layers,
        hidden: g.hidden,
        heads: g.heads,
        kv_heads: g.heads,
        ffn_hidden: 4 * g.hidden,
        ffn_act: FfnAct::Gelu,
        vocab: 51200,
        seq_len: 2048,
        tied_embeddings: true,
        moe: None,
        head_dim: None,
        mla: None,
        mtp_layers: None,
    }
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
    ModelPreset {
        id: "gpt3-125m",
        name: "GPT-3 125M",
        arch: gpt3(Gpt3 {
            layers: 12,
            hidden: 768,
            heads: 12,
        }),
        setup: Setup {
            global_batch: 256,
            micro_batch: 8,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(300e9),
            tp: 1,
            pp: 1,
            dp: 8,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: GPT3_SRC,
        setup_source: GPT3_SETUP,
    },
    ModelPreset {
        id: "gpt3-350m",
        name: "GPT-3 350M",
        arch: gpt3(Gpt3 {
            layers: 24,
            hidden: 1024,
            heads: 16,
        }),
        setup: Setup {
            global_batch: 256,
            micro_batch: 8,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(300e9),
            tp: 1,
            pp: 1,
            dp: 8,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: GPT3_SRC,
        setup_source: GPT3_SETUP,
    },
    ModelPreset {
        id: "gpt3-760m",
        name: "GPT-3 760M",
        arch: gpt3(Gpt3 {
            layers: 24,
            hidden: 1536,
            heads: 16,
        }),
        setup: Setup {
            global_batch: 256,
            micro_batch: 4,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(300e9),
            tp: 1,
            pp: 1,
            dp: 8,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: GPT3_SRC,
        setup_source: GPT3_SETUP,
    },
    // Table 2.1 lists 24 heads of 128 for d_model 2048, which does not divide; 16 heads of 128
    // (as in Megatron-LM and GPT-NeoX 1.3B configs) keep d_model = heads·d_head.
    ModelPreset {
        id: "gpt3-1.3b",
        name: "GPT-3 1.3B",
        arch: gpt3(Gpt3 {
            layers: 24,
            hidden: 2048,
            heads: 16,
        }),
        setup: Setup {
            global_batch: 512,
            micro_batch: 4,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(300e9),
            tp: 1,
            pp: 1,
            dp: 16,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: GPT3_SRC,
        setup_source: GPT3_SETUP,
    },
    ModelPreset {
        id: "gpt3-2.7b",
        name: "GPT-3 2.7B",
        arch: gpt3(Gpt3 {
            layers: 32,
            hidden: 2560,
            heads: 32,
        }),
        setup: Setup {
            global_batch: 512,
            micro_batch: 4,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(300e9),
            tp: 1,
            pp: 1,
            dp: 32,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: GPT3_SRC,
        setup_source: GPT3_SETUP,
    },
    ModelPreset {
        id: "gpt3-6.7b",
        name: "GPT-3 6.7B",
        arch: gpt3(Gpt3 {
            layers: 32,
            hidden: 4096,
            heads: 32,
        }),
        setup: Setup {
            global_batch: 1024,
            micro_batch: 2,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(300e9),
            tp: 2,
            pp: 1,
            dp: 32,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: GPT3_SRC,
        setup_source: GPT3_SETUP,
    },
    // Table 2.1 prints d_model 5140 (not divisible by 40 heads); 5120 = 40·128 is the size used
    // by every reimplementation.
    ModelPreset {
        id: "gpt3-13b",
        name: "GPT-3 13B",
        arch: gpt3(Gpt3 {
            layers: 40,
            hidden: 5120,
            heads: 40,
        }),
        setup: Setup {
            global_batch: 1024,
            micro_batch: 2,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(300e9),
            tp: 4,
            pp: 1,
            dp: 32,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: GPT3_SRC,
        setup_source: GPT3_SETUP,
    },
    ModelPreset {
        id: "gpt3-175b",
        name: "GPT-3 175B",
        arch: gpt3(Gpt3 {
            layers: 96,
            hidden: 12288,
            heads: 96,
        }),
        setup: Setup {
            global_batch: 1536,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::Selective,
            flash_attention: false,
            train_tokens: Some(300e9),
            tp: 8,
            pp: 16,
            dp: 8,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: GPT3_SRC,
        setup_source: "DESIGN.md's example scenario: TP8 PP16 DP8 on 1024 A100 80GB, selective recomputation with sequence parallelism (Korthikanti et al. 2022, Tables 3-5), batch 1536 = 3.2M tokens (Brown et al. Table 2.1)",
    },
    // --- Llama 2 ---
    ModelPreset {
        id: "llama2-7b",
        name: "Llama 2 7B",
        arch: Arch {
            layers: 32,
            hidden: 4096,
            heads: 32,
            kv_heads: 32,
            ffn_hidden: 11008,
            ffn_act: FfnAct::Swiglu,
            vocab: 32000,
            seq_len: 4096,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 1024,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(2e12),
            tp: 1,
            pp: 1,
            dp: 8,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: LLAMA2_SRC,
        setup_source: LLAMA2_SETUP,
    },
    ModelPreset {
        id: "llama2-13b",
        name: "Llama 2 13B",
        arch: Arch {
            layers: 40,
            hidden: 5120,
            heads: 40,
            kv_heads: 40,
            ffn_hidden: 13824,
            ffn_act: FfnAct::Swiglu,
            vocab: 32000,
            seq_len: 4096,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 1024,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(2e12),
            tp: 1,
            pp: 4,
            dp: 4,
            cp: 1,
            ep: 1,
            vp: 10,
            sp: false,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: LLAMA2_SRC,
        setup_source: LLAMA2_SETUP,
    },
    ModelPreset {
        id: "llama2-70b",
        name: "Llama 2 70B",
        arch: Arch {
            layers: 80,
            hidden: 8192,
            heads: 64,
            kv_heads: 8,
            ffn_hidden: 28672,
            ffn_act: FfnAct::Swiglu,
            vocab: 32000,
            seq_len: 4096,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 1024,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(2e12),
            tp: 4,
            pp: 4,
            dp: 4,
            cp: 1,
            ep: 1,
            vp: 20,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: LLAMA2_SRC,
        setup_source: LLAMA2_SETUP,
    },
    // --- Llama 3 / 3.1 (same architecture; 3.1 extends the context after pre-training) ---
    ModelPreset {
        id: "llama3-8b",
        name: "Llama 3 8B",
        arch: Arch {
            layers: 32,
            hidden: 4096,
            heads: 32,
            kv_heads: 8,
            ffn_hidden: 14336,
            ffn_act: FfnAct::Swiglu,
            vocab: 128256,
            seq_len: 8192,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 128,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(15e12),
            tp: 1,
            pp: 1,
            dp: 4,
            cp: 2,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: Some(false),
            etp: None,
            tuning: Tuning::NONE,
        },
        source: LLAMA3_SRC,
        setup_source: LLAMA3_SETUP,
    },
    ModelPreset {
        id: "llama3-70b",
        name: "Llama 3 70B",
        arch: Arch {
            layers: 80,
            hidden: 8192,
            heads: 64,
            kv_heads: 8,
            ffn_hidden: 28672,
            ffn_act: FfnAct::Swiglu,
            vocab: 128256,
            seq_len: 8192,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 128,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(15e12),
            tp: 4,
            pp: 4,
            dp: 2,
            cp: 2,
            ep: 1,
            vp: 5,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: Some(false),
            etp: None,
            tuning: Tuning::NONE,
        },
        source: LLAMA3_SRC,
        setup_source: LLAMA3_SETUP,
    },
    ModelPreset {
        id: "llama3.1-8b",
        name: "Llama 3.1 8B",
        arch: Arch {
            layers: 32,
            hidden: 4096,
            heads: 32,
            kv_heads: 8,
            ffn_hidden: 14336,
            ffn_act: FfnAct::Swiglu,
            vocab: 128256,
            seq_len: 8192,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 128,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(15e12),
            tp: 1,
            pp: 1,
            dp: 4,
            cp: 2,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: Some(false),
            etp: None,
            tuning: Tuning::NONE,
        },
        source: LLAMA3_SRC,
        setup_source: LLAMA3_SETUP,
    },
    ModelPreset {
        id: "llama3.1-70b",
        name: "Llama 3.1 70B",
        arch: Arch {
            layers: 80,
            hidden: 8192,
            heads: 64,
            kv_heads: 8,
            ffn_hidden: 28672,
            ffn_act: FfnAct::Swiglu,
            vocab: 128256,
            seq_len: 8192,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 128,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(15e12),
            tp: 4,
            pp: 4,
            dp: 2,
            cp: 2,
            ep: 1,
            vp: 5,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: Some(false),
            etp: None,
            tuning: Tuning::NONE,
        },
        source: LLAMA3_SRC,
        setup_source: LLAMA3_SETUP,
    },
    // 126 layers on PP8 × VP8 = 64 chunks: (126 + 2) / 64 = 2, the NeMo split (engine::layout).
    ModelPreset {
        id: "llama3.1-405b",
        name: "Llama 3.1 405B",
        arch: Arch {
            layers: 126,
            hidden: 16384,
            heads: 128,
            kv_heads: 8,
            ffn_hidden: 53248,
            ffn_act: FfnAct::Swiglu,
            vocab: 128256,
            seq_len: 8192,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 256,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(15.6e12),
            tp: 8,
            pp: 8,
            dp: 4,
            cp: 2,
            ep: 1,
            vp: 8,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: Some(false),
            etp: None,
            tuning: Tuning::NONE,
        },
        source: LLAMA3_SRC,
        setup_source: LLAMA3_SETUP,
    },
    // --- Mixture of experts ---
    ModelPreset {
        id: "mixtral-8x7b",
        name: "Mixtral 8x7B",
        arch: Arch {
            moe: Some(Moe::new(8, 2, 14336)),
            ..Arch {
                layers: 32,
                hidden: 4096,
                heads: 32,
                kv_heads: 8,
                ffn_hidden: 14336,
                ffn_act: FfnAct::Swiglu,
                vocab: 32000,
                seq_len: 4096,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 256,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: None,
            tp: 1,
            pp: 4,
            dp: 16,
            cp: 1,
            ep: 8,
            vp: 8,
            sp: false,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "Jiang et al. 2024, Mixtral of Experts (arXiv 2401.04088), Table 1: dim 4096, 32 layers, head_dim 128, hidden_dim 14336, 32 heads, 8 KV heads, vocab 32000, 8 experts, top-2; trained context 32768, 4096 used here for pre-training-style runs",
        setup_source: "paracalc's choice in the style of NeMo's Mixtral 8x7B recipe: TP1 PP4 VP8 EP8 on 64 H100, GBS 256, sequence 4096",
    },
    ModelPreset {
        id: "mixtral-8x22b",
        name: "Mixtral 8x22B",
        arch: Arch {
            moe: Some(Moe::new(8, 2, 16384)),
            ..Arch {
                layers: 56,
                hidden: 6144,
                heads: 48,
                kv_heads: 8,
                ffn_hidden: 16384,
                ffn_act: FfnAct::Swiglu,
                vocab: 32768,
                seq_len: 4096,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 256,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: None,
            tp: 2,
            pp: 8,
            dp: 16,
            cp: 1,
            ep: 8,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "mistralai/Mixtral-8x22B-v0.1 config.json: hidden_size 6144, num_hidden_layers 56, num_attention_heads 48, num_key_value_heads 8, intermediate_size 16384, vocab_size 32768, num_local_experts 8, num_experts_per_tok 2; sequence 4096 used here",
        setup_source: "paracalc's choice: TP2 PP8 EP8 on 256 H100, GBS 256",
    },
    // --- Fine-grained MoE with shared experts, MLA and MTP (issue 12) ---
    ModelPreset {
        id: "deepseek-v3",
        name: "DeepSeek-V3 671B",
        arch: Arch {
            moe: Some(Moe {
                shared_experts: Some(1),
                dense_layers: Some(3),
                ..Moe::new(256, 8, 2048)
            }),
            mla: Some(Mla {
                q_lora_rank: 1536,
                kv_lora_rank: 512,
                qk_nope_head_dim: 128,
                qk_rope_head_dim: 64,
                v_head_dim: 128,
            }),
            mtp_layers: Some(1),
            ..Arch {
                layers: 61,
                hidden: 7168,
                heads: 128,
                kv_heads: 128,
                ffn_hidden: 18432,
                ffn_act: FfnAct::Swiglu,
                vocab: 129280,
                seq_len: 4096,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 15360,
            micro_batch: 1,
            precision: Precision::Fp8,
            recompute: Recompute::Selective,
            flash_attention: true,
            train_tokens: Some(14.8e12),
            tp: 1,
            pp: 16,
            dp: 128,
            cp: 1,
            ep: 64,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "h800-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: Some(1),
            tuning: Tuning::NONE,
        },
        source: "deepseek-ai/DeepSeek-V3 config.json: hidden_size 7168, num_hidden_layers 61, num_attention_heads 128, intermediate_size 18432 (first_k_dense_replace 3 dense layers), moe_intermediate_size 2048, n_routed_experts 256, num_experts_per_tok 8, n_shared_experts 1, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, num_nextn_predict_layers 1, vocab_size 129280, untied; DeepSeek-V3 Technical Report (arXiv 2412.19437) §2, §4.2: sequence 4096, 14.8T tokens",
        setup_source: "DeepSeek-V3 Technical Report (arXiv 2412.19437) §3.1-3.3, §4.2: 2048 H800 GPUs (8 per node), 16-way pipeline, 64-way expert parallel over 8 nodes, ZeRO-1 data parallel, no tensor parallel, FP8 mixed precision, RMSNorm and MLA up-projections recomputed (selective), batch 15360 sequences of 4096 after warm-up; DualPipe is priced as 1F1B",
    },
    ModelPreset {
        id: "deepseek-v3-report",
        name: "DeepSeek-V3 671B (report plan)",
        arch: Arch {
            moe: Some(Moe {
                shared_experts: Some(1),
                dense_layers: Some(3),
                expert_groups: Some(8),
                group_limit: Some(4),
                ..Moe::new(256, 8, 2048)
            }),
            mla: Some(Mla {
                q_lora_rank: 1536,
                kv_lora_rank: 512,
                qk_nope_head_dim: 128,
                qk_rope_head_dim: 64,
                v_head_dim: 128,
            }),
            mtp_layers: Some(1),
            ..Arch {
                layers: 61,
                hidden: 7168,
                heads: 128,
                kv_heads: 128,
                ffn_hidden: 18432,
                ffn_act: FfnAct::Swiglu,
                vocab: 129280,
                seq_len: 4096,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 15360,
            micro_batch: 1,
            precision: Precision::Fp8,
            recompute: Recompute::Selective,
            flash_attention: true,
            train_tokens: Some(14.8e12),
            tp: 1,
            pp: 16,
            dp: 128,
            cp: 1,
            ep: 64,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "h800-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: Some(1),
            tuning: Tuning {
                schedule: Some(Schedule::DualPipe),
                moe_dispatcher: Some(MoeDispatcher::Deepep),
                fp8_recipe: Some(Fp8Recipe::Blockwise),
                recompute_modules: Some(
                    RecomputeModules::MLA_UP_PROJ
                        .with(RecomputeModules::LAYERNORM)
                        .with(RecomputeModules::MOE_ACT),
                ),
                optimizer_states: Some(OptimizerStates::Bf16),
                swiglu_fp8_input: Some(true),
            },
        },
        source: "deepseek-ai/DeepSeek-V3 config.json: hidden_size 7168, num_hidden_layers 61, num_attention_heads 128, intermediate_size 18432 (first_k_dense_replace 3 dense layers), moe_intermediate_size 2048, n_routed_experts 256, num_experts_per_tok 8, n_shared_experts 1, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, num_nextn_predict_layers 1, vocab_size 129280, untied; DeepSeek-V3 Technical Report (arXiv 2412.19437) §2, §4.2: sequence 4096, 14.8T tokens",
        setup_source: "DeepSeek-V3 Technical Report (arXiv 2412.19437) §3.1-3.3, §4.2: 2048 H800 GPUs (8 per node), 16-way pipeline, 64-way expert parallel over 8 nodes, ZeRO-1 data parallel, no tensor parallel, DualPipe; all-to-all crossing InfiniBand once per node (DeepEP) with node-limited routing (8 groups, 4 per token, config.json n_group/topk_group); FP8 with 1x128 activation tiles and 128x128 weight blocks (blockwise), the SwiGLU input cached in FP8 and its output recomputed (moe_act), RMSNorm and MLA up-projections recomputed (layernorm, mla_up_proj), BF16 Adam moments; batch 15360 sequences of 4096 after warm-up; the MTP module shares the embedding and output head (one copy, on the rank DualPipe gives both)",
    },
    ModelPreset {
        id: "qwen3-30b-a3b",
        name: "Qwen3-30B-A3B",
        arch: Arch {
            moe: Some(Moe::new(128, 8, 768)),
            head_dim: Some(128),
            ..Arch {
                layers: 48,
                hidden: 2048,
                heads: 32,
                kv_heads: 4,
                ffn_hidden: 6144,
                ffn_act: FfnAct::Swiglu,
                vocab: 151936,
                seq_len: 4096,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 512,
            micro_batch: 4,
            precision: Precision::Bf16,
            recompute: Recompute::Full,
            flash_attention: true,
            train_tokens: None,
            tp: 1,
            pp: 1,
            dp: 16,
            cp: 1,
            ep: 8,
            vp: 1,
            sp: false,
            zero_stage: 3,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "Qwen/Qwen3-30B-A3B config.json: num_hidden_layers 48, hidden_size 2048, num_attention_heads 32, num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 768, vocab_size 151936, tie_word_embeddings false; model card: 30.5B total, 3.3B activated",
        setup_source: "paracalc's choice after NVIDIA-NeMo/Automodel docs/performance-summary.md (e45812012), row 'Qwen3 MoE 30B' (DGX-H100, BF16: 8 GPUs, GBS 512, MBS 4, seq 4096, EP 8, FSDP 8): 16 GPUs so that the expert states shard over 2 expert-data-parallel ranks, and full activation recomputation (without it the 4×4096-token micro-batch's dispatched expert activations alone exceed 80 GB)",
    },
    ModelPreset {
        id: "qwen3-235b-a22b",
        name: "Qwen3-235B-A22B",
        arch: Arch {
            moe: Some(Moe::new(128, 8, 1536)),
            head_dim: Some(128),
            ..Arch {
                layers: 94,
                hidden: 4096,
                heads: 64,
                kv_heads: 4,
                ffn_hidden: 12288,
                ffn_act: FfnAct::Swiglu,
                vocab: 151936,
                seq_len: 4096,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 1024,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::Selective,
            flash_attention: true,
            train_tokens: None,
            tp: 2,
            pp: 8,
            dp: 16,
            cp: 1,
            ep: 32,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: Some(1),
            tuning: Tuning::NONE,
        },
        source: "Qwen/Qwen3-235B-A22B config.json: num_hidden_layers 94, hidden_size 4096, num_attention_heads 64, num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 1536, vocab_size 151936, untied; model card: 235B total, 22B activated",
        setup_source: "paracalc's choice: TP2 PP8 EP32 (expert TP 1, folded over TP·DP) on 256 H100, GBS 1024, sequence 4096",
    },
    ModelPreset {
        id: "gpt-oss-120b",
        name: "gpt-oss-120b",
        arch: Arch {
            moe: Some(Moe::new(128, 4, 2880)),
            head_dim: Some(64),
            ..Arch {
                layers: 36,
                hidden: 2880,
                heads: 64,
                kv_heads: 8,
                ffn_hidden: 2880,
                ffn_act: FfnAct::Swiglu,
                vocab: 201088,
                seq_len: 4096,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 512,
            micro_batch: 2,
            precision: Precision::Bf16,
            recompute: Recompute::Full,
            flash_attention: true,
            train_tokens: None,
            tp: 1,
            pp: 1,
            dp: 64,
            cp: 1,
            ep: 8,
            vp: 1,
            sp: false,
            zero_stage: 3,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "openai/gpt-oss-120b config.json: num_hidden_layers 36, hidden_size 2880, num_attention_heads 64, num_key_value_heads 8, head_dim 64, num_local_experts 128, num_experts_per_tok 4, intermediate_size 2880, vocab_size 201088; OpenAI gpt-oss model card: 116.83B total, 5.13B active; alternating 128-token sliding-window attention and attention sinks are priced as full attention",
        setup_source: "paracalc's choice after NVIDIA-NeMo/Automodel docs/performance-summary.md (e45812012), row 'GPT-OSS 120B': 64 H100, GBS 512, MBS 2, seq 4096, FSDP 64; EP 8 and full activation recomputation chosen here (to fit 80 GB)",
    },
    ModelPreset {
        id: "gpt-oss-20b",
        name: "gpt-oss-20b",
        arch: Arch {
            moe: Some(Moe::new(32, 4, 2880)),
            head_dim: Some(64),
            ..Arch {
                layers: 24,
                hidden: 2880,
                heads: 64,
                kv_heads: 8,
                ffn_hidden: 2880,
                ffn_act: FfnAct::Swiglu,
                vocab: 201088,
                seq_len: 4096,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 256,
            micro_batch: 2,
            precision: Precision::Bf16,
            recompute: Recompute::Full,
            flash_attention: true,
            train_tokens: None,
            tp: 1,
            pp: 1,
            dp: 8,
            cp: 1,
            ep: 8,
            vp: 1,
            sp: false,
            zero_stage: 3,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "openai/gpt-oss-20b config.json: num_hidden_layers 24, hidden_size 2880, num_attention_heads 64, num_key_value_heads 8, head_dim 64, num_local_experts 32, num_experts_per_tok 4, intermediate_size 2880, vocab_size 201088; OpenAI gpt-oss model card: 20.91B total, 3.61B active",
        setup_source: "paracalc's choice after NVIDIA-NeMo/Automodel docs/performance-summary.md (e45812012), row 'GPT-OSS 20B': 8 H100, GBS 256, MBS 2, seq 4096, FSDP 8; EP 8 and full activation recomputation chosen here (to fit 80 GB)",
    },
    ModelPreset {
        id: "llama4-maverick",
        name: "Llama 4 Maverick 400B",
        arch: Arch {
            moe: Some(Moe {
                shared_experts: Some(1),
                moe_every: Some(2),
                ..Moe::new(128, 1, 8192)
            }),
            head_dim: Some(128),
            ..Arch {
                layers: 48,
                hidden: 5120,
                heads: 40,
                kv_heads: 8,
                ffn_hidden: 16384,
                ffn_act: FfnAct::Swiglu,
                vocab: 202048,
                seq_len: 8192,
                tied_embeddings: false,
                moe: None,
                head_dim: None,
                mla: None,
                mtp_layers: None,
            }
        },
        setup: Setup {
            global_batch: 1024,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: None,
            tp: 4,
            pp: 1,
            dp: 128,
            cp: 1,
            ep: 128,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: Some(4),
            tuning: Tuning::NONE,
        },
        source: "meta-llama/Llama-4-Maverick-17B-128E text_config: num_hidden_layers 48, hidden_size 5120, num_attention_heads 40, num_key_value_heads 8, head_dim 128, num_local_experts 128, num_experts_per_tok 1, intermediate_size 8192 (experts and the shared expert), intermediate_size_mlp 16384 (dense layers), interleave_moe_layer_step 2, vocab_size 202048",
        setup_source: "NVIDIA dgxc-benchmarking v25.05.05 llama4/README.md (H100 row): 512 GPUs, TP 4, PP 1, EP 128, ETP 4, GBS 1024, MBS 1, sequence 8192",
    },
    // --- Other large dense models people train or reproduce ---
    ModelPreset {
        id: "bloom-176b",
        name: "BLOOM-176B",
        arch: Arch {
            layers: 70,
            hidden: 14336,
            heads: 112,
            kv_heads: 112,
            ffn_hidden: 57344,
            ffn_act: FfnAct::Gelu,
            vocab: 250880,
            seq_len: 2048,
            tied_embeddings: true,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 2048,
            micro_batch: 2,
            precision: Precision::Bf16,
            recompute: Recompute::Full,
            flash_attention: false,
            train_tokens: Some(366e9),
            tp: 4,
            pp: 12,
            dp: 8,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "a100-sxm4-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "BigScience 2022, BLOOM (arXiv 2211.05100), §3.2 and the model-size table (70 layers, 112 heads, hidden 14336, sequence 2048, 366B tokens); bigscience/bloom config.json (vocab 250880 = 250680 padded, tied embeddings, GELU)",
        setup_source: "the production run: bigscience tr11-176B-ml README (384 A100 80GB, TP4 PP12 DP8, micro-batch 2, global batch 2048, bf16, ZeRO-1, activation checkpointing)",
    },
    // Squared-ReLU MLP: two h×f GEMMs like GELU, so ffn_act "gelu" (the non-gated shape).
    ModelPreset {
        id: "nemotron4-340b",
        name: "Nemotron-4 340B",
        arch: Arch {
            layers: 96,
            hidden: 18432,
            heads: 96,
            kv_heads: 8,
            ffn_hidden: 73728,
            ffn_act: FfnAct::Gelu,
            vocab: 256000,
            seq_len: 4096,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 2304,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: Some(9e12),
            tp: 8,
            pp: 12,
            dp: 64,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "NVIDIA 2024, Nemotron-4 340B Technical Report (arXiv 2406.11704), Table 1: 96 layers, hidden 18432, 96 heads, 8 KV heads, sequence 4096, vocab 256000, squared-ReLU MLP (4h), untied; 9T tokens",
        setup_source: "the same report, Table 2: TP8 PP12 DP64 on 6144 H100, batch 2304",
    },
    ModelPreset {
        id: "qwen2-72b",
        name: "Qwen2 72B",
        arch: Arch {
            layers: 80,
            hidden: 8192,
            heads: 64,
            kv_heads: 8,
            ffn_hidden: 29568,
            ffn_act: FfnAct::Swiglu,
            vocab: 152064,
            seq_len: 4096,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 1024,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::Selective,
            flash_attention: true,
            train_tokens: Some(7e12),
            tp: 8,
            pp: 4,
            dp: 4,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "Qwen Team 2024, Qwen2 Technical Report (arXiv 2407.10671), Table 1 and §3 (pre-training context 4096, 7T tokens); Qwen/Qwen2-72B config.json (hidden 8192, 80 layers, 64 heads, 8 KV heads, intermediate 29568, vocab 152064, untied)",
        setup_source: "paracalc's choice: TP8 PP4 DP4 on 128 H100",
    },
    ModelPreset {
        id: "mistral-7b",
        name: "Mistral 7B",
        arch: Arch {
            layers: 32,
            hidden: 4096,
            heads: 32,
            kv_heads: 8,
            ffn_hidden: 14336,
            ffn_act: FfnAct::Swiglu,
            vocab: 32000,
            seq_len: 8192,
            tied_embeddings: false,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 256,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::None,
            flash_attention: true,
            train_tokens: None,
            tp: 2,
            pp: 1,
            dp: 4,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: true,
            zero_stage: 1,
            gpu: "h100-sxm5-80gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "Jiang et al. 2023, Mistral 7B (arXiv 2310.06825), Table 1: dim 4096, 32 layers, head_dim 128, hidden_dim 14336, 32 heads, 8 KV heads, context 8192, vocab 32000",
        setup_source: "paracalc's choice: TP2 DP4 on 8 H100",
    },
    ModelPreset {
        id: "falcon-40b",
        name: "Falcon-40B",
        arch: Arch {
            layers: 60,
            hidden: 8192,
            heads: 128,
            kv_heads: 8,
            ffn_hidden: 32768,
            ffn_act: FfnAct::Gelu,
            vocab: 65024,
            seq_len: 2048,
            tied_embeddings: true,
            moe: None,
            head_dim: None,
            mla: None,
            mtp_layers: None,
        },
        setup: Setup {
            global_batch: 1152,
            micro_batch: 1,
            precision: Precision::Bf16,
            recompute: Recompute::Full,
            flash_attention: true,
            train_tokens: Some(1e12),
            tp: 8,
            pp: 4,
            dp: 12,
            cp: 1,
            ep: 1,
            vp: 1,
            sp: false,
            zero_stage: 1,
            gpu: "a100-sxm4-40gb",
            gpus_per_node: 8,
            grad_reduce_in_fp32: None,
            etp: None,
            tuning: Tuning::NONE,
        },
        source: "tiiuae/falcon-40b config.json (hidden_size 8192, 60 layers, 128 heads, 8 KV groups, vocab 65024, GELU MLP of 4h, tied embeddings) and model card (sequence 2048, 1T tokens)",
        setup_source: "the model card: 384 A100 40GB, 3D parallelism TP8 PP4 DP12 with ZeRO, batch 1152; full recomputation is paracalc's choice",
    },
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
    fn every_preset_validates_and_ids_are_unique() {
        for (i, p) in MODEL_PRESETS.iter().enumerate() {
            let s = p.scenario();
            if let Err(e) = s.validate() {
                panic!("{}: {e}", p.id);
            }
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
        let p = model_preset("gpt3-175b").unwrap().arch;
        let n = 12 * p.layers * p.hidden * p.hidden + p.vocab * p.hidden;
        assert_eq!(n, 174_575_321_088);
        // Llama 3 70B with GQA and SwiGLU: per layer 2h² + 2·h·(h·g/a) + 3·h·f
        // = 2·8192² + 2·8192·1024 + 3·8192·28672 = 134.2M + 16.8M + 704.6M = 855.6M; ×80 = 68.45e9;
        // + 2·V·h = 2·128256·8192 = 2.10e9 → 70.55e9 ≈ "70B".
        let a = model_preset("llama3-70b").unwrap().arch;
        let kv_dim = a.hidden / a.heads * a.kv_heads;
        let per_layer =
            2 * a.hidden * a.hidden + 2 * a.hidden * kv_dim + 3 * a.hidden * a.ffn_hidden;
        let n = a.layers * per_layer + 2 * a.vocab * a.hidden;
        assert_eq!(n, 70_552_387_584);
    }
}
