//! JAX's named rematerialization policy (MaxText's `remat_policy`): which tensors a layer keeps.

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RematSaved(u8);

impl RematSaved {
    /// Q, K and V.
    pub const QKV_PROJ: RematSaved = RematSaved(1);
    /// The attention output projection's output.
    pub const OUT_PROJ: RematSaved = RematSaved(2);
    /// The attention kernel's output.
    pub const CONTEXT: RematSaved = RematSaved(4);
    /// The MLP's input projections' outputs.
    pub const MLPWI: RematSaved = RematSaved(8);
    /// The MLP's output projection's output.
    pub const MLPWO: RematSaved = RematSaved(16);

    /// MaxText's names, bit `i` being `IDS[i]`.
    pub const IDS: &'static [&'static str] = &["qkv_proj", "out_proj", "context", "mlpwi", "mlpwo"];

    /// The set of bits `bits` (bit `i` is [`RematSaved::IDS`]`[i]`; higher bits dropped).
    pub fn from_bits(bits: u8) -> RematSaved {
        RematSaved(bits & super::fields::set_mask(Self::IDS))
    }

    /// The bits of the set.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// Whether `name` is saved.
    pub fn saves(self, name: RematSaved) -> bool {
        self.0 & name.0 != 0
    }

    /// The names saved, comma-separated in [`RematSaved::IDS`] order ("nothing" when empty).
    pub fn list(self) -> String {
        let names: Vec<&str> = super::fields::set_names(self.0, Self::IDS).collect();
        if names.is_empty() {
            "nothing".to_string()
        } else {
            names.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_follow_the_ids() {
        let s = RematSaved::from_bits(0b1_0011);
        assert!(s.saves(RematSaved::QKV_PROJ) && s.saves(RematSaved::OUT_PROJ));
        assert!(s.saves(RematSaved::MLPWO) && !s.saves(RematSaved::CONTEXT));
        assert_eq!(RematSaved::from_bits(0xff).bits(), 0b1_1111);
        assert_eq!(RematSaved::IDS.len(), 5);
        assert_eq!(s.list(), "qkv_proj, out_proj, mlpwo");
        assert_eq!(RematSaved::default().list(), "nothing");
    }
}
