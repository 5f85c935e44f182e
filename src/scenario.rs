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
pub use recompute_modules::RecomputeModules;
pub use remat_saved::RematSaved;
pub use training::{
    AttentionKernel, Fp8Recipe, Framework, LossKernel, MasterWeights, Optimizer, OptimizerStates,
    Precision, Recompute, Training,
};

/// One planned training run: what is trained, how, with which layout, on what hardware.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The Transformer architecture.
    pub model: Model,
    /// Batch, precision, optimizer and recomputation.
    pub training: Training,
    /// The parallel layout (TP/PP/DP/CP/EP, interleaving, ZeRO, schedule, buckets).
    pub parallel: Parallel,
    /// GPUs, their count and their links.
    pub cluster: Cluster,
    /// Framework memory overheads (CUDA context, communication buffers, allocator reserve).
    pub overhead: Overhead,
    /// Factors fitted to one measured run of the user's cluster (`paracalc calibrate`); every
    /// estimate of the scenario applies them. Absent = not calibrated.
    pub calibration: Calibration,
}

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
    /// ZeRO-3's sharding style in effect: `parallel.fsdp_style`, else the framework's default
    /// ([`crate::engine::framework::Traits::fsdp_style`]).
    pub fn fsdp_style(&self) -> FsdpStyle {
        self.parallel
            .fsdp_style
            .unwrap_or(self.training.framework().traits().fsdp_style)
    }

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

    /// Whether tensor parallel `tp` splits the key/value heads as the stack runs them: `tp`
    /// divides them, or under Megatron-LM `tp` is a multiple of them (Megatron-LM f7dfb99, PR
    /// #2565, December 2025, `transformer_config.py`: `num_query_groups` "must be a multiple or
    /// divisor of" TP). Then each rank gathers the fused QKV output over TP and keeps one
    /// K/V head, which `tp / kv_heads` ranks share ([`crate::engine::shape::Shape::kv_rank`]).
    pub fn tp_splits_kv_heads(&self, tp: u64) -> bool {
        let kv = self.model.kv_heads();
        let tp = tp.max(1);
        kv % tp == 0
            || (self.training.framework().traits().tp_multiple_of_kv_heads
                && kv > 0
                && tp % kv == 0)
    }

    /// Whether each TP rank replicates one K/V head ([`Scenario::tp_splits_kv_heads`]): Megatron-LM
    /// with fewer key/value heads than TP ranks, standard attention.
    pub fn tp_replicates_kv_heads(&self) -> bool {
        let kv = self.model.kv_heads();
        self.model.mla.is_none()
            && kv > 0
            && kv < self.parallel.tp
            && self.tp_splits_kv_heads(self.parallel.tp)
    }

    /// Whether the data-parallel gradient reduction (and ZeRO-1/2's parameter all-gather)
    /// overlaps compute: `parallel.dp_comm_overlap`, else the framework's default. Megatron-LM
    /// (`--overlap-grad-reduce`, on in every published recipe), FSDP and torchtitan overlap;
    /// DeepSpeed overlaps only ZeRO-3: its `overlap_comm` defaults to `stage == 3`
    /// (`deepspeed/runtime/zero/config.py`, `overlap_comm_valid`, at 38327e07f), and its
    /// pipeline engine reduces after the last micro-batch (`ReduceGrads` in `TrainSchedule`).
    pub fn dp_comm_overlap(&self) -> bool {
        self.parallel.dp_comm_overlap.unwrap_or(
            self.training.framework().traits().dp_overlap_below_zero3
                || self.parallel.zero_stage >= 3,
        )
    }

    /// Whether full recomputation skips each dense layer's last weight GEMM:
    /// `training.recompute_early_stop`, else yes for PyTorch FSDP (framework `pytorch` with
    /// ZeRO-3) and no for every other stack.
    ///
    /// PyTorch's non-reentrant `torch.utils.checkpoint` (since PyTorch 2.1, pytorch/pytorch PR
    /// #90105) "stops recomputation as soon as we've recomputed the saved tensors we know we
    /// need" (`torch/utils/checkpoint.py`, Rule 5; `set_checkpoint_early_stop`, default on): its
    /// pack hook raises once the last tensor the forward saved has been saved again. An operator
    /// saves its inputs before it runs, so in a pre-norm block that ends in the MLP output
    /// projection and a residual add the rerun stops before that GEMM's kernel.
    /// - PyTorch FSDP checkpoints through `checkpoint_wrapper`, whose default is the
    ///   non-reentrant implementation (`torch/distributed/algorithms/_checkpoint/
    ///   checkpoint_wrapper.py`, `CheckpointImpl.NO_REENTRANT`), e.g. MPT under llm-foundry
    ///   (`fsdp_config.activation_checkpointing_reentrant: false`; blocks end in the down
    ///   projection and a dropout-free residual add).
    /// - torchtitan turns it off: `early_stop: bool = False` in its activation-checkpointing
    ///   config, passed to `checkpoint_wrapper` (pytorch/torchtitan 25413d224, 2025-08-29).
    /// - Megatron-LM's and DeepSpeed's reentrant checkpoint functions rerun the whole layer, and
    ///   the Hugging Face Trainer's checkpoint is reentrant by default (`use_reentrant=True`)
    ///   around post-norm layers with dropout.
    pub fn recompute_early_stop(&self) -> bool {
        self.training.recompute_early_stop.unwrap_or(
            self.training.framework().traits().fsdp_recompute_early_stop
                && self.parallel.zero_stage >= 3,
        )
    }

    /// The modules selective recomputation reruns, Megatron-LM's way
    /// ([`RecomputeModules`]), or `None` where the stack checkpoints per operator instead.
    /// - `training.recompute_modules` when given (Megatron-LM only, validation says so);
    /// - else Megatron-LM's default `["core_attn"]` (`transformer_config.py`) for the Megatron
    ///   stack, with or without flash attention;
    /// - else `None`: the other stacks' `selective` with flash attention is per-operator
    ///   selective checkpointing (torchtitan's op policy, [`crate::engine::memory::activations`]),
    ///   and without flash attention the attention core, which is `core_attn`.
    ///
    /// Always `None` unless `training.recompute` is selective.
    pub fn recompute_modules(&self) -> Option<RecomputeModules> {
        if self.training.recompute != Recompute::Selective {
            return None;
        }
        self.selective_modules()
    }

    /// The modules this plan's stack reruns under selective recomputation, whatever
    /// `training.recompute` is now ([`Scenario::recompute_modules`]'s rules).
    fn selective_modules(&self) -> Option<RecomputeModules> {
        let t = &self.training;
        match t.recompute_modules {
            Some(m) => Some(m),
            None if t.framework().traits().recompute_modules => Some(RecomputeModules::CORE_ATTN),
            None if !t.flash_attention => Some(RecomputeModules::CORE_ATTN),
            None => None,
        }
    }

    /// What `mode` recomputes under this plan's stack, in words: `none`, `full`, `selective
    /// (mla_up_proj, layernorm)` with Megatron-LM's modules ([`Scenario::recompute_modules`] for
    /// selective), or `selective (per-op)` where the stack checkpoints per operator.
    pub fn recompute_label(&self, mode: Recompute) -> String {
        if mode != Recompute::Selective {
            return mode.as_str().to_string();
        }
        match self.selective_modules() {
            Some(m) => format!("selective ({})", m.list()),
            None => match self.training.remat_saved {
                Some(n) => format!("selective (saves {})", n.list()),
                None => "selective (per-op)".to_string(),
            },
        }
    }

    /// The same plan without its calibration (the model's own rates and memory).
    pub fn uncalibrated(&self) -> Scenario {
        let mut u = self.clone();
        u.calibration = Calibration::default();
        u
    }

    /// The GPU's numbers: the preset named by `cluster.gpu` or the custom object, with the
    /// optional link overrides applied. `None` when the preset id is unknown (validation reports it).
    pub fn gpu(&self) -> Option<GpuSpec> {
        self.cluster.gpu_spec()
    }
}
