//! Megatron-LM launch arguments for a scenario's model, batch and parallel layout.
//!
//! Pure text generation (no web types). Flag names are those of Megatron-LM's
//! `megatron/training/arguments.py` (NVIDIA/Megatron-LM, core_r0.9+). Where a scenario setting has
//! no single Megatron flag (ZeRO-2, an uneven stage split, the vocabulary, which the tokenizer
//! sets), a `#` comment line says so instead of inventing one. The zero-bubble schedules use the
//! flags of the sail-sg/zero-bubble-pipeline-parallelism fork of Megatron-LM (README, "Zero
//! Bubble Command Line Arguments", commit 39f2c18); DualPipe has no Megatron-LM flag. An uneven
//! split is written as `--decoder-first-pipeline-num-layers` /
//! `--decoder-last-pipeline-num-layers` when it has that form, and a better split found by
//! [`crate::engine::split`] is noted.
//!
//! # Example
//! ```
//! let s = paracalc::presets::model_preset("llama3-70b").unwrap().scenario();
//! let args = paracalc::megatron::launch_args(&s);
//! assert!(args.contains("--tensor-model-parallel-size 4"));
//! assert!(args.contains("--group-query-attention"));
//! ```

use crate::engine::split::{best_split, megatron_first_last};
use crate::scenario::{
    AttentionKernel, FfnAct, Fp8Recipe, Precision, Recompute, Scenario, Schedule,
};
use crate::text::num::{Fixed, Plain};

/// The arguments, one per line, each line but the last ending in ` \` (shell continuation);
/// comment lines start with `#` and come first.
pub fn launch_args(s: &Scenario) -> String {
    let mut a = Args::default();
    header(s, &mut a);
    model(s, &mut a);
    moe(s, &mut a);
    precision(s, &mut a);
    recompute(s, &mut a);
    layout(s, &mut a);
    schedule(s, &mut a);
    optimizer(s, &mut a);
    parallel(s, &mut a);
    a.render()
}

/// The launch line being written: `#` notes, then flags.
#[derive(Default)]
struct Args {
    notes: Vec<String>,
    args: Vec<String>,
}

impl Args {
    /// Adds a flag.
    fn arg(&mut self, a: impl Into<String>) {
        self.args.push(a.into());
    }

    /// Adds a `#` note.
    fn note(&mut self, n: impl Into<String>) {
        self.notes.push(n.into());
    }

    /// The notes, then the flags joined by shell continuations.
    fn render(self) -> String {
        let mut out = self.notes.join("\n");
        out.push('\n');
        let n = self.args.len();
        for (i, a) in self.args.iter().enumerate() {
            out.push_str(a);
            if i + 1 < n {
                out.push_str(" \\");
            }
            out.push('\n');
        }
        out
    }
}

/// The first note: the GPU count as the product of the degrees, and the torchrun shape.
fn header(s: &Scenario, a: &mut Args) {
    let p = &s.parallel;
    let c = &s.cluster;
    a.note(format!(
        "# {} GPUs = tp {} × pp {} × dp {} × cp {}; torchrun --nnodes {} --nproc-per-node {}",
        c.num_gpus,
        p.tp,
        p.pp,
        p.dp,
        p.cp,
        c.num_nodes(),
        c.gpus_per_node.min(c.num_gpus.max(1))
    ));
}

