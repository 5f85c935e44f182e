//! The analytical model of distributed Transformer training.
//!
//! Pure and deterministic: [`estimate`] turns a [`Scenario`](crate::scenario::Scenario) into an
//! [`Estimate`] of per-GPU memory for every pipeline stage, step time by component, FLOPs,
//! throughput and MFU, and communication volumes. No I/O, no web types, no panics on any input:
//! bad input is a [`ScenarioError`](crate::scenario::ScenarioError) naming the field; a plan that
//! does not fit in memory is an `Estimate` with negative headroom.
//!
//! Formulas and their sources are documented where they are used; the doc comments cite the
//! papers (e.g. "Korthikanti et al. 2022, Table 2") and the part of the formulas beside the code
//! by section (`activations.md §1`; [FORMULAS.md](crate::docs::formulas) lists the parts).
//!
//! # Where things live
//!
//! The engine's rooms, one line each (the two halves of an estimate are [`memory`] and [`time`];
//! [`estimate`] runs them in that order):
//! - [`estimate`]: the [`Estimate`] type (memory, time, FLOPs, throughput, communication) and
//!   the [`estimate`] / [`estimate_into`] entry points.
//! - [`memory`]: per-GPU memory of every pipeline stage: parameters, model states (weights,
//!   gradients, optimizer), activations (dense and MoE experts), framework overhead.
//! - [`time`]: step time by component: GEMMs and attention on the device, collectives on the
//!   network, the pipeline bubble, the data-parallel tail, the optimizer; FLOPs and MFU.
//! - [`bucket`]: the gradient bucket of the data-parallel reduction, one size read by memory,
//!   time, the bucket chart, the advice and the Megatron-LM export.
//! - [`plan`]: the resolved plan, built once per estimate from the scenario (shape, parameter
//!   counts, bytes per parameter and element, tokens, micro-batches, the stack's mechanisms, the
//!   gradient bucket, the runs of ranks); memory, time, advice and exports read it.
//! - [`shape`]: the model's dimensions as `f64`, read by both halves.
//! - [`per_gpu`]: tokens per micro-batch on one GPU, micro-batches per step, activation bytes
//!   per element, read by both halves.
//! - [`layers`]: which layers are dense or mixture-of-experts per stage, and where the MTP
//!   modules sit.
//! - [`layout`]: how layers are split over pipeline stages and their virtual chunks.
//! - [`runs`]: runs of consecutive pipeline ranks that hold the same things (worked out once).
//! - [`schedule`]: the timelines of the pipeline schedules (the schedule chart).
//! - [`calibration`]: a scenario's calibration factors applied to the hardware rates.
//! - [`framework`]: the framework table: each stack's defaults as mechanisms and switches and
//!   what it cannot run, read by the scenario, memory and time (the one `match` on the framework).
//! - [`support`]: checks a layout against the rules of its stack's row (what it can run at all).
//! - [`stack_notes`]: what a plan needs from the software stack's version.
//! - [`advice`]: the verdict and ranked one-step changes (bucket, pp, vp, tp, …).
//! - [`split`]: the fastest and the lightest split of layers over pipeline stages.
//! - [`search`]: the best-layout search (enumeration plus the same estimate).
//! - [`knobs`]: the knobs of a parallel layout the search varies and the support rules check.
//! - [`sweep`]: sweeps over GPUs, bucket size, micro-batch size and sequence length.
//! - [`num`]: the larger and the smaller of two numbers in one instruction (the hot path's
//!   `max`/`min`).
#![deny(missing_docs)]

pub mod advice;
pub mod bucket;
pub mod calibration;
pub mod estimate;
pub mod framework;
pub mod knobs;
pub mod layers;
pub mod layout;
pub mod memory;
pub mod num;
pub mod per_gpu;
pub mod plan;
pub mod runs;
pub mod schedule;
pub mod search;
pub mod shape;
pub mod split;
pub mod stack_notes;
pub mod support;
pub mod sweep;
pub mod time;

pub use estimate::{
    estimate, estimate_into, CommBreakdown, CommTimes, Estimate, FlopsEstimate, MemoryEstimate,
    StageMemory, Throughput, TimeEstimate,
};
