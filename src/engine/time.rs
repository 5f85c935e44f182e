//! Step time, FLOPs, throughput and communication volumes.
//!
//! One step = the pipeline schedule over `m = B/(b·d)` micro-batches, then the exposed tail of
//! the data-parallel gradient reduction, then the optimizer:
//! `step = compute + recompute + bubble + optimizer + offload + host + exposed comm (tp, cp, ep,
//! pp, dp)`.
//!
//! The model runs in named steps, each in its own file and testable alone:
//! 1. [`layer`]: one layer, one micro-batch, one GPU — GEMMs ([`compute`]), the attention core
//!    ([`attention`]), element-wise work, recomputation, and the in-layer collectives
//!    ([`layer_comm`]: TP/SP, CP; EP) priced by [`comm`]; ZeRO-3's per-layer gathers ([`zero3`]);
//!    the embedding and output layer ([`ends`]).
//! 2. [`stage`]: `layers ×` the layer costs plus the ends, per stage; the slowest stage.
//! 3. [`pipeline`]: the bubble of the schedule.
//! 4. [`data_parallel`] and [`optimizer`]: the per-step gradient reduction tail and the update;
//!    [`tied`]: the all-reduce of a tied embedding's gradient between the pipeline's ends;
//!    [`grad_accumulation`]: DeepSpeed's gradient accumulation across micro-batches;
//!    [`offload`]: host-link transfers of offloaded optimizer states and activations.
//! 5. [`host`]: eager PyTorch's host time per micro-batch and optimizer phase, and how long the
//!    GPU waits for it.
//! 6. [`rates`]: FLOPs, tokens/s, MFU/HFU; [`volumes`]: bytes per step per GPU.
//!
//! Closed forms only, O(pp·vp) work, no allocation.
//!
//! Every child, one line each:
//! - [`breakdown`]: what the time model fills: step time by component, FLOPs, throughput.
//! - [`inputs`]: what every step reads, worked out once per estimate (degrees, tokens, bytes
//!   per element, the stack's mechanisms, the gradient bucket).
//! - [`stack`]: the software stack as physical mechanisms (enums per framework default).
//! - [`groups`]: the communication groups of one layout, one per parallel dimension, and their
//!   link tier.
//! - [`comm`]: collectives as NCCL runs them per link tier: ring and tree all-reduce, ring
//!   all-gather / reduce-scatter, all-to-all, point-to-point.
//! - [`compute`]: GEMM and memory-bound time on one GPU (rates per GPU generation).
//! - [`contention`]: the compute that communication hidden under it still takes (SMs held by
//!   NCCL's channels), a named part of the exposed communication.
//! - [`generation`]: GPU generations (Volta, Ampere, Hopper, Blackwell) by tensor-core peaks.
//! - [`waves`]: wave quantization of GEMMs (tiles over the SMs).
//! - [`flops`]: FLOP counts per token and per step.
//! - [`fp8`]: FP8 recipes: quantization casts and FP8 GEMM rates.
//! - [`rowwise`]: torchao's row-wise float8 recipe, from its H100 table.
//! - [`attention`]: the attention core (scores, softmax, weighted sum) and its kernels.
//! - [`blackwell_cudnn`]: cuDNN's fused attention on Blackwell as NVIDIA measured it.
//! - [`layer`]: step 1, one layer, one micro-batch, one GPU.
//! - [`layer_comm`]: the collectives inside one layer (TP/SP, CP, EP).
//! - [`async_tp`]: PyTorch's async tensor parallelism (torchtitan).
//! - [`userbuffers`]: Transformer Engine's userbuffers TP overlap (Megatron-LM/NeMo).
//! - [`cp_exchange`]: the costs of one layer's context-parallel exchange, whichever ring runs it.
//! - [`ring`]: PyTorch's ring attention for context parallelism.
//! - [`moe`]: one mixture-of-experts MLP, the busiest GPU: router, dispatch, experts, combine.
//! - [`moe_bookkeeping`]: the router and permutation kernels each stack launches per MoE layer.
//! - [`routing`]: where a token's routed copies go (all-to-all reach, DeepEP, group limits).
//! - [`eager_block`]: torchtitan's Llama block run eagerly, operator by operator.
//! - [`hf_eager_layer`]: Hugging Face's eager BERT layer, operator by operator.
//! - [`zero3`]: ZeRO-3 / FSDP per-layer gathers and reduce-scatters.
//! - [`ends`]: the pipeline's ends: embedding, output layer and loss, MTP modules.
//! - [`fixed`]: the gradient-norm reduction and the step's costs that do not shrink with the
//!   work per GPU.
//! - [`stage`]: step 2, a stage's layers plus its ends; the slowest stage.
//! - [`pipeline`]: step 3, the bubble of each schedule.
//! - [`data_parallel`]: step 4, the gradient reduction tail.
//! - [`grad_accumulation`]: DeepSpeed's per-micro-batch gradient accumulation.
//! - [`tied`]: the all-reduce of a tied embedding's gradient between the pipeline's ends.
//! - [`unpad`]: eager PyTorch's unpadding around FlashAttention-2's variable-length kernel.
//! - [`optimizer`]: the optimizer update.
//! - [`offload`]: host-link time of offloaded optimizer states and activations.
//! - [`host`]: eager PyTorch's host time and how long the GPU waits for it.
//! - [`rates`]: FLOPs, tokens/s, MFU/HFU.
//! - [`volumes`]: bytes each GPU moves per step, per kind of communication.

