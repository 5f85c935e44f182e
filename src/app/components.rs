//! The app's components, one per file; each `<Name>Props` sits right above its `#[component]`.
//! Sections without hooks (the four forms, the key numbers, A/B comparison, notices, the published
//! runs, the definitions) are plain `fn … -> Html` (STYLE.md rule 10): a component of their own
//! would add yew's per-component machinery (about 1 KB each) to the bundle, while their inputs
//! change with nearly every action anyway. The verdict, the fixes and the change notice are too;
//! what they compute and keep lives in hooks the shell calls (`use_advice`, `use_change_notice`),
//! and the published runs are the ones the shell loads for its error bands (`use_evidence`).
//!
//! A state hook that starts from a constant takes a function item (`use_state(bool::default)`),
//! not a closure (`|| false`): every closure is a type of its own and compiles its own copy of
//! the hook, while all the `bool::default` states share one.
//!
//! Children:
//! - [`app`]: The full-page shell, in the order a planner asks.
//! - [`change_notice`]: The notice of the last change the app made by itself (dp following tp, the
//!   GPU count following dp, a custom stage split cleared) or on one click (a tried suggestion, an
//!   applied layout), with an undo.
//! - [`chart_canvas`]: A `<canvas>` that draws any [`Chart`] through
//!   [`canvas::draw_chart_on_canvas`].
//! - [`charts_panel`]: The six charts for the current scenario, as keyboard-accessible tabs (or
//!   one chart alone in embed mode).
//! - [`cluster_form`]: The cluster section.
//! - [`compare`]: A/B comparison.
//! - [`definitions`]: Definitions of the numbers the page shows (MFU, HFU, TFLOP/s per GPU,
//!   tokens/s, step time, peak memory) and the FLOP convention.
//! - [`embed_app`]: The embed shell.
//! - [`embed_dialog`]: The "Embed" dialog.
//! - [`evidence_panel`]: Published measured runs near the current plan, predicted vs measured step
//!   time.
//! - [`fixes`]: Fixes for a plan that does not fit.
//! - [`form`]: What the four form sections share.
//! - [`header`]: The page header.
//! - [`hf_import`]: Import a Hugging Face `config.json` by paste or file upload.
//! - [`issue_list`]: All problems with the scenario, each linking to its field.
//! - [`json_io`]: The scenario as JSON (the `DESIGN.md` format).
//! - [`measured_box`]: "I measured this plan".
//! - [`megatron_panel`]: Megatron-LM launch arguments for the current plan.
//! - [`model_form`]: The model section.
//! - [`model_size`]: The model's parameter count at a glance.
//! - [`notices`]: Link notices and import messages.
//! - [`num_field`]: A labelled number input with its unit, one-line help, limits and the engine's
//!   errors for its field, all read from the field table ([`crate::scenario::fields`]).
//! - [`parallel_form`]: The parallel layout section, with the `dp = GPUs / (tp·pp·cp)` helper.
//! - [`plan_bar`]: The plan bar.
//! - [`search_panel`]: The search tab.
//! - [`source_note`]: A folded "Where … comes from" panel: a preset's sources, fetched when it is
//!   first unfolded.
//! - [`stack_configs`]: The plan as a torchtitan job config (TOML) and a DeepSpeed config (JSON),
//!   each with the settings that have no equivalent there ([`crate::export`]).
//! - [`summary`]: The key numbers of an estimate.
//! - [`table`]: Column headings of the app's tables.
//! - [`tool_card`]: The folded cards of the page's tools (evidence, imports, exports).
//! - [`training_form`]: The training section.
//! - [`verdict`]: The verdict line under the key numbers.

pub mod app;
pub mod change_notice;
pub mod chart_canvas;
pub mod charts_panel;
pub mod cluster_form;
pub mod compare;
pub mod definitions;
pub mod embed_app;
pub mod embed_dialog;
pub mod evidence_panel;
pub mod fixes;
pub mod form;
pub mod header;
pub mod hf_import;
pub mod issue_list;
pub mod json_io;
pub mod measured_box;
pub mod megatron_panel;
pub mod model_form;
pub mod model_size;
pub mod notices;
pub mod num_field;
pub mod parallel_form;
pub mod plan_bar;
pub mod search_panel;
pub mod source_note;
pub mod stack_configs;
pub mod summary;
pub mod table;
pub mod tool_card;
pub mod training_form;
pub mod verdict;
