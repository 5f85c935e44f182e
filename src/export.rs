//! The plan in each training stack's own configuration language, besides the Megatron-LM
//! arguments of [`crate::megatron`]: a torchtitan job config (TOML, [`torchtitan`]) and a
//! DeepSpeed config (JSON, [`deepspeed`]). Pure text generation (no web types).
//!
//! Each export fills the fields the stack has and lists the plan's settings that have no
//! equivalent there ([`Export::no_equivalent`]), instead of inventing keys.

pub mod deepspeed;
pub mod torchtitan;

/// One exported configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    /// The configuration file's text.
    pub text: String,
    /// Settings of the plan the stack cannot express in this file, each as a sentence.
    pub no_equivalent: Vec<String>,
}

/// The sentence for a loss kernel other than the stack's PyTorch `cross_entropy` on fp32
/// logits, which both torchtitan and a DeepSpeed model call in their model code; `None` for
/// the unfused kernel.
pub(crate) fn loss_kernel_note(t: &crate::scenario::Training, stack: &str) -> Option<String> {
    let k = t.loss_kernel();
    (k != crate::scenario::LossKernel::Unfused).then(|| {
        format!(
            "loss kernel {}: {stack} computes the loss in the model code (PyTorch cross_entropy on fp32 logits); its config has no switch.",
            k.as_str()
        )
    })
}
