//! The model section: a GPT/Llama-style decoder Transformer, dense or mixture-of-experts.

/// The Transformer architecture. Optional fields have the defaults of `DESIGN.md`:
/// `kv_heads` = `heads` (multi-head attention), `ffn_hidden` = 4·`hidden`, `ffn_act` GELU,
/// untied embeddings, dense (no MoE). `Model::default()` has every optional field at its default
/// and 0 for the required numbers: a base for struct update (`Model { layers: 32, ..Model::default() }`),
/// so a new optional field needs no change where models are built.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// Display name ("GPT-3 175B"); free text, rendered as text only.
    pub name: String,
    /// Number of Transformer layers `L`.
    pub layers: u64,
    /// Hidden size `h`.
    pub hidden: u64,
    /// Attention (query) heads `a`.
    pub heads: u64,
    /// Key/value heads `g` (GQA; `g = a` for MHA, 1 for MQA). Default: `heads`.
    pub kv_heads: Option<u64>,
    /// FFN inner size `f`. Default: 4·`hidden`.
    pub ffn_hidden: Option<u64>,
    /// FFN activation: GELU (2 GEMMs) or SwiGLU (3 GEMMs).
    pub ffn_act: FfnAct,
    /// Vocabulary size `V` as trained (padded where the framework pads).
    pub vocab: u64,
    /// Tokens per sequence `s`.
    pub seq_len: u64,
    /// Whether the output layer shares the input embedding's weights.
    pub tied_embeddings: bool,
    /// Mixture-of-experts settings, or `None` for a dense model.
    pub moe: Option<Moe>,
    /// Attention head dimension `d_h`. Default: `hidden / heads`. Qwen3 and gpt-oss use a head
    /// dimension whose `heads·d_h` differs from `hidden` (their Hugging Face `head_dim`).
    pub head_dim: Option<u64>,
    /// Multi-head latent attention (DeepSeek-V2/V3), or `None` for standard (GQA/MHA) attention.
    pub mla: Option<Mla>,
    /// Multi-token prediction modules after the last layer (DeepSeek-V3: 1). Default: 0.
    pub mtp_layers: Option<u64>,
    /// A LayerNorm right after the word embedding (BLOOM's `word_embeddings_layernorm`,
    /// Megatron-DeepSpeed `--embed-layernorm`). Default: none.
    pub embedding_norm: Option<bool>,
}

/// Multi-head latent attention (DeepSeek-V2 §2.1, DeepSeek-V3 §2.1.1): keys and values are
/// projected down to a shared latent of `kv_lora_rank` and back up per head; queries optionally
/// through a latent of `q_lora_rank`; a decoupled rotary part of `qk_rope_head_dim` per head
/// (the key's rotary part is shared by all heads). Field names are the Hugging Face
/// `config.json` keys of `deepseek_v3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mla {
    /// Query latent rank `d_c'`; 0 = queries projected directly from the hidden state.
    pub q_lora_rank: u64,
    /// Key/value latent rank `d_c`.
    pub kv_lora_rank: u64,
    /// Per-head query/key dimension without rotary embedding `d_h^nope`.
    pub qk_nope_head_dim: u64,
    /// Per-head rotary query/key dimension `d_h^R`.
    pub qk_rope_head_dim: u64,
    /// Per-head value dimension `d_v`.
    pub v_head_dim: u64,
}

/// Mixture-of-experts FFN: the MLP of every `moe_every`-th layer after the first `dense_layers`
/// is replaced by `experts` routed experts, each token routed to `top_k` of them, plus
/// `shared_experts` experts every token passes through (DeepSeekMoE, Dai et al. 2024).
/// Optional fields default as in `DESIGN.md` ("Modern model shapes").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moe {
    /// Experts per MoE layer `E`.
    pub experts: u64,
    /// Experts each token is routed to `k`.
    pub top_k: u64,
    /// FFN inner size of one expert `f_e`.
    pub expert_ffn_hidden: u64,
    /// Shared experts every token passes through. Default: 0.
    pub shared_experts: Option<u64>,
    /// FFN inner size of one shared expert. Default: `expert_ffn_hidden`.
    pub shared_expert_ffn_hidden: Option<u64>,
    /// The first `dense_layers` layers use a dense MLP of `ffn_hidden` (DeepSeek-V3: 3). Default: 0.
    pub dense_layers: Option<u64>,
    /// Every `moe_every`-th layer (after the dense ones) is an MoE layer; the others are dense.
    /// Default: 1 (every layer).
    pub moe_every: Option<u64>,
    /// Tokens on the busiest expert-parallel rank over the mean (1.0 = perfectly balanced).
    /// Default: 1.0.
    pub imbalance: Option<f64>,
    /// Group-limited routing: the experts form `expert_groups` equal groups of consecutive
    /// experts, and each token picks its `top_k` experts inside `group_limit` of them
    /// (DeepSeek-V2's device-limited and DeepSeek-V3's node-limited routing, Hugging Face
    /// `n_group`; Megatron-Core `moe_router_num_groups`). Default: 1 (no groups).
    pub expert_groups: Option<u64>,
    /// Groups a token's experts come from (`topk_group`; Megatron-Core
    /// `moe_router_group_topk`). Default: every group.
    pub group_limit: Option<u64>,
    /// How the router picks a token's experts. Default: [`MoeRouting::Learned`].
    pub routing: Option<MoeRouting>,
}

