//! A torchtitan job config (TOML) for a scenario.
//!
//! Keys are those of torchtitan's `JobConfig` (pytorch/torchtitan, `torchtitan/config/job_config.py`
//! and the `train_configs/*.toml` examples, 2025): `[model]` name/flavor/converters, `[training]`
//! local/global batch, sequence length, mixed precision, `[parallelism]` degrees and pipeline
//! schedule, `[activation_checkpoint]` mode. torchtitan picks model shapes by a registered
//! `flavor`, so the architecture is written as a comment, and the settings torchtitan has no key
//! for are listed at the top as comments and in [`Export::no_equivalent`].
//!
//! # Example
//! ```
//! let s = paracalc::presets::model_preset("llama3-70b").unwrap().scenario();
//! let e = paracalc::export::torchtitan::job_config(&s);
//! assert!(e.text.contains("tensor_parallel_degree = 4"));
//! ```

use super::Export;
use crate::scenario::{Precision, Recompute, Scenario, Schedule};
use crate::text::num::{Fixed, Plain};

/// The job config of `s`.
pub fn job_config(s: &Scenario) -> Export {
    let mut no = Vec::new();
    let mut o = String::new();
    let (replicate, shard) = data_parallel_degrees(s, &mut no);
    // No master copy: torchtitan's `training.dtype = "bfloat16"` keeps parameters, gradients
    // and optimizer states in bf16 with no fp32 copy (`torchtitan/config/configs.py` l. 87-92
    // @b5bcd76); it has no 16-bit master-free mode with fp32 gradients or moments.
    let pure_bf16 = crate::engine::memory::states::no_master_copy(s);
    no_equivalents(s, pure_bf16, &mut no);
    write_header(s, &no, &mut o);
    write_training(s, pure_bf16, &mut o);
    write_parallelism(s, (replicate, shard), &mut o);
    write_checkpoint(s, &mut o, &mut no);
    write_optimizer(s, &mut o);
    Export {
        text: o,
        no_equivalent: no,
    }
}

/// Appends `l` and a newline to `o`.
fn line(o: &mut String, l: String) {
    o.push_str(&l);
    o.push('\n');
}

/// The data-parallel degrees `(replicate, shard)`: FSDP2 shards over
/// `data_parallel_shard_degree` and replicates over `data_parallel_replicate_degree` (HSDP);
/// ZeRO 0 is plain replication (DDP). ZeRO-1/2 have no torchtitan form (noted in `no`).
fn data_parallel_degrees(s: &Scenario, no: &mut Vec<String>) -> (u64, u64) {
    let p = &s.parallel;
    match p.zero_stage {
        0 => (p.dp, 1),
        3 => {
            let shard = p.shard_ranks().clamp(1, p.dp.max(1));
            (p.dp.max(1) / shard, shard)
        }
        z => {
            no.push(format!(
                "ZeRO stage {z}: torchtitan has no optimizer-only/gradient sharding; FSDP2 shards parameters too (written as full sharding, ZeRO-3)."
            ));
            (1, p.dp)
        }
    }
}

