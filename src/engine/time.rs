//! Step time, FLOPs, throughput and communication volumes.
//!
//! One step = the pipeline schedule over `m = B/(b·d)` micro-batches, then the exposed tail of
//! the data-parallel gradient reduction, then the optimizer:
//! `step = compute + recompute + bubble + optimizer + exposed comm (tp, cp, ep, pp, dp)`.
//! Per micro-batch and stage the engine prices every GEMM ([`compute`]), the attention core,
//! the memory-bound element-wise work, and the collectives of each parallel dimension
//! ([`comm`]); the slowest stage sets the pace and the others add the bubble ([`pipeline`]).
//! FLOP counts (for MFU/HFU) are in [`flops`].
//!
//! Closed forms only, O(pp·vp) work, no allocation.

pub mod comm;
pub mod compute;
pub mod flops;
pub mod pipeline;

use super::estimate::{CommTimes, FlopsEstimate, MemoryEstimate, Throughput, TimeEstimate};
use super::layout::{holds_embedding, holds_output, rank_layers};
use super::memory::activations::{micro_batches, tokens_per_gpu};
use super::memory::params::ShardedParams;
use super::memory::states::scenario_bytes_per_param;
use super::shape::Shape;
use crate::scenario::{GpuSpec, Precision, Recompute, Scenario};
use comm::{Collective, CommBreakdown, CommVolume, Group};
use compute::Device;

/// Element-wise bytes per token per layer in the forward pass, in units of one activation
/// element per hidden unit: two norms (read + write, 2 each), two fused bias-dropout-residual
/// adds (read input and residual, write output, ≈ 3 each). Counted from Megatron-LM's layer
/// (`transformer_layer.py`: input_layernorm, self_attention, bias_dropout_add,
/// pre_mlp_layernorm, mlp, bias_dropout_add). Backward moves about twice as much.
const ELEMENTWISE_PER_H: f64 = 10.0;
/// Element-wise kernels per layer forward (norms, residual adds, activation, rotary, casts).
const ELEMENTWISE_KERNELS: f64 = 8.0;
/// Adam step bytes per local parameter: read fp32 grad (4), read+write fp32 master (8), both
/// moments (16), write the 16-bit copy (2), grad-norm read (4), zero the grad (4) ≈ 38
/// (memory-bound multi-tensor apply; llm-analysis prices the update at model-state bytes / HBM).
const OPTIMIZER_BYTES_PER_PARAM: f64 = 38.0;
/// Fused softmax (+ mask + dropout) traffic per attention score element in the forward pass
/// without flash attention, in activation elements: read and write the scores (2), dropout
/// read/write (2) and its 1-byte mask (≈ 0.5 element) (Korthikanti et al. 2022 §4.1 lists the
/// same tensors: softmax output, dropout mask and output).
const SOFTMAX_ELEMENTS: f64 = 4.5;

/// Cross-entropy memory traffic per logit over forward and backward, bytes (PyTorch's unfused
/// `cross_entropy` on upcast logits, vocab-parallel: each rank its `V/t` columns). Tally:
/// forward read the 16-bit logits 2 + write the fp32 upcast 4, max and sum-of-exponentials reads
/// 4 + 4, log-softmax write 4 and read 4 for the target gather; backward read 4, gradient write
/// 4, cast back read 4 + write 2, gradient of the upcast read 4 ≈ 40. Half is charged to each
/// pass. Megatron's fused vocab-parallel cross-entropy moves less; this is the conservative side.
const CE_BYTES_PER_LOGIT: f64 = 40.0;
/// Kernels of the loss over both passes: upcast, max, sum-exp, log-softmax, gather forward, and
/// their backward counterparts (one launch each, PyTorch eager).
const CE_KERNELS: f64 = 10.0;
/// fp32 bytes per embedding-table element touched in the embedding backward: the dense
/// gradient of the (vocab-parallel) table `V·h/t` is written in fp32 main-grad precision
/// (`memory::states`: 4 B gradients).
const EMBEDDING_GRAD_BYTES: f64 = 4.0;
/// Kernels of the optimizer step: gradient norm, clipping scale, the multi-tensor Adam update and
/// the copy to the 16-bit weights (Megatron / Apex `multi_tensor_applier`, one launch each).
const OPTIMIZER_KERNELS: f64 = 4.0;

