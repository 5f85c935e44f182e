//! The built binary on broken inputs: exit code 2, a message naming the field, never a panic
//! trace. Each file row runs through `link` (which parses and validates) and through `estimate`
//! (skipped while `estimate` is still a stub); each link row runs through `unlink`.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paracalc"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// GPT-3 175B as in DESIGN.md: a valid scenario to break one field at a time.
fn good() -> Value {
    json!({
        "model": {"name": "GPT-3 175B", "layers": 96, "hidden": 12288, "heads": 96, "vocab": 51200,
                  "seq_len": 2048, "tied_embeddings": true},
        "training": {"global_batch": 1536, "micro_batch": 1, "precision": "bf16", "recompute": "selective"},
        "parallel": {"tp": 8, "pp": 16, "dp": 8, "sp": true, "zero_stage": 1},
        "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024}
    })
}

fn with(edit: impl FnOnce(&mut Value)) -> String {
    let mut v = good();
    edit(&mut v);
    v.to_string()
}

fn temp_dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("paracalc-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Exit 2, every `needles` in stderr, nothing on stdout, no panic trace.
fn assert_input_error(what: &str, out: &Output, needles: &[&str]) {
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: exit code; stderr: {err}"
    );
    for n in needles {
        assert!(
            err.contains(n),
            "{what}: stderr does not mention {n:?}:\n{err}"
        );
    }
    // ("internal error" alone appears in the usage text's list of exit codes.)
    for bad in [
        "panicked",
        "RUST_BACKTRACE",
        "stack backtrace",
        "paracalc: internal error",
    ] {
        assert!(!err.contains(bad), "{what}: panic trace on stderr:\n{err}");
    }
    assert!(
        out.stdout.is_empty(),
        "{what}: stdout not empty: {}",
        text(&out.stdout)
    );
}