/// The settings of `s` torchtitan has no key for, each a sentence, in `no`.
fn no_equivalents(s: &Scenario, pure_bf16: bool, no: &mut Vec<String>) {
    let m = &s.model;
    let t = &s.training;
    let p = &s.parallel;
    no.push(format!(
        "model shape: torchtitan selects the architecture by a registered flavor; {} layers, hidden {}, {} heads ({} KV), FFN {}, vocab {} must match the flavor's ModelArgs.",
        m.layers, m.hidden, m.heads, m.kv_heads(), m.ffn_hidden(), m.vocab
    ));
    if p.tp > 1 && !p.sp {
        no.push("sequence parallel off: torchtitan's tensor parallelism always shards the norms' activations along the sequence.".into());
    }
    no.extend(super::loss_kernel_note(t, "torchtitan"));
    if p.layers_per_stage.is_some() {
        no.push("uneven pipeline stages: torchtitan splits layers evenly (or by module names per stage, not written here).".into());
    }
    if let Some(mb) = p.bucket_mb {
        no.push(format!(
            "gradient bucket {} MB: FSDP2 reduces per parameter group, there is no bucket size.",
            Plain(mb)
        ));
    }
    if p.zero_stage == 0 && p.dp_comm_overlap.is_some() {
        no.push(
            "DP overlap switch: DDP overlaps the gradient all-reduce with backward always.".into(),
        );
    }
    if m.moe.is_some() && p.etp.is_some() {
        no.push("expert tensor parallel size: torchtitan ties it to tensor parallelism.".into());
    }
    if t.precision == Precision::Fp16 {
        no.push("fp16 with loss scaling: torchtitan trains in bf16 or fp32; written as float16 parameters without a loss scaler.".into());
    }
    if t.precision == Precision::Nvfp4 {
        no.push("NVFP4 GEMMs: torchtitan's converters have no NVFP4 recipe (float8 and MXFP8 only); written as bf16.".into());
    }
    if !t.grad_reduce_in_fp32() && t.precision != Precision::Fp32 && !pure_bf16 {
        no.push("16-bit gradient reduction: torchtitan's mixed_precision_reduce accepts float32 only; written as float32.".into());
    }
    if pure_bf16 {
        if t.precision == Precision::Fp16 {
            no.push("master_weights none with fp16: torchtitan's training.dtype is bfloat16 or float32; written as bfloat16.".into());
        }
        if t.optimizer_states() != crate::scenario::OptimizerStates::Bf16 || t.grad_reduce_in_fp32()
        {
            no.push("master_weights none with fp32 moments or gradients: torchtitan's training.dtype bfloat16 puts parameters, gradients and optimizer states all in bf16.".into());
        }
    }
}

/// The title, the no-equivalent notes, `[job]` and `[model]`.
fn write_header(s: &Scenario, no: &[String], o: &mut String) {
    let m = &s.model;
    let t = &s.training;
    line(
        o,
        format!(
            "# torchtitan job config for {} (paracalc)",
            if m.name.is_empty() {
                "the plan"
            } else {
                &m.name
            }
        ),
    );
    for n in no {
        line(o, format!("# no equivalent: {n}"));
    }
    line(o, String::new());
    line(o, "[job]".into());
    line(
        o,
        format!(
            "description = {}",
            quote(&format!("{} on {} GPUs", m.name, s.cluster.num_gpus))
        ),
    );
    line(o, String::new());
    line(o, "[model]".into());
    line(
        o,
        format!(
            "name = {}",
            quote(if m.moe.is_some() {
                "deepseek_v3"
            } else {
                "llama3"
            })
        ),
    );
    line(o, format!("flavor = {}", quote("custom")));
    if t.precision == Precision::Fp8 {
        line(o, "converters = [\"float8\"]".into());
    }
    line(o, String::new());
}

/// `[training]`: batch, sequence, dtypes and steps.
fn write_training(s: &Scenario, pure_bf16: bool, o: &mut String) {
    let m = &s.model;
    let t = &s.training;
    line(o, "[training]".into());
    let local = t.micro_batch.max(1);
    line(o, format!("local_batch_size = {local}"));
    line(o, format!("global_batch_size = {}", t.global_batch));
    line(o, format!("seq_len = {}", m.seq_len));
    if pure_bf16 {
        line(o, format!("dtype = {}", quote("bfloat16")));
    }
    let param = match t.precision {
        Precision::Fp32 => "float32",
        Precision::Fp16 => "float16",
        Precision::Bf16 | Precision::Fp8 | Precision::Nvfp4 => "bfloat16",
    };
    line(o, format!("mixed_precision_param = {}", quote(param)));
    // torchtitan reduces FSDP gradients in fp32 only (`mixed_precision_reduce:
    // Literal["float32"]`, torchtitan/config/configs.py l. 102 @b5bcd76); a 16-bit reduction
    // is listed as having no equivalent above.
    line(o, format!("mixed_precision_reduce = {}", quote("float32")));
    if let Some(tokens) = t.train_tokens {
        let steps = (tokens / (t.global_batch.max(1) as f64 * m.seq_len.max(1) as f64)).ceil();
        if steps.is_finite() && steps >= 1.0 {
            line(o, format!("steps = {}", Fixed(steps, 0)));
        }
    }
    line(o, String::new());
}

