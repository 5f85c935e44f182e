//! The model section: a GPT/Llama-style decoder Transformer, dense or mixture-of-experts.

use serde::{Deserialize, Serialize};

/// The Transformer architecture. Optional fields have the defaults of `DESIGN.md`:
/// `kv_heads` = `heads` (multi-head attention), `ffn_hidden` = 4·`hidden`, `ffn_act` GELU,
/// untied embeddings, dense (no MoE).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// Display name ("GPT-3 175B"); free text, rendered as text only.
    #[serde(default)]
    pub name: String,
    /// Number of Transformer layers `L`.
    pub layers: u64,
    /// Hidden size `h`.
    pub hidden: u64,
    /// Attention (query) heads `a`.
    pub heads: u64,
    /// Key/value heads `g` (GQA; `g = a` for MHA, 1 for MQA). Default: `heads`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_heads: Option<u64>,
    /// FFN inner size `f`. Default: 4·`hidden`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ffn_hidden: Option<u64>,
    /// FFN activation: GELU (2 GEMMs) or SwiGLU (3 GEMMs).
    #[serde(default)]
    pub ffn_act: FfnAct,
    /// Vocabulary size `V` as trained (padded where the framework pads).
    pub vocab: u64,
    /// Tokens per sequence `s`.
    pub seq_len: u64,
    /// Whether the output layer shares the input embedding's weights.
    #[serde(default)]
    pub tied_embeddings: bool,
    /// Mixture-of-experts settings, or `None` for a dense model.
    #[serde(default)]
    pub moe: Option<Moe>,
}

/// Mixture-of-experts FFN: every layer's MLP is replaced by `experts` experts, each token routed
/// to `top_k` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moe {
    /// Experts per MoE layer `E`.
    pub experts: u64,
    /// Experts each token is routed to `k`.
    pub top_k: u64,
    /// FFN inner size of one expert `f_e`.
    pub expert_ffn_hidden: u64,
}

/// The FFN's activation, which sets its GEMM count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FfnAct {
    /// `fc2(gelu(fc1(x)))`: two GEMMs of `h×f`.
    #[default]
    Gelu,
    /// `w2(silu(w1 x) ⊙ w3 x)`: three GEMMs of `h×f`.
    Swiglu,
}

impl FfnAct {
    /// All values, for dropdowns.
    pub const ALL: &'static [FfnAct] = &[FfnAct::Gelu, FfnAct::Swiglu];

    /// Number of `h×f` weight matrices in the FFN (`c_ffn` in FORMULAS.md §0).
    pub fn num_matrices(self) -> u64 {
        match self {
            FfnAct::Gelu => 2,
            FfnAct::Swiglu => 3,
        }
    }

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FfnAct::Gelu => "gelu",
            FfnAct::Swiglu => "swiglu",
        }
    }
}

impl Model {
    /// Key/value heads, defaulting to `heads`.
    pub fn kv_heads(&self) -> u64 {
        self.kv_heads.unwrap_or(self.heads)
    }

    /// FFN inner size, defaulting to 4·`hidden` (saturating, so a huge `hidden` from a file
    /// cannot overflow before validation rejects it).
    pub fn ffn_hidden(&self) -> u64 {
        self.ffn_hidden.unwrap_or(self.hidden.saturating_mul(4))
    }

    /// Head dimension `d_h = h / a` (0 if `heads` is 0; validation rejects that).
    pub fn head_dim(&self) -> u64 {
        self.hidden.checked_div(self.heads).unwrap_or(0)
    }
}
