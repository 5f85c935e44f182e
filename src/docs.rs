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
