//! Step 4 of the time model: the data-parallel gradient reduction once per step (DDP all-reduce,
//! ZeRO-1/2 reduce-scatter + parameter all-gather) and its exposed tail; ZeRO-3's per-micro-batch
//! collectives are priced per stage ([`super::zero3`]) and only totalled here.

use super::contention::charge;
use super::inputs::Inputs;
use super::stage::StageTimes;
use super::zero3::Zero3Layer;
use crate::engine::num::{max_num, min_num};

/// Bytes of one reduced gradient element ([`crate::engine::bucket::GradBucket::with`]).
pub(crate) fn reduced_grad_bytes(x: &Inputs) -> f64 {
    x.bucket.grad_bytes
}

/// The data-parallel communication of one step on one GPU of the critical stage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DpStep {
    /// Exposed time per step (outside the per-micro-batch ZeRO-3 part), s.
    pub exposed_s: f64,
    /// All DP collective time per step (hidden or not), s.
    pub total_s: f64,
    /// Bytes this GPU sends per step.
    pub bytes: f64,
    /// Part of `exposed_s`: the compute the hidden collectives' SMs take
    /// ([`super::contention`]), s.
    pub contention_s: f64,
}

impl DpStep {
    /// The DP step of `x` whose slowest stage is `crit` holding `params.0` parameters, of which
    /// `params.1` are gathered as FP8 (FP8 primary weights,
    /// [`crate::scenario::Training::fp8_params`]: the distributed optimizer all-gathers their
    /// 1-byte data, the transpose is made locally; 0 otherwise), and `ends`: whether it holds
    /// the embedding and the output layer.
    pub(crate) fn of(
        x: &Inputs,
        crit: &StageTimes,
        params: (f64, f64),
        ends: (bool, bool),
        z3: &Zero3Layer,
    ) -> DpStep {
        let (stage_params, fp8_gathered) = params;
        let par = &x.s.parallel;
        let dp_g = &x.groups.dp;
        let n_dp = dp_g.n;
        if n_dp <= 1.0 {
            return DpStep::default();
        }
        if x.zero3 {
            // The root unit ([`Zero3Layer::root_unit_s`]) every micro-batch; under pipeline
            // parallelism once per step: the pipeline stage syncs gradients only in the last
            // backward (`torch/distributed/pipelining/stage.py`, `backward_maybe_with_nosync`)
            // and torchtitan keeps the parameters gathered (`reshard_after_forward = not
            // pp_enabled`).
            let per_step = if x.p > 1 { 1.0 } else { x.mf };
            let root = per_step * z3.root_unit_s(x, ends);
            return DpStep {
                exposed_s: root,
                total_s: x.mf * (z3.stage_total_s(crit.layers) - z3.kept_last_s(x)) + root,
                bytes: x.mf * (n_dp - 1.0) / n_dp
                    * (stage_params * (2.0 * x.pbytes + z3.grad_bytes)
                        + crit.layers * z3.ag_rc_bytes),
                contention_s: 0.0,
            };
        }
        let u_dp = x.collective_sm_share(dp_g);
        let g = stage_params * reduced_grad_bytes(x);
        let bucket = x.bucket.bytes;
        let k = (g / bucket).ceil().max(1.0);
        // ZeRO-0 and DeepSpeed's `BF16_Optimizer` all-reduce the gradients; ZeRO-1/2
        // reduce-scatter them.
        let all_reduce = par.zero_stage == 0 || x.stack.bf16_optimizer;
        let reduce = |bytes: f64| {
            if all_reduce {
                dp_g.all_reduce_s(bytes)
            } else {
                dp_g.gather_s(bytes)
            }
        };
        let t_bucket = reduce(g / k);
        let grad_total = k * t_bucket;
        let window_bwd = crit.bwd + crit.rc + crit.tp;
        let mut contention_s = 0.0;
        let mut exp = if x.s.dp_comm_overlap() {
            let e = min_num(
                t_bucket + max_num((k - 1.0) * t_bucket - window_bwd, 0.0),
                grad_total,
            );
            contention_s += charge(grad_total, e, u_dp);
            e
        } else {
            grad_total
        };
        let mut total_s = grad_total;
        let mut bytes = if all_reduce { 2.0 } else { 1.0 } * (n_dp - 1.0) / n_dp * g;
        if par.zero_stage >= 1 {
            let pbytes_total = (stage_params - fp8_gathered) * x.pbytes + fp8_gathered;
            let ag_b = dp_g.gather_s(pbytes_total / k);
            let ag_total = k * ag_b;
            exp += if x.s.dp_comm_overlap() {
                let e = min_num(ag_b + max_num((k - 1.0) * ag_b - crit.fwd, 0.0), ag_total);
                contention_s += charge(ag_total, e, u_dp);
                e
            } else {
                ag_total
            };
            total_s += ag_total;
            bytes += (n_dp - 1.0) / n_dp * pbytes_total;
        }
        DpStep {
            exposed_s: exp + contention_s,
            total_s,
            bytes,
            contention_s,
        }
    }
}
