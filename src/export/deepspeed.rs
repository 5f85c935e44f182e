//! A DeepSpeed config (JSON) for a scenario.
//!
//! Keys are those of DeepSpeed's config (microsoft/DeepSpeed `docs/_pages/config-json.md`):
//! batch (`train_batch_size = train_micro_batch_size_per_gpu · gradient_accumulation_steps ·
//! data-parallel size`), `bf16`/`fp16`, `zero_optimization` (stage, bucket, overlap, hpZ
//! partition for HSDP-style sharding), `activation_checkpointing`, `optimizer`. Tensor,
//! pipeline, context and expert parallelism are not set in this file (Megatron-DeepSpeed takes
//! them as launch arguments, DeepSpeed's `PipelineModule` in code); they are listed in
//! [`Export::no_equivalent`], as is everything else the file cannot say.
//!
//! # Example
//! ```
//! let s = paracalc::presets::model_preset("llama3-8b").unwrap().scenario();
//! let e = paracalc::export::deepspeed::config(&s);
//! let v: serde_json::Value = serde_json::from_str(&e.text).unwrap();
//! assert_eq!(v["train_batch_size"], s.training.global_batch);
//! ```

use super::Export;
use crate::scenario::json::text::Node;
use crate::scenario::{Precision, Recompute, Scenario, Training};
use serde_json::{json, Map, Value};

/// The DeepSpeed config of `s`: its batch, precision and gradient dtype, ZeRO, optimizer and
/// checkpointing keys, and what the file cannot say ([`Export::no_equivalent`]).
pub fn config(s: &Scenario) -> Export {
    let t = &s.training;
    let mut no = Vec::new();
    let mut c = Map::new();
    batch_keys(s, &mut c);
    precision_keys(t, &mut c, &mut no);
    no.extend(super::loss_kernel_note(t, "DeepSpeed"));
    gradient_dtype_keys(t, &mut c);
    c.insert("zero_optimization".into(), zero_optimization(s, &mut no));
    c.insert("optimizer".into(), json!({"type": "AdamW", "params": {}}));
    checkpointing_keys(s, &mut c, &mut no);
    no.extend(set_elsewhere(s));
    let text = Node::from(&Value::Object(c)).to_pretty() + "\n";
    Export {
        text,
        no_equivalent: no,
    }
}

/// `train_batch_size = train_micro_batch_size_per_gpu · gradient_accumulation_steps ·
/// data-parallel size`.
fn batch_keys(s: &Scenario, c: &mut Map<String, Value>) {
    let t = &s.training;
    let dp = s.parallel.dp.max(1);
    let micro = t.micro_batch.max(1);
    c.insert("train_batch_size".into(), json!(t.global_batch));
    c.insert("train_micro_batch_size_per_gpu".into(), json!(micro));
    c.insert(
        "gradient_accumulation_steps".into(),
        json!((t.global_batch / micro.saturating_mul(dp).max(1)).max(1)),
    );
}

/// `fp16` or `bf16`; FP8 and NVFP4 GEMMs have no DeepSpeed switch (bf16, with a note).
fn precision_keys(t: &Training, c: &mut Map<String, Value>, no: &mut Vec<String>) {
    match t.precision {
        Precision::Fp32 => {}
        Precision::Fp16 => {
            c.insert("fp16".into(), json!({"enabled": true}));
        }
        Precision::Bf16 => {
            c.insert("bf16".into(), json!({"enabled": true}));
        }
        Precision::Fp8 | Precision::Nvfp4 => {
            c.insert("bf16".into(), json!({"enabled": true}));
            no.push(format!("{} GEMMs: DeepSpeed's config has no such switch (Transformer Engine is enabled in the model code).", t.precision.as_str()));
        }
    }
}

/// The dtype gradients are reduced and accumulated in: the model's 16-bit one, or fp32 where the
/// plan keeps fp32 gradients.
fn gradient_dtype_keys(t: &Training, c: &mut Map<String, Value>) {
    if !t.grad_reduce_in_fp32() && t.precision != Precision::Fp32 {
        c.insert(
            "communication_data_type".into(),
            json!(if t.precision == Precision::Fp16 {
                "fp16"
            } else {
                "bf16"
            }),
        );
        c.insert("data_types".into(), json!({"grad_accum_dtype": if t.precision == Precision::Fp16 { "fp16" } else { "bf16" }}));
    } else if t.precision != Precision::Fp32 {
        // The plan keeps fp32 gradients; DeepSpeed's ZeRO-1/2 would keep them in the model's
        // 16-bit dtype unless told (`data_types.grad_accum_dtype` defaults to the model dtype,
        // deepspeedai/DeepSpeed v0.18.0 @79caae1c0 `engine.py` l. 1104-1115; states.md §10).
        c.insert("data_types".into(), json!({"grad_accum_dtype": "fp32"}));
    }
}

