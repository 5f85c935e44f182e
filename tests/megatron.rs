//! Megatron-LM launch arguments for presets and edited layouts.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::megatron::launch_args;
use paracalc::presets::model_preset;
use paracalc::scenario::{Precision, Recompute, Schedule};

fn lines(s: &str) -> Vec<&str> {
    s.lines().map(|l| l.trim_end_matches(" \\")).collect()
}

#[test]
fn gpt3_175b_design_example() {
    // DESIGN.md example: tp 8, pp 16, dp 8, micro-batch 1, global 1536, selective, bf16, ZeRO-1, SP.
    let s = model_preset("gpt3-175b").unwrap().scenario();
    let args = launch_args(&s);
    let l = lines(&args);
    for want in [
        "--num-layers 96",
        "--hidden-size 12288",
        "--num-attention-heads 96",
        "--ffn-hidden-size 49152",
        "--seq-length 2048",
        "--micro-batch-size 1",
        "--global-batch-size 1536",
        "--tensor-model-parallel-size 8",
        "--pipeline-model-parallel-size 16",
        "--recompute-granularity selective",
        "--use-distributed-optimizer",
    ] {
        assert!(l.contains(&want), "missing {want} in\n{args}");
    }
    assert!(!args.contains("--group-query-attention"), "GPT-3 is MHA");
    assert!(!args.contains("--swiglu"));
    assert!(
        !args.contains("--untie-embeddings"),
        "GPT-3 ties embeddings"
    );
    // 1024 GPUs = 128 nodes of 8.
    assert!(
        l[0].starts_with(
            "# 1024 GPUs = tp 8 × pp 16 × dp 8 × cp 1; torchrun --nnodes 128 --nproc-per-node 8"
        ),
        "{}",
        l[0]
    );
    // Every argument line but the last continues the shell command.
    let arg_lines: Vec<&str> = args.lines().filter(|x| x.starts_with("--")).collect();
    let (last, rest) = arg_lines.split_last().unwrap();
    assert!(rest.iter().all(|x| x.ends_with(" \\")) && !last.ends_with('\\'));
}

#[test]
fn llama_gqa_interleaving_and_full_recompute() {
    let mut s = model_preset("llama3-70b").unwrap().scenario();
    s.parallel.pp = 4;
    s.parallel.vp = 5; // 80 layers / (4·5) = 4 layers per virtual stage
    s.parallel.sp = true;
    s.training.recompute = Recompute::Full;
    s.training.precision = Precision::Fp8;
    s.training.train_tokens = Some(15e12);
    let args = launch_args(&s);
    let l = lines(&args);
    for want in [
        "--group-query-attention",
        "--num-query-groups 8",
        "--swiglu",
        "--untie-embeddings-and-output-weights",
        "--num-layers-per-virtual-pipeline-stage 4",
        "--sequence-parallel",
        "--recompute-granularity full",
        "--recompute-method uniform",
        "--recompute-num-layers 1",
        "--bf16",
        "--fp8-format hybrid",
    ] {
        assert!(l.contains(&want), "missing {want} in\n{args}");
    }
    // 15e12 tokens / 8192 per sequence = 1,831,054,687.5 → 1831054688 samples.
    assert!(l.contains(&"--train-samples 1831054688"), "{args}");
}

#[test]
fn moe_uneven_and_zero3() {
    let mut s = model_preset("mixtral-8x7b").unwrap().scenario();
    s.parallel.layers_per_stage = Some(vec![7, 9, 9, 7]);
    s.parallel.zero_stage = 3;
    let args = launch_args(&s);
    assert!(
        args.contains("--num-experts 8\n") || args.contains("--num-experts 8 \\"),
        "{args}"
    );
    assert!(args.contains("--moe-router-topk 2"));
    assert!(
        args.contains(&format!("--expert-model-parallel-size {}", s.parallel.ep))
            || s.parallel.ep == 1
    );
    assert!(args.contains("# uneven stages [7, 9, 9, 7]"));
    assert!(args.contains("--use-torch-fsdp2"));
    assert!(!args.contains("--use-distributed-optimizer"));
}

