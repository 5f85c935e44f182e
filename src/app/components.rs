//! The app's components, one per file; each `<Name>Props` sits right above its `#[component]`.

pub mod app;
pub mod chart_canvas;
pub mod charts_panel;
pub mod header;
pub mod issue_list;
pub mod number_field;
pub mod pipeline_form;
pub mod search_panel;
