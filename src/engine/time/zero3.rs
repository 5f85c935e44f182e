//! ZeRO-3 / FSDP: per micro-batch, every layer's parameters are all-gathered forward and again
//! backward and its gradients reduce-scattered, prefetched under the neighbouring layer's compute.

use super::inputs::Inputs;
use super::layer::sm_usage;

/// Per-layer, per-micro-batch ZeRO-3 costs on one GPU, seconds (all zero without ZeRO-3).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Zero3Layer {
    /// All-gather of the layer's parameters (once forward, once backward).
    pub ag: f64,
    /// Reduce-scatter of the layer's gradients.
    pub rs: f64,
    /// Copy-out of the gathered buffer forward.
    pub copy_fwd: f64,
    /// Copy-out backward and gradient copy-in.
    pub copy_bwd: f64,
}

impl Zero3Layer {
    /// The ZeRO-3 costs of one layer of `x`.
    pub(crate) fn of(x: &Inputs) -> Zero3Layer {
        if !x.zero3 {
            return Zero3Layer::default();
        }
        let bytes = x.sharded.layer() * x.pbytes;
        let g = &x.groups.dp;
        Zero3Layer {
            ag: g.gather_s(bytes),
            rs: g.gather_s(bytes),
            // FSDP copies the gathered flat buffer out to the parameters (forward and again
            // backward) and copies gradients into the reduce-scatter buffer: read + write each
            // time (PyTorch FSDP2 `foreach_all_gather_copy_out`, `foreach_reduce` copy-in).
            copy_fwd: x.dev.memory_s(2.0 * bytes, 1.0),
            copy_bwd: x.dev.memory_s(4.0 * bytes, 2.0),
        }
    }

    /// Exposed ZeRO-3 time of a stage of `nl` layers per micro-batch, given the stage's forward,
    /// backward and recompute time: the first gather forward and the last reduce-scatter
    /// backward are exposed, the rest hides under compute when DP overlap is on; hidden
    /// collectives still take their SM share ([`sm_usage`]).
    pub(crate) fn stage_exposed_s(&self, x: &Inputs, nl: f64, fwd: f64, bwd: f64, rc: f64) -> f64 {
        let ag_total = nl * self.ag;
        let fwd_exp = self.ag + (ag_total - self.ag - fwd).max(0.0);
        let bwd_exp = self.rs + (ag_total + nl * self.rs - self.rs - bwd - rc).max(0.0);
        let total = 2.0 * ag_total + nl * self.rs;
        let copies = nl * (self.copy_fwd + self.copy_bwd);
        copies
            + if x.s.parallel.dp_comm_overlap() {
                let exposed = (fwd_exp + bwd_exp).min(total);
                exposed + sm_usage(x.groups.dp.link) * (total - exposed)
            } else {
                total
            }
    }

    /// Collective time of a stage of `nl` layers per micro-batch (hidden or not).
    pub fn stage_total_s(&self, nl: f64) -> f64 {
        nl * (2.0 * self.ag + self.rs)
    }
}
