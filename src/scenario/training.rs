//! The training section: batch, precision, optimizer, recomputation.

use serde::{Deserialize, Serialize};

/// How the model is trained, independent of the layout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Training {
    /// Sequences per optimizer step `B`.
    pub global_batch: u64,
    /// Sequences per micro-batch per pipeline (per DP rank) `b`.
    pub micro_batch: u64,
    /// Number format of the GEMMs and weights.
    pub precision: Precision,
    /// The optimizer (Adam/AdamW).
    #[serde(default)]
    pub optimizer: Optimizer,
    /// Activation recomputation.
    pub recompute: Recompute,
    /// Fused attention that never stores the `s×s` score matrix (FlashAttention).
    #[serde(default)]
    pub flash_attention: bool,
    /// Tokens to train on, for the time and cost to train. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_tokens: Option<f64>,
}

/// Training precision. `fp16`/`bf16` are mixed precision with fp32 master weights; `fp8` is
/// Transformer-Engine-style FP8 GEMMs with bf16 weights kept as well.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// Full fp32 training.
    Fp32,
    /// fp16 mixed precision (loss scaling).
    Fp16,
    /// bf16 mixed precision.
    Bf16,
    /// FP8 GEMMs (Transformer Engine), bf16 elsewhere.
    Fp8,
}

impl Precision {
    /// All values, for dropdowns.
    pub const ALL: &'static [Precision] = &[
        Precision::Fp32,
        Precision::Fp16,
        Precision::Bf16,
        Precision::Fp8,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
        }
    }
}

/// The optimizer. Only Adam(W) is modelled (two fp32 moments per parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    /// Adam or AdamW.
    #[default]
    Adam,
}

/// Activation recomputation (checkpointing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recompute {
    /// Store everything.
    None,
    /// Recompute the attention core only (Korthikanti et al. 2022 §4.3).
    Selective,
    /// Store each layer's input only and recompute the whole layer.
    Full,
}

impl Recompute {
    /// All values, for dropdowns.
    pub const ALL: &'static [Recompute] = &[Recompute::None, Recompute::Selective, Recompute::Full];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Full => "full",
        }
    }
}
