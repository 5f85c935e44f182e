//! Reference documents rendered with the API documentation.
//!
//! The engine's doc comments cite [`formulas`] by section ("FORMULAS.md §7.5"): the formulas
//! of distributed Transformer training with their sources, as checked against the primary code
//! and papers. The Markdown lives in `src/docs/`, so the repository carries it and
//! `cargo doc` renders it; nothing here is compiled into the binaries.

/// `FORMULAS.md`: analytical formulas for distributed Transformer training, with the papers and
/// code they were checked against (`src/docs/FORMULAS.md`).
///
// Its "[derived]" and "[from memory]" markers are Markdown text, not links.
#[allow(rustdoc::broken_intra_doc_links)]
#[doc = include_str!("docs/FORMULAS.md")]
pub mod formulas {}

/// `CONSTANTS.md`: every numeric constant of the engine with its value, unit, file, kind and
/// source (`src/docs/CONSTANTS.md`; `tests/constants.rs` keeps it in step with the code).
#[allow(rustdoc::broken_intra_doc_links)]
#[doc = include_str!("docs/CONSTANTS.md")]
pub mod constants {
    /// How many constants of the registry are of each kind, in the order the README and the
    /// app's definitions card state them (`tests/constants.rs` counts the table).
    pub const BY_KIND: [(&str, usize); 4] = [
        ("specification", 84),
        ("micro-benchmark", 28),
        ("end-to-end", 15),
        ("definition", 20),
    ];

    /// The groups in view when the end-to-end constants were chosen (`CONSTANTS.md`, kinds).
    pub const END_TO_END_GROUPS: &str = "the 13 dense public groups of commit ce6a0ec (Megatron-LM papers and READMEs, BLOOM, NeMo 24.07, DGX Cloud Llama 3.1, torchtitan, llm-foundry A100 80 GB, Hugging Face docs), as a whole, for the GEMM and fused-attention fractions; the public runs' peak-memory MAPE for the memory verdict's default band";
}