/// The model: layers, widths, heads (GQA, MLA), FFN, sequence, embeddings.
fn model(s: &Scenario, a: &mut Args) {
    let m = &s.model;
    a.arg(format!("--num-layers {}", m.layers));
    a.arg(format!("--hidden-size {}", m.hidden));
    a.arg(format!("--num-attention-heads {}", m.heads));
    if m.kv_heads() != m.heads {
        a.arg("--group-query-attention");
        a.arg(format!("--num-query-groups {}", m.kv_heads()));
    }
    a.arg(format!("--ffn-hidden-size {}", m.ffn_hidden()));
    if m.ffn_act == FfnAct::Swiglu {
        a.arg("--swiglu");
    }
    // Megatron-LM's dropouts default to 0.1; a scenario without dropout says so.
    if !crate::engine::memory::activations::dropout(s) {
        a.arg("--attention-dropout 0.0");
        a.arg("--hidden-dropout 0.0");
    }
    a.arg(format!("--seq-length {}", m.seq_len));
    a.arg(format!("--max-position-embeddings {}", m.seq_len));
    if !m.tied_embeddings {
        a.arg("--untie-embeddings-and-output-weights");
    }
    if m.embedding_norm() {
        a.note("# the embedding LayerNorm has no Megatron-LM flag (Megatron-DeepSpeed: --embed-layernorm)");
    }
    a.note(format!(
        "# vocabulary {} comes from the tokenizer (--tokenizer-type/--tokenizer-model)",
        m.vocab
    ));
    // Head dimension and MLA (flags as in Megatron-LM
    // `examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh`, `d98e8a6`).
    if let Some(mla) = m.mla {
        a.arg("--multi-latent-attention");
        if mla.q_lora_rank > 0 {
            a.arg(format!("--q-lora-rank {}", mla.q_lora_rank));
        }
        a.arg(format!("--kv-lora-rank {}", mla.kv_lora_rank));
        a.arg(format!("--qk-head-dim {}", mla.qk_nope_head_dim));
        a.arg(format!("--qk-pos-emb-head-dim {}", mla.qk_rope_head_dim));
        a.arg(format!("--v-head-dim {}", mla.v_head_dim));
    } else if m
        .head_dim
        .is_some_and(|d| d.saturating_mul(m.heads) != m.hidden)
    {
        a.arg(format!("--kv-channels {}", m.head_dim()));
    }
}

/// Mixture of experts and multi-token prediction.
fn moe(s: &Scenario, a: &mut Args) {
    let m = &s.model;
    if let Some(moe) = m.moe {
        a.arg(format!("--num-experts {}", moe.experts));
        a.arg(format!("--moe-router-topk {}", moe.top_k));
        if moe.expert_ffn_hidden != m.ffn_hidden() {
            a.arg(format!("--moe-ffn-hidden-size {}", moe.expert_ffn_hidden));
        }
        if moe.shared_experts() > 0 {
            // Megatron's shared expert is one MLP of the summed width.
            a.arg(format!(
                "--moe-shared-expert-intermediate-size {}",
                moe.shared_experts()
                    .saturating_mul(moe.shared_expert_ffn_hidden())
            ));
        }
        if let Some(pattern) = moe_layer_pattern(moe.dense_layers(), moe.moe_every(), m.layers) {
            a.arg(format!("--moe-layer-freq {pattern}"));
        }
        if moe.expert_groups() > 1 && moe.group_limit() < moe.expert_groups() {
            // Group-limited routing (Megatron-Core `moe_router_num_groups`,
            // `moe_router_group_topk`, `transformer_config.py`).
            a.arg(format!("--moe-router-num-groups {}", moe.expert_groups()));
            a.arg(format!("--moe-router-group-topk {}", moe.group_limit()));
        }
        a.arg("--moe-grouped-gemm");
        if s.parallel.moe_dispatcher == Some(crate::scenario::MoeDispatcher::Deepep) {
            a.arg("--moe-token-dispatcher-type flex");
            a.arg("--moe-enable-deepep");
        } else {
            a.arg("--moe-token-dispatcher-type alltoall");
        }
    }
    if m.mtp_layers() > 0 {
        a.arg(format!("--mtp-num-layers {}", m.mtp_layers()));
    }
}