/// `[parallelism]`: the degrees and the pipeline schedule.
fn write_parallelism(s: &Scenario, (replicate, shard): (u64, u64), o: &mut String) {
    let m = &s.model;
    let t = &s.training;
    let p = &s.parallel;
    line(o, "[parallelism]".into());
    line(o, format!("data_parallel_replicate_degree = {replicate}"));
    line(o, format!("data_parallel_shard_degree = {shard}"));
    line(o, format!("tensor_parallel_degree = {}", p.tp));
    line(o, format!("pipeline_parallel_degree = {}", p.pp));
    line(o, format!("context_parallel_degree = {}", p.cp));
    if m.moe.is_some() {
        line(o, format!("expert_parallel_degree = {}", p.ep));
    }
    if p.pp > 1 {
        let schedule = match (p.schedule(), p.vp > 1) {
            (Schedule::Gpipe, _) => "GPipe",
            (_, true) => "Interleaved1F1B",
            _ => "1F1B",
        };
        line(
            o,
            format!("pipeline_parallel_schedule = {}", quote(schedule)),
        );
        line(
            o,
            format!(
                "pipeline_parallel_microbatch_size = {}",
                t.micro_batch.max(1)
            ),
        );
        if p.vp > 1 {
            let stages = p.pp.saturating_mul(p.vp).max(1);
            line(
                o,
                format!(
                    "pipeline_parallel_layers_per_stage = {}",
                    (m.layers / stages).max(1)
                ),
            );
        }
    }
    if p.tp > 1 {
        line(
            o,
            format!("enable_async_tensor_parallel = {}", p.tp_comm_overlap()),
        );
    }
    line(o, String::new());
}

/// `[activation_checkpoint]`; a recompute-module list has no torchtitan form (noted in `no`).
fn write_checkpoint(s: &Scenario, o: &mut String, no: &mut Vec<String>) {
    let t = &s.training;
    line(o, "[activation_checkpoint]".into());
    let mode = match t.recompute {
        Recompute::None => "none",
        Recompute::Selective => "selective",
        Recompute::Full => "full",
    };
    line(o, format!("mode = {}", quote(mode)));
    if t.recompute == Recompute::Selective {
        line(o, format!("selective_ac_option = {}", quote("op")));
        // torchtitan checkpoints per operator; Megatron-LM's modules (its `selective` is
        // core_attn) have no per-module switch there.
        if let Some(m) = s.recompute_modules() {
            no.push(format!(
                "recompute modules {}: Megatron-LM's --recompute-modules; torchtitan's selective checkpointing is per operator (selective_ac_option \"op\"), which reruns every other matmul instead.",
                m.list()
            ));
        }
    }
    line(o, String::new());
}

/// `[optimizer]`.
fn write_optimizer(s: &Scenario, o: &mut String) {
    let t = &s.training;
    line(o, "[optimizer]".into());
    line(o, format!("name = {}", quote("AdamW")));
    // bf16 Adam moments: torchtitan's `fused_opt_states_bf16` (components/optimizer/optimizer.py
    // @b5bcd76, docs/bf16_optimizer_states.md).
    if t.optimizer_states() == crate::scenario::OptimizerStates::Bf16 {
        line(
            o,
            format!("implementation = {}", quote("fused_opt_states_bf16")),
        );
    }
}

/// A TOML basic string.
fn quote(v: &str) -> String {
    let mut out = String::from("\"");
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
