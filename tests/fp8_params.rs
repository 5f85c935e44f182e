//! FP8 primary weights (`training.fp8_params`, Megatron-LM `--fp8-param-gather`): what the
//! weights cost, what the distributed optimizer gathers, the field's errors and its round trips
//! through the share link and the Megatron export.

use paracalc::engine::estimate::estimate;
use paracalc::megatron::launch_args;
use paracalc::presets::model_preset;
use paracalc::scenario::{Precision, Scenario};

/// Llama 3 8B in FP8 (delayed scaling) on 8 GPUs, data parallel with the distributed optimizer.
fn llama3_8b_fp8(fp8_params: Option<bool>) -> Scenario {
    let mut s = model_preset("llama3-8b").unwrap().scenario();
    s.training.precision = Precision::Fp8;
    s.parallel.cp = 1;
    s.parallel.dp = 8;
    s.parallel.zero_stage = 1;
    s.training.fp8_params = fp8_params;
    s
}

/// Llama 3 8B's GEMM weights (the matrices FP8 casts; embedding and output layer stay 16-bit):
/// per layer Q, K, V and the output projection 4096·(4096 + 2·1024 + 4096) = 41,943,040, the
/// SwiGLU MLP 3·4096·14336 = 176,160,768; × 32 layers.
const LLAMA3_8B_GEMM_WEIGHTS: f64 = 32.0 * (41_943_040.0 + 176_160_768.0);

#[test]
fn the_sixteen_bit_copy_of_every_gemm_weight_goes() {
    let off = estimate(&llama3_8b_fp8(None)).unwrap();
    let on = estimate(&llama3_8b_fp8(Some(true))).unwrap();
    // Default path: 2 B (bf16) + 2 B (FP8 data and transpose) per GEMM weight; FP8 primary
    // weights: the FP8 data and transpose only, 2 B less: 2 · 6,979,321,856 B.
    let saved = off.memory.stages()[0].weights_bytes - on.memory.stages()[0].weights_bytes;
    assert_eq!(saved, 2.0 * LLAMA3_8B_GEMM_WEIGHTS);
    assert_eq!(saved, 13_958_643_712.0);
    assert!(on.memory.peak_bytes < off.memory.peak_bytes);
    // Off and absent are the same plan.
    let explicit_off = estimate(&llama3_8b_fp8(Some(false))).unwrap();
    assert_eq!(explicit_off.memory.peak_bytes, off.memory.peak_bytes);
    assert_eq!(explicit_off.time.step_s, off.time.step_s);
}

#[test]
fn the_distributed_optimizer_gathers_one_byte_per_gemm_weight() {
    let off = estimate(&llama3_8b_fp8(None)).unwrap();
    let on = estimate(&llama3_8b_fp8(Some(true))).unwrap();
    // The parameter all-gather moves (n − 1)/n of the stage's parameters at 2 B, the GEMM
    // weights at 1 B with FP8 primary weights: 7/8 · 6,979,321,856 B less per step.
    let less = off.comm.dp.bytes - on.comm.dp.bytes;
    assert!(
        (less - 7.0 / 8.0 * LLAMA3_8B_GEMM_WEIGHTS).abs() < 1.0,
        "{less}"
    );
    // The forward and backward do not change.
    assert_eq!(on.time.compute_s, off.time.compute_s);
    assert!(on.time.step_s <= off.time.step_s);
}

/// A change to a plan.
type Change = fn(&mut Scenario);

#[test]
fn errors_name_the_field() {
    let cases: [(Change, &str); 3] = [
        (
            |s| s.training.precision = Precision::Bf16,
            "FP8 primary weights need precision fp8, not bf16.",
        ),
        (
            |s| s.training.framework = Some(paracalc::scenario::Framework::Torchtitan),
            "--fp8-param-gather; training.framework is torchtitan",
        ),
        (
            |s| s.parallel.zero_stage = 0,
            "modelled at parallel.zero_stage 1; it is 0.",
        ),
    ];
    for (change, message) in cases {
        let mut s = llama3_8b_fp8(Some(true));
        change(&mut s);
        let e = s.validate().unwrap_err();
        let issue = e
            .issues
            .iter()
            .find(|i| i.field == "training.fp8_params")
            .unwrap_or_else(|| panic!("no issue on training.fp8_params: {e}"));
        assert!(issue.message.contains(message), "{}", issue.message);
    }
    llama3_8b_fp8(Some(true)).validate().unwrap();
}

#[test]
fn export_and_link_carry_it() {
    let s = llama3_8b_fp8(Some(true));
    assert!(launch_args(&s).contains("--fp8-param-gather"));
    assert!(!launch_args(&llama3_8b_fp8(None)).contains("--fp8-param-gather"));
    let link = paracalc::share::encode(&s, "llama3-8b");
    assert!(link.contains("fp8w=1"), "{link}");
    let back = paracalc::share::decode(&link).unwrap();
    assert_eq!(back.scenario.training.fp8_params, Some(true));
}
