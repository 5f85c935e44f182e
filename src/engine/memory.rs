//! Per-GPU memory for every pipeline stage: model states, activations and framework overhead.
//!
//! For each pipeline rank `r` ([peers.md](crate::docs::formulas::peers) §3 steps 1–2):
//! 1. its layers from [`crate::engine::layout::stage_layers`] (even split, NeMo's rule, or
//!    `parallel.layers_per_stage`);
//! 2. its parameters on one GPU ([`params::gpu_params`]): its dense and MoE layers
//!    ([`super::layers::stage_mix`]) ÷ TP (routed experts ÷ EP·ETP), the MTP modules on the
//!    last stage, the
//!    input embedding on stage 0, the output layer (or the tied embedding's second copy when
//!    `p > 1`) and the final norm on the last stage;
//! 3. model states ([`states::model_states`]): precision (18 B/param mixed precision, 16 with
//!    a 16-bit gradient buffer, `training.grad_reduce_in_fp32 = false`; FP8 copies) and ZeRO
//!    sharding;
//! 4. activations ([`activations`]): per-layer bytes × layers × in-flight micro-batches of the
//!    schedule, the embedding terms on stage 0, the output layer and logits on the last stage,
//!    and, with recomputation, one layer's recompute working set;
//! 5. overhead ([`overhead`]): CUDA context, NCCL buffers, transient buffers (ZeRO-3 gathered
//!    parameters, gradient buckets) and the allocator reserve (a percentage of everything the
//!    allocator holds, plus the 16-bit logits' block the unfused loss leaves unused at its
//!    backward, [`activations::logits_block_bytes_per_gpu`]).
//!
//! Capacity is the memory a framework can see: `usable_gib` where known, else `hbm_gib`
//! ([`crate::scenario::GpuSpec::capacity_gib`]). Not fitting is a result (`fits = false`, negative headroom).
//!
//! Memory measurements come in two kinds (validation README): whole-device use as nvidia-smi
//! shows it (compare with `total_bytes`) and PyTorch's `max_memory_reserved` (compare with
//! [`StageMemory::allocator_reserved_bytes`], which leaves out the CUDA context and the NCCL
//! buffers, both allocated outside the caching allocator).
//!
//! Every child, one line each:
//! - [`params`]: parameter counts, whole model and per GPU (TP, PP, EP, ZeRO sharding).
//! - [`states`]: model states per GPU: bytes per parameter of weights, gradients and
//!   optimizer (master copy, moments), sharded by ZeRO.
//! - [`activations`]: activation memory of a dense layer, per schedule and recomputation.
//! - [`experts`]: activation memory of a mixture-of-experts MLP (and the expert states' share).
//! - [`gathered_input`]: which copy of a sequence-parallel GEMM input the backward keeps.
//! - [`loss_parallel`]: PyTorch's loss parallel (the logits' transient at the loss).
//! - [`overhead`]: CUDA context, NCCL buffers, transient buffers, allocator reserve.
//! - [`rows`]: the per-rank memory rows, worked out when read.
//! - [`verdict`]: the fit verdict (fits, may not fit, does not fit) and what would flip it.

//!
//! # Example
//! ```
//! use paracalc::engine::{estimate, memory::params};
//! let s = paracalc::scenario::parse(r#"{
//!   "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
//!             "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192},
//!   "training": {"global_batch": 64, "micro_batch": 1, "precision": "bf16",
//!                "recompute": "full", "flash_attention": true},
//!   "parallel": {"tp": 2, "pp": 2, "dp": 2, "sp": true, "zero_stage": 1},
//!   "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 8}
//! }"#)?;
//! assert_eq!(params::total_params(&s.model), 8_030_261_248.0); // Llama 3 8B
//! let e = estimate(&s)?;
//! let first = &e.memory.stages()[0];
//! let parts = first.weights_bytes + first.gradients_bytes + first.optimizer_bytes
//!     + first.activations_bytes + first.other_bytes;
//! assert!((first.total_bytes - parts).abs() < 1.0);
//! assert!(e.memory.fits);
//! Ok::<(), paracalc::scenario::ScenarioError>(())
//! ```

pub mod activations;
pub mod experts;
pub mod gathered_input;
pub mod loss_parallel;
pub mod overhead;
pub mod params;
pub mod rows;
pub mod states;
pub mod verdict;