/// Batch sizes, precision (FP8, NVFP4) and the gradient buffer's dtype.
fn precision(s: &Scenario, a: &mut Args) {
    let t = &s.training;
    a.arg(format!("--micro-batch-size {}", t.micro_batch));
    a.arg(format!("--global-batch-size {}", t.global_batch));
    match t.precision {
        Precision::Fp32 => {}
        Precision::Fp16 => a.arg("--fp16"),
        Precision::Bf16 => a.arg("--bf16"),
        Precision::Fp8 => {
            a.arg("--bf16");
            a.arg("--fp8-format hybrid");
            // Megatron-LM `--fp8-recipe` (arguments.py: delayed, tensorwise, mxfp8, blockwise);
            // torchao's rowwise scaling has no Megatron-LM counterpart.
            match t.fp8_recipe() {
                Some(Fp8Recipe::Rowwise) => {
                    a.note("# fp8_recipe rowwise is torchao's; Megatron-LM has no rowwise recipe")
                }
                Some(r) if t.fp8_recipe.is_some() => a.arg(format!("--fp8-recipe {}", r.as_str())),
                _ => {}
            }
            if t.fp8_params() {
                a.arg("--fp8-param-gather");
            }
        }
        // Megatron-LM `--fp4-format e2m1` with `--fp4-recipe nvfp4` (TransformerConfig `fp4`,
        // `fp4_recipe`; Transformer Engine's `NVFP4BlockScaling`).
        Precision::Nvfp4 => {
            a.arg("--bf16");
            a.arg("--fp4-format e2m1");
            a.arg("--fp4-recipe nvfp4");
        }
    }
    // A 16-bit gradient buffer (`training.grad_reduce_in_fp32 = false`): Megatron-LM's
    // `--grad-reduce-in-bf16` (arguments.py, since 2025-02; without it bf16 training forces
    // `accumulate_allreduce_grads_in_fp32`). fp16 keeps fp16 gradients by default.
    if !t.grad_reduce_in_fp32()
        && matches!(
            t.precision,
            Precision::Bf16 | Precision::Fp8 | Precision::Nvfp4
        )
    {
        a.arg("--grad-reduce-in-bf16");
    }
}

/// Recomputation, the attention kernel and the training length.
fn recompute(s: &Scenario, a: &mut Args) {
    let m = &s.model;
    let t = &s.training;
    match t.recompute {
        Recompute::None => {}
        Recompute::Selective => {
            a.arg("--recompute-granularity selective");
            // Only when the scenario names modules (Megatron-LM's default is core_attn).
            if let Some(m) = t.recompute_modules.filter(|m| !m.is_empty()) {
                a.arg(format!(
                    "--recompute-modules {}",
                    m.names().collect::<Vec<_>>().join(" ")
                ));
            }
        }
        Recompute::Full => {
            a.arg("--recompute-granularity full");
            a.arg("--recompute-method uniform");
            a.arg("--recompute-num-layers 1");
        }
    }
    if t.flash_attention {
        a.arg("--use-flash-attn");
        // Megatron-Core `--attention-backend` (AttnBackend: flash, fused = cuDNN, unfused,
        // local, auto), only when the scenario names a kernel.
        match t.attention_kernel {
            Some(AttentionKernel::Cudnn) => a.arg("--attention-backend fused"),
            Some(AttentionKernel::Fa2 | AttentionKernel::Fa3) => a.arg("--attention-backend flash"),
            // MPT's Triton kernel has no Megatron-LM backend: the default is kept.
            Some(AttentionKernel::Triton) | None => {}
        }
    }
    if let Some(tokens) = t.train_tokens {
        let samples = (tokens / m.seq_len.max(1) as f64).ceil();
        if samples.is_finite() && samples >= 1.0 {
            a.arg(format!("--train-samples {}", Fixed(samples, 0)));
        }
    }
}

