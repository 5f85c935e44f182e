//! Helpers shared by several integration test files (`mod common;`).
#![allow(dead_code)]

use paracalc::presets::MODEL_PRESETS;
use paracalc::scenario::GPU_PRESETS;
use paracalc::share;

/// Every key of the share-link table, then `extra` (keys the table does not have, or spells
/// otherwise), in that order.
pub fn link_keys(extra: &[&str]) -> Vec<String> {
    share::key_table()
        .map(|(k, _)| k.to_string())
        .chain(extra.iter().map(|k| k.to_string()))
        .collect()
}

/// The ids of the model presets, in table order.
pub fn model_preset_ids() -> Vec<String> {
    MODEL_PRESETS.iter().map(|p| p.id.to_string()).collect()
}

/// The ids of the GPU presets, in table order.
pub fn gpu_preset_ids() -> Vec<String> {
    GPU_PRESETS.iter().map(|p| p.id.to_string()).collect()
}