pub mod async_tp;
pub mod attention;
pub mod blackwell_cudnn;
pub mod breakdown;
pub mod comm;
pub mod compute;
pub mod contention;
pub mod cp_exchange;
pub mod data_parallel;
pub mod eager_block;
pub mod ends;
pub mod fixed;
pub mod flops;
pub mod fp8;
pub mod generation;
pub(crate) mod grad_accumulation;
pub mod groups;
pub mod hf_eager_layer;
pub mod host;
pub(crate) mod inputs;
pub mod layer;
pub mod layer_comm;
pub mod moe;
pub mod moe_bookkeeping;
pub mod offload;
pub mod optimizer;
pub mod pipeline;
pub mod rates;
pub mod ring;
pub mod routing;
pub mod rowwise;
pub mod stack;
pub mod stage;
pub(crate) mod tied;
pub mod unpad;
pub mod userbuffers;
pub mod volumes;
pub mod waves;
pub mod zero3;

use super::memory::MemoryEstimate;
use super::plan::Plan;
use crate::scenario::GpuSpec;
use breakdown::{CommTimes, FlopsEstimate, Throughput, TimeEstimate};
use comm::CommBreakdown;
use data_parallel::DpStep;
use ends::EndCosts;
use inputs::Inputs;
use layer::LayerCosts;
pub use rates::peak_flops;
use zero3::Zero3Layer;

