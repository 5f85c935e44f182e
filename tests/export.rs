//! The plan exported as a torchtitan job config (TOML) and a DeepSpeed config (JSON): the files
//! parse, carry the plan's numbers under the stack's own keys, and say what has no equivalent.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::export::{deepspeed, torchtitan};
use paracalc::presets::{model_preset, MODEL_PRESETS};
use paracalc::scenario::Precision;

#[test]
fn torchtitan_job_config_parses_and_carries_the_layout() {
    let mut s = model_preset("llama3-70b").unwrap().scenario();
    s.parallel.zero_stage = 3;
    s.parallel.shard_ranks = Some(1);
    let e = torchtitan::job_config(&s);
    let v: toml::Table = toml::from_str(&e.text).unwrap_or_else(|err| panic!("{err}\n{}", e.text));
    let par = &s.parallel;
    let int = |section: &str, key: &str| v[section][key].as_integer();
    for (section, key, want) in [
        ("parallelism", "tensor_parallel_degree", par.tp),
        ("parallelism", "pipeline_parallel_degree", par.pp),
        ("parallelism", "context_parallel_degree", par.cp),
        // HSDP: shard over 1 rank, replicate over the rest.
        ("parallelism", "data_parallel_shard_degree", 1),
        ("parallelism", "data_parallel_replicate_degree", par.dp),
        ("training", "global_batch_size", s.training.global_batch),
        ("training", "local_batch_size", s.training.micro_batch),
        ("training", "seq_len", s.model.seq_len),
    ] {
        assert_eq!(int(section, key), Some(want as i64), "{section}.{key}");
    }
    // Interleaved pipeline with vp 5.
    assert_eq!(
        v["parallelism"]["pipeline_parallel_schedule"].as_str(),
        Some("Interleaved1F1B")
    );
    let t = v["training"].as_table().unwrap();
    assert_eq!(t["mixed_precision_param"].as_str(), Some("bfloat16"));
    // NeMo's recipe keeps bf16 gradients, but torchtitan reduces in fp32 only
    // (`mixed_precision_reduce: Literal["float32"]`): written as float32 and listed.
    assert_eq!(t["mixed_precision_reduce"].as_str(), Some("float32"));
    assert!(
        e.no_equivalent
            .iter()
            .any(|n| n.starts_with("16-bit gradient reduction")),
        "{:?}",
        e.no_equivalent
    );
    assert_eq!(v["activation_checkpoint"]["mode"].as_str(), Some("none"));
    // The model shape has no key (torchtitan flavors): listed, and written as a comment.
    assert!(
        e.no_equivalent.iter().any(|n| n.contains("flavor")),
        "{:?}",
        e.no_equivalent
    );
    assert!(e
        .text
        .lines()
        .any(|l| l.starts_with("# no equivalent: model shape")));
}

#[test]
fn torchtitan_zero1_is_flagged_and_fp8_adds_the_converter() {
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    s.parallel.zero_stage = 1;
    s.training.precision = Precision::Fp8;
    let e = torchtitan::job_config(&s);
    let v: toml::Table = toml::from_str(&e.text).unwrap();
    assert!(e
        .no_equivalent
        .iter()
        .any(|n| n.starts_with("ZeRO stage 1")));
    assert_eq!(
        v["parallelism"]["data_parallel_shard_degree"].as_integer(),
        Some(s.parallel.dp as i64)
    );
    let conv = v["model"]["converters"].as_array().unwrap();
    assert_eq!(conv[0].as_str(), Some("float8"));
}

#[test]
fn deepspeed_config_parses_and_batch_sizes_agree() {
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    s.parallel.zero_stage = 2;
    s.parallel.bucket_mb = Some(500.0);
    let e = deepspeed::config(&s);
    let v: serde_json::Value = serde_json::from_str(&e.text).unwrap();
    let gbs = v["train_batch_size"].as_u64().unwrap();
    let mbs = v["train_micro_batch_size_per_gpu"].as_u64().unwrap();
    let gas = v["gradient_accumulation_steps"].as_u64().unwrap();
    // DeepSpeed's own check: train_batch_size = micro × accumulation × data-parallel size.
    assert_eq!(gbs, mbs * gas * s.parallel.dp);
    assert_eq!(v["bf16"]["enabled"], true);
    assert_eq!(v["zero_optimization"]["stage"], 2);
    // 500 MB of bf16 gradients = 250 M elements (DeepSpeed counts elements).
    assert_eq!(v["zero_optimization"]["reduce_bucket_size"], 250_000_000u64);
    // The layout the file cannot hold is listed.
    let joined = e.no_equivalent.join(" ");
    if s.parallel.tp > 1 {
        assert!(joined.contains("tensor parallel"), "{joined}");
    }
    assert!(joined.contains("model shape"), "{joined}");
    // The gradient dtype the plan prices is the one DeepSpeed is told to keep: fp32 unless the
    // plan says 16-bit (DeepSpeed's own default is the model dtype).
    for (fp32, want) in [(true, "fp32"), (false, "bf16")] {
        s.training.grad_reduce_in_fp32 = Some(fp32);
        let v: serde_json::Value = serde_json::from_str(&deepspeed::config(&s).text).unwrap();
        assert_eq!(v["data_types"]["grad_accum_dtype"], want, "{fp32}");
    }
}

