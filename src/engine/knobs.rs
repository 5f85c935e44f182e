//! The knobs of a parallel layout that the search varies ([`Layout`]): read by the search
//! ([`super::search`]) and by the rules of what each stack can run ([`super::support`]).

use crate::scenario::{Recompute, Schedule};
use serde::Serialize;

/// The knobs the search varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// Tensor parallel.
    pub tp: u64,
    /// Pipeline parallel.
    pub pp: u64,
    /// Data parallel.
    pub dp: u64,
    /// Context parallel.
    pub cp: u64,
    /// Expert parallel.
    pub ep: u64,
    /// Expert tensor parallel (`tp` or 1; Megatron-Core MoE parallel folding: `ep·etp` divides
    /// `tp·cp·dp`).
    pub etp: u64,
    /// Virtual pipeline chunks per rank.
    pub vp: u64,
    /// Micro-batch size.
    pub micro_batch: u64,
    /// Activation recomputation.
    pub recompute: Recompute,
    /// ZeRO stage.
    pub zero_stage: u8,
    /// Sequence parallelism.
    pub sp: bool,
    /// Pipeline schedule; `None` = the default for `vp` (1F1B, or interleaved when `vp > 1`).
    pub schedule: Option<Schedule>,
    /// Megatron-LM's `--decoder-first-pipeline-num-layers` / `--decoder-last-pipeline-num-layers`
    /// (the middle stages split the rest evenly); `None` = the default split.
    pub first_last: Option<(u64, u64)>,
}