/// Fills the time, FLOPs, throughput and communication volumes of the resolved `plan` (of a
/// validated scenario); `memory` is the already-filled memory estimate of the same plan, whose
/// per-run parameter counts it reads (any missing there are worked out again).
pub fn fill(
    plan: &Plan,
    memory: &MemoryEstimate,
    time: &mut TimeEstimate,
    flops: &mut FlopsEstimate,
    throughput: &mut Throughput,
    comm_out: &mut CommBreakdown,
) {
    let s = plan.s;
    let links = super::calibration::links(plan.gpu, &s.calibration);
    let gpu: &GpuSpec = &links;
    let x = Inputs::new(plan, gpu, &plan.groups);
    // 1. One layer, the pipeline's ends, ZeRO-3 per layer.
    let kinds = stage::LayerKinds::of(&x);
    let layer = &kinds.moe;
    let ends = EndCosts::of(&x, &layer.tp);
    let z3 = Zero3Layer::of(&x);
    // 2. Stages; 3. the pipeline bubble.
    let stages = stage::stages(&x, plan, &kinds, &ends, &z3);
    let crit = stages.crit;
    let schedule = s.parallel.schedule();
    let bubble = pipeline::rounds_bubble(&stages.sums(), x.p, &x.per_gpu, x.v, schedule);
    // 4. Data parallel, optimizer and offloading, for the critical stage's parameters.
    let held = stages.crit_holds;
    let placed = || x.sharded.placed(held.mix, held.embedding, held.output);
    // Its parameters on one GPU: the count its memory row holds, else worked out again.
    let stage_params = match memory.rows.run_at(stages.crit_run, crit.stage) {
        Some(run) => run.shared.params,
        None => placed().total(),
    };
    // FP8 primary weights are gathered in FP8: the stage's GEMM weights on one GPU.
    let fp8_gathered = if s.training.fp8_params() {
        placed().matrices
    } else {
        0.0
    };
    let dp = DpStep::of(
        &x,
        &crit,
        (stage_params, fp8_gathered),
        (held.embedding, held.output),
        &z3,
    );
    // The update waits for the gradient norm's all-reduce ([`fixed`]).
    let grad_norm = fixed::grad_norm_s(&x);
    let optimizer = optimizer::optimizer_s(&x, stage_params) + grad_norm;
    let offload = offload::offload_s(&x, gpu, &crit, stage_params);
    // 5. The eager host: per micro-batch against the critical stage's GPU time, and the
    // optimizer phase against the update.
    let stall = host::HostStall::of(
        &x,
        crit.layers,
        (held.embedding, held.output),
        crit.total(),
        optimizer,
    );
    // Assemble.
    let tied = assemble(&x, &crit, layer, &dp, bubble, optimizer, time);
    time.offload_s = offload;
    time.host_s = stall.step_s(x.mf);
    time.grad_norm_s = grad_norm;
    time.fixed = breakdown::FixedCosts::of(
        optimizer,
        grad_norm,
        bubble,
        dp.exposed_s,
        tied,
        stall.optimizer_s,
    );
    time.step_s += offload + time.host_s;
    *comm_out = volumes::volumes(&x, &crit, layer, &dp);
    // 6. Rates.
    rates::fill(s, gpu, x.d, time.step_s, flops, throughput);
}

/// Writes the step breakdown: `m ×` the critical stage's per-micro-batch terms, the bubble, the
/// DP tail, the tied-embedding all-reduce ([`tied`], counted with the pipeline's communication)
/// and the optimizer; hidden communication is each dimension's total minus its exposed part.
/// Returns the tied-embedding all-reduce.
fn assemble(
    x: &Inputs,
    crit: &stage::StageTimes,
    layer: &LayerCosts,
    dp: &DpStep,
    bubble: f64,
    optimizer: f64,
    time: &mut TimeEstimate,
) -> f64 {
    let mf = x.mf;
    let tied = tied::tied_embedding_sync_s(x);
    time.micro_batches = x.m;
    time.weight_grad_s = mf * crit.wgrad;
    time.moe_tokens_s = mf * crit.moe_tokens;
    time.dp_bucket_bytes = x.bucket.bytes;
    time.forward_s = mf * crit.fwd;
    time.backward_s = mf * crit.bwd;
    time.compute_s = time.forward_s + time.backward_s;
    time.recompute_s = mf * crit.rc;
    time.bubble_s = bubble;
    time.optimizer_s = optimizer;
    time.exposed_comm_s = CommTimes {
        tp: mf * crit.tp,
        cp: mf * crit.cp,
        ep: mf * crit.ep,
        pp: mf * crit.pp + tied,
        dp: mf * crit.dp + dp.exposed_s,
    };
    let c = &crit.contention;
    time.overlap_contention_s = CommTimes {
        tp: mf * c.tp,
        cp: mf * c.cp,
        ep: mf * c.ep,
        pp: mf * c.pp,
        dp: mf * c.dp + dp.contention_s,
    };
    let tp_total = mf * crit.layers * layer.tp.total;
    let cp_total = mf * crit.layers * (layer.cp.fwd_total + layer.cp.rc_total + layer.cp.bwd_total);
    time.hidden_comm_s = CommTimes {
        tp: (tp_total - time.exposed_comm_s.tp).max(0.0),
        cp: (cp_total - time.exposed_comm_s.cp).max(0.0),
        ep: mf * crit.hidden_ep,
        pp: mf * crit.hidden_pp,
        dp: (dp.total_s - time.exposed_comm_s.dp).max(0.0),
    };
    time.step_s = time.compute_s
        + time.recompute_s
        + time.bubble_s
        + time.optimizer_s
        + time.exposed_comm_s.total();
    tied
}