/// Tensor and pipeline degrees, virtual stages, the stage split and a better one.
fn layout(s: &Scenario, a: &mut Args) {
    let m = &s.model;
    let p = &s.parallel;
    a.arg(format!("--tensor-model-parallel-size {}", p.tp));
    a.arg(format!("--pipeline-model-parallel-size {}", p.pp));
    if p.vp > 1 {
        let chunks = p.pp.saturating_mul(p.vp).max(1);
        if m.layers % chunks == 0 {
            a.arg(format!(
                "--num-layers-per-virtual-pipeline-stage {}",
                m.layers / chunks
            ));
        } else {
            a.note(format!(
                "# vp {}: {} layers do not split evenly into pp·vp = {chunks} chunks; Megatron-LM needs an even split for --num-layers-per-virtual-pipeline-stage",
                p.vp, m.layers
            ));
        }
    }
    if let Some(split) = &p.layers_per_stage {
        let list: Vec<String> = split.iter().map(u64::to_string).collect();
        match megatron_first_last(split) {
            Some((first, last)) if p.vp <= 1 && p.schedule() != Schedule::DualPipe => {
                a.arg(format!("--decoder-first-pipeline-num-layers {first}"));
                a.arg(format!("--decoder-last-pipeline-num-layers {last}"));
            }
            _ => a.note(format!(
                "# uneven stages [{}]: not of Megatron-LM's first/last-stage form (--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers with equal middle stages)",
                list.join(", ")
            )),
        }
    }
    if let Ok(Some(better)) = best_split(s) {
        if better.is_better() {
            let list: Vec<String> = better.layers_per_stage.iter().map(u64::to_string).collect();
            a.note(format!(
                "# a better split (paracalc): layers_per_stage [{}]{} saves {} GiB peak memory and {} s per step",
                list.join(", "),
                better
                    .megatron_first_last
                    .map(|(f, l)| format!(
                        " = --decoder-first-pipeline-num-layers {f} --decoder-last-pipeline-num-layers {l}"
                    ))
                    .unwrap_or_default(),
                Fixed(better.memory_saved_bytes() / (1u64 << 30) as f64, 1),
                Fixed(better.time_saved_s(), 3)
            ));
        }
    }
}

/// The pipeline schedule.
fn schedule(s: &Scenario, a: &mut Args) {
    let t = &s.training;
    let p = &s.parallel;
    match p.schedule() {
        Schedule::ZbH1 => {
            a.arg("--enable-zero-bubble");
            a.arg(format!("--zero-bubble-max-pending-backward {}", p.pp));
            a.note("# zb-h1: flags of the sail-sg/zero-bubble-pipeline-parallelism fork of Megatron-LM");
        }
        Schedule::ZbV => {
            a.arg("--zero-bubble-v-schedule");
            a.note("# zb-v: flag of the sail-sg/zero-bubble-pipeline-parallelism fork of Megatron-LM (two chunks per rank)");
        }
        Schedule::DualPipe | Schedule::DualPipeV => a.note(format!(
            "# {}: no Megatron-LM flag; run with deepseek-ai/DualPipe ({} micro-batches, pp {})",
            p.schedule().as_str(),
            t.global_batch / t.micro_batch.saturating_mul(p.dp).max(1),
            p.pp
        )),
        _ => {}
    }
}

/// The optimizer (precision-aware, moments, master weights), MoE and SwiGLU notes, offloading.
fn optimizer(s: &Scenario, a: &mut Args) {
    let m = &s.model;
    let t = &s.training;
    let p = &s.parallel;
    let opt_off = t.optimizer_offload();
    // Megatron-LM's precision-aware optimizer (arguments.py @d98e8a6): bf16 Adam moments
    // (`training.optimizer_states`) are its `--exp-avg-dtype`/`--exp-avg-sq-dtype`, and
    // `--optimizer-cpu-offload` asserts it is on.
    // 16-bit master remainders (`training.master_weights`) are that optimizer's default.
    let bf16_moments = t.optimizer_states() == crate::scenario::OptimizerStates::Bf16;
    let remainder = crate::engine::memory::states::master_as_remainder(s);
    if bf16_moments || remainder || opt_off > 0.0 {
        a.arg("--use-precision-aware-optimizer");
    }
    if bf16_moments {
        a.arg("--exp-avg-dtype bf16");
        a.arg("--exp-avg-sq-dtype bf16");
        if t.master_weights == Some(crate::scenario::MasterWeights::Fp32) {
            a.note("# master_weights fp32: OptimizerConfig.store_param_remainders = False (no Megatron-LM flag; set it in the optimizer config)");
        }
    }
    // No master copy: Megatron-LM's optimizers always keep one (`--main-params-dtype` offers
    // fp32 or fp16 only, arguments.py @d98e8a6); NeMo 1's `distributed_fused_adam` drops it
    // when its `dtype` equals the model's.
    if crate::engine::memory::states::no_master_copy(s) {
        a.note("# master_weights none: no Megatron-LM flag (--main-params-dtype takes fp32 or fp16, a copy either way); NeMo 1 distributed_fused_adam with optim.dtype equal to the model's dtype keeps none");
    }
    if s.model.moe.is_some() && !t.moe_probs_in_experts() {
        a.note(
            "# moe_probs_in_experts off: the combine weights by the routing probabilities as Megatron-Core 0.12.0 and older did (no flag: 0.12.1+ weights inside the experts' activation, !2668)",
        );
    }
    if t.swiglu_fp8_input() {
        a.note(
            "# swiglu_fp8_input: Megatron-Core TransformerConfig.activation_func_fp8_input_store = True (no pretrain_gpt.py flag: set it in the model config, Megatron-Bridge model.activation_func_fp8_input_store)",
        );
    }
    if opt_off > 0.0 {
        a.arg("--optimizer-cpu-offload");
        a.arg(format!("--optimizer-offload-fraction {}", Plain(opt_off)));
    }
    let act_off = t.activation_offload();
    if act_off > 0.0 {
        let per_stage = m.layers / p.pp.max(1);
        let n = (act_off * per_stage as f64).round() as u64;
        a.arg("--cpu-offloading");
        a.arg(format!("--cpu-offloading-num-layers {}", n.max(1)));
    }
}

