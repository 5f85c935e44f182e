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