/// Fills the time, FLOPs, throughput and communication volumes of `s` on `gpu`.
/// `s` is already validated; `memory` is the already-filled memory estimate (unused so far).
pub fn fill(
    s: &Scenario,
    gpu: &GpuSpec,
    memory: &MemoryEstimate,
    time: &mut TimeEstimate,
    flops: &mut FlopsEstimate,
    throughput: &mut Throughput,
    comm_out: &mut CommBreakdown,
) {
    let _ = memory;
    let d = Shape::of(&s.model);
    let sharded = ShardedParams::new(s);
    let dev = Device::new(gpu, s.training.precision);
    let par = &s.parallel;
    let (t, p, dp, c, e, v) = (
        par.tp.max(1),
        par.pp.max(1),
        par.dp.max(1),
        par.cp.max(1),
        par.ep.max(1),
        par.vp.max(1),
    );
    let (tf, cf) = (t as f64, c as f64);
    let b = s.training.micro_batch.max(1) as f64;
    let global_batch = s.training.global_batch as f64;
    let m = micro_batches(s);
    let mf = m as f64;
    let schedule = par.schedule();
    let recompute = s.training.recompute;
    let flash = s.training.flash_attention;
    let ab = dev.act_bytes;

    // Groups (placement: TP innermost, then CP, then DP, then PP).
    let tp_g = Group::new(gpu, t, 1);
    let cp_g = Group::new(gpu, c, t);
    let dp_g = Group::new(gpu, dp.saturating_mul(c), t);
    let ep_g = Group::new(gpu, e, t.saturating_mul(c));
    let pp_g = Group::new(
        gpu,
        if p > 1 { 2 } else { 1 },
        t.saturating_mul(c).saturating_mul(dp),
    );

    // ---- one layer, one micro-batch, one GPU ----
    let tok = tokens_per_gpu(s); // b·s/c: CP splits the sequence
    let h_sp = if par.sp && t > 1 { d.h / tf } else { d.h };
    let (gemm_fwd, gemm_col_fwd) = layer_gemms_s(&dev, &d, tok, tf, e as f64);
    // Attention core.
    let heads_local = d.heads / tf;
    let d_h = d.d_h;
    let (attn_fwd, attn_bwd) = if flash {
        // Causal flash attention skips the masked half of the score matrix.
        let elements = 0.5 * b * heads_local * (d.s / cf) * d.s;
        dev.flash_s(elements, d_h)
    } else {
        let batch = b * heads_local;
        let sq = d.s / cf;
        let mm = dev.bmm16_s(batch, sq, d_h, d.s); // QKᵀ
        let mm2 = dev.bmm16_s(batch, sq, d.s, d_h); // attention·V
        let scores = batch * sq * d.s;
        let sm = dev.memory_s(SOFTMAX_ELEMENTS * ab * scores, 2.0);
        (mm + mm2 + sm, 2.0 * (mm + mm2) + 2.0 * sm)
    };
    // Element-wise work (norms, residuals, activation, rotary; FP8 casts).
    let f_local = d.f_active / tf;
    let ew_fwd_bytes =
        ab * tok * (ELEMENTWISE_PER_H * h_sp + d.c_ffn * f_local + 2.0 * (d.q + d.kv) / tf);
    let fp8_bytes = if dev.fp8 {
        // Cast every GEMM input to FP8 (read 2, write 1 byte) forward, every output gradient
        // backward (Transformer Engine).
        3.0 * tok * (2.0 * d.h + d.q / tf + f_local)
    } else {
        0.0
    };
    let ew_fwd = dev.memory_s(ew_fwd_bytes + fp8_bytes, ELEMENTWISE_KERNELS);
    let ew_bwd = dev.memory_s(2.0 * ew_fwd_bytes + fp8_bytes, 2.0 * ELEMENTWISE_KERNELS);
    let layer_fwd = gemm_fwd + attn_fwd + ew_fwd;
    let layer_bwd = 2.0 * gemm_fwd + attn_bwd + ew_bwd;

    // TP/SP collectives per layer: 2 all-reduces of T·h forward and 2 backward (with SP each is a
    // reduce-scatter + all-gather pair of the same volume; Korthikanti et al. 2022 §4.2.2).
    // Backward, the column-parallel input-gradient reduction runs under the weight-gradient GEMM
    // (Megatron-LM `async_tensor_model_parallel_allreduce`, on by default since 2021).
    let act_msg = tok * d.h * ab;
    let coll = if par.sp {
        2.0 * tp_g.gather_s(act_msg)
    } else {
        tp_g.all_reduce_s(act_msg)
    };
    let tp_fwd_total = 2.0 * coll;
    let tp_bwd_total = 2.0 * coll;
    let (tp_fwd_exp, tp_bwd_exp) = if par.tp_comm_overlap() {
        // Userbuffers overlap: a collective hides under its neighbouring GEMM.
        (
            (tp_fwd_total - gemm_fwd).max(0.0),
            (tp_bwd_total - 2.0 * gemm_fwd).max(0.0),
        )
    } else {
        (tp_fwd_total, coll + (coll - gemm_col_fwd).max(0.0))
    };

    // CP ring: (c−1) steps exchanging this rank's K and V chunk, overlapped with the attention
    // of the chunk already received (Megatron CP doc); backward moves K, V and their gradients.
    let kv_msg = 2.0 * tok * (d.kv / tf) * ab;
    let cp_step = cp_g.p2p_s(kv_msg);
    let cpm1 = cf - 1.0;
    let cp_fwd_total = cpm1 * cp_step;
    let cp_bwd_total = cpm1 * 2.0 * cp_step;
    let cp_fwd_exp = cpm1 * (cp_step - attn_fwd / cf).max(0.0);
    let cp_bwd_exp = cpm1 * (2.0 * cp_step - attn_bwd / cf).max(0.0);

    // EP all-to-all: dispatch and combine, forward and backward, k·T·h each (FORMULAS.md §7.5).
    let ep_layer = if d.experts > 0.0 {
        4.0 * ep_g.gather_s(d.k * tok * d.h * ab)
    } else {
        0.0
    };

    // Recomputation per layer (forward work done again inside backward).
    let (rc_layer, rc_tp) = match recompute {
        Recompute::None => (0.0, 0.0),
        // Per-op selective checkpointing (with flash attention; memory::activations): every
        // other weight GEMM and the element-wise ops are recomputed, the attention kernel's
        // output and the reduce-scatter outputs are saved (no collective is repeated).
        Recompute::Selective if flash => {
            (op_sac_gemms_s(&dev, &d, tok, tf, e as f64) + ew_fwd, 0.0)
        }
        Recompute::Selective => (attn_fwd, 0.0),
        Recompute::Full => (layer_fwd, tp_fwd_exp),
    };

    // ZeRO-3 / FSDP: per micro-batch, all-gather each layer's parameters forward and backward and
    // reduce-scatter its gradients, prefetched under the previous layer's compute.
    let layer_params_local = sharded.layer();
    // Bytes per parameter of the working weights and of the gradients the DP reduction moves
    // (the memory half's accounting, `memory::states`: fp32 main grads for 16-bit training,
    // 16-bit ones with `training.grad_reduce_in_fp32 = false`).
    let (pbytes, main_grad_bytes, _) = scenario_bytes_per_param(s);
    let zero3 = par.zero_stage >= 3;
    let z3_ag = if zero3 {
        dp_g.gather_s(layer_params_local * pbytes)
    } else {
        0.0
    };
    let z3_rs = if zero3 {
        dp_g.gather_s(layer_params_local * pbytes)
    } else {
        0.0
    };

    // FSDP copies the gathered flat buffer out to the parameters (forward and again backward)
    // and copies gradients into the reduce-scatter buffer: read + write each time
    // (PyTorch FSDP2 `foreach_all_gather_copy_out`, `foreach_reduce` copy-in).
    let z3_copy_fwd = if zero3 {
        dev.memory_s(2.0 * layer_params_local * pbytes, 1.0)
    } else {
        0.0
    };
    let z3_copy_bwd = if zero3 {
        dev.memory_s(4.0 * layer_params_local * pbytes, 2.0)
    } else {
        0.0
    };
    // Collectives that overlap compute still take SMs (NCCL runs as kernels): compute slows by
    // this fraction of the overlapped time (Calculon `processor_usage`: 0.15 NVLink, 0.02 IB;
    // FORMULAS.md §7.7).
    let u_tp = sm_usage(tp_g.link);
    let u_cp = sm_usage(cp_g.link);
    let u_dp = sm_usage(dp_g.link);

    // PP: one send forward and one backward per micro-batch per chunk, T·h/t per TP rank
    // (scatter-gather / SP-sharded boundary, Narayanan et al. 2021 §4.1).
    let pp_msg = tok * d.h * ab / tf;
    let pp_mb = if p > 1 {
        2.0 * v as f64 * pp_g.p2p_s(pp_msg)
    } else {
        0.0
    };

    // Embedding (stage 0) and output layer + loss (last stage), per micro-batch.
    let emb_fwd = dev.memory_s(2.0 * tok * d.h * ab, 1.0)
        + if t > 1 {
            tp_g.all_reduce_s(act_msg)
        } else {
            0.0
        };
    let emb_bwd = dev.memory_s(
        2.0 * tok * d.h * ab + EMBEDDING_GRAD_BYTES * d.v * d.h / tf,
        2.0,
    );
    let logit_gemm = dev.gemm_s(tok, d.h, d.v / tf);
    let ce = dev.memory_s(CE_BYTES_PER_LOGIT * tok * d.v / tf, CE_KERNELS);
    let out_fwd = logit_gemm + 0.5 * ce + if t > 1 { coll } else { 0.0 };
    let out_bwd = 2.0 * logit_gemm + 0.5 * ce + if t > 1 { coll } else { 0.0 };

    // ---- stages ----
    let custom = par.layers_per_stage.as_deref();
    let layers_total = s.model.layers;
    let tp_layer_total = tp_fwd_total
        + tp_bwd_total
        + if recompute == Recompute::Full {
            tp_fwd_total
        } else {
            0.0
        };
    let tp_layer_exp = tp_fwd_exp + tp_bwd_exp + rc_tp;
    let tp_layer_exp = tp_layer_exp + u_tp * (tp_layer_total - tp_layer_exp).max(0.0);
    let cp_layer_exp = cp_fwd_exp + cp_bwd_exp;
    let cp_layer_exp = cp_layer_exp + u_cp * (cp_fwd_total + cp_bwd_total - cp_layer_exp).max(0.0);
    // DualPipe: a rank holds two stages and runs half the micro-batches through each, so one
    // micro-batch costs it half its layers (and half of the embedding and the output layer).
    let share = if schedule == crate::scenario::Schedule::DualPipe {
        0.5
    } else {
        1.0
    };
    let mut sum_t = 0.0;
    let mut max_t = -1.0;
    let mut crit = StageTimes::default();
    for r in 0..p {
        let nl_u = rank_layers(layers_total, p, v, custom, schedule, r);
        let nl = nl_u as f64 * share;
        let mut st = StageTimes {
            stage: r,
            layers_u: nl_u,
            layers: nl,
            fwd: nl * layer_fwd,
            bwd: nl * layer_bwd,
            wgrad: nl * gemm_fwd,
            hidden: 0.0,
            rc: nl * rc_layer,
            tp: nl * tp_layer_exp,
            cp: nl * cp_layer_exp,
            ep: nl * ep_layer,
            pp: pp_mb,
            dp: 0.0,
        };
        if holds_embedding(p, schedule, r) {
            st.fwd += share * emb_fwd;
            st.bwd += share * emb_bwd;
        }
        if holds_output(p, schedule, r) {
            st.fwd += share * out_fwd;
            st.bwd += share * out_bwd;
            st.wgrad += share * logit_gemm;
        }
        if schedule.overlaps_chunks() {
            // DualPipe(V) runs a forward and a backward chunk of two micro-batches together,
            // each one's all-to-all and pipeline sends under the other's compute (DeepSeek-V3
            // technical report §3.2.1, Fig. 4); only what compute cannot cover stays exposed.
            let cover = st.fwd + st.bwd;
            let comm = st.ep + st.pp;
            let exposed = (comm - cover).max(0.0);
            st.hidden = comm - exposed;
            let k = if comm > 0.0 { exposed / comm } else { 0.0 };
            st.ep *= k;
            st.pp *= k;
        }
        if zero3 {
            let ag_total = nl * z3_ag;
            let fwd_exp = z3_ag + (ag_total - z3_ag - st.fwd).max(0.0);
            let bwd_exp = z3_rs + (ag_total + nl * z3_rs - z3_rs - st.bwd - st.rc).max(0.0);
            let total = 2.0 * ag_total + nl * z3_rs;
            let copies = nl * (z3_copy_fwd + z3_copy_bwd);
            st.dp = copies
                + if par.dp_comm_overlap() {
                    let exposed = (fwd_exp + bwd_exp).min(total);
                    exposed + u_dp * (total - exposed)
                } else {
                    total
                };
        }
        let tot = st.total();
        sum_t += tot;
        if tot > max_t {
            max_t = tot;
            crit = st;
        }
    }
    let sums = pipeline::StageSums {
        sum: sum_t,
        max: max_t.max(0.0),
        fwd: crit.fwd,
        wgrad: crit.wgrad,
    };
    let bubble = pipeline::bubble(&sums, p, m, v, schedule);

    // ---- data parallel gradient reduction and ZeRO-1/2 parameter gather (per step) ----
    let stage_params = sharded
        .placed(
            crit.layers_u,
            holds_embedding(p, schedule, crit.stage),
            holds_output(p, schedule, crit.stage),
        )
        .total();
    // ZeRO-2 (DeepSpeed) reduce-scatters the 16-bit gradients; Megatron DDP and the distributed
    // optimizer reduce the main gradients (fp32 — `accumulate_allreduce_grads_in_fp32`).
    let grad_bytes = if par.zero_stage >= 2 {
        pbytes
    } else {
        main_grad_bytes
    };
    let mut dp_tail = 0.0;
    let mut dp_total = 0.0;
    let mut dp_bytes = 0.0;
    let n_dp = dp_g.n;
    if n_dp > 1.0 && !zero3 {
        let g = stage_params * grad_bytes;
        let bucket = match par.bucket_mb {
            Some(mb) => (mb * 1e6).max(1.0),
            None if par.zero_stage == 2 => 5e8 * grad_bytes, // DeepSpeed reduce_bucket_size
            None => (4e7f64).max(1e6 * n_dp) * grad_bytes,   // Megatron DDP bucket_size
        };
        let k = (g / bucket).ceil().max(1.0);
        let reduce = |bytes: f64| {
            if par.zero_stage == 0 {
                dp_g.all_reduce_s(bytes)
            } else {
                dp_g.gather_s(bytes)
            }
        };
        let t_bucket = reduce(g / k);
        let grad_total = k * t_bucket;
        let window_bwd = crit.bwd + crit.rc + crit.tp;
        let mut exp = if par.dp_comm_overlap() {
            let e = (t_bucket + ((k - 1.0) * t_bucket - window_bwd).max(0.0)).min(grad_total);
            e + u_dp * (grad_total - e)
        } else {
            grad_total
        };
        dp_total += grad_total;
        dp_bytes += if par.zero_stage == 0 { 2.0 } else { 1.0 } * (n_dp - 1.0) / n_dp * g;
        if par.zero_stage >= 1 {
            let pbytes_total = stage_params * pbytes;
            let ag_b = dp_g.gather_s(pbytes_total / k);
            let ag_total = k * ag_b;
            exp += if par.dp_comm_overlap() {
                let e = (ag_b + ((k - 1.0) * ag_b - crit.fwd).max(0.0)).min(ag_total);
                e + u_dp * (ag_total - e)
            } else {
                ag_total
            };
            dp_total += ag_total;
            dp_bytes += (n_dp - 1.0) / n_dp * pbytes_total;
        }
        dp_tail = exp;
    }
    if zero3 && n_dp > 1.0 {
        let per_mb = crit.layers * (2.0 * z3_ag + z3_rs);
        dp_total = mf * per_mb;
        dp_bytes = mf * (n_dp - 1.0) / n_dp * stage_params * (2.0 * pbytes + pbytes);
    }

    // ---- optimizer ----
    let shard = if par.zero_stage >= 1 {
        n_dp.max(1.0)
    } else {
        1.0
    };
    let opt_off = s.training.optimizer_offload();
    let optimizer = dev.memory_s(
        (1.0 - opt_off) * stage_params / shard * OPTIMIZER_BYTES_PER_PARAM,
        OPTIMIZER_KERNELS,
    );
    let offload = offload_s(
        s,
        gpu,
        &crit,
        opt_off * stage_params / shard,
        grad_bytes,
        pbytes,
        mf,
    );

    // ---- assemble ----
    time.micro_batches = m;
    time.weight_grad_s = mf * crit.wgrad;
    time.offload_s = offload;
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
        pp: mf * crit.pp,
        dp: mf * crit.dp + dp_tail,
    };
    let tp_total = mf
        * crit.layers
        * (tp_fwd_total
            + tp_bwd_total
            + if recompute == Recompute::Full {
                tp_fwd_total
            } else {
                0.0
            });
    time.hidden_comm_s = CommTimes {
        tp: (tp_total - time.exposed_comm_s.tp).max(0.0),
        cp: (mf * crit.layers * (cp_fwd_total + cp_bwd_total) - time.exposed_comm_s.cp).max(0.0),
        ep: mf
            * crit.hidden
            * if crit.ep + crit.pp > 0.0 {
                crit.ep / (crit.ep + crit.pp)
            } else {
                1.0
            },
        pp: mf
            * crit.hidden
            * if crit.ep + crit.pp > 0.0 {
                crit.pp / (crit.ep + crit.pp)
            } else {
                0.0
            },
        dp: (dp_total - time.exposed_comm_s.dp).max(0.0),
    };
    time.step_s = time.compute_s
        + time.recompute_s
        + time.bubble_s
        + time.optimizer_s
        + time.offload_s
        + time.exposed_comm_s.total();

    // ---- communication volumes per GPU per step ----
    let tp_passes = if recompute == Recompute::Full {
        6.0
    } else {
        4.0
    };
    *comm_out = CommBreakdown {
        tp: volume(
            mf * crit.layers * tp_passes * 2.0 * (tf - 1.0) / tf * act_msg,
            &tp_g,
            Collective::AllReduce,
            t,
        ),
        cp: volume(
            mf * crit.layers * 3.0 * cpm1 * kv_msg,
            &cp_g,
            Collective::PointToPoint,
            c,
        ),
        ep: volume(
            mf * crit.layers * 4.0 * (e as f64 - 1.0) / e as f64 * d.k * tok * d.h * ab,
            &ep_g,
            Collective::AllToAll,
            e,
        ),
        pp: volume(
            if p > 1 {
                mf * 2.0 * v as f64 * pp_msg
            } else {
                0.0
            },
            &pp_g,
            Collective::PointToPoint,
            p,
        ),
        dp: volume(
            dp_bytes,
            &dp_g,
            if par.zero_stage == 0 {
                Collective::AllReduce
            } else {
                Collective::ReduceScatterAllGather
            },
            dp.saturating_mul(c),
        ),
    };

    // ---- FLOPs and rates ----
    flops.model_flops = flops::model_flops(&d, global_batch);
    flops.model_flops_causal = flops::model_flops_causal(&d, global_batch);
    flops.hardware_flops =
        flops.model_flops + flops::recompute_flops(&d, global_batch, recompute, flash);
    let n_gpus = s.cluster.num_gpus as f64;
    let peak = peak_flops(gpu, s.training.precision);
    let step = time.step_s;
    if step > 0.0 && step.is_finite() {
        throughput.tokens_per_s = global_batch * d.s / step;
        throughput.samples_per_s = global_batch / step;
        throughput.tflops_per_gpu = flops.model_flops / step / n_gpus.max(1.0) / 1e12;
        throughput.mfu = flops.model_flops / (step * n_gpus.max(1.0) * peak);
        throughput.hfu = flops.hardware_flops / (step * n_gpus.max(1.0) * peak);
        throughput.train_time_s = s
            .training
            .train_tokens
            .map(|tokens| tokens / throughput.tokens_per_s);
        throughput.train_gpu_hours = throughput.train_time_s.map(|ts| ts / 3600.0 * n_gpus);
        throughput.train_cost = match (throughput.train_gpu_hours, s.cluster.price_per_gpu_hour) {
            (Some(hours), Some(price)) => Some(hours * price),
            _ => None,
        };
    } else {
        *throughput = Throughput::default();
    }
}

