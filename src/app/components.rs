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
pub mod stack_configs;
pub mod summary;
pub mod table;
pub mod tool_card;
pub mod training_form;
pub mod verdict;
