//! The [`Estimate`] type and the [`estimate`] entry point.

pub use super::memory::rows::StageMemory;
pub use super::memory::MemoryEstimate;
use super::plan::Plan;
pub use super::time::breakdown::{CommTimes, FlopsEstimate, Throughput, TimeEstimate};
pub use super::time::comm::CommBreakdown;
use crate::scenario::{Scenario, ScenarioError};
use serde::Serialize;

/// Everything paracalc predicts for one scenario. Every group is a named breakdown whose parts add
/// up to its total (tests check it).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Estimate {
    /// Per-GPU memory for every pipeline stage.
    pub memory: MemoryEstimate,
    /// Step time by component.
    pub time: TimeEstimate,
    /// Tokens/s, samples/s, TFLOP/s per GPU, MFU, HFU.
    pub throughput: Throughput,
    /// FLOPs per step.
    pub flops: FlopsEstimate,
    /// Bytes moved per step per GPU, by kind of communication and link tier.
    pub comm: CommBreakdown,
}

/// Estimates memory, time and throughput for `scenario`.
///
/// # Errors
/// Every invalid value, each naming its field. Not fitting in memory is not an error.
pub fn estimate(scenario: &Scenario) -> Result<Estimate, ScenarioError> {
    let mut out = Estimate::default();
    estimate_into(scenario, &mut out)?;
    Ok(out)
}

/// Like [`estimate`], but writes into `out`, reusing its buffers (the search calls this in a loop
/// without allocating). Never inlined: the instruction count per estimate is measured on this
/// symbol (`callgrind --toggle-collect`, README "How accurate, how fast").
#[inline(never)]
pub fn estimate_into(scenario: &Scenario, out: &mut Estimate) -> Result<(), ScenarioError> {
    scenario.with_validated_gpu(|gpu| {
        let plan = Plan::new(scenario, gpu);
        memory_into(&plan, out);
        time_into(&plan, out);
    })
}

/// The first half of [`estimate_into`]: fills `out.memory` only, for the resolved `plan` of a
/// validated scenario. The search stops here for a layout that does not fit and whose time it
/// does not need.
#[inline]
pub(crate) fn memory_into(plan: &Plan, out: &mut Estimate) {
    super::memory::fill(plan, &mut out.memory);
}

/// The second half of [`estimate_into`]: time, FLOPs, throughput and communication, after
/// [`memory_into`] filled `out.memory` for the same plan.
#[inline]
pub(crate) fn time_into(plan: &Plan, out: &mut Estimate) {
    super::time::fill(
        plan,
        &out.memory,
        &mut out.time,
        &mut out.flops,
        &mut out.throughput,
        &mut out.comm,
    );
}
