//! Host-link time of offloading: optimizer states updated by the CPU and activations parked in
//! host memory between a micro-batch's forward and backward.
//!
//! - Optimizer (`training.optimizer_offload = f`): every step the offloaded share's gradients go
//!   to the host in their reduction precision and the updated 16-bit weights come back, one
//!   after the other and not overlapped — Megatron-Core's default without
//!   `--overlap-cpu-optimizer-d2h-h2d` (`HybridDeviceOptimizer`); ZeRO-Offload (Ren et al.,
//!   ATC'21, §4) moves the same two tensors. The CPU's own Adam step is not priced.
//! - Activations (`training.activation_offload = a`): that share of the slowest rank's stored
//!   layer activations leaves under the micro-batch's forward and comes back under its backward;
//!   only the excess over the compute shows.
//!
//! The link is [`GpuSpec::host_link_gbps`] per direction (PCIe Gen4/Gen5 x16, NVLink-C2C on
//! Grace) at the measured PCIe copy efficiency [`super::comm::PCIE_EFFICIENCY`].

use super::inputs::Inputs;
use super::optimizer::local_params;
use super::stage::StageTimes;
use crate::scenario::GpuSpec;

/// Exposed host-link time of one step for the critical stage `crit` holding `stage_params`
/// parameters, seconds.
pub(crate) fn offload_s(x: &Inputs, gpu: &GpuSpec, crit: &StageTimes, stage_params: f64) -> f64 {
    let bps = gpu.host_link_gbps() * 1e9 * super::comm::PCIE_EFFICIENCY;
    let f = x.s.training.optimizer_offload();
    let opt = if f > 0.0 {
        let grad_bytes = super::data_parallel::reduced_grad_bytes(x);
        f * local_params(x, stage_params) * (grad_bytes + x.pbytes) / bps
    } else {
        0.0
    };
    let a = x.s.training.activation_offload();
    let act = if a > 0.0 {
        let bytes = a
            * crit.layers
            * crate::engine::memory::activations::layer_activations_per_gpu(x.s, &x.per_gpu, x.d)
                .total();
        let t = bytes / bps;
        x.mf * ((t - crit.fwd).max(0.0) + (t - crit.bwd - crit.rc).max(0.0))
    } else {
        0.0
    };
    opt + act
}
