//! The analytical model of distributed Transformer training.
//!
//! Pure and deterministic: [`estimate`] turns a [`Scenario`](crate::scenario::Scenario) into an
//! [`Estimate`] of per-GPU memory for every pipeline stage, step time by component, FLOPs,
//! throughput and MFU, and communication volumes. No I/O, no web types, no panics on any input:
//! bad input is a [`ScenarioError`](crate::scenario::ScenarioError) naming the field; a plan that
//! does not fit in memory is an `Estimate` with negative headroom.
//!
//! Formulas and their sources are documented where they are used; [FORMULAS.md](crate::docs::formulas) section
//! numbers (e.g. "Korthikanti et al. 2022, Table 2") appear in the doc comments.
#![deny(missing_docs)]

pub mod advice;
pub mod bucket;
pub mod calibration;
pub mod estimate;
pub mod layers;
pub mod layout;
pub mod memory;
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