#[test]
fn uneven_virtual_split_is_a_comment_not_a_flag() {
    let mut s = model_preset("gpt3-175b").unwrap().scenario();
    s.parallel.vp = 5; // 96 / (16·5) is not whole
    let args = launch_args(&s);
    assert!(!args
        .lines()
        .any(|l| l.starts_with("--num-layers-per-virtual-pipeline-stage")));
    assert!(args.contains("# vp 5: 96 layers do not split evenly"));
}

#[test]
fn bf16_gradient_buffer_flag() {
    // Default: fp32 gradient accumulation, which Megatron-LM forces for bf16 (no flag needed).
    let mut s = paracalc::presets::model_preset("llama3-8b")
        .unwrap()
        .scenario();
    s.training.grad_reduce_in_fp32 = None;
    assert!(!paracalc::megatron::launch_args(&s).contains("--grad-reduce-in-bf16"));
    // training.grad_reduce_in_fp32 = false → Megatron-LM `--grad-reduce-in-bf16`.
    s.training.grad_reduce_in_fp32 = Some(false);
    assert!(lines(&paracalc::megatron::launch_args(&s)).contains(&"--grad-reduce-in-bf16"));
    // fp32 training has no 16-bit gradients to ask for.
    s.training.precision = paracalc::scenario::Precision::Fp32;
    assert!(!paracalc::megatron::launch_args(&s).contains("--grad-reduce-in-bf16"));
}

#[test]
fn first_and_last_stage_layers_schedules_and_offload() {
    let mut s = model_preset("gpt3-175b").unwrap().scenario();
    // 96 layers on pp 16: 4 + 14 × 6 + 8 is Megatron's first/last form.
    let mut list = vec![6; 16];
    list[0] = 4;
    list[15] = 8;
    s.parallel.layers_per_stage = Some(list);
    s.parallel.schedule = Some(Schedule::ZbH1);
    s.training.optimizer_offload = Some(0.5);
    s.training.activation_offload = Some(0.5);
    let args = launch_args(&s);
    let l = lines(&args);
    assert!(
        l.contains(&"--decoder-first-pipeline-num-layers 4"),
        "{args}"
    );
    assert!(l.contains(&"--decoder-last-pipeline-num-layers 8"));
    assert!(l.contains(&"--enable-zero-bubble"));
    assert!(l.contains(&"--zero-bubble-max-pending-backward 16"));
    assert!(l.contains(&"--optimizer-cpu-offload"));
    assert!(l.contains(&"--optimizer-offload-fraction 0.5"));
    assert!(l.contains(&"--cpu-offloading"));
    assert!(l.contains(&"--cpu-offloading-num-layers 3"));
    // The hand-made split is worse than the even one: the export notes the better split.
    assert!(
        args.contains("# a better split (paracalc): layers_per_stage [6, 6,"),
        "{args}"
    );
    // A split that is not of the first/last form stays a comment.
    let mut list = vec![6; 16];
    list[1] = 5;
    list[2] = 7;
    s.parallel.layers_per_stage = Some(list);
    s.parallel.schedule = Some(Schedule::DualPipe);
    let args = launch_args(&s);
    assert!(args.contains("# uneven stages [6, 5, 7,"), "{args}");
    assert!(args.contains("# dualpipe: no Megatron-LM flag"));
    assert!(!lines(&args)
        .iter()
        .any(|l| l.starts_with("--decoder-first-pipeline-num-layers")));
}

#[test]
fn fp8_recipe_and_attention_kernel_become_flags() {
    use paracalc::scenario::{AttentionKernel, Fp8Recipe};
    let mut s = model_preset("llama3-70b").unwrap().scenario();
    s.training.precision = Precision::Fp8;
    s.training.fp8_recipe = Some(Fp8Recipe::Tensorwise);
    s.training.flash_attention = true;
    s.training.attention_kernel = Some(AttentionKernel::Cudnn);
    let args = launch_args(&s);
    let l = lines(&args);
    assert!(l.contains(&"--fp8-recipe tensorwise"), "{args}");
    assert!(l.contains(&"--attention-backend fused"), "{args}");
    // torchao's rowwise recipe has no Megatron-LM flag: a comment, not a flag.
    s.training.fp8_recipe = Some(Fp8Recipe::Rowwise);
    s.training.attention_kernel = Some(AttentionKernel::Fa3);
    let args = launch_args(&s);
    assert!(
        !args.contains("--fp8-recipe") && args.contains("rowwise"),
        "{args}"
    );
    assert!(
        lines(&args).contains(&"--attention-backend flash"),
        "{args}"
    );
}