#[test]
fn broken_files_exit_2_and_name_the_field() {
    let dir = temp_dir("files");
    // (row, file content, what stderr must mention)
    let rows: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "bad JSON",
            r#"{"model": {"layers": 96,"#.to_string(),
            vec!["line 1"],
        ),
        (
            "not an object",
            "[1, 2, 3]".to_string(),
            vec!["invalid type"],
        ),
        ("empty file", String::new(), vec!["EOF"]),
        (
            "unknown key",
            with(|v| v["model"]["layerz"] = json!(96)),
            vec!["model.layerz"],
        ),
        (
            "unknown section",
            with(|v| v["optimizer"] = json!({})),
            vec!["optimizer"],
        ),
        (
            "wrong type",
            with(|v| v["parallel"]["tp"] = json!("8")),
            vec!["parallel.tp", "string"],
        ),
        (
            "negative count",
            with(|v| v["model"]["layers"] = json!(-1)),
            vec!["model.layers"],
        ),
        (
            "number beyond u64",
            with(|v| v["training"]["global_batch"] = json!(1e30)),
            vec!["training.global_batch"],
        ),
        (
            "missing section",
            with(|v| {
                v.as_object_mut().unwrap().remove("training");
            }),
            vec!["training"],
        ),
        (
            "missing field",
            with(|v| {
                v["model"].as_object_mut().unwrap().remove("vocab");
            }),
            vec!["vocab"],
        ),
        (
            "bad enum",
            with(|v| v["training"]["precision"] = json!("fp4")),
            vec!["training.precision", "fp4"],
        ),
        (
            "tp not dividing heads",
            with(|v| {
                v["parallel"]["tp"] = json!(5);
                v["cluster"]["num_gpus"] = json!(640);
            }),
            vec!["parallel.tp", "does not divide 96 attention heads"],
        ),
        (
            "num_gpus mismatch",
            with(|v| v["cluster"]["num_gpus"] = json!(1000)),
            vec!["cluster.num_gpus", "1024"],
        ),
        (
            "unknown GPU",
            with(|v| v["cluster"]["gpu"] = json!("tpu-v5")),
            vec!["cluster.gpu", "tpu-v5"],
        ),
        (
            "zero stage 7",
            with(|v| v["parallel"]["zero_stage"] = json!(7)),
            vec!["parallel.zero_stage"],
        ),
        (
            "zero bandwidth",
            with(|v| v["cluster"]["intra_node_gbps"] = json!(0)),
            vec!["cluster.intra_node_gbps"],
        ),
        (
            "several problems at once",
            with(|v| {
                v["model"]["vocab"] = json!(0);
                v["training"]["micro_batch"] = json!(0);
            }),
            vec!["model.vocab", "training.micro_batch"],
        ),
        (
            "huge hidden (no overflow)",
            with(|v| v["model"]["hidden"] = json!(u64::MAX)),
            vec!["model.hidden", "model.ffn_hidden"],
        ),
        (
            "terminal escape in an unknown key",
            with(|v| v["model"][format!("\u{1b}]0;pwned\u{7}{}", "k".repeat(5000))] = json!(1)),
            vec!["model.", "unknown field"],
        ),
        (
            "terminal escape in an enum value",
            with(|v| v["training"]["recompute"] = json!("\u{1b}[2J")),
            vec!["training.recompute", "unknown variant"],
        ),
        (
            "terminal escape in the GPU id",
            with(|v| v["cluster"]["gpu"] = json!("\u{1b}[2J")),
            vec!["cluster.gpu", "unknown GPU"],
        ),
        (
            "terminal escape in the name",
            with(|v| v["model"]["name"] = json!("\u{1b}[2Jgpt")),
            vec!["model.name", "control characters"],
        ),
    ];
    for (i, (row, content, needles)) in rows.iter().enumerate() {
        let path = dir.join(format!("case{i}.json"));
        std::fs::write(&path, content).unwrap();
        let p = path.to_str().unwrap();
        assert_input_error(&format!("link: {row}"), &run(&["link", p]), needles);
        let est = run(&["estimate", p]);
        if !text(&est.stderr).contains("not implemented yet") {
            assert_input_error(&format!("estimate: {row}"), &est, needles);
        }
        // Input echoed in messages is printable and bounded.
        let err = text(&run(&["link", p]).stderr);
        assert!(
            !err.contains(['\u{1b}', '\u{7}']),
            "{row}: raw control character on stderr"
        );
        assert!(err.len() < 2000, "{row}: {} bytes on stderr", err.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_links_exit_2_and_name_the_key() {
    let long = format!("v=1&name={}", "x".repeat(5000));
    let rows: Vec<(&str, &str, Vec<&str>)> = vec![
        (
            "bad value",
            "v=1&model=llama3-70b&tp=zero",
            vec!["tp", "whole number"],
        ),
        (
            "unknown key",
            "?v=1&model=llama3-70b&tpp=8",
            vec!["tpp", "unknown key"],
        ),
        ("unknown preset", "model=gpt9-1t", vec!["model", "gpt9-1t"]),
        (
            "unknown GPU",
            "https://x.org/?gpu=tpu-v5",
            vec!["gpu", "tpu-v5"],
        ),
        ("too long", &long, vec!["5009 bytes", "4096"]),
        (
            "out of range",
            "gpus=0&seq=99999999999",
            vec!["gpus", "seq"],
        ),
        (
            "markup value",
            "prec=%3Cscript%3E",
            vec!["prec", "<script>"],
        ),
        (
            "terminal escape",
            "name=%1B%5B2J",
            vec!["name", "control characters"],
        ),
        (
            "valid keys, invalid scenario",
            "v=1&model=llama3-70b&tp=8&pp=4",
            vec!["cluster.num_gpus"],
        ),
    ];
    for (row, link, needles) in rows {
        let out = run(&["unlink", link]);
        assert_input_error(&format!("unlink: {row}"), &out, &needles);
        assert!(
            !text(&out.stderr).contains('\u{1b}'),
            "{row}: raw ESC on stderr"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    for (row, args) in [
        ("no command", vec![]),
        ("unknown command", vec!["lnik"]),
        ("link without file", vec!["link"]),
        ("missing file", vec!["link", "/nonexistent/dir/s.json"]),
        ("unlink without text", vec!["unlink"]),
        ("two links", vec!["unlink", "a", "b"]),
        ("unknown option", vec!["unlink", "--strict", "v=1"]),
        (
            "unknown preset option",
            vec!["link", "/nonexistent.json", "--preset"],
        ),
    ] {
        let out = run(&args);
        assert_input_error(row, &out, &[]);
        assert!(!text(&out.stderr).trim().is_empty(), "{row}: no message");
    }
    assert_input_error(
        "missing file",
        &run(&["link", "/nonexistent/dir/s.json"]),
        &["/nonexistent/dir/s.json"],
    );
}

/// The happy path: `link` prints a short query; `unlink` of it prints the same scenario.
#[test]
fn link_then_unlink_gives_the_scenario_back() {
    let dir = temp_dir("good");
    let path = dir.join("good.json");
    std::fs::write(&path, good().to_string()).unwrap();
    let out = run(&["link", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let q = text(&out.stdout).trim().to_string();
    // Nearest preset gpt3-175b; the file has no train_tokens (the preset has 300e9), kv_heads and
    // ffn_hidden unset (the preset spells them out): those three keys differ.
    assert_eq!(q, "v=1&model=gpt3-175b&kv=&ffn=&tokens=");
    let back = run(&["unlink", &format!("https://example.org/paracalc/?{q}")]);
    assert_eq!(back.status.code(), Some(0), "{}", text(&back.stderr));
    let got: Value = serde_json::from_slice(&back.stdout).unwrap();
    let want: Value = serde_json::from_str(
        &paracalc::scenario::parse(&good().to_string())
            .unwrap()
            .to_json_pretty(),
    )
    .unwrap();
    assert_eq!(got, want);
    // --lenient prints the scenario of a broken link, notices on stderr.
    let lenient = run(&["unlink", "--lenient", "model=llama3-70b&tp=zero"]);
    assert_eq!(lenient.status.code(), Some(0));
    assert!(text(&lenient.stderr).contains("tp"));
    let s: Value = serde_json::from_slice(&lenient.stdout).unwrap();
    assert_eq!(s["parallel"]["tp"], 4);
    let _ = std::fs::remove_dir_all(&dir);
}
