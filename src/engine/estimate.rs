//! The [`Estimate`] type and the [`estimate`] entry point.

pub use super::memory::rows::StageMemory;
pub use super::memory::MemoryEstimate;
pub use super::time::breakdown::{CommTimes, FlopsEstimate, Throughput, TimeEstimate};
pub use super::time::comm::CommBreakdown;
use crate::scenario::{GpuSpec, Scenario, ScenarioError};
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
/// without allocating).
pub fn estimate_into(scenario: &Scenario, out: &mut Estimate) -> Result<(), ScenarioError> {
    let gpu = memory_into(scenario, out)?;
    time_into(scenario, &gpu, out);
    Ok(())
}

/// The first half of [`estimate_into`]: validates `scenario` and fills `out.memory` only;
/// returns the GPU for [`time_into`]. The search stops here for a layout that does not fit and
/// whose time it does not need.
#[inline]
pub(crate) fn memory_into(
    scenario: &Scenario,
    out: &mut Estimate,
) -> Result<GpuSpec, ScenarioError> {
    let gpu = scenario.validated_gpu()?;
    super::memory::fill(scenario, &gpu, &mut out.memory);
    Ok(gpu)
}

/// The second half of [`estimate_into`]: time, FLOPs, throughput and communication, after
/// [`memory_into`] filled `out.memory` for the same scenario.
#[inline]
pub(crate) fn time_into(scenario: &Scenario, gpu: &GpuSpec, out: &mut Estimate) {
    super::time::fill(
        scenario,
        &super::calibration::links(gpu, &scenario.calibration),
        &out.memory,
        &mut out.time,
        &mut out.flops,
        &mut out.throughput,
        &mut out.comm,
    );
}
