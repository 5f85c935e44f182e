//! Step time, FLOPs and throughput. (Placeholder until the time issue lands.)

use super::estimate::{FlopsEstimate, MemoryEstimate, Throughput, TimeEstimate};
use crate::scenario::{GpuSpec, Scenario};

/// Fills the time, FLOPs and throughput of `s` on `gpu`. `s` is already validated.
pub fn fill(
    s: &Scenario,
    gpu: &GpuSpec,
    memory: &MemoryEstimate,
    time: &mut TimeEstimate,
    flops: &mut FlopsEstimate,
    throughput: &mut Throughput,
) {
    let _ = (s, gpu, memory, time, flops, throughput);
}