use super::num::max_num;
use super::plan::Plan;
use super::runs::Holds;
use overhead::GIB;
use rows::StageMemory;
use serde::Serialize;

/// Per-GPU memory for every stage, and whether the plan fits.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemoryEstimate {
    /// One row per pipeline rank, in order, kept as runs of ranks and worked out when read
    /// ([`MemoryEstimate::stages`], [`MemoryEstimate::stage`]; serialised as `stages`, the list
    /// of rows).
    #[serde(rename = "stages")]
    pub rows: rows::Rows,
    /// Largest stage total, bytes.
    pub peak_bytes: f64,
    /// Which stage has the peak.
    pub peak_stage: u64,
    /// Memory a framework can use on this GPU, bytes.
    pub capacity_bytes: f64,
    /// `capacity − peak`; negative when the plan does not fit.
    pub headroom_bytes: f64,
    /// Whether every stage fits (`peak ≤ capacity`).
    pub fits: bool,
    /// The three-state verdict with the engine's band ([`verdict`]) and what
    /// would flip it; [`MemoryEstimate::fit_with`] judges with another band.
    pub fit: verdict::Fit,
}

impl MemoryEstimate {
    /// Every pipeline rank's row, in order.
    pub fn stages(&self) -> Vec<StageMemory> {
        self.rows.iter().collect()
    }

    /// Pipeline rank `r`'s row.
    pub fn stage(&self, r: u64) -> Option<StageMemory> {
        self.rows.get(r)
    }

    /// The verdict judged with the band `frac` (a fraction of the peak, e.g. the evidence's
    /// memory band for the plan) instead of the engine's default.
    pub fn fit_with(&self, frac: f64) -> verdict::Fit {
        let row = self.stage(self.peak_stage).unwrap_or_default();
        verdict::Fit::of(&row, self.capacity_bytes, frac)
    }
}

/// Fills `out` with the memory of every stage of the resolved `plan` (of a validated scenario,
/// or not: the function never panics) and allocates only when `out.rows` must grow. The
/// per-rank rows are kept as runs ([`rows`]) and worked out when read.
pub fn fill(plan: &Plan, out: &mut MemoryEstimate) {
    out.rows.clear();
    let s = plan.s;
    let g = &plan.per_gpu;
    let layer_bytes = activations::LayerBytes::with_shape(s, g, &plan.shape);
    let logits = activations::logits_transient_bytes_per_gpu(s, g);
    let logits_block = activations::logits_block_bytes_per_gpu(s, g);
    let opt_off = s.training.optimizer_offload();
    let flight = activations::InFlight::with(s, g);
    let terms = rows::RowTerms {
        embedding: activations::embedding_bytes_per_gpu(s, g),
        output: activations::output_bytes_per_gpu(s, g),
        cuda_context: s.overhead.cuda_context_gib() * GIB,
        comm_buffers: s
            .overhead
            .comm_buffers_gib(overhead::comm_buffers_bytes(&plan.groups, plan.gpu, s) / GIB)
            * GIB,
        reserve: s.overhead.allocator_reserve_pct() / 100.0,
        calibration_offset: s.calibration.memory_gib() * GIB,
        act_off: s.training.activation_offload(),
        // Where the output layer ends a path through a rank that holds other stages too
        // (DualPipe's two directions, the V of zb-v and dualpipev, interleaved chunks), its
        // backward follows its forward at once, as on 1F1B's last stage: one micro-batch of it
        // is alive.
        out_once: flight.output_once(),
        dualpipe: flight.under_dualpipe(),
    };
    let capacity = plan.gpu.capacity_gib() * GIB;

    // What a stage holds depends only on its layers and whether it holds the embedding or the
    // output layer, so the ranks of one run ([`runs`]) share one computation.
    out.rows.terms = terms;
    out.rows.flight = Some(flight);
    for run in plan.runs() {
        let h = Held::of(plan, &layer_bytes, run.holds, opt_off);
        let (mix, has_out) = (run.holds.mix, run.holds.output);
        let (gp, st, experts) = (h.gp, h.st, h.experts);
        // The loss's logits copy, a layer's recompute working set and the bf16 optimizer's fp32
        // gradient copy are not alive together; the copy is made after a micro-batch's
        // backward, when that micro-batch's stored activations are freed.
        let transient = {
            let stored_one = h.stored
                + if run.holds.embedding {
                    terms.embedding
                } else {
                    0.0
                };
            let t = max_num(h.working, h.upcast - stored_one);
            if has_out {
                max_num(t, logits)
            } else {
                t
            }
        };
        // The parts of a row every rank of the run shares.
        let shared = StageMemory {
            stage: 0,
            layers: mix.layers(),
            params: gp.total(),
            weights_bytes: st.weights,
            gradients_bytes: st.gradients,
            optimizer_bytes: st.optimizer,
            cuda_context_bytes: terms.cuda_context,
            comm_buffers_bytes: terms.comm_buffers,
            other_buffers_bytes: h.other_buffers,
            expert_weights_bytes: experts.weights,
            expert_gradients_bytes: experts.gradients,
            expert_optimizer_bytes: experts.optimizer,
            ..StageMemory::default()
        };
        out.rows.runs.push(rows::RunRows {
            first: run.ranks.start,
            end: run.ranks.end,
            shared,
            stored: h.stored,
            near: if terms.dualpipe.is_some() {
                layer_bytes.of_mix(&run.holds.near)
            } else {
                0.0
            },
            transient,
            // The 16-bit logits' block stays reserved beside the loss backward's fp32 blocks:
            // it shows where the loss is the run's largest transient.
            hole: if has_out {
                max_num(0.0, logits + logits_block - transient)
            } else {
                0.0
            },
            states: st.total(),
            opt_host: h.opt_host,
            heads: 1.0 + mix.mtp as f64,
            has_emb: run.holds.embedding,
            has_out,
        });
    }
    let (mut peak, peak_stage, peak_row) = out.rows.peak();
    if !peak.is_finite() {
        peak = 0.0;
    }
    out.peak_bytes = peak;
    out.peak_stage = peak_stage;
    out.capacity_bytes = capacity;
    out.headroom_bytes = capacity - peak;
    out.fits = peak <= capacity;
    // [`MemoryEstimate::fit_with`] of the peak row at hand.
    out.fit = verdict::Fit::of(
        &peak_row.unwrap_or_default(),
        capacity,
        verdict::DEFAULT_BAND_FRAC,
    );
}

