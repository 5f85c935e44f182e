//! The scenario contract: every published case parses and validates; errors name their field.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::scenario::{self, gpu_preset, GPU_PRESETS};

fn cases() -> Vec<serde_json::Value> {
    serde_json::from_str(include_str!("data/public.json"))
        .expect("tests/data/public.json is valid JSON")
}

#[test]
fn every_public_case_parses_and_validates() {
    for case in cases() {
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let s = scenario::from_value(&case["scenario"]).unwrap_or_else(|e| panic!("{id}: {e}"));
        s.validate().unwrap_or_else(|e| panic!("{id}: {e}"));
    }
}

#[test]
fn presets_match_the_validation_gpus() {
    let gpus: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("data/gpus.json")).unwrap();
    // Presets beyond the validation GPUs (none of its cases uses them), each with its source.
    const EXTRA: &[&str] = &["h800-sxm5-80gb"];
    assert_eq!(gpus.len() + EXTRA.len(), GPU_PRESETS.len());
    for id in EXTRA {
        assert!(gpu_preset(id).is_some_and(|p| !p.source.is_empty()), "{id}");
    }
    for g in &gpus {
        let id = g["id"].as_str().unwrap();
        let p = gpu_preset(id).unwrap_or_else(|| panic!("no preset {id}"));
        assert_eq!(p.spec.hbm_gib, g["hbm_gib"].as_f64().unwrap(), "{id}");
        assert_eq!(p.spec.usable_gib, g["usable_gib"].as_f64(), "{id}");
        assert_eq!(p.spec.hbm_gbps, g["hbm_gbps"].as_f64().unwrap(), "{id}");
        assert_eq!(p.spec.nvlink_gbps, g["nvlink_gbps"].as_f64(), "{id}");
        assert_eq!(p.spec.nic_gbps, g["nic_gbps"].as_f64(), "{id}");
        assert_eq!(
            p.spec.nvlink_domain_gpus,
            g["nvlink_domain_gpus"].as_u64().unwrap(),
            "{id}"
        );
        for (k, ours) in [
            ("bf16", p.spec.peak_tflops.bf16),
            ("fp16", p.spec.peak_tflops.fp16),
            ("fp8", p.spec.peak_tflops.fp8),
        ] {
            match g["peak_tflops"][k].as_f64() {
                Some(v) => assert_eq!(ours, Some(v), "{id} {k}"),
                // Unknown peak: ours must lie inside the published bounds.
                None => {
                    let bk = if k == "fp16" { "bf16" } else { k }; // 16-bit formats share a peak
                    if let Some(b) = g["peak_tflops_bounds"][bk].as_array() {
                        let (lo, hi) = (b[0].as_f64().unwrap(), b[1].as_f64().unwrap());
                        let v = ours.unwrap_or_else(|| panic!("{id} {k}: no value"));
                        assert!(lo <= v && v <= hi, "{id} {k}: {v} outside [{lo}, {hi}]");
                    } else {
                        assert_eq!(ours, None, "{id} {k}");
                    }
                }
            }
        }
    }
}

fn base() -> serde_json::Value {
    serde_json::json!({
        "model": {"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96, "vocab": 51200, "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "recompute": "selective"},
        "parallel": {"tp": 8, "pp": 16, "dp": 8, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024}
    })
}

#[test]
fn defaults_fill_in() {
    let s = scenario::from_value(&base()).unwrap();
    assert_eq!(s.model.kv_heads(), 96);
    assert_eq!(s.model.ffn_hidden(), 49152);
    assert_eq!((s.parallel.cp, s.parallel.ep, s.parallel.vp), (1, 1, 1));
    assert_eq!(s.cluster.gpus_per_node, 8);
    s.validate().unwrap();
    // Round trip through JSON.
    let back = scenario::parse(&s.to_json_pretty()).unwrap();
    assert_eq!(back, s);
}

#[test]
fn unknown_keys_name_the_key() {
    let mut v = base();
    v["parallel"]["tpp"] = 2.into();
    let e = scenario::from_value(&v).unwrap_err();
    assert_eq!(e.issues[0].field, "parallel.tpp");
    assert!(e.issues[0].message.contains("unknown field"), "{e}");
}

#[test]
fn wrong_types_name_the_field() {
    let mut v = base();
    v["model"]["layers"] = "ninety-six".into();
    let e = scenario::from_value(&v).unwrap_err();
    assert_eq!(e.issues[0].field, "model.layers");
}

#[test]
fn every_problem_is_reported_at_once() {
    let mut v = base();
    v["parallel"]["tp"] = 7.into();
    v["cluster"]["gpu"] = "tpu-v9".into();
    v["training"]["micro_batch"] = 0.into();
    let s = scenario::from_value(&v).unwrap();
    let e = s.validate().unwrap_err();
    let fields: Vec<&str> = e.issues.iter().map(|i| i.field.as_str()).collect();
    assert!(fields.contains(&"parallel.tp"), "{e}");
    assert!(fields.contains(&"cluster.gpu"), "{e}");
    assert!(fields.contains(&"training.micro_batch"), "{e}");
    assert!(fields.contains(&"cluster.num_gpus"), "{e}");
    let tp = e.issues.iter().find(|i| i.field == "parallel.tp").unwrap();
    assert_eq!(
        tp.message,
        "tensor parallel 7 does not divide 96 attention heads."
    );
}
