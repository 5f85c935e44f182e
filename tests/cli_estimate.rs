//! `paracalc estimate`: the readable table and the `--json` shape of DESIGN.md.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::cli;

const SCENARIO: &str = r#"{
  "model":    {"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96, "kv_heads": 96,
               "ffn_hidden": 49152, "ffn_act": "gelu", "vocab": 51200, "seq_len": 2048,
               "tied_embeddings": true, "moe": null},
  "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "optimizer": "adam",
               "recompute": "selective", "flash_attention": false},
  "parallel": {"tp": 8, "pp": 16, "dp": 8, "cp": 1, "ep": 1, "vp": 1, "sp": true, "zero_stage": 1},
  "cluster":  {"gpu": "a100-sxm4-80gb", "num_gpus": 1024, "gpus_per_node": 8}
}"#;

fn write(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("paracalc-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> Result<String, cli::CliError> {
    cli::run(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

#[test]
fn json_has_the_design_shape() {
    let f = write("gpt.json", SCENARIO);
    let out = run(&["estimate", &f, "--json"]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mem = &v["memory"];
    let stages = mem["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 16);
    for (i, st) in stages.iter().enumerate() {
        assert_eq!(st["stage"].as_u64(), Some(i as u64));
        assert_eq!(st["layers"].as_u64(), Some(6));
        let parts: f64 = [
            "weights_bytes",
            "gradients_bytes",
            "optimizer_bytes",
            "activations_bytes",
            "other_bytes",
        ]
        .iter()
        .map(|k| st[*k].as_f64().unwrap())
        .sum();
        let total = st["total_bytes"].as_f64().unwrap();
        assert!((parts - total).abs() <= 1e-9 * total);
    }
    assert!(mem["peak_bytes"].as_f64().unwrap() > 0.0);
    assert_eq!(
        mem["capacity_bytes"].as_f64(),
        Some(80.0 * 1024.0 * 1024.0 * 1024.0)
    );
    assert_eq!(mem["fits"].as_bool(), Some(true));
    for k in [
        "step_s",
        "compute_s",
        "recompute_s",
        "bubble_s",
        "optimizer_s",
    ] {
        assert!(v["time"][k].is_number(), "time.{k}");
    }
    for k in ["tp", "cp", "ep", "pp", "dp"] {
        assert!(
            v["time"]["exposed_comm_s"][k].is_number(),
            "exposed_comm_s.{k}"
        );
    }
    for k in [
        "tokens_per_s",
        "samples_per_s",
        "tflops_per_gpu",
        "mfu",
        "hfu",
    ] {
        assert!(v["throughput"][k].is_number(), "throughput.{k}");
    }
}

#[test]
fn readable_table_per_stage() {
    let f = write("gpt2.json", SCENARIO);
    let out = run(&["estimate", &f]).unwrap();
    assert!(out.contains("Memory per GPU (GiB) by pipeline stage"));
    assert!(out.contains("activations"));
    assert!(out.contains("fits"));
    // The verdict from engine::advice, and the causal-attention value beside the default.
    assert!(
        out.contains("Verdict\n  ") && out.contains(" of the "),
        "{out}"
    );
    assert!(out.contains("Counting attention causally"));
    // One row per stage: 16 lines starting with the stage number.
    let rows = out
        .lines()
        .filter(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.len() == 11 && w.iter().all(|x| x.parse::<f64>().is_ok())
        })
        .count();
    assert_eq!(rows, 16, "{out}");
}

#[test]
fn oom_is_a_result_and_bad_input_names_the_field() {
    let big = SCENARIO.replace(r#""pp": 16, "dp": 8"#, r#""pp": 1, "dp": 128"#);
    let f = write("oom.json", &big);
    let out = run(&["estimate", &f]).unwrap();
    assert!(out.contains("DOES NOT FIT"), "{out}");
    assert!(out.contains("OOM"));
    let bad = SCENARIO.replace(r#""tp": 8"#, r#""tp": 7"#);
    let f = write("bad.json", &bad);
    let err = run(&["estimate", &f]).unwrap_err();
    assert_eq!(err.code, 2);
    assert!(err.message.contains("parallel.tp"), "{}", err.message);
    assert_eq!(run(&["estimate"]).unwrap_err().code, 2);
}

#[test]
fn the_report_says_how_far_to_trust_it_from_the_shipped_runs() {
    // The same band the app shows, from the same file (static/evidence.json).
    let cases = paracalc::evidence::parse(
        &std::fs::read_to_string("static/evidence.json").expect("static/evidence.json"),
    )
    .unwrap();
    let s = paracalc::scenario::from_value(&serde_json::from_str(SCENARIO).unwrap()).unwrap();
    let b = paracalc::evidence::band::band(&cases, &s).expect("GPT-3 on A100s has published runs");
    assert!(b.runs.len() >= paracalc::evidence::band::MIN_RUNS);
    let f = write("trust.json", SCENARIO);
    let out = run(&["estimate", &f]).unwrap();
    let section = out
        .split("How far to trust it")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    // The shown bands are the out-of-sample ones; the in-sample MAPE stays beside the step's.
    let reach = b.step_reach.as_ref().expect("an out-of-sample step band");
    assert!(
        section.contains(&format!("step time {}", reach.text())),
        "{section}"
    );
    assert!(section.contains(&format!("in sample: {}", b.text(b.time_pct))));
    assert!(section.contains(&format!("throughput, TFLOP/s, MFU {}", reach.rate_text())));
    let (lo, hi) = reach.measured_over_predicted();
    assert!(lo < 1.0 && hi > 1.0, "{lo} {hi}");
    // Which way those runs missed, under the step band (uncalibrated) and the memory band.
    assert!(section.contains(&b.spread.text()), "{section}");
    let peak = b.memory_spread.expect("runs with memory").peak_text();
    assert!(section.contains(&peak), "{section}");
    assert!(b.spread.text().contains("than measured"));
    // 58 GiB of 80 is far from the limit: no memory caveat.
    assert!(!section.contains("memory limit is inside"), "{section}");
    let v: serde_json::Value =
        serde_json::from_str(&run(&["estimate", &f, "--json"]).unwrap()).unwrap();
    let t = &v["trust"];
    assert_eq!(t["step_pct"].as_f64(), Some(b.time_pct));
    assert_eq!(t["runs"].as_u64(), Some(b.runs.len() as u64));
    assert_eq!(t["memory_fit_uncertain"].as_bool(), Some(false));
    assert!(t["calibrated_step_pct"].is_null());
    let spread = &t["step_signed_pct"];
    assert_eq!(spread["mean"].as_f64(), Some(b.spread.mean_pct));
    assert_eq!(spread["low"].as_f64(), Some(b.spread.lo_pct));
    assert_eq!(spread["high"].as_f64(), Some(b.spread.hi_pct));
    assert_eq!(
        spread["runs_in_range"].as_u64(),
        Some(b.spread.within as u64)
    );
}

/// Issue 34: the breakdown shows where DualPipe hides the all-to-all. DeepSeek-V3 as its report
/// runs it (the `deepseek-v3-report` preset): the EP dispatch and combine are mostly hidden under
/// the paired forward and backward chunks, and the hidden part is printed per kind beside the
/// exposed one, from the same estimate.
#[test]
fn the_breakdown_shows_where_dualpipe_hides_the_all_to_all() {
    const PRESET: &str = include_str!("../src/presets/deepseek-v3-report.json");
    let s = paracalc::scenario::parse(PRESET).unwrap();
    let e = paracalc::engine::estimate(&s).unwrap();
    let (hidden, exposed) = (e.time.hidden_comm_s.ep, e.time.exposed_comm_s.ep);
    assert!(
        hidden > 3.0 * exposed && exposed > 0.0,
        "{hidden} {exposed}"
    );
    let out = run(&["estimate", &write("dsv3.json", PRESET)]).unwrap();
    let want = format!(
        "{exposed:.4} s exposed, {hidden:.4} s hidden under the paired forward and backward chunks of DualPipe"
    );
    assert!(out.contains(&want), "{out}");
    assert!(
        out.contains(&format!(
            "hidden comm (not in the step): tp 0.0000, cp 0.0000, ep {hidden:.4}"
        )),
        "{out}"
    );
}
