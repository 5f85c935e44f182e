//! paracalc: plan distributed Transformer training before you book the cluster.
//!
//! The crate has three layers. [`engine`] is the pure analytical model (memory per pipeline stage,
//! step time by component, throughput, MFU, search); [`scenario`] is its one input, read from
//! JSON with field-level errors; [`share`] encodes a scenario as a short, versioned URL query;
//! [`app`] is the Yew web app. Everything compiles natively too, so `cargo test` type-checks the
//! app, renders components server-side and draws charts to SVG. [`docs`] renders the formulas
//! document the engine's doc comments cite.

pub mod app;
pub mod calibrate;
pub mod docs;
pub mod engine;
pub mod evidence;
pub mod export;
pub mod hf;
pub mod megatron;
pub mod presets;
pub mod scenario;
pub mod share;
pub mod sort;
pub mod text;

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