/// Context, expert and sequence parallelism, ZeRO, overlap and the gradient bucket.
fn parallel(s: &Scenario, a: &mut Args) {
    let m = &s.model;
    let p = &s.parallel;
    if p.cp > 1 {
        a.arg(format!("--context-parallel-size {}", p.cp));
    }
    if p.ep > 1 {
        a.arg(format!("--expert-model-parallel-size {}", p.ep));
    }
    if m.moe.is_some() && p.etp() != p.tp {
        a.arg(format!("--expert-tensor-parallel-size {}", p.etp()));
    }
    if p.sp && p.tp > 1 {
        a.arg("--sequence-parallel");
    }
    match p.zero_stage {
        0 => {}
        1 => a.arg("--use-distributed-optimizer"),
        2 => {
            a.arg("--use-distributed-optimizer");
            a.note(
                "# ZeRO-2 has no Megatron-LM flag; --use-distributed-optimizer shards optimizer states (ZeRO-1) and reduce-scatters gradients",
            );
        }
        _ => {
            a.arg("--use-torch-fsdp2");
            a.note("# ZeRO-3: PyTorch FSDP2 full sharding (--use-torch-fsdp2)");
        }
    }
    if p.tp_comm_overlap() && p.tp > 1 {
        a.arg("--tp-comm-overlap");
    }
    // The bucket the estimate models ([`GradBucket`]), in Megatron's unit (gradient elements),
    // wherever Megatron's DDP buckets the reduction (FSDP2 at ZeRO-3 does not).
    if p.dp.saturating_mul(p.cp) > 1 && p.zero_stage <= 2 {
        let elements = crate::engine::plan::bucket_of(s).elements();
        a.arg(format!("--ddp-bucket-size {}", elements.round() as u64));
    }
    if s.dp_comm_overlap() && p.dp > 1 {
        a.arg("--overlap-grad-reduce");
        if p.zero_stage >= 1 {
            a.arg("--overlap-param-gather");
        }
    }
}

/// Megatron-LM's `--moe-layer-freq` for `dense` leading dense layers and an MoE layer every
/// `every`-th layer after them: `None` for the default (every layer MoE), the integer `every`
/// without dense layers, else a Python list expression such as `([0]*3+[1]*58)` (the form of
/// `arguments.py`'s help; [`crate::scenario::Moe::is_moe_layer`] has the same pattern).
fn moe_layer_pattern(dense: u64, every: u64, layers: u64) -> Option<String> {
    let every = every.max(1);
    match (dense, every) {
        (0, 1) => None,
        (0, n) => Some(n.to_string()),
        (d, 1) => Some(format!("([0]*{d}+[1]*{})", layers.saturating_sub(d))),
        (d, n) => {
            let rest = layers.saturating_sub(d);
            let (full, part) = (rest / n, rest % n);
            let mut s = format!("([0]*{d}+([1]+[0]*{})*{full}", n - 1);
            if part > 0 {
                s.push_str(&format!("+[1]+[0]*{}", part - 1));
            }
            s.push(')');
            Some(s)
        }
    }
}