/// The part of a stage's memory that follows from what it holds (its layers, the embedding, the
/// output layer), not from its place in the schedule: parameters, model states, a layer's
/// stored and working activations, and the transient buffers.
#[derive(Clone, Copy)]
struct Held {
    gp: params::GpuParams,
    st: states::ModelStates,
    experts: states::ModelStates,
    opt_host: f64,
    stored: f64,
    working: f64,
    /// DeepSpeed `BF16_Optimizer`'s fp32 copy of the largest gradient
    /// ([`states::bf16_hp_upcast_bytes`]).
    upcast: f64,
    other_buffers: f64,
}

impl Held {
    fn of(plan: &Plan, layer_bytes: &activations::LayerBytes, holds: Holds, opt_off: f64) -> Held {
        let s = plan.s;
        let Holds {
            mix,
            embedding,
            output,
            ..
        } = holds;
        let gp = plan.sharded.placed(mix, embedding, output);
        let bytes = &plan.param_bytes;
        let mut st = states::model_states(s, bytes, &gp, mix.layers() + mix.mtp);
        let mut experts = states::expert_states(s, bytes, &gp);
        // Optimizer offload: that share of the fp32 master weights and moments lives in host
        // memory (Megatron-Core `HybridDeviceOptimizer`, `--optimizer-offload-fraction`).
        let opt_host = st.optimizer * opt_off;
        st.optimizer -= opt_host;
        experts.optimizer *= 1.0 - opt_off;
        let upcast = states::bf16_hp_upcast_bytes(
            s,
            &plan.shape,
            if embedding || output {
                plan.sharded.embedding
            } else {
                0.0
            },
        );
        let norm_copy = overhead::deepspeed_norm_copy_bytes(
            s,
            bytes,
            &gp,
            if embedding {
                plan.sharded.embedding
            } else {
                0.0
            },
        );
        Held {
            gp,
            st,
            experts,
            opt_host,
            stored: layer_bytes.of_mix(&mix),
            working: layer_bytes.working(&mix),
            upcast,
            other_buffers: overhead::other_buffers_bytes(s, bytes, &plan.bucket, &gp)
                + overhead::bf16_reduce_copy_bytes(s, &gp, upcast)
                + norm_copy,
        }
    }
}
