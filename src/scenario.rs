//! The [`Scenario`]: the one input of paracalc (CLI files, share links, the app's forms and the
//! validation cases all become one).
//!
//! A scenario has four sections, as in `DESIGN.md`: the [`Model`] architecture, the
//! [`Training`] setup, the [`Parallel`] layout and the [`Cluster`], plus an optional
//! [`Overhead`] section for framework memory and a [`Calibration`] section fitted to a
//! measured run. JSON in and out goes through the field table ([`json`]); unknown keys
//! are errors naming the key ([`parse`]), and [`Scenario::validate`] gathers every problem with the
//! values into one [`ScenarioError`], each [`Issue`] naming its field.
//!
//! # Example
//! ```
//! let json = r#"{
//!   "model": {"layers": 24, "hidden": 2048, "heads": 16, "vocab": 50304, "seq_len": 2048},
//!   "training": {"global_batch": 256, "micro_batch": 4, "precision": "bf16", "recompute": "selective"},
//!   "parallel": {"tp": 2, "pp": 2, "dp": 2},
//!   "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8}
//! }"#;
//! let s = paracalc::scenario::parse(json)?;
//! assert_eq!(s.model.kv_heads(), 16);
//! assert_eq!(s.model.ffn_hidden(), 4 * 2048);
//! s.validate()?;
//! Ok::<(), paracalc::scenario::ScenarioError>(())
//! ```
//!
//! Every child, one line each:
//! - [`model`], [`training`], [`parallel`], [`cluster`]: the four sections.
//! - [`overhead`]: framework memory overheads (optional section).
//! - [`calibration`]: the calibration section, fitted to a measured run.
//! - [`gpu`]: GPU presets and custom GPUs (peaks, HBM, links).
//! - [`fields`]: the field table: one entry per field, read by JSON, links, forms and checks.
//! - [`recompute_modules`]: Megatron-LM's selective recomputation by module.
//! - [`name_set`]: a set of names from a fixed list, as bits (the recomputed modules, the saved names).
//! - [`json`]: the scenario's JSON, read and written through the field table.
//! - [`json_path`]: positions in a JSON text, for errors.
//! - [`validate`]: value checks across the whole scenario.
//! - [`error`]: field-level errors.
//! - [`plan`]: the [`Scenario`] type and what it resolves across its sections.
//!
//! Children not named above:
//! - [`remat_saved`]: JAX's named rematerialization policy (MaxText's `remat_policy`).

mod calibration;
mod cluster;
mod error;
pub mod fields;
mod gpu;
pub mod json;
pub mod json_path;
mod model;
pub mod name_set;
mod overhead;
mod parallel;
mod plan;
mod recompute_modules;
mod remat_saved;
mod training;
pub(crate) mod validate;

pub use calibration::Calibration;
pub use cluster::{Cluster, CustomGpu, GpuChoice};
pub(crate) use error::printable;
pub use error::{FieldRef, Issue, ScenarioError};
pub use fields::{FieldDef, FieldId, Kind, Value, FIELDS};
pub use gpu::{gpu_preset, GpuPreset, GpuSpec, PeakTflops, GPU_PRESETS};
pub use model::{FfnAct, Mla, Model, Moe, MoeRouting};
pub use overhead::Overhead;
pub use parallel::{FsdpStyle, MoeDispatcher, Parallel, Schedule};
pub use plan::Scenario;
pub use recompute_modules::RecomputeModules;
pub use remat_saved::RematSaved;
pub use training::{
    AttentionKernel, Fp8Recipe, Framework, LossKernel, MasterWeights, Optimizer, OptimizerStates,
    Precision, Recompute, Training,
};

/// Parses a scenario from JSON. Every error names the field it is about
/// (`"parallel.tp: invalid type: string \"8\", expected a whole number."`,
/// `"model.layer: unknown field `layer`, expected one of …"`).
///
/// This checks the shape only; call [`Scenario::validate`] for the values.
pub fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    // A syntax error names the field at the parser's error position, with its line and column.
    let value = json::parse::parse(json)
        .map_err(|e| ScenarioError::from_json(&json_path::path_at(json, e.line, e.column), e))?;
    // The parser keeps the last of a key written twice; a plan file should not lose a value.
    if let Some(d) = json_path::duplicate_key(json) {
        let path = json_path::path_at(json, d.line, d.column);
        return Err(ScenarioError::shape(
            &path,
            format!("duplicate field `{}`", d.key),
        ));
    }
    from_value(&value)
}

/// Reads a scenario from an already-parsed JSON value (for example the `scenario` of a
/// validation case), through the field table ([`json`]). Errors name the field, like [`parse`].
pub fn from_value(value: &serde_json::Value) -> Result<Scenario, ScenarioError> {
    json::read::scenario(value)
}

/// Reads a model section on its own (as a scenario file's `model` object), e.g. a model kept
/// apart from any layout in a test.
pub fn model_from_value(value: &serde_json::Value) -> Result<Model, ScenarioError> {
    json::read::model(value)
}

/// A model section from JSON text, for unit tests (panics on bad JSON or a bad model).
#[cfg(test)]
pub(crate) fn test_model(json: &str) -> Model {
    model_from_value(&serde_json::from_str(json).unwrap()).unwrap()
}

impl Scenario {
    /// The scenario as pretty JSON (the `DESIGN.md` format), written through the field table
    /// ([`json`]).
    pub fn to_json_pretty(&self) -> String {
        self.to_json_node().to_pretty()
    }

    /// The scenario as a JSON tree (fields in table order, defaults left out): for compact
    /// text ([`json::text::Node::to_compact`]) or for walking its leaves.
    pub fn to_json_node(&self) -> json::text::Node<'_> {
        json::write::scenario(self)
    }

    /// Checks every value and every rule across fields, returning all problems at once.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.with_validated_gpu(|_| ())
    }

    /// [`Scenario::validate`], then the GPU's numbers ([`Scenario::gpu`]): validation resolves
    /// them anyway, so an estimate looks the preset up once.
    pub fn validated_gpu(&self) -> Result<GpuSpec, ScenarioError> {
        self.with_validated_gpu(|gpu| *gpu)
    }

    /// [`Scenario::validated_gpu`] handed to `f`, borrowed: a preset's own numbers are not
    /// copied ([`Cluster::preset_spec`]; an estimate reads them through a reference anyway).
    pub fn with_validated_gpu<R>(&self, f: impl FnOnce(&GpuSpec) -> R) -> Result<R, ScenarioError> {
        let resolved;
        let gpu = match self.cluster.preset_spec() {
            Some(spec) => Some(spec),
            None => {
                resolved = self.cluster.gpu_spec();
                resolved.as_ref()
            }
        };
        let issues = validate::issues(self, gpu);
        if !issues.is_empty() {
            return Err(ScenarioError { issues });
        }
        // Validation reports an unknown preset; this only guards the invariant.
        match gpu {
            Some(gpu) => Ok(f(gpu)),
            None => Err(ScenarioError::single("cluster.gpu", "unknown GPU.")),
        }
    }
}
