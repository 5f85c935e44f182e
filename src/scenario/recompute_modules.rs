//! Megatron-LM's selective recomputation by module (`--recompute-modules`).

use super::name_set::{NameSet, Names};

/// The submodules Megatron-Core recomputes under `--recompute-granularity selective`, as a
/// set (`training.recompute_modules`). Megatron-LM `megatron/core/transformer/
/// transformer_config.py` (`recompute_modules`, default `["core_attn"]`; NVIDIA/Megatron-LM
/// @d98e8a64): "core_attn" and the whole-block modules use normal checkpointing (the block's
/// inputs are kept, its internals rerun in backward); "moe_act", "layernorm" and "mla_up_proj"
/// use output-discarding checkpointing (`CheckpointWithoutOutput`: the output's storage is
/// freed once its consumer has run and rebuilt just before that consumer's backward).
///
/// What each one drops and reruns, per layer (the engine's memory and time halves):
/// - `core_attn`: the attention core (scores and softmax without flash attention; flash
///   attention's log-sum-exp with it), rerun: the attention core's forward.
/// - `mla_up_proj`: MLA's up projections and RoPE (`qkv_up_proj_and_rope_apply` in
///   `multi_latent_attention.py`): the full-width Q, K and V, rerun: the two up-projection GEMMs.
///   The compressed latents they read stay stored.
/// - `layernorm`: the outputs of `input_layernorm` and `pre_mlp_layernorm` (the QKV and MLP
///   inputs), rerun: the two norms.
/// - `moe_act`: the routed experts' activation output (the input of their second GEMM), rerun:
///   the activation function.
/// - `mlp`: a dense layer's whole MLP (its input kept), rerun: its forward.
/// - `shared_experts`: the shared experts' MLP likewise.
/// - `moe`: an MoE layer's whole MLP block (router, dispatch, experts, combine; its input
///   kept), rerun: its forward, the dispatch and combine all-to-alls included.
pub type RecomputeModules = NameSet<MegatronModules>;

/// The names of [`RecomputeModules`]: Megatron-LM's module names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MegatronModules;

impl Names for MegatronModules {
    const IDS: &'static [&'static str] = &[
        "core_attn",
        "mla_up_proj",
        "layernorm",
        "moe_act",
        "mlp",
        "shared_experts",
        "moe",
    ];
    const NONE: &'static str = "";
}

impl RecomputeModules {
    /// The attention core.
    pub const CORE_ATTN: Self = Self::bit(0);
    /// MLA's up projections and RoPE.
    pub const MLA_UP_PROJ: Self = Self::bit(1);
    /// The two pre-norms.
    pub const LAYERNORM: Self = Self::bit(2);
    /// The routed experts' activation function.
    pub const MOE_ACT: Self = Self::bit(3);
    /// A dense layer's MLP.
    pub const MLP: Self = Self::bit(4);
    /// The shared experts.
    pub const SHARED_EXPERTS: Self = Self::bit(5);
    /// An MoE layer's whole MLP block.
    pub const MOE: Self = Self::bit(6);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_follow_the_ids() {
        let m = RecomputeModules::MLA_UP_PROJ.with(RecomputeModules::MOE_ACT);
        assert_eq!(m.names().collect::<Vec<_>>(), ["mla_up_proj", "moe_act"]);
        assert!(m.has(RecomputeModules::MOE_ACT) && !m.has(RecomputeModules::CORE_ATTN));
        assert_eq!(RecomputeModules::from_bits(m.bits()), m);
        assert_eq!(RecomputeModules::from_bits(0xff).names().count(), 7);
        for (i, id) in RecomputeModules::IDS.iter().enumerate() {
            let one = RecomputeModules::from_bits(1 << i);
            assert_eq!(one.names().collect::<Vec<_>>(), [*id]);
        }
        assert_eq!(
            RecomputeModules::SHARED_EXPERTS.names().next(),
            Some("shared_experts")
        );
        assert!(RecomputeModules::default().is_empty());
    }
}
