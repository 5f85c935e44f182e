//! The first-sight record (`tests/data/first_sight.json`, issue 31) is append-only and covers
//! every run of `tests/data/public.json` and `tests/data/extra.json`.
//!
//! The rule, checked here:
//! 1. **Append-only.** A hash chain runs over the records, then the changes
//!    ([`first_sight::chain_head`]); [`CHECKPOINTS`] pins its head after each append. Every
//!    checkpoint must still match its prefix of the file and the last one must cover the whole
//!    file, so editing, removing or reordering any entry fails, and so does an append nobody
//!    pinned. After appending (with `tools/first_sight.py`, which prints the head) add one line
//!    to [`CHECKPOINTS`]; never edit an existing line.
//! 2. **Every run has a first sight of what it is now.** For each case, with `d` its current
//!    digest ([`first_sight::case_digest`], computed here in Rust, written by the tool in
//!    Python: the two must agree): either a record of (id, `d`) exists, or the run changed
//!    after its first sight and `changes` holds a chain from a recorded digest of that id to
//!    `d`, each step with its reason. A corrected run therefore gets a new record appended (or
//!    a change note); its old record stays, since it is what the engine predicted then.
//! 3. **Records are well-formed**: 16-hex digests, a commit and a "how", the group the case has
//!    now when the record is of the current version, and each change starts from a recorded
//!    digest (or an earlier change's target) of the same run.
//! 4. **One first-sight engine per source.** Every record of a group names the same engine
//!    commit: a corrected run, or a new run of a source already seen, is recorded with that
//!    source's first-sight engine (`tools/first_sight.py record --bin` built from it), never with
//!    a later engine, which was shaped with the source in view; when that engine cannot read
//!    the run, note the change instead.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::evidence::first_sight::{self, Book, Sight};
use serde_json::Value;

/// `(records, changes, chain head)` after each append, oldest first. Append a line; never edit.
const CHECKPOINTS: &[(usize, usize, &str)] = &[
    // The 7 groups new in the data refresh, recorded live at c4239dc.
    (185, 0, "2ac2dbbbb810baf2"),
    // Every other group, reconstructed from the history (tools/first_sight.py, per-group how).
    (557, 299, "6a215996a22288ab"),
    // The founding groups' predicted peak and fit, from the same binary through an adapter.
    (752, 299, "7cb041f7253ecc1a"),
    // llm-foundry's 216 rows name their attention kernel (issue 33): change notes.
    (752, 515, "68c0bf9c2f545cd7"),
    // Issue 36: llm-foundry and Nemotron state dropout 0, the audit's memory rows applied.
    (752, 735, "6214cc692013dbf4"),
    // The DeepSeek-V3 report row states its FP8 dispatch (issue 34): a change note.
    (752, 736, "11a349d68d92d124"),
    // Issue 36: MaxText's runs state their remat policy (training.remat_saved).
    (752, 748, "f58a3281a8979b63"),
    // Issue 34: the six Automodel runs state their round-robin gate (model.moe.routing).
    (752, 754, "5b103ddb62de46b4"),
    // Issues 34, 36: the six Automodel runs state their bf16 parameters and Adam moments.
    (752, 760, "b02f12ee6b84d6f5"),
    // Issue 36: the six Automodel runs state their loss on the bf16 logits (unfused_16bit).
    (752, 766, "b90f8aab2232829f"),
    // Issue 36: the BLOOM runs state their embedding LayerNorm (model.embedding_norm).
    (752, 796, "e6f73bd679ed301d"),
    // Issue 34: the two Automodel runs with GA > 1 under PP state their pipeline rounds.
    (752, 798, "20d90147be7c0f52"),
    // Issue 34: Nemotron-4 340B's GB200 rows state the unfused core and dropout 0 (notes).
    (752, 810, "072ad98cab4f92ee"),
    // Issue 36, held-out memory: torchtune's Llama 3.2 3B rows at bc8a085 (gradients at the default).
    (756, 810, "d9cce9426354974f"),
    // The same rows with the recipe's bf16 gradients stated, same engine.
    (760, 810, "19d5744b9a0ca10c"),
    // NeMo Automodel PR #2673's seven Llama 3.3 70B verdicts at bc8a085.
    (767, 810, "964fd6a005b6a869"),
    // torchtitan's NVFP4 doc: Llama 3 8B BF16 and MXFP8 on 4 GB200s at bc8a085.
    (769, 810, "7505ebf9ac3c6e0a"),
    // Issue 36: the two GB200 rows state their chunked loss (training.loss_chunks): notes.
    (769, 812, "49b956edc828538e"),
    // torchao's MX README: Llama 3 8B bf16, float8 and MXFP8 on 8 B200s at b9bfd16.
    (773, 812, "d94823c7d5ee80c0"),
    // The same four rows without their step time (750 W B200), same engine.
    (777, 812, "1db9f99f3cfdb20f"),
];