#[test]
fn bf16_moments_become_the_precision_aware_optimizer() {
    use paracalc::scenario::OptimizerStates;
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    // Default fp32 moments: no precision-aware flags.
    let args = launch_args(&s);
    assert!(!args.contains("--use-precision-aware-optimizer"), "{args}");
    assert!(!args.contains("--exp-avg-dtype"));
    // bf16 moments (Megatron-LM arguments.py @d98e8a6).
    s.training.optimizer_states = Some(OptimizerStates::Bf16);
    let args = launch_args(&s);
    let l = lines(&args);
    for flag in [
        "--use-precision-aware-optimizer",
        "--exp-avg-dtype bf16",
        "--exp-avg-sq-dtype bf16",
        "--use-distributed-optimizer",
    ] {
        assert!(l.contains(&flag), "{flag}: {args}");
    }
    // Optimizer offload asserts the precision-aware optimizer (arguments.py), emitted once.
    s.training.optimizer_offload = Some(0.5);
    let args = launch_args(&s);
    assert_eq!(
        args.matches("--use-precision-aware-optimizer").count(),
        1,
        "{args}"
    );
    s.training.optimizer_states = None;
    let args = launch_args(&s);
    assert!(
        lines(&args).contains(&"--use-precision-aware-optimizer"),
        "{args}"
    );
    assert!(!args.contains("--exp-avg-dtype"));
    // 16-bit master remainders with fp32 moments: the precision-aware optimizer alone.
    s.training.optimizer_offload = None;
    s.training.master_weights = Some(paracalc::scenario::MasterWeights::Remainder);
    let args = launch_args(&s);
    assert!(
        lines(&args).contains(&"--use-precision-aware-optimizer"),
        "{args}"
    );
    assert!(!args.contains("--exp-avg-dtype"));
    // bf16 moments with whole fp32 masters: a config field, no flag.
    s.training.master_weights = Some(paracalc::scenario::MasterWeights::Fp32);
    s.training.optimizer_states = Some(OptimizerStates::Bf16);
    let args = launch_args(&s);
    assert!(
        args.contains("# master_weights fp32: OptimizerConfig.store_param_remainders = False"),
        "{args}"
    );
    // No master copy: no Megatron-LM flag (--main-params-dtype is fp32 or fp16, a copy), a
    // note; the bf16 moments keep their flags.
    s.training.master_weights = Some(paracalc::scenario::MasterWeights::None);
    let args = launch_args(&s);
    assert!(
        args.contains("# master_weights none: no Megatron-LM flag"),
        "{args}"
    );
    assert!(lines(&args).contains(&"--exp-avg-dtype bf16"), "{args}");
    assert!(
        !lines(&args)
            .iter()
            .any(|l| l.starts_with("--main-params-dtype")),
        "{args}"
    );
}

#[test]
fn combine_weighting_is_a_version_note() {
    // Megatron-Core 0.12.1+ weights inside the experts (no flag); a plan that states the older
    // combine weighting gets a comment saying which versions ran it.
    let mut s = model_preset("mixtral-8x7b").unwrap().scenario();
    assert!(!launch_args(&s).contains("moe_probs_in_experts"));
    s.training.moe_probs_in_experts = Some(false);
    let args = launch_args(&s);
    assert!(
        args.contains("# moe_probs_in_experts off: the combine weights by the routing probabilities as Megatron-Core 0.12.0 and older did"),
        "{args}"
    );
    assert!(!lines(&args)
        .iter()
        .any(|l| !l.starts_with('#') && l.contains("probs")));
}

#[test]
fn fp8_swiglu_input_is_a_config_note() {
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    assert!(!launch_args(&s).contains("activation_func_fp8_input_store"));
    s.training.swiglu_fp8_input = Some(true);
    let args = launch_args(&s);
    // No Megatron-LM flag exists (arguments.py excludes the field): a comment, not an argument.
    assert!(
        args.contains("# swiglu_fp8_input: Megatron-Core TransformerConfig.activation_func_fp8_input_store = True"),
        "{args}"
    );
    assert!(!lines(&args)
        .iter()
        .any(|l| l.starts_with("--activation-func")));
}