/// `zero_optimization`: the stage, overlap, buckets (in elements) and, for sharding over fewer
/// ranks than data parallelism, ZeRO++ hpZ (with a note).
fn zero_optimization(s: &Scenario, no: &mut Vec<String>) -> Value {
    let (t, p) = (&s.training, &s.parallel);
    let dp = p.dp.max(1);
    let mut zero = Map::new();
    zero.insert("stage".into(), json!(p.zero_stage));
    if p.zero_stage > 0 {
        zero.insert("overlap_comm".into(), json!(s.dp_comm_overlap()));
        zero.insert("contiguous_gradients".into(), json!(true));
    }
    if let Some(mb) = p.bucket_mb {
        let bytes = (mb * 1e6).round();
        // DeepSpeed counts bucket sizes in elements, not bytes: 2-byte gradients in 16-bit runs.
        let elements = (bytes
            / if t.precision == Precision::Fp32 {
                4.0
            } else {
                2.0
            })
        .round();
        zero.insert("reduce_bucket_size".into(), json!(elements as u64));
        if p.zero_stage >= 1 {
            zero.insert("allgather_bucket_size".into(), json!(elements as u64));
        }
    }
    if p.zero_stage >= 3 && p.shard_ranks() < dp {
        zero.insert("zero_hpz_partition_size".into(), json!(p.shard_ranks()));
        no.push(format!(
            "sharding over {} of {dp} data-parallel ranks: written as ZeRO++ hpZ (a secondary partition of the parameters); DeepSpeed still shards optimizer states over all ranks.",
            p.shard_ranks()
        ));
    }
    Value::Object(zero)
}

/// `activation_checkpointing` for full recomputation; selective recomputation has no DeepSpeed
/// key (a note).
fn checkpointing_keys(s: &Scenario, c: &mut Map<String, Value>, no: &mut Vec<String>) {
    match s.training.recompute {
        Recompute::None => {}
        Recompute::Selective => {
            no.push("selective recomputation: DeepSpeed checkpoints whole layers; selective recomputation is Megatron-DeepSpeed's --recompute-granularity selective.".into());
        }
        Recompute::Full => {
            c.insert(
                "activation_checkpointing".into(),
                json!({"partition_activations": s.parallel.tp > 1, "contiguous_memory_optimization": false, "cpu_checkpointing": false}),
            );
        }
    }
}

/// What is set outside this file: the parallel degrees (model code or Megatron-DeepSpeed's
/// launch arguments), flash attention, training without a master copy, the model's shape.
fn set_elsewhere(s: &Scenario) -> Vec<String> {
    let (m, t, p) = (&s.model, &s.training, &s.parallel);
    let mut no = Vec::new();
    if p.tp > 1 {
        no.push(format!("tensor parallel {}: set in the model code or as Megatron-DeepSpeed's --tensor-model-parallel-size (not a DeepSpeed config key).", p.tp));
    }
    if p.pp > 1 {
        no.push(format!("pipeline parallel {} (vp {}): DeepSpeed's PipelineModule(num_stages) in code, or Megatron-DeepSpeed's --pipeline-model-parallel-size.", p.pp, p.vp));
    }
    if p.cp > 1 {
        no.push(format!("context parallel {}: DeepSpeed's sequence parallelism is Ulysses, set in code, not this config.", p.cp));
    }
    if m.moe.is_some() {
        no.push(format!(
            "experts and expert parallel {}: deepspeed.moe.layer.MoE(ep_size=…) in code.",
            p.ep
        ));
    }
    if p.sp && p.tp > 1 {
        no.push("sequence parallel: Megatron-DeepSpeed's --sequence-parallel.".into());
    }
    if t.flash_attention {
        no.push("flash attention: chosen by the model code.".into());
    }
    if crate::engine::memory::states::no_master_copy(s) {
        no.push("master_weights none: DeepSpeed's ZeRO optimizer keeps its own master partition (bf16.bf16_master_weights_and_grads keeps it in bf16); training without one is a bf16 model under a plain torch optimizer, outside this config.".into());
    }
    no.push(format!(
        "model shape ({} layers, hidden {}, {} heads, FFN {}, vocab {}, sequence {}): set by the model code.",
        m.layers, m.hidden, m.heads, m.ffn_hidden(), m.vocab, m.seq_len
    ));
    no
}
