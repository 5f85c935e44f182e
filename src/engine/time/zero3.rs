//! ZeRO-3 / FSDP: per micro-batch, every layer's parameters are all-gathered forward and again
//! backward (re-gathered, since they are resharded after forward: FSDP `reshard_after_forward`,
//! DeepSpeed releases a parameter whose next use is further than `stage3_max_reuse_distance`),
//! and its gradients reduce-scattered; only the next unit is prefetched under the current
//! unit's compute. With full recomputation the recomputed forward and the backward of a block
//! share one gather (FSDP's pre-backward hook gathers before the checkpointed forward reruns;
//! DeepSpeed keeps a parameter reused within `stage3_max_reuse_distance`).
//!
//! How many collectives a layer issues is the framework's ([`FsdpMechanism`]): each one is a ring
//! whose latency grows with the shard group ([`super::comm::Group::gather_s`]) — this is why
//! ZeRO-3 stops scaling on hundreds of nodes while its bytes per GPU stay constant.
//! HSDP (`parallel.shard_ranks`): gathers and reduce-scatters run inside the shard group; the
//! reduced gradient shard is then all-reduced across the replicas.

use super::comm::Group;
use super::inputs::Inputs;
use super::layer::sm_usage;
use super::stack::{FsdpMechanism, DEEPSPEED_REDUCE_BUCKET_ELEMENTS};

/// Per-layer, per-micro-batch ZeRO-3 costs on one GPU, seconds (all zero without ZeRO-3).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Zero3Layer {
    /// All-gathers of the layer's parameters (once forward, once backward).
    pub ag: f64,
    /// Reduce-scatter of the layer's gradients (and, with HSDP, the all-reduce of the shard
    /// across replicas).
    pub rs: f64,
    /// All-gather calls per layer.
    pub ag_calls: f64,
    /// Copy-out of the gathered buffer forward.
    pub copy_fwd: f64,
    /// Copy-out backward and gradient copy-in.
    pub copy_bwd: f64,
    /// Every collective waits for compute and compute for it (a device synchronisation before
    /// each gather, [`FsdpMechanism::PerParameterSync`]): nothing overlaps.
    pub serial: bool,
}

impl Zero3Layer {
    /// The ZeRO-3 costs of one layer of `x`.
    pub(crate) fn of(x: &Inputs) -> Zero3Layer {
        if !x.zero3 {
            return Zero3Layer::default();
        }
        let params = x.sharded.layer();
        let bytes = params * x.pbytes;
        let g = &x.groups.shard;
        // The layer's weight tensors (the small norms and biases stay resident under
        // DeepSpeed's persistence threshold).
        let tensors = || x.d.layer_gemms().1.max(1) as f64;
        let (ag_calls, rs_calls) = match x.stack.fsdp {
            // One gather per weight tensor; gradients in reduce buckets spanning layers.
            FsdpMechanism::PerParameter => (
                tensors(),
                (params / DEEPSPEED_REDUCE_BUCKET_ELEMENTS).max(1e-3),
            ),
            // One gather and one reduce-scatter per weight tensor.
            FsdpMechanism::PerParameterSync => (tensors(), tensors()),
            FsdpMechanism::PerBlock | FsdpMechanism::PerBlockCopyOut => (1.0, 1.0),
        };
        let replicas = &x.groups.replica;
        let shard_ar = replicas.all_reduce_s(bytes / g.n.max(1.0));
        let (copy_fwd, copy_bwd) = match x.stack.fsdp {
            // Read + write the gathered buffer forward and backward, and the gradients into
            // the reduce-scatter input.
            FsdpMechanism::PerBlockCopyOut => (
                x.dev.memory_s(2.0 * bytes, 1.0),
                x.dev.memory_s(4.0 * bytes, 2.0),
            ),
            // Per rank and call, two eager PyTorch ops on the host: DeepSpeed's Python loop
            // cuts the rank's slice (`narrow`, `partition_parameters.py` l. 810-814 and
            // 925-948 at v0.3.16) and c10d copies it out of (or into) the flat NCCL buffer with
            // one copy kernel. Each costs about one kernel launch ([`Device::kernel_s`]: ATen
            // dispatch plus `cudaLaunchKernel`, ≈ 5 µs; the slices are too small for their
            // bytes to matter), and with a synchronisation before every gather the host's time
            // is the step's. Forward's gathers, then backward's gathers and reduce-scatters.
            FsdpMechanism::PerParameterSync => {
                let per_call = 2.0 * g.n * x.dev.kernel_s;
                (ag_calls * per_call, (ag_calls + rs_calls) * per_call)
            }
            FsdpMechanism::PerParameter | FsdpMechanism::PerBlock => (0.0, 0.0),
        };
        Zero3Layer {
            ag: calls_s(g, ag_calls, bytes),
            rs: calls_s(g, rs_calls, bytes) + shard_ar,
            ag_calls,
            copy_fwd,
            copy_bwd,
            serial: x.stack.fsdp == FsdpMechanism::PerParameterSync,
        }
    }

    /// Exposed ZeRO-3 time of a stage of `nl` layers per micro-batch, given the stage's forward,
    /// backward and recompute time: the first gather forward and the last reduce-scatter
    /// backward are exposed; with DP overlap on, the others run under the neighbouring layer's
    /// compute (prefetch depth 1), and what does not fit is exposed; hidden collectives still
    /// take their SM share ([`sm_usage`]).
    pub(crate) fn stage_exposed_s(&self, x: &Inputs, nl: f64, fwd: f64, bwd: f64, rc: f64) -> f64 {
        let ag_total = nl * self.ag;
        let fwd_exp = self.ag + (ag_total - self.ag - fwd).max(0.0);
        let bwd_exp = self.rs + (ag_total + nl * self.rs - self.rs - bwd - rc).max(0.0);
        let total = 2.0 * ag_total + nl * self.rs;
        let copies = nl * (self.copy_fwd + self.copy_bwd);
        copies
            + if x.s.parallel.dp_comm_overlap() && !self.serial {
                let exposed = (fwd_exp + bwd_exp).min(total);
                exposed + sm_usage(x.groups.shard.link) * (total - exposed)
            } else {
                total
            }
    }

    /// Collective time of a stage of `nl` layers per micro-batch (hidden or not).
    pub fn stage_total_s(&self, nl: f64) -> f64 {
        nl * (2.0 * self.ag + self.rs)
    }
}

/// `calls` gathers (or reduce-scatters) that together move `bytes`, seconds.
fn calls_s(g: &Group, calls: f64, bytes: f64) -> f64 {
    calls * g.gather_s(bytes / calls)
}