fn load(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn entries(v: &Value, key: &str) -> Vec<Value> {
    v.get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn cases() -> Vec<Value> {
    let mut all = Vec::new();
    for path in ["tests/data/public.json", "tests/data/extra.json"] {
        match load(path) {
            Value::Array(a) => all.extend(a),
            other => all.extend(entries(&other, "cases")),
        }
    }
    all
}

#[test]
fn chain_matches_every_checkpoint_and_covers_the_file() {
    let v = load("tests/data/first_sight.json");
    let (records, changes) = (entries(&v, "records"), entries(&v, "changes"));
    let last = CHECKPOINTS.last().expect("at least one checkpoint");
    let now = first_sight::chain_head(records.iter().chain(&changes));
    assert_eq!(
        (last.0, last.1),
        (records.len(), changes.len()),
        "first_sight.json has entries no checkpoint pins (or lost some): after appending, add \
         ({}, {}, \"{now}\") to CHECKPOINTS",
        records.len(),
        changes.len()
    );
    for &(n, m, head) in CHECKPOINTS {
        assert!(n <= records.len() && m <= changes.len(), "entries removed");
        let got = first_sight::chain_head(records[..n].iter().chain(&changes[..m]));
        assert_eq!(
            got, head,
            "the first {n} records and {m} changes were edited, removed or reordered: a first \
             sight is never rewritten (append a new record instead)"
        );
    }
}

#[test]
fn every_case_has_a_first_sight_of_its_current_version() {
    let v = load("tests/data/first_sight.json");
    let book = Book::parse(&v).unwrap();
    let mut missing = Vec::new();
    for case in cases() {
        let id = case["id"].as_str().unwrap();
        let group = case["group"].as_str().unwrap();
        let d = first_sight::case_digest(&case);
        match book.sight(id, &d) {
            Sight::Exact(r) => assert_eq!(r.group, group, "{id}: recorded under another group"),
            Sight::Earlier(_) => {}
            Sight::None => missing.push(format!("{id} ({group}) {d}")),
        }
    }
    assert!(
        missing.is_empty(),
        "{} runs have no first sight of their current version (record them with \
         tools/first_sight.py, or note the change): {missing:#?}",
        missing.len()
    );
}

#[test]
fn one_first_sight_engine_per_group() {
    let book = Book::parse(&load("tests/data/first_sight.json")).unwrap();
    for r in &book.records {
        let first = book.records.iter().find(|x| x.group == r.group).unwrap();
        assert_eq!(
            r.commit, first.commit,
            "{} ({}): recorded with engine {}, but the group's first sight was {}",
            r.id, r.group, r.commit, first.commit
        );
    }
}

#[test]
fn records_and_changes_are_well_formed() {
    let v = load("tests/data/first_sight.json");
    let book = Book::parse(&v).unwrap();
    let hex16 = |s: &str| s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
    for r in &book.records {
        assert!(hex16(&r.case_digest), "{}: digest {}", r.id, r.case_digest);
        assert!(
            r.commit.len() >= 7 && !r.how.is_empty(),
            "{}: commit/how",
            r.id
        );
    }
    for (i, c) in book.changes.iter().enumerate() {
        assert!(
            hex16(&c.from) && hex16(&c.to) && c.from != c.to,
            "change {i}"
        );
        assert!(c.why.len() > 20, "change {i} ({}) must say why", c.id);
        let from_known = book
            .records
            .iter()
            .any(|r| r.id == c.id && r.case_digest == c.from)
            || book.changes[..i]
                .iter()
                .any(|p| p.id == c.id && p.to == c.from);
        assert!(
            from_known,
            "change {i} ({}) starts from no recorded version",
            c.id
        );
    }
}

/// The live records of the data refresh (c4239dc), recomputed from the file: step-time MAPE and
/// signed mean as the refresh's commit message states them (it gave llm-foundry A100 40GB's
/// MAPE as 5.7 %; the records give 5.65 %).
#[test]
fn live_first_sights_match_what_was_reported() {
    let v = load("tests/data/first_sight.json");
    let book = Book::parse(&v).unwrap();
    let stat = |g: &str| {
        let e: Vec<f64> = book
            .records
            .iter()
            .filter(|r| r.group == g && r.commit == "c4239dc")
            .filter_map(|r| r.step_error_pct)
            .collect();
        let n = e.len() as f64;
        (
            e.iter().map(|x| x.abs()).sum::<f64>() / n,
            e.iter().sum::<f64>() / n,
        )
    };
    for (g, mape, mean) in [
        ("megatron_readme_2020", 3.72, -0.07),
        ("bloom_prequel_0228", 4.9, -4.3),
        ("dgxc_maxtext_llama2_70b", 13.6, -13.6),
        ("llmfoundry_h100_80gb", 22.1, -22.1),
        ("llmfoundry_h100_80gb_fp8", 27.4, -27.4),
        ("llmfoundry_a100_40gb", 5.65, -4.44),
        ("dgxc_memory_example", 26.5, -26.5),
    ] {
        let (m, s) = stat(g);
        assert!(
            (m - mape).abs() < 0.05 && (s - mean).abs() < 0.05,
            "{g}: {m} {s}"
        );
    }
}

fn validate(args: &[&str]) -> Result<String, String> {
    let args: Vec<String> = std::iter::once("validate")
        .chain(args.iter().copied())
        .map(str::to_string)
        .collect();
    paracalc::cli::run(&args).map_err(|e| e.message)
}

/// `validate` finds `first_sight.json` beside the cases file and reports, per group, the error
/// now beside the error at first sight over the same runs, and a constant-MFU rule of thumb;
/// every figure recomputed here from the records and the engine.
#[test]
fn validate_reports_first_sight_beside_now() {
    let out: Value =
        serde_json::from_str(&validate(&["tests/data/public.json", "--json"]).unwrap()).unwrap();
    let fs = &out["summary"]["first_sight"];
    let by_group = &out["summary"]["time_by_group"];
    let book = Book::parse(&load("tests/data/first_sight.json")).unwrap();
    let first_mape = |g: &str, commit: &str| {
        let e: Vec<f64> = book
            .records
            .iter()
            .filter(|r| r.group == g && r.commit == commit)
            .filter_map(|r| r.step_error_pct)
            .collect();
        e.iter().map(|x| x.abs()).sum::<f64>() / e.len() as f64
    };
    // A group seen first in the refresh: all runs have a record of their current version.
    let g = &fs["megatron_readme_2020"];
    assert_eq!(g["time_cases"], 12);
    assert_eq!(g["earlier_version_cases"], 0);
    let f = g["first_sight_time_mape_pct"].as_f64().unwrap();
    assert!((f - first_mape("megatron_readme_2020", "c4239dc")).abs() < 1e-9);
    let now = g["time_mape_pct"].as_f64().unwrap();
    let all_now = by_group["megatron_readme_2020"]["time_mape_pct"]
        .as_f64()
        .unwrap();
    assert!(
        (now - all_now).abs() < 1e-9,
        "same runs: {now} vs {all_now}"
    );
    // MaxText's runs state their remat policy since (issue 36): earlier versions, the
    // first-sight MAPE still c4239dc's.
    let g = &fs["dgxc_maxtext_llama2_70b"];
    assert_eq!(g["earlier_version_cases"], 12);
    let f = g["first_sight_time_mape_pct"].as_f64().unwrap();
    assert!((f - 13.56).abs() < 0.01, "{f}");
    // A refresh group whose runs changed after their first sight (their attention kernel named,
    // issue 33): all 70 reported as earlier versions, the first-sight MAPE still c4239dc's.
    let g = &fs["llmfoundry_h100_80gb"];
    assert_eq!(g["time_cases"], 70);
    assert_eq!(g["earlier_version_cases"], 70);
    let f = g["first_sight_time_mape_pct"].as_f64().unwrap();
    assert!((f - 22.05).abs() < 0.01, "{f}");
    // A founding group: every run changed after its first sight (framework stated at 2e09169).
    let g = &fs["narayanan21_table1"];
    assert_eq!(
        (
            g["time_cases"].as_u64(),
            g["earlier_version_cases"].as_u64()
        ),
        (Some(10), Some(10))
    );
    let f = g["first_sight_time_mape_pct"].as_f64().unwrap();
    assert!((f - first_mape("narayanan21_table1", "96052f5+c24b9c8")).abs() < 1e-9);
    assert!((f - 13.3).abs() < 0.05, "{f}");
    // Runs that ran, predicted not to fit at first sight: the refresh's message gave A100 40GB
    // 45 of 78 and H100 15 of 70.
    for (g, n) in [("llmfoundry_a100_40gb", 45), ("llmfoundry_h100_80gb", 15)] {
        assert_eq!(
            fs[g]["first_sight_ran_predicted_not_to_fit"].as_u64(),
            Some(n),
            "{g}"
        );
    }
    // The pooled row counts every group's runs.
    let total: u64 = fs
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.as_str() != "all")
        .map(|(_, v)| v["time_cases"].as_u64().unwrap())
        .sum();
    assert_eq!(fs["all"]["time_cases"].as_u64(), Some(total));
    assert!(total >= 420, "{total}");
}

/// The constant-MFU baseline of one group, recomputed: each run's step at 100 % MFU (the
/// engine's step × its MFU) over the geometric mean of the measured MFU of every other group.
#[test]
fn constant_mfu_baseline_is_fitted_on_the_other_groups() {
    let out: Value =
        serde_json::from_str(&validate(&["tests/data/public.json", "--json"]).unwrap()).unwrap();
    let Value::Array(public) = load("tests/data/public.json") else {
        panic!("public.json is an array")
    };
    let mut runs = Vec::new(); // (group, step at 100 % MFU s, measured s)
    for case in &public {
        let Some(measured) = case
            .pointer("/measured/iteration_time_s")
            .and_then(Value::as_f64)
        else {
            continue;
        };
        let Ok(s) = paracalc::scenario::from_value(&case["scenario"]) else {
            continue;
        };
        let Ok(e) = paracalc::engine::estimate(&s) else {
            continue;
        };
        runs.push((
            case["group"].as_str().unwrap(),
            e.time.step_s * e.throughput.mfu,
            measured,
        ));
    }
    let g = "torchtitan_a100";
    let logs: Vec<f64> = runs
        .iter()
        .filter(|r| r.0 != g)
        .map(|r| (r.1 / r.2).ln())
        .collect();
    let mfu = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    assert!((0.2..0.6).contains(&mfu), "{mfu}");
    let e: Vec<f64> = runs
        .iter()
        .filter(|r| r.0 == g)
        .map(|r| 100.0 * (r.1 / mfu - r.2) / r.2)
        .collect();
    let mape = e.iter().map(|x| x.abs()).sum::<f64>() / e.len() as f64;
    let got = out["summary"]["first_sight"][g]["const_mfu_time_mape_pct"]
        .as_f64()
        .unwrap();
    assert!((got - mape).abs() < 1e-9, "{got} vs {mape}");
}

#[test]
fn validate_first_sight_flag() {
    // Named explicitly, the same table; a missing file is an error naming it.
    let text = validate(&[
        "tests/data/extra.json",
        "--first-sight",
        "tests/data/first_sight.json",
    ])
    .unwrap();
    assert!(text.contains("step time now and at first sight"));
    assert!(text.contains("dgxc2504_nemotron4_h100"));
    let e = validate(&[
        "tests/data/extra.json",
        "--first-sight",
        "tests/data/none.json",
    ])
    .unwrap_err();
    assert!(e.contains("tests/data/none.json"), "{e}");
}

/// Per group, the first-sight step-time error the app shows (`src/evidence/first_sight/groups.tsv`,
/// generated here from the records and the current data: the record each run's current digest
/// leads to, as `validate` takes it). Regenerate on purpose with
/// `PARACALC_WRITE_FIRST_SIGHT=1 cargo test --test first_sight`.
#[test]
fn app_table_of_first_sight_per_group_is_fresh() {
    let book = Book::parse(&load("tests/data/first_sight.json")).unwrap();
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    for case in cases() {
        let group = case["group"].as_str().unwrap();
        let err = match book.sight(
            case["id"].as_str().unwrap(),
            &first_sight::case_digest(&case),
        ) {
            Sight::Exact(r) | Sight::Earlier(r) => r.step_error_pct,
            Sight::None => None,
        };
        let Some(e) = err else { continue };
        match groups.iter_mut().find(|g| g.0 == group) {
            Some(g) => g.1.push(e),
            None => groups.push((group.to_string(), vec![e])),
        }
    }
    let mut text = String::from(
        "# Generated by `PARACALC_WRITE_FIRST_SIGHT=1 cargo test --test first_sight` from\n\
         # tests/data/first_sight.json and the validation data; do not edit.\n\
         # Per group (source table): timed runs with a first sight, the first-sight step-time\n\
         # MAPE % and signed mean % (+: predicted slower), in the data's order; tab-separated.\n",
    );
    for (g, e) in &groups {
        let n = e.len() as f64;
        let mape = e.iter().map(|x| x.abs()).sum::<f64>() / n;
        let mean = e.iter().sum::<f64>() / n;
        text.push_str(&format!("{g}\t{}\t{mape:.1}\t{mean:.1}\n", e.len()));
    }
    let path = "src/evidence/first_sight/groups.tsv";
    if std::env::var_os("PARACALC_WRITE_FIRST_SIGHT").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let shipped = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        shipped == text,
        "{path} is stale: PARACALC_WRITE_FIRST_SIGHT=1 cargo test --test first_sight"
    );
    assert_eq!(
        first_sight::group("llmfoundry_h100_80gb"),
        Some((70, 22.1, -22.1))
    );
}

