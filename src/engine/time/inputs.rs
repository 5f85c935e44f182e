//! What every step of the time model reads: a view of the resolved plan
//! ([`crate::engine::plan::Plan`]: dimensions, parameter counts, tokens, bytes per element, the
//! stack's mechanisms, the gradient bucket) beside the time model's own device rates,
//! communication groups and degrees.

use super::compute::{Device, Generation};
use super::groups::Groups;
use super::routing::Routing;
use super::stack::Stack;
use crate::engine::bucket::GradBucket;
use crate::engine::memory::params::ShardedParams;
use crate::engine::per_gpu::PerGpu;
use crate::engine::plan::Plan;
use crate::engine::shape::Shape;
use crate::scenario::{GpuSpec, Scenario};

/// The inputs of the time model for one validated scenario on one GPU (all `Copy`, no allocation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inputs<'a> {
    /// The scenario.
    pub s: &'a Scenario,
    /// The GPU.
    pub gpu: &'a GpuSpec,
    /// Model dimensions.
    pub d: &'a Shape,
    /// Per-GPU parameter counts.
    pub sharded: &'a ShardedParams,
    /// Sustained rates of the GPU in the training precision.
    pub dev: Device,
    /// Communication groups ([`Groups::of`] the layout on the GPU), built by the caller and
    /// borrowed: a copy into the inputs would move every field of the eight groups.
    pub groups: &'a Groups,
    /// Mechanisms of the software stack.
    pub stack: &'a Stack,
    /// How the router picks a token's experts (all-to-all reach, [`Routing::reach`]).
    pub routing: Routing,
    /// GPU generation.
    pub gen: Generation,
    /// Degrees `t, p, d, c, e, v` (each at least 1).
    pub t: u64,
    /// Pipeline stages.
    pub p: u64,
    /// Data-parallel replicas.
    pub dp: u64,
    /// Context-parallel ranks.
    pub c: u64,
    /// Expert-parallel ranks.
    pub e: u64,
    /// Virtual stages (chunks) per pipeline rank.
    pub v: u64,
    /// `t` as a float.
    pub tf: f64,
    /// `c` as a float.
    pub cf: f64,
    /// Micro-batch size `b`.
    pub b: f64,
    /// Micro-batches per step `m`.
    pub m: u64,
    /// `m` as a float.
    pub mf: f64,
    /// Tokens of one micro-batch on one GPU, `b·s/c`.
    pub tok: f64,
    /// Bytes of one activation element.
    pub ab: f64,
    /// `tok`, `ab` and `m` as the plan holds them (for the memory model's per-layer bytes).
    pub per_gpu: PerGpu,
    /// Bytes per parameter of the working (16-bit) weights.
    pub pbytes: f64,
    /// Bytes per parameter of the main gradients.
    pub main_grad_bytes: f64,
    /// Bytes the optimizer step moves per local parameter.
    pub update_bytes: f64,
    /// ZeRO stage 3 / FSDP full sharding.
    pub zero3: bool,
    /// Whether ZeRO shards the routed experts (their shard degree `dp·cp·tp/(ep·etp)` above 1,
    /// [`crate::engine::memory::states::expert_shard_degree`]); at 1 they are whole on the GPU
    /// and ZeRO-3 gathers and reduces none of them ([`super::zero3::Zero3Layer::of`]).
    pub experts_sharded: bool,
    /// The gradient bucket of the data-parallel reduction and its element's bytes.
    pub bucket: GradBucket,
}

