//! Reference documents rendered with the API documentation.
//!
//! The engine's doc comments cite the [`formulas`] by part and section ("comm.md §5"): the
//! formulas of distributed Transformer training with their sources, as checked against the primary
//! code and papers, split by what they model. Each part's Markdown sits beside the code it
//! documents (`src/engine/time/comm.md` beside `comm.rs`), the index and the notation in
//! `src/docs/`, so the repository carries them and `cargo doc` renders them; nothing here is
//! compiled into the binaries (`tests/formulas.rs` checks the citations and this list).

/// `FORMULAS.md`: the index of the formulas' parts and their notation (`src/docs/FORMULAS.md`);
/// each part is a child module here.
///
// The parts' "[derived]" and "[from memory]" markers are Markdown text, not links.
#[allow(rustdoc::broken_intra_doc_links)]
#[doc = include_str!("docs/FORMULAS.md")]
pub mod formulas {
    #[doc = include_str!("docs/peers.md")]
    pub mod peers {}
    #[doc = include_str!("engine/memory/params.md")]
    pub mod params {}
    #[doc = include_str!("engine/memory/states.md")]
    pub mod states {}
    #[doc = include_str!("engine/memory/activations.md")]
    pub mod activations {}
    #[doc = include_str!("evidence/interval.md")]
    pub mod interval {}
    #[doc = include_str!("engine/time/flops.md")]
    pub mod flops {}
    #[doc = include_str!("engine/time/compute.md")]
    pub mod compute {}
    #[doc = include_str!("engine/time/fp8.md")]
    pub mod fp8 {}
    #[doc = include_str!("engine/time/attention.md")]
    pub mod attention {}
    #[doc = include_str!("engine/time/host.md")]
    pub mod host {}
    #[doc = include_str!("engine/time/moe.md")]
    pub mod moe {}
    #[doc = include_str!("engine/time/comm.md")]
    pub mod comm {}
    #[doc = include_str!("engine/time/pipeline.md")]
    pub mod pipeline {}
    #[doc = include_str!("engine/time/fixed.md")]
    pub mod fixed {}
}

/// `CONSTANTS.md`: every numeric constant of the engine with its value, unit, file, kind and
/// source (`src/docs/CONSTANTS.md`; `tests/constants.rs` keeps it in step with the code).
#[allow(rustdoc::broken_intra_doc_links)]
#[doc = include_str!("docs/CONSTANTS.md")]
pub mod constants {
    /// How many constants of the registry are of each kind, in the order the README and the
    /// app's definitions card state them (`tests/constants.rs` counts the table).
    pub const BY_KIND: [(&str, usize); 4] = [
        ("specification", 116),
        ("micro-benchmark", 38),
        ("end-to-end", 15),
        ("definition", 25),
    ];

    /// How many numbers written in the engine's function bodies (other than 0, 1 and 2) are of
    /// each reason they are no model constant (`CONSTANTS.md`, the list under the table;
    /// `tests/constants.rs` counts it): unit conversions, exact counts of a formula, indices,
    /// definitions, and the kernel-efficiency table registered above.
    pub const BODY_NUMBERS: [(&str, usize); 5] = [
        ("unit", 34),
        ("count", 99),
        ("index", 17),
        ("definition", 18),
        ("registered", 28),
    ];

    /// The groups in view when the end-to-end constants were chosen (`CONSTANTS.md`, kinds).
    pub const END_TO_END_GROUPS: &str = "the 13 dense public groups of commit ce6a0ec (Megatron-LM papers and READMEs, BLOOM, NeMo 24.07, DGX Cloud Llama 3.1, torchtitan, llm-foundry A100 80 GB, Hugging Face docs), as a whole, for the GEMM and fused-attention fractions; the public runs' peak-memory MAPE for the memory verdict's default band";
}
