//! paracalc: plan distributed Transformer training before you book the cluster.
//!
//! The crate has three layers. [`engine`] is the pure analytical model (memory per pipeline stage,
//! step time by component, throughput, MFU, search); [`scenario`] is its one input, read from
//! JSON with field-level errors; [`share`] encodes a scenario as a short, versioned URL query;
//! [`app`] is the Yew web app. Everything compiles natively too, so `cargo test` type-checks the
//! app, renders components server-side and draws charts to SVG. [`docs`] renders the formulas
//! document the engine's doc comments cite.
//!
//! Every module, one line each:
//! - [`engine`]: the analytical model (memory, time, throughput, advice, search, sweeps).
//! - [`scenario`]: the one input, its field table, JSON, GPU presets and validation.
//! - [`presets`]: built-in model and layout presets.
//! - [`share`]: share links (a scenario as a short, versioned URL query).
//! - [`megatron`]: Megatron-LM launch arguments for a scenario.
//! - [`export`]: the plan in other stacks' configuration languages (DeepSpeed, torchtitan).
//! - [`hf`]: import a Hugging Face `config.json` as a model.
//! - [`calibrate`]: fit a scenario's calibration to one measured run.
//! - [`evidence`]: published runs behind each number's error band.
//! - [`app`]: the Yew web app (components, charts, hooks).
//! - [`cli`]: the native command-line tool (native builds only).
//! - [`docs`]: reference documents rendered with the API documentation (the formulas, by part, and the constants).
//! - [`sort`]: one stable sort for the whole crate.
//! - [`sources`]: where the built-in presets' numbers come from (`static/sources.json`).
//! - [`text`]: small helpers for the sentences the engine, the CLI and the app write.
//! - [`xorshift`]: the fixed pseudo-random sequences the tests draw their inputs from.

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
pub mod sources;
pub mod text;
pub mod xorshift;

/// The WebAssembly build allocates from power-of-two free lists ([`app::heap`]) instead of the
/// standard library's dlmalloc: a smaller bundle for a little more memory.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static HEAP: app::heap::PowerOfTwoHeap = app::heap::PowerOfTwoHeap::new();

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