impl<'a> Inputs<'a> {
    /// The time model's view of the resolved `plan`: its facts as they are, plus the device
    /// rates of `gpu` (the plan's GPU with the network calibration applied,
    /// [`crate::engine::calibration::links`]) and `groups`, its communication groups
    /// ([`Groups::of`]).
    pub fn new(plan: &'a Plan<'a>, gpu: &'a GpuSpec, groups: &'a Groups) -> Inputs<'a> {
        let s = plan.s;
        let par = &s.parallel;
        let (d, m) = (&plan.shape, plan.per_gpu.micro_batches);
        Inputs {
            s,
            gpu,
            d,
            sharded: &plan.sharded,
            dev: crate::engine::calibration::device(
                Device::new(gpu, s.training.precision, s.training.fp8_recipe()),
                &s.calibration,
                s.training.precision,
            ),
            groups,
            stack: &plan.stack,
            routing: Routing::of(s.model.moe.as_ref(), d.k, d.experts),
            gen: Generation::of(gpu),
            t: par.tp.max(1),
            p: par.pp.max(1),
            dp: par.dp.max(1),
            c: par.cp.max(1),
            e: par.ep.max(1),
            v: par.vp.max(1),
            tf: par.tp.max(1) as f64,
            cf: par.cp.max(1) as f64,
            b: s.training.micro_batch.max(1) as f64,
            m,
            mf: m as f64,
            tok: plan.per_gpu.tokens,
            ab: plan.per_gpu.element_bytes,
            per_gpu: plan.per_gpu,
            pbytes: plan.param_bytes.weights,
            main_grad_bytes: plan.param_bytes.main_grads,
            update_bytes: plan.param_bytes.update,
            zero3: par.zero_stage >= 3,
            experts_sharded: plan.param_bytes.expert_shard > 1.0,
            bucket: plan.bucket,
        }
    }

    /// This GPU's SMs: its own count, else its generation's ([`super::userbuffers::sm_count`]).
    pub fn sms(&self) -> f64 {
        if self.dev.sms > 0.0 {
            self.dev.sms
        } else {
            super::userbuffers::sm_count(self.gen)
        }
    }

    /// Fraction of compute lost while an NCCL collective of `g` runs under it
    /// ([`super::contention::collective_sm_share`]), on this GPU's SMs ([`Inputs::sms`]).
    pub fn collective_sm_share(&self, g: &super::comm::Group) -> f64 {
        super::contention::collective_sm_share(g, self.gen, self.sms())
    }

    /// Fraction of compute lost while an NCCL point-to-point transfer of pattern `kind` on `g`
    /// runs under it ([`super::contention::p2p_sm_share`]), on this GPU's SMs.
    pub fn p2p_sm_share(&self, g: &super::comm::Group, kind: super::contention::P2p) -> f64 {
        super::contention::p2p_sm_share(g, self.gen, self.sms(), kind)
    }
}

/// Runs `f` on the time-model inputs of `s` (tests of the time model's steps build them this
/// way; `s` must be valid).
#[cfg(test)]
pub(crate) fn with_inputs<R>(s: &Scenario, f: impl FnOnce(&Inputs) -> R) -> R {
    let gpu = s.gpu().expect("a known GPU");
    let plan = Plan::new(s, &gpu);
    let groups = Groups::of(&gpu, &s.parallel);
    f(&Inputs::new(&plan, &gpu, &groups))
}

/// BLOOM-176B as BigScience trained it (70 layers, hidden 14336, 112 heads, vocab 250 880,
/// tied embeddings; DeepSpeed bf16, tp 4, pp 12, dp 8, micro-batch 2, global batch 2048 on 384
/// A100s, 6.25 GB/s per GPU between nodes), the base of the DeepSpeed tests.
#[cfg(test)]
pub(crate) fn bloom_176b() -> Scenario {
    crate::scenario::parse(
        r#"{"model": {"name": "BLOOM-176B", "layers": 70, "hidden": 14336, "heads": 112,
             "ffn_hidden": 57344, "ffn_act": "gelu", "vocab": 250880, "seq_len": 2048,
             "tied_embeddings": true},
            "training": {"global_batch": 2048, "micro_batch": 2, "precision": "bf16",
             "optimizer": "adam", "recompute": "full", "framework": "deepspeed"},
            "parallel": {"tp": 4, "pp": 12, "dp": 8, "zero_stage": 1},
            "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 384, "gpus_per_node": 8,
             "inter_node_gbps": 6.25}}"#,
    )
    .expect("valid scenario")
}