/// Per-micro-batch times of one stage (all its chunks), seconds.
#[derive(Clone, Copy, Debug, Default)]
struct StageTimes {
    stage: u64,
    layers_u: u64,
    layers: f64,
    fwd: f64,
    bwd: f64,
    /// Part of `bwd`: weight-gradient GEMMs.
    wgrad: f64,
    /// Pipeline and expert communication hidden under the paired chunk (DualPipe), not in `total`.
    hidden: f64,
    rc: f64,
    tp: f64,
    cp: f64,
    ep: f64,
    pp: f64,
    dp: f64,
}

impl StageTimes {
    fn total(&self) -> f64 {
        self.fwd + self.bwd + self.rc + self.tp + self.cp + self.ep + self.pp + self.dp
    }
}

/// Host-link time on the critical path of one step, seconds, for the offloaded optimizer states
/// (`opt_params` parameters of this GPU: their gradients go to the host in `grad_bytes` each and
/// the updated `pbytes` weights come back, not overlapped — Megatron-Core's default without
/// `--overlap-cpu-optimizer-d2h-h2d`; ZeRO-Offload, Ren et al. ATC'21 §4, moves the same two
/// tensors) and the offloaded activations (`training.activation_offload` of the slowest rank's
/// stored layer activations per micro-batch, copied out under its forward and back under its
/// backward; only the excess shows). The link is [`GpuSpec::host_link_gbps`] per direction at
/// the PCIe efficiency of [`comm::PCIE_EFFICIENCY`]. The CPU's own Adam step is not priced.
fn offload_s(
    s: &Scenario,
    gpu: &GpuSpec,
    crit: &StageTimes,
    opt_params: f64,
    grad_bytes: f64,
    pbytes: f64,
    mf: f64,
) -> f64 {
    let bps = gpu.host_link_gbps() * 1e9 * comm::PCIE_EFFICIENCY;
    let opt = opt_params * (grad_bytes + pbytes) / bps;
    let a = s.training.activation_offload();
    let act = if a > 0.0 {
        let x = a * crit.layers * super::memory::activations::layer_bytes(s) / bps;
        mf * ((x - crit.fwd).max(0.0) + (x - crit.bwd - crit.rc).max(0.0))
    } else {
        0.0
    };
    opt + act
}