/// The evidence panel lists the sources of the plan's band with the error now beside the error
/// at first sight; the figures recomputed here from the shipped runs and the records' table.
#[test]
fn evidence_panel_shows_first_sight_beside_now() {
    use paracalc::evidence::{band, Case};
    use yew::prelude::*;

    let text = std::fs::read_to_string("static/evidence.json").unwrap();
    let cases = paracalc::evidence::parse(&text).unwrap();
    // A torchtitan Llama 3 run on H100 as the plan: its band rests on torchtitan runs.
    let plan = cases
        .iter()
        .find(|c| c.group == "torchtitan_h100")
        .unwrap()
        .scenario
        .clone();
    let b = band::band(&cases, &plan).expect("a band");
    let rows = first_sight::by_source(&cases, &b.runs);
    assert!(!rows.is_empty());
    let tt = rows
        .iter()
        .find(|r| r.group == "torchtitan_h100")
        .expect("the plan's own source");
    let errors: Vec<f64> = cases
        .iter()
        .filter(|c: &&Case| c.group == "torchtitan_h100")
        .map(|c| {
            let e = paracalc::engine::estimate(&c.scenario).unwrap();
            100.0 * (e.time.step_s - c.step_s) / c.step_s
        })
        .collect();
    let mape = errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64;
    assert_eq!(tt.runs, errors.len());
    assert!((tt.now.0 - mape).abs() < 1e-9, "{} vs {mape}", tt.now.0);
    assert_eq!(tt.first, Some((19, 35.3, -35.3)));

    thread_local! {
        static INPUT: std::cell::RefCell<Option<(Vec<Case>, band::Band)>> =
            const { std::cell::RefCell::new(None) };
    }
    #[function_component]
    fn Wrap() -> Html {
        INPUT.with(|i| {
            let i = i.borrow();
            let (cases, b) = i.as_ref().unwrap();
            paracalc::app::components::evidence_panel::source_errors(cases, b)
        })
    }
    INPUT.with(|i| *i.borrow_mut() = Some((cases.clone(), b.clone())));
    let html = futures::executor::block_on(yew::LocalServerRenderer::<Wrap>::new().render());
    assert!(html.contains("id=\"band-sources-table\""), "{html}");
    assert!(html.contains("torchtitan_h100"), "{html}");
    assert!(html.contains("35.3 % (-35.3 %)"), "{html}");
    assert!(html.contains("First sight"), "{html}");
}
