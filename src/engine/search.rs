//! Best-layout search: enumerate every valid parallel layout for a model, training setup and
//! cluster size, evaluate each with the same [`estimate`](super::estimate), rank the feasible
//! ones by throughput and keep the Pareto front of throughput vs memory.

use crate::scenario::{Recompute, Scenario};
use serde::Serialize;
use std::collections::BTreeMap;

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
}

impl Layout {
    /// The layout of a scenario.
    pub fn of(s: &Scenario) -> Layout {
        let p = &s.parallel;
        Layout {
            tp: p.tp,
            pp: p.pp,
            dp: p.dp,
            cp: p.cp,
            ep: p.ep,
            vp: p.vp,
            micro_batch: s.training.micro_batch,
            recompute: s.training.recompute,
            zero_stage: p.zero_stage,
            sp: p.sp,
        }
    }

    /// Writes this layout into `s` (other fields untouched; a custom stage split and an explicit
    /// schedule are cleared because they belong to the old layout).
    pub fn apply(&self, s: &mut Scenario) {
        let p = &mut s.parallel;
        p.tp = self.tp;
        p.pp = self.pp;
        p.dp = self.dp;
        p.cp = self.cp;
        p.ep = self.ep;
        p.vp = self.vp;
        p.zero_stage = self.zero_stage;
        p.sp = self.sp;
        p.layers_per_stage = None;
        p.schedule = None;
        s.training.micro_batch = self.micro_batch;
        s.training.recompute = self.recompute;
    }
}

/// One evaluated layout.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ranked {
    /// The layout.
    pub layout: Layout,
    /// Step time, s.
    pub step_s: f64,
    /// Cluster tokens per second.
    pub tokens_per_s: f64,
    /// Model FLOPs utilisation.
    pub mfu: f64,
    /// Peak per-GPU memory over stages, bytes.
    pub peak_bytes: f64,
    /// Whether it fits in GPU memory.
    pub fits: bool,
}

/// What the search found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SearchReport {
    /// Layouts evaluated by the engine.
    pub evaluated: u64,
    /// Layouts that fit in memory.
    pub feasible: u64,
    /// Best feasible layouts by throughput, best first (ties broken by a stable key).
    pub best: Vec<Ranked>,
    /// Pareto front of throughput vs peak memory among feasible layouts, by memory ascending.
    pub pareto: Vec<Ranked>,
    /// A bounded, deterministic sample of feasible layouts for the scatter chart.
    pub points: Vec<Ranked>,
    /// Layouts not evaluated or not feasible, counted by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Whether the candidate cap cut the enumeration short.
    pub truncated: bool,
}