/// Fraction of compute lost while a collective on `link` overlaps it (Calculon
/// `systems/*.json` `processor_usage`: NVLink 0.15, InfiniBand 0.02).
fn sm_usage(link: comm::Link) -> f64 {
    match link {
        comm::Link::Nvlink => 0.15,
        comm::Link::Network => 0.02,
        comm::Link::None => 0.0,
    }
}

fn volume(bytes: f64, g: &Group, collective: Collective, n: u64) -> CommVolume {
    if n <= 1 || bytes <= 0.0 {
        return CommVolume::default();
    }
    CommVolume {
        bytes,
        link: g.link,
        group: n,
        collective,
    }
}

/// Forward GEMM time of one layer for one micro-batch of `tok` tokens on one TP rank, and the
/// part in column-parallel GEMMs (QKV, FC1), whose weight-gradient GEMMs hide the backward
/// input-gradient reduction.
fn layer_gemms_s(dev: &Device, d: &Shape, tok: f64, tf: f64, ep: f64) -> (f64, f64) {
    let qkv = dev.gemm_s(tok, d.h, (d.q + 2.0 * d.kv) / tf);
    let out = dev.gemm_s(tok, d.q / tf, d.h);
    let (fc1, fc2) = if d.experts > 0.0 {
        // Each GPU holds E/e experts and receives k·T tokens in total (balanced routing).
        let n_local = (d.experts / ep).max(1.0);
        let tok_e = tok * d.k / n_local;
        let router = dev.gemm_s(tok, d.h, d.experts);
        (
            router + n_local * dev.gemm_s(tok_e, d.h, (d.c_ffn - 1.0) * d.f_expert / tf),
            n_local * dev.gemm_s(tok_e, d.f_expert / tf, d.h),
        )
    } else {
        (
            dev.gemm_s(tok, d.h, (d.c_ffn - 1.0) * d.f_dense / tf),
            dev.gemm_s(tok, d.f_dense / tf, d.h),
        )
    };
    (qkv + out + fc1 + fc2, qkv + fc1)
}

