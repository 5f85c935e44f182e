//! JAX's named rematerialization policy (MaxText's `remat_policy`): which tensors a layer keeps.

use super::name_set::{NameSet, Names};

/// The checkpoint names a layer saves under selective recomputation, as a set
/// (`training.remat_saved`): JAX `jax.checkpoint_policies.save_only_these_names` over the names
/// MaxText's layers give their tensors with `checkpoint_name` (AI-Hypercomputer/maxtext
/// @02a8f5c: `layers/attentions.py` `query_proj`, `key_proj`, `value_proj` (or the fused
/// `qkv_proj`), `out_proj`; `layers/linears.py` `mlpwi` (`mlpwi_0`, `mlpwi_1` gated) and
/// `mlpwo`; the attention kernel's `context`; `configs/base.yml`: with `remat_policy: custom`
/// each name is `device` (saved), `remat` or `offload`). The layer's input
/// (`decoder_layer_input`, the scan carry) is always kept; everything not named is recomputed
/// in backward from the saved tensors.
/// - `qkv_proj`: the Q, K and V projections' outputs (all three names, or the fused one);
/// - `out_proj`: the attention output projection's output;
/// - `context`: the attention kernel's output (and with it the kernel's softmax statistics:
///   otherwise the kernel's forward reruns);
/// - `mlpwi`: the MLP's input projections' outputs (gate and up for a gated MLP);
/// - `mlpwo`: the MLP's output projection's output.
pub type RematSaved = NameSet<MaxTextNames>;

/// The names of [`RematSaved`]: MaxText's checkpoint names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxTextNames;

impl Names for MaxTextNames {
    const IDS: &'static [&'static str] = &["qkv_proj", "out_proj", "context", "mlpwi", "mlpwo"];
    const NONE: &'static str = "nothing";
}

impl RematSaved {
    /// Q, K and V.
    pub const QKV_PROJ: Self = Self::bit(0);
    /// The attention output projection's output.
    pub const OUT_PROJ: Self = Self::bit(1);
    /// The attention kernel's output.
    pub const CONTEXT: Self = Self::bit(2);
    /// The MLP's input projections' outputs.
    pub const MLPWI: Self = Self::bit(3);
    /// The MLP's output projection's output.
    pub const MLPWO: Self = Self::bit(4);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_follow_the_ids() {
        let s = RematSaved::from_bits(0b1_0011);
        assert!(s.has(RematSaved::QKV_PROJ) && s.has(RematSaved::OUT_PROJ));
        assert!(s.has(RematSaved::MLPWO) && !s.has(RematSaved::CONTEXT));
        assert_eq!(RematSaved::from_bits(0xff).bits(), 0b1_1111);
        assert_eq!(RematSaved::IDS.len(), 5);
        assert_eq!(s.list(), "qkv_proj, out_proj, mlpwo");
        assert_eq!(RematSaved::default().list(), "nothing");
    }
}
