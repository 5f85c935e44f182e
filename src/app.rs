//! The Yew web app. (Placeholder until the foundation's app shell lands.)

pub mod charts;

/// Mounts the app into the page body.
#[cfg(target_arch = "wasm32")]
pub fn start() {}