#[test]
fn every_preset_exports_to_files_that_parse() {
    for p in MODEL_PRESETS {
        let s = p.scenario();
        let t = torchtitan::job_config(&s);
        toml::from_str::<toml::Table>(&t.text)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", p.id, t.text));
        let d = deepspeed::config(&s);
        let v: serde_json::Value =
            serde_json::from_str(&d.text).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(
            v["train_batch_size"].as_u64(),
            Some(s.training.global_batch),
            "{}",
            p.id
        );
        assert!(
            !t.no_equivalent.is_empty() && !d.no_equivalent.is_empty(),
            "{}",
            p.id
        );
    }
}

#[test]
fn a_loss_kernel_other_than_pytorchs_has_no_config_switch() {
    let mut s = paracalc::share::decode("v=1&model=llama3-8b&loss=fused")
        .unwrap()
        .scenario;
    for e in [
        paracalc::export::torchtitan::job_config(&s),
        paracalc::export::deepspeed::config(&s),
    ] {
        assert!(
            e.no_equivalent
                .iter()
                .any(|n| n.starts_with("loss kernel fused")),
            "{:?}",
            e.no_equivalent
        );
    }
    s.training.loss_kernel = Some(paracalc::scenario::LossKernel::Unfused);
    assert!(!paracalc::export::torchtitan::job_config(&s)
        .no_equivalent
        .iter()
        .any(|n| n.starts_with("loss kernel")));
}

#[test]
fn torchtitan_bf16_moments_are_its_fused_bf16_states() {
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    s.training.framework = Some(paracalc::scenario::Framework::Torchtitan);
    let e = torchtitan::job_config(&s);
    let v: toml::Table = toml::from_str(&e.text).unwrap();
    assert!(v["optimizer"].get("implementation").is_none(), "{}", e.text);
    s.training.optimizer_states = Some(paracalc::scenario::OptimizerStates::Bf16);
    let e = torchtitan::job_config(&s);
    let v: toml::Table = toml::from_str(&e.text).unwrap();
    assert_eq!(
        v["optimizer"]["implementation"].as_str(),
        Some("fused_opt_states_bf16"),
        "{}",
        e.text
    );
}

/// No master copy: torchtitan's `training.dtype = "bfloat16"` (parameters, gradients and
/// optimizer states all bf16, no fp32 copy); DeepSpeed's config has no such mode.
#[test]
fn no_master_copy_is_torchtitans_bf16_dtype_and_not_deepspeeds() {
    use paracalc::scenario::{Framework, MasterWeights, OptimizerStates};
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    s.training.framework = Some(Framework::Torchtitan);
    let e = torchtitan::job_config(&s);
    let v: toml::Table = toml::from_str(&e.text).unwrap();
    assert!(v["training"].get("dtype").is_none(), "{}", e.text);
    s.training.master_weights = Some(MasterWeights::None);
    s.training.optimizer_states = Some(OptimizerStates::Bf16);
    s.training.grad_reduce_in_fp32 = Some(false);
    let e = torchtitan::job_config(&s);
    let v: toml::Table = toml::from_str(&e.text).unwrap();
    assert_eq!(
        v["training"]["dtype"].as_str(),
        Some("bfloat16"),
        "{}",
        e.text
    );
    assert!(
        !e.no_equivalent
            .iter()
            .any(|n| n.starts_with("master_weights")),
        "{:?}",
        e.no_equivalent
    );
    // fp32 moments cannot be written: torchtitan's bf16 dtype puts them in bf16 too.
    s.training.optimizer_states = None;
    let e = torchtitan::job_config(&s);
    assert!(
        e.no_equivalent
            .iter()
            .any(|n| n.starts_with("master_weights none with fp32 moments")),
        "{:?}",
        e.no_equivalent
    );
    s.training.framework = Some(Framework::Deepspeed);
    let d = deepspeed::config(&s);
    assert!(
        d.no_equivalent
            .iter()
            .any(|n| n.starts_with("master_weights none")),
        "{:?}",
        d.no_equivalent
    );
}