/// How an MoE router picks a token's experts (the engine's all-to-all reach,
/// `engine::time::routing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoeRouting {
    /// A learned top-k router: over many tokens, every expert (of the groups a token may use)
    /// is as likely as any other.
    Learned,
    /// A fixed benchmark gate: token `t` of a GPU's micro-batch takes the `k` consecutive experts
    /// `t·k … t·k + k − 1 (mod E)` (NVIDIA-NeMo/Automodel `FakeBalancedGate`, set by
    /// `fake_balanced_gate: true` in its benchmark configs).
    RoundRobin,
}

impl MoeRouting {
    /// All values, for dropdowns.
    pub const ALL: &'static [MoeRouting] = &[MoeRouting::Learned, MoeRouting::RoundRobin];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            MoeRouting::Learned => "learned",
            MoeRouting::RoundRobin => "round_robin",
        }
    }
}

impl Moe {
    /// `experts` routed experts of FFN size `expert_ffn_hidden`, `top_k` per token; every other
    /// field at its default.
    pub const fn new(experts: u64, top_k: u64, expert_ffn_hidden: u64) -> Moe {
        Moe {
            experts,
            top_k,
            expert_ffn_hidden,
            shared_experts: None,
            shared_expert_ffn_hidden: None,
            dense_layers: None,
            moe_every: None,
            imbalance: None,
            expert_groups: None,
            group_limit: None,
            routing: None,
        }
    }

    /// Shared experts (default 0).
    pub fn shared_experts(&self) -> u64 {
        self.shared_experts.unwrap_or(0)
    }

    /// FFN inner size of a shared expert (default: the routed experts').
    pub fn shared_expert_ffn_hidden(&self) -> u64 {
        self.shared_expert_ffn_hidden
            .unwrap_or(self.expert_ffn_hidden)
    }

    /// Leading dense layers (default 0).
    pub fn dense_layers(&self) -> u64 {
        self.dense_layers.unwrap_or(0)
    }

    /// MoE layer frequency (default 1; 0 is rejected by validation and read as 1 here).
    pub fn moe_every(&self) -> u64 {
        self.moe_every.unwrap_or(1).max(1)
    }

    /// Busiest expert-parallel rank's load over the mean (default 1.0).
    pub fn imbalance(&self) -> f64 {
        self.imbalance.unwrap_or(1.0)
    }

    /// Expert groups of group-limited routing (default 1: none; 0 is rejected by validation
    /// and read as 1 here).
    pub fn expert_groups(&self) -> u64 {
        self.expert_groups.unwrap_or(1).max(1)
    }

    /// Groups a token's experts come from (default: all of them).
    pub fn group_limit(&self) -> u64 {
        self.group_limit
            .unwrap_or(self.expert_groups())
            .clamp(1, self.expert_groups())
    }

    /// The router's choice of experts (default: learned).
    pub fn routing(&self) -> MoeRouting {
        self.routing.unwrap_or(MoeRouting::Learned)
    }

    /// Whether layer `i` (0-based) of a model of `layers` layers has an MoE MLP: after the
    /// dense ones, every `moe_every`-th layer, counting from the first layer after them
    /// (Megatron-Core `moe_layer_freq` = n: layers with `(i − dense) % n == 0`).
    #[inline]
    pub fn is_moe_layer(&self, i: u64) -> bool {
        i >= self.dense_layers() && (i - self.dense_layers()) % self.moe_every() == 0
    }

    /// MoE layers among `layers` layers.
    #[inline]
    pub fn moe_layers(&self, layers: u64) -> u64 {
        let after = layers.saturating_sub(self.dense_layers());
        after.div_ceil(self.moe_every())
    }
}

/// The FFN's activation, which sets its GEMM count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

    /// Number of `h×f` weight matrices in the FFN (`c_ffn` in the notation of [FORMULAS.md](crate::docs::formulas)).
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

    /// Head dimension `d_h`: the scenario's `head_dim`, else `h / a` (0 if `heads` is 0;
    /// validation rejects that).
    pub fn head_dim(&self) -> u64 {
        self.head_dim
            .unwrap_or_else(|| self.hidden.checked_div(self.heads).unwrap_or(0))
    }

    /// Multi-token prediction modules (default 0).
    #[inline]
    pub fn mtp_layers(&self) -> u64 {
        self.mtp_layers.unwrap_or(0)
    }

    /// Whether a LayerNorm follows the word embedding: the scenario's value, else none.
    pub fn embedding_norm(&self) -> bool {
        self.embedding_norm.unwrap_or(false)
    }
}