/// Forward time of the GEMMs per-op selective checkpointing recomputes in backward (every other
/// weight GEMM of the layer, the same predicate as the memory half:
/// [`crate::engine::memory::activations::op_sac_saves_gemm`]), one micro-batch of `tok` tokens
/// on one TP rank. Column-parallel GEMMs split their output width by `t`, row-parallel ones
/// their input width; MoE MLP GEMMs run per local expert on its share of the `k·T` routed tokens.
fn op_sac_gemms_s(dev: &Device, d: &Shape, tok: f64, tf: f64, ep: f64) -> f64 {
    let (gemms, n) = d.layer_gemms();
    let n_local = if d.is_moe() {
        (d.experts / ep).max(1.0)
    } else {
        1.0
    };
    let mut t = 0.0;
    for (i, g) in gemms.iter().take(n).enumerate() {
        if crate::engine::memory::activations::op_sac_saves_gemm(i) {
            continue;
        }
        let (k, nn) = if g.row_parallel {
            (g.k / tf, g.n)
        } else {
            (g.k, g.n / tf)
        };
        t += if i >= 4 && d.is_moe() {
            n_local * dev.gemm_s(tok * d.k / n_local, k, nn)
        } else {
            dev.gemm_s(tok, k, nn)
        };
    }
    t
}

/// Dense peak FLOP/s used for MFU/HFU: the tensor-core peak of the training precision (FP8 runs
/// use the FP8 peak, as NVIDIA's benchmark pages do) — the same peak the compute model derates
/// ([`compute::peak_tflops`]).
pub fn peak_flops(gpu: &GpuSpec, precision: Precision) -> f64 {
    (compute::peak_tflops(gpu, precision) * 1e12).max(1.0)
}
